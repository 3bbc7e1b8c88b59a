//! The world of the crowd workload: each agent's blackboard and world step.

/// The actions of the workload tree, in the order the checksum lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Act {
    /// Runs 8 ticks, then sets `threat = false`.
    Flee,
    /// Runs 5 ticks.
    FindFood,
    /// Runs 10 ticks, then sets `hunger = 0`.
    Eat,
    /// Runs 20 ticks, then sets `fatigue = 0`.
    Sleep,
    /// Runs 3 ticks, then lowers `hunger` by 20.
    Share,
    /// Runs 6 ticks.
    Chat,
    /// Runs 1 tick.
    PickSpot,
    /// Runs 4 ticks.
    Walk,
    /// Runs 2 ticks.
    LookAround,
}

impl Act {
    /// Every action, in checksum order.
    pub const ALL: [Act; 9] = [
        Act::Flee,
        Act::FindFood,
        Act::Eat,
        Act::Sleep,
        Act::Share,
        Act::Chat,
        Act::PickSpot,
        Act::Walk,
        Act::LookAround,
    ];

    /// The action's name in the tree and the checksum line.
    pub const fn name(self) -> &'static str {
        match self {
            Act::Flee => "Flee",
            Act::FindFood => "FindFood",
            Act::Eat => "Eat",
            Act::Sleep => "Sleep",
            Act::Share => "Share",
            Act::Chat => "Chat",
            Act::PickSpot => "PickSpot",
            Act::Walk => "Walk",
            Act::LookAround => "LookAround",
        }
    }

    /// Ticks the action runs: Running on the first `ticks - 1`, Success on
    /// the last.
    pub const fn ticks(self) -> u32 {
        match self {
            Act::Flee => 8,
            Act::FindFood => 5,
            Act::Eat => 10,
            Act::Sleep => 20,
            Act::Share => 3,
            Act::Chat => 6,
            Act::PickSpot => 1,
            Act::Walk => 4,
            Act::LookAround => 2,
        }
    }
}

/// One agent's blackboard. The success counters are the checksum's
/// instrumentation, kept here by both implementations alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Critter {
    /// Something threatens the agent.
    pub threat: bool,
    /// 0..=100.
    pub hunger: u8,
    /// 0..=100.
    pub fatigue: u8,
    /// A friend is near.
    pub friend_near: bool,
    /// SplitMix64 state of the agent's world.
    pub rng: u64,
    /// Successes of each action, by [`Act`].
    pub successes: [u32; 9],
}

// What trees and the recorder may read of a critter by name: its needs
// and senses (the world's random state and tallies are not the agent's
// knowledge).
treebeard_vm::blackboard!(Critter {
    threat,
    hunger,
    fatigue,
    friend_near
});

/// One step of SplitMix64, with wrapping arithmetic.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Critter {
    /// Agent `id`'s starting blackboard in a world seeded with `seed`.
    pub fn new(id: u64, seed: u64) -> Critter {
        Critter {
            threat: false,
            hunger: (id % 100) as u8,
            fatigue: ((id * 7) % 100) as u8,
            friend_near: false,
            rng: seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            successes: [0; 9],
        }
    }

    /// The world step that runs before each of the agent's tree ticks.
    #[inline]
    pub fn world_step(&mut self) {
        if splitmix64(&mut self.rng) % 100 < 2 {
            self.threat = !self.threat;
        }
        if splitmix64(&mut self.rng) % 100 < 5 {
            self.friend_near = !self.friend_near;
        }
        self.hunger = (self.hunger + 1).min(100);
        self.fatigue = (self.fatigue + 1).min(100);
    }

    /// Applies the effect of `act`'s success and counts it.
    #[inline]
    pub fn succeed(&mut self, act: Act) {
        match act {
            Act::Flee => self.threat = false,
            Act::Eat => self.hunger = 0,
            Act::Sleep => self.fatigue = 0,
            Act::Share => self.hunger = self.hunger.saturating_sub(20),
            Act::FindFood | Act::Chat | Act::PickSpot | Act::Walk | Act::LookAround => {}
        }
        self.successes[act as usize] += 1;
    }
}

/// `n` agents at the start of a run seeded with `seed`.
pub fn spawn(n: usize, seed: u64) -> Vec<Critter> {
    (0..n as u64).map(|id| Critter::new(id, seed)).collect()
}
