//! What `treebeard run` shows of the agents' minds besides the verdict: the
//! leveled decision trace (`--level`), a per-node profile (`--profile`),
//! each agent's state at the end (`--state`), the nodes' log messages
//! (`--logs`) and a recording for `treebeard view` (`--record`).

use clap::Args;
use std::io::{self, Stdout, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use treebeard_scenario::{Prepared, Vm};
use treebeard_shape::NodeIdx;
use treebeard_vm::observe::{ActiveSince, DecisionTrace, Profile, TraceLevel, print_state};
use treebeard_vm::recording::DEFAULT_BUDGET;
use treebeard_vm::{
    AgentId, Frame, LogRecord, LogSink, Logs, NodeStates, Observer, Recorder, Status, TraceEvent,
};

/// The observing options of `treebeard run`.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct ObserveArgs {
    /// Print the decision trace at this level to standard output: 1
    /// behaviours starting and ending, 2 every node's transitions and root
    /// reports, 3 every tick with its running behaviours, 4 also every
    /// decider visited, 5 also every node's result.
    #[arg(long, value_name = "0-5", value_parser = clap::value_parser!(u8).range(0..=5), conflicts_with = "watch")]
    pub level: Option<u8>,
    /// Only these agents in the trace, the logs and the states (repeat the
    /// option or separate with commas) [default: all].
    #[arg(
        long = "agent",
        value_name = "A",
        value_delimiter = ',',
        conflicts_with = "watch"
    )]
    pub agents: Vec<u32>,
    /// After each scenario, print per-node visits, results and self time,
    /// most time first.
    #[arg(long, conflicts_with = "watch")]
    pub profile: bool,
    /// After each scenario, print each agent's active path with how long
    /// each node has run and where it was written.
    #[arg(long, conflicts_with = "watch")]
    pub state: bool,
    /// Print the log messages the tree gives its nodes (`_startLog`, a
    /// `log` map, ...) as the nodes start, succeed and fail, a `LOG` line
    /// each.
    #[arg(long, conflicts_with = "watch")]
    pub logs: bool,
    /// Record every agent's node states per tick into this recording file
    /// (one scenario; `treebeard view FILE` shows it; the format is in
    /// docs/recording.md).
    #[arg(long, value_name = "FILE", conflicts_with = "watch")]
    pub record: Option<PathBuf>,
}

/// The observers `treebeard run` ticks with, each there when asked for,
/// each hearing the agents it watches.
pub(crate) struct Observers {
    trace: Option<DecisionTrace<Stdout>>,
    profile: Option<Profile>,
    since: Option<ActiveSince>,
    logs: Option<Logs<Printed>>,
    recorder: Option<Recorder>,
    /// Only these agents for the trace, the logs and the states (sorted;
    /// empty: all).
    agents: Vec<u32>,
    /// Which of the five watch the agent being ticked.
    on: [bool; 5],
}

/// Log records printed to standard output as they happen.
pub(crate) struct Printed;

impl LogSink for Printed {
    fn log(&mut self, record: &LogRecord<'_>) {
        crate::out(format_args!("LOG {record}\n"));
    }
}

impl Observers {
    /// The five, in a fixed order.
    fn each(&mut self) -> [Option<&mut dyn Observer>; 5] {
        [
            self.trace.as_mut().map(|o| o as &mut dyn Observer),
            self.profile.as_mut().map(|o| o as &mut dyn Observer),
            self.since.as_mut().map(|o| o as &mut dyn Observer),
            self.logs.as_mut().map(|o| o as &mut dyn Observer),
            self.recorder.as_mut().map(|o| o as &mut dyn Observer),
        ]
    }

    /// Whether the logs are for `agent`.
    fn chosen(&self, agent: AgentId) -> bool {
        self.agents.is_empty() || self.agents.binary_search(&agent.0).is_ok()
    }
}

impl Observer for Observers {
    fn watches(&self, agent: AgentId) -> bool {
        self.trace.watches(agent)
            || self.profile.watches(agent)
            || self.since.watches(agent)
            || (self.chosen(agent) && self.logs.watches(agent))
            || self.recorder.watches(agent)
    }

    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        let chosen = self.chosen(agent);
        let mut on = [false; 5];
        for (i, o) in self.each().into_iter().enumerate() {
            if let Some(o) = o {
                on[i] = o.watches(agent) && (i != 3 || chosen);
                if on[i] {
                    o.begin(agent, frame);
                }
            }
        }
        self.on = on;
    }

    fn visit(&mut self, node: NodeIdx) {
        let on = self.on;
        for (o, on) in self.each().into_iter().zip(on) {
            if let Some(o) = o.filter(|_| on) {
                o.visit(node);
            }
        }
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        let on = self.on;
        for (o, on) in self.each().into_iter().zip(on) {
            if let Some(o) = o.filter(|_| on) {
                o.event(node, event);
            }
        }
    }

    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        let on = self.on;
        for (o, on) in self.each().into_iter().zip(on) {
            if let Some(o) = o.filter(|_| on) {
                o.end(agent, root, states);
            }
        }
    }
}

impl ObserveArgs {
    /// The observers asked for, for `prepared`'s agents; an agent the
    /// scenario lacks is exit status 2.
    pub(crate) fn observers(&self, prepared: &Prepared) -> Result<Observers, ExitCode> {
        let count = prepared.scenario.agents;
        if let Some(&bad) = self.agents.iter().find(|&&a| a >= count) {
            eprintln!(
                "error: `--agent {bad}`: the scenario has {count} agents, numbered 0 to {}",
                count.saturating_sub(1)
            );
            return Err(ExitCode::from(2));
        }
        let shape = prepared.program.shape();
        let trace = self.level.and_then(TraceLevel::new).map(|level| {
            let trace = DecisionTrace::new(shape, level, io::stdout());
            if self.agents.is_empty() {
                trace
            } else {
                trace.only(self.agents.iter().map(|&a| AgentId(a)))
            }
        });
        let mut agents = self.agents.clone();
        agents.sort_unstable();
        Ok(Observers {
            trace,
            profile: self.profile.then(|| Profile::new(shape)),
            since: self.state.then(ActiveSince::new),
            logs: self.logs.then(|| Logs::new(shape, Printed)),
            recorder: self
                .record
                .as_ref()
                .map(|_| Recorder::new(shape, DEFAULT_BUDGET)),
            agents,
            on: [false; 5],
        })
    }

    /// Prints the profile and the states after the run of `engine`, which
    /// ran `prepared`.
    pub(crate) fn report(&self, prepared: &Prepared, engine: &Vm<Observers>) {
        let observers = engine.observer();
        if let Some(e) = observers.trace.as_ref().and_then(|t| t.error()) {
            eprintln!("error: cannot write the decision trace: {e}");
        }
        let program = &prepared.program;
        if let Some(profile) = &observers.profile {
            crate::out(profile.render(program.shape()));
        }
        if let Some(since) = &observers.since {
            for agent in 0..prepared.scenario.agents {
                if !self.agents.is_empty() && !self.agents.contains(&agent) {
                    continue;
                }
                let state = print_state(
                    program,
                    AgentId(agent),
                    engine.actor(agent),
                    Some(since),
                    false,
                );
                let time = since.now();
                if state.is_empty() {
                    crate::out(format_args!("agent {agent} @ {time:.3}: idle\n"));
                } else {
                    crate::out(format_args!("agent {agent} @ {time:.3}:\n{state}\n"));
                }
            }
        }
    }

    /// Writes the recording of the run of `engine` to the `--record` file,
    /// if one was asked for; a file that cannot be written is exit status 2.
    pub(crate) fn write_recording(&self, engine: &Vm<Observers>) -> Result<(), ExitCode> {
        let (Some(path), Some(recorder)) = (&self.record, &engine.observer().recorder) else {
            return Ok(());
        };
        let written = std::fs::File::create(path).and_then(|file| {
            let mut out = io::BufWriter::new(file);
            recorder.write_to(&mut out)?;
            out.flush()
        });
        written.map_err(|e| {
            eprintln!("error: cannot write {}: {e}", path.display());
            ExitCode::from(2)
        })
    }
}
