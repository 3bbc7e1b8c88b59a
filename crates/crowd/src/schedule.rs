//! Membership and tick rates: which slots hold agents, and when each agent
//! ticks.
//!
//! A crowd numbers its agents by slot: an [`AgentId`] is an index into the
//! crowd's arrays, and it stays valid while its agent lives. An agent that
//! leaves leaves its slot vacant; the next agent to join takes the lowest
//! vacant slot, so ids are reused deterministically, and trailing vacant
//! slots are dropped.
//!
//! Each slot has a [`Lane`], kept beside the actors (not in the actor
//! blocks): the agent's tick rate, the frame of its next tick and the time
//! its ticks have covered so far. An agent of rate `k` ticks on the frames
//! whose index `i` satisfies `(i + id % k) % k == 0`: agents of one rate are
//! spread over the `k` frames by id, so a crowd of them puts even work on
//! every frame. When it ticks, its frame is the crowd's frame with a `dt`
//! covering all the time since its previous tick (or since it joined): the
//! crowd's clock does not move differently for it, it only reads it less
//! often.
//!
//! While every agent ticks every frame and no slot is vacant, the crowd
//! keeps no lanes at all and ticks every slot (the fast path of
//! `Crowd::tick_with`): a crowd pays for level of detail only once it uses
//! it (see [`Schedule`]).

use treebeard_vm::{AgentId, Frame};

/// The frame index of a vacant slot's next tick: never reached.
const VACANT: u64 = u64::MAX;

/// When one slot's agent ticks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lane {
    /// The index of the frame of the agent's next tick ([`VACANT`] for a
    /// vacant slot).
    next: u64,
    /// The time, on the crowd's clock, from which the agent's ticks have
    /// not yet covered the time: the end of its last tick's frame, or when
    /// it joined.
    since: f64,
    /// The agent ticks on one frame in `every`.
    every: u32,
}

/// The time at the end of `frame`: the next frame's `time`, computed as
/// `Frame::next` computes it, so that the two are bit-identical.
#[inline]
fn end_of(frame: &Frame) -> f64 {
    frame.time + f64::from(frame.dt)
}

/// Where a crowd's clock stands between ticks: the index of its next
/// frame, and the time that frame starts at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Clock {
    /// The index of the next frame (the number of frames so far).
    pub(crate) next: u64,
    /// The time at which the next frame starts.
    pub(crate) time: f64,
}

impl Clock {
    /// Before the first frame.
    pub(crate) const START: Clock = Clock { next: 0, time: 0.0 };

    /// After `frame`.
    pub(crate) fn after(frame: &Frame) -> Clock {
        Clock {
            next: frame.index + 1,
            time: end_of(frame),
        }
    }
}

impl Lane {
    /// The lane of an agent that joins at `clock`, ticking every frame.
    fn joined(clock: Clock) -> Lane {
        Lane {
            next: clock.next,
            since: clock.time,
            every: 1,
        }
    }

    const fn vacant() -> Lane {
        Lane {
            next: VACANT,
            since: 0.0,
            every: 1,
        }
    }

    fn is_vacant(&self) -> bool {
        self.next == VACANT
    }

    /// The agent's frame if it ticks in `frame`, and the lane moved on past
    /// that tick; `None` if it does not tick (not due, or vacant).
    ///
    /// The frame is `frame` with `dt` widened to the time since `since`:
    /// `(frame.time - since) + frame.dt`. For an agent that ticked in the
    /// previous frame `since` is `frame.time` exactly, so its `dt` is
    /// `frame.dt` bit for bit.
    #[inline]
    pub(crate) fn due(&mut self, frame: &Frame) -> Option<Frame> {
        if self.next != frame.index {
            return None;
        }
        let dt = ((frame.time - self.since) + f64::from(frame.dt)) as f32;
        self.next += u64::from(self.every);
        self.since = end_of(frame);
        Some(Frame { dt, ..*frame })
    }
}

/// The first frame index from `from` on which an agent of rate `every`
/// with the id `id` ticks.
fn first_tick_from(from: u64, id: AgentId, every: u32) -> u64 {
    let every = u64::from(every);
    let phase = u64::from(id.0) % every;
    from + (every - (from + phase) % every) % every
}

/// The lanes of a crowd's slots and its vacant slots.
///
/// The lanes exist only while some agent ticks at a lower rate or some slot
/// is vacant (24 bytes a slot): a crowd whose agents all tick every frame
/// keeps none and ticks every slot on its fast path. They are laid out at
/// the clock when that changes, and dropped again at the start of a tick
/// once every agent ticks every frame, no slot is vacant and every lane
/// has caught up with the clock (so no agent's `dt` loses the frames it
/// skipped).
#[derive(Clone, Debug, Default)]
pub(crate) struct Schedule {
    /// Slots, live or vacant.
    slots: usize,
    /// One per slot, or none (see the type's documentation).
    lanes: Vec<Lane>,
    /// The vacant slots, highest first: the lowest is at the end.
    vacant: Vec<u32>,
    /// Live agents whose rate is above 1.
    slow: usize,
}

impl Schedule {
    /// `agents` agents that join at the clock, each ticking every frame.
    pub(crate) fn new(agents: usize) -> Schedule {
        Schedule {
            slots: agents,
            ..Schedule::default()
        }
    }

    /// Whether every agent ticks every frame and no slot is vacant.
    #[inline]
    pub(crate) fn is_trivial(&self) -> bool {
        self.vacant.is_empty() && self.slow == 0
    }

    /// Whether the lanes are laid out (see the type's documentation).
    #[cfg(test)]
    fn has_lanes(&self) -> bool {
        !self.lanes.is_empty()
    }

    /// Slots, live or vacant.
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// Live agents.
    pub(crate) fn live(&self) -> usize {
        self.slots - self.vacant.len()
    }

    /// Whether `agent` names a slot that holds an agent.
    #[inline]
    pub(crate) fn is_alive(&self, agent: AgentId) -> bool {
        agent.index() < self.slots
            && self
                .lanes
                .get(agent.index())
                .is_none_or(|lane| !lane.is_vacant())
    }

    /// The rate of a live agent.
    pub(crate) fn every(&self, agent: AgentId) -> u32 {
        self.lanes.get(agent.index()).map_or(1, |lane| lane.every)
    }

    /// Lays the lanes out at `clock`, if they are not: every agent ticks
    /// every frame, from the clock on.
    fn lay_out(&mut self, clock: Clock) {
        if self.lanes.is_empty() {
            self.lanes = vec![Lane::joined(clock); self.slots];
        }
    }

    /// Called between ticks, at `clock`: whether the next tick must follow
    /// the lanes. If not, the crowd ticks every slot with its frame, and
    /// the lanes, if there were any, are dropped (see the type's
    /// documentation).
    #[inline]
    pub(crate) fn start_tick(&mut self, clock: Clock) -> bool {
        if self.lanes.is_empty() {
            return false;
        }
        if self.is_trivial()
            && self
                .lanes
                .iter()
                .all(|l| l.next == clock.next && l.since == clock.time)
        {
            self.lanes = Vec::new();
            return false;
        }
        true
    }

    /// The lanes, for a tick that follows them (see [`Schedule::start_tick`]).
    pub(crate) fn lanes_mut(&mut self) -> &mut [Lane] {
        &mut self.lanes
    }

    /// Makes room for an agent that joins at `clock`, ticking every frame:
    /// in the lowest vacant slot, or a new one at the end. Returns its id
    /// and whether the slot is new.
    pub(crate) fn join(&mut self, clock: Clock) -> (AgentId, bool) {
        match self.vacant.pop() {
            Some(id) => {
                self.lanes[id as usize] = Lane::joined(clock);
                (AgentId(id), false)
            }
            None => {
                let id = u32::try_from(self.slots).expect("a crowd numbers its agents with u32");
                self.slots += 1;
                if !self.lanes.is_empty() {
                    self.lanes.push(Lane::joined(clock));
                }
                (AgentId(id), true)
            }
        }
    }

    /// Each slot's lane as (next frame index, since, rate) at `clock` (for
    /// snapshots): `u64::MAX` as the next index marks a vacant slot.
    pub(crate) fn to_parts(&self, clock: Clock) -> Vec<(u64, f64, u32)> {
        let part = |l: &Lane| (l.next, l.since, l.every);
        if self.lanes.is_empty() {
            vec![part(&Lane::joined(clock)); self.slots]
        } else {
            self.lanes.iter().map(part).collect()
        }
    }

    /// The schedule [`Schedule::to_parts`] gave, for `slots` slots at
    /// `clock`; an error says what does not fit.
    pub(crate) fn from_parts(
        parts: &[(u64, f64, u32)],
        slots: usize,
        clock: Clock,
    ) -> Result<Schedule, String> {
        if parts.len() != slots {
            return Err(format!("{} lanes for {slots} agents", parts.len()));
        }
        let mut schedule = Schedule {
            slots,
            ..Schedule::default()
        };
        for (i, &(next, since, every)) in parts.iter().enumerate() {
            let lane = Lane { next, since, every };
            if !lane.is_vacant() {
                if every == 0 || !since.is_finite() || next < clock.next {
                    return Err(format!(
                        "agent {i}'s lane (next tick {next}, since {since}, rate {every}) is behind the crowd's next frame, {}",
                        clock.next
                    ));
                }
                schedule.slow += usize::from(every > 1);
            }
            schedule.lanes.push(lane);
        }
        schedule.vacant = (0..slots as u32)
            .rev()
            .filter(|&i| schedule.lanes[i as usize].is_vacant())
            .collect();
        if schedule
            .vacant
            .first()
            .is_some_and(|&v| v as usize + 1 == slots)
        {
            return Err(format!("the last slot, {}, is vacant", slots - 1));
        }
        // Laid out or not, as the crowd left it: the next tick drops the
        // lanes if they are all caught up.
        Ok(schedule)
    }

    /// Leaves the live agent's slot vacant, at `clock`. Vacant slots at
    /// the end are dropped; returns the number of slots that remain.
    pub(crate) fn leave(&mut self, agent: AgentId, clock: Clock) -> usize {
        debug_assert!(self.is_alive(agent));
        self.lay_out(clock);
        let lane = &mut self.lanes[agent.index()];
        if lane.every > 1 {
            self.slow -= 1;
        }
        *lane = Lane::vacant();
        let at = self.vacant.partition_point(|&v| v > agent.0);
        self.vacant.insert(at, agent.0);
        // Drop the trailing vacant slots: the highest vacant ids, first in
        // `vacant`.
        let mut slots = self.slots;
        let trailing = self
            .vacant
            .iter()
            .take_while(|&&v| {
                let last = v as usize + 1 == slots;
                slots -= usize::from(last);
                last
            })
            .count();
        self.vacant.drain(..trailing);
        self.lanes.truncate(slots);
        self.slots = slots;
        slots
    }

    /// Sets the live agent's rate: from now on it ticks on one frame in
    /// `every` (see the module's documentation), the first time on its
    /// first such frame from `clock` on. Its next tick's `dt` still covers
    /// all the time since its last tick. Setting the rate it has changes
    /// nothing.
    pub(crate) fn set_every(&mut self, agent: AgentId, every: u32, clock: Clock) {
        debug_assert!(self.is_alive(agent) && every > 0);
        if self.every(agent) == every {
            return;
        }
        self.lay_out(clock);
        let lane = &mut self.lanes[agent.index()];
        match (lane.every > 1, every > 1) {
            (false, true) => self.slow += 1,
            (true, false) => self.slow -= 1,
            _ => {}
        }
        lane.every = every;
        lane.next = first_tick_from(clock.next, agent, every);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(index: u64) -> Frame {
        Frame {
            index,
            time: index as f64 * 0.5,
            dt: 0.5,
        }
    }

    #[test]
    fn the_first_tick_after_a_rate_change_keeps_the_phase() {
        for every in 1..7u32 {
            for id in 0..10 {
                for from in 0..20 {
                    let next = first_tick_from(from, AgentId(id), every);
                    assert!(next >= from && next < from + u64::from(every));
                    assert_eq!((next + u64::from(id % every)) % u64::from(every), 0);
                }
            }
        }
    }

    #[test]
    fn a_slow_agent_s_dt_covers_the_frames_since_its_last_tick() {
        let mut s = Schedule::new(1);
        s.set_every(AgentId(0), 3, Clock::START);
        let lane = &mut s.lanes[0];
        let mut seen = Vec::new();
        for i in 0..9 {
            let f = frame(i);
            if let Some(mine) = lane.due(&f) {
                seen.push((i, mine.dt));
            }
        }
        // Id 0, rate 3: frames 0, 3 and 6; the first covers frame 0, each
        // later one the three frames since.
        assert_eq!(seen, [(0, 0.5), (3, 1.5), (6, 1.5)]);
    }

    #[test]
    fn vacant_slots_are_reused_lowest_first_and_trailing_ones_dropped() {
        let f = Clock::after(&frame(0));
        let mut s = Schedule::new(5);
        assert!(
            !s.has_lanes(),
            "no lanes while every agent ticks every frame"
        );
        assert_eq!(s.leave(AgentId(3), f), 5);
        assert!(s.has_lanes());
        assert_eq!(s.leave(AgentId(1), f), 5);
        assert!(!s.is_trivial());
        assert_eq!((s.slots(), s.live()), (5, 3));
        assert_eq!(s.join(f), (AgentId(1), false));
        // Leaving the last slot drops it and the vacant slot 3 before it.
        assert_eq!(s.leave(AgentId(4), f), 3);
        assert!(s.is_trivial());
        assert_eq!(s.join(f), (AgentId(3), true));
        // Caught up with the clock, the lanes go at the next tick.
        assert!(!s.start_tick(f));
        assert!(!s.has_lanes());
        assert_eq!((s.slots(), s.live()), (4, 4));
        assert!(s.is_alive(AgentId(3)) && !s.is_alive(AgentId(4)));
    }
}
