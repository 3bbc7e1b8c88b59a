//! What runs a scenario's agents: the [`Engine`] trait, and [`Vm`], the
//! stream interpreter (or a compiled tree, plain) as one.

use crate::leaves::Agent;
use treebeard_shape::NodeIdx;
use treebeard_vm::observe::{Both, Events};
use treebeard_vm::{
    Actors, AgentId, CompiledTree, EngineError, EventId, Frame, Interpreter, Observer, Outcome,
    Program, Request, Stale, Status, TraceEvent,
};

/// What runs a scenario's agents: the stream interpreter ([`Vm`]), or
/// another implementation to compare with it.
pub trait Engine {
    /// Ticks agent `agent`, appending its requests and reporting its trace.
    fn tick(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        requests: &mut Vec<Request>,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> Status;
    /// Applies a game system's report on a deferred action.
    fn complete(&mut self, agent: u32, node: NodeIdx, outcome: Outcome) -> Result<(), Stale>;
    /// Sends an event to the agent between ticks; `frame` is the last
    /// tick's (see `Interpreter::send_event`).
    fn send_event(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        event: EventId,
    ) -> usize;
    /// The agent's leaves with running work, in item order.
    fn running(&self, agent: u32) -> Vec<NodeIdx>;
    /// Posts the agent's stimulus `stimulus` with `data`, active from `now`
    /// for `seconds` (as game code does, between ticks).
    fn post_stimulus(&mut self, agent: u32, stimulus: usize, data: u32, now: f64, seconds: f64);
    /// The agent's stimuli active at `now`: bit `i` for stimulus `i`.
    fn stimuli(&self, agent: u32, now: f64) -> u32;
    /// The words of the agent's tree entries, by index.
    fn entries(&self, agent: u32) -> Vec<u64>;
    /// After every agent's tick at `frame`: settles the round's requests
    /// (every agent's, in agent order) for the tree's gates and global
    /// cool-downs, as a crowd does after a tick (see `Program::settle`).
    fn settle(&mut self, frame: &Frame, requests: &[Request]);
    /// The crowd state: the words of the tree's `Gate` and
    /// `GlobalCooldown` nodes, in item order (`Program::globals`).
    fn globals(&self) -> Vec<(NodeIdx, u64)>;
    /// Between ticks: injects the connector's child tree `tree` (its
    /// position plus one; 0: none) into the agent (`Program::inject`).
    fn inject(&mut self, agent: u32, connector: NodeIdx, tree: u32);
    /// Whether the engine reports its ticks' trace events; a run on one
    /// that does not (compiled code has no hooks) skips the trace checks.
    fn traces(&self) -> bool {
        true
    }
}

/// The stream interpreter as an [`Engine`], telling observer `O` (none by
/// default) about the ticks it watches (see [`Vm::observed`]).
pub struct Vm<O = ()> {
    pub(super) program: Program<Agent>,
    pub(super) actors: Actors,
    pub(super) interpreter: Interpreter,
    pub(super) observer: O,
    /// Plain ticks, on the program's engine (see [`Prepared::compiled_vm`](super::Prepared::compiled_vm)),
    /// rather than observed ones.
    pub(super) plain: bool,
}

impl Vm {
    /// The stream interpreter running `program` for `agents` agents.
    pub(crate) fn new(program: Program<Agent>, agents: usize) -> Vm {
        Vm {
            actors: Actors::new(
                treebeard_vm::ActorLayout::for_shape(program.shape()),
                agents,
            ),
            interpreter: Interpreter::with_capacity(program.spec()),
            program,
            observer: (),
            plain: false,
        }
    }

    /// The same engine on the compiled tree `tree`, with plain ticks (see
    /// `Prepared::compiled_vm`).
    pub(crate) fn compiled(mut self, tree: CompiledTree<Agent>) -> Result<Vm, EngineError> {
        self.program = self.program.with_compiled(tree)?;
        self.plain = true;
        Ok(self)
    }
}

impl<O> Vm<O> {
    /// The same engine, telling `observer` about every tick of the agents
    /// it watches (a recorder, a profile, a decision trace), besides
    /// reporting the trace events to the runner.
    pub fn observed<P: Observer>(self, observer: P) -> Vm<P> {
        Vm {
            program: self.program,
            actors: self.actors,
            interpreter: self.interpreter,
            observer,
            plain: self.plain,
        }
    }

    /// Agent `agent`'s actor.
    ///
    /// # Panics
    /// If there is no such agent.
    pub fn actor(&self, agent: u32) -> treebeard_vm::ActorRef<'_> {
        self.actors.get(agent as usize)
    }

    /// The observer.
    pub fn observer(&self) -> &O {
        &self.observer
    }

    /// The observer, given back.
    pub fn into_observer(self) -> O {
        self.observer
    }
}

impl<O: Observer> Engine for Vm<O> {
    fn tick(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        requests: &mut Vec<Request>,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> Status {
        if self.plain {
            return self.interpreter.tick(
                &self.program,
                frame,
                AgentId(agent),
                &mut self.actors.get_mut(agent as usize),
                blackboard,
                requests,
            );
        }
        // The runner hears every event; the observer, the agents it
        // watches.
        let mut both = Both::new(Events(trace), &mut self.observer);
        self.interpreter.tick_observed(
            &self.program,
            frame,
            AgentId(agent),
            &mut self.actors.get_mut(agent as usize),
            blackboard,
            requests,
            &mut both,
        )
    }

    fn complete(&mut self, agent: u32, node: NodeIdx, outcome: Outcome) -> Result<(), Stale> {
        self.actors.get_mut(agent as usize).complete(node, outcome)
    }

    fn send_event(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        event: EventId,
    ) -> usize {
        self.interpreter.send_event(
            &self.program,
            frame,
            AgentId(agent),
            &mut self.actors.get_mut(agent as usize),
            blackboard,
            event,
        )
    }

    fn running(&self, agent: u32) -> Vec<NodeIdx> {
        // A ticket at a crowd node is no running work.
        let shape = self.program.shape();
        self.actors
            .get(agent as usize)
            .actions()
            .map(|(n, _)| n)
            .filter(|&n| !shape.kind(n).is_global())
            .collect()
    }

    fn post_stimulus(&mut self, agent: u32, stimulus: usize, data: u32, now: f64, seconds: f64) {
        self.actors
            .get_mut(agent as usize)
            .post_stimulus(stimulus, data, now, seconds);
    }

    fn stimuli(&self, agent: u32, now: f64) -> u32 {
        self.actors.get(agent as usize).stimuli_flags(now)
    }

    fn entries(&self, agent: u32) -> Vec<u64> {
        let shape = self.program.shape();
        let actor = self.actors.get(agent as usize);
        (0..shape.entries().len())
            .map(|i| actor.entry_word(shape, i).unwrap_or(0))
            .collect()
    }

    fn settle(&mut self, frame: &Frame, requests: &[Request]) {
        self.program.settle(frame, requests, &mut self.actors);
    }

    fn globals(&self) -> Vec<(NodeIdx, u64)> {
        self.program.globals().iter().collect()
    }

    fn inject(&mut self, agent: u32, connector: NodeIdx, tree: u32) {
        let shape = self.program.shape();
        let name = tree
            .checked_sub(1)
            .and_then(|k| shape.children(connector).nth(k as usize))
            .map(|root| shape.node(root).name.clone());
        let mut actor = self.actors.get_mut(agent as usize);
        // The runner checked the connector and the tree when it prepared.
        let injected = self.program.inject(&mut actor, connector, name.as_deref());
        debug_assert!(injected.is_ok(), "{injected:?}");
    }

    fn traces(&self) -> bool {
        !self.plain
    }
}
