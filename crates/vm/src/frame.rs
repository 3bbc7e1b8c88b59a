//! The frame: when a tick happens.

/// The clock of a tick, passed to every leaf.
///
/// `index` counts ticks; `time` is the sum of every `dt` so far. Both advance
/// the same way on every thread, so timers built on them are deterministic.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Frame {
    /// Ticks before this one.
    pub index: u64,
    /// Seconds before this tick.
    pub time: f64,
    /// Seconds this tick covers.
    pub dt: f32,
}

impl Frame {
    /// The frame after this one, covering `dt` seconds.
    #[must_use]
    pub fn next(self, dt: f32) -> Frame {
        Frame {
            index: self.index + 1,
            time: self.time + f64::from(self.dt),
            dt,
        }
    }
}
