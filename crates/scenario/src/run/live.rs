//! Live runs: a scenario whose agents tick on past its script, and whose
//! tree can be replaced while they run (what `treebeard run --watch`
//! drives).
//!
//! [`Live::start`] runs the scenario as [`Prepared::run`] does, on the
//! stream interpreter, checking its expectations, and keeps its agents.
//! [`Live::tick`] then ticks them on, one tick at a time, as the script's
//! ticks are ticked but with no world script and no expectations: their
//! blackboards stay as the script left them, `Deferred` leaves with `ticks`
//! still complete by themselves, events sent are delivered.
//! [`Live::reload`] replaces the tree between two ticks by a hot reload
//! (`treebeard_vm::Remap`): running work keeps its place where its place
//! holds and is cancelled with its clean-up by the old tree where it does
//! not, and a `Deferred` leaf carried to a new item completes there.

use super::{Prepared, Vm, World};
use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::Arc;
use treebeard_shape::NodeMap;
use treebeard_vm::{Carried, ReloadError, Remap, Request, RequestKind, Status};

/// A scenario running on past its script (see the module docs).
pub struct Live {
    prepared: Prepared,
    vm: Vm,
    world: World,
    /// The next tick's index.
    next: u64,
}

/// One tick of a live run, as a status line shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveTick {
    /// The tick's index.
    pub tick: u64,
    /// Per agent: its root's status and the paths of its leaves with
    /// running work.
    pub agents: Vec<(Status, Vec<String>)>,
}

/// Agents a status line names one by one; more are counted.
const LISTED_AGENTS: usize = 8;

/// `tick 12: agent 0 running (patrol/Walk), agent 1 success`; past eight
/// agents, `tick 12: 7 running, 3 success, 0 failure`.
impl fmt::Display for LiveTick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |s: Status| match s {
            Status::Success => "success",
            Status::Failure => "failure",
            Status::Running => "running",
        };
        write!(f, "tick {}: ", self.tick)?;
        if self.agents.len() > LISTED_AGENTS {
            let count = |s| self.agents.iter().filter(|(a, _)| *a == s).count();
            return write!(
                f,
                "{} running, {} success, {} failure",
                count(Status::Running),
                count(Status::Success),
                count(Status::Failure)
            );
        }
        for (i, (status, running)) in self.agents.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "agent {i} {}", name(*status))?;
            if !running.is_empty() {
                write!(f, " ({})", running.join(" "))?;
            }
        }
        Ok(())
    }
}

/// What a reload did.
#[derive(Clone, Debug)]
pub struct Reloaded {
    /// How the old tree's nodes map to the new tree's.
    pub nodes: NodeMap,
    /// What carrying the agents did to their running work.
    pub carried: Carried,
    /// The reload's requests, in agent order (see `Crowd::reload`).
    pub requests: Vec<Request>,
}

/// `9 nodes kept, 2 moved, 1 vanished, 3 added; running work: 2 carried,
/// 1 cancelled, 1 remapped`.
impl fmt::Display for Reloaded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (n, c) = (&self.nodes, &self.carried);
        write!(
            f,
            "{} nodes kept, {} moved, {} vanished, {} added; running work: {} carried, {} cancelled, {} remapped",
            n.kept(),
            n.moved(),
            n.vanished(),
            n.added(),
            c.kept,
            c.cancelled,
            c.remapped
        )
    }
}

impl Live {
    /// Runs `prepared`'s scenario on the stream interpreter, as
    /// [`Prepared::run`] does (writing trace lines to `trace` if given), and
    /// keeps its agents to tick on from where it stopped: after its last
    /// tick, or after the tick of its first unmet expectation.
    ///
    /// # Errors
    /// If the trace cannot be written.
    pub fn start(
        prepared: Prepared,
        trace: Option<&mut dyn Write>,
    ) -> io::Result<(Live, super::Verdict)> {
        let mut vm = prepared.vm();
        let mut world = World::new(prepared.agents());
        let ticks = 0..prepared.scenario.ticks;
        let verdict = prepared.run_ticks(&mut vm, trace, &mut world, ticks)?;
        let live = Live {
            next: verdict.ticks,
            prepared,
            vm,
            world,
        };
        Ok((live, verdict))
    }

    /// The scenario as last prepared: its tree is the one running.
    pub fn prepared(&self) -> &Prepared {
        &self.prepared
    }

    /// The index of the next tick.
    pub fn next_tick(&self) -> u64 {
        self.next
    }

    /// The files the running tree was read from.
    pub fn tree_files(&self) -> Vec<PathBuf> {
        let files = self.vm.program.shape().files();
        files.iter().map(|f| PathBuf::from(&**f)).collect()
    }

    /// Ticks every agent once more (writing trace lines to `trace` if
    /// given).
    ///
    /// # Errors
    /// If the trace cannot be written.
    pub fn tick(&mut self, trace: Option<&mut dyn Write>) -> io::Result<LiveTick> {
        let tick = self.next;
        self.prepared
            .run_ticks(&mut self.vm, trace, &mut self.world, tick..tick + 1)?;
        self.next += 1;
        let paths = &self.prepared.paths;
        let agents = (0..self.world.agents.len() as u32)
            .map(|a| {
                let status = self
                    .world
                    .statuses
                    .get(a as usize)
                    .copied()
                    .unwrap_or(Status::Failure);
                let running = super::Engine::running(&self.vm, a)
                    .iter()
                    .map(|n| paths[n.index()].clone())
                    .collect();
                (status, running)
            })
            .collect();
        Ok(LiveTick { tick, agents })
    }

    /// Replaces the running tree by `prepared`'s, between two ticks,
    /// carrying every agent over (see the module docs). Only the tree
    /// changes: the agents, their blackboards and the frame go on, and the
    /// rest of `prepared`'s scenario (its script and expectations) is not
    /// run. The reload's cancel requests end the self-completing `Deferred`
    /// leaves they name; its remaps move them.
    ///
    /// # Errors
    /// If the new tree was loaded against other blackboard keys or events
    /// (the scenario's `blackboard` or `events` changed: restart the run to
    /// use them), or is too large for actors. The run is unchanged then.
    pub fn reload(&mut self, prepared: Prepared) -> Result<Reloaded, ReloadError> {
        let mut remap = Remap::new(&self.vm.program, prepared.program.clone())?;
        let mut requests = Vec::new();
        let mut actors = remap.actors(
            &self.world.last,
            &self.vm.actors,
            &mut self.world.agents,
            &mut requests,
        );
        let reloaded = Reloaded {
            nodes: remap.nodes().clone(),
            carried: remap.carried(),
            requests,
        };
        self.vm.program = remap.finish(&mut actors);
        self.vm.actors = actors;
        self.vm.interpreter.reserve(self.vm.program.spec());
        for agent in &mut self.world.agents {
            agent.setup = Arc::clone(&prepared.setup);
        }
        // The self-completing leaves follow their requests; an agent's
        // remaps re-address at once.
        let due = &mut self.world.due;
        let mut moved = Vec::new();
        for r in &reloaded.requests {
            match r.kind {
                RequestKind::Cancel => {
                    due.remove(&(r.agent.0, r.node));
                }
                RequestKind::Remap { from } => {
                    if let Some(when) = due.remove(&(r.agent.0, from)) {
                        moved.push(((r.agent.0, r.node), when));
                    }
                }
                _ => {}
            }
        }
        due.extend(moved);
        self.prepared = prepared;
        Ok(reloaded)
    }
}
