//! Differential runs: the VM and the [`Reference`] interpreter, tick by
//! tick, on the same tree, scripts and completions.
//!
//! [`differential`] runs a few agents of one [`Spec`] for some ticks. Each
//! agent has a VM [`Actor`](treebeard_vm::Actor) and a [`Reference`], each with its own
//! [`World::random`] script of the same seed, so both see the same leaf
//! outcomes as long as they make the same calls. Before each tick the same
//! game-system reports are applied to both (decided by hashing the seed,
//! tick, agent and node), then the same events are delivered to both: those
//! the agents' `SendEvent` nodes sent it on the last tick (routed as a crowd
//! routes them: after the whole tick, in agent order) and, now and then, one
//! from outside; now and then a stimulus is posted to the agent from
//! outside, as game code posts one (`ActorMut::post_stimulus`); now and
//! then an agent is halted. The clock advances by a `dt` drawn per tick
//! from a few values, some of them inexact in binary. The agents share the
//! tree's crowd state (its gates, global cool-downs and teams): after every
//! round of ticks the round's requests (halts' and ticks', in agent order)
//! are settled on both sides, `Program::settle` for the VM and
//! [`CrowdState::settle`] for the reference, and the global words, the
//! team tables (index, node, members, who is still in, the sync points
//! reached) and every agent's states (its tickets among them) are
//! compared. After every
//! step
//! everything observable is compared: the root status, the leaf calls
//! (scope hooks and wrapper marks included), the requests, the states each
//! side remembers, the persistent slots, the tree's variables, timestamps
//! and active stimuli (at the step's time and the next tick's) and, for an
//! event, how many running nodes it reached. The first difference stops
//! the run with a [`Mismatch`] that shows the tree, its disassembly, the
//! agent's recent history and both sides' outputs.
//!
//! What happens when (the leaf scripts, the clock, the reports, the events
//! and the halts) is decided by the [`Run`]'s methods and the [`Mailbox`],
//! so that other VM tests can drive agents through the same schedule.
//!
//! The reference runs the test leaves (conditions, actions and the scope
//! hooks `s`) on the scripted [`World`] itself, and the tree's scripts
//! through the program ([`treebeard_vm::Program::run_script`]):
//! the script evaluator is tested on its own; the comparison is about when
//! and on which variables the tree runs them.

use crate::crowd::{CrowdState, waiting_since};
use crate::r#gen::Spec;
use crate::reference::{Coverage, RefLeaves, Reference, Remembered};
use crate::script::{EVENTS, Event, World, mix};
use std::collections::BTreeSet;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use treebeard_shape::{Kind, NodeIdx, Shape};
use treebeard_vm::script::{Fault, Memory as TreeMemory, ScriptValue};
use treebeard_vm::{
    ActionState, ActorLayout, ActorRef, Actors, AgentId, Ending, EventId, Frame, Interpreter,
    MemoryBlock, Observer, Outcome, Program, Request, RequestKind, Signal, Stale, Status,
    TraceEvent,
};

/// The reference's leaves in a differential run: the scripted [`World`]
/// for conditions and actions (called directly, not through the program's
/// function table), the program for scripts and inputs, and the frame.
pub struct RefWorld<'a> {
    /// The agent's world.
    pub world: &'a mut World,
    /// The program whose scripts run.
    pub program: &'a Program<World>,
    /// The clock: the tick's, or between ticks the last tick's.
    pub frame: Frame,
    /// The agent's crowd, if any.
    pub crowd: Option<&'a CrowdState>,
}

impl RefLeaves for RefWorld<'_> {
    fn condition(&mut self, node: NodeIdx) -> bool {
        self.world.condition(node)
    }

    fn action(
        &mut self,
        node: NodeIdx,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
    ) -> Status {
        self.world.action(node, signal, state, persistent, memory)
    }

    fn scope(&mut self, node: NodeIdx, how: Option<Ending>) {
        self.world.scope(node, how);
    }

    fn decide(
        &mut self,
        node: NodeIdx,
        stimuli: &[u32],
        memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        let stimuli = crate::script::stimulus_data(stimuli, self.frame.time);
        self.world.score_with_memory(node, stimuli, memory)
    }

    fn decision_flags(&self) -> u32 {
        self.world.decision_flags()
    }

    fn clock(&self) -> Frame {
        self.frame
    }

    fn script(
        &mut self,
        index: u64,
        memory: TreeMemory<'_>,
        read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        self.program
            .run_script(index, self.world, memory, read_only)
    }

    fn input_int(&self, word: u64) -> Option<i64> {
        self.program.input_int(word, self.world)
    }

    fn crowd(&self) -> Option<&CrowdState> {
        self.crowd
    }
}

/// How a differential run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Seeds the leaf scripts, the game-system reports and the halts.
    pub seed: u64,
    /// Agents ticked in turn, each with its own script.
    pub agents: u32,
    /// Ticks per agent.
    pub ticks: u64,
    /// Whether agents are halted now and then (about one tick in 32).
    pub halts: bool,
    /// Whether ticks are traced on both sides and the traces compared (the
    /// VM then runs its traced loop instead of the plain one).
    pub trace: bool,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            seed: 0,
            agents: 2,
            ticks: 40,
            halts: true,
            trace: false,
        }
    }
}

/// What a run that found no difference went through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Agent ticks compared.
    pub agent_ticks: u64,
    /// Root statuses that were not running (the tree restarted).
    pub restarts: u64,
    /// What the reference did, summed over agents.
    pub coverage: Coverage,
    /// Game-system reports both sides applied.
    pub completions_applied: u64,
    /// Stale reports both sides refused.
    pub completions_stale: u64,
    /// Halts.
    pub halts: u64,
    /// Child trees injected (or taken out) between ticks.
    pub injections: u64,
    /// Most decider states the VM held after a tick.
    pub max_decider_states: usize,
    /// Most action states the VM held after a tick.
    pub max_action_states: usize,
    /// Most requests of one agent's tick.
    pub max_requests: usize,
    /// Most items one traced agent tick executed, per item of the shape
    /// (rounded up; at most [`VISITS_PER_ITEM`]).
    pub max_visits_per_item: u64,
    /// Trace events compared, by kind (in `TraceEvent::ALL` order).
    pub trace_events: [u64; 6],
    /// Events delivered to both sides between ticks.
    pub events_delivered: u64,
    /// Of those, events that `SendEvent` nodes sent to an agent of the run.
    pub events_routed: u64,
    /// Running nodes the delivered events reached (waits and hooks).
    pub events_reached: u64,
    /// Stimuli posted to both sides from outside between ticks.
    pub stimuli_posted: u64,
    /// Rounds after which the crowd settled its requests (runs of trees
    /// with gates or global cool-downs).
    pub settles: u64,
    /// Requests to enter the crowd admitted when it settled.
    pub crowd_admitted: u64,
    /// Requests to enter the crowd refused when it settled.
    pub crowd_refused: u64,
}

impl Stats {
    /// Adds another run's counts (and takes the maxima).
    pub fn add(&mut self, other: &Stats) {
        self.agent_ticks += other.agent_ticks;
        self.restarts += other.restarts;
        self.coverage.add(&other.coverage);
        self.completions_applied += other.completions_applied;
        self.completions_stale += other.completions_stale;
        self.halts += other.halts;
        self.injections += other.injections;
        self.max_decider_states = self.max_decider_states.max(other.max_decider_states);
        self.max_action_states = self.max_action_states.max(other.max_action_states);
        self.max_requests = self.max_requests.max(other.max_requests);
        self.max_visits_per_item = self.max_visits_per_item.max(other.max_visits_per_item);
        for (a, b) in self.trace_events.iter_mut().zip(other.trace_events) {
            *a += b;
        }
        self.events_delivered += other.events_delivered;
        self.events_routed += other.events_routed;
        self.events_reached += other.events_reached;
        self.stimuli_posted += other.stimuli_posted;
        self.settles += other.settles;
        self.crowd_admitted += other.crowd_admitted;
        self.crowd_refused += other.crowd_refused;
    }
}

/// Everything one side showed for one step of one agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// The root's status (none for a halt, a report or an event).
    pub status: Option<Status>,
    /// The result of applying a game-system report.
    pub completion: Option<Result<(), Stale>>,
    /// How many running nodes a delivered event reached.
    pub delivered: Option<usize>,
    /// Leaf calls, in order.
    pub events: Vec<Event>,
    /// Requests, cancels first.
    pub requests: Vec<Request>,
    /// States remembered for the next tick.
    pub remembered: Remembered,
    /// Persistent slots by item.
    pub persistent: Vec<(NodeIdx, u32)>,
    /// The tree's variables, by index.
    pub variables: Vec<bool>,
    /// The tree's timestamps, by index: when each was last set.
    pub timestamps: Vec<Option<f32>>,
    /// The tree's stimuli, by index: the datum of each while it is active
    /// at the step's time, and at the next tick's.
    pub stimuli: Vec<[Option<u32>; 2]>,
    /// Trace events, in order (traced runs only).
    pub trace: Vec<(NodeIdx, TraceEvent)>,
    /// After the crowd settled a round: the words of the tree's gates and
    /// global cool-downs (`Program::globals`), shared by all agents.
    pub globals: Vec<(NodeIdx, u64)>,
}

impl Observed {
    /// The first field in which `self` (the reference) and `vm` differ.
    fn difference(&self, vm: &Observed) -> Option<&'static str> {
        if self.status != vm.status {
            Some("root status")
        } else if self.completion != vm.completion {
            Some("completion result")
        } else if self.delivered != vm.delivered {
            Some("running nodes the event reached")
        } else if self.events != vm.events {
            Some("leaf calls")
        } else if self.requests != vm.requests {
            Some("requests")
        } else if self.remembered != vm.remembered {
            Some("remembered states")
        } else if self.persistent != vm.persistent {
            Some("persistent slots")
        } else if self.variables != vm.variables {
            Some("variables")
        } else if self.timestamps != vm.timestamps {
            Some("timestamps")
        } else if self.stimuli != vm.stimuli {
            Some("stimuli")
        } else if self.trace != vm.trace {
            Some("trace")
        } else if self.globals != vm.globals {
            Some("global words")
        } else {
            None
        }
    }
}

impl fmt::Display for Observed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(status) = self.status {
            writeln!(f, "    status:     {status:?}")?;
        }
        if let Some(result) = self.completion {
            writeln!(f, "    completion: {result:?}")?;
        }
        if let Some(reached) = self.delivered {
            writeln!(f, "    reached:    {reached}")?;
        }
        writeln!(f, "    calls:      {:?}", self.events)?;
        let requests: Vec<String> = self.requests.iter().map(short_request).collect();
        writeln!(f, "    requests:   [{}]", requests.join(", "))?;
        writeln!(f, "    deciders:   {:?}", self.remembered.deciders)?;
        writeln!(f, "    actions:    {:?}", self.remembered.actions)?;
        writeln!(f, "    persistent: {:?}", self.persistent)?;
        writeln!(f, "    variables:  {:?}", self.variables)?;
        writeln!(f, "    timestamps: {:?}", self.timestamps)?;
        writeln!(f, "    stimuli:    {:?}", self.stimuli)?;
        if !self.trace.is_empty() {
            let events: Vec<String> = self.trace.iter().map(|(n, e)| format!("{e} {n}")).collect();
            writeln!(f, "    trace:      [{}]", events.join(", "))?;
        }
        if !self.globals.is_empty() {
            writeln!(f, "    globals:    {:?}", self.globals)?;
        }
        Ok(())
    }
}

fn short_request(r: &Request) -> String {
    match r.kind {
        RequestKind::Launch => format!("launch {}", r.node),
        RequestKind::Cancel => format!("cancel {}", r.node),
        RequestKind::Event { event, to } => {
            format!("send {} to {to} from {}", event_name(event), r.node)
        }
        RequestKind::RedecideLimit => format!("redecide limit of {}", r.node),
        RequestKind::SubsetRule => format!("subset rule broken at {}", r.node),
        RequestKind::Enter => format!("enter {}", r.node),
        RequestKind::Leave => format!("leave {}", r.node),
        RequestKind::StartCooldown => format!("start cool-down {}", r.node),
        RequestKind::Remap { from } => format!("remap {from} to {}", r.node),
        RequestKind::Arrive { seat } => {
            format!("arrive {} (team {} role {})", r.node, seat.team, seat.role)
        }
        RequestKind::LeaveTeam { seat } => {
            format!(
                "leave team {} at {} (role {})",
                seat.team, r.node, seat.role
            )
        }
        RequestKind::BreakOut { seat } => {
            format!(
                "break out of team {} at {} (role {})",
                seat.team, r.node, seat.role
            )
        }
    }
}

fn event_name(event: EventId) -> String {
    EVENTS
        .get(event.0 as usize)
        .map_or_else(|| format!("event {}", event.0), |name| (*name).to_string())
}

/// The first difference between the VM and the reference in a run.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The run.
    pub run: Run,
    /// The tree.
    pub spec: Spec,
    /// The compiled shape's disassembly.
    pub disassembly: String,
    /// The tick (counted from 0).
    pub tick: u64,
    /// The agent.
    pub agent: AgentId,
    /// The step: a game-system report, an event, a halt, or the tick.
    pub step: String,
    /// What differs.
    pub what: String,
    /// The agent's earlier steps (as the reference saw them, which the VM
    /// matched), most recent last.
    pub history: Vec<String>,
    /// What the reference did.
    pub reference: Observed,
    /// What the VM did.
    pub vm: Observed,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "the VM and the reference disagree on {} at tick {}, {} ({})",
            self.what, self.tick, self.agent, self.step
        )?;
        writeln!(f, "tree: {:?}", self.spec)?;
        writeln!(f, "run:  {:?}", self.run)?;
        writeln!(f, "shape:\n{}", self.disassembly)?;
        writeln!(f, "history of {} (matched by both):", self.agent)?;
        for line in &self.history {
            writeln!(f, "  {line}")?;
        }
        writeln!(f, "  reference (docs/nodes.md):\n{}", self.reference)?;
        write!(f, "  vm:\n{}", self.vm)
    }
}

/// How many earlier steps a [`Mismatch`] shows.
const HISTORY: usize = 12;

/// One agent on both interpreters (its VM actor is in the run's
/// [`Actors`], at its index).
struct Agent {
    id: AgentId,
    vm_world: World,
    reference: Reference,
    ref_world: World,
    /// Deferred actions the game system runs: launched and neither
    /// cancelled nor reported done.
    launched: BTreeSet<NodeIdx>,
    history: Vec<String>,
}

impl Agent {
    fn remember(&mut self, line: String) {
        if self.history.len() == HISTORY {
            self.history.remove(0);
        }
        self.history.push(line);
    }

    /// The game system's view of the requests.
    fn track(&mut self, requests: &[Request]) {
        for r in requests {
            match r.kind {
                RequestKind::Launch => self.launched.insert(r.node),
                RequestKind::Cancel => self.launched.remove(&r.node),
                RequestKind::Remap { from } => {
                    self.launched.remove(&from) && self.launched.insert(r.node)
                }
                // Routed by the run, not run by a game system.
                RequestKind::Event { .. } => false,
                // Reported to the game, which runs nothing for it; or the
                // crowd's own.
                RequestKind::RedecideLimit
                | RequestKind::SubsetRule
                | RequestKind::Enter
                | RequestKind::Leave
                | RequestKind::StartCooldown
                | RequestKind::Arrive { .. }
                | RequestKind::LeaveTeam { .. }
                | RequestKind::BreakOut { .. } => false,
            };
        }
    }

    fn vm_remembered(actor: ActorRef<'_>) -> Remembered {
        Remembered {
            deciders: actor.deciders().collect(),
            actions: actor.actions().collect(),
        }
    }

    fn vm_persistent(actor: ActorRef<'_>, program: &Program<World>) -> Vec<(NodeIdx, u32)> {
        let map = program.shape().persistent_map();
        map.iter()
            .copied()
            .zip(actor.persistent().iter().copied())
            .collect()
    }

    fn vm_variables(actor: ActorRef<'_>, program: &Program<World>) -> Vec<bool> {
        let shape = program.shape();
        (0..shape.variables().len())
            .map(|i| actor.variable(shape, i).unwrap_or_default())
            .collect()
    }

    fn vm_timestamps(actor: ActorRef<'_>, program: &Program<World>) -> Vec<Option<f32>> {
        (0..program.shape().timestamps().len())
            .map(|i| actor.timestamp(i))
            .collect()
    }

    /// The VM's stimuli at the times of `frame` and the tick after it.
    fn vm_stimuli(
        actor: ActorRef<'_>,
        program: &Program<World>,
        frame: &Frame,
    ) -> Vec<[Option<u32>; 2]> {
        let next = frame.time + f64::from(frame.dt);
        (0..program.shape().stimuli().len())
            .map(|i| [actor.stimulus(i, frame.time), actor.stimulus(i, next)])
            .collect()
    }

    /// The reference's stimuli at the times of `frame` and the tick after
    /// it.
    fn ref_stimuli(&self, program: &Program<World>, frame: &Frame) -> Vec<[Option<u32>; 2]> {
        let next = frame.time + f64::from(frame.dt);
        (0..program.shape().stimuli().len())
            .map(|i| {
                [
                    self.reference.stimulus(i, frame.time),
                    self.reference.stimulus(i, next),
                ]
            })
            .collect()
    }

    /// What the VM side shows after a step in `frame` (leaf calls taken
    /// from its log), the agent's actor being `actor`.
    fn vm_observed(
        &mut self,
        actor: ActorRef<'_>,
        program: &Program<World>,
        frame: &Frame,
    ) -> Observed {
        Observed {
            events: self.vm_world.take_log(),
            remembered: Agent::vm_remembered(actor),
            persistent: Agent::vm_persistent(actor, program),
            variables: Agent::vm_variables(actor, program),
            timestamps: Agent::vm_timestamps(actor, program),
            stimuli: Agent::vm_stimuli(actor, program, frame),
            ..Observed::default()
        }
    }

    /// What the reference side shows after a step in `frame` (leaf calls
    /// taken from its log).
    fn ref_observed(&mut self, program: &Program<World>, frame: &Frame) -> Observed {
        Observed {
            events: self.ref_world.take_log(),
            remembered: self.reference.remembered(),
            persistent: self.reference.persistent(),
            variables: self.reference.variables(),
            timestamps: self.reference.timestamps().to_vec(),
            stimuli: self.ref_stimuli(program, frame),
            ..Observed::default()
        }
    }
}

/// A hash of the run's seed and a step's coordinates.
fn roll(seed: u64, salt: u64, tick: u64, agent: AgentId, node: u32) -> u64 {
    mix(seed ^ mix(salt ^ mix(tick ^ mix(u64::from(agent.0) ^ mix(u64::from(node))))))
}

const SALT_SCRIPT: u64 = 1;
const SALT_REPORT: u64 = 2;
const SALT_HALT: u64 = 3;
const SALT_EVENT: u64 = 4;
const SALT_DT: u64 = 5;
const SALT_STIMULUS: u64 = 6;
const SALT_INJECT: u64 = 7;

/// The `dt`s a tick may cover: exact binary fractions, and 0.1 (an `f32`
/// that a `f64` clock carries inexactly), so that the timestamps' `f32`
/// rounding shows.
pub const DTS: [f32; 4] = [0.5, 0.25, 1.0, 0.1];

impl Run {
    /// The leaf script of `agent`: a [`World::random`] seeded from the run
    /// (each side of a differential run gets its own).
    pub fn world(&self, agent: AgentId) -> World {
        World::random(roll(self.seed, SALT_SCRIPT, 0, agent, 0))
    }

    /// The frame of `tick`, which follows the frame `last` (the default
    /// frame before tick 0): its `dt` is one of [`DTS`], drawn per tick.
    pub fn frame(&self, tick: u64, last: &Frame) -> Frame {
        let h = roll(self.seed, SALT_DT, tick, AgentId(0), 0);
        Frame {
            index: tick,
            time: last.time + f64::from(last.dt),
            dt: DTS[(h % DTS.len() as u64) as usize],
        }
    }

    /// The report the game system sends for the node at `node` before
    /// `tick`, if any: for launched deferred actions a quarter each of
    /// success, failure, a running acknowledgement and silence; for any
    /// other node, now and then a stale report.
    pub fn report(
        &self,
        tick: u64,
        agent: AgentId,
        node: NodeIdx,
        launched: bool,
    ) -> Option<Outcome> {
        let h = roll(self.seed, SALT_REPORT, tick, agent, node.get());
        let outcome = |k: u64| match k % 3 {
            0 => Outcome::Success,
            1 => Outcome::Failure,
            _ => Outcome::Running,
        };
        if launched {
            match h % 4 {
                0 => Some(Outcome::Success),
                1 => Some(Outcome::Failure),
                2 => Some(Outcome::Running),
                _ => None,
            }
        } else if h.is_multiple_of(16) {
            Some(outcome(h >> 8))
        } else {
            None
        }
    }

    /// The event sent to `agent` from outside before `tick`, if any: one
    /// tick in four, any of the test leaves' events.
    pub fn outside_event(&self, tick: u64, agent: AgentId) -> Option<EventId> {
        let h = roll(self.seed, SALT_EVENT, tick, agent, 0);
        h.is_multiple_of(4)
            .then(|| EventId(((h >> 8) % EVENTS.len() as u64) as u32))
    }

    /// The stimulus posted to `agent` from outside before `tick`, if any,
    /// of a tree that declares `stimuli`: one tick in eight, any of them,
    /// with a datum of up to 8 bits.
    pub fn outside_stimulus(
        &self,
        tick: u64,
        agent: AgentId,
        stimuli: usize,
    ) -> Option<(usize, u32)> {
        let h = roll(self.seed, SALT_STIMULUS, tick, agent, 0);
        (stimuli > 0 && h.is_multiple_of(8)).then(|| {
            (
                ((h >> 8) % stimuli as u64) as usize,
                (h >> 32) as u32 & 0xff,
            )
        })
    }

    /// The child tree injected into `agent` before `tick`, if one is (about
    /// one tick in 8): one of `connectors` (each with its number of child
    /// trees), and which tree (its position plus one; 0: none).
    pub fn injection(
        &self,
        tick: u64,
        agent: AgentId,
        connectors: &[(NodeIdx, u32)],
    ) -> Option<(NodeIdx, u32)> {
        let h = roll(self.seed, SALT_INJECT, tick, agent, 0);
        (!connectors.is_empty() && h.is_multiple_of(8)).then(|| {
            let (node, trees) = connectors[((h >> 8) % connectors.len() as u64) as usize];
            (node, ((h >> 32) % (u64::from(trees) + 1)) as u32)
        })
    }

    /// Whether `agent` is halted before `tick` (with [`Run::halts`], about
    /// one tick in 32).
    pub fn halts_at(&self, tick: u64, agent: AgentId) -> bool {
        self.halts && roll(self.seed, SALT_HALT, tick, agent, 0).is_multiple_of(32)
    }
}

/// The events that a run's agents' `SendEvent` nodes sent one another,
/// routed as a crowd routes them: after the whole tick, in agent order, each
/// reaching its agent before that agent's next tick. An event for an agent
/// the run does not have is lost.
#[derive(Clone, Debug, Default)]
pub struct Mailbox {
    /// Per agent, the events on their way to it and their senders.
    queues: Vec<Vec<(EventId, AgentId)>>,
}

impl Mailbox {
    /// An empty mailbox for the run's agents.
    pub fn new(run: &Run) -> Mailbox {
        Mailbox {
            queues: vec![Vec::new(); run.agents as usize],
        }
    }

    /// Routes the event requests among `requests` (a tick's, in agent
    /// order). Returns how many are on their way to an agent of the run.
    pub fn post(&mut self, requests: &[Request]) -> u64 {
        let mut routed = 0;
        for r in requests {
            if let RequestKind::Event { event, to } = r.kind
                && let Some(queue) = self.queues.get_mut(to.index())
            {
                queue.push((event, r.agent));
                routed += 1;
            }
        }
        routed
    }

    /// The events `agent` gets before `tick`, in order: those sent to it on
    /// the last tick, in the order they were sent, with their senders, then
    /// now and then one from outside ([`Run::outside_event`], without a
    /// sender).
    pub fn take(
        &mut self,
        run: &Run,
        tick: u64,
        agent: AgentId,
    ) -> Vec<(EventId, Option<AgentId>)> {
        let outside = run.outside_event(tick, agent).map(|event| (event, None));
        std::mem::take(&mut self.queues[agent.index()])
            .into_iter()
            .map(|(event, from)| (event, Some(from)))
            .chain(outside)
            .collect()
    }
}

/// Runs `spec` on the VM and on the reference interpreter as `run` says,
/// comparing every step. Returns what the run went through, or the first
/// difference.
///
/// # Panics
/// If `spec` does not compile (see [`Spec::compile`]).
pub fn differential(spec: &Spec, run: &Run) -> Result<Stats, Box<Mismatch>> {
    let program = spec.compile();
    differential_with(spec, run, &mut Interpreter::with_capacity(program.spec()))
}

/// [`differential`] with the caller's interpreter, so one interpreter can
/// serve many shapes (its buffers grow to the largest, as a crowd's do).
///
/// # Panics
/// If `spec` does not compile (see [`Spec::compile`]).
pub fn differential_with(
    spec: &Spec,
    run: &Run,
    interpreter: &mut Interpreter,
) -> Result<Stats, Box<Mismatch>> {
    let mut program = spec.compile();
    let shape = program.shape().clone();
    let capacity = *program.spec();
    let deferred = spec.deferred_nodes();
    let every_node: Vec<NodeIdx> = spec.indices(|_| true);
    let mut stats = Stats::default();
    let mut actors = Actors::new(ActorLayout::for_shape(&shape), run.agents as usize);
    let mut agents: Vec<Agent> = (0..run.agents)
        .map(|i| {
            let id = AgentId(i);
            Agent {
                id,
                vm_world: run.world(id),
                reference: spec.to_reference(),
                ref_world: run.world(id),
                launched: BTreeSet::new(),
                history: Vec::new(),
            }
        })
        .collect();
    // The reference's crowd: the agents share the tree's gates and global
    // cool-downs, as the VM's program shares its `Globals`.
    let mut crowd = CrowdState::for_tree(&spec.to_ref_node());

    let mismatch = |agent: &Agent, tick: u64, step: String, what: String, r, v| {
        Box::new(Mismatch {
            run: *run,
            spec: spec.clone(),
            disassembly: shape.disassemble().to_string(),
            tick,
            agent: agent.id,
            step,
            what,
            history: agent.history.clone(),
            reference: r,
            vm: v,
        })
    };

    // The connectors, with their numbers of child trees.
    let connectors: Vec<(NodeIdx, u32)> = (0..shape.len() as u32)
        .map(NodeIdx::new)
        .filter(|&n| shape.kind(n) == Kind::ChildTree)
        .map(|n| (n, shape.children(n).count() as u32))
        .collect();
    // The last tick's frame (events between ticks stamp its end), and the
    // events the agents' `SendEvent` nodes sent on it.
    let mut last = Frame::default();
    let mut mailbox = Mailbox::new(run);
    for tick in 0..run.ticks {
        let frame = run.frame(tick, &last);
        let mut sent: Vec<Request> = Vec::new();
        // The round's requests, in agent order: each agent's halt, then
        // its tick. The crowd settles them after the round.
        let mut round: Vec<Request> = Vec::new();
        for (i, agent) in agents.iter_mut().enumerate() {
            let id = agent.id;

            // The game system reports on deferred actions (and, now and
            // then, on any node: a stale report).
            for &node in &every_node {
                let launched = agent.launched.contains(&node);
                debug_assert!(!launched || deferred.contains(&node));
                let Some(outcome) = run.report(tick, id, node, launched) else {
                    continue;
                };
                let r = agent.reference.complete(node, outcome);
                let v = actors.get_mut(i).complete(node, outcome);
                let step = format!("report {outcome:?} for {node}");
                if r != v {
                    let r = Observed {
                        completion: Some(r),
                        ..Observed::default()
                    };
                    let v = Observed {
                        completion: Some(v),
                        ..Observed::default()
                    };
                    return Err(mismatch(
                        agent,
                        tick,
                        step,
                        "completion result".into(),
                        r,
                        v,
                    ));
                }
                agent.remember(format!("tick {tick}: {step}: {r:?}"));
                match r {
                    Ok(()) => {
                        stats.completions_applied += 1;
                        if outcome != Outcome::Running {
                            agent.launched.remove(&node);
                        }
                    }
                    Err(_) => stats.completions_stale += 1,
                }
            }

            // Events: those sent to the agent on the last tick, then now and
            // then one from outside.
            for (event, from) in mailbox.take(run, tick, id) {
                let step = match from {
                    Some(from) => format!("event {} from {from}", event_name(event)),
                    None => format!("event {} from outside", event_name(event)),
                };
                let delivered = catch_unwind(AssertUnwindSafe(|| {
                    interpreter.send_event(
                        &program,
                        &last,
                        id,
                        &mut actors.get_mut(i),
                        &mut agent.vm_world,
                        event,
                    )
                }));
                let mut leaves = RefWorld {
                    world: &mut agent.ref_world,
                    program: &program,
                    frame: last,
                    crowd: Some(&crowd),
                };
                let reached = agent.reference.send_event(&mut leaves, event);
                let r = Observed {
                    delivered: Some(reached),
                    ..agent.ref_observed(&program, &last)
                };
                let delivered = match delivered {
                    Ok(delivered) => delivered,
                    Err(panic) => {
                        let what = format!("a VM panic: {}", panic_message(&*panic));
                        let v = Observed::default();
                        return Err(mismatch(agent, tick, step, what, r, v));
                    }
                };
                let v = Observed {
                    delivered: Some(delivered),
                    ..agent.vm_observed(actors.get(i), &program, &last)
                };
                if let Some(what) = r.difference(&v) {
                    return Err(mismatch(agent, tick, step, what.into(), r, v));
                }
                stats.events_delivered += 1;
                stats.events_reached += reached as u64;
                agent.remember(format!("tick {tick}: {step}: reached {reached}"));
            }

            // Now and then a stimulus from outside, posted as a crowd posts
            // one between ticks: from the next tick's time, for its
            // declared seconds.
            let stimuli = shape.stimuli();
            if let Some((s, datum)) = run.outside_stimulus(tick, id, stimuli.len()) {
                let now = last.time + f64::from(last.dt);
                let seconds = f64::from(stimuli[s].seconds);
                actors.get_mut(i).post_stimulus(s, datum, now, seconds);
                agent.reference.post_stimulus(s, datum, now, seconds);
                let step = format!("stimulus {}={datum} from outside", stimuli[s].name);
                let r = agent.ref_observed(&program, &last);
                let v = agent.vm_observed(actors.get(i), &program, &last);
                if let Some(what) = r.difference(&v) {
                    return Err(mismatch(agent, tick, step, what.into(), r, v));
                }
                stats.stimuli_posted += 1;
                agent.remember(format!("tick {tick}: {step}"));
            }

            // Now and then a child tree is injected, as a game's smart
            // object does between ticks.
            if let Some((connector, tree)) = run.injection(tick, id, &connectors) {
                let name = tree
                    .checked_sub(1)
                    .and_then(|k| shape.children(connector).nth(k as usize))
                    .map(|root| &*shape.node(root).name);
                let injected = program.inject(&mut actors.get_mut(i), connector, name);
                assert!(injected.is_ok(), "{injected:?}");
                assert!(agent.reference.inject(connector, tree));
                stats.injections += 1;
                agent.remember(format!("tick {tick}: inject {name:?} at {connector}"));
            }

            // Now and then the agent is halted (as a crowd removes an
            // agent): its gate slots come back at the round's settling.
            if run.halts_at(tick, id) {
                stats.halts += 1;
                let mut vm_requests = Vec::new();
                let halted = catch_unwind(AssertUnwindSafe(|| {
                    interpreter.halt(
                        &program,
                        &frame,
                        id,
                        &mut actors.get_mut(i),
                        &mut agent.vm_world,
                        &mut vm_requests,
                    )
                }));
                let mut leaves = RefWorld {
                    world: &mut agent.ref_world,
                    program: &program,
                    frame,
                    crowd: Some(&crowd),
                };
                let ref_requests = agent.reference.halt(&mut leaves, id);
                let r = Observed {
                    requests: ref_requests,
                    ..agent.ref_observed(&program, &frame)
                };
                if let Err(panic) = halted {
                    let what = format!("a VM panic: {}", panic_message(&*panic));
                    let v = Observed::default();
                    return Err(mismatch(agent, tick, "halt".into(), what, r, v));
                }
                let v = Observed {
                    requests: vm_requests,
                    ..agent.vm_observed(actors.get(i), &program, &frame)
                };
                if let Some(what) = r.difference(&v) {
                    return Err(mismatch(agent, tick, "halt".into(), what.into(), r, v));
                }
                agent.track(&r.requests);
                round.extend_from_slice(&r.requests);
                agent.remember(format!(
                    "tick {tick}: halt: calls {:?}, requests {:?}",
                    r.events, r.requests
                ));
            }

            // The tick.
            agent.vm_world.tick = tick;
            agent.ref_world.tick = tick;
            let mut vm_requests = Vec::new();
            let mut vm_trace = Vec::new();
            let mut tick_visits = 0;
            let vm_status = catch_unwind(AssertUnwindSafe(|| {
                if run.trace {
                    let mut counted = Counted {
                        events: &mut vm_trace,
                        visits: BoundedVisits::for_shape(program.shape()),
                    };
                    let status = interpreter.tick_observed(
                        &program,
                        &frame,
                        id,
                        &mut actors.get_mut(i),
                        &mut agent.vm_world,
                        &mut vm_requests,
                        &mut counted,
                    );
                    tick_visits = counted.visits.visits();
                    status
                } else {
                    interpreter.tick(
                        &program,
                        &frame,
                        id,
                        &mut actors.get_mut(i),
                        &mut agent.vm_world,
                        &mut vm_requests,
                    )
                }
            }));
            let mut ref_trace = Vec::new();
            let mut leaves = RefWorld {
                world: &mut agent.ref_world,
                program: &program,
                frame,
                crowd: Some(&crowd),
            };
            let out = if run.trace {
                agent
                    .reference
                    .tick_traced(&mut leaves, id, &mut |n, e| ref_trace.push((n, e)))
            } else {
                agent.reference.tick(&mut leaves, id)
            };
            let r = Observed {
                status: Some(out.status),
                requests: out.requests,
                trace: ref_trace,
                ..agent.ref_observed(&program, &frame)
            };
            let vm_status = match vm_status {
                Ok(status) => status,
                Err(panic) => {
                    let what = format!("a VM panic: {}", panic_message(&*panic));
                    let v = Observed::default();
                    return Err(mismatch(agent, tick, "tick".into(), what, r, v));
                }
            };
            let v = Observed {
                status: Some(vm_status),
                requests: vm_requests,
                trace: vm_trace,
                ..agent.vm_observed(actors.get(i), &program, &frame)
            };
            if let Some(what) = r.difference(&v) {
                return Err(mismatch(agent, tick, "tick".into(), what.into(), r, v));
            }
            // A trace agrees with the requests: it shows exactly the
            // launches made, in their order.
            if run.trace {
                let traced = v.trace.iter().filter(|(_, e)| *e == TraceEvent::Launch);
                let made = v.requests.iter().filter(|q| q.kind == RequestKind::Launch);
                if !traced.map(|&(n, _)| n).eq(made.map(|q| q.node)) {
                    let what = "the trace's launches are not the launch requests".to_string();
                    return Err(mismatch(agent, tick, "tick".into(), what, r, v));
                }
            }

            // The VM holds no more than its capacity specification allows.
            let deferred_held = v
                .remembered
                .actions
                .iter()
                .filter(|(_, s)| !matches!(s, ActionState::Running(_)))
                .count();
            let over = [
                (
                    v.remembered.deciders.len(),
                    capacity.decider_states,
                    "decider states",
                ),
                (
                    v.remembered.actions.len(),
                    capacity.action_states,
                    "action states",
                ),
                (deferred_held, capacity.deferred_states, "deferred states"),
                // Per pass (see `CapacitySpec::requests`).
                (
                    v.requests.len(),
                    capacity.requests() * passes(program.shape()) as u32,
                    "requests",
                ),
            ]
            .into_iter()
            .find(|&(held, bound, _)| held > bound as usize);
            if let Some((held, bound, name)) = over {
                let what = format!("capacity: {held} {name}, the spec allows {bound}");
                return Err(mismatch(agent, tick, "tick".into(), what, r, v));
            }
            stats.max_decider_states = stats.max_decider_states.max(v.remembered.deciders.len());
            stats.max_action_states = stats.max_action_states.max(v.remembered.actions.len());
            stats.max_requests = stats.max_requests.max(v.requests.len());
            // Per pass: only where a tick makes one.
            if passes(program.shape()) == 1 {
                let per_item = tick_visits.div_ceil(program.shape().len() as u64);
                stats.max_visits_per_item = stats.max_visits_per_item.max(per_item);
            }
            stats.agent_ticks += 1;
            for (_, event) in &r.trace {
                stats.trace_events[*event as usize] += 1;
            }
            if vm_status.is_done() {
                stats.restarts += 1;
            }
            agent.track(&r.requests);
            let requests: Vec<String> = r.requests.iter().map(short_request).collect();
            agent.remember(format!(
                "tick {tick}: {:?}, calls {:?}, requests [{}]",
                vm_status,
                r.events,
                requests.join(", ")
            ));
            sent.extend(
                r.requests
                    .iter()
                    .filter(|r| matches!(r.kind, RequestKind::Event { .. })),
            );
            round.extend_from_slice(&r.requests);
        }

        // After the round, the crowd settles its requests on both sides:
        // the VM's program, the reference's crowd state. The global words
        // and every agent's tickets must agree.
        if !crowd.words().is_empty() {
            let settled = catch_unwind(AssertUnwindSafe(|| {
                program.settle(&frame, &round, &mut actors);
            }));
            let answers = crowd.settle(&frame, &round, |agent, node| {
                waiting_since(&agents.get(agent.index())?.reference, node)
            });
            for a in &answers {
                agents[a.agent.index()].reference.answer_with(a);
                if a.admitted {
                    stats.crowd_admitted += 1;
                } else {
                    stats.crowd_refused += 1;
                }
            }
            stats.settles += 1;
            let words = program.globals().iter().collect::<Vec<_>>();
            // The team tables: index, node, members, who is still in, the
            // points reached.
            let ref_teams: Vec<_> = crowd
                .teams()
                .iter()
                .map(|(&i, t)| {
                    let alive: Vec<bool> = t.alive.clone();
                    (i, t.node, t.members.clone(), alive, t.reached.clone())
                })
                .collect();
            let vm_teams: Vec<_> = program
                .globals()
                .teams()
                .map(|(i, t)| {
                    let alive = (0..t.size()).map(|r| t.is_alive(r)).collect();
                    let reached = (0..t.size()).map(|r| t.reached(r)).collect();
                    (i, t.node(), t.members().collect(), alive, reached)
                })
                .collect();
            if settled.is_ok() && ref_teams != vm_teams {
                let agent = &agents[0];
                let what =
                    format!("the team tables differ: reference {ref_teams:?}, VM {vm_teams:?}");
                let (r, v) = (Observed::default(), Observed::default());
                return Err(mismatch(agent, tick, "settle".into(), what, r, v));
            }
            for (i, agent) in agents.iter_mut().enumerate() {
                let r = Observed {
                    globals: crowd.words(),
                    remembered: agent.reference.remembered(),
                    ..Observed::default()
                };
                if let Err(panic) = &settled {
                    let what = format!("a VM panic: {}", panic_message(&**panic));
                    let v = Observed::default();
                    return Err(mismatch(agent, tick, "settle".into(), what, r, v));
                }
                let v = Observed {
                    globals: words.clone(),
                    remembered: Agent::vm_remembered(actors.get(i)),
                    ..Observed::default()
                };
                if let Some(what) = r.difference(&v) {
                    return Err(mismatch(agent, tick, "settle".into(), what.into(), r, v));
                }
                let mine: Vec<String> = answers
                    .iter()
                    .filter(|a| a.agent == agent.id)
                    .map(|a| {
                        let answer = if a.admitted { "admitted" } else { "refused" };
                        format!("{answer} at {}", a.node)
                    })
                    .collect();
                if !mine.is_empty() {
                    agent.remember(format!("tick {tick}: settle: {}", mine.join(", ")));
                }
            }
        }

        // The events sent this tick reach their agents before their next
        // ticks, as a crowd routes them.
        stats.events_routed += mailbox.post(&sent);
        last = frame;
    }
    for agent in &agents {
        stats.coverage.add(&agent.reference.coverage());
    }
    Ok(stats)
}

/// The most items one pass of an agent's tick may execute in a shape of
/// `items` items, whatever its leaves return: loops run their child once
/// per pass, a group chooses each decider once per pass, and only a
/// monitor's query runs twice (before the tree, and in it). A tick makes
/// one pass, or up to `treebeard_vm::MAX_PASSES` where a loop has `again`
/// ([`tick_bound`]). Every traced tick of a differential run is held to
/// it (see `crates/vm/tests/bounded_tick.rs` for the trees that come
/// closest).
pub fn visit_bound(items: usize) -> u64 {
    VISITS_PER_ITEM * items as u64
}

/// The most items one agent's tick may execute in `shape`: [`visit_bound`]
/// for each pass it may make.
pub fn tick_bound(shape: &Shape) -> u64 {
    visit_bound(shape.len()) * passes(shape)
}

/// The most passes one agent's tick of `shape` makes: one, or
/// `treebeard_vm::MAX_PASSES` where a loop has `again` or an async
/// sequence or selector yields.
pub fn passes(shape: &Shape) -> u64 {
    let again = (0..shape.len() as u32)
        .map(NodeIdx::new)
        .any(|n| match shape.kind(n) {
            Kind::Loop | Kind::LoopUntilSuccess => shape.params(n)[1] != 0,
            Kind::AsyncSequence | Kind::AsyncSelector => true,
            _ => false,
        });
    if again {
        treebeard_vm::MAX_PASSES as u64
    } else {
        1
    }
}

/// See [`visit_bound`].
pub const VISITS_PER_ITEM: u64 = 2;

/// Counts the items each agent's tick executes, and panics when they pass
/// [`tick_bound`] for the shape: a tick that would never end fails (as a
/// mismatch of the run, or a fuzzer's crash) instead of hanging.
#[derive(Debug)]
pub struct BoundedVisits {
    visits: u64,
    bound: u64,
}

impl BoundedVisits {
    /// A count for ticks of `shape` ([`tick_bound`]).
    pub fn for_shape(shape: &Shape) -> BoundedVisits {
        BoundedVisits {
            visits: 0,
            bound: tick_bound(shape),
        }
    }

    /// The items executed since the current agent's tick began.
    pub fn visits(&self) -> u64 {
        self.visits
    }
}

impl Observer for BoundedVisits {
    fn begin(&mut self, _: AgentId, _: &Frame) {
        self.visits = 0;
    }

    fn visit(&mut self, _: NodeIdx) {
        self.visits += 1;
        assert!(
            self.visits <= self.bound,
            "an agent's tick executed more than {} items",
            self.bound
        );
    }
}

/// A traced tick's observer: its events, and its visits counted.
struct Counted<'a> {
    events: &'a mut Vec<(NodeIdx, TraceEvent)>,
    visits: BoundedVisits,
}

impl Observer for Counted<'_> {
    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.visits.begin(agent, frame);
    }

    fn visit(&mut self, node: NodeIdx) {
        self.visits.visit(node);
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        self.events.push((node, event));
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use treebeard_shape::tree::Count;

    #[test]
    fn a_small_tree_runs_without_difference() {
        let spec = Spec::Priority(vec![
            Spec::Sequence(vec![Spec::Cond, Spec::Deferred]),
            Spec::Concurrent {
                succeed: Count::AtLeast(1),
                fail: Count::All,
                children: vec![Spec::Persistent, Spec::Deferred, Spec::Act],
            },
        ]);
        let run = Run {
            seed: 7,
            agents: 2,
            ticks: 60,
            halts: true,
            trace: true,
        };
        let stats = differential(&spec, &run).unwrap_or_else(|m| panic!("{m}"));
        assert_eq!(stats.agent_ticks, 120);
        assert!(stats.coverage.launches > 0);
    }

    /// A tree of memory kinds: scripts, gates, a wrapper, waits and sends.
    #[test]
    fn a_tree_of_memory_kinds_runs_without_difference() {
        use crate::r#gen::TimeSpec;
        let time = |since, halves, less_than, or_never| TimeSpec {
            since,
            halves,
            less_than,
            or_never,
        };
        let spec = Spec::Concurrent {
            succeed: Count::AtLeast(2),
            fail: Count::AtLeast(2),
            children: vec![
                Spec::ScriptWrapper {
                    enter: 3,
                    exit: 0,
                    child: Box::new(Spec::Sequence(vec![
                        Spec::ScriptGate(0, Box::new(Spec::WaitForEvent(0))),
                        Spec::SendEvent { event: 1, to: -1 },
                        Spec::IfTime(time(1, 2, true, false), Box::new(Spec::Deferred)),
                    ])),
                },
                Spec::Selector(vec![
                    Spec::AssertCondition(0),
                    Spec::WaitUntilTime(time(0, 3, false, false)),
                    Spec::SendEvent { event: 0, to: 1 },
                ]),
                Spec::IfCondition(2, Box::new(Spec::Script(6))),
            ],
        };
        let run = Run {
            seed: 11,
            agents: 3,
            ticks: 200,
            halts: true,
            trace: true,
        };
        let stats = differential(&spec, &run).unwrap_or_else(|m| panic!("{m}"));
        assert_eq!(stats.agent_ticks, 600);
        assert!(stats.coverage.events_sent > 0 && stats.events_routed > 0);
    }

    /// Random trees reach the memory kinds' rarer paths (the VM's
    /// differential tests check the others).
    #[test]
    fn random_trees_exercise_the_memory_kinds() {
        let mut totals = Stats::default();
        let mut interpreter = Interpreter::new();
        // Enough trees that a wrapper is cancelled while it runs (one in
        // a few hundred trees).
        for seed in 0..400 {
            let spec = Spec::random(seed, 5, 4);
            let run = Run {
                seed,
                agents: 3,
                ticks: 100,
                halts: true,
                trace: seed % 2 == 0,
            };
            let stats = differential_with(&spec, &run, &mut interpreter)
                .unwrap_or_else(|m| panic!("seed {seed}: {m}"));
            totals.add(&stats);
        }
        let c = &totals.coverage;
        for (what, count) in [
            ("script faults", c.script_faults),
            ("gate failures", c.gate_failures),
            ("gates passed while their child ran", c.gates_passed_running),
            ("wrapper exits on cancellation", c.wrapper_exits_cancelled),
            ("time waits done", c.time_waits_done),
            ("events awaited", c.events_awaited),
            ("events sent", c.events_sent),
            ("events delivered", totals.events_delivered),
            ("events routed", totals.events_routed),
            ("events that reached running nodes", totals.events_reached),
        ] {
            assert!(
                count > 0,
                "the random runs never produced {what}: {totals:?}"
            );
        }
    }
}
