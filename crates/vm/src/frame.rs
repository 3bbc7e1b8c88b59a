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
    /// The first frame: index 0, at time 0, covering `dt` seconds.
    ///
    /// # Panics
    /// As [`Frame::next`].
    #[must_use]
    pub fn first(dt: f32) -> Frame {
        check_dt(dt);
        Frame {
            index: 0,
            time: 0.0,
            dt,
        }
    }

    /// The frame after this one, covering `dt` seconds.
    ///
    /// # Panics
    /// If `dt` is not a finite number of seconds, 0 or more (as
    /// `Duration::from_secs_f32` does): a `NaN` would make every later
    /// time `NaN`, and a crowd with it could not be saved.
    #[must_use]
    pub fn next(self, dt: f32) -> Frame {
        check_dt(dt);
        Frame {
            index: self.index + 1,
            time: self.time + f64::from(self.dt),
            dt,
        }
    }
}

fn check_dt(dt: f32) {
    assert!(
        dt.is_finite() && dt >= 0.0,
        "a tick's dt must be a finite number of seconds, 0 or more, not {dt}"
    );
}
