//! The workload's checksum of a final state.

use crate::world::{Act, Critter};
use std::fmt;

/// The checksum: the state sum and each action's successes, over all agents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Checksum {
    /// Sum of `hunger + fatigue * 3 + threat * 7 + friend_near * 11`.
    pub state: u64,
    /// Successes per action, by [`Act`].
    pub successes: [u64; 9],
}

impl Checksum {
    /// The checksum of a crowd's blackboards.
    pub fn of<'a>(critters: impl IntoIterator<Item = &'a Critter>) -> Checksum {
        let mut sum = Checksum::default();
        for c in critters {
            sum.state += u64::from(c.hunger)
                + u64::from(c.fatigue) * 3
                + u64::from(c.threat) * 7
                + u64::from(c.friend_near) * 11;
            for (total, &n) in sum.successes.iter_mut().zip(&c.successes) {
                *total += u64::from(n);
            }
        }
        sum
    }

    /// The checksum the workload page gives for N=5000, T=1000, S=42.
    pub const PAGE: Checksum = Checksum {
        state: 1_107_114,
        successes: [
            86_551, 39_011, 31_751, 41_426, 108_910, 146_406, 277_565, 209_863, 191_448,
        ],
    };
}

impl fmt::Display for Checksum {
    /// The two lines exactly as the workload page prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "checksum_state: {}", self.state)?;
        write!(f, "checksum_successes:")?;
        for act in Act::ALL {
            write!(f, " {}={}", act.name(), self.successes[act as usize])?;
        }
        Ok(())
    }
}
