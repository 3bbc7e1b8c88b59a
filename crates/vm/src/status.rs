//! What a node returns from a tick, and what a leaf is asked to do.

/// The result of ticking a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// The node finished and reached its goal.
    Success,
    /// The node finished without reaching its goal.
    Failure,
    /// The node needs more ticks.
    Running,
}

impl Status {
    /// True for [`Status::Success`] and [`Status::Failure`].
    #[inline]
    pub fn is_done(self) -> bool {
        self != Status::Running
    }
}

/// Why an immediate action is being called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signal {
    /// The action is reached anew: its state is zero.
    Start,
    /// The action returned [`Status::Running`] last tick and is reached again.
    Tick,
    /// The action returned [`Status::Running`] and has been abandoned: clean
    /// up. The return value is ignored.
    Cancel,
}
