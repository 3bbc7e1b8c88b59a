//! The hand-written state machine for the workload: the floor that the
//! interpreter is measured against.
//!
//! Two bytes per agent: the running action and how many ticks it has run.
//! The control flow spells out, for this one tree, what the reactive priority
//! selector does: higher-priority branches are re-checked every tick, the
//! running branch resumes without re-checking its condition, and starting a
//! branch abandons whatever ran below it.

use crate::world::{Act, Critter};

/// One agent's state: the running action, if any, and its ticks so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    /// 0 for none, else `Act as u8 + 1`.
    running: u8,
    /// Ticks the running action has run.
    ticks: u8,
}

const fn code(act: Act) -> u8 {
    act as u8 + 1
}

impl Machine {
    /// The action running after the last tick.
    pub fn running(&self) -> Option<Act> {
        (self.running > 0).then(|| Act::ALL[self.running as usize - 1])
    }

    /// Starts `act` (abandoning whatever ran) and ticks it once.
    #[inline]
    fn start(&mut self, c: &mut Critter, act: Act) -> bool {
        self.running = code(act);
        self.ticks = 0;
        self.step(c, act)
    }

    /// Ticks the running `act`; true when it succeeded on this tick.
    #[inline]
    fn step(&mut self, c: &mut Critter, act: Act) -> bool {
        self.ticks += 1;
        if u32::from(self.ticks) < act.ticks() {
            return false;
        }
        c.succeed(act);
        self.running = 0;
        self.ticks = 0;
        true
    }

    /// Ticks FindFood then Eat (the eat sequence), from `act`.
    #[inline]
    fn eat(&mut self, c: &mut Critter, act: Act, started: bool) {
        let done = if started {
            self.step(c, act)
        } else {
            self.start(c, act)
        };
        if done && act == Act::FindFood {
            self.start(c, Act::Eat);
        }
    }

    /// Ticks the wander sequence from `act`.
    #[inline]
    fn wander(&mut self, c: &mut Critter, act: Act, started: bool) {
        let mut done = if started {
            self.step(c, act)
        } else {
            self.start(c, act)
        };
        let mut act = act;
        while done && act != Act::LookAround {
            act = if act == Act::PickSpot {
                Act::Walk
            } else {
                Act::LookAround
            };
            done = self.start(c, act);
        }
    }

    /// One tick of the workload tree.
    #[inline]
    pub fn tick(&mut self, c: &mut Critter) {
        let running = self.running;
        // Sequence flee: resumes Flee, or starts it when threatened.
        if running == code(Act::Flee) {
            self.step(c, Act::Flee);
            return;
        }
        if c.threat {
            self.start(c, Act::Flee);
            return;
        }
        // Sequence eat.
        if running == code(Act::FindFood) || running == code(Act::Eat) {
            let act = Act::ALL[running as usize - 1];
            self.eat(c, act, true);
            return;
        }
        if c.hunger > 70 {
            self.eat(c, Act::FindFood, false);
            return;
        }
        // Sequence rest.
        if running == code(Act::Sleep) {
            self.step(c, Act::Sleep);
            return;
        }
        if c.fatigue > 80 {
            self.start(c, Act::Sleep);
            return;
        }
        // Sequence social resumes at its selector, which re-tries Share's
        // sequence first on every tick.
        if running == code(Act::Share) {
            self.step(c, Act::Share);
            return;
        }
        if running == code(Act::Chat) {
            if c.hunger > 40 {
                self.start(c, Act::Share);
            } else {
                self.step(c, Act::Chat);
            }
            return;
        }
        if c.friend_near {
            let act = if c.hunger > 40 { Act::Share } else { Act::Chat };
            self.start(c, act);
            return;
        }
        // Sequence wander.
        if running == code(Act::Walk) || running == code(Act::LookAround) {
            let act = Act::ALL[running as usize - 1];
            self.wander(c, act, true);
            return;
        }
        self.wander(c, Act::PickSpot, false);
    }
}

/// Agents per parallel chunk when running the machine on several threads.
const CHUNK: usize = 1024;

/// Runs the workload on the hand-written machine: `ticks` ticks of every
/// agent, tick-major, each agent's world step before its tick. Uses the
/// current rayon pool when it has more than one thread, in fixed chunks.
///
/// # Panics
/// If `critters` and `machines` differ in length.
pub fn run(critters: &mut [Critter], machines: &mut [Machine], ticks: usize) {
    use rayon::prelude::*;
    assert_eq!(critters.len(), machines.len(), "one machine per agent");
    let step = |c: &mut Critter, m: &mut Machine| {
        c.world_step();
        m.tick(c);
    };
    for _ in 0..ticks {
        if rayon::current_num_threads() > 1 {
            critters
                .par_chunks_mut(CHUNK)
                .zip(machines.par_chunks_mut(CHUNK))
                .for_each(|(cs, ms)| cs.iter_mut().zip(ms).for_each(|(c, m)| step(c, m)));
        } else {
            critters
                .iter_mut()
                .zip(machines.iter_mut())
                .for_each(|(c, m)| step(c, m));
        }
    }
}
