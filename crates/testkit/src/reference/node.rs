//! The reference's tree: one [`RefNode`] per shape item, holding its
//! own state, and the data its nodes keep.

use super::*;

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
    pub(super) fn end(&self) -> u32 {
        let mut nodes = Vec::new();
        self.walk(&mut nodes);
        self.index().get() + nodes.len() as u32
    }

    /// Every node of the subtree, in pre-order.
    pub(super) fn walk<'n>(&'n self, out: &mut Vec<&'n RefNode>) {
        out.push(self);
        for child in self.children() {
            child.walk(out);
        }
    }

    pub(super) fn walk_mut(&mut self, f: &mut impl FnMut(&mut RefNode)) {
        f(self);
        for child in self.children_mut() {
            child.walk_mut(f);
        }
    }

    /// The persistent slots of the subtree's `p` leaves, then its memory
    /// blocks' words, in pre-order.
    pub(super) fn persistent_values(&self) -> Vec<u32> {
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
    pub(super) fn restore_persistent_values(&mut self, values: &[u32]) {
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
