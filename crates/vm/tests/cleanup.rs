//! Clean-up exactly once (feature A3), on random trees: whatever ends a
//! piece of running work (its own finish, a higher priority, a concurrent
//! decider deciding, a timeout, a reactive sequence's guard, a halt), the
//! VM ends it once and only once.
//!
//! Each case runs a few agents of a random tree on the VM alone, with the
//! differential runs' schedule (`treebeard_testkit::Run` and `Mailbox`):
//! random leaf outcomes, game-system reports on deferred actions, events
//! and halts (`Interpreter::halt`). A [`Ledger`] per agent follows every
//! run of every node from what the application sees (the leaf calls and
//! scope hooks logged by the test world, the wrappers' marks, the
//! requests, the results of reports):
//!
//! * an immediate action's run starts when `Signal::Start` returns Running
//!   and ends when a call returns Success or Failure (it finished) or with
//!   one `Signal::Cancel` call (it was cleaned up);
//! * a deferred action's run starts with its launch request and ends when
//!   the VM accepts a success or failure report (it finished) or with one
//!   cancel request;
//! * a scope's run starts with its hooks' enter and ends with one exit; a
//!   `ScriptWrapper`'s with its enter script (one that did not fault) and
//!   one exit script.
//!
//! After every step (report, event, halt, tick) no run may have ended
//! twice or been ended without running, and the runs the ledger holds open
//! must be exactly the work the VM remembers; after the last tick every
//! agent is halted, and no run may be left open. A failure shows the tree,
//! its disassembly, the agent's recent steps and what went wrong; proptest
//! then shrinks the tree.

use std::collections::BTreeMap;
use treebeard_shape::{Kind, NodeIdx};
use treebeard_testkit::{Event, Mailbox, Run, Spec, World, random_cases};
use treebeard_vm::{
    ActionState, Actor, AgentId, Ending, Frame, Interpreter, Outcome, Program, Request,
    RequestKind, Signal, Status,
};

/// Random trees from the proptest strategy (shrinking to a small tree on
/// failure): 512 cases of 1 to 4 agents for 40 ticks, then a halt of each
/// (see `treebeard_testkit::random_cases`).
#[test]
fn running_work_is_cleaned_up_exactly_once() {
    let mut totals = Tally::default();
    random_cases(|spec, run| {
        totals.add(&check(spec, run)?);
        Ok(())
    });
    assert_exercised(&totals);
}

/// Seeded trees, longer runs: work that stays running for many ticks is
/// abandoned in more ways.
#[test]
fn running_work_is_cleaned_up_exactly_once_on_fixed_seeds() {
    let mut totals = Tally::default();
    for seed in 0..100 {
        let spec = Spec::random(seed, 6, 5);
        let run = Run {
            seed,
            agents: 3,
            ticks: 200,
            halts: true,
            trace: seed % 2 == 1,
        };
        let tally = check(&spec, &run).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        totals.add(&tally);
    }
    assert_exercised(&totals);
}

/// The random runs must end work in every way, or balancing proves little.
fn assert_exercised(totals: &Tally) {
    let reached = [
        ("actions finished", totals.finished[Work::Action as usize]),
        ("actions cancelled", totals.cleaned[Work::Action as usize]),
        (
            "deferred actions completed",
            totals.finished[Work::Deferred as usize],
        ),
        (
            "deferred actions cancelled",
            totals.cleaned[Work::Deferred as usize],
        ),
        ("scopes finished", totals.finished[Work::Scope as usize]),
        ("scopes cancelled", totals.cleaned[Work::Scope as usize]),
        ("wrappers exited", totals.finished[Work::Wrapper as usize]),
        ("halts that cleaned up work", totals.halts_cleaning),
    ];
    for (what, count) in reached {
        assert!(count > 0, "the random runs never had {what}: {totals:?}");
    }
}

/// Work that a node starts and that must end exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Work {
    /// An immediate action's run.
    Action,
    /// A deferred action's launch.
    Deferred,
    /// A scope's hooks.
    Scope,
    /// A `ScriptWrapper`'s scripts.
    Wrapper,
}

impl Work {
    /// The work a node of `kind` starts, if any.
    fn of(kind: Kind) -> Option<Work> {
        match kind {
            Kind::Action => Some(Work::Action),
            Kind::Deferred => Some(Work::Deferred),
            Kind::Scope => Some(Work::Scope),
            Kind::ScriptWrapper => Some(Work::Wrapper),
            _ => None,
        }
    }

    /// Whether the VM remembers `state` for running work of this kind.
    fn running(self, state: ActionState) -> bool {
        match self {
            Work::Action | Work::Scope | Work::Wrapper => matches!(state, ActionState::Running(_)),
            Work::Deferred => matches!(state, ActionState::Launched | ActionState::Acknowledged),
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// By itself: an action's or scope's success or failure, a deferred
    /// action's accepted completion, a wrapper's exit (which does not say
    /// how it ended).
    Finished,
    /// By a clean-up: a cancel call, a cancel request, a cancelled scope's
    /// exit.
    Cleaned,
}

/// The runs of one (agent, node).
#[derive(Clone, Copy, Debug, Default)]
struct Runs {
    started: u64,
    ended: u64,
    /// A run started and has not ended.
    open: bool,
}

/// Runs started and ended, summed over a test's cases, by [`Work`].
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    started: [u64; 4],
    finished: [u64; 4],
    cleaned: [u64; 4],
    /// Halts that ended some run.
    halts_cleaning: u64,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        for i in 0..4 {
            self.started[i] += other.started[i];
            self.finished[i] += other.finished[i];
            self.cleaned[i] += other.cleaned[i];
        }
        self.halts_cleaning += other.halts_cleaning;
    }

    fn ended(&self) -> u64 {
        self.finished.iter().chain(&self.cleaned).sum()
    }
}

/// One agent's runs, by node.
#[derive(Default)]
struct Ledger {
    runs: BTreeMap<NodeIdx, Runs>,
    tally: Tally,
}

impl Ledger {
    /// The nodes with an open run.
    fn open(&self) -> Vec<NodeIdx> {
        self.runs
            .iter()
            .filter(|(_, r)| r.open)
            .map(|(&n, _)| n)
            .collect()
    }

    /// Whether a run of `node` is open.
    fn is_open(&self, node: NodeIdx) -> bool {
        self.runs.get(&node).is_some_and(|r| r.open)
    }

    /// A run of `work` at `node` starts.
    fn start(&mut self, work: Work, node: NodeIdx) -> Result<(), String> {
        let runs = self.runs.entry(node).or_default();
        if runs.open {
            return Err(format!(
                "{work:?} {node} started again while its last run was open: \
                 that run was never ended"
            ));
        }
        runs.open = true;
        runs.started += 1;
        self.tally.started[work as usize] += 1;
        Ok(())
    }

    /// The open run of `work` at `node` ends.
    fn end(&mut self, work: Work, node: NodeIdx, how: End) -> Result<(), String> {
        let runs = self.runs.entry(node).or_default();
        if !runs.open {
            return Err(format!(
                "{work:?} {node} ended ({how:?}) while not running: \
                 a second clean-up, or an end of work that never started"
            ));
        }
        runs.open = false;
        runs.ended += 1;
        match how {
            End::Finished => self.tally.finished[work as usize] += 1,
            End::Cleaned => self.tally.cleaned[work as usize] += 1,
        }
        Ok(())
    }

    /// Follows one leaf call or hook.
    fn call(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::Condition(..) => Ok(()),
            Event::Action(node, signal, _, status) => match (signal, status) {
                (Signal::Start, Status::Running) => self.start(Work::Action, node),
                (Signal::Start, _) if self.is_open(node) => Err(format!(
                    "action {node} started again while its last run was open: \
                     that run was never ended"
                )),
                (Signal::Start, _) => Ok(()),
                (Signal::Tick, _) if !self.is_open(node) => {
                    Err(format!("action {node} ticked while not running"))
                }
                (Signal::Tick, Status::Running) => Ok(()),
                (Signal::Tick, _) => self.end(Work::Action, node, End::Finished),
                (Signal::Cancel, _) => self.end(Work::Action, node, End::Cleaned),
            },
            Event::Enter(node) => self.start(Work::Scope, node),
            Event::Exit(node, how) => {
                let how = match how {
                    Ending::Cancelled => End::Cleaned,
                    Ending::Success | Ending::Failure => End::Finished,
                };
                self.end(Work::Scope, node, how)
            }
            Event::Entered(node) => self.start(Work::Wrapper, node),
            Event::Exited(node) => self.end(Work::Wrapper, node, End::Finished),
            Event::Decide(_) => Ok(()),
        }
    }

    /// Follows one request.
    fn request(&mut self, request: &Request) -> Result<(), String> {
        match request.kind {
            RequestKind::Launch => self.start(Work::Deferred, request.node),
            RequestKind::Cancel => self.end(Work::Deferred, request.node, End::Cleaned),
            RequestKind::Event { .. }
            | RequestKind::RedecideLimit
            | RequestKind::SubsetRule
            | RequestKind::Enter
            | RequestKind::Leave
            | RequestKind::StartCooldown
            | RequestKind::Arrive { .. }
            | RequestKind::LeaveTeam { .. }
            | RequestKind::BreakOut { .. } => Ok(()),
            // Ticks never remap: only a reload does.
            RequestKind::Remap { .. } => Err(format!("a tick remapped {}", request.node)),
        }
    }

    /// Every run balances (started = ended + open), and the open runs are
    /// exactly the work the VM remembers.
    fn check<B>(&self, program: &Program<B>, actor: &Actor) -> Result<(), String> {
        for (node, runs) in &self.runs {
            if runs.started != runs.ended + u64::from(runs.open) {
                return Err(format!("{node} does not balance: {runs:?}"));
            }
        }
        let shape = program.shape();
        let held: BTreeMap<NodeIdx, ActionState> = actor
            .as_ref()
            .actions()
            .filter(|&(node, state)| Work::of(shape.kind(node)).is_some_and(|w| w.running(state)))
            .collect();
        let open = self.open();
        if !held.keys().copied().eq(open.iter().copied()) {
            return Err(format!(
                "the VM remembers running work {held:?}, the ledger has open runs at {open:?}"
            ));
        }
        Ok(())
    }
}

/// How many earlier steps a failure shows.
const HISTORY: usize = 12;

/// One agent on the VM, with its ledger.
struct Agent {
    id: AgentId,
    actor: Actor,
    world: World,
    ledger: Ledger,
    history: Vec<String>,
}

impl Agent {
    /// Follows what a step did (the calls the world logged and its
    /// requests) and checks the ledger.
    fn step(
        &mut self,
        program: &Program<World>,
        step: &str,
        requests: &[Request],
    ) -> Result<(), Failure> {
        let calls = self.world.take_log();
        let line = format!("{step}: calls {calls:?}, requests {requests:?}");
        let followed = calls
            .iter()
            .try_for_each(|&call| self.ledger.call(call))
            .and_then(|()| requests.iter().try_for_each(|r| self.ledger.request(r)))
            .and_then(|()| self.ledger.check(program, &self.actor));
        if let Err(what) = followed {
            return Err(self.failure(line, what));
        }
        if self.history.len() == HISTORY {
            self.history.remove(0);
        }
        self.history.push(line);
        Ok(())
    }

    /// What went wrong at `step`, with the agent's history.
    fn failure(&self, step: String, what: String) -> Failure {
        Failure {
            agent: self.id,
            step,
            what,
            history: self.history.clone(),
        }
    }

    /// Halts the agent (`Interpreter::halt`) and follows what that did.
    fn halt(
        &mut self,
        interpreter: &mut Interpreter,
        program: &Program<World>,
        frame: &Frame,
        step: &str,
    ) -> Result<(), Failure> {
        let mut requests = Vec::new();
        interpreter.halt(
            program,
            frame,
            self.id,
            &mut self.actor.as_mut(),
            &mut self.world,
            &mut requests,
        );
        let ended = self.ledger.tally.ended();
        self.step(program, step, &requests)?;
        if self.ledger.tally.ended() > ended {
            self.ledger.tally.halts_cleaning += 1;
        }
        Ok(())
    }
}

/// What went wrong, for an agent.
struct Failure {
    agent: AgentId,
    /// The step, with its calls and requests.
    step: String,
    what: String,
    /// The agent's earlier steps, most recent last.
    history: Vec<String>,
}

impl Failure {
    fn show(&self, spec: &Spec, run: &Run, program: &Program<World>) -> String {
        let mut out = format!(
            "{}\n{} at {}\ntree: {spec:?}\nrun:  {run:?}\nshape:\n{}\nhistory of {}:\n",
            self.what,
            self.agent,
            self.step,
            program.shape().disassemble(),
            self.agent
        );
        for line in &self.history {
            out += &format!("  {line}\n");
        }
        out
    }
}

/// Runs `spec` on the VM as `run` says, then halts every agent, following
/// every run in the agents' ledgers. Returns the runs' tally, or what went
/// wrong.
fn check(spec: &Spec, run: &Run) -> Result<Tally, String> {
    let program = spec.compile();
    run_ledgers(&program, run).map_err(|f| f.show(spec, run, &program))
}

fn run_ledgers(program: &Program<World>, run: &Run) -> Result<Tally, Failure> {
    let mut interpreter = Interpreter::with_capacity(program.spec());
    let every_node: Vec<NodeIdx> = (0..program.shape().len() as u32)
        .map(NodeIdx::new)
        .collect();
    let mut agents: Vec<Agent> = (0..run.agents)
        .map(|i| Agent {
            id: AgentId(i),
            actor: Actor::for_shape(program.shape()),
            world: run.world(AgentId(i)),
            ledger: Ledger::default(),
            history: Vec::new(),
        })
        .collect();
    let mut last = Frame::default();
    let mut mailbox = Mailbox::new(run);
    for tick in 0..run.ticks {
        let frame = run.frame(tick, &last);
        let mut sent = Vec::new();
        for agent in &mut agents {
            let id = agent.id;

            // The game system reports (now and then on a node it did not
            // launch: a stale report).
            for &node in &every_node {
                let launched =
                    agent.ledger.is_open(node) && program.shape().kind(node) == Kind::Deferred;
                let Some(outcome) = run.report(tick, id, node, launched) else {
                    continue;
                };
                let result = agent.actor.as_mut().complete(node, outcome);
                let step = format!("tick {tick}: report {outcome:?} for {node}: {result:?}");
                if result.is_ok() != launched {
                    let what = if launched {
                        "the VM refused a report on a launched action: it forgot the launch"
                    } else {
                        "the VM accepted a report on work it never requested"
                    };
                    return Err(agent.failure(step, what.into()));
                }
                if launched && outcome != Outcome::Running {
                    agent
                        .ledger
                        .end(Work::Deferred, node, End::Finished)
                        .expect("the run is open");
                }
                agent.step(program, &step, &[])?;
            }

            // Events sent to it on the last tick, and from outside.
            for (event, _) in mailbox.take(run, tick, id) {
                interpreter.send_event(
                    program,
                    &last,
                    id,
                    &mut agent.actor.as_mut(),
                    &mut agent.world,
                    event,
                );
                agent.step(program, &format!("tick {tick}: event {}", event.0), &[])?;
            }

            // Now and then a halt.
            if run.halts_at(tick, id) {
                let step = format!("tick {tick}: halt");
                agent.halt(&mut interpreter, program, &frame, &step)?;
            }

            // The tick.
            agent.world.tick = tick;
            let mut requests = Vec::new();
            let status = if run.trace {
                interpreter.tick_traced(
                    program,
                    &frame,
                    id,
                    &mut agent.actor.as_mut(),
                    &mut agent.world,
                    &mut requests,
                    &mut |_, _| {},
                )
            } else {
                interpreter.tick(
                    program,
                    &frame,
                    id,
                    &mut agent.actor.as_mut(),
                    &mut agent.world,
                    &mut requests,
                )
            };
            agent.step(program, &format!("tick {tick}: {status:?}"), &requests)?;
            sent.extend(requests);
        }
        mailbox.post(&sent);
        last = frame;
    }

    // At the end every agent is halted: nothing may be left running.
    let mut tally = Tally::default();
    for agent in &mut agents {
        agent.halt(&mut interpreter, program, &last, "final halt")?;
        let open = agent.ledger.open();
        if !open.is_empty() {
            let what = format!("runs left open after the final halt at {open:?}");
            return Err(agent.failure("final halt".into(), what));
        }
        tally.add(&agent.ledger.tally);
    }
    Ok(tally)
}
