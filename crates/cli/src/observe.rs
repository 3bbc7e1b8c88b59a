//! What `treebeard run` shows of the agents' minds besides the verdict: the
//! leveled decision trace (`--level`), a per-node profile (`--profile`),
//! each agent's state at the end (`--state`) and a recording for `treebeard
//! view` (`--record`).

use clap::Args;
use std::io::{self, Stdout, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use treebeard_scenario::{Prepared, Vm};
use treebeard_vm::observe::{ActiveSince, Both, DecisionTrace, Profile, TraceLevel, print_state};
use treebeard_vm::recording::DEFAULT_BUDGET;
use treebeard_vm::{AgentId, Recorder};

/// The observing options of `treebeard run`.
#[derive(Args, Clone, Debug, Default)]
pub(crate) struct ObserveArgs {
    /// Print the decision trace at this level to standard output: 1
    /// behaviours starting and ending, 2 every node's transitions and root
    /// reports, 3 every tick with its running behaviours, 4 also every
    /// decider visited, 5 also every node's result.
    #[arg(long, value_name = "0-5", value_parser = clap::value_parser!(u8).range(0..=5), conflicts_with = "watch")]
    pub level: Option<u8>,
    /// Only these agents in the trace and the states (repeat the option or
    /// separate with commas) [default: all].
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
    /// Record every agent's node states per tick into this recording file
    /// (one scenario; `treebeard view FILE` shows it; the format is in
    /// docs/recording.md).
    #[arg(long, value_name = "FILE", conflicts_with = "watch")]
    pub record: Option<PathBuf>,
}

/// The observers `treebeard run` ticks with: those that print, and the
/// recorder.
pub(crate) type Observers = Both<Printing, Option<Recorder>>;

/// The observers whose findings `treebeard run` prints.
pub(crate) type Printing =
    Both<Both<Option<DecisionTrace<Stdout>>, Option<Profile>>, Option<ActiveSince>>;

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
        let profile = self.profile.then(|| Profile::new(shape));
        let since = self.state.then(ActiveSince::new);
        let recorder = self
            .record
            .as_ref()
            .map(|_| Recorder::new(shape, DEFAULT_BUDGET));
        Ok(Both::new(
            Both::new(Both::new(trace, profile), since),
            recorder,
        ))
    }

    /// Prints the profile and the states after the run of `engine`, which
    /// ran `prepared`.
    pub(crate) fn report(&self, prepared: &Prepared, engine: &Vm<Observers>) {
        let observers = &engine.observer().first;
        if let Some(e) = observers.first.first.as_ref().and_then(|t| t.error()) {
            eprintln!("error: cannot write the decision trace: {e}");
        }
        let program = &prepared.program;
        if let Some(profile) = &observers.first.second {
            print!("{}", profile.render(program.shape()));
        }
        if let Some(since) = &observers.second {
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
                    println!("agent {agent} @ {time:.3}: idle");
                } else {
                    println!("agent {agent} @ {time:.3}:\n{state}");
                }
            }
        }
    }

    /// Writes the recording of the run of `engine` to the `--record` file,
    /// if one was asked for; a file that cannot be written is exit status 2.
    pub(crate) fn write_recording(&self, engine: &Vm<Observers>) -> Result<(), ExitCode> {
        let (Some(path), Some(recorder)) = (&self.record, &engine.observer().second) else {
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
