//! What a crowd's calls between ticks can refuse.

use std::fmt;
use treebeard_vm::{AgentId, InjectError};

/// Why a call on one agent of a crowd did nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CrowdError {
    /// The crowd has no such agent: it was removed, or never spawned.
    NoAgent(AgentId),
    /// A tick rate of 0 (`Crowd::set_tick_rate`).
    ZeroTickRate,
    /// The tree declares no stimulus of that index (`Crowd::post_stimulus`).
    NoStimulus {
        /// The index asked for.
        stimulus: usize,
        /// How many stimuli the tree declares.
        declared: usize,
    },
    /// The injection itself was refused (`Crowd::inject`).
    Inject(InjectError),
}

impl fmt::Display for CrowdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CrowdError::NoAgent(agent) => write!(
                f,
                "the crowd has no agent {}: it was removed or never spawned (`Crowd::is_alive` tells)",
                agent.0
            ),
            CrowdError::ZeroTickRate => {
                f.write_str("a tick rate of 0: give 1 (every frame) or more (one frame in k)")
            }
            CrowdError::NoStimulus { stimulus, declared } => write!(
                f,
                "the tree declares {declared} stimuli, so there is no stimulus {stimulus} \
                 (`Shape::stimuli` lists them)"
            ),
            CrowdError::Inject(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CrowdError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CrowdError::Inject(e) => Some(e),
            _ => None,
        }
    }
}

impl From<InjectError> for CrowdError {
    fn from(e: InjectError) -> CrowdError {
        CrowdError::Inject(e)
    }
}
