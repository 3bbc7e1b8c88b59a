//! A reference interpreter: docs/nodes.md, written as plainly as possible.
//!
//! The VM walks a flat stream with a guard stack, sparse sorted states and
//! rollback marks, all for speed. This interpreter is the opposite: a
//! recursive walk over a tree of [`RefNode`] objects, each holding its own
//! runtime state in plain fields, so that every rule of the node reference
//! can be read off the code next to the sentence it implements. The
//! differential tests (`crates/vm/tests/differential.rs`) tick both on the
//! same random trees and compare everything a game can observe.
//!
//! Leaves behave through the scripted [`World`](crate::World) (the same
//! calls the VM's standard test [`leaves`](crate::leaves) make), so when
//! the two interpreters agree they also produce the same
//! [`Event`](crate::Event) log. Nodes are numbered in pre-order, like the
//! shape stream's items.
//!
//! Each agent also keeps the tree's memory (seed 002's MBT nodes, seed
//! 000's stimuli): its variables, timestamps and stimuli, which scripts,
//! time tests, delivered events and `PostStimulus` nodes read and change.
//! The reference holds them in plain vectors beside the tree
//! ([`Reference::variables`], [`Reference::timestamps`],
//! [`Reference::stimulus`]); scripts run through [`RefLeaves::script`].
//!
//! Seed 001's crowd nodes (`Gate`, `GlobalCooldown`) read the crowd's state
//! through [`RefLeaves::crowd`] and ask for changes with requests, which
//! the crowd settles after every round ([`crate::crowd`]). The agent's
//! [`Ticket`]s are kept beside the tree too, by node: the tick gives up a
//! ticket of the last tick by where the walk goes in the whole tree (it
//! reaches a later node, or a node holding it returns), not by what a
//! single node does.
//!
//! Nothing here is fast: a tick allocates, abandoning a subtree walks it
//! whole, and a concurrent decider snapshots the persistent slots below it
//! on every entry.

use crate::crowd::CrowdState;
use std::collections::BTreeMap;
use treebeard_shape::tree::{Count, Policy};
use treebeard_shape::{
    ActionId, GroupPolicy, Kind, NodeIdx, SELF_AGENT, Shape, Signal as SignalDecl, Timestamp,
    decider_param,
};
use treebeard_vm::script::{Fault, Memory as TreeMemory, ScriptValue};
use treebeard_vm::{
    ActionState, AgentId, DeciderState, Ending, EventId, Frame, MemoryBlock, Outcome, Request,
    RequestKind, Seat, Signal, Stale, Status, TraceEvent,
};

/// The leaves a reference tree calls, by the leaf's item: the scripted
/// [`crate::World`], or any program's leaf functions ([`ProgramLeaves`]).
pub trait RefLeaves {
    /// Tests the condition at `node`.
    fn condition(&mut self, node: NodeIdx) -> bool;
    /// Calls the immediate action at `node`, with its persistent slot and
    /// memory block if it has them.
    fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status;
    /// Delivers `event` to the running action at `node`; whether a hook ran.
    fn event(
        &mut self,
        _node: NodeIdx,
        _event: EventId,
        _state: &mut u32,
        _persistent: Option<&mut u32>,
        _memory: Option<&mut MemoryBlock>,
    ) -> bool {
        false
    }
    /// Calls the hooks of the scope at `node`: enter (`how` is `None`) or
    /// exit.
    fn scope(&mut self, _node: NodeIdx, _how: Option<Ending>) {}
    /// The agent's tree variables' values (variable `i` is bit `i % 32` of
    /// word `i / 32`) and its entries (two words each) as they are now,
    /// which the leaves called from here on may read: told before a tick,
    /// after each script, and before an event's hooks.
    fn tell(&mut self, _variables: &[u32], _entries: &[u32]) {}
    /// Copies into `variables` and `entries` the agent's tree variables
    /// and entries as the leaves left them: after each leaf call.
    fn written(&self, _variables: &mut [u32], _entries: &mut [u32]) {}
    /// Whether the passes from here on are a tick's passes after its first
    /// (a loop asked for the tree to be ticked again at once): they cover
    /// no time, so the clock the leaves see has a `dt` of 0.
    fn again(&mut self, _again: bool) {}
    /// The tick's clock, for waits, timeouts, cool-downs and time tests;
    /// between ticks (for [`Reference::send_event`]), the last tick's.
    fn clock(&self) -> Frame {
        Frame::default()
    }
    /// Runs the shape's script `index` (the word of a script parameter)
    /// over the agent's tree memory (its variables' values and its
    /// entries), which it may change unless `read_only`.
    ///
    /// # Panics
    /// By default: leaves that know no program run no scripts.
    fn script(
        &mut self,
        index: u64,
        _memory: TreeMemory<'_>,
        _read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        panic!("these leaves cannot run script {index}: they know no program")
    }
    /// The value of an int input parameter's `word` (a literal's offset in
    /// the parameter table, or a blackboard field reference), as
    /// `SendEvent` reads its `to`; `None` if the field holds no int.
    ///
    /// # Panics
    /// By default: leaves that know no program read no inputs.
    fn input_int(&self, word: u64) -> Option<i64> {
        panic!("these leaves cannot read input word {word:#x}: they know no program")
    }
    /// Calls the Decide leaf at `node`: its score and decider block. The
    /// agent's stimuli are `stimuli`, as the VM keeps them (per declared
    /// stimulus its expiry, `f32` bits, and its datum).
    ///
    /// # Panics
    /// By default: leaves that know no Decide functions.
    fn decide(
        &mut self,
        node: NodeIdx,
        _stimuli: &[u32],
        _memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        panic!("these leaves cannot call the Decide leaf {node}")
    }
    /// The agent's decision flags (0 by default, as without
    /// `Leaves::decision_flags`).
    fn decision_flags(&self) -> u32 {
        0
    }
    /// The state of the crowd the agent is in, as the last settling left
    /// it (see [`CrowdState`]); `None` (by default) for a crowd that has not
    /// run the tree yet: every gate empty, every cool-down ready.
    fn crowd(&self) -> Option<&CrowdState> {
        None
    }
}

/// The words of the initial bits of `shape`'s variables, which an actor
/// stores each variable's `^`.
fn initial_words(shape: &Shape) -> impl Iterator<Item = u32> + '_ {
    shape.variables().chunks(32).map(|word| {
        word.iter()
            .enumerate()
            .fold(0, |w, (i, v)| w | u32::from(v.initial) << i)
    })
}

/// Words as the cells a program's leaf calls read entries from.
fn cells(words: &mut [u32]) -> &[std::cell::Cell<u32>] {
    std::cell::Cell::from_mut(words).as_slice_of_cells()
}

/// A program's leaf functions for one agent's blackboard, as [`RefLeaves`].
pub struct ProgramLeaves<'a, B> {
    /// The program whose leaves run.
    pub program: &'a treebeard_vm::Program<B>,
    /// The agent's blackboard.
    pub blackboard: &'a mut B,
    /// The agent.
    pub agent: AgentId,
    /// The tick's clock.
    pub frame: &'a treebeard_vm::Frame,
    /// The agent's crowd, if any.
    pub crowd: Option<&'a CrowdState>,
    /// The agent's leaf words as the reference last told them (see
    /// [`treebeard_vm::ActorRef::leaf_words`]): its variables' words
    /// stored `^` their initial values, then its entries' words.
    pub cells: Vec<u32>,
    /// Whether the tick is past its first pass (see [`RefLeaves::again`]).
    pub again: bool,
}

impl<'a, B> ProgramLeaves<'a, B> {
    /// The leaves of `program` for the agent `agent` with `blackboard`, in
    /// the tick at `frame`, of a crowd `crowd` if any.
    pub fn new(
        program: &'a treebeard_vm::Program<B>,
        blackboard: &'a mut B,
        agent: AgentId,
        frame: &'a Frame,
        crowd: Option<&'a CrowdState>,
    ) -> ProgramLeaves<'a, B> {
        ProgramLeaves {
            program,
            blackboard,
            agent,
            frame,
            crowd,
            cells: Vec::new(),
            again: false,
        }
    }

    /// The clock the leaves see: the tick's, covering no time after its
    /// first pass.
    fn frame(&self) -> Frame {
        let mut frame = *self.frame;
        if self.again {
            frame.dt = 0.0;
        }
        frame
    }
}

impl<B> RefLeaves for ProgramLeaves<'_, B> {
    fn condition(&mut self, node: NodeIdx) -> bool {
        self.program.call_condition(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            cells(&mut self.cells),
        )
    }

    fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status {
        self.program.call_action(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            signal,
            state,
            persistent,
            memory,
            cells(&mut self.cells),
        )
    }

    fn event(
        &mut self,
        node: NodeIdx,
        event: EventId,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> bool {
        self.program.call_event(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            event,
            state,
            persistent,
            memory,
            cells(&mut self.cells),
        )
    }

    fn scope(&mut self, node: NodeIdx, how: Option<Ending>) {
        self.program.call_scope(
            node,
            self.blackboard,
            self.agent,
            &self.frame(),
            how,
            cells(&mut self.cells),
        );
    }

    fn tell(&mut self, variables: &[u32], entries: &[u32]) {
        let initial = initial_words(self.program.shape());
        self.cells.clear();
        self.cells
            .extend(variables.iter().zip(initial).map(|(&v, i)| v ^ i));
        self.cells.extend_from_slice(entries);
    }

    fn written(&self, variables: &mut [u32], entries: &mut [u32]) {
        if self.cells.len() != variables.len() + entries.len() {
            return;
        }
        let (stored, words) = self.cells.split_at(variables.len());
        let initial = initial_words(self.program.shape());
        for ((v, &stored), i) in variables.iter_mut().zip(stored).zip(initial) {
            *v = stored ^ i;
        }
        entries.copy_from_slice(words);
    }

    fn again(&mut self, again: bool) {
        self.again = again;
    }

    fn clock(&self) -> Frame {
        self.frame()
    }

    fn script(
        &mut self,
        index: u64,
        memory: TreeMemory<'_>,
        read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        self.program
            .run_script(index, self.blackboard, memory, read_only)
    }

    fn input_int(&self, word: u64) -> Option<i64> {
        self.program.input_int(word, self.blackboard)
    }

    fn decide(
        &mut self,
        node: NodeIdx,
        stimuli: &[u32],
        memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        self.program.call_decide(
            node,
            self.blackboard,
            self.agent,
            self.frame,
            stimuli,
            memory,
        )
    }

    fn decision_flags(&self) -> u32 {
        self.program.decision_flags(self.blackboard)
    }

    fn crowd(&self) -> Option<&CrowdState> {
        self.crowd
    }
}

/// Where a deferred action stands, as its node remembers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredState {
    /// Not launched: reaching it emits a launch request.
    Idle,
    /// Launched; its game system has not reported yet.
    Launched,
    /// Launched, and its game system reported it running.
    Acknowledged,
    /// Its game system reported success; the next tick that reaches it
    /// returns it.
    Succeeded,
    /// Its game system reported failure; the next tick that reaches it
    /// returns it.
    Failed,
}

/// One node of the reference tree, with the state the node reference says
/// it remembers.
#[derive(Clone, Debug, PartialEq)]
pub enum RefNode {
    /// Children in order, resuming at the running one.
    Sequence {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
        /// The position of the child to resume at (0: start anew).
        resume_at: usize,
    },
    /// `AsyncSequence` (or, `selector`, `AsyncSelector`): its children in
    /// order, yielding after each step that moves it on.
    Async {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
        /// A selector: failures move it on, not successes.
        selector: bool,
        /// The position of the child it goes on at (0: start anew).
        position: usize,
        /// A step yielded: nothing below runs (an action state at the node,
        /// as a loop's between runs).
        yielded: bool,
    },
    /// Children in order from the first on every tick.
    ReactiveSequence {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
    },
    /// Its condition (the first child), then the second child if it
    /// succeeded or the third (if any) if it failed, resuming at a running
    /// branch without the condition.
    IfThenElse {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The condition and the branches.
        children: Vec<RefNode>,
        /// The position of the branch to resume at (0: the condition).
        resume_at: usize,
    },
    /// Its condition on every tick, then the second child if it succeeded
    /// or the third (if any) if it failed.
    WhileDoElse {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The condition and the branches.
        children: Vec<RefNode>,
    },
    /// The first child that succeeds or runs wins, re-decided every tick.
    Priority {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
    },
    /// Children in order until one succeeds, resuming at the running one.
    Selector {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
        /// The position of the child to resume at (0: start anew).
        resume_at: usize,
    },
    /// Its child's success and failure swapped; running passes through.
    Inverter {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
    },
    /// Success whenever its child finishes; running passes through.
    ForceSuccess {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
    },
    /// Failure whenever its child finishes; running passes through.
    ForceFailure {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
    },
    /// Every unfinished child on every tick, until a threshold is met.
    Concurrent {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
        /// S: successes that make it succeed.
        succeed_at: usize,
        /// F: failures that make it fail.
        fail_at: usize,
        /// Per child: `Some(true)` if it succeeded on an earlier tick,
        /// `Some(false)` if it failed, `None` while it has not finished.
        finished: Vec<Option<bool>>,
        /// A `ParallelAll`'s `max_failures`: no threshold decides early; when
        /// every child has finished it fails on this many failures, else
        /// succeeds, and nothing is rolled back.
        max_failures: Option<usize>,
    },
    /// `Loop` (runs again after a success) or `LoopUntilSuccess` (after a
    /// failure), one run per tick.
    Loop {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
        /// `LoopUntilSuccess`: failures repeat, not successes.
        until_success: bool,
        /// Runs that finish it (0: never).
        limit: u64,
        /// Runs repeated so far.
        runs: u32,
        /// Its child finished a run on an earlier tick; the next starts on
        /// the next tick.
        between_runs: bool,
        /// Its child returned running on the last tick: the loop keeps its
        /// runs as a decider value (0 included).
        child_running: bool,
        /// A run that ends asks for the tree to be ticked again at once.
        again: bool,
    },
    /// Its child, failed and cancelled once `seconds` have passed.
    Timeout {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
        /// The limit.
        seconds: f64,
        /// Seconds since the child started, at the start of the next tick.
        since: Option<f32>,
    },
    /// Running until `seconds` have passed.
    Wait {
        /// The node's pre-order index.
        node: NodeIdx,
        /// How long.
        seconds: f64,
        /// Seconds since it started, at the start of the next tick.
        since: Option<f32>,
    },
    /// Its child, then failure for `seconds`.
    Cooldown {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
        /// How long.
        seconds: f64,
        /// The frame time (`f32` bits) from which its child may run again:
        /// its persistent slot.
        ready: u32,
    },
    /// Its child between the enter and exit hooks.
    Scope {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
        /// Entered and not exited.
        open: bool,
    },
    /// `AlwaysSuccess` or `AlwaysFailure`: its status, at once.
    Always {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The status it returns.
        status: Status,
    },
    /// `Script`: runs its script; succeeds, or fails if the script faults.
    Script {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The script (its index in the shape's scripts).
        script: u64,
    },
    /// `AssertScript` (a test that may assign) or `AssertCondition` (a
    /// read-only one): succeeds iff the bool script holds (a fault does not).
    Assert {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The bool script.
        test: u64,
        /// `AssertCondition`: the script cannot assign.
        read_only: bool,
    },
    /// A gate (`ScriptGate`, `IfCondition`, `IfTime`): tests when its child
    /// starts, fails without ticking it if the test does not hold, and
    /// otherwise passes its child's statuses through.
    Gate {
        /// The node's pre-order index.
        node: NodeIdx,
        /// What it tests.
        test: GateTest,
        /// The only child.
        child: Box<RefNode>,
        /// Its child returned running on the last tick that reached it: the
        /// next tick passes without a test.
        running: bool,
    },
    /// `ScriptWrapper`: its child between the `enter` and `exit` scripts,
    /// like a scope.
    ScriptWrapper {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The script run when it starts.
        enter: u64,
        /// The script run once when it ends, however it ends.
        exit: u64,
        /// The script run before `exit` when it is cancelled, or
        /// `NO_SCRIPT`.
        halted: u64,
        /// The only child.
        child: Box<RefNode>,
        /// Entered (the enter script did not fault) and not exited.
        open: bool,
    },
    /// `WaitUntilTime`: running until its time test holds, tested on every
    /// tick.
    WaitUntilTime {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The test.
        test: TimeTest,
        /// Running since an earlier tick.
        running: bool,
    },
    /// `WaitForEvent`: running until its event reaches the agent while it
    /// runs; succeeds on the next tick.
    WaitForEvent {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The event.
        event: EventId,
        /// While it runs: whether the event has arrived.
        waiting: Option<bool>,
    },
    /// `SendEvent`: succeeds and sends its event, or fails for a `to` that
    /// is no agent.
    SendEvent {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The event.
        event: EventId,
        /// The agent it goes to.
        to: IntInput,
    },
    /// `PostStimulus`: posts its stimulus to the agent, active for
    /// `seconds` from the tick's time, and succeeds; fails for a datum that
    /// 32 bits do not hold.
    PostStimulus {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The stimulus (its index in the tree's stimuli).
        stimulus: usize,
        /// The stimulus's declared seconds.
        seconds: f32,
        /// The datum.
        data: IntInput,
    },
    /// `StoredState`: its child, whose composites keep their place (the
    /// compiler gives it only sequences and selectors).
    StoredState {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
    },
    /// `Repeat`: its child, which its sequence or selector parent ticks
    /// again even when it resumes past it.
    Repeat {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The only child.
        child: Box<RefNode>,
    },
    /// `Monitor`: its query's status; registered while its query failed and
    /// a later branch runs, tested before the tree, interrupting it.
    Monitor {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The query.
        child: Box<RefNode>,
        /// Tested before the tree on the next tick.
        registered: bool,
    },
    /// `Gate` or `GlobalCooldown`: a node whose state the crowd shares
    /// (docs/nodes.md, "Crowd nodes"). The agent's place at it, its
    /// [`Ticket`], is kept by the [`Reference`], not here: the tick gives a
    /// ticket up by where it goes in the whole tree.
    Crowd {
        /// The node's pre-order index.
        node: NodeIdx,
        /// What it lets through.
        rule: CrowdRule,
        /// The only child.
        child: Box<RefNode>,
    },
    /// `Team`: runs its branch only in a team of exactly `size` agents the
    /// crowd matched (docs/nodes.md, "Team"). The agent's place, its
    /// [`Ticket`] (with its seat once matched), is kept by the
    /// [`Reference`], as at a [`RefNode::Crowd`] node.
    Team {
        /// The node's pre-order index.
        node: NodeIdx,
        /// How many agents a team has.
        size: u32,
        /// One child every member runs, or one per role.
        children: Vec<RefNode>,
    },
    /// `Sync`: waits until every member still in the agent's team has
    /// reached `point` (docs/nodes.md, "Sync").
    Sync {
        /// The node's pre-order index.
        node: NodeIdx,
        /// Its sync point.
        point: u32,
        /// It runs (reached on an earlier tick).
        waiting: bool,
    },
    /// `ChildTree`: runs the child tree injected into the agent (its
    /// position plus one, 0 for none), passing its statuses through; the
    /// other child trees' work is cancelled, those before it first; fails,
    /// cancelling them all, while none is injected.
    ChildTree {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The child trees.
        children: Vec<RefNode>,
        /// Their names: child trees of one name under several connectors
        /// share their crowd state (see [`CrowdState`]).
        names: Vec<Box<str>>,
        /// Which is injected: its persistent slot.
        injected: u32,
    },
    /// `SequenceWithMemory`: its children in order, starting at the child
    /// where it stopped (failed, ran or was cancelled) until the last one
    /// succeeds.
    SequenceWithMemory {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The children.
        children: Vec<RefNode>,
        /// The position of the child it starts at: its persistent slot.
        position: u32,
    },
    /// Spore's `Group`: chooses one of its deciders by its policy and runs
    /// it until it ends or (prioritized) an earlier one accepts.
    Group {
        /// The node's pre-order index.
        node: NodeIdx,
        /// How it chooses.
        policy: GroupPolicy,
        /// The most times it may choose again in one tick.
        limit: u64,
        /// Its first child is a group behavior (an immediate action).
        behavior: bool,
        /// The group behavior, if any, then the `Decider`s.
        children: Vec<RefNode>,
        /// The active decider, by position among the deciders (not
        /// counting the behavior), while its child runs.
        active: Option<usize>,
        /// A `random` group's counter or a `shuffle` group's round: its
        /// persistent slot.
        slot: Option<u32>,
    },
    /// Spore's `Decider`: asked by its group, it runs its last child.
    Decider {
        /// The node's pre-order index.
        node: NodeIdx,
        /// Its preconditions and flags.
        params: DeciderParams,
        /// An optional `Decide` leaf, then its child.
        children: Vec<RefNode>,
        /// With a timer: the time (`f32` bits) from which it may be asked
        /// again, its persistent slot.
        slot: Option<u32>,
    },
    /// A `Decide` leaf: only asked, through its decider, never ticked.
    Decide {
        /// Its decider block, if its leaf declares one.
        memory: Option<MemoryBlock>,
        /// The node's pre-order index.
        node: NodeIdx,
    },
    /// A test condition (`c`).
    Condition {
        /// The node's pre-order index.
        node: NodeIdx,
    },
    /// A test immediate action (`a`, or `p` with a persistent slot).
    Action {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The state it returned [`Status::Running`] with, while running.
        running: Option<u32>,
        /// The persistent slot's value, for `p` leaves.
        persistent: Option<u32>,
        /// Its memory block, if its leaf declares one.
        memory: Option<MemoryBlock>,
    },
    /// A deferred action (`d`), run by a game system through requests.
    Deferred {
        /// The node's pre-order index.
        node: NodeIdx,
        /// The deferred import the requests name.
        action: ActionId,
        /// Where it stands.
        state: DeferredState,
        /// Whether this tick emitted its launch request (so a rollback
        /// drops that request instead of cancelling).
        launched_this_tick: bool,
    },
}

/// A [`RefNode::Decider`]'s parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeciderParams {
    /// Asked at most every `every` seconds (0: no timer).
    pub every: f64,
    /// `decision_all`, `decision_any`, `decision_none`.
    pub decision: [u32; 3],
    /// `stimuli_all`, `stimuli_any`, `stimuli_none`.
    pub stimuli: [u32; 3],
    /// Its group child asks it again before choosing again.
    pub redecide: bool,
    /// It accepts as its group child's deciders would.
    pub delegate: bool,
}

impl DeciderParams {
    /// From a `Decider`'s parameter words.
    pub fn from_words(words: &[u64]) -> DeciderParams {
        let masks = |at: usize| [words[at] as u32, words[at + 1] as u32, words[at + 2] as u32];
        DeciderParams {
            every: f64::from_bits(words[decider_param::EVERY]),
            decision: masks(decider_param::DECISION),
            stimuli: masks(decider_param::STIMULI),
            redecide: words[decider_param::REDECIDE] != 0,
            delegate: words[decider_param::DELEGATE] != 0,
        }
    }
}

/// What a [`RefNode::Crowd`] node lets through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CrowdRule {
    /// `Gate`: at most `max` agents of the crowd hold an admitted ticket.
    Gate {
        /// The most agents admitted at once.
        max: u32,
        /// It runs while it asks (and fails when refused, asking anew
        /// without its place the next time).
        wait: bool,
    },
    /// `GlobalCooldown`: no agent enters for `seconds` after it started.
    Cooldown {
        /// How long it holds every agent off.
        seconds: f64,
        /// It starts when the one agent admitted enters (agents ask, as at
        /// a gate), not when an agent's child succeeds.
        on_enter: bool,
    },
    /// `Team`: agents asking are matched into teams of `size`.
    Team {
        /// The members of a team.
        size: u32,
    },
}

impl CrowdRule {
    /// Whether agents ask to enter: at a gate and at a cool-down that
    /// starts on entry.
    pub fn asks(self) -> bool {
        !matches!(
            self,
            CrowdRule::Cooldown {
                on_enter: false,
                ..
            }
        )
    }
}

/// An agent's place at a [`RefNode::Crowd`] node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ticket {
    /// It asked to enter in this tick; the crowd answers before the
    /// agent's next tick. It has asked since frame `since`.
    Waiting {
        /// The frame index of the tick it started asking in.
        since: u64,
    },
    /// Admitted: the agent enters the child (or runs it, while it runs).
    Admitted,
    /// Refused: it may ask again, keeping its place.
    Refused {
        /// The frame index of the tick it started asking in.
        since: u64,
    },
    /// Admitted into a team at a `Team`: the team's index in the crowd's
    /// team table and the agent's role.
    Seated(Seat),
    /// Its team at a `Team` broke: the node fails when it is next reached.
    Broken,
}

impl Ticket {
    /// The ticket as the VM keeps it, an action state's value: its state
    /// in the low two bits (waiting 0, admitted 1, refused 2, broken 3)
    /// and, above them, the frame it asks since, modulo 2^30, or a team
    /// member's seat (the team's index above 5 bits of role).
    pub fn value(self) -> u32 {
        let since = |frame: u64| (frame as u32 & ((1 << 30) - 1)) << 2;
        match self {
            Ticket::Waiting { since: frame } => since(frame),
            Ticket::Admitted => 1,
            Ticket::Refused { since: frame } => since(frame) | 2,
            Ticket::Seated(Seat { team, role }) => (team << 5 | role) << 2 | 1,
            Ticket::Broken => 3,
        }
    }
}

/// What a [`RefNode::Gate`] tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GateTest {
    /// `ScriptGate`: a bool script that may assign.
    Script(u64),
    /// `IfCondition`: a read-only bool script.
    Condition(u64),
    /// `IfTime`: a time test.
    Time(TimeTest),
}

/// The time test of `IfTime` and `WaitUntilTime`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeTest {
    /// The timestamp (its index in the tree's timestamps).
    pub since: usize,
    /// The span.
    pub seconds: f64,
    /// Passes when less time than `seconds` has passed (else: more).
    pub less_than: bool,
    /// Passes when the timestamp was never set.
    pub or_never: bool,
}

impl TimeTest {
    /// Whether the test holds at the frame `now`, with the agent's
    /// timestamps `stamps`: a timestamp never set passes only `or_never`;
    /// otherwise the time since it was set (`now.time - stamp`, in `f64`)
    /// must be below `seconds` (`less_than`) or above it.
    pub fn holds(&self, stamps: &[Option<f32>], now: &Frame) -> bool {
        match stamps[self.since] {
            None => self.or_never,
            Some(stamp) => {
                let elapsed = now.time - f64::from(stamp);
                if self.less_than {
                    elapsed < self.seconds
                } else {
                    elapsed > self.seconds
                }
            }
        }
    }
}

/// An int input parameter: where a [`RefNode::SendEvent`] sends its
/// event, a [`RefNode::PostStimulus`]'s datum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntInput {
    /// A literal (for `to`, an agent: -1 is the sender).
    Literal(i64),
    /// An int input parameter's word, read through [`RefLeaves::input_int`].
    Input(u64),
}

/// What the tree declares for each agent's memory: the variables' initial
/// values, the signals that set them and the timestamps (the shape's
/// tables).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Per variable, its value when an agent starts.
    pub initial: Vec<bool>,
    /// Events that set variables.
    pub signals: Vec<SignalDecl>,
    /// The timestamps: the event that sets each, and the one it clears.
    pub timestamps: Vec<Timestamp>,
    /// How many stimuli the tree declares.
    pub stimuli: usize,
    /// How many entries the tree's scripts create.
    pub entries: usize,
}

impl Memory {
    /// The memory `shape` declares.
    pub fn of(shape: &Shape) -> Memory {
        Memory {
            initial: shape.variables().iter().map(|v| v.initial).collect(),
            signals: shape.signals().to_vec(),
            timestamps: shape.timestamps().to_vec(),
            stimuli: shape.stimuli().len(),
            entries: shape.entries().len(),
        }
    }
}

impl RefNode {
    /// A sequence at `node`.
    pub fn sequence(node: NodeIdx, children: Vec<RefNode>) -> RefNode {
        RefNode::Sequence {
            node,
            children,
            resume_at: 0,
        }
    }

    /// A reactive sequence at `node`.
    pub fn reactive_sequence(node: NodeIdx, children: Vec<RefNode>) -> RefNode {
        RefNode::ReactiveSequence { node, children }
    }

    /// An if-then-else at `node`: its condition and branches.
    pub fn if_then_else(node: NodeIdx, children: Vec<RefNode>) -> RefNode {
        RefNode::IfThenElse {
            node,
            children,
            resume_at: 0,
        }
    }

    /// A priority selector at `node`.
    pub fn priority(node: NodeIdx, children: Vec<RefNode>) -> RefNode {
        RefNode::Priority { node, children }
    }

    /// A (non-reactive) selector at `node`.
    pub fn selector(node: NodeIdx, children: Vec<RefNode>) -> RefNode {
        RefNode::Selector {
            node,
            children,
            resume_at: 0,
        }
    }

    /// An inverter at `node` over `child`.
    pub fn inverter(node: NodeIdx, child: RefNode) -> RefNode {
        RefNode::Inverter {
            node,
            child: Box::new(child),
        }
    }

    /// A `ForceSuccess` at `node` over `child`.
    pub fn force_success(node: NodeIdx, child: RefNode) -> RefNode {
        RefNode::ForceSuccess {
            node,
            child: Box::new(child),
        }
    }

    /// A `ForceFailure` at `node` over `child`.
    pub fn force_failure(node: NodeIdx, child: RefNode) -> RefNode {
        RefNode::ForceFailure {
            node,
            child: Box::new(child),
        }
    }

    /// A concurrent decider at `node`, with its policy resolved the way
    /// docs/nodes.md says: `Count::All` is the number of children n, and F
    /// is lowered to `n - S + 1`.
    ///
    /// # Panics
    /// If the policy does not compile for this many children (a count of 0
    /// or above n): such a tree cannot reach the VM either.
    pub fn concurrent(node: NodeIdx, policy: Policy, children: Vec<RefNode>) -> RefNode {
        let n = children.len();
        let resolve = |count: Count| match count {
            Count::All => n,
            Count::AtLeast(k) => usize::from(k),
        };
        let succeed_at = resolve(policy.succeed);
        let fail_at = resolve(policy.fail).min(n + 1 - succeed_at);
        assert!(
            (1..=n).contains(&succeed_at) && fail_at >= 1,
            "concurrent {node}: policy {policy:?} does not compile for {n} children"
        );
        RefNode::Concurrent {
            node,
            finished: vec![None; n],
            children,
            succeed_at,
            fail_at,
            max_failures: None,
        }
    }

    /// A `Loop` at `node` over `child` that succeeds after `limit`
    /// successes, or with `until_success` a `LoopUntilSuccess` that fails
    /// after `limit` failures (0: never).
    pub fn looped(node: NodeIdx, until_success: bool, limit: u64, child: RefNode) -> RefNode {
        RefNode::Loop {
            node,
            child: Box::new(child),
            until_success,
            limit,
            runs: 0,
            between_runs: false,
            child_running: false,
            again: false,
        }
    }

    /// The loop with `again` set as given (see `Loop`'s `again`); any
    /// other node as it is.
    #[must_use]
    pub fn again(mut self, on: bool) -> RefNode {
        if let RefNode::Loop { again, .. } = &mut self {
            *again = on;
        }
        self
    }

    /// A `Timeout` of `seconds` at `node` over `child`.
    pub fn timeout(node: NodeIdx, seconds: f64, child: RefNode) -> RefNode {
        RefNode::Timeout {
            node,
            child: Box::new(child),
            seconds,
            since: None,
        }
    }

    /// A `Wait` of `seconds` at `node`.
    pub fn wait(node: NodeIdx, seconds: f64) -> RefNode {
        RefNode::Wait {
            node,
            seconds,
            since: None,
        }
    }

    /// A `Cooldown` of `seconds` at `node` over `child`, ready at once (its
    /// slot starts at 0).
    pub fn cooldown(node: NodeIdx, seconds: f64, child: RefNode) -> RefNode {
        RefNode::Cooldown {
            node,
            child: Box::new(child),
            seconds,
            ready: 0,
        }
    }

    /// A scope at `node` around `child`.
    pub fn scope(node: NodeIdx, child: RefNode) -> RefNode {
        RefNode::Scope {
            node,
            child: Box::new(child),
            open: false,
        }
    }

    /// A condition at `node`.
    pub fn condition(node: NodeIdx) -> RefNode {
        RefNode::Condition { node }
    }

    /// An immediate action at `node`; with `persistent`, one owning a slot
    /// (starting at 0).
    pub fn action(node: NodeIdx, persistent: bool) -> RefNode {
        RefNode::Action {
            node,
            running: None,
            persistent: persistent.then_some(0),
            memory: None,
        }
    }

    /// The same immediate action or Decide, owning a memory block of
    /// `words` words (none for 0), as its leaf declares.
    pub fn with_memory(mut self, words: usize) -> RefNode {
        if let RefNode::Action { memory, .. } | RefNode::Decide { memory, .. } = &mut self {
            *memory = (words > 0).then(|| MemoryBlock::zeroed(words));
        }
        self
    }

    /// A deferred action at `node`, requested as `action`.
    pub fn deferred(node: NodeIdx, action: ActionId) -> RefNode {
        RefNode::Deferred {
            node,
            action,
            state: DeferredState::Idle,
            launched_this_tick: false,
        }
    }

    /// The node's pre-order index.
    pub fn index(&self) -> NodeIdx {
        match self {
            RefNode::Sequence { node, .. }
            | RefNode::Async { node, .. }
            | RefNode::ReactiveSequence { node, .. }
            | RefNode::IfThenElse { node, .. }
            | RefNode::SequenceWithMemory { node, .. }
            | RefNode::WhileDoElse { node, .. }
            | RefNode::Priority { node, .. }
            | RefNode::Selector { node, .. }
            | RefNode::Inverter { node, .. }
            | RefNode::ForceSuccess { node, .. }
            | RefNode::ForceFailure { node, .. }
            | RefNode::Concurrent { node, .. }
            | RefNode::Loop { node, .. }
            | RefNode::Timeout { node, .. }
            | RefNode::Wait { node, .. }
            | RefNode::Cooldown { node, .. }
            | RefNode::Scope { node, .. }
            | RefNode::Script { node, .. }
            | RefNode::Always { node, .. }
            | RefNode::Assert { node, .. }
            | RefNode::Gate { node, .. }
            | RefNode::ScriptWrapper { node, .. }
            | RefNode::WaitUntilTime { node, .. }
            | RefNode::WaitForEvent { node, .. }
            | RefNode::SendEvent { node, .. }
            | RefNode::PostStimulus { node, .. }
            | RefNode::StoredState { node, .. }
            | RefNode::Repeat { node, .. }
            | RefNode::Monitor { node, .. }
            | RefNode::Crowd { node, .. }
            | RefNode::Team { node, .. }
            | RefNode::Sync { node, .. }
            | RefNode::Group { node, .. }
            | RefNode::ChildTree { node, .. }
            | RefNode::Decider { node, .. }
            | RefNode::Decide { node, .. }
            | RefNode::Condition { node }
            | RefNode::Action { node, .. }
            | RefNode::Deferred { node, .. } => *node,
        }
    }

    /// The children (none for leaves).
    pub fn children(&self) -> &[RefNode] {
        match self {
            RefNode::Sequence { children, .. }
            | RefNode::Async { children, .. }
            | RefNode::ReactiveSequence { children, .. }
            | RefNode::IfThenElse { children, .. }
            | RefNode::WhileDoElse { children, .. }
            | RefNode::SequenceWithMemory { children, .. }
            | RefNode::Priority { children, .. }
            | RefNode::Selector { children, .. }
            | RefNode::Concurrent { children, .. }
            | RefNode::Group { children, .. }
            | RefNode::Team { children, .. }
            | RefNode::ChildTree { children, .. }
            | RefNode::Decider { children, .. } => children,
            RefNode::Inverter { child, .. }
            | RefNode::ForceSuccess { child, .. }
            | RefNode::ForceFailure { child, .. }
            | RefNode::Loop { child, .. }
            | RefNode::Timeout { child, .. }
            | RefNode::Cooldown { child, .. }
            | RefNode::Scope { child, .. }
            | RefNode::Gate { child, .. }
            | RefNode::ScriptWrapper { child, .. }
            | RefNode::StoredState { child, .. }
            | RefNode::Repeat { child, .. }
            | RefNode::Monitor { child, .. }
            | RefNode::Crowd { child, .. } => std::slice::from_ref(&**child),
            RefNode::Condition { .. }
            | RefNode::Decide { .. }
            | RefNode::Action { .. }
            | RefNode::Deferred { .. }
            | RefNode::Wait { .. }
            | RefNode::Script { .. }
            | RefNode::Always { .. }
            | RefNode::Assert { .. }
            | RefNode::WaitUntilTime { .. }
            | RefNode::WaitForEvent { .. }
            | RefNode::SendEvent { .. }
            | RefNode::Sync { .. }
            | RefNode::PostStimulus { .. } => &[],
        }
    }

    pub(crate) fn children_mut(&mut self) -> &mut [RefNode] {
        match self {
            RefNode::Sequence { children, .. }
            | RefNode::Async { children, .. }
            | RefNode::ReactiveSequence { children, .. }
            | RefNode::IfThenElse { children, .. }
            | RefNode::WhileDoElse { children, .. }
            | RefNode::SequenceWithMemory { children, .. }
            | RefNode::Priority { children, .. }
            | RefNode::Selector { children, .. }
            | RefNode::Concurrent { children, .. }
            | RefNode::Group { children, .. }
            | RefNode::Team { children, .. }
            | RefNode::ChildTree { children, .. }
            | RefNode::Decider { children, .. } => children,
            RefNode::Inverter { child, .. }
            | RefNode::ForceSuccess { child, .. }
            | RefNode::ForceFailure { child, .. }
            | RefNode::Loop { child, .. }
            | RefNode::Timeout { child, .. }
            | RefNode::Cooldown { child, .. }
            | RefNode::Scope { child, .. }
            | RefNode::Gate { child, .. }
            | RefNode::ScriptWrapper { child, .. }
            | RefNode::StoredState { child, .. }
            | RefNode::Repeat { child, .. }
            | RefNode::Monitor { child, .. }
            | RefNode::Crowd { child, .. } => std::slice::from_mut(&mut **child),
            RefNode::Condition { .. }
            | RefNode::Decide { .. }
            | RefNode::Action { .. }
            | RefNode::Deferred { .. }
            | RefNode::Wait { .. }
            | RefNode::Script { .. }
            | RefNode::Always { .. }
            | RefNode::Assert { .. }
            | RefNode::WaitUntilTime { .. }
            | RefNode::WaitForEvent { .. }
            | RefNode::SendEvent { .. }
            | RefNode::Sync { .. }
            | RefNode::PostStimulus { .. } => &mut [],
        }
    }

    /// The pre-order index one past the node's subtree.
    fn end(&self) -> u32 {
        let mut nodes = Vec::new();
        self.walk(&mut nodes);
        self.index().get() + nodes.len() as u32
    }

    /// Every node of the subtree, in pre-order.
    fn walk<'n>(&'n self, out: &mut Vec<&'n RefNode>) {
        out.push(self);
        for child in self.children() {
            child.walk(out);
        }
    }

    fn walk_mut(&mut self, f: &mut impl FnMut(&mut RefNode)) {
        f(self);
        for child in self.children_mut() {
            child.walk_mut(f);
        }
    }

    /// The persistent slots of the subtree's `p` leaves, then its memory
    /// blocks' words, in pre-order.
    fn persistent_values(&self) -> Vec<u32> {
        let mut nodes = Vec::new();
        self.walk(&mut nodes);
        let blocks = nodes.iter().flat_map(|n| match n {
            RefNode::Action {
                memory: Some(m), ..
            }
            | RefNode::Decide {
                memory: Some(m), ..
            } => m.words(),
            _ => &[],
        });
        let blocks: Vec<u32> = blocks.copied().collect();
        let mut values: Vec<u32> = nodes
            .iter()
            .filter_map(|n| match n {
                RefNode::Action { persistent, .. }
                | RefNode::Group {
                    slot: persistent, ..
                }
                | RefNode::Decider {
                    slot: persistent, ..
                } => *persistent,
                RefNode::Cooldown { ready, .. }
                | RefNode::SequenceWithMemory {
                    position: ready, ..
                } => Some(*ready),
                _ => None,
            })
            .collect();
        values.extend(blocks);
        values
    }

    /// Puts back slot values taken by [`RefNode::persistent_values`].
    fn restore_persistent_values(&mut self, values: &[u32]) {
        let mut values = values.iter();
        self.walk_mut(&mut |n| {
            if let RefNode::Action {
                persistent: Some(slot),
                ..
            }
            | RefNode::Group {
                slot: Some(slot), ..
            }
            | RefNode::Decider {
                slot: Some(slot), ..
            }
            | RefNode::Cooldown { ready: slot, .. }
            | RefNode::SequenceWithMemory { position: slot, .. } = n
            {
                *slot = *values
                    .next()
                    .expect("the snapshot holds one value per persistent leaf");
            }
        });
        self.walk_mut(&mut |n| {
            if let RefNode::Action {
                memory: Some(m), ..
            }
            | RefNode::Decide {
                memory: Some(m), ..
            } = n
            {
                for word in m.words_mut() {
                    *word = *values
                        .next()
                        .expect("the snapshot holds every memory block's words");
                }
            }
        });
    }
}

/// What one tick of one agent produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TickOutput {
    /// The root's status.
    pub status: Status,
    /// Cancel requests, then launch requests, then events sent (and a
    /// redecide limit's report), then the crowd's requests, each in order
    /// of occurrence.
    pub requests: Vec<Request>,
}

/// The states a tree remembers between ticks, in the VM's inspection types
/// (`ActorRef::deciders` and `ActorRef::actions`), so the two interpreters'
/// memories can be compared. Both lists are sorted by item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Remembered {
    /// Sequence and selector resume points and concurrent children's
    /// completion marks.
    pub deciders: Vec<DeciderState>,
    /// Running immediate actions, launched deferred actions, and the other
    /// nodes that keep an action state (loops between runs, waits, open
    /// scopes and wrappers).
    pub actions: Vec<(NodeIdx, ActionState)>,
}

/// Counts of the rarer things the reference did, so tests can check that
/// random trees reach them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Launch requests emitted (and not dropped).
    pub launches: u64,
    /// Cancel requests emitted.
    pub cancel_requests: u64,
    /// Immediate actions called with [`Signal::Cancel`].
    pub cancel_calls: u64,
    /// Launch requests dropped by a concurrent decider's rollback.
    pub dropped_launches: u64,
    /// Concurrent failures that undid a persistent change.
    pub persistent_undos: u64,
    /// Concurrent decisions taken while some child still ran.
    pub concurrent_cancellations: u64,
    /// Completions (success or failure) returned by deferred actions.
    pub completions_consumed: u64,
    /// Selector ticks that resumed at a running child past the first.
    pub selector_resumes: u64,
    /// Resumed selector children that failed, the selector moving on to
    /// the next child in the same tick.
    pub selector_moves_after_resume: u64,
    /// Selectors abandoned while they held a resume point.
    pub selector_resumes_abandoned: u64,
    /// Finished statuses a decorator changed (an inverter swapping, a
    /// `ForceSuccess` turning a failure into success, a `ForceFailure` a
    /// success into failure).
    pub decorator_changes: u64,
    /// Reactive sequences whose earlier child failed or ran while a later
    /// child was running, cancelling it.
    pub reactive_cancellations: u64,
    /// Scripts that faulted (a `Script` failing, a wrapper's enter script
    /// failing it, a test or condition counting as false, an exit script).
    pub script_faults: u64,
    /// Gates whose test failed them without ticking their child.
    pub gate_failures: u64,
    /// Gates that passed without a test because their child ran from an
    /// earlier tick.
    pub gates_passed_running: u64,
    /// `ScriptWrapper` exit scripts run because the wrapper was cancelled.
    pub wrapper_exits_cancelled: u64,
    /// `WaitUntilTime` nodes that succeeded after running.
    pub time_waits_done: u64,
    /// `WaitForEvent` nodes that succeeded on an event.
    pub events_awaited: u64,
    /// Events `SendEvent` nodes sent.
    pub events_sent: u64,
    /// Runs that `Loop` and `LoopUntilSuccess` nodes repeated, ending the
    /// tick running to start their child afresh on the next.
    pub loop_repeats: u64,
    /// Loops that finished on their count (`Loop`) or attempts
    /// (`LoopUntilSuccess`).
    pub loop_limits_reached: u64,
    /// Timeouts that expired while their child ran, cancelling its work.
    pub timeouts_expired: u64,
    /// `Wait` nodes that succeeded after running.
    pub waits_done: u64,
    /// `Cooldown` nodes that failed without ticking their child.
    pub cooldowns_blocked: u64,
    /// Scope exit hooks run because the scope was cancelled.
    pub scope_exits_cancelled: u64,
    /// `Repeat` children ticked again before their parent's resume point.
    pub repeat_reruns: u64,
    /// Registered monitors tested before the tree.
    pub monitors_tested: u64,
    /// Trees a monitor interrupted.
    pub monitor_interrupts: u64,
    /// Prioritized groups where an earlier decider took over from the
    /// active one.
    pub group_take_overs: u64,
    /// Groups that chose again in the same tick, the decider whose child
    /// ended masked.
    pub masked_redecides: u64,
    /// Groups that ended after a child ended, choosing nothing more
    /// (popping up a level).
    pub group_pop_ups: u64,
    /// Groups ended because their own `redecide` decider no longer
    /// accepted.
    pub redecides_refused: u64,
    /// Ticks stopped by a group's redecide limit.
    pub redecide_limits: u64,
    /// Deciders reported for breaking the subset rule.
    pub subset_rule_reports: u64,
    /// Groups ended by their group behavior's success or failure.
    pub group_behaviors_ended: u64,
    /// Delegating deciders that accepted through their group's deciders.
    pub delegations: u64,
    /// Deciders skipped because their `every` timer had not run out.
    pub timers_blocked: u64,
    /// Deciders skipped by their decision or stimuli flags.
    pub flags_refused: u64,
    /// Deciders whose stimuli flags passed them (they have stimuli masks).
    pub stimuli_passed: u64,
    /// Deciders skipped by their stimuli flags (counted in
    /// `flags_refused` too).
    pub stimuli_refused: u64,
    /// Stimuli that `PostStimulus` nodes posted.
    pub stimuli_posted: u64,
    /// Decide leaves asked while one of the agent's stimuli was active
    /// (so that they could read its datum).
    pub decides_with_stimuli: u64,
    /// Immediate actions started with a non-zero decider block.
    pub decider_blocks: u64,
    /// `random` and `shuffle` groups' draws.
    pub random_draws: u64,
    /// Requests to enter a `Gate` or an entering `GlobalCooldown`.
    pub crowd_asks: u64,
    /// Agents that asked again keeping their place (a refused ticket, or
    /// a waiting one nobody answered).
    pub crowd_places_kept: u64,
    /// Admitted tickets used: the agent entered the child.
    pub crowd_entries: u64,
    /// Full gates that failed at once, without asking.
    pub gates_full: u64,
    /// Cooling `GlobalCooldown`s that failed at once.
    pub global_cooldowns_blocked: u64,
    /// `GlobalCooldown`s started by a child's success.
    pub global_cooldowns_started: u64,
    /// Gate slots given back because the child finished.
    pub slots_given_back: u64,
    /// Gate slots given back because the ticket was abandoned: cancelled,
    /// halted, rolled back, or admitted and passed over.
    pub slots_given_back_abandoned: u64,
    /// Admitted tickets the tick passed over without entering.
    pub admissions_passed_over: u64,
    /// Team members whose child succeeded: they left their teams.
    pub teams_left: u64,
    /// Team members that broke out of their teams (their child failed, or
    /// their admitted ticket was given up).
    pub teams_broken_out: u64,
    /// Team members that found their team broken.
    pub teams_broken: u64,
    /// Sync points passed.
    pub syncs_passed: u64,
    /// Crowd nodes abandoned while their child ran (cancelled by a higher
    /// priority, a finishing or failing concurrent decider, a timeout, a
    /// monitor, a take-over, a redecide limit or a halt).
    pub crowd_cancelled_inside: u64,
    /// Ticks of a connector that ran its injected child tree.
    pub child_trees_run: u64,
    /// Connectors that failed with no child tree injected.
    pub child_trees_missing: u64,
    /// Child trees other than the injected one whose remembered work a
    /// connector cancelled (the agent was switched to another tree, or to
    /// none).
    pub child_trees_cancelled: u64,
}

impl Coverage {
    /// Adds another count.
    pub fn add(&mut self, other: &Coverage) {
        self.launches += other.launches;
        self.cancel_requests += other.cancel_requests;
        self.cancel_calls += other.cancel_calls;
        self.dropped_launches += other.dropped_launches;
        self.persistent_undos += other.persistent_undos;
        self.concurrent_cancellations += other.concurrent_cancellations;
        self.completions_consumed += other.completions_consumed;
        self.selector_resumes += other.selector_resumes;
        self.selector_moves_after_resume += other.selector_moves_after_resume;
        self.selector_resumes_abandoned += other.selector_resumes_abandoned;
        self.decorator_changes += other.decorator_changes;
        self.reactive_cancellations += other.reactive_cancellations;
        self.script_faults += other.script_faults;
        self.gate_failures += other.gate_failures;
        self.gates_passed_running += other.gates_passed_running;
        self.wrapper_exits_cancelled += other.wrapper_exits_cancelled;
        self.time_waits_done += other.time_waits_done;
        self.events_awaited += other.events_awaited;
        self.events_sent += other.events_sent;
        self.loop_repeats += other.loop_repeats;
        self.loop_limits_reached += other.loop_limits_reached;
        self.timeouts_expired += other.timeouts_expired;
        self.waits_done += other.waits_done;
        self.cooldowns_blocked += other.cooldowns_blocked;
        self.scope_exits_cancelled += other.scope_exits_cancelled;
        self.repeat_reruns += other.repeat_reruns;
        self.monitors_tested += other.monitors_tested;
        self.monitor_interrupts += other.monitor_interrupts;
        self.group_take_overs += other.group_take_overs;
        self.masked_redecides += other.masked_redecides;
        self.group_pop_ups += other.group_pop_ups;
        self.redecides_refused += other.redecides_refused;
        self.redecide_limits += other.redecide_limits;
        self.subset_rule_reports += other.subset_rule_reports;
        self.group_behaviors_ended += other.group_behaviors_ended;
        self.delegations += other.delegations;
        self.timers_blocked += other.timers_blocked;
        self.flags_refused += other.flags_refused;
        self.stimuli_passed += other.stimuli_passed;
        self.stimuli_refused += other.stimuli_refused;
        self.stimuli_posted += other.stimuli_posted;
        self.decides_with_stimuli += other.decides_with_stimuli;
        self.decider_blocks += other.decider_blocks;
        self.random_draws += other.random_draws;
        self.crowd_asks += other.crowd_asks;
        self.crowd_places_kept += other.crowd_places_kept;
        self.crowd_entries += other.crowd_entries;
        self.gates_full += other.gates_full;
        self.global_cooldowns_blocked += other.global_cooldowns_blocked;
        self.global_cooldowns_started += other.global_cooldowns_started;
        self.slots_given_back += other.slots_given_back;
        self.slots_given_back_abandoned += other.slots_given_back_abandoned;
        self.admissions_passed_over += other.admissions_passed_over;
        self.crowd_cancelled_inside += other.crowd_cancelled_inside;
        self.teams_left += other.teams_left;
        self.teams_broken_out += other.teams_broken_out;
        self.teams_broken += other.teams_broken;
        self.syncs_passed += other.syncs_passed;
        self.child_trees_run += other.child_trees_run;
        self.child_trees_missing += other.child_trees_missing;
        self.child_trees_cancelled += other.child_trees_cancelled;
    }
}

/// The reference interpreter for one agent: a tree of [`RefNode`]s.
#[derive(Clone, Debug)]
pub struct Reference {
    root: RefNode,
    coverage: Coverage,
    /// Per node: started and not finished or cancelled (for traces).
    open: Vec<bool>,
    /// What the tree declares for the agent's memory.
    memory: Memory,
    /// The variables' values: variable `i` is bit `i % 32` of word `i / 32`.
    vars: Vec<u32>,
    /// The entries' values, two words each (low first).
    entries: Vec<u32>,
    /// Per timestamp, the time it was last set.
    stamps: Vec<Option<f32>>,
    /// Per stimulus, once posted: its expiry time and its datum.
    stimuli: Vec<Option<(f32, u32)>>,
    /// The tree's `Gate` and `GlobalCooldown` nodes and their rules.
    rules: BTreeMap<NodeIdx, CrowdRule>,
    /// The agent's tickets at them.
    tickets: BTreeMap<NodeIdx, Ticket>,
}

/// What a tick collects while it walks.
struct Tick<'w> {
    world: &'w mut dyn RefLeaves,
    agent: AgentId,
    cancels: Vec<Request>,
    launches: Vec<Request>,
    /// Events sent (never rolled back).
    events: Vec<Request>,
    coverage: &'w mut Coverage,
    open: &'w mut [bool],
    trace: &'w mut dyn FnMut(NodeIdx, TraceEvent),
    /// The agent's variables, which scripts change in place.
    vars: &'w mut [u32],
    /// The agent's entries, which scripts change in place.
    entries: &'w mut [u32],
    /// The agent's timestamps (only events between ticks set them).
    stamps: &'w [Option<f32>],
    /// The agent's stimuli, which `PostStimulus` nodes post.
    stimuli: &'w mut [Option<(f32, u32)>],
    /// The monitors tested this tick, with their queries' statuses.
    tested: Vec<(NodeIdx, Status)>,
    /// The decider block an immediate action started next by a newly
    /// chosen decider gets as its state (0 otherwise).
    block: u32,
    /// The decider block (of its decider's Decide) that an immediate
    /// action with a memory block started next starts its memory from.
    block_memory: Option<MemoryBlock>,
    /// The `redecide` deciders whose group children are running, innermost
    /// last.
    redeciders: Vec<Redecider>,
    /// A group that started this tick and found no decider to accept (its
    /// decider, if it has one, broke the subset rule).
    found_nothing: Option<NodeIdx>,
    /// A decider broke the subset rule: the group that chose it counts it
    /// against its redecide limit.
    violated: bool,
    /// The group whose redecide limit stopped the tick.
    aborted: Option<NodeIdx>,
    /// The crowd's requests (enter, leave, start a cool-down), in order.
    crowd: Vec<Request>,
    /// The tree's crowd nodes and their rules.
    rules: &'w BTreeMap<NodeIdx, CrowdRule>,
    /// The tickets the last tick left that this tick has not reached yet.
    last: BTreeMap<NodeIdx, Ticket>,
    /// The tickets this tick keeps.
    tickets: &'w mut BTreeMap<NodeIdx, Ticket>,
    /// Whether reaching a node gives up the tickets before it (not while
    /// monitors are tested before the tree).
    passing: bool,
    /// A loop asked for the tree to be ticked again at once.
    again: bool,
    /// This pass is not the tick's first: it covers no time.
    later_pass: bool,
    /// The seats of the teams whose branches the walk is in, innermost
    /// last: a `Sync`'s team is the last.
    seats: Vec<Seat>,
}

/// A `redecide` decider whose group child runs: the group asks it again
/// before choosing again. Its timer slot is kept here while the group runs.
struct Redecider {
    decider: NodeIdx,
    group: NodeIdx,
    params: DeciderParams,
    decide: Option<NodeIdx>,
    slot: Option<u32>,
    /// Its Decide's decider block, as asking it again leaves it.
    memory: Option<MemoryBlock>,
}

/// The unwinding payload that stops a tick at a group's redecide limit.
struct RedecideLimit;

impl Reference {
    /// An idle agent running `root`, which declares no memory. Its nodes
    /// must be numbered in pre-order from 0, as [`crate::Spec::to_reference`]
    /// does.
    pub fn new(root: RefNode) -> Reference {
        Reference::with_memory(root, Memory::default())
    }

    /// An idle agent running `root`, with the variables, signals and
    /// timestamps of `memory`: variables at their initial values, no
    /// timestamp set.
    pub fn with_memory(root: RefNode, memory: Memory) -> Reference {
        let mut nodes = Vec::new();
        root.walk(&mut nodes);
        for (i, n) in nodes.iter().enumerate() {
            assert_eq!(
                n.index().index(),
                i,
                "reference nodes must be numbered in pre-order"
            );
        }
        let mut vars = vec![0u32; memory.initial.len().div_ceil(32)];
        for (i, &initial) in memory.initial.iter().enumerate() {
            vars[i / 32] |= u32::from(initial) << (i % 32);
        }
        let rules = nodes
            .iter()
            .filter_map(|n| match n {
                RefNode::Crowd { node, rule, .. } => Some((*node, *rule)),
                RefNode::Team { node, size, .. } => Some((*node, CrowdRule::Team { size: *size })),
                _ => None,
            })
            .collect();
        Reference {
            open: vec![false; nodes.len()],
            rules,
            tickets: BTreeMap::new(),
            root,
            coverage: Coverage::default(),
            stamps: vec![None; memory.timestamps.len()],
            stimuli: vec![None; memory.stimuli],
            entries: vec![0; 2 * memory.entries],
            vars,
            memory,
        }
    }

    /// An idle agent running `shape`, with the leaves its items import and
    /// the memory it declares.
    pub fn from_shape(shape: &Shape) -> Reference {
        Reference::with_memory(ref_node(shape, NodeIdx::ROOT), Memory::of(shape))
    }

    /// The agent's variables, by index.
    pub fn variables(&self) -> Vec<bool> {
        (0..self.memory.initial.len())
            .map(|i| self.vars[i / 32] >> (i % 32) & 1 != 0)
            .collect()
    }

    /// The words of the agent's entries, by index.
    pub fn entries(&self) -> Vec<u64> {
        self.entries
            .chunks_exact(2)
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect()
    }

    /// The agent's timestamps, by index: when each was last set, `None` if
    /// never.
    pub fn timestamps(&self) -> &[Option<f32>] {
        &self.stamps
    }

    /// The datum of the agent's stimulus `index` while it is active at
    /// `now`: posted, and `now` before its expiry.
    pub fn stimulus(&self, index: usize, now: f64) -> Option<u32> {
        match self.stimuli.get(index) {
            Some(&Some((expiry, datum))) if now < f64::from(expiry) => Some(datum),
            _ => None,
        }
    }

    /// The agent's stimuli active at `now`: bit `i` for stimulus `i`.
    pub fn stimuli_flags(&self, now: f64) -> u32 {
        active_stimuli(&self.stimuli, now)
    }

    /// Posts the agent's stimulus `index` with `datum` from outside the
    /// tree (as `ActorMut::post_stimulus` does): active from `now` until
    /// `now + seconds`, kept as `f32`; a stimulus still active restarts.
    ///
    /// # Panics
    /// If the tree declares no stimulus `index`.
    pub fn post_stimulus(&mut self, index: usize, datum: u32, now: f64, seconds: f64) {
        self.stimuli[index] = Some(((now + seconds) as f32, datum));
    }

    /// The tree, with its current states.
    pub fn root(&self) -> &RefNode {
        &self.root
    }

    /// What this agent's ticks have done so far.
    pub fn coverage(&self) -> Coverage {
        self.coverage
    }

    /// Ticks the tree once for `agent`, calling leaves on `world`.
    pub fn tick(&mut self, world: &mut dyn RefLeaves, agent: AgentId) -> TickOutput {
        self.tick_traced(world, agent, &mut |_, _| {})
    }

    /// Ticks like [`Reference::tick`], reporting what happens to which node
    /// to `trace` by the rules of `treebeard_vm::TraceEvent`, here as the
    /// plain recursion that defines them.
    pub fn tick_traced(
        &mut self,
        world: &mut dyn RefLeaves,
        agent: AgentId,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> TickOutput {
        // While a loop asks for it, the tree is ticked again at once: at the
        // tick's time, covering no time (the VM's `MAX_PASSES`).
        let (mut out, mut again) = self.pass(world, agent, trace, false);
        let mut passes = 1;
        while out.status == Status::Running && again && passes < treebeard_vm::MAX_PASSES {
            let (next, asked) = self.pass(world, agent, trace, true);
            out.requests.extend(next.requests);
            out.status = next.status;
            again = asked;
            passes += 1;
        }
        world.again(false);
        out
    }

    /// One pass of a tick (see [`Reference::tick_traced`]): its output, and
    /// whether a loop asked for another pass.
    fn pass(
        &mut self,
        world: &mut dyn RefLeaves,
        agent: AgentId,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
        later_pass: bool,
    ) -> (TickOutput, bool) {
        // The tickets the last tick left are kept only at the nodes this
        // tick reaches again.
        let last = std::mem::take(&mut self.tickets);
        world.tell(&self.vars, &self.entries);
        world.again(later_pass);
        let mut cx = Tick {
            world,
            agent,
            cancels: Vec::new(),
            launches: Vec::new(),
            events: Vec::new(),
            coverage: &mut self.coverage,
            open: &mut self.open,
            trace,
            vars: &mut self.vars,
            entries: &mut self.entries,
            stamps: &self.stamps,
            stimuli: &mut self.stimuli,
            tested: Vec::new(),
            block: 0,
            block_memory: None,
            redeciders: Vec::new(),
            found_nothing: None,
            violated: false,
            aborted: None,
            crowd: Vec::new(),
            rules: &self.rules,
            last,
            tickets: &mut self.tickets,
            passing: false,
            again: false,
            later_pass,
            seats: Vec::new(),
        };
        test_monitors(&mut self.root, &mut cx);
        cx.passing = true;
        // A group past its redecide limit stops the tick where it is (it
        // unwinds with `RedecideLimit`): every running work is then
        // cancelled as by a halt, and the tick fails.
        let ticked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tick(&mut self.root, &mut cx)
        }));
        let status = match ticked {
            Ok(status) => status,
            Err(payload) => {
                if !payload.is::<RedecideLimit>() {
                    std::panic::resume_unwind(payload);
                }
                // The timers of the deciders the groups held stay as asked.
                for r in std::mem::take(&mut cx.redeciders) {
                    if let Some(RefNode::Decider { slot, children, .. }) =
                        find_mut(&mut self.root, r.decider)
                    {
                        *slot = r.slot;
                        restore_decide_memory(children, r.memory);
                    }
                }
                // The root fails (the tick's status); the rest is cancelled.
                let root = self.root.index().index();
                cx.open[root] = false;
                abandon(&mut self.root, &mut cx);
                (cx.trace)(self.root.index(), TraceEvent::Failure);
                Status::Failure
            }
        };
        // Tickets of the last tick that the tick did not reach are given up.
        cx.pass(u32::MAX);
        let tested = std::mem::take(&mut cx.tested);
        // A launch is traced as its request leaves, after the tick: the
        // rolled-back ones never do.
        for launch in &cx.launches {
            (cx.trace)(launch.node, TraceEvent::Launch);
        }
        let again = cx.again;
        let requests = cx.finish();
        register_monitors(&mut self.root, &self.tickets, status, &tested);
        // "Launched during this tick" ends with the tick.
        self.root.walk_mut(&mut |n| {
            if let RefNode::Deferred {
                launched_this_tick, ..
            } = n
            {
                *launched_this_tick = false;
            }
        });
        if status.is_done() {
            // Only tickets may stay: an agent asks at a node and fails it,
            // whatever the root then returns.
            let mut left = self.remembered();
            left.actions.retain(|(n, _)| !self.rules.contains_key(n));
            assert!(
                left == Remembered::default(),
                "reference bug: the root returned {status:?} but the tree still remembers {left:?}"
            );
        }
        (TickOutput { status, requests }, again)
    }

    /// Cancels all running work, as if the root had been abandoned (the
    /// VM's `Interpreter::halt`), and gives up every ticket. Returns the
    /// cancel requests and the gate slots given back.
    pub fn halt(&mut self, world: &mut dyn RefLeaves, agent: AgentId) -> Vec<Request> {
        world.tell(&self.vars, &self.entries);
        let mut cx = Tick {
            world,
            agent,
            cancels: Vec::new(),
            launches: Vec::new(),
            events: Vec::new(),
            coverage: &mut self.coverage,
            open: &mut self.open,
            trace: &mut |_, _| {},
            vars: &mut self.vars,
            entries: &mut self.entries,
            stamps: &self.stamps,
            stimuli: &mut self.stimuli,
            tested: Vec::new(),
            block: 0,
            block_memory: None,
            redeciders: Vec::new(),
            found_nothing: None,
            violated: false,
            aborted: None,
            crowd: Vec::new(),
            rules: &self.rules,
            last: BTreeMap::new(),
            tickets: &mut self.tickets,
            passing: true,
            again: false,
            later_pass: false,
            seats: Vec::new(),
        };
        abandon(&mut self.root, &mut cx);
        cx.finish()
    }

    /// Applies a game system's report on the deferred action at `node`
    /// (between ticks). Like `ActorMut::complete`, a report for an action
    /// that is not launched is stale and not applied.
    pub fn complete(&mut self, node: NodeIdx, outcome: Outcome) -> Result<(), Stale> {
        let target = find_mut(&mut self.root, node).ok_or(Stale::NotRunning)?;
        let RefNode::Deferred { state, .. } = target else {
            return Err(Stale::NotRunning);
        };
        match *state {
            DeferredState::Idle => Err(Stale::NotRunning),
            DeferredState::Succeeded | DeferredState::Failed => Err(Stale::AlreadyDone),
            DeferredState::Launched | DeferredState::Acknowledged => {
                *state = match outcome {
                    Outcome::Running => DeferredState::Acknowledged,
                    Outcome::Success => DeferredState::Succeeded,
                    Outcome::Failure => DeferredState::Failed,
                };
                Ok(())
            }
        }
    }

    /// Injects child tree `tree` (its position plus one; 0: none) into
    /// the `ChildTree` connector at `node`, between ticks. Returns whether
    /// there is such a connector.
    pub fn inject(&mut self, node: NodeIdx, tree: u32) -> bool {
        let mut found = false;
        self.root.walk_mut(&mut |n| {
            if let RefNode::ChildTree {
                node: at, injected, ..
            } = n
                && *at == node
            {
                *injected = tree;
                found = true;
            }
        });
        found
    }

    /// The persistent slots of the `p` leaves, by item, each node's
    /// persistent slot before its memory block's words (as the VM lays
    /// them out).
    pub fn persistent(&self) -> Vec<(NodeIdx, u32)> {
        let mut nodes = Vec::new();
        self.root.walk(&mut nodes);
        nodes
            .iter()
            .flat_map(|n| {
                let memory = match n {
                    RefNode::Action {
                        node,
                        memory: Some(m),
                        ..
                    }
                    | RefNode::Decide {
                        node,
                        memory: Some(m),
                    } => m.words().iter().map(|&w| (*node, w)).collect(),
                    _ => Vec::new(),
                };
                Self::slot_of(n).into_iter().chain(memory)
            })
            .collect()
    }

    /// A node's persistent slot (its memory block aside), with its item.
    fn slot_of(n: &RefNode) -> Option<(NodeIdx, u32)> {
        match n {
            RefNode::Action {
                node,
                persistent: Some(v),
                ..
            }
            | RefNode::Group {
                node,
                slot: Some(v),
                ..
            }
            | RefNode::Decider {
                node,
                slot: Some(v),
                ..
            }
            | RefNode::Cooldown { node, ready: v, .. }
            | RefNode::SequenceWithMemory {
                node, position: v, ..
            }
            | RefNode::ChildTree {
                node, injected: v, ..
            } => Some((*node, *v)),
            _ => None,
        }
    }

    /// Everything the tree remembers for the next tick, the agent's tickets
    /// among the action states.
    pub fn remembered(&self) -> Remembered {
        let mut out = remembered(&self.root);
        out.actions.extend(
            self.tickets
                .iter()
                .map(|(&n, t)| (n, ActionState::Running(t.value()))),
        );
        out.actions.sort_by_key(|&(n, _)| n);
        out
    }

    /// The agent's ticket at the `Gate` or `GlobalCooldown` at `node`, if
    /// it has one.
    pub fn ticket(&self, node: NodeIdx) -> Option<Ticket> {
        self.tickets.get(&node).copied()
    }

    /// The crowd's answer to the agent's waiting ticket at `node`:
    /// admitted, or refused (keeping the frame it asks since). Anything
    /// but a waiting ticket is left as it is.
    pub fn answer(&mut self, node: NodeIdx, admitted: bool) {
        if let Some(ticket) = self.tickets.get_mut(&node)
            && let Ticket::Waiting { since } = *ticket
        {
            *ticket = if admitted {
                Ticket::Admitted
            } else {
                Ticket::Refused { since }
            };
        }
    }

    /// The crowd's answer `answer` (see [`crate::crowd::Answer`]): to a
    /// waiting ticket, admitted (at a `Team`, with a seat) or refused; to a
    /// team member's ticket for the seat of a team that broke, broken.
    pub fn answer_with(&mut self, answer: &crate::crowd::Answer) {
        match answer.seat {
            Some(seat) if !answer.admitted => {
                if let Some(ticket) = self.tickets.get_mut(&answer.node)
                    && *ticket == Ticket::Seated(seat)
                {
                    *ticket = Ticket::Broken;
                }
            }
            Some(seat) => {
                if let Some(ticket) = self.tickets.get_mut(&answer.node)
                    && let Ticket::Waiting { .. } = *ticket
                {
                    *ticket = Ticket::Seated(seat);
                }
            }
            None => self.answer(answer.node, answer.admitted),
        }
    }

    /// Delivers `event` to the agent between ticks (the VM's
    /// `Interpreter::send_event`), at the time of `world.clock()`, the last
    /// tick's frame:
    ///
    /// 1. the signals for the event set their variables, in order;
    /// 2. the timestamps it sets record `time + dt` (the next tick's time)
    ///    as an `f32`, each clearing its exclusive partner;
    /// 3. running `WaitForEvent` nodes waiting for it will succeed on the
    ///    next tick;
    /// 4. running immediate actions with an event hook get it, in pre-order.
    ///
    /// Returns how many running nodes it reached (waits and hooks).
    pub fn send_event(&mut self, world: &mut dyn RefLeaves, event: EventId) -> usize {
        for signal in self.memory.signals.iter().filter(|s| s.event == event.0) {
            let (word, bit) = (signal.variable as usize / 32, signal.variable % 32);
            if signal.value {
                self.vars[word] |= 1 << bit;
            } else {
                self.vars[word] &= !(1 << bit);
            }
        }
        // The hooks see the variables the signals set.
        world.tell(&self.vars, &self.entries);
        let frame = world.clock();
        let now = (frame.time + f64::from(frame.dt)) as f32;
        for (i, stamp) in self.memory.timestamps.iter().enumerate() {
            if stamp.event == event.0 {
                self.stamps[i] = Some(now);
                if let Some(other) = stamp.exclusive {
                    self.stamps[other as usize] = None;
                }
            }
        }
        let mut delivered = 0;
        self.root.walk_mut(&mut |n| {
            if let RefNode::WaitForEvent {
                event: wanted,
                waiting: Some(arrived),
                ..
            } = n
                && *wanted == event
            {
                *arrived = true;
                delivered += 1;
            } else if let RefNode::Action {
                node,
                running: Some(state),
                persistent,
                memory,
            } = n
                && world.event(*node, event, state, persistent.as_mut(), memory.as_mut())
            {
                delivered += 1;
            }
        });
        world.written(&mut self.vars, &mut self.entries);
        delivered
    }

    /// The leaves with running work: running immediate actions and
    /// launched deferred actions, in pre-order (and the other nodes with an
    /// action state, but for tickets).
    pub fn running_leaves(&self) -> Vec<NodeIdx> {
        remembered(&self.root)
            .actions
            .iter()
            .map(|&(n, _)| n)
            .collect()
    }

    /// True when the tree remembers nothing (persistent slots aside), and
    /// the agent holds no ticket.
    pub fn is_idle(&self) -> bool {
        self.remembered() == Remembered::default()
    }
}

impl Tick<'_> {
    /// The tick's requests: cancels first, then launches, then events,
    /// then a redecide limit's report, then the crowd's requests.
    fn finish(self) -> Vec<Request> {
        let mut requests = self.cancels;
        requests.extend(self.launches);
        requests.extend(self.events);
        if let Some(group) = self.aborted {
            requests.push(Request {
                agent: self.agent,
                node: group,
                action: ActionId(0),
                kind: RequestKind::RedecideLimit,
            });
        }
        requests.extend(self.crowd);
        requests
    }

    /// The walk has gone past every node before `upto` (in pre-order): the
    /// tickets the last tick left there that it did not reach are given
    /// up, in pre-order. An admitted gate ticket gives its slot back.
    fn pass(&mut self, upto: u32) {
        if !self.passing {
            return;
        }
        while let Some(entry) = self.last.first_entry() {
            if entry.key().get() >= upto {
                return;
            }
            let (node, ticket) = entry.remove_entry();
            if matches!(ticket, Ticket::Admitted | Ticket::Seated(_)) {
                self.coverage.admissions_passed_over += 1;
            }
            self.give_up(node, ticket);
        }
    }

    /// The agent's `ticket` at `node` ends without the child finishing: a
    /// gate's admitted ticket gives its slot back.
    fn give_up(&mut self, node: NodeIdx, ticket: Ticket) {
        if let Ticket::Seated(seat) = ticket {
            self.coverage.teams_broken_out += 1;
            self.crowd
                .push(self.request(node, ActionId(0), RequestKind::BreakOut { seat }));
            return;
        }
        if ticket == Ticket::Admitted
            && matches!(self.rules.get(&node), Some(CrowdRule::Gate { .. }))
        {
            self.coverage.slots_given_back_abandoned += 1;
            self.crowd
                .push(self.request(node, ActionId(0), RequestKind::Leave));
        }
    }

    /// Whether the node at `node` with `rule` is open in the crowd's state
    /// as the last settling left it: a gate with a free slot, a cool-down
    /// that is ready at this tick's time. Without a crowd, every gate is
    /// empty and every cool-down ready.
    fn is_open(&self, node: NodeIdx, rule: CrowdRule) -> bool {
        let now = self.world.clock().time;
        match (rule, self.world.crowd()) {
            (_, Some(crowd)) => crowd.is_open(node, now),
            (CrowdRule::Gate { max, .. }, None) => max > 0,
            (CrowdRule::Cooldown { .. }, None) => now >= 0.0,
            (CrowdRule::Team { .. }, None) => true,
        }
    }

    /// The seconds this pass covers: the tick's, or none after its first
    /// pass.
    fn dt(&self) -> f32 {
        if self.later_pass {
            0.0
        } else {
            self.world.clock().dt
        }
    }

    /// Runs a script over the agent's variables.
    fn script(&mut self, script: u64, read_only: bool) -> Result<ScriptValue, Fault> {
        let memory = TreeMemory {
            variables: self.vars,
            entries: self.entries,
        };
        let result = self.world.script(script, memory, read_only);
        self.world.tell(self.vars, self.entries);
        if result.is_err() {
            self.coverage.script_faults += 1;
        }
        result
    }

    /// Whether a bool script holds: a fault does not.
    fn holds(&mut self, script: u64, read_only: bool) -> bool {
        self.script(script, read_only) == Ok(ScriptValue::Bool(true))
    }

    /// A time test at this tick's clock.
    fn time_holds(&self, test: &TimeTest) -> bool {
        test.holds(self.stamps, &self.world.clock())
    }

    fn request(&self, node: NodeIdx, action: ActionId, kind: RequestKind) -> Request {
        Request {
            agent: self.agent,
            node,
            action,
            kind,
        }
    }
}

fn find_mut(node: &mut RefNode, index: NodeIdx) -> Option<&mut RefNode> {
    if node.index() == index {
        return Some(node);
    }
    node.children_mut()
        .iter_mut()
        .find_map(|child| find_mut(child, index))
}

/// Ticks one node, tracing its start and end. Reaching it, the walk has
/// gone past the nodes before it; returning, past its subtree too: the
/// tickets the last tick left there are given up ("Crowd nodes").
fn tick(node: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    let i = node.index();
    cx.pass(i.get());
    if !cx.open[i.index()] {
        cx.open[i.index()] = true;
        (cx.trace)(i, TraceEvent::Start);
    }
    let status = step(node, cx);
    if !cx.last.is_empty() {
        cx.pass(node.end());
    }
    if status.is_done() {
        cx.open[i.index()] = false;
        let event = if status == Status::Success {
            TraceEvent::Success
        } else {
            TraceEvent::Failure
        };
        (cx.trace)(i, event);
    }
    status
}

/// One node's tick: the "Deciders" and "Leaves" sections of docs/nodes.md.
fn step(node: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    match node {
        RefNode::Async {
            children,
            selector,
            position,
            yielded,
            ..
        } => {
            *yielded = false;
            // On at its place; a step that moves it on yields, and the
            // tick's next pass goes on at the next child.
            let moves_on = if *selector {
                Status::Failure
            } else {
                Status::Success
            };
            let at = *position;
            let status = tick(&mut children[at], cx);
            if status == Status::Running {
                return status;
            }
            if status != moves_on || at + 1 == children.len() {
                *position = 0;
                return status;
            }
            *position = at + 1;
            *yielded = true;
            cx.again = true;
            Status::Running
        }
        RefNode::Sequence {
            children,
            resume_at,
            ..
        } => {
            // Resume at the child that ran last tick, without ticking the
            // children before it again, but for its `Repeat` children.
            let resumed = *resume_at;
            for i in 0..children.len() {
                if skipped(&children[i], i < resumed, cx) {
                    continue;
                }
                let status = tick(&mut children[i], cx);
                if status == Status::Success {
                    continue;
                }
                // A `Repeat` child that does not go on displaces the child
                // it was resuming at (passing over the children between,
                // as the selector below).
                if i < resumed {
                    cx.pass(children[resumed].index().get());
                    abandon(&mut children[resumed], cx);
                }
                *resume_at = if status == Status::Running { i } else { 0 };
                return status;
            }
            *resume_at = 0;
            Status::Success
        }
        RefNode::IfThenElse {
            children,
            resume_at,
            ..
        } => {
            // The branch that ran last tick, or the condition and then the
            // branch it chooses.
            let branch = if *resume_at > 0 {
                *resume_at
            } else {
                match tick(&mut children[0], cx) {
                    Status::Running => return Status::Running,
                    Status::Success => 1,
                    Status::Failure if children.len() == 3 => 2,
                    Status::Failure => return Status::Failure,
                }
            };
            let status = tick(&mut children[branch], cx);
            *resume_at = if status == Status::Running { branch } else { 0 };
            status
        }
        RefNode::SequenceWithMemory {
            children, position, ..
        } => {
            // From the child where it stopped (the first, if its slot names
            // none it has), in order; a child that fails or runs is where it
            // starts next time, and the last one's success starts it anew.
            let mut k = *position as usize;
            if k >= children.len() {
                (k, *position) = (0, 0);
            }
            loop {
                let status = tick(&mut children[k], cx);
                if status != Status::Success {
                    *position = k as u32;
                    return status;
                }
                k += 1;
                if k == children.len() {
                    *position = 0;
                    return Status::Success;
                }
            }
        }
        RefNode::WhileDoElse { children, .. } => {
            // The condition on every tick. A branch not ticked is
            // abandoned: the else branch before the condition's failure
            // goes on to it (in item order), the then branch after it runs.
            let condition = tick(&mut children[0], cx);
            let branch = match condition {
                Status::Running => {
                    for branch in &mut children[1..] {
                        abandon(branch, cx);
                    }
                    return Status::Running;
                }
                Status::Success => 1,
                Status::Failure => {
                    abandon(&mut children[1], cx);
                    if children.len() < 3 {
                        return Status::Failure;
                    }
                    2
                }
            };
            let status = tick(&mut children[branch], cx);
            if branch == 1
                && let Some(other) = children.get_mut(2)
            {
                abandon(other, cx);
            }
            status
        }
        RefNode::ReactiveSequence { children, .. } => {
            // From the first child on every tick; a child that fails or runs
            // ends the tick, and the work of the children after it is
            // cancelled.
            for i in 0..children.len() {
                let status = tick(&mut children[i], cx);
                if status != Status::Success {
                    if children[i + 1..].iter().any(|c| cx.open[c.index().index()]) {
                        cx.coverage.reactive_cancellations += 1;
                    }
                    for later in &mut children[i + 1..] {
                        abandon(later, cx);
                    }
                    return status;
                }
            }
            Status::Success
        }
        RefNode::ChildTree {
            children, injected, ..
        } => {
            // The injected tree, after the work of those before it is
            // cancelled; then the work of those after it.
            let len = children.len();
            let chosen = (*injected as usize).checked_sub(1).filter(|&k| k < len);
            let leave = |tree: &mut RefNode, cx: &mut Tick<'_>| {
                if remembered(tree) != Remembered::default() {
                    cx.coverage.child_trees_cancelled += 1;
                }
                abandon(tree, cx);
            };
            let Some(k) = chosen else {
                cx.coverage.child_trees_missing += 1;
                for tree in children.iter_mut() {
                    leave(tree, cx);
                }
                return Status::Failure;
            };
            for earlier in &mut children[..k] {
                leave(earlier, cx);
            }
            cx.coverage.child_trees_run += 1;
            let status = tick(&mut children[k], cx);
            for later in &mut children[k + 1..] {
                leave(later, cx);
            }
            status
        }
        RefNode::Priority { children, .. } => {
            // From the first child on every tick; the first that succeeds or
            // runs wins, and the work of the children after it is cancelled
            // before anything else runs.
            for i in 0..children.len() {
                let status = tick(&mut children[i], cx);
                if status != Status::Failure {
                    for later in &mut children[i + 1..] {
                        abandon(later, cx);
                    }
                    return status;
                }
            }
            Status::Failure
        }
        RefNode::Selector {
            children,
            resume_at,
            ..
        } => {
            // Resume at the child that ran last tick, without ticking the
            // children before it again.
            let (resumed, last) = (*resume_at, children.len() - 1);
            if resumed > 0 {
                cx.coverage.selector_resumes += 1;
            }
            // Its `Repeat` children before that one are ticked again.
            for i in 0..children.len() {
                if skipped(&children[i], i < resumed, cx) {
                    continue;
                }
                let status = tick(&mut children[i], cx);
                // A failure moves on to the next child in the same tick.
                if status == Status::Failure {
                    if resumed > 0 && i == resumed && i < last {
                        cx.coverage.selector_moves_after_resume += 1;
                    }
                    continue;
                }
                // A `Repeat` child that succeeds or runs displaces the child
                // it was resuming at, passing over the children between
                // them: their tickets are given up first, in stream order
                // (one cancellation range covers them all).
                if i < resumed {
                    cx.pass(children[resumed].index().get());
                    abandon(&mut children[resumed], cx);
                }
                // A success succeeds the selector; running, it resumes here
                // next tick.
                *resume_at = if status == Status::Running { i } else { 0 };
                return status;
            }
            // All failing fails it.
            *resume_at = 0;
            Status::Failure
        }
        // Pass their child's statuses through (a `Repeat` is ticked again by
        // its parent, see above).
        RefNode::StoredState { child, .. } | RefNode::Repeat { child, .. } => tick(child, cx),
        RefNode::Monitor { node, child, .. } => {
            // Tested before the tree this tick: the same result again.
            if let Some(&(_, status)) = cx.tested.iter().find(|(n, _)| n == node) {
                return status;
            }
            let status = tick(child, cx);
            assert!(
                status.is_done(),
                "a monitor's query finishes in the tick it starts"
            );
            cx.tested.push((*node, status));
            status
        }
        RefNode::Inverter { child, .. } => {
            // Success and failure swapped; running passes through.
            let status = match tick(child, cx) {
                Status::Success => Status::Failure,
                Status::Failure => Status::Success,
                Status::Running => return Status::Running,
            };
            cx.coverage.decorator_changes += 1;
            status
        }
        RefNode::ForceSuccess { child, .. } => {
            // A finished child's status becomes success; running passes
            // through.
            match tick(child, cx) {
                Status::Running => Status::Running,
                Status::Success => Status::Success,
                Status::Failure => {
                    cx.coverage.decorator_changes += 1;
                    Status::Success
                }
            }
        }
        RefNode::ForceFailure { child, .. } => {
            // A finished child's status becomes failure; running passes
            // through.
            match tick(child, cx) {
                Status::Running => Status::Running,
                Status::Failure => Status::Failure,
                Status::Success => {
                    cx.coverage.decorator_changes += 1;
                    Status::Failure
                }
            }
        }
        RefNode::Concurrent {
            children,
            succeed_at,
            fail_at,
            finished,
            max_failures,
            ..
        } => {
            // Taken before any child runs, so that a failure can undo what
            // the children changed this tick.
            let persistent_before: Vec<Vec<u32>> =
                children.iter().map(RefNode::persistent_values).collect();
            let (mut successes, mut failures) = (0, 0);
            let mut decision = None;
            for i in 0..children.len() {
                let success = match finished[i] {
                    Some(success) => success,
                    None => match tick(&mut children[i], cx) {
                        Status::Running => continue,
                        status => {
                            finished[i] = Some(status == Status::Success);
                            status == Status::Success
                        }
                    },
                };
                if success {
                    successes += 1;
                } else {
                    failures += 1;
                }
                if max_failures.is_some() {
                    continue;
                }
                if successes >= *succeed_at {
                    decision = Some(Status::Success);
                    break;
                }
                if failures >= *fail_at {
                    decision = Some(Status::Failure);
                    break;
                }
            }
            if let Some(m) = *max_failures {
                if finished.iter().any(Option::is_none) {
                    return Status::Running;
                }
                // Every child finished: nothing runs, nothing is undone.
                for child in children.iter_mut() {
                    abandon(child, cx);
                }
                finished.fill(None);
                return if failures >= m {
                    Status::Failure
                } else {
                    Status::Success
                };
            }
            let Some(status) = decision else {
                assert!(
                    finished.iter().any(Option::is_none),
                    "a concurrent pass ended with every child finished and no threshold met"
                );
                return Status::Running;
            };
            // It finished: roll back what its children did this tick and
            // cancel their running work, in child order.
            if status == Status::Failure {
                let mut undone = false;
                for (child, before) in children.iter_mut().zip(&persistent_before) {
                    undone |= child.persistent_values() != *before;
                    child.restore_persistent_values(before);
                }
                if undone {
                    cx.coverage.persistent_undos += 1;
                }
            }
            let still_running = finished.iter().any(Option::is_none);
            if still_running {
                cx.coverage.concurrent_cancellations += 1;
            }
            for child in children.iter_mut() {
                abandon(child, cx);
            }
            finished.fill(None);
            status
        }
        RefNode::Loop {
            child,
            until_success,
            limit,
            runs,
            between_runs,
            child_running,
            again,
            ..
        } => {
            // One run per tick: a run that repeats ends the tick running,
            // and the next starts afresh on the next tick (or, `again`, in
            // the tick's next pass).
            *between_runs = false;
            let status = tick(child, cx);
            let repeats = if *until_success {
                Status::Failure
            } else {
                Status::Success
            };
            *child_running = status == Status::Running;
            if status == Status::Running {
                return Status::Running;
            }
            if status == repeats {
                *runs = runs.saturating_add(1);
                if *limit == 0 || u64::from(*runs) < *limit {
                    cx.coverage.loop_repeats += 1;
                    *between_runs = true;
                    cx.again |= *again;
                    return Status::Running;
                }
                cx.coverage.loop_limits_reached += 1;
            }
            *runs = 0;
            status
        }
        RefNode::Timeout {
            child,
            seconds,
            since,
            ..
        } => {
            // Checked before the child runs: time is up, cancel and fail.
            let started = since.take();
            let elapsed = started.unwrap_or(0.0);
            if f64::from(elapsed) >= *seconds {
                if started.is_some() {
                    cx.coverage.timeouts_expired += 1;
                }
                abandon(child, cx);
                return Status::Failure;
            }
            let status = tick(child, cx);
            if status == Status::Running {
                *since = Some(elapsed + cx.dt());
            }
            status
        }
        RefNode::Wait { seconds, since, .. } => {
            let started = since.take();
            let elapsed = started.unwrap_or(0.0);
            if f64::from(elapsed) >= *seconds {
                if started.is_some() {
                    cx.coverage.waits_done += 1;
                }
                return Status::Success;
            }
            *since = Some(elapsed + cx.dt());
            Status::Running
        }
        RefNode::Cooldown {
            child,
            seconds,
            ready,
            ..
        } => {
            let now = cx.world.clock().time;
            if now < f64::from(f32::from_bits(*ready)) {
                cx.coverage.cooldowns_blocked += 1;
                return Status::Failure;
            }
            let status = tick(child, cx);
            if status.is_done() {
                *ready = ((now + *seconds) as f32).to_bits();
            }
            status
        }
        RefNode::Scope { node, child, open } => {
            if !*open {
                cx.world.scope(*node, None);
                cx.world.written(cx.vars, cx.entries);
                *open = true;
            }
            let status = tick(child, cx);
            if status.is_done() {
                *open = false;
                let how = if status == Status::Success {
                    Ending::Success
                } else {
                    Ending::Failure
                };
                cx.world.scope(*node, Some(how));
                cx.world.written(cx.vars, cx.entries);
            }
            status
        }
        RefNode::Always { status, .. } => *status,
        RefNode::Script { script, .. } => {
            // Succeeds unless the script faults; its value does not matter.
            if cx.script(*script, false).is_ok() {
                Status::Success
            } else {
                Status::Failure
            }
        }
        RefNode::Assert {
            test, read_only, ..
        } => {
            if cx.holds(*test, *read_only) {
                Status::Success
            } else {
                Status::Failure
            }
        }
        RefNode::Gate {
            test,
            child,
            running,
            ..
        } => {
            // Tested only when the child starts: a child running from an
            // earlier tick goes on without a test.
            if *running {
                cx.coverage.gates_passed_running += 1;
            } else {
                let pass = match test {
                    GateTest::Script(script) => cx.holds(*script, false),
                    GateTest::Condition(script) => cx.holds(*script, true),
                    GateTest::Time(test) => cx.time_holds(test),
                };
                if !pass {
                    cx.coverage.gate_failures += 1;
                    return Status::Failure;
                }
            }
            let status = tick(child, cx);
            *running = status == Status::Running;
            status
        }
        RefNode::ScriptWrapper {
            enter,
            exit,
            child,
            open,
            ..
        } => {
            // Like a scope: the enter script runs when it starts; if it
            // faults, the wrapper fails at once, never opened, and its exit
            // will not run.
            if !*open {
                if cx.script(*enter, false).is_err() {
                    return Status::Failure;
                }
                *open = true;
            }
            let status = tick(child, cx);
            if status.is_done() {
                *open = false;
                // A fault changes nothing: the ending is decided.
                let _ = cx.script(*exit, false);
            }
            status
        }
        RefNode::WaitUntilTime { test, running, .. } => {
            // Tested on every tick, the first included.
            if cx.time_holds(test) {
                if *running {
                    cx.coverage.time_waits_done += 1;
                }
                *running = false;
                Status::Success
            } else {
                *running = true;
                Status::Running
            }
        }
        RefNode::WaitForEvent { waiting, .. } => {
            // Only an event that arrives while it runs counts.
            if waiting.take() == Some(true) {
                cx.coverage.events_awaited += 1;
                Status::Success
            } else {
                *waiting = Some(false);
                Status::Running
            }
        }
        RefNode::SendEvent { node, event, to } => {
            let to = match *to {
                IntInput::Literal(to) => Some(to),
                IntInput::Input(word) => cx.world.input_int(word),
            };
            // -1 is the sender; any other value that is no agent index fails.
            let to = match to {
                Some(SELF_AGENT) => Some(cx.agent),
                Some(to) => u32::try_from(to).ok().map(AgentId),
                None => None,
            };
            let Some(to) = to else {
                return Status::Failure;
            };
            let kind = RequestKind::Event { event: *event, to };
            let sent = cx.request(*node, ActionId(0), kind);
            cx.events.push(sent);
            cx.coverage.events_sent += 1;
            Status::Success
        }
        RefNode::Crowd { node, rule, child } => tick_crowd(*node, *rule, child, cx),
        RefNode::Team { node, children, .. } => tick_team(*node, children, cx),
        RefNode::Sync {
            node,
            point,
            waiting,
        } => tick_sync(*node, *point, waiting, cx),
        RefNode::Group { .. } => tick_group(node, cx),
        RefNode::Decider {
            node,
            params,
            children,
            slot,
        } => {
            // Its child runs; a newly chosen immediate action gets the block.
            let block = std::mem::take(&mut cx.block);
            let decide = decide_leaf(children);
            let decide_block = decide_memory(children);
            let Some(child) = children.last_mut() else {
                unreachable!("a decider has a child")
            };
            if matches!(child, RefNode::Action { .. }) {
                cx.block = block;
                cx.block_memory = decide_block;
            }
            let redecider = params.redecide && matches!(child, RefNode::Group { .. });
            if redecider {
                cx.redeciders.push(Redecider {
                    decider: *node,
                    group: child.index(),
                    params: *params,
                    decide,
                    slot: *slot,
                    memory: decide_block,
                });
            }
            cx.found_nothing = None;
            let child_at = child.index();
            let status = tick(child, cx);
            if redecider && let Some(r) = cx.redeciders.pop() {
                *slot = r.slot;
                restore_decide_memory(children, r.memory);
            }
            // It accepted, and its group found none of its deciders to:
            // Spore's subset rule is broken (docs/nodes.md).
            if cx.found_nothing.take() == Some(child_at) {
                let report = cx.request(*node, ActionId(0), RequestKind::SubsetRule);
                cx.events.push(report);
                cx.violated = true;
                cx.coverage.subset_rule_reports += 1;
            }
            status
        }
        RefNode::Decide { .. } => unreachable!("a Decide leaf is asked, never ticked"),
        RefNode::PostStimulus {
            stimulus,
            seconds,
            data,
            ..
        } => {
            // A datum is 32 bits: from i32::MIN to u32::MAX, kept as its
            // two's complement; any other value posts nothing.
            let datum = match *data {
                IntInput::Literal(d) => Some(d),
                IntInput::Input(word) => cx.world.input_int(word),
            };
            let datum = datum.filter(|d| (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(d));
            let Some(datum) = datum else {
                return Status::Failure;
            };
            // Active until the tick's time plus its seconds, kept as f32.
            let expiry = (cx.world.clock().time + f64::from(*seconds)) as f32;
            cx.stimuli[*stimulus] = Some((expiry, datum as u32));
            cx.coverage.stimuli_posted += 1;
            Status::Success
        }
        RefNode::Condition { node } => {
            let holds = cx.world.condition(*node);
            cx.world.written(cx.vars, cx.entries);
            if holds {
                Status::Success
            } else {
                Status::Failure
            }
        }
        RefNode::Action {
            node,
            running,
            persistent,
            memory,
        } => {
            // A newly chosen decider's immediate action starts with its
            // decider block, and its memory with its decider's Decide's.
            let block = std::mem::take(&mut cx.block);
            let block_memory = cx.block_memory.take();
            let (signal, mut state) = match running.take() {
                Some(state) => (Signal::Tick, state),
                None => {
                    if block != 0 {
                        cx.coverage.decider_blocks += 1;
                    }
                    if let Some(m) = memory.as_mut() {
                        *m = MemoryBlock::zeroed(m.words().len());
                        if let Some(from) = &block_memory {
                            m.copy_from(from);
                        }
                    }
                    (Signal::Start, block)
                }
            };
            let status = cx.world.action(
                *node,
                signal,
                &mut state,
                persistent.as_mut(),
                memory.as_mut(),
            );
            cx.world.written(cx.vars, cx.entries);
            if status == Status::Running {
                *running = Some(state);
            }
            status
        }
        RefNode::Deferred {
            node,
            action,
            state,
            launched_this_tick,
        } => match *state {
            DeferredState::Idle => {
                let launch = cx.request(*node, *action, RequestKind::Launch);
                cx.launches.push(launch);
                cx.coverage.launches += 1;
                *state = DeferredState::Launched;
                *launched_this_tick = true;
                Status::Running
            }
            DeferredState::Launched | DeferredState::Acknowledged => Status::Running,
            DeferredState::Succeeded | DeferredState::Failed => {
                let status = if *state == DeferredState::Succeeded {
                    Status::Success
                } else {
                    Status::Failure
                };
                *state = DeferredState::Idle;
                cx.coverage.completions_consumed += 1;
                (cx.trace)(*node, TraceEvent::Complete);
                status
            }
        },
    }
}

/// Everything the tree under `root` remembers for the next tick.
fn remembered(root: &RefNode) -> Remembered {
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    let mut out = Remembered::default();
    for n in nodes {
        match n {
            RefNode::Sequence {
                node,
                children,
                resume_at,
            }
            | RefNode::Selector {
                node,
                children,
                resume_at,
            }
            | RefNode::IfThenElse {
                node,
                children,
                resume_at,
            } if *resume_at > 0 => out.deciders.push(DeciderState::Resume {
                node: *node,
                child: children[*resume_at].index(),
            }),
            RefNode::Async {
                node,
                position,
                yielded,
                ..
            } if *position > 0 => {
                if *yielded {
                    out.actions
                        .push((*node, ActionState::Running(*position as u32)));
                } else {
                    out.deciders.push(DeciderState::Value {
                        node: *node,
                        value: *position as u32,
                    });
                }
            }
            RefNode::Concurrent {
                children, finished, ..
            } => {
                for (child, done) in children.iter().zip(finished) {
                    if let Some(success) = *done {
                        out.deciders.push(DeciderState::Done {
                            node: child.index(),
                            success,
                        });
                    }
                }
            }
            RefNode::Action {
                node,
                running: Some(state),
                ..
            } => out.actions.push((*node, ActionState::Running(*state))),
            RefNode::Loop {
                node,
                runs,
                between_runs,
                child_running,
                ..
            } => {
                if *between_runs {
                    out.actions.push((*node, ActionState::Running(*runs)));
                } else if *child_running {
                    out.deciders.push(DeciderState::Value {
                        node: *node,
                        value: *runs,
                    });
                }
            }
            RefNode::Timeout {
                node,
                since: Some(since),
                ..
            } => out.deciders.push(DeciderState::Value {
                node: *node,
                value: since.to_bits(),
            }),
            RefNode::Wait {
                node,
                since: Some(since),
                ..
            } => out
                .actions
                .push((*node, ActionState::Running(since.to_bits()))),
            RefNode::Scope {
                node, open: true, ..
            }
            | RefNode::ScriptWrapper {
                node, open: true, ..
            }
            | RefNode::WaitUntilTime {
                node,
                running: true,
                ..
            } => out.actions.push((*node, ActionState::Running(0))),
            RefNode::Sync {
                node,
                point,
                waiting: true,
            } => out.actions.push((*node, ActionState::Running(*point))),
            RefNode::WaitForEvent {
                node,
                waiting: Some(arrived),
                ..
            } => out
                .actions
                .push((*node, ActionState::Running(u32::from(*arrived)))),
            RefNode::Monitor {
                node,
                registered: true,
                ..
            } => out.deciders.push(DeciderState::Monitor { node: *node }),
            RefNode::Group {
                node,
                behavior,
                children,
                active: Some(k),
                ..
            } => out.deciders.push(DeciderState::Value {
                node: *node,
                value: children[usize::from(*behavior) + k].index().get(),
            }),
            RefNode::Deferred { node, state, .. } => {
                let state = match state {
                    DeferredState::Idle => continue,
                    DeferredState::Launched => ActionState::Launched,
                    DeferredState::Acknowledged => ActionState::Acknowledged,
                    DeferredState::Succeeded => ActionState::Succeeded,
                    DeferredState::Failed => ActionState::Failed,
                };
                out.actions.push((*node, state));
            }
            _ => {}
        }
    }
    out.deciders.sort_by_key(|d| match d {
        DeciderState::Resume { node, .. }
        | DeciderState::Done { node, .. }
        | DeciderState::Value { node, .. }
        | DeciderState::Monitor { node } => *node,
    });
    out
}

/// Whether a sequence's or selector's child is skipped: one before the
/// resume point completed, unless it is a `Repeat`, which is ticked again.
fn skipped(child: &RefNode, before_resume: bool, cx: &mut Tick<'_>) -> bool {
    if !before_resume {
        return false;
    }
    let repeat = matches!(child, RefNode::Repeat { .. });
    if repeat {
        cx.coverage.repeat_reruns += 1;
    }
    !repeat
}

/// Where the running branch starts: the first node with running work that
/// is not a scope's or wrapper's (they hold their running child). A gate
/// with `wait` runs while its ticket in `tickets` asks (waiting or
/// refused); an admitted ticket holds the gate's running child, which is
/// the branch (an action, or another gate asking inside it). Other tickets
/// are no running work.
fn running_position(root: &RefNode, tickets: &BTreeMap<NodeIdx, Ticket>) -> u32 {
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    let actions: Vec<NodeIdx> = remembered(root)
        .actions
        .iter()
        .map(|&(n, _)| n)
        .filter(|n| {
            !matches!(
                nodes[n.index()],
                RefNode::Scope { .. } | RefNode::ScriptWrapper { .. }
            )
        })
        .collect();
    let waiting = tickets.iter().filter_map(|(&n, &ticket)| {
        let asks = matches!(ticket, Ticket::Waiting { .. } | Ticket::Refused { .. });
        let gate = matches!(
            nodes[n.index()],
            RefNode::Crowd {
                rule: CrowdRule::Gate { wait: true, .. },
                ..
            }
        );
        (gate && asks).then_some(n)
    });
    actions
        .iter()
        .copied()
        .chain(waiting)
        .min()
        .map_or(u32::MAX, NodeIdx::get)
}

/// Before the tree: tests the registered monitors before the running
/// branch, in pre-order; the first whose query succeeds interrupts the
/// tree, abandoning everything it remembers.
fn test_monitors(root: &mut RefNode, cx: &mut Tick<'_>) {
    let running = running_position(root, &cx.last);
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    let registered: Vec<NodeIdx> = nodes
        .iter()
        .filter(|n| {
            matches!(
                n,
                RefNode::Monitor {
                    registered: true,
                    ..
                }
            ) && n.end() <= running
        })
        .map(|n| n.index())
        .collect();
    for monitor in registered {
        cx.coverage.monitors_tested += 1;
        let Some(node) = find_mut(root, monitor) else {
            unreachable!("registered monitors are in the tree")
        };
        if tick(node, cx) == Status::Success {
            cx.coverage.monitor_interrupts += 1;
            abandon(root, cx);
            return;
        }
    }
}

/// After the tree returned `status`: the monitors tested this tick whose
/// queries failed and that lie before the running branch are registered;
/// no others are.
fn register_monitors(
    root: &mut RefNode,
    tickets: &BTreeMap<NodeIdx, Ticket>,
    status: Status,
    tested: &[(NodeIdx, Status)],
) {
    let running = if status == Status::Running {
        running_position(root, tickets)
    } else {
        0
    };
    root.walk_mut(&mut |n| {
        let before = matches!(n, RefNode::Monitor { .. }) && n.end() <= running;
        if let RefNode::Monitor {
            node, registered, ..
        } = n
        {
            *registered = before
                && tested
                    .iter()
                    .any(|&(m, s)| m == *node && s == Status::Failure);
        }
    });
}

/// Abandons a subtree: cancels its running work in stream order and
/// forgets everything it remembers ("Work that is running ... and that a
/// tick does not reach is abandoned and cancelled"). Children go first, so
/// a trace reports a running decider cancelled after its running leaves.
fn abandon(node: &mut RefNode, cx: &mut Tick<'_>) {
    if let RefNode::Group {
        behavior: true,
        children,
        ..
    } = node
    {
        // A group's behavior is cancelled after the work inside the group.
        let (behavior, deciders) = children.split_at_mut(1);
        for child in deciders {
            abandon(child, cx);
        }
        abandon(&mut behavior[0], cx);
    } else {
        for child in node.children_mut() {
            abandon(child, cx);
        }
    }
    let i = node.index();
    let running = cx.open[i.index()];
    if running {
        cx.open[i.index()] = false;
        (cx.trace)(i, TraceEvent::Cancel);
    }
    match node {
        RefNode::Sequence { resume_at, .. } | RefNode::IfThenElse { resume_at, .. } => {
            *resume_at = 0;
        }
        RefNode::Async {
            position, yielded, ..
        } => {
            *position = 0;
            *yielded = false;
        }
        RefNode::Selector { resume_at, .. } => {
            if *resume_at > 0 {
                cx.coverage.selector_resumes_abandoned += 1;
            }
            *resume_at = 0;
        }
        RefNode::Concurrent { finished, .. } => finished.fill(None),
        RefNode::Loop {
            runs,
            between_runs,
            child_running,
            ..
        } => {
            *runs = 0;
            *between_runs = false;
            *child_running = false;
        }
        RefNode::Timeout { since, .. } | RefNode::Wait { since, .. } => *since = None,
        // Its slot outlives cancellation (a connector's too: the tree
        // injected stays injected).
        RefNode::Cooldown { .. }
        | RefNode::ChildTree { .. }
        | RefNode::SequenceWithMemory { .. } => {}
        RefNode::Scope { node, open, .. } => {
            // After the work inside it is cleaned up.
            if *open {
                *open = false;
                cx.coverage.scope_exits_cancelled += 1;
                cx.world.scope(*node, Some(Ending::Cancelled));
                cx.world.written(cx.vars, cx.entries);
            }
        }
        RefNode::ScriptWrapper {
            exit, halted, open, ..
        } => {
            // As a scope's exit: after the work inside it is cleaned up.
            if *open {
                *open = false;
                cx.coverage.wrapper_exits_cancelled += 1;
                if *halted != treebeard_shape::NO_SCRIPT {
                    let _ = cx.script(*halted, false);
                }
                let _ = cx.script(*exit, false);
            }
        }
        RefNode::Gate { running, .. } | RefNode::WaitUntilTime { running, .. } => {
            *running = false;
        }
        RefNode::WaitForEvent { waiting, .. } => *waiting = None,
        RefNode::Sync { waiting, .. } => *waiting = false,
        RefNode::Crowd { node, .. } | RefNode::Team { node, .. } => {
            // Whatever the ticket: this tick's, or the last tick's.
            let ticket = cx.tickets.remove(node).or(cx.last.remove(node));
            if let Some(ticket) = ticket {
                if running {
                    cx.coverage.crowd_cancelled_inside += 1;
                }
                cx.give_up(*node, ticket);
            }
        }
        RefNode::Monitor { registered, .. } => *registered = false,
        // Its slot outlives cancellation; nothing else is kept.
        RefNode::Group { active, .. } => *active = None,
        RefNode::Decider { .. } | RefNode::Decide { .. } => {}
        // Leaves that finish on the tick they start.
        RefNode::Script { .. }
        | RefNode::Always { .. }
        | RefNode::Assert { .. }
        | RefNode::SendEvent { .. }
        | RefNode::PostStimulus { .. } => {}
        // Deciders that remember nothing of their own.
        RefNode::Priority { .. }
        | RefNode::StoredState { .. }
        | RefNode::Repeat { .. }
        | RefNode::ReactiveSequence { .. }
        | RefNode::WhileDoElse { .. }
        | RefNode::Inverter { .. }
        | RefNode::ForceSuccess { .. }
        | RefNode::ForceFailure { .. }
        | RefNode::Condition { .. } => {}
        RefNode::Action {
            node,
            running,
            persistent,
            memory,
        } => {
            if let Some(mut state) = running.take() {
                // The return value of a cancel call is ignored.
                let _ = cx.world.action(
                    *node,
                    Signal::Cancel,
                    &mut state,
                    persistent.as_mut(),
                    memory.as_mut(),
                );
                cx.world.written(cx.vars, cx.entries);
                cx.coverage.cancel_calls += 1;
            }
        }
        RefNode::Deferred {
            node,
            action,
            state,
            launched_this_tick,
        } => {
            match *state {
                DeferredState::Launched | DeferredState::Acknowledged if *launched_this_tick => {
                    // Launched during this tick and rolled back: never
                    // requested, so nothing to cancel either.
                    let before = cx.launches.len();
                    cx.launches.retain(|r| r.node != *node);
                    assert_eq!(
                        cx.launches.len() + 1,
                        before,
                        "a deferred action launched this tick has one launch request"
                    );
                    cx.coverage.launches -= 1;
                    cx.coverage.dropped_launches += 1;
                }
                DeferredState::Launched | DeferredState::Acknowledged => {
                    let cancel = cx.request(*node, *action, RequestKind::Cancel);
                    cx.cancels.push(cancel);
                    cx.coverage.cancel_requests += 1;
                }
                // A completion nobody consumed is simply forgotten.
                DeferredState::Succeeded | DeferredState::Failed | DeferredState::Idle => {}
            }
            *state = DeferredState::Idle;
            *launched_this_tick = false;
        }
    }
}

/// The words of the memory block of the leaf at `node` in `shape`.
fn memory_words(shape: &Shape, node: NodeIdx) -> usize {
    shape.memory_slots(node).map_or(0, |m| m.len())
}

/// The `Decide` leaf of a decider's children, if it has one.
fn decide_leaf(children: &[RefNode]) -> Option<NodeIdx> {
    match children {
        [RefNode::Decide { node, .. }, _] => Some(*node),
        _ => None,
    }
}

/// The `Decide` leaf of a decider's children and its decider block, if it
/// has one.
fn decide_parts(children: &mut [RefNode]) -> Option<(NodeIdx, Option<&mut MemoryBlock>)> {
    match children {
        [RefNode::Decide { node, memory }, _] => Some((*node, memory.as_mut())),
        _ => None,
    }
}

/// The decider block of a decider's Decide leaf, if it declares one.
fn decide_memory(children: &[RefNode]) -> Option<MemoryBlock> {
    match children {
        [RefNode::Decide { memory, .. }, _] => *memory,
        _ => None,
    }
}

/// Puts back a decider block (kept by a redecider) into `children`'s
/// Decide leaf.
fn restore_decide_memory(children: &mut [RefNode], block: Option<MemoryBlock>) {
    if let [RefNode::Decide { memory, .. }, _] = children {
        *memory = block;
    }
}

/// A decider that accepted while its group chose: its position among the
/// group's deciders, its score and its decider block.
#[derive(Clone, Copy, Debug)]
struct Offer {
    index: usize,
    score: f32,
    block: u32,
}

/// What asking a decider by its own preconditions and Decide gave.
enum Asked {
    Rejected,
    Accepted(f32, u32),
    /// Its preconditions passed and it delegates to its group child.
    Delegates,
}

/// Bit `i` set while stimulus `i` of `stimuli` is active at `now`: posted,
/// and `now` before its expiry.
fn active_stimuli(stimuli: &[Option<(f32, u32)>], now: f64) -> u32 {
    stimuli
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_some_and(|(expiry, _)| now < f64::from(expiry)))
        .fold(0, |flags, (i, _)| flags | 1 << i)
}

/// Whether `flags` pass the masks `[all, any, none]`.
fn flags_pass(flags: u32, [all, any, none]: [u32; 3]) -> bool {
    flags & all == all && (any == 0 || flags & any != 0) && flags & none == 0
}

/// Asks a decider by its own preconditions, in order (decision flags,
/// stimuli flags, its timer), then its Decide: docs/nodes.md, "Spore
/// deciders", step 1 and 2.
fn ask_own(
    params: &DeciderParams,
    decide: Option<(NodeIdx, Option<&mut MemoryBlock>)>,
    slot: &mut Option<u32>,
    cx: &mut Tick<'_>,
) -> Asked {
    if params.decision != [0; 3] && !flags_pass(cx.world.decision_flags(), params.decision) {
        cx.coverage.flags_refused += 1;
        return Asked::Rejected;
    }
    if params.stimuli != [0; 3] {
        let flags = active_stimuli(cx.stimuli, cx.world.clock().time);
        if !flags_pass(flags, params.stimuli) {
            cx.coverage.flags_refused += 1;
            cx.coverage.stimuli_refused += 1;
            return Asked::Rejected;
        }
        cx.coverage.stimuli_passed += 1;
    }
    if params.every > 0.0 {
        let Some(ready) = slot.as_mut() else {
            unreachable!("a decider with a timer has a slot")
        };
        let now = cx.world.clock().time;
        if now < f64::from(f32::from_bits(*ready)) {
            cx.coverage.timers_blocked += 1;
            return Asked::Rejected;
        }
        *ready = ((now + params.every) as f32).to_bits();
    }
    if params.delegate {
        return Asked::Delegates;
    }
    let Some((leaf, mut memory)) = decide else {
        return Asked::Accepted(1.0, 0);
    };
    // Its decider block starts each call as zeros.
    if let Some(m) = memory.as_deref_mut() {
        *m = MemoryBlock::zeroed(m.words().len());
    }
    let stimuli: Vec<u32> = cx
        .stimuli
        .iter()
        .flat_map(|s| s.map_or([0, 0], |(expiry, datum)| [expiry.to_bits(), datum]))
        .collect();
    if active_stimuli(cx.stimuli, cx.world.clock().time) != 0 {
        cx.coverage.decides_with_stimuli += 1;
    }
    let (score, block) = cx.world.decide(leaf, &stimuli, memory);
    if score > 0.0 {
        Asked::Accepted(score, block)
    } else {
        Asked::Rejected
    }
}

/// Asks the decider `decider`: its score and decider block if it accepts.
fn ask(decider: &mut RefNode, cx: &mut Tick<'_>) -> Option<(f32, u32)> {
    let RefNode::Decider {
        params,
        children,
        slot,
        ..
    } = decider
    else {
        unreachable!("a group's children after its behavior are deciders")
    };
    match ask_own(params, decide_parts(children), slot, cx) {
        Asked::Rejected => None,
        Asked::Accepted(score, block) => Some((score, block)),
        Asked::Delegates => {
            let Some(group) = children.last_mut() else {
                unreachable!("a decider has a child")
            };
            delegated(group, cx)
        }
    }
}

/// What the deciders of `group` would offer: the highest score (the
/// earliest of equals) among those that accept, asked in order.
fn delegated(group: &mut RefNode, cx: &mut Tick<'_>) -> Option<(f32, u32)> {
    let RefNode::Group {
        behavior, children, ..
    } = group
    else {
        unreachable!("a delegating decider's child is a group")
    };
    let mut best: Option<(f32, u32)> = None;
    for decider in &mut children[usize::from(*behavior)..] {
        if let Some((score, block)) = ask(decider, cx)
            && best.is_none_or(|(s, _)| score > s)
        {
            best = Some((score, block));
        }
    }
    if best.is_some() {
        cx.coverage.delegations += 1;
    }
    best
}

/// The first of `deciders` not in `masked` that accepts, asked in order.
fn first_accepting(deciders: &mut [RefNode], masked: u64, cx: &mut Tick<'_>) -> Option<Offer> {
    for (index, decider) in deciders.iter_mut().enumerate() {
        if masked & 1 << index != 0 {
            continue;
        }
        if let Some((score, block)) = ask(decider, cx) {
            return Some(Offer {
                index,
                score,
                block,
            });
        }
    }
    None
}

/// Chooses one of the group `group`'s `deciders` by `policy`: not one in
/// `masked`, and (sequential) only one after `after`.
fn choose(
    group: NodeIdx,
    deciders: &mut [RefNode],
    policy: GroupPolicy,
    masked: u64,
    after: Option<usize>,
    slot: &mut Option<u32>,
    cx: &mut Tick<'_>,
) -> Option<Offer> {
    match policy {
        GroupPolicy::Prioritized => return first_accepting(deciders, masked, cx),
        GroupPolicy::Sequential => {
            // Never the one that just ended, nor one before it.
            let before = after.map_or(0, |i| (1u64 << (i + 1)) - 1);
            return first_accepting(deciders, masked | before, cx);
        }
        GroupPolicy::Random | GroupPolicy::Shuffle | GroupPolicy::Scored => {}
    }
    // Every unmasked decider is asked, in order.
    let mut offers = Vec::new();
    for (index, decider) in deciders.iter_mut().enumerate() {
        if masked & 1 << index == 0
            && let Some((score, block)) = ask(decider, cx)
        {
            offers.push(Offer {
                index,
                score,
                block,
            });
        }
    }
    if offers.is_empty() {
        return None;
    }
    let Some(slot) = slot else {
        // Scored: the highest score, the earliest of equals.
        return offers
            .into_iter()
            .reduce(|best, o| if o.score > best.score { o } else { best });
    };
    cx.coverage.random_draws += 1;
    let frame = cx.world.clock();
    if policy == GroupPolicy::Random {
        // Proportional to the scores: the draw's top 53 bits as a fraction
        // of the total; the counter moves on.
        let draw = treebeard_vm::random_draw(cx.agent, group.get(), *slot, 0);
        *slot = slot.wrapping_add(1);
        let total: f64 = offers.iter().map(|o| f64::from(o.score)).sum();
        let target = (draw >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut sum = 0.0;
        for o in &offers {
            sum += f64::from(o.score);
            if target < sum {
                return Some(*o);
            }
        }
        return offers.last().copied();
    }
    // Shuffle: uniformly among those not chosen in this round; a new round
    // when none is left.
    let mut round = *slot;
    let fresh = |round: u32| -> Vec<Offer> {
        offers
            .iter()
            .filter(|o| round & 1 << o.index == 0)
            .copied()
            .collect()
    };
    if fresh(round).is_empty() {
        round = 0;
    }
    let fresh = fresh(round);
    let draw = treebeard_vm::random_draw(cx.agent, group.get(), round, frame.index);
    let chosen = fresh[(draw % fresh.len() as u64) as usize];
    *slot = round | 1 << chosen.index;
    Some(chosen)
}

/// One tick of a `Gate` or a `GlobalCooldown` at `node`: docs/nodes.md,
/// "Crowd nodes".
fn tick_crowd(node: NodeIdx, rule: CrowdRule, child: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    let held = cx.last.remove(&node);
    let open = cx.is_open(node, rule);
    // Inside: an admitted ticket enters, and stays while the child runs.
    // A cool-down that starts when a child succeeds lets every agent in
    // while it is ready, without asking.
    if held == Some(Ticket::Admitted) || (!rule.asks() && open) {
        if rule.asks() {
            cx.coverage.crowd_entries += 1;
        }
        // Held while the child runs: abandoning the node (a redecide limit
        // stopping the tick inside it) ends it.
        cx.tickets.insert(node, Ticket::Admitted);
        let status = tick(child, cx);
        if status == Status::Running {
            return Status::Running;
        }
        // The ticket ends with the child: a gate's slot is given back; a
        // success starts a cool-down that does not start on entry.
        cx.tickets.remove(&node);
        let kind = match rule {
            CrowdRule::Gate { .. } => {
                cx.coverage.slots_given_back += 1;
                Some(RequestKind::Leave)
            }
            CrowdRule::Cooldown {
                on_enter: false, ..
            } if status == Status::Success => {
                cx.coverage.global_cooldowns_started += 1;
                Some(RequestKind::StartCooldown)
            }
            CrowdRule::Cooldown { .. } | CrowdRule::Team { .. } => None,
        };
        if let Some(kind) = kind {
            let request = cx.request(node, ActionId(0), kind);
            cx.crowd.push(request);
        }
        return status;
    }
    // Not admitted: the node fails in this tick, its child passed over
    // first. Open, the agent asks (a refused agent keeps the frame it asks
    // since, its place); closed, it fails at once, and an agent that had
    // asked keeps its place.
    cx.pass(child.end());
    let waits = matches!(rule, CrowdRule::Gate { wait: true, .. });
    if waits && matches!(held, Some(Ticket::Refused { .. })) {
        return Status::Failure;
    }
    let since = match held {
        Some(Ticket::Waiting { since } | Ticket::Refused { since }) => {
            cx.coverage.crowd_places_kept += 1;
            since
        }
        _ => cx.world.clock().index,
    };
    if open {
        cx.coverage.crowd_asks += 1;
        cx.tickets.insert(node, Ticket::Waiting { since });
        let request = cx.request(node, ActionId(0), RequestKind::Enter);
        cx.crowd.push(request);
        if waits {
            return Status::Running;
        }
    } else {
        match rule {
            CrowdRule::Gate { .. } => cx.coverage.gates_full += 1,
            CrowdRule::Cooldown { .. } => cx.coverage.global_cooldowns_blocked += 1,
            CrowdRule::Team { .. } => {}
        }
        if held.is_some() && !waits {
            cx.tickets.insert(node, Ticket::Refused { since });
        }
    }
    Status::Failure
}

/// A `Team`: docs/nodes.md, "Team". A member (a seated ticket) runs its
/// role's child, and leaves the team when it succeeds or breaks out when it
/// fails; any other agent abandons what it ran below the node (a member
/// whose team broke), asks to join, keeping its place if it had asked, and
/// fails.
fn tick_team(node: NodeIdx, children: &mut [RefNode], cx: &mut Tick<'_>) -> Status {
    let held = cx.last.remove(&node);
    if let Some(Ticket::Seated(seat)) = held {
        let role = if children.len() == 1 {
            0
        } else {
            seat.role as usize
        };
        cx.coverage.crowd_entries += 1;
        cx.tickets.insert(node, Ticket::Seated(seat));
        cx.seats.push(seat);
        let status = tick(&mut children[role], cx);
        cx.seats.pop();
        if status == Status::Running {
            return Status::Running;
        }
        cx.tickets.remove(&node);
        let kind = if status == Status::Success {
            cx.coverage.teams_left += 1;
            RequestKind::LeaveTeam { seat }
        } else {
            cx.coverage.teams_broken_out += 1;
            RequestKind::BreakOut { seat }
        };
        let request = cx.request(node, ActionId(0), kind);
        cx.crowd.push(request);
        return status;
    }
    if held == Some(Ticket::Broken) {
        cx.coverage.teams_broken += 1;
    }
    for child in children.iter_mut() {
        abandon(child, cx);
    }
    let end = children.last().map_or(node.get() + 1, RefNode::end);
    cx.pass(end);
    let since = match held {
        Some(Ticket::Waiting { since } | Ticket::Refused { since }) => {
            cx.coverage.crowd_places_kept += 1;
            since
        }
        _ => cx.world.clock().index,
    };
    cx.coverage.crowd_asks += 1;
    cx.tickets.insert(node, Ticket::Waiting { since });
    let request = cx.request(node, ActionId(0), RequestKind::Enter);
    cx.crowd.push(request);
    Status::Failure
}

/// A `Sync`: docs/nodes.md, "Sync". Reached, it reports the member's
/// arrival while its team's record does not show it at `point`, and runs;
/// on a later tick it succeeds once every member still in the team has
/// reached `point`. Outside a team it fails.
fn tick_sync(node: NodeIdx, point: u32, waiting: &mut bool, cx: &mut Tick<'_>) -> Status {
    let waited = std::mem::take(waiting);
    let Some(&seat) = cx.seats.last() else {
        return Status::Failure;
    };
    let agent = cx.agent;
    let Some(team) = cx.world.crowd().and_then(|c| c.seated(agent, seat)) else {
        return Status::Failure;
    };
    if team.reached(seat.role) < point {
        let request = cx.request(node, ActionId(0), RequestKind::Arrive { seat });
        cx.crowd.push(request);
    } else if waited && team.all_reached(point) {
        cx.coverage.syncs_passed += 1;
        return Status::Success;
    }
    *waiting = true;
    Status::Running
}

/// One tick of a Spore group: docs/nodes.md, "Spore deciders".
fn tick_group(group: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    let RefNode::Group {
        node,
        policy,
        limit,
        behavior,
        children,
        active,
        slot,
    } = group
    else {
        unreachable!("tick_group ticks groups")
    };
    let (node, policy, limit) = (*node, *policy, *limit);
    let (head, deciders) = children.split_at_mut(usize::from(*behavior));
    let mut behavior = head.first_mut();
    let was_active = active.take();

    // The group behavior is ticked first; its end ends the group, and its
    // active path is cancelled.
    if let Some(b) = behavior.as_deref_mut() {
        let status = tick(b, cx);
        if status != Status::Running {
            cx.coverage.group_behaviors_ended += 1;
            for d in deciders.iter_mut() {
                abandon(d, cx);
            }
            return status;
        }
    }

    // Hysteresis: the active decider is not asked again; a prioritized
    // group asks the deciders before it, and the first that accepts takes
    // over, the old path cancelled first. Without an active decider, the
    // group chooses.
    let mut chosen = match was_active {
        Some(k) => {
            let earlier = if policy == GroupPolicy::Prioritized {
                first_accepting(&mut deciders[..k], 0, cx)
            } else {
                None
            };
            if earlier.is_some() {
                cx.coverage.group_take_overs += 1;
                abandon(&mut deciders[k], cx);
            }
            earlier.or(Some(Offer {
                index: k,
                score: 1.0,
                block: 0,
            }))
        }
        None => choose(node, deciders, policy, 0, None, slot, cx),
    };

    let mut masked = 0u64;
    let mut redecides = 0u64;
    let mut last_ended = None;
    loop {
        let Some(offer) = chosen else {
            // Nothing chosen: the group ends with the status of the child
            // that ended last, or failure; its behavior is cancelled.
            if last_ended.is_some() {
                cx.coverage.group_pop_ups += 1;
            } else if was_active.is_none() {
                cx.found_nothing = Some(node);
            }
            if let Some(b) = behavior.as_deref_mut() {
                abandon(b, cx);
            }
            return last_ended.unwrap_or(Status::Failure);
        };
        cx.block = offer.block;
        let status = tick(&mut deciders[offer.index], cx);
        cx.block = 0;
        if status == Status::Running {
            *active = Some(offer.index);
            return Status::Running;
        }
        // Its child ended: choose again in this tick, with it masked.
        masked |= 1 << offer.index;
        // Masks bound the choices by the deciders: only a child that broke
        // the subset rule counts against the limit.
        redecides += u64::from(std::mem::take(&mut cx.violated));
        last_ended = Some(status);
        if redecides > limit {
            cx.coverage.redecide_limits += 1;
            cx.aborted = Some(node);
            std::panic::resume_unwind(Box::new(RedecideLimit));
        }
        // A group whose decider has `redecide` asks that decider again.
        if let Some(at) = cx.redeciders.iter().rposition(|r| r.group == node) {
            let mut r = cx.redeciders.remove(at);
            let decide = r.decide.map(|n| (n, r.memory.as_mut()));
            let accepts = match ask_own(&r.params, decide, &mut r.slot, cx) {
                Asked::Rejected => false,
                Asked::Accepted(..) => true,
                Asked::Delegates => {
                    let mut best = None;
                    for decider in deciders.iter_mut() {
                        if let Some((score, _)) = ask(decider, cx)
                            && best.is_none_or(|s| score > s)
                        {
                            best = Some(score);
                        }
                    }
                    if best.is_some() {
                        cx.coverage.delegations += 1;
                    }
                    best.is_some()
                }
            };
            cx.redeciders.insert(at, r);
            if !accepts {
                cx.coverage.redecides_refused += 1;
                if let Some(b) = behavior.as_deref_mut() {
                    abandon(b, cx);
                }
                return status;
            }
        }
        cx.coverage.masked_redecides += 1;
        let after = (policy == GroupPolicy::Sequential).then_some(offer.index);
        chosen = choose(node, deciders, policy, masked, after, slot, cx);
    }
}

/// The reference node for the item `at` of `shape`, with its subtree.
fn ref_node(shape: &Shape, at: NodeIdx) -> RefNode {
    let children = || {
        shape
            .children(at)
            .map(|c| ref_node(shape, c))
            .collect::<Vec<_>>()
    };
    let only = || ref_node(shape, NodeIdx::new(at.get() + 1));
    // The duration of `Timeout`, `Wait` and `Cooldown`: an `f64`'s bits.
    let seconds = || f64::from_bits(shape.params(at)[0]);
    let item = shape.item(at);
    match shape.kind(at) {
        Kind::Sequence => RefNode::sequence(at, children()),
        Kind::ReactiveSequence => RefNode::reactive_sequence(at, children()),
        Kind::IfThenElse => RefNode::if_then_else(at, children()),
        Kind::SequenceWithMemory => RefNode::SequenceWithMemory {
            node: at,
            children: children(),
            position: 0,
        },
        Kind::AsyncSequence | Kind::AsyncSelector => RefNode::Async {
            node: at,
            children: children(),
            selector: shape.kind(at) == Kind::AsyncSelector,
            position: 0,
            yielded: false,
        },
        Kind::WhileDoElse => RefNode::WhileDoElse {
            node: at,
            children: children(),
        },
        Kind::PrioritySelector => RefNode::priority(at, children()),
        Kind::Selector => RefNode::selector(at, children()),
        Kind::Inverter => RefNode::inverter(at, only()),
        Kind::ForceSuccess => RefNode::force_success(at, only()),
        Kind::ForceFailure => RefNode::force_failure(at, only()),
        Kind::Concurrent => {
            let children = children();
            RefNode::Concurrent {
                node: at,
                finished: vec![None; children.len()],
                children,
                succeed_at: usize::from(item.a()),
                fail_at: usize::from(item.b()),
                max_failures: None,
            }
        }
        Kind::ParallelAll => {
            let children = children();
            let n = children.len();
            RefNode::Concurrent {
                node: at,
                finished: vec![None; n],
                children,
                succeed_at: n + 1,
                fail_at: n + 1,
                max_failures: Some(shape.params(at)[0] as usize),
            }
        }
        Kind::Loop | Kind::LoopUntilSuccess => RefNode::looped(
            at,
            shape.kind(at) == Kind::LoopUntilSuccess,
            shape.params(at)[0],
            only(),
        )
        .again(shape.params(at)[1] != 0),
        Kind::Timeout => RefNode::timeout(at, seconds(), only()),
        Kind::Wait => RefNode::wait(at, seconds()),
        Kind::Cooldown => RefNode::cooldown(at, seconds(), only()),
        Kind::Scope => RefNode::scope(at, only()),
        Kind::Gate => RefNode::Crowd {
            node: at,
            rule: CrowdRule::Gate {
                max: shape.params(at)[0] as u32,
                wait: shape.params(at)[1] != 0,
            },
            child: Box::new(only()),
        },
        Kind::GlobalCooldown => RefNode::Crowd {
            node: at,
            rule: CrowdRule::Cooldown {
                seconds: seconds(),
                on_enter: shape.params(at)[1] != 0,
            },
            child: Box::new(only()),
        },
        Kind::Team => RefNode::Team {
            node: at,
            size: shape.params(at)[0] as u32,
            children: children(),
        },
        Kind::Sync => RefNode::Sync {
            node: at,
            point: shape.params(at)[0] as u32,
            waiting: false,
        },
        Kind::ChildTree => RefNode::ChildTree {
            node: at,
            children: children(),
            names: shape
                .children(at)
                .map(|c| shape.node(c).name.clone())
                .collect(),
            injected: 0,
        },
        Kind::Script => RefNode::Script {
            node: at,
            script: shape.params(at)[0],
        },
        Kind::AlwaysSuccess => RefNode::Always {
            node: at,
            status: Status::Success,
        },
        Kind::AlwaysFailure => RefNode::Always {
            node: at,
            status: Status::Failure,
        },
        Kind::AssertScript | Kind::AssertCondition => RefNode::Assert {
            node: at,
            test: shape.params(at)[0],
            read_only: shape.kind(at) == Kind::AssertCondition,
        },
        Kind::ScriptGate | Kind::IfCondition | Kind::IfTime => {
            let params = shape.params(at);
            let test = match shape.kind(at) {
                Kind::ScriptGate => GateTest::Script(params[0]),
                Kind::IfCondition => GateTest::Condition(params[0]),
                _ => GateTest::Time(time_test(params)),
            };
            RefNode::Gate {
                node: at,
                test,
                child: Box::new(only()),
                running: false,
            }
        }
        Kind::ScriptWrapper => RefNode::ScriptWrapper {
            node: at,
            enter: shape.params(at)[0],
            exit: shape.params(at)[1],
            halted: shape.params(at)[2],
            child: Box::new(only()),
            open: false,
        },
        Kind::WaitUntilTime => RefNode::WaitUntilTime {
            node: at,
            test: time_test(shape.params(at)),
            running: false,
        },
        Kind::WaitForEvent => RefNode::WaitForEvent {
            node: at,
            event: EventId(shape.params(at)[0] as u32),
            waiting: None,
        },
        Kind::SendEvent => RefNode::SendEvent {
            node: at,
            event: EventId(shape.params(at)[0] as u32),
            to: IntInput::Input(shape.params(at)[1]),
        },
        Kind::PostStimulus => {
            let stimulus = shape.params(at)[0] as usize;
            RefNode::PostStimulus {
                node: at,
                stimulus,
                seconds: shape.stimuli()[stimulus].seconds,
                data: IntInput::Input(shape.params(at)[1]),
            }
        }
        Kind::StoredState => RefNode::StoredState {
            node: at,
            child: Box::new(only()),
        },
        Kind::Repeat => RefNode::Repeat {
            node: at,
            child: Box::new(only()),
        },
        Kind::Monitor => RefNode::Monitor {
            node: at,
            child: Box::new(only()),
            registered: false,
        },
        Kind::Condition => RefNode::condition(at),
        Kind::Action => {
            let persistent = shape.import(at).is_some_and(|i| i.persistent);
            RefNode::action(at, persistent).with_memory(memory_words(shape, at))
        }
        Kind::Deferred => RefNode::deferred(at, ActionId(item.import())),
        Kind::Decide => RefNode::Decide {
            node: at,
            memory: None,
        }
        .with_memory(memory_words(shape, at)),
        Kind::Group => {
            let params = shape.params(at);
            let children = children();
            RefNode::Group {
                node: at,
                policy: GroupPolicy::from_word(params[0]).unwrap_or(GroupPolicy::Prioritized),
                limit: params[1],
                behavior: matches!(children.first(), Some(RefNode::Action { .. })),
                children,
                active: None,
                slot: Kind::Group.owns_slot(params).then_some(0),
            }
        }
        Kind::Decider => {
            let params = shape.params(at);
            RefNode::Decider {
                node: at,
                params: DeciderParams::from_words(params),
                children: children(),
                slot: Kind::Decider.owns_slot(params).then_some(0),
            }
        }
    }
}

/// A time test from its parameter words: the timestamp, the seconds (an
/// `f64`'s bits), `less_than` and `or_never`.
fn time_test(params: &[u64]) -> TimeTest {
    TimeTest {
        since: params[0] as usize,
        seconds: f64::from_bits(params[1]),
        less_than: params[2] != 0,
        or_never: params[3] != 0,
    }
}

#[cfg(test)]
mod tests {
    //! The reference checked by hand against docs/nodes.md, independently
    //! of the VM.

    use super::*;
    use crate::script::{Event, World};

    const AGENT: AgentId = AgentId(0);

    fn n(i: u32) -> NodeIdx {
        NodeIdx::new(i)
    }

    fn launch(i: u32) -> Request {
        Request {
            agent: AGENT,
            node: n(i),
            action: ActionId(0),
            kind: RequestKind::Launch,
        }
    }

    fn cancel(i: u32) -> Request {
        Request {
            kind: RequestKind::Cancel,
            ..launch(i)
        }
    }

    fn policy(succeed: Count, fail: Count) -> Policy {
        Policy { succeed, fail }
    }

    /// Leaves for a lone `PostStimulus`: a clock and an int input.
    struct Posting {
        time: f64,
        data: Option<i64>,
    }

    impl RefLeaves for Posting {
        fn condition(&mut self, _: NodeIdx) -> bool {
            false
        }

        fn action(
            &mut self,
            _: NodeIdx,
            _: Signal,
            _: &mut u32,
            _: Option<&mut u32>,
            _: Option<&mut MemoryBlock>,
        ) -> Status {
            Status::Failure
        }

        fn clock(&self) -> Frame {
            Frame {
                time: self.time,
                ..Frame::default()
            }
        }

        fn input_int(&self, _: u64) -> Option<i64> {
            self.data
        }
    }

    #[test]
    fn post_stimulus_posts_for_its_seconds_and_restarts() {
        // 0 PostStimulus(stimulus 1, 2 seconds)
        let post = RefNode::PostStimulus {
            node: n(0),
            stimulus: 1,
            seconds: 2.0,
            data: IntInput::Input(0),
        };
        let memory = Memory {
            stimuli: 2,
            ..Memory::default()
        };
        let mut r = Reference::with_memory(post, memory);
        assert_eq!(r.stimulus(1, 0.0), None);
        let mut world = Posting {
            time: 1.0,
            data: Some(7),
        };
        assert_eq!(r.tick(&mut world, AGENT).status, Status::Success);
        assert_eq!(r.stimulus(1, 1.0), Some(7));
        assert_eq!(r.stimulus(1, 2.75), Some(7));
        assert_eq!(r.stimulus(1, 3.0), None);
        assert_eq!(r.stimulus(0, 1.0), None);
        // Posting again restarts it and replaces the datum.
        world = Posting {
            time: 2.0,
            data: Some(-1),
        };
        assert_eq!(r.tick(&mut world, AGENT).status, Status::Success);
        assert_eq!(r.stimulus(1, 3.5), Some(u32::MAX));
        // A datum past 32 bits, or a field without an int, posts nothing.
        for data in [Some(i64::from(u32::MAX) + 1), None] {
            world = Posting { time: 5.0, data };
            assert_eq!(r.tick(&mut world, AGENT).status, Status::Failure);
            assert_eq!(r.stimulus(1, 5.0), None);
        }
        // Game code posts too, for the seconds it gives.
        r.post_stimulus(0, 9, 6.0, 0.5);
        assert_eq!(r.stimulus(0, 6.25), Some(9));
        assert_eq!(r.stimulus(0, 6.5), None);
    }

    #[test]
    fn post_stimulus_takes_a_literal_datum() {
        // 0 PostStimulus(stimulus 0, 0.5 seconds, data -3)
        let post = RefNode::PostStimulus {
            node: n(0),
            stimulus: 0,
            seconds: 0.5,
            data: IntInput::Literal(-3),
        };
        let memory = Memory {
            stimuli: 1,
            ..Memory::default()
        };
        let mut r = Reference::with_memory(post, memory);
        // The leaves' input is not read.
        let mut world = Posting {
            time: 0.0,
            data: None,
        };
        assert_eq!(r.tick(&mut world, AGENT).status, Status::Success);
        assert_eq!(r.stimulus(0, 0.25), Some(-3i32 as u32));
        assert_eq!(r.coverage().stimuli_posted, 1);
    }

    #[test]
    fn priority_cancels_lower_priority_work_when_a_higher_child_runs() {
        // 0 priority(1 c, 2 a, 3 d)
        let mut r = Reference::new(RefNode::priority(
            n(0),
            vec![
                RefNode::condition(n(1)),
                RefNode::action(n(2), false),
                RefNode::deferred(n(3), ActionId(0)),
            ],
        ));
        let mut w = World::new();
        w.set(2, Status::Failure);
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Running);
        assert_eq!(out.requests, vec![launch(3)]);
        w.take_log();

        w.set(2, Status::Running);
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Running);
        assert_eq!(out.requests, vec![cancel(3)]);
        assert_eq!(
            w.take_log(),
            vec![
                Event::Condition(n(1), false),
                Event::Action(n(2), Signal::Start, 0, Status::Running),
            ]
        );

        // The condition now wins: the running action gets its cancel call.
        w.set(1, Status::Success);
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Success);
        assert!(out.requests.is_empty());
        assert_eq!(
            w.take_log(),
            vec![
                Event::Condition(n(1), true),
                Event::Action(n(2), Signal::Cancel, 1, Status::Failure),
            ]
        );
        assert!(r.is_idle());
    }

    #[test]
    fn sequence_resumes_at_the_running_child() {
        // 0 sequence(1 c, 2 d)
        let mut r = Reference::new(RefNode::sequence(
            n(0),
            vec![
                RefNode::condition(n(1)),
                RefNode::deferred(n(2), ActionId(0)),
            ],
        ));
        let mut w = World::new();
        w.set(1, Status::Success);
        assert_eq!(r.tick(&mut w, AGENT).requests, vec![launch(2)]);
        assert_eq!(
            r.remembered().deciders,
            vec![DeciderState::Resume {
                node: n(0),
                child: n(2)
            }]
        );
        w.take_log();
        assert_eq!(r.complete(n(2), Outcome::Running), Ok(()));
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Running);
        assert!(w.take_log().is_empty(), "the condition is not ticked again");
        assert_eq!(r.complete(n(2), Outcome::Success), Ok(()));
        assert_eq!(r.complete(n(2), Outcome::Failure), Err(Stale::AlreadyDone));
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Success);
        assert_eq!(r.complete(n(2), Outcome::Success), Err(Stale::NotRunning));
        assert!(r.is_idle());
    }

    #[test]
    fn selector_resumes_at_the_running_child_and_moves_on_after_its_failure() {
        // 0 selector(1 c, 2 a, 3 a)
        let mut r = Reference::new(RefNode::selector(
            n(0),
            vec![
                RefNode::condition(n(1)),
                RefNode::action(n(2), false),
                RefNode::action(n(3), false),
            ],
        ));
        let mut w = World::new();
        w.set(2, Status::Running).set(3, Status::Success);
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Running);
        assert_eq!(
            w.take_log(),
            vec![
                Event::Condition(n(1), false),
                Event::Action(n(2), Signal::Start, 0, Status::Running),
            ]
        );
        assert_eq!(
            r.remembered().deciders,
            vec![DeciderState::Resume {
                node: n(0),
                child: n(2)
            }]
        );
        // The condition is not tested again; the resumed child's failure
        // moves on to the next child in the same tick.
        w.set(1, Status::Success).set(2, Status::Failure);
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Success);
        assert_eq!(
            w.take_log(),
            vec![
                Event::Action(n(2), Signal::Tick, 1, Status::Failure),
                Event::Action(n(3), Signal::Start, 0, Status::Success),
            ]
        );
        assert!(r.is_idle());
        assert_eq!(r.coverage().selector_resumes, 1);
        assert_eq!(r.coverage().selector_moves_after_resume, 1);
        // Completed, it starts from its first child.
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Success);
        assert_eq!(w.take_log(), vec![Event::Condition(n(1), true)]);
    }

    #[test]
    fn selector_abandoned_forgets_its_resume_point() {
        // 0 priority(1 c, 2 selector(3 a, 4 d))
        let mut r = Reference::new(RefNode::priority(
            n(0),
            vec![
                RefNode::condition(n(1)),
                RefNode::selector(
                    n(2),
                    vec![
                        RefNode::action(n(3), false),
                        RefNode::deferred(n(4), ActionId(0)),
                    ],
                ),
            ],
        ));
        let mut w = World::new();
        assert_eq!(r.tick(&mut w, AGENT).requests, vec![launch(4)]);
        assert_eq!(
            r.remembered().deciders,
            vec![DeciderState::Resume {
                node: n(2),
                child: n(4)
            }]
        );
        w.set(1, Status::Success);
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Success);
        assert_eq!(out.requests, vec![cancel(4)]);
        assert!(r.is_idle());
        assert_eq!(r.coverage().selector_resumes_abandoned, 1);
    }

    #[test]
    fn decorators_map_finished_statuses_and_pass_running_through() {
        // 0 sequence(1 inverter(2 a), 3 force_success(4 a), 5 force_failure(6 a))
        let mut r = Reference::new(RefNode::sequence(
            n(0),
            vec![
                RefNode::inverter(n(1), RefNode::action(n(2), false)),
                RefNode::force_success(n(3), RefNode::action(n(4), false)),
                RefNode::force_failure(n(5), RefNode::action(n(6), false)),
            ],
        ));
        let mut w = World::new();
        w.set(6, Status::Running);
        // 2 fails: the inverter succeeds; 4 fails: forced to success; 6 runs
        // and so does its decorator.
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Running);
        assert_eq!(
            r.remembered().deciders,
            vec![DeciderState::Resume {
                node: n(0),
                child: n(5)
            }]
        );
        // 6 succeeds: forced to failure, which fails the sequence.
        w.take_log();
        w.set(6, Status::Success);
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Failure);
        assert_eq!(
            w.take_log(),
            vec![Event::Action(n(6), Signal::Tick, 1, Status::Success)]
        );
        assert!(r.is_idle());
        assert_eq!(r.coverage().decorator_changes, 3);
        // 2 succeeds: the inverter fails the sequence at once.
        w.set(2, Status::Success);
        assert_eq!(r.tick(&mut w, AGENT).status, Status::Failure);
        assert_eq!(
            w.take_log(),
            vec![Event::Action(n(2), Signal::Start, 0, Status::Success)]
        );
    }

    #[test]
    fn concurrent_failure_rolls_back_the_tick() {
        // 0 concurrent[all, 1](1 d, 2 p, 3 a, 4 c, 5 d)
        let tree = RefNode::concurrent(
            n(0),
            policy(Count::All, Count::AtLeast(1)),
            vec![
                RefNode::deferred(n(1), ActionId(0)),
                RefNode::action(n(2), true),
                RefNode::action(n(3), false),
                RefNode::condition(n(4)),
                RefNode::deferred(n(5), ActionId(0)),
            ],
        );
        let mut r = Reference::new(tree);
        let mut w = World::new();
        w.set(2, Status::Success)
            .set(3, Status::Running)
            .set(4, Status::Success);
        // Tick 1: 1 launches, 2 succeeds (slot 1), 3 runs, 4 succeeds, 5
        // launches; nothing decides.
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Running);
        assert_eq!(out.requests, vec![launch(1), launch(5)]);
        assert_eq!(r.persistent(), vec![(n(2), 1)]);
        w.take_log();

        // Tick 2: 1 is still launched, 3 fails: the concurrent fails. The
        // deferred actions launched last tick get cancel requests.
        w.set(3, Status::Failure);
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Failure);
        assert_eq!(out.requests, vec![cancel(1), cancel(5)]);
        assert!(r.is_idle());

        // Tick 3: 1 launches again and 2 succeeds, then 3 fails at once:
        // the launch is dropped and the slot change undone.
        w.take_log();
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Failure);
        assert!(out.requests.is_empty());
        assert_eq!(r.persistent(), vec![(n(2), 1)]);
        assert_eq!(r.coverage().dropped_launches, 1);
        assert_eq!(r.coverage().persistent_undos, 1);
    }

    #[test]
    fn concurrent_success_cancels_running_children_started_this_tick() {
        // 0 concurrent[1, all](1 a, 2 p, 3 d)
        let tree = RefNode::concurrent(
            n(0),
            policy(Count::AtLeast(1), Count::All),
            vec![
                RefNode::action(n(1), false),
                RefNode::action(n(2), true),
                RefNode::deferred(n(3), ActionId(0)),
            ],
        );
        let mut r = Reference::new(tree);
        let mut w = World::new();
        w.set(1, Status::Running).set(2, Status::Success);
        let out = r.tick(&mut w, AGENT);
        assert_eq!(out.status, Status::Success);
        assert!(out.requests.is_empty());
        assert_eq!(
            w.take_log(),
            vec![
                Event::Action(n(1), Signal::Start, 0, Status::Running),
                Event::Action(n(2), Signal::Start, 0, Status::Success),
                Event::Action(n(1), Signal::Cancel, 1, Status::Failure),
            ]
        );
        // A success keeps the slot change.
        assert_eq!(r.persistent(), vec![(n(2), 1)]);
    }

    #[test]
    fn concurrent_fail_threshold_is_lowered_to_what_makes_success_unreachable() {
        let tree = RefNode::concurrent(
            n(0),
            policy(Count::AtLeast(2), Count::All),
            vec![
                RefNode::condition(n(1)),
                RefNode::condition(n(2)),
                RefNode::condition(n(3)),
            ],
        );
        let RefNode::Concurrent {
            succeed_at,
            fail_at,
            ..
        } = tree
        else {
            unreachable!()
        };
        assert_eq!((succeed_at, fail_at), (2, 2));
    }

    /// The memory kinds, with the scripts and declarations of
    /// [`crate::Spec`] (`v0` false, `v1` true, `v2` false; `e0` sets `v0`
    /// and `t0`, `e1` clears `v0` and `v1` and sets `t1`, clearing `t0`;
    /// `e2` sets `v2` and `t2`).
    mod memory {
        use super::*;
        use crate::r#gen::{Spec, TimeSpec};
        use crate::harness::RefWorld;
        use treebeard_vm::Program;

        /// An agent of `spec` on the reference, with its world and program.
        struct Agent {
            reference: Reference,
            world: World,
            program: Program<World>,
            frame: Frame,
        }

        impl Agent {
            fn new(spec: &Spec) -> Agent {
                Agent {
                    reference: spec.to_reference(),
                    world: World::new(),
                    program: spec.compile(),
                    frame: Frame::default(),
                }
            }

            fn tick(&mut self) -> TickOutput {
                self.traced().0
            }

            fn traced(&mut self) -> (TickOutput, Vec<(NodeIdx, TraceEvent)>) {
                let mut leaves = RefWorld {
                    world: &mut self.world,
                    program: &self.program,
                    frame: self.frame,
                    crowd: None,
                };
                let mut trace = Vec::new();
                let out = self
                    .reference
                    .tick_traced(&mut leaves, AGENT, &mut |n, e| trace.push((n, e)));
                (out, trace)
            }

            fn send(&mut self, event: u32) -> usize {
                let mut leaves = RefWorld {
                    world: &mut self.world,
                    program: &self.program,
                    frame: self.frame,
                    crowd: None,
                };
                self.reference.send_event(&mut leaves, EventId(event))
            }
        }

        #[test]
        fn a_gate_tests_only_when_its_child_starts() {
            // 0 if[v0](1 a)
            let mut r = Agent::new(&Spec::IfCondition(0, Box::new(Spec::Act)));
            r.world.set(1, Status::Running);
            assert_eq!(r.tick().status, Status::Failure);
            assert!(r.world.take_log().is_empty(), "the child is not ticked");
            assert_eq!(r.send(0), 0);
            assert_eq!(r.tick().status, Status::Running);
            // v0 no longer holds, but the running child goes on.
            assert_eq!(r.send(1), 0);
            r.world.set(1, Status::Success);
            assert_eq!(r.tick().status, Status::Success);
            assert_eq!(
                r.world.take_log(),
                vec![
                    Event::Action(n(1), Signal::Start, 0, Status::Running),
                    Event::Action(n(1), Signal::Tick, 1, Status::Success),
                ]
            );
            // Started anew, it tests again.
            assert_eq!(r.tick().status, Status::Failure);
            assert!(r.world.take_log().is_empty());
            let c = r.reference.coverage();
            assert_eq!((c.gate_failures, c.gates_passed_running), (2, 1));
        }

        #[test]
        fn a_wrapper_whose_enter_faults_fails_and_a_cancelled_one_exits_last() {
            // 0 pri(1 c, 2 wrap["v1 = !v1; v0 || 1 / 0 == 0" | "v0 = !v0"](3 a))
            let mut r = Agent::new(&Spec::Priority(vec![
                Spec::Cond,
                Spec::ScriptWrapper {
                    enter: 4,
                    exit: 0,
                    child: Box::new(Spec::Act),
                },
            ]));
            r.world.set(3, Status::Running);
            // v0 is false: the enter script flips v1, then faults. The
            // child is not ticked and the exit does not run.
            assert_eq!(r.tick().status, Status::Failure);
            assert_eq!(r.reference.variables(), [false, false, false]);
            assert_eq!(r.world.take_log(), vec![Event::Condition(n(1), false)]);
            assert!(r.reference.is_idle());
            assert_eq!(r.send(0), 0);
            assert_eq!(r.tick().status, Status::Running);
            assert_eq!(r.reference.variables(), [true, true, false]);
            assert_eq!(
                r.world.take_log(),
                vec![
                    Event::Condition(n(1), false),
                    Event::Entered(n(2)),
                    Event::Action(n(3), Signal::Start, 0, Status::Running),
                ]
            );
            assert_eq!(
                r.reference.remembered().actions,
                vec![
                    (n(2), ActionState::Running(0)),
                    (n(3), ActionState::Running(1))
                ]
            );
            // The condition wins: the child's cancel call, then the exit
            // (its mark first).
            r.world.set(1, Status::Success);
            let (out, trace) = r.traced();
            assert_eq!(out.status, Status::Success);
            assert_eq!(
                r.world.take_log(),
                vec![
                    Event::Condition(n(1), true),
                    Event::Action(n(3), Signal::Cancel, 1, Status::Failure),
                    Event::Exited(n(2)),
                ]
            );
            assert_eq!(r.reference.variables(), [false, true, false]);
            assert_eq!(
                trace,
                vec![
                    (n(1), TraceEvent::Start),
                    (n(1), TraceEvent::Success),
                    (n(3), TraceEvent::Cancel),
                    (n(2), TraceEvent::Cancel),
                    (n(0), TraceEvent::Success),
                ]
            );
            assert!(r.reference.is_idle());
            assert_eq!(r.reference.coverage().wrapper_exits_cancelled, 1);
        }

        #[test]
        fn a_wait_for_an_event_counts_only_events_that_arrive_while_it_runs() {
            // 0 seq(1 await[e0], 2 send[e1 to -1], 3 send[e2 to -2])
            let mut r = Agent::new(&Spec::Sequence(vec![
                Spec::WaitForEvent(0),
                Spec::SendEvent { event: 1, to: -1 },
                Spec::SendEvent { event: 2, to: -2 },
            ]));
            r.frame = Frame {
                index: 3,
                time: 2.0,
                dt: 0.5,
            };
            // Before it runs: the timestamp is set, the wait does not hear.
            assert_eq!(r.send(0), 0);
            assert_eq!(r.reference.timestamps(), [Some(2.5), None, None]);
            assert_eq!(r.tick().status, Status::Running);
            assert_eq!(
                r.reference.remembered().actions,
                vec![(n(1), ActionState::Running(0))]
            );
            // Another event does not wake it; e1 clears t0, its partner.
            assert_eq!(r.send(1), 0);
            assert_eq!(r.reference.timestamps(), [None, Some(2.5), None]);
            assert_eq!(r.send(0), 1);
            assert_eq!(r.send(0), 1);
            assert_eq!(
                r.reference.remembered().actions,
                vec![(n(1), ActionState::Running(1))]
            );
            // It succeeds; the event to itself is sent, the one to -2 fails.
            let out = r.tick();
            assert_eq!(out.status, Status::Failure);
            let event = Request {
                kind: RequestKind::Event {
                    event: EventId(1),
                    to: AGENT,
                },
                ..launch(2)
            };
            assert_eq!(out.requests, vec![event]);
            assert_eq!(r.reference.coverage().events_awaited, 1);
            assert!(r.reference.is_idle());
        }

        #[test]
        fn events_follow_cancels_and_launches_and_survive_a_rollback() {
            // 0 seq(1 pri(2 c, 3 d), 4 con[all, 1](5 send[e2 to 1], 6 d, 7 a))
            let mut r = Agent::new(&Spec::Sequence(vec![
                Spec::Priority(vec![Spec::Cond, Spec::Deferred]),
                Spec::Concurrent {
                    succeed: Count::All,
                    fail: Count::AtLeast(1),
                    children: vec![
                        Spec::SendEvent { event: 2, to: 1 },
                        Spec::Deferred,
                        Spec::Act,
                    ],
                },
            ]));
            assert_eq!(r.tick().requests, vec![launch(3)]);
            // The condition wins: d 3 is cancelled; the concurrent sends,
            // launches d 6, then fails on a: the launch is dropped, the
            // event stays.
            r.world.set(2, Status::Success);
            let out = r.tick();
            assert_eq!(out.status, Status::Failure);
            let event = Request {
                agent: AGENT,
                node: n(5),
                action: ActionId(0),
                kind: RequestKind::Event {
                    event: EventId(2),
                    to: AgentId(1),
                },
            };
            assert_eq!(out.requests, vec![cancel(3), event]);
            assert_eq!(r.reference.coverage().dropped_launches, 1);
        }

        #[test]
        fn a_wait_until_time_tests_on_every_tick() {
            // 0 until[t2 > 1]
            let time = TimeSpec {
                since: 2,
                halves: 2,
                less_than: false,
                or_never: false,
            };
            let mut r = Agent::new(&Spec::WaitUntilTime(time));
            assert_eq!(r.tick().status, Status::Running, "never set");
            // Set at the start of the next tick: time 0 + dt 0.5.
            r.frame.dt = 0.5;
            assert_eq!(r.send(2), 0);
            assert_eq!(r.reference.timestamps(), [None, None, Some(0.5)]);
            for (time, status) in [
                (0.5, Status::Running),
                (1.5, Status::Running),
                (1.75, Status::Success),
            ] {
                r.frame.time = time;
                assert_eq!(r.tick().status, status, "at {time}");
            }
            // Tested on the first tick too.
            assert_eq!(r.tick().status, Status::Success);
            assert_eq!(r.reference.coverage().time_waits_done, 1);
        }
    }
}
