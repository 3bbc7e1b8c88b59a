//! A scripted test world: leaves whose outcomes a test decides, and a log of
//! every leaf call.
//!
//! [`World`] is the blackboard. Tests set what each leaf returns (by item
//! index, per tick) or let a seeded hash decide; every call of a leaf is
//! recorded as an [`Event`] in call order. [`leaves`] registers the standard
//! test leaves on a [`Leaves<World>`] table, so any tree over the leaf names
//! below can be compiled and run:
//!
//! | name | kind | behaviour |
//! | --- | --- | --- |
//! | `c` | condition | returns the scripted outcome (running counts as failure) |
//! | `a` | immediate action | returns the scripted outcome; while running its state counts its ticks |
//! | `p` | immediate action with a persistent slot and a memory block of two words | like `a`, and adds 1 to its slot on every success; its memory counts its calls and folds in its states (see [`World::action`]) |
//! | `d` | deferred action | runs in a test "game system" through requests and completions |
//! | `s` | scope hooks | log the scope's enter and exit |
//! | `score` | Decide (Spore) | logs the call; returns the scripted score ([`World::score`], which the agent's active stimuli 0 and 1 and their data change) and sets a decider block, and a one-word memory block ([`score_memory`]) that a `p` its decider starts begins its memory with |
//!
//! The agent's decision flags (`Leaves::decision_flags`) are
//! [`World::decision_flags`]: two bits, scripted per tick.
//!
//! The table also declares the events [`EVENTS`] (`e0`, `e1`, `e2`, with
//! event ids 0, 1, 2), for the trees' signals, timestamps, `WaitForEvent`
//! and `SendEvent` nodes, and the blackboard fields [`MARKS`], through
//! which scripts log what they ran (as `ScriptWrapper`s of
//! [`crate::Spec`] mark their enter and exit). None of the leaves has an
//! event hook.

use std::cell::RefCell;
use std::collections::HashMap;
use treebeard_shape::{FieldDecl, FieldType, NodeIdx};
use treebeard_vm::{
    Args, Blackboard, Call, Completion, Ending, FieldId, Leaves, MemoryBlock, Outcome, Request,
    RequestKind, ScopeHooks, Signal, Status, Value,
};

/// One leaf call, as a test sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A condition at the item was tested and returned the flag.
    Condition(NodeIdx, bool),
    /// An immediate action at the item was called with the signal and the
    /// state it held, and returned the status (ignored for a cancel).
    Action(NodeIdx, Signal, u32, Status),
    /// The scope at the item was entered: its hooks' `enter` ran.
    Enter(NodeIdx),
    /// The scope at the item ended as told: its hooks' `exit` ran.
    Exit(NodeIdx, Ending),
    /// A script wrote the item to the field `entered` ([`MARKS`]`[0]`): the
    /// enter script of the wrapper at the item ran to its end.
    Entered(NodeIdx),
    /// A script wrote the item to the field `exited` ([`MARKS`]`[1]`): the
    /// exit script of the wrapper at the item ran.
    Exited(NodeIdx),
    /// The Decide leaf at the item was called (its decider was asked).
    Decide(NodeIdx),
}

/// The blackboard fields of [`World`], both ints, by field index: a script
/// that writes an item to one logs [`Event::Entered`] or [`Event::Exited`]
/// of that item.
pub const MARKS: [&str; 2] = ["entered", "exited"];

/// How leaves decide their outcomes.
#[derive(Clone, Debug, Default)]
pub enum Script {
    /// Each leaf returns what [`World::set`] last gave it; unset leaves fail.
    #[default]
    Fixed,
    /// A hash of the seed, the tick, the item and the action's state decides.
    Random(u64),
}

/// The blackboard of tests.
#[derive(Debug, Default)]
pub struct World {
    /// The tick being run, counted by the test.
    pub tick: u64,
    /// How leaves decide.
    pub script: Script,
    outcomes: HashMap<u32, Status>,
    log: RefCell<Vec<Event>>,
    /// The values of the fields [`MARKS`].
    marks: [i64; 2],
}

impl World {
    /// A world where every leaf fails until told otherwise.
    pub fn new() -> World {
        World::default()
    }

    /// A world where a hash of `seed` decides every outcome.
    pub fn random(seed: u64) -> World {
        World {
            script: Script::Random(seed),
            ..World::default()
        }
    }

    /// From now on, the leaf at `node` returns `status`.
    pub fn set(&mut self, node: u32, status: Status) -> &mut World {
        self.outcomes.insert(node, status);
        self
    }

    /// The calls recorded since the last [`World::take_log`].
    pub fn take_log(&mut self) -> Vec<Event> {
        std::mem::take(self.log.get_mut())
    }

    /// Forgets the recorded calls, keeping the log's memory.
    pub fn clear_log(&mut self) {
        self.log.get_mut().clear();
    }

    /// Makes room in the log for `calls` calls in all, so that recording
    /// up to that many between clears does not allocate (for tests that
    /// count allocations).
    pub fn reserve_log(&mut self, calls: usize) {
        let log = self.log.get_mut();
        log.reserve(calls.saturating_sub(log.len()));
    }

    /// The outcome the script gives the leaf at `node` holding `state`.
    pub fn outcome(&self, node: NodeIdx, state: u32) -> Status {
        match self.script {
            Script::Fixed => self
                .outcomes
                .get(&node.get())
                .copied()
                .unwrap_or(Status::Failure),
            Script::Random(seed) => {
                let h =
                    mix(seed ^ mix(self.tick ^ mix(u64::from(node.get()) ^ mix(u64::from(state)))));
                match h % 3 {
                    0 => Status::Success,
                    1 => Status::Failure,
                    _ => Status::Running,
                }
            }
        }
    }

    /// The test condition: its scripted outcome, running counting as failure.
    pub fn condition(&self, node: NodeIdx) -> bool {
        let result = self.outcome(node, 0) == Status::Success;
        self.log.borrow_mut().push(Event::Condition(node, result));
        result
    }

    /// The test action: logs the call; unless cancelled, returns the
    /// scripted outcome, counting ticks in `state` while running and adding
    /// one to `persistent` (if given) on success. A memory block (`p`'s
    /// two words) counts the calls in its first word and folds the states
    /// into its second; a cancel call adds 7 to the second.
    pub fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status {
        if let Some(memory) = memory
            && let [calls, fold, ..] = memory.words_mut()
        {
            if signal == Signal::Cancel {
                *fold = fold.wrapping_add(7);
            } else {
                *calls += 1;
                *fold = fold.wrapping_mul(3).wrapping_add(*state);
            }
        }
        let status = match signal {
            Signal::Cancel => Status::Failure,
            Signal::Start | Signal::Tick => self.outcome(node, *state),
        };
        self.log
            .get_mut()
            .push(Event::Action(node, signal, *state, status));
        if signal != Signal::Cancel {
            match status {
                Status::Running => *state += 1,
                Status::Success => {
                    if let Some(p) = persistent {
                        *p += 1;
                    }
                }
                Status::Failure => {}
            }
        }
        status
    }

    /// [`World::score`], which also fills the Decide's memory block, if
    /// given, with [`score_memory`] of the decider block.
    pub fn score_with_memory(
        &self,
        node: NodeIdx,
        stimuli: [Option<u32>; 2],
        memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        let (score, block) = self.score(node, stimuli);
        if let Some(memory) = memory {
            *memory.get::<u32>() = score_memory(block);
        }
        (score, block)
    }

    /// The test Decide `score` at `node`: logs the call and returns its
    /// score and decider block. Scripted by the seed, the tick, the item
    /// and `stimuli` (the data of the agent's stimuli 0 and 1 while they
    /// are active, as the Decide reads them): a score of 0 (a third of the
    /// time), -1, 0.5, 1 or 2, and a block of up to 8 bits.
    /// [`Script::Fixed`]: 1 for a leaf set to succeed, 2 for one set to
    /// run, 0 otherwise; the block is 0.
    pub fn score(&self, node: NodeIdx, stimuli: [Option<u32>; 2]) -> (f32, u32) {
        self.log.borrow_mut().push(Event::Decide(node));
        match self.script {
            Script::Fixed => match self.outcomes.get(&node.get()) {
                Some(Status::Success) => (1.0, 0),
                Some(Status::Running) => (2.0, 0),
                _ => (0.0, 0),
            },
            Script::Random(seed) => {
                let mut h = mix(seed ^ mix(0x5C0E ^ mix(self.tick ^ mix(u64::from(node.get())))));
                for (i, datum) in stimuli.into_iter().enumerate() {
                    if let Some(datum) = datum {
                        h = mix(h ^ ((i as u64 + 1) << 32) ^ u64::from(datum));
                    }
                }
                let score = match h % 6 {
                    0 | 1 => 0.0,
                    2 => -1.0,
                    3 => 0.5,
                    4 => 1.0,
                    _ => 2.0,
                };
                (score, (h >> 32) as u32 & 0xff)
            }
        }
    }

    /// The agent's decision flags: two bits. [`Script::Fixed`]: 0.
    pub fn decision_flags(&self) -> u32 {
        match self.script {
            Script::Fixed => 0,
            Script::Random(seed) => (mix(seed ^ mix(0xF1A6 ^ mix(self.tick))) & 3) as u32,
        }
    }

    /// The test scope's hooks at `node`: logs its enter (`how` is `None`)
    /// or its exit.
    pub fn scope(&mut self, node: NodeIdx, how: Option<Ending>) {
        let event = match how {
            None => Event::Enter(node),
            Some(how) => Event::Exit(node, how),
        };
        self.log.get_mut().push(event);
    }
}

/// Scripts reach the fields [`MARKS`]; writing an item (a value that fits a
/// `u32`) to one logs it, any other value is refused.
impl Blackboard for World {
    fn fields() -> Vec<FieldDecl> {
        MARKS
            .iter()
            .map(|name| FieldDecl::new(name, FieldType::Int))
            .collect()
    }

    fn get(&self, field: FieldId) -> Value<'_> {
        self.marks
            .get(field.0 as usize)
            .map_or(Value::Bool(false), |&v| Value::Int(v))
    }

    fn set(&mut self, field: FieldId, value: Value<'_>) -> bool {
        let Value::Int(v) = value else {
            return false;
        };
        let (Some(mark), Ok(node)) = (self.marks.get_mut(field.0 as usize), u32::try_from(v))
        else {
            return false;
        };
        *mark = v;
        let node = NodeIdx::new(node);
        let event = if field.0 == 0 {
            Event::Entered(node)
        } else {
            Event::Exited(node)
        };
        self.log.get_mut().push(event);
        true
    }
}

/// A scripted game system: answers the launches among `requests` into
/// `answers` (cleared first, its memory kept): in turn `turn`, the `k`-th
/// launch gets success, failure, a running acknowledgement or no answer, as
/// `(turn + k) % 4` says.
pub fn answer_launches(requests: &[Request], turn: usize, answers: &mut Vec<Completion>) {
    answers.clear();
    let launches = requests.iter().filter(|r| r.kind == RequestKind::Launch);
    for (k, r) in launches.enumerate() {
        let outcome = match (turn + k) % 4 {
            0 => Outcome::Success,
            1 => Outcome::Failure,
            2 => Outcome::Running,
            _ => continue,
        };
        answers.push(Completion {
            agent: r.agent,
            node: r.node,
            outcome,
        });
    }
}

/// The data of the stimuli 0 and 1 among `words` (per stimulus its expiry,
/// `f32` bits, and its datum, as a Decide gets them) that are active at
/// `now`: before their expiry (docs/nodes.md, "Stimuli"). A stimulus never
/// posted has the expiry 0, never ahead.
pub fn stimulus_data(words: &[u32], now: f64) -> [Option<u32>; 2] {
    let datum = |i: usize| match words.get(2 * i..2 * i + 2) {
        Some(&[expiry, datum]) if now < f64::from(f32::from_bits(expiry)) => Some(datum),
        _ => None,
    };
    [datum(0), datum(1)]
}

/// SplitMix64's finaliser: a good 64-bit mixing function.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn scripted_action(w: &mut World, call: &mut Call<'_>) -> Status {
    let node = call.node();
    let signal = call.signal();
    let mut state = call.state();
    let mut persistent = call.persistent().copied();
    let status = w.action(
        node,
        signal,
        &mut state,
        persistent.as_mut(),
        call.memory_block(),
    );
    *call.state_mut() = state;
    if let (Some(slot), Some(value)) = (call.persistent(), persistent) {
        *slot = value;
    }
    status
}

/// The scope hooks `s`: [`World::scope`].
struct TestScope;

impl ScopeHooks<World> for TestScope {
    fn enter(w: &mut World, args: &Args<'_>) {
        w.scope(args.node(), None);
    }

    fn exit(w: &mut World, args: &Args<'_>, how: Ending) {
        w.scope(args.node(), Some(how));
    }
}

/// The events the standard test leaves declare, in event id order.
pub const EVENTS: [&str; 3] = ["e0", "e1", "e2"];

/// The decider block `score` writes into its memory block, from the
/// block it sets: what a `p` its decider starts begins its memory with.
pub fn score_memory(block: u32) -> u32 {
    block.wrapping_mul(5) + 1
}

fn scripted_condition(w: &World, args: &Args<'_>) -> bool {
    w.condition(args.node())
}

fn scripted_persistent(w: &mut World, call: &mut Call<'_>) -> Status {
    scripted_action(w, call)
}

treebeard_vm::leaf_set! {
    /// The test leaves `c`, `a`, `p` and `d` as a leaf set, so that code
    /// generated for trees over them (compiled trees) calls them directly.
    pub struct TestLeaves for World {
        condition "c" => scripted_condition;
        action "a" => scripted_action;
        persistent_action "p" => scripted_persistent memory [u32; 2];
        deferred "d";
    }
}

/// The standard test leaves (see the module docs): [`TestLeaves`] and the
/// scope, Decide, decision flags, events and fields.
pub fn leaves() -> Leaves<World> {
    let mut leaves = TestLeaves::leaves();
    leaves.scope::<TestScope>("s");
    leaves
        .decide("score", |w, call| {
            let (score, block) = w.score(call.node(), [call.stimulus(0), call.stimulus(1)]);
            call.set_block(block);
            *call.memory::<u32>() = score_memory(block);
            score
        })
        .memory::<u32>();
    leaves.decision_flags(World::decision_flags);
    for event in EVENTS {
        leaves.event(event);
    }
    leaves.blackboard();
    leaves
}

impl crate::reference::RefLeaves for World {
    fn condition(&mut self, node: NodeIdx) -> bool {
        World::condition(self, node)
    }

    fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status {
        World::action(self, node, signal, state, persistent, memory)
    }

    fn scope(&mut self, node: NodeIdx, how: Option<Ending>) {
        World::scope(self, node, how);
    }

    /// The score of [`World::score`] with the active stimuli at the
    /// default clock's time 0 (these leaves know no other).
    fn decide(
        &mut self,
        node: NodeIdx,
        stimuli: &[u32],
        memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        self.score_with_memory(node, stimulus_data(stimuli, 0.0), memory)
    }

    fn decision_flags(&self) -> u32 {
        World::decision_flags(self)
    }
}
