//! The crowd's teams: seed 001's group behaviors ("restrict certain
//! behavior branches to only execute when we have exactly 2 agents").
//!
//! A `Team` node runs its branch only with exactly `size` agents. Agents
//! that reach it ask to join (a ticket, as at a gate); at settling, each
//! node's askers, the agent that has asked longest first and then in agent
//! order, are cut into teams of `size` in that order, and an agent's role is
//! its place in its team. A team is a record of the crowd's **team table**
//! ([`Team`]): its node, its members by role, which of them are still in
//! it, and the highest `Sync` point each reached. A member's admitted
//! ticket holds its **seat** (the team's index in the table and its role),
//! so that its branch finds the record, and its requests name it.
//!
//! During a tick the table is read only: a `Sync` reads whether the members
//! still in the team have all reached its point. Members change it with
//! requests, settled after the barrier in three steps, so that the result
//! does not depend on the order of the requests:
//!
//! 1. Arrivals at sync points raise the member's point (the highest wins);
//!    a member whose branch succeeded leaves (its bit is cleared); a member
//!    that left its branch any other way breaks out (its bit is cleared, and
//!    the team is marked broken).
//! 2. Every team that broke or emptied ends: a broken team's members still
//!    in it get a broken ticket (their `Team` node fails on their next
//!    tick, cancelling their branch with the usual clean-up), and the record
//!    is freed.
//! 3. New teams are formed, each in the lowest free record.
//!
//! The table keeps its records and scratch between settlings, so settling
//! allocates only while the crowd forms more teams at once than it ever
//! had.

use super::{Ask, Globals, kind_at, ticket};
use crate::actor::{Actors, action_tag};
use crate::request::{AgentId, Seat};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use treebeard_shape::{Kind, MAX_TEAM_SIZE, NodeIdx, Shape};

/// One team of a `Team` node: a record of the crowd's team table.
///
/// 172 bytes: the node (4), the members still in the team (4, a bit per
/// role), the members' agents by role (32 × 4), the highest `Sync` point
/// each member reached (32 × 1), the size (1) and a flag set while a
/// settling breaks it (1), padded to 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Team {
    node: u32,
    alive: u32,
    members: [u32; MAX_TEAM_SIZE as usize],
    at: [u8; MAX_TEAM_SIZE as usize],
    /// 0 for a free record.
    size: u8,
    broken: bool,
}

impl Team {
    /// A team record from its parts (for snapshots): the `Team` node, its
    /// members by role (as many as its size), which are still in it (bit
    /// `r` for role `r`; at least one) and the highest `Sync` point each
    /// reached. Fails for parts no settling leaves.
    pub fn new(
        node: NodeIdx,
        members: &[AgentId],
        alive: u32,
        reached: &[u8],
    ) -> Result<Team, String> {
        let size = members.len();
        if !(2..=MAX_TEAM_SIZE as usize).contains(&size) || reached.len() != size {
            return Err(format!(
                "a team of {size} members with {} sync points (2 to {MAX_TEAM_SIZE}, one each)",
                reached.len()
            ));
        }
        if alive == 0 || (size < 32 && alive >> size != 0) {
            return Err(format!(
                "a team of {size} with members {alive:#x} still in it"
            ));
        }
        let mut team = Team {
            node: node.get(),
            alive,
            size: size as u8,
            ..Team::FREE
        };
        for (role, m) in members.iter().enumerate() {
            team.members[role] = m.0;
        }
        team.at[..size].copy_from_slice(reached);
        Ok(team)
    }

    /// A free record.
    const FREE: Team = Team {
        node: u32::MAX,
        alive: 0,
        members: [0; MAX_TEAM_SIZE as usize],
        at: [0; MAX_TEAM_SIZE as usize],
        size: 0,
        broken: false,
    };

    /// The `Team` node whose team it is.
    pub fn node(&self) -> NodeIdx {
        NodeIdx::new(self.node)
    }

    /// Its size: the node's `size`.
    pub fn size(&self) -> u32 {
        u32::from(self.size)
    }

    /// The members, by role (those that left included).
    pub fn members(&self) -> impl Iterator<Item = AgentId> + '_ {
        self.members[..self.size as usize]
            .iter()
            .map(|&m| AgentId(m))
    }

    /// The member of role `role`, if the team has that role.
    pub fn member(&self, role: u32) -> Option<AgentId> {
        (role < self.size()).then(|| AgentId(self.members[role as usize]))
    }

    /// Which members are still in the team: bit `r` for role `r`. A member
    /// whose branch succeeded has left.
    pub fn alive(&self) -> u32 {
        self.alive
    }

    /// Whether the member of role `role` is still in the team.
    pub fn is_alive(&self, role: u32) -> bool {
        role < self.size() && self.alive & 1 << role != 0
    }

    /// The highest `Sync` point the member of role `role` reached (0 for
    /// none yet, or no such role).
    pub fn reached(&self, role: u32) -> u32 {
        self.at.get(role as usize).map_or(0, |&p| u32::from(p))
    }

    /// Whether every member still in the team has reached `point` or a
    /// later one: a `Sync` at `point` lets its members pass.
    pub fn all_reached(&self, point: u32) -> bool {
        (0..self.size()).all(|r| !self.is_alive(r) || self.reached(r) >= point)
    }

    /// Whether `agent` sits in it at `seat`'s role, still in the team.
    fn seats(&self, agent: AgentId, role: u32) -> bool {
        self.is_alive(role) && self.members[role as usize] == agent.0
    }
}

/// The team table of a crowd (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Teams {
    /// The records, by index; free ones have size 0.
    records: Vec<Team>,
    /// The free records' indices, lowest first.
    free: BinaryHeap<Reverse<u32>>,
    /// Scratch for settling: the teams a request broke or emptied.
    ended: Vec<u32>,
    /// Scratch for settling: the requests to join, in the order they are
    /// matched.
    pub(super) asks: Vec<Ask>,
}

/// Two tables are equal when they hold the same teams at the same indices
/// (free records and scratch aside).
impl PartialEq for Teams {
    fn eq(&self, other: &Teams) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Teams {
    /// The teams in the table, by index.
    fn iter(&self) -> impl Iterator<Item = (u32, &Team)> + '_ {
        self.records
            .iter()
            .enumerate()
            .filter(|(_, t)| t.size != 0)
            .map(|(i, t)| (i as u32, t))
    }

    /// The team at `index`, if the table has it.
    #[inline]
    fn get(&self, index: u32) -> Option<&Team> {
        self.records.get(index as usize).filter(|t| t.size != 0)
    }

    /// The team `agent` sits in at `seat`, if it is still in it.
    fn seat_mut(&mut self, agent: AgentId, seat: Seat) -> Option<&mut Team> {
        self.records
            .get_mut(seat.team as usize)
            .filter(|t| t.seats(agent, seat.role))
    }

    /// Replaces the teams with `teams` (index and record, indices
    /// increasing), rebuilding the free records below the highest index.
    fn restore(&mut self, teams: &[(u32, Team)]) -> Result<(), String> {
        let mut records = Vec::new();
        for &(index, team) in teams {
            if index >= ticket::MAX_TEAMS || (index as usize) < records.len() {
                return Err(format!(
                    "team {index} is out of order or past the table's {} records",
                    ticket::MAX_TEAMS
                ));
            }
            records.resize(index as usize, Team::FREE);
            records.push(team);
        }
        self.free.clear();
        self.free.extend(
            (0..records.len() as u32)
                .filter(|&i| records[i as usize].size == 0)
                .map(Reverse),
        );
        self.records = records;
        self.ended.clear();
        self.asks.clear();
        Ok(())
    }

    /// `agent`, sitting at `seat`, reached a `Sync` at `point`.
    pub(super) fn arrive(&mut self, agent: AgentId, seat: Seat, point: u32) {
        if let Some(team) = self.seat_mut(agent, seat) {
            let at = &mut team.at[seat.role as usize];
            *at = (*at).max(point.min(u32::from(u8::MAX)) as u8);
        }
    }

    /// `agent`, sitting at `seat` in a team of the `Team` at `node`, left
    /// its branch: by success, or breaking the team (`broken`).
    pub(super) fn leave(&mut self, node: u32, agent: AgentId, seat: Seat, broken: bool) {
        if let Some(team) = self.seat_mut(agent, seat)
            && team.node == node
        {
            team.alive &= !(1 << seat.role);
            team.broken |= broken;
            self.ended.push(seat.team);
        }
    }

    /// Makes room for `teams` teams and `asks` requests to join or leave
    /// in one settling, so that settling does not allocate.
    fn reserve(&mut self, teams: usize, asks: usize) {
        let teams = teams.min(ticket::MAX_TEAMS as usize);
        self.records
            .reserve(teams.saturating_sub(self.records.len()));
        self.free.reserve(teams.saturating_sub(self.free.len()));
        self.ended.reserve(asks.saturating_sub(self.ended.len()));
        self.asks.reserve(asks.saturating_sub(self.asks.len()));
    }

    /// A free record's index, the lowest; `None` when the table is full.
    fn allocate(&mut self) -> Option<u32> {
        if let Some(Reverse(index)) = self.free.pop() {
            return Some(index);
        }
        let index = self.records.len() as u32;
        if index >= ticket::MAX_TEAMS {
            return None;
        }
        self.records.push(Team::FREE);
        Some(index)
    }

    fn release(&mut self, index: u32) {
        self.records[index as usize] = Team::FREE;
        self.free.push(Reverse(index));
    }
}

impl Globals {
    /// The teams of the shape's `Team` nodes, by their index in the crowd's
    /// team table (the index a member's [`Seat`] names), lowest first. A
    /// team is in the table from the settling that formed it until the one
    /// after the last of its members left, or one broke out.
    pub fn teams(&self) -> impl Iterator<Item = (u32, &Team)> + '_ {
        self.teams.iter()
    }

    /// The team at `index` of the table, if there is one.
    pub fn team(&self, index: u32) -> Option<&Team> {
        self.teams.get(index)
    }

    /// Where `agent` sits in a team of the `Team` at `node`, if it is a
    /// member still in one (a search of the table, for debuggers and
    /// tests).
    pub fn seat_of(&self, node: NodeIdx, agent: AgentId) -> Option<Seat> {
        self.teams.iter().find_map(|(team, t)| {
            if t.node != node.get() {
                return None;
            }
            (0..t.size())
                .find(|&role| t.seats(agent, role))
                .map(|role| Seat { team, role })
        })
    }

    /// Replaces the team table with `teams` (index and record, indices
    /// increasing), from a snapshot of a crowd running `shape` whose words
    /// were restored first: each team's node must be a `Team` of `size`
    /// members, and each node's word must count its teams. (Whether the
    /// members' tickets agree is `Program::check_globals`'s part.)
    pub fn restore_teams(&mut self, shape: &Shape, teams: &[(u32, Team)]) -> Result<(), String> {
        for (index, team) in teams {
            let node = team.node();
            if kind_at(shape, node) != Some(Kind::Team)
                || shape.params(node)[0] != u64::from(team.size)
            {
                return Err(format!(
                    "team {index} of {} members is at item {node}, not a Team of that size",
                    team.size
                ));
            }
        }
        for (node, word) in self.iter() {
            if kind_at(shape, node) == Some(Kind::Team) {
                let count = teams.iter().filter(|(_, t)| t.node() == node).count() as u64;
                if word != count {
                    return Err(format!(
                        "the Team at item {node} counts {word} teams, but the table has {count}"
                    ));
                }
            }
        }
        if teams.is_empty() && self.teams.records.is_empty() {
            return Ok(());
        }
        self.teams.restore(teams)
    }

    /// Checks the team table against the agents' tickets in `actors`: each
    /// team's node is a `Team` that counts it, each member still in a team
    /// holds the admitted ticket of its seat there, and each admitted ticket
    /// at a `Team` is such a member's.
    pub(super) fn check_teams(&self, shape: &Shape, actors: &Actors) -> Result<(), String> {
        let holds = |agent: u32, node: u32, value: u32| {
            (agent as usize) < actors.len()
                && actors.get(agent as usize).action_entries().iter().any(|e| {
                    e.node() == node && e.tag() == action_tag::RUNNING && e.value() == value
                })
        };
        for (index, team) in self.teams.iter() {
            if kind_at(shape, team.node()) != Some(Kind::Team) {
                return Err(format!("team {index} is at item {}, not a Team", team.node));
            }
            for role in (0..team.size()).filter(|&r| team.is_alive(r)) {
                let agent = team.members[role as usize];
                if !holds(agent, team.node, ticket::seated(Seat { team: index, role })) {
                    return Err(format!(
                        "agent {agent}, role {role} of team {index} at item {}, \
                         does not hold its seat's ticket",
                        team.node
                    ));
                }
            }
        }
        for (node, word) in self.iter() {
            if kind_at(shape, node) != Some(Kind::Team) {
                continue;
            }
            let count = self
                .teams
                .iter()
                .filter(|(_, t)| t.node == node.get())
                .count() as u64;
            if word != count {
                return Err(format!(
                    "the Team at item {node} counts {word} teams, but the table has {count}"
                ));
            }
            for i in 0..actors.len() {
                for e in actors.get(i).action_entries() {
                    if e.node() != node.get()
                        || e.tag() != action_tag::RUNNING
                        || e.value() & ticket::STATE != ticket::ADMITTED
                    {
                        continue;
                    }
                    let seat = ticket::seat(e.value());
                    let seated = self.teams.get(seat.team).is_some_and(|t| {
                        t.node == node.get() && t.seats(AgentId(i as u32), seat.role)
                    });
                    if !seated {
                        return Err(format!(
                            "agent {i} holds a ticket at the Team at item {node} for team {}, \
                             role {}, where it does not sit",
                            seat.team, seat.role
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// For a hot reload: carries the team table of `old` (the running
    /// program's state, after the reload's `BreakOut`s) into this state of
    /// the new program, whose words are carried already. `new_of` gives a
    /// surviving `Team`'s new item (`None` for one that does not survive,
    /// whose members' tickets were all cancelled). A team keeps its index;
    /// one that a cancelled member broke ends, and its members still in it
    /// get a broken ticket in `actors` (the carried actors).
    pub(crate) fn carry_teams(
        &mut self,
        old: &Globals,
        new_of: impl Fn(u32) -> Option<u32>,
        actors: &mut Actors,
    ) {
        let mut records = Vec::new();
        for (index, team) in old.teams.iter() {
            let Some(node) = new_of(team.node) else {
                continue;
            };
            if team.broken || team.alive == 0 {
                for role in (0..team.size()).filter(|&r| team.is_alive(r)) {
                    let agent = team.members[role as usize] as usize;
                    if agent < actors.len() {
                        let held = ticket::seated(Seat { team: index, role });
                        actors.get_mut(agent).break_ticket(node, held);
                    }
                }
                continue;
            }
            records.push((index, Team { node, ..*team }));
        }
        for &(_, team) in &records {
            if let Some(word) = self.word_mut(team.node) {
                *word += 1;
            }
        }
        let restored = self.teams.restore(&records);
        debug_assert!(restored.is_ok(), "the old table's indices are in order");
    }

    /// The team `agent` sits in at `seat`, if it is still in it: what a
    /// `Sync` of the agent's branch reads during a tick.
    #[inline]
    pub(crate) fn seated(&self, agent: AgentId, seat: Seat) -> Option<&Team> {
        self.teams
            .get(seat.team)
            .filter(|t| t.seats(agent, seat.role))
    }

    /// Makes room in the team table for a crowd of `agents` running
    /// `shape`: each agent may sit in one team of each `Team` node, and ask
    /// to join or leave there once per settling.
    pub(super) fn reserve_teams(&mut self, shape: &Shape, agents: usize) {
        let (mut teams, mut nodes) = (0, 0);
        for &node in self.nodes.iter() {
            let at = NodeIdx::new(node);
            if shape.kind(at) == Kind::Team {
                teams += agents / shape.params(at)[0].max(1) as usize;
                nodes += 1;
            }
        }
        self.teams.reserve(teams, agents * nodes);
    }

    /// Step 2 of settling: ends the teams that the requests broke or
    /// emptied. A broken team's members still in it get a broken ticket.
    pub(super) fn end_teams(&mut self, actors: &mut Actors) {
        for i in 0..self.teams.ended.len() {
            let index = self.teams.ended[i];
            let Some(&team) = self.teams.get(index) else {
                // Ended by an earlier request of the same settling.
                continue;
            };
            if !team.broken && team.alive != 0 {
                continue;
            }
            if team.broken {
                for role in (0..team.size()).filter(|&r| team.is_alive(r)) {
                    let agent = team.members[role as usize] as usize;
                    if agent < actors.len() {
                        let held = ticket::seated(Seat { team: index, role });
                        actors.get_mut(agent).break_ticket(team.node, held);
                    }
                }
            }
            self.teams.release(index);
            if let Some(word) = self.word_mut(team.node) {
                *word = word.saturating_sub(1);
            }
        }
        self.teams.ended.clear();
    }

    /// Step 3 of settling: matches the requests to join (in
    /// `self.teams.asks`, agents still waiting) into teams, per node, the
    /// agent that has asked longest first and then in agent order; admits
    /// the members with their seats and refuses the rest, who keep their
    /// places.
    pub(super) fn form_teams(&mut self, shape: &Shape, actors: &mut Actors) {
        if self.teams.asks.is_empty() {
            return;
        }
        let mut asks = std::mem::take(&mut self.teams.asks);
        asks.sort_unstable_by_key(|a| (a.node, Reverse(a.age), a.agent));
        // An agent that asked twice at a node in one tick asks once.
        asks.dedup_by_key(|a| (a.node, a.agent));
        let mut start = 0;
        while start < asks.len() {
            let node = asks[start].node;
            let end = asks[start..]
                .iter()
                .position(|a| a.node != node)
                .map_or(asks.len(), |n| start + n);
            let size = shape.params(NodeIdx::new(node))[0] as usize;
            let mut next = start;
            while end - next >= size {
                let Some(index) = self.teams.allocate() else {
                    break;
                };
                let mut team = Team {
                    node,
                    alive: u32::MAX >> (32 - size),
                    size: size as u8,
                    ..Team::FREE
                };
                for (role, ask) in asks[next..next + size].iter().enumerate() {
                    team.members[role] = ask.agent;
                    let seat = Seat {
                        team: index,
                        role: role as u32,
                    };
                    let mut actor = actors.get_mut(ask.agent as usize);
                    actor.admit_ticket(node, ticket::seated(seat));
                }
                self.teams.records[index as usize] = team;
                if let Some(word) = self.word_mut(node) {
                    *word += 1;
                }
                next += size;
            }
            for ask in &asks[next..end] {
                actors.get_mut(ask.agent as usize).refuse_ticket(node);
            }
            start = end;
        }
        asks.clear();
        self.teams.asks = asks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size ARCHITECTURE.md quotes.
    #[test]
    fn a_team_record_has_the_documented_size() {
        assert_eq!(std::mem::size_of::<Team>(), 172);
    }

    #[test]
    fn seats_round_trip_through_tickets() {
        for seat in [
            Seat { team: 0, role: 0 },
            Seat { team: 7, role: 31 },
            Seat {
                team: ticket::MAX_TEAMS - 1,
                role: 5,
            },
        ] {
            let value = ticket::seated(seat);
            assert_eq!(value & ticket::STATE, ticket::ADMITTED);
            assert_eq!(ticket::seat(value), seat);
        }
        assert_eq!(ticket::seated(Seat::default()), ticket::ADMITTED);
    }

    #[test]
    fn records_are_reused_lowest_first() {
        let mut teams = Teams::default();
        let taken: Vec<u32> = (0..4).map(|_| teams.allocate().unwrap()).collect();
        assert_eq!(taken, [0, 1, 2, 3]);
        teams.release(2);
        teams.release(0);
        assert_eq!(teams.allocate(), Some(0));
        assert_eq!(teams.allocate(), Some(2));
        assert_eq!(teams.allocate(), Some(4));
    }
}
