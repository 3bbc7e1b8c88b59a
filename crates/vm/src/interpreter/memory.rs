//! The nodes of an agent's tree memory: scripts, variables, timestamps and
//! events (seed 002's MBT nodes), stimuli (seed 000's), and the scopes that
//! open and close around a child.
//!
//! An agent's memory lives at the end of its actor block (see the `actor`
//! module): variable bits stored `^` their initial values, timestamp words,
//! and two words a stimulus (its expiry time and its datum). Nodes change it
//! in place during a tick; it is the agent's knowledge, like its blackboard,
//! so a failing concurrent decider does not roll it back. Between ticks, [`Interpreter::send_event`] applies an
//! event's signals and timestamps and wakes the `WaitForEvent` nodes that
//! wait for it.
//!
//! Scripts run on a copy of the variables with their true values (the
//! evaluator knows nothing of the `^ initial` storage), which is written
//! back when the script may assign: a word or two for most trees. The
//! tree's entries, after the variables' words, are stored as they are
//! (zero is every type's zero), so scripts use them in place.

use super::{Agent, Batch, Decision, Interpreter, Sent};
use crate::actor::{
    ActorMut, StateEntry, action_tag, stamp_time, stamp_word, stimuli_flags, stimulus_expiry,
};
use crate::frame::Frame;
use crate::globals::is_running_work;
use crate::leaves::{Ending, EventId, int_input};
use crate::memory_block::MemoryBlock;
use crate::program::Program;
use crate::request::{AgentId, RequestKind};
use crate::script::{Fault, Memory, ScriptValue};
use crate::status::Status;
use crate::trace::Tracer;
use std::cell::Cell;
use treebeard_shape::{Kind, NodeIdx, SELF_AGENT, Shape, ShapeItem};

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Runs the script a parameter word names, over the agent's blackboard
    /// and variables; a `read_only` script (a condition) cannot assign.
    fn run_script(
        &mut self,
        a: &mut Agent<'_, B>,
        word: u64,
        read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        let code = self.shape.script(word);
        if self.cell_words != 0 {
            self.keep_cells(a.memory);
        }
        let n = self.initial.len();
        let vars = &mut self.b.vars[..n];
        for ((v, &stored), &initial) in vars.iter_mut().zip(&*a.memory).zip(self.initial) {
            *v = stored ^ initial;
        }
        // The entries follow the variables' words, stored as they are.
        let entries = n + 2 * self.shape.entries().len();
        let (stored, rest) = a.memory.split_at_mut(n.min(a.memory.len()));
        let entries = rest.get_mut(..entries - n).unwrap_or_default();
        let memory = Memory {
            variables: vars,
            entries,
        };
        let value = self.access.run(code, a.bb, memory, read_only);
        if read_only {
            return value;
        }
        for ((stored, &v), &initial) in stored.iter_mut().zip(&*vars).zip(self.initial) {
            *stored = v ^ initial;
        }
        if self.cell_words != 0 {
            self.tell_cells(a.memory);
        }
        value
    }

    /// Copies the agent's variable and entry words from its `memory` into
    /// the cells its leaves read and write (`Args`: inputs and outputs
    /// naming entries, variables by name): while a pass runs, the cells
    /// hold their values, and the memory is brought up to date before each
    /// script ([`Batch::keep_cells`]).
    #[cold]
    pub(super) fn tell_cells(&self, memory: &[u32]) {
        let words = memory.get(..self.cell_words).unwrap_or_default();
        for (cell, &word) in self.cells().zip(words) {
            cell.set(word);
        }
    }

    /// Stores the agent's leaf cells, which its leaves may have written,
    /// back into its `memory`: before each script (which reads the memory)
    /// and when a pass ends.
    #[cold]
    pub(super) fn keep_cells(&self, memory: &mut [u32]) {
        let words = memory.get_mut(..self.cell_words).unwrap_or_default();
        for (word, cell) in words.iter_mut().zip(self.cells()) {
            *word = cell.get();
        }
    }

    /// The leaf cells: the variables' words, then the entries'.
    fn cells(&self) -> impl Iterator<Item = &Cell<u32>> {
        self.args.variables.iter().chain(self.args.entries)
    }

    /// Whether the bool script a parameter word names holds; a fault is
    /// false.
    fn test(&mut self, a: &mut Agent<'_, B>, word: u64, read_only: bool) -> bool {
        self.run_script(a, word, read_only) == Ok(ScriptValue::Bool(true))
    }

    /// The time test of `IfTime` and `WaitUntilTime` (see [`time_test`]).
    fn time_test(&self, a: &Agent<'_, B>, item: ShapeItem) -> bool {
        let stamp = a.memory.get(self.var_words + self.param(item, 0) as usize);
        let params = [1, 2, 3].map(|i| self.param(item, i));
        time_test(stamp.copied(), self.args.frame.time, params)
    }

    /// The agent's stimuli words: per declared stimulus, its expiry (`f32`
    /// bits) and its datum.
    pub(super) fn stimuli_words<'m>(&self, a: &'m Agent<'_, B>) -> &'m [u32] {
        let words = a.memory.get(self.stimuli_at..).unwrap_or_default();
        &words[..(2 * self.stimuli).min(words.len())]
    }

    /// Bit i set while the agent's stimulus i is active at this frame's time
    /// (a decider's stimuli preconditions).
    pub(super) fn stimuli_flags(&self, a: &Agent<'_, B>) -> u32 {
        stimuli_flags(self.stimuli_words(a), self.args.frame.time)
    }

    /// `PostStimulus`: posts its stimulus to the agent with its datum, for
    /// the stimulus's declared seconds from this frame's time. False (and
    /// nothing posted) when the datum is not a 32-bit value.
    fn post_stimulus(&mut self, a: &mut Agent<'_, B>, item: ShapeItem) -> bool {
        let i = self.param(item, 0) as usize;
        let data = self.int_input(a, self.param(item, 1));
        let Some(words) = posted_stimulus(self.shape, i, data, self.args.frame.time) else {
            return false;
        };
        let at = self.stimuli_at + 2 * i;
        match a.memory.get_mut(at..at + 2) {
            Some(to) => {
                to.copy_from_slice(&words);
                true
            }
            None => false,
        }
    }

    /// The value of a built-in node's int input parameter `word`: a
    /// literal, or a blackboard field's (`None` if not an int). A built-in
    /// node's parameters read no entries (the compiler refuses).
    fn int_input(&self, a: &Agent<'_, B>, word: u64) -> Option<i64> {
        int_input(
            word,
            self.args.table,
            self.args.shape.strings(),
            self.access.get,
            a.bb,
        )
    }

    /// Executes a memory node: a gate decides whether to descend, the
    /// others return a status.
    pub(super) fn memory_node(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
    ) -> Decision {
        if kind.tests_on_entry() {
            self.gate(a, ip, item, kind)
        } else {
            Decision::Return(self.memory_leaf(a, ip, item, kind))
        }
    }

    /// A gate (`ScriptGate`, `IfCondition`, `IfTime`): tests when its child
    /// starts and fails if the test does not hold; a child still running
    /// from an earlier tick passes without a test (the child's states below
    /// the gate show that it runs).
    fn gate(&mut self, a: &mut Agent<'_, B>, ip: u32, item: ShapeItem, kind: Kind) -> Decision {
        if a.next_action < ip {
            self.trace.at(ip);
            self.flush_actions_below(a, ip);
        }
        if self.child_runs(a, item.end()) {
            return Decision::Descend(ip + 1);
        }
        let pass = match kind {
            Kind::ScriptGate => self.test(a, self.param(item, 0), false),
            Kind::IfCondition => self.test(a, self.param(item, 0), true),
            Kind::IfTime => self.time_test(a, item),
            _ => unreachable!("{kind} is not a gate"),
        };
        if pass {
            Decision::Descend(ip + 1)
        } else {
            Decision::Return(Status::Failure)
        }
    }

    /// Whether the previous tick left running work before `end`, past the
    /// read cursor (see `globals::is_running_work`: a ticket alone is none,
    /// but a waiting gate's).
    fn child_runs(&self, a: &Agent<'_, B>, end: u32) -> bool {
        a.prev_actions[a.acur..]
            .iter()
            .take_while(|e| e.node() < end)
            .any(|e| is_running_work(self.shape, e.node()))
    }

    /// The childless memory nodes: scripts, assertions, waits for a time or
    /// an event, sending an event and posting a stimulus.
    fn memory_leaf(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
    ) -> Status {
        let pass = |holds: bool| {
            if holds {
                Status::Success
            } else {
                Status::Failure
            }
        };
        match kind {
            Kind::Script => pass(self.run_script(a, self.param(item, 0), false).is_ok()),
            Kind::AssertScript => pass(self.test(a, self.param(item, 0), false)),
            Kind::AssertCondition => pass(self.test(a, self.param(item, 0), true)),
            Kind::SendEvent => match self.target(a, item) {
                Some(to) => {
                    let event = self.param(item, 0) as u32;
                    self.b.sent.push(Sent {
                        node: ip,
                        kind: RequestKind::Event {
                            event: EventId(event),
                            to,
                        },
                    });
                    Status::Success
                }
                None => Status::Failure,
            },
            Kind::PostStimulus => pass(self.post_stimulus(a, item)),
            Kind::WaitUntilTime => {
                self.take_action(a, ip);
                if self.time_test(a, item) {
                    return Status::Success;
                }
                let waiting = StateEntry::new(ip, action_tag::RUNNING, 0);
                self.b.next.push_action(waiting);
                Status::Running
            }
            Kind::WaitForEvent => {
                // `send_event` sets the state of a waiting node to 1.
                if self.take_action(a, ip).is_some_and(|e| e.value() != 0) {
                    return Status::Success;
                }
                let waiting = StateEntry::new(ip, action_tag::RUNNING, 0);
                self.b.next.push_action(waiting);
                Status::Running
            }
            _ => unreachable!("{kind} is not a memory leaf"),
        }
    }

    /// The agent a `SendEvent` addresses (see [`event_target`]).
    fn target(&self, a: &Agent<'_, B>, item: ShapeItem) -> Option<AgentId> {
        event_target(self.int_input(a, self.param(item, 1)), self.args.agent)
    }

    /// Opens the scope or wrapper at `node`: calls its hook's enter or runs
    /// its `enter` script. False if the script faulted: the wrapper does not
    /// open, and its exit will not run.
    pub(super) fn open_scope(&mut self, a: &mut Agent<'_, B>, node: u32, item: ShapeItem) -> bool {
        if item.kind() == Some(Kind::ScriptWrapper) {
            return self.run_script(a, self.param(item, 0), false).is_ok();
        }
        self.scope_hook(a, node, None);
        true
    }

    /// Closes the scope or wrapper at `node` that ended `how`: calls its
    /// hook's exit or runs its `exit` script, after its `halted` script when
    /// it was cancelled (whose faults change nothing: the ending is
    /// decided).
    pub(super) fn close_scope(&mut self, a: &mut Agent<'_, B>, node: u32, how: Ending) {
        let item = self.item(node);
        if item.kind() == Some(Kind::ScriptWrapper) {
            let halted = self.param(item, 2);
            if how == Ending::Cancelled && halted != treebeard_shape::NO_SCRIPT {
                let _ = self.run_script(a, halted, false);
            }
            let _ = self.run_script(a, self.param(item, 1), false);
            return;
        }
        self.scope_hook(a, node, Some(how));
    }
}

/// The time test of `IfTime` and `WaitUntilTime` over the timestamp word
/// `stamp` at the time `now`, with the node's `seconds`, `less_than` and
/// `or_never` parameter words: whether the time since the timestamp was
/// set is past (or, `less_than`, within) `seconds`; a timestamp never set
/// passes only `or_never`.
#[inline]
pub(crate) fn time_test(
    stamp: Option<u32>,
    now: f64,
    [seconds, less_than, or_never]: [u64; 3],
) -> bool {
    match stamp.and_then(stamp_time) {
        None => or_never != 0,
        Some(at) => {
            let elapsed = now - f64::from(at);
            if less_than != 0 {
                elapsed < f64::from_bits(seconds)
            } else {
                elapsed > f64::from_bits(seconds)
            }
        }
    }
}

/// The agent a `SendEvent` addresses from its `to` input's value (`None`
/// if it is not an int): -1 for the `sender`; `None` for a value no agent
/// has.
#[inline]
pub(crate) fn event_target(to: Option<i64>, sender: AgentId) -> Option<AgentId> {
    let to = to?;
    if to == SELF_AGENT {
        return Some(sender);
    }
    u32::try_from(to).ok().map(AgentId)
}

/// The two words `PostStimulus` writes for the stimulus `i` of `shape`,
/// posted at `now` with the datum `data` (its `data` input's value, `None`
/// if not an int): its expiry and its datum. `None` (nothing posted, the
/// node fails) for a datum that is not a 32-bit value or a stimulus the
/// shape does not declare.
pub(crate) fn posted_stimulus(
    shape: &Shape,
    i: usize,
    data: Option<i64>,
    now: f64,
) -> Option<[u32; 2]> {
    let data = datum_word(data?)?;
    let stimulus = shape.stimuli().get(i)?;
    Some([stimulus_expiry(now, f64::from(stimulus.seconds)), data])
}

/// A stimulus's datum from an int: its 32 bits, for a value from
/// `i32::MIN` to `u32::MAX` (a negative value as its two's complement, so
/// that `datum as i32` gives it back); `None` past that range.
#[inline]
pub(crate) fn datum_word(value: i64) -> Option<u32> {
    (i64::from(i32::MIN)..=i64::from(u32::MAX))
        .contains(&value)
        .then_some(value as u32)
}

impl Interpreter {
    /// Delivers `event` to an agent between ticks, as it reaches the tree:
    ///
    /// 1. the tree's signals for the event set their variables;
    /// 2. the timestamps it sets record `frame.time + frame.dt`, the start
    ///    of the next tick (`frame` is the last tick's), and clear their
    ///    exclusive partners;
    /// 3. running `WaitForEvent` nodes waiting for it will succeed on the
    ///    next tick;
    /// 4. running immediate actions with an event hook (see
    ///    [`crate::Behavior`]) get it, in item order. Hooks may change their
    ///    action's state and persistent slot, which the actor keeps.
    ///
    /// Returns how many running nodes it reached (hooks and waits). Nothing
    /// is looked up by name, and nothing allocates.
    pub fn send_event<B>(
        &mut self,
        program: &Program<B>,
        frame: &Frame,
        agent: AgentId,
        actor: &mut ActorMut<'_>,
        blackboard: &mut B,
        event: EventId,
    ) -> usize {
        let shape = program.shape();
        let layout = actor.layout();
        {
            let memory = actor.memory_mut();
            let (vars, stamps) = memory.split_at_mut(layout.variable_words());
            for signal in shape.signals().iter().filter(|s| s.event == event.0) {
                let (word, bit) = (signal.variable as usize / 32, signal.variable % 32);
                let initial = program.initial.get(word).map_or(0, |w| w >> bit & 1);
                let stored = (u32::from(signal.value) ^ initial) << bit;
                if let Some(w) = vars.get_mut(word) {
                    *w = (*w & !(1 << bit)) | stored;
                }
            }
            let now = (frame.time + f64::from(frame.dt)) as f32;
            for (i, stamp) in shape.timestamps().iter().enumerate() {
                if stamp.event != event.0 {
                    continue;
                }
                stamps[i] = stamp_word(now);
                if let Some(other) = stamp.exclusive {
                    stamps[other as usize] = 0;
                }
            }
        }
        // The agent's variables and entries, as its actions' event hooks
        // read them.
        let leaf_words = actor.as_ref().leaf_words(shape);
        if self.cells.len() < leaf_words.len() {
            // Normally reserved already.
            self.cells.resize_with(leaf_words.len(), Default::default);
        }
        let cells = &self.cells[..leaf_words.len()];
        for (cell, &word) in cells.iter().zip(leaf_words) {
            cell.set(word);
        }
        let mut delivered = 0;
        let count = actor.as_ref().action_entries().len();
        for i in 0..count {
            let entry = actor.action_entries_mut()[i];
            let node = entry.node();
            let Some(&item) = shape.items().get(node as usize) else {
                continue;
            };
            if entry.tag() != action_tag::RUNNING {
                continue;
            }
            match item.kind() {
                Some(Kind::WaitForEvent) => {
                    let wanted = shape.param_table()[item.params().offset as usize];
                    if wanted == u64::from(event.0) {
                        actor.action_entries_mut()[i].set_value(1);
                        delivered += 1;
                    }
                }
                Some(Kind::Action) if program.handles_events() => {
                    let slot = program.slot(node);
                    let mut state = entry.value();
                    let mut persistent = slot.map(|s| actor.as_ref().persistent()[s]);
                    let memory = program.memory_slots(node);
                    let mut block = memory
                        .clone()
                        .map(|slots| MemoryBlock::from_words(&actor.as_ref().persistent()[slots]));
                    let ran = program.call_event(
                        NodeIdx::new(node),
                        blackboard,
                        agent,
                        frame,
                        event,
                        &mut state,
                        persistent.as_mut(),
                        block.as_mut(),
                        cells,
                    );
                    if ran {
                        actor.action_entries_mut()[i].set_value(state);
                        if let (Some(slot), Some(value)) = (slot, persistent) {
                            actor.set_persistent(slot, value);
                        }
                        if let (Some(slots), Some(block)) = (memory, &block) {
                            for (slot, &word) in slots.zip(block.words()) {
                                actor.set_persistent(slot, word);
                            }
                        }
                        delivered += 1;
                    }
                }
                _ => {}
            }
        }
        if !cells.is_empty() {
            // What the hooks wrote.
            let words = actor.leaf_words_mut(shape);
            for (word, cell) in words.iter_mut().zip(cells) {
                *word = cell.get();
            }
        }
        delivered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::Actor;
    use crate::leaves::Leaves;
    use crate::trace::Quiet;
    use treebeard_shape::tree::{act, decider_of, sequence};
    use treebeard_shape::{Declarations, Options, compile_with};

    /// The flags and data a batch reads, for a tree with a variable, a
    /// timestamp and three stimuli (so the stimuli start past the others).
    #[test]
    fn a_batch_reads_the_stimuli_at_its_frame_s_time() {
        let mut leaves = Leaves::<()>::new();
        leaves.action("a", |_, _| Status::Success);
        leaves.event("E");
        let declarations = Declarations::new()
            .variable("V", true)
            .timestamp("T", "E")
            .stimulus("A", 1.0)
            .stimulus("B", 2.0)
            .stimulus("C", 3.0);
        let options = Options {
            declarations,
            ..Options::default()
        };
        let tree = sequence([
            decider_of(Kind::PostStimulus, [])
                .arg("stimulus", "B")
                .arg("data", 9),
            act("a"),
        ]);
        let shape = compile_with(&tree, &leaves, &options).unwrap_or_else(|e| panic!("{e}"));
        let program = Program::link(shape, &leaves).unwrap_or_else(|e| panic!("{e}"));
        let mut actor = Actor::for_shape(program.shape());
        actor.as_mut().post_stimulus(2, 5, 0.0, 3.0);
        let mut interpreter = Interpreter::new();
        let frame = Frame {
            time: 1.5,
            ..Frame::default()
        };
        let status = interpreter.tick(
            &program,
            &frame,
            AgentId(0),
            &mut actor.as_mut(),
            &mut (),
            &mut Vec::new(),
        );
        assert_eq!(status, Status::Success);
        // B was posted at 1.5 for 2 seconds; C at 0 for 3.
        let layout = actor.as_ref().layout();
        let mut bb = ();
        let mut words = actor.as_mut().words_mut().to_vec();
        let mut flags_at = |time: f64, words: &mut [u32], bb: &mut ()| {
            let frame = Frame {
                time,
                ..Frame::default()
            };
            let batch = interpreter.batch(&program, &frame, layout, Quiet);
            let a = Agent::new(words, layout, bb);
            let data: Vec<Option<u32>> = (0..4).map(|i| actor.as_ref().stimulus(i, time)).collect();
            (batch.stimuli_flags(&a), data)
        };
        assert_eq!(
            flags_at(1.5, &mut words, &mut bb),
            (0b110, vec![None, Some(9), Some(5), None])
        );
        assert_eq!(
            flags_at(3.0, &mut words, &mut bb),
            (0b010, vec![None, Some(9), None, None])
        );
        assert_eq!(flags_at(3.5, &mut words, &mut bb), (0, vec![None; 4]));
        // What the actor reads agrees.
        assert_eq!(actor.as_ref().stimuli_flags(1.5), 0b110);
        assert_eq!(actor.as_ref().stimulus(1, 1.5), Some(9));
    }

    #[test]
    fn a_datum_is_a_value_that_32_bits_hold() {
        assert_eq!(datum_word(0), Some(0));
        assert_eq!(datum_word(-1), Some(u32::MAX));
        assert_eq!(datum_word(i64::from(u32::MAX)), Some(u32::MAX));
        assert_eq!(datum_word(i64::from(i32::MIN)), Some(1 << 31));
        assert_eq!(datum_word(i64::from(u32::MAX) + 1), None);
        assert_eq!(datum_word(i64::from(i32::MIN) - 1), None);
    }
}
