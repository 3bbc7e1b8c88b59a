//! Hot reload of a crowd: replacing the program its agents run between
//! ticks, carrying every agent's state over (see `treebeard_vm::Remap` for
//! the rules).

use super::Crowd;
use treebeard_shape::NodeMap;
use treebeard_vm::{AgentId, Carried, Program, ReloadError, Remap, Request};

/// What [`Crowd::reload`] did.
#[derive(Clone, Debug)]
pub struct ReloadReport {
    /// How the old shape's nodes map to the new shape's: kept, moved,
    /// vanished and added nodes ([`NodeMap::kept`] and the others), and
    /// the translation of any node reference the game holds.
    pub nodes: NodeMap,
    /// What carrying the agents did to their running work, over all agents:
    /// action states carried, cancelled with their clean-up, and deferred
    /// actions re-addressed.
    pub carried: Carried,
    /// Completions queued before the reload that were stale (they are
    /// applied, at their old addresses, before the agents are carried).
    pub stale_completions: usize,
    /// The requests of the reload, per agent in agent order: the cancels of
    /// deferred actions whose place vanished (naming the old item and
    /// import, the address the game systems know), then the `Leave`s of
    /// cancelled gate tickets and the `BreakOut`s of cancelled team tickets
    /// (already settled), then the `Remap`s of
    /// deferred actions carried to a new item or import. The game systems
    /// act on the cancels and remaps (`RequestKind::is_for_game`) before
    /// they report again.
    pub requests: Vec<Request>,
}

impl<B> Crowd<B> {
    /// Replaces the program every agent runs, between ticks, keeping the
    /// agents and their blackboards: each agent's actor is carried over to
    /// the new shape (running work keeps its place where its place holds,
    /// and is cancelled with its clean-up by the old program where it does
    /// not; persistent slots and memory follow their nodes and names), the
    /// actors are laid out anew for the new shape, the global tree state
    /// carries to the mapped `Gate`, `GlobalCooldown` and `Team` nodes that
    /// survive (same parameters; a team's children role by role: see
    /// `treebeard_vm::Remap`), and the
    /// crowd is planned anew. Completions queued before the reload are
    /// applied first, at their old addresses.
    ///
    /// The game gets its requests in the report, not in
    /// [`Crowd::requests`], which still holds the last tick's. Cancel calls,
    /// scope exits and the like run on the calling thread, agent by agent,
    /// so the result does not depend on the number of threads.
    ///
    /// # Errors
    /// If `program` was compiled against other blackboard fields than the
    /// running one, or other events (one list of events may extend the
    /// other), or its agents would need more states than an actor holds.
    /// The crowd is unchanged then.
    pub fn reload(&mut self, program: Program<B>) -> Result<ReloadReport, ReloadError> {
        let mut remap = Remap::new(&self.program, program)?;
        // Reports the game made for the old shape go to the old addresses.
        self.apply_completions();
        let mut requests = Vec::new();
        let mut actors = treebeard_vm::Actors::new(remap.layout(), self.slots());
        for (i, blackboard) in self.blackboards.iter_mut().enumerate() {
            remap.actor(
                &self.frame,
                AgentId(i as u32),
                self.actors.get(i),
                &mut actors.get_mut(i),
                blackboard,
                &mut requests,
            );
        }
        let report = ReloadReport {
            nodes: remap.nodes().clone(),
            carried: remap.carried(),
            stale_completions: self.stale,
            requests,
        };
        self.program = remap.finish(&mut actors);
        self.actors = actors;
        // The deciders reported were the old shape's items.
        self.reported.clear();
        self.replan();
        Ok(report)
    }
}
