//! The rig: one agent running one tree over the test leaves, what a tick
//! did, and the expected values and trees the tests share.

pub(crate) use std::cell::RefCell;
pub(crate) use treebeard_shape::tree::{
    Count, Node, Policy, act, concurrent, cond, force_failure, force_success, inverter, priority,
    reactive_sequence, selector, sequence,
};
pub(crate) use treebeard_shape::{ActionId, NodeIdx};
pub(crate) use treebeard_testkit::{Event, World, leaves};
pub(crate) use treebeard_vm::Status::{Failure, Running, Success};
pub(crate) use treebeard_vm::{
    ActionState, Actor, AgentId, Call, DeciderState, Frame, Interpreter, Outcome, Program, Request,
    RequestKind, Signal, Stale, Status,
};

/// The agent every rig ticks, deliberately not 0 so requests show it.
pub(crate) const AGENT: AgentId = AgentId(3);

thread_local! {
    /// What `q` saw of its persistent slot on each call: (item, signal, value).
    static SEEN: RefCell<Vec<(u32, Signal, u32)>> = const { RefCell::new(Vec::new()) };
}

/// The test leaf `q`: an immediate action with a persistent slot that returns
/// its scripted outcome (logged like `a`), adds 1 to its slot on every start
/// or tick call, whatever it returns, and 100 when cancelled. It records
/// the slot value each call sees in [`SEEN`].
pub(crate) fn q_action(w: &mut World, call: &mut Call<'_>) -> Status {
    let node = call.node();
    let signal = call.signal();
    let mut state = call.state();
    let Some(&mut seen) = call.persistent() else {
        panic!("q owns a persistent slot");
    };
    SEEN.with(|s| s.borrow_mut().push((node.get(), signal, seen)));
    let status = w.action(node, signal, &mut state, None, None);
    *call.state_mut() = state;
    if let Some(slot) = call.persistent() {
        *slot = seen + if signal == Signal::Cancel { 100 } else { 1 };
    }
    status
}

pub(crate) fn take_seen() -> Vec<(u32, Signal, u32)> {
    SEEN.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

/// One agent running one tree.
pub(crate) struct Rig {
    pub(crate) program: Program<World>,
    pub(crate) actor: Actor,
    pub(crate) world: World,
    pub(crate) interpreter: Interpreter,
    pub(crate) frame: Frame,
}

/// What a tick (or a halt) did.
#[derive(Debug, PartialEq)]
pub(crate) struct Ticked {
    pub(crate) status: Status,
    pub(crate) calls: Vec<Event>,
    pub(crate) requests: Vec<Request>,
}

/// What the actor stores between ticks.
#[derive(Debug, PartialEq)]
pub(crate) struct Stored {
    pub(crate) deciders: Vec<DeciderState>,
    pub(crate) actions: Vec<(NodeIdx, ActionState)>,
}

impl Rig {
    pub(crate) fn new(tree: Node) -> Rig {
        let mut table = leaves();
        table.action("q", q_action).persistent();
        let program = table.compile(&tree).unwrap_or_else(|e| panic!("{e}"));
        let actor = Actor::for_shape(program.shape());
        take_seen();
        Rig {
            program,
            actor,
            world: World::new(),
            interpreter: Interpreter::new(),
            frame: Frame::default(),
        }
    }

    /// From now on, each listed leaf returns its status.
    pub(crate) fn set(&mut self, outcomes: &[(u32, Status)]) -> &mut Rig {
        for &(node, status) in outcomes {
            self.world.set(node, status);
        }
        self
    }

    pub(crate) fn tick(&mut self) -> Ticked {
        let mut requests = Vec::new();
        let status = self.interpreter.tick(
            &self.program,
            &self.frame,
            AGENT,
            &mut self.actor.as_mut(),
            &mut self.world,
            &mut requests,
        );
        self.frame = self.frame.next(0.1);
        self.world.tick += 1;
        Ticked {
            status,
            calls: self.world.take_log(),
            requests,
        }
    }

    /// Halts the agent; `status` of the result is meaningless (Failure).
    pub(crate) fn halt(&mut self) -> (Vec<Event>, Vec<Request>) {
        let mut requests = Vec::new();
        self.interpreter.halt(
            &self.program,
            &self.frame,
            AGENT,
            &mut self.actor.as_mut(),
            &mut self.world,
            &mut requests,
        );
        (self.world.take_log(), requests)
    }

    pub(crate) fn complete(&mut self, node: u32, outcome: Outcome) -> Result<(), Stale> {
        self.actor.as_mut().complete(NodeIdx::new(node), outcome)
    }

    /// What the actor stores between ticks, with the resume points its
    /// running leaf implies written out: a sequence, selector or
    /// if-then-else of plain kinds keeps none, and resumes at the child
    /// holding its sub-tree's action state (`Shape::resume_implied`). So
    /// the tests state where every decider resumes, whichever way the
    /// actor tells it (`implied_resume_points_are_not_stored` checks the
    /// raw actor).
    pub(crate) fn stored(&self) -> Stored {
        let actor = self.actor.as_ref();
        let shape = self.program.shape();
        let actions: Vec<(NodeIdx, ActionState)> = actor.actions().collect();
        let mut deciders: Vec<DeciderState> = actor.deciders().collect();
        for node in (0..shape.len() as u32).map(NodeIdx::new) {
            if !shape.resume_implied(node) {
                continue;
            }
            let end = shape.subtree_end(node);
            let Some(&(held, _)) = actions.iter().find(|&&(a, _)| node < a && a < end) else {
                continue;
            };
            let child = shape
                .children(node)
                .find(|&c| c <= held && held < shape.subtree_end(c))
                .expect("a child holds it");
            if child.get() != node.get() + 1 {
                deciders.push(DeciderState::Resume { node, child });
            }
        }
        deciders.sort_by_key(|d| match *d {
            DeciderState::Resume { node, .. } => (node.get(), 0),
            DeciderState::Done { node, success } => (node.get(), 1 + u32::from(!success)),
            DeciderState::Value { node, .. } => (node.get(), 3),
            DeciderState::Monitor { node } => (node.get(), 4),
        });
        Stored { deciders, actions }
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.actor.as_ref().is_idle()
    }

    /// The persistent slots, memory blocks aside (see `Rig::memory`).
    pub(crate) fn persistent(&self) -> Vec<u32> {
        let shape = self.program.shape();
        let words = self.actor.as_ref().persistent();
        (0..words.len())
            .filter(|&slot| {
                let node = shape.persistent_map()[slot];
                shape.memory_slots(node).is_none_or(|m| !m.contains(&slot))
            })
            .map(|slot| words[slot])
            .collect()
    }

    /// The memory block of the leaf at item `node`.
    pub(crate) fn memory(&self, node: u32) -> Vec<u32> {
        let slots = self.program.shape().memory_slots(NodeIdx::new(node));
        let words = self.actor.as_ref().persistent();
        slots.map_or_else(Vec::new, |m| words[m].to_vec())
    }

    /// Asserts that nothing is stored.
    pub(crate) fn assert_idle(&self) {
        assert_eq!(self.stored(), idle());
        assert!(self.is_idle());
    }
}

// Expected values.

pub(crate) fn n(node: u32) -> NodeIdx {
    NodeIdx::new(node)
}

/// A tick that made no requests.
pub(crate) fn ran<const N: usize>(status: Status, calls: [Event; N]) -> Ticked {
    Ticked {
        status,
        calls: calls.to_vec(),
        requests: Vec::new(),
    }
}

/// A tick that made requests.
pub(crate) fn ran_with<const N: usize, const M: usize>(
    status: Status,
    calls: [Event; N],
    requests: [Request; M],
) -> Ticked {
    Ticked {
        status,
        calls: calls.to_vec(),
        requests: requests.to_vec(),
    }
}

/// The condition at `node` was tested and returned `result`.
pub(crate) fn tested(node: u32, result: bool) -> Event {
    Event::Condition(n(node), result)
}

/// The action at `node` was started (state 0) and returned `status`.
pub(crate) fn start(node: u32, status: Status) -> Event {
    Event::Action(n(node), Signal::Start, 0, status)
}

/// The running action at `node` was ticked with `state` and returned `status`.
pub(crate) fn tick(node: u32, state: u32, status: Status) -> Event {
    Event::Action(n(node), Signal::Tick, state, status)
}

/// The running action at `node` was cancelled with `state`.
pub(crate) fn cancel(node: u32, state: u32) -> Event {
    // The test actions return Failure on a cancel call (ignored by the VM).
    Event::Action(n(node), Signal::Cancel, state, Failure)
}

pub(crate) fn request(node: u32, kind: RequestKind) -> Request {
    Request {
        agent: AGENT,
        node: n(node),
        // `d` is the only deferred leaf, so always import 0.
        action: ActionId(0),
        kind,
    }
}

pub(crate) fn launch(node: u32) -> Request {
    request(node, RequestKind::Launch)
}

pub(crate) fn cancel_request(node: u32) -> Request {
    request(node, RequestKind::Cancel)
}

pub(crate) fn stored<const N: usize, const M: usize>(
    deciders: [DeciderState; N],
    actions: [(u32, ActionState); M],
) -> Stored {
    Stored {
        deciders: deciders.to_vec(),
        actions: actions.iter().map(|&(node, s)| (n(node), s)).collect(),
    }
}

pub(crate) fn idle() -> Stored {
    stored([], [])
}

/// The sequence or selector at `node` resumes at `child`.
pub(crate) fn resume(node: u32, child: u32) -> DeciderState {
    DeciderState::Resume {
        node: n(node),
        child: n(child),
    }
}

/// The concurrent child at `node` finished earlier, with success or not.
pub(crate) fn done(node: u32, success: bool) -> DeciderState {
    DeciderState::Done {
        node: n(node),
        success,
    }
}

pub(crate) fn running(state: u32) -> ActionState {
    ActionState::Running(state)
}

pub(crate) fn a() -> Node {
    act("a")
}

pub(crate) fn policy(succeed: Count, fail: Count) -> Policy {
    Policy { succeed, fail }
}

// Trees of the decider matrix. Each is numbered 0 decider, 1..=3 children
// (or, with a guard above it, 0 priority, 1 c, 2 decider, 3..=5 children).

pub(crate) fn sequence3() -> Node {
    sequence([a(), a(), a()])
}

pub(crate) fn priority3() -> Node {
    priority([a(), a(), a()])
}

pub(crate) fn concurrent3() -> Node {
    concurrent([a(), a(), a()])
}

pub(crate) fn selector3() -> Node {
    selector([a(), a(), a()])
}

pub(crate) fn reactive3() -> Node {
    reactive_sequence([a(), a(), a()])
}

/// 0 concurrent, 1 a, 2 a, 3 a, succeeding when two of the three succeed.
pub(crate) fn succeed_at_two() -> Node {
    concurrent3().policy(policy(Count::AtLeast(2), Count::All))
}

/// Ticks `succeed_at_two` once with all three children running.
pub(crate) fn all_running(rig: &mut Rig) {
    rig.set(&[(1, Running), (2, Running), (3, Running)]);
    assert_eq!(
        rig.tick(),
        ran(
            Running,
            [start(1, Running), start(2, Running), start(3, Running)]
        )
    );
    assert_eq!(
        rig.stored(),
        stored([], [(1, running(1)), (2, running(1)), (3, running(1))])
    );
}

/// `decider` below a priority whose first child, the condition 1, abandons
/// it by succeeding.
pub(crate) fn guarded(decider: Node) -> Node {
    priority([cond("c"), decider])
}
