//! Tree declarations: what a tree declares beside its nodes, and its
//! compiled form in the shape.
//!
//! Lumberyard's MBT (seed 002) gives a tree per-agent **variables** (bools),
//! **signals** that set them when an event reaches the agent, and
//! **timestamps** that record when an event last reached it, in mutually
//! exclusive pairs where setting one clears the other. Spore's behavior tree
//! (seed 000) gives an agent **stimuli**: tokens with a 32-bit datum that
//! stay active for a declared number of seconds after they are posted. A
//! tree declares them in [`Declarations`] (files write them in their own
//! sections); the compiler resolves every name, so the shape holds only
//! indices: [`Variable`], [`Signal`], [`Timestamp`] and [`Stimulus`]
//! tables, which the validator checks. Each agent keeps its variables as
//! bits, its timestamps as times and its stimuli as expiry times and data
//! in its actor.
//!
//! Events are the application's (see `LeafCatalog::events`), not the
//! tree's: the shape records the event names it was compiled against, and
//! linking checks that they are still the application's.
//!
//! ```
//! use treebeard_shape::{Catalog, Declarations, Options, compile_with};
//! use treebeard_shape::tree::{decider_of, act};
//! use treebeard_shape::{Kind, LeafSchema};
//!
//! let mut catalog = Catalog::new();
//! catalog.declare("Move", LeafSchema::action());
//! catalog.event("OnEnemySeen").event("OnLostSightOfTarget");
//! let declarations = Declarations::new()
//!     .variable("TargetVisible", false)
//!     .signal("OnEnemySeen", "TargetVisible", true)
//!     .signal("OnLostSightOfTarget", "TargetVisible", false)
//!     .timestamp("TargetSpotted", "OnEnemySeen")
//!     .stimulus("Hit", 2.0);
//! let tree = decider_of(Kind::IfCondition, [act("Move")]).arg("condition", "TargetVisible");
//! let options = Options { declarations, ..Options::default() };
//! let shape = compile_with(&tree, &catalog, &options)?;
//! assert_eq!(shape.variables()[0].name.as_ref(), "TargetVisible");
//! assert_eq!(shape.signals().len(), 2);
//! assert_eq!(shape.timestamps()[0].event, 0);
//! assert_eq!(shape.stimuli()[0].seconds, 2.0);
//! # Ok::<(), treebeard_shape::BuildError>(())
//! ```

use crate::source::Source;

/// The most stimuli a tree may declare: an agent's active stimuli are the
/// bits of one `u32` (see `ActorRef::stimuli_flags` in the VM).
pub const MAX_STIMULI: usize = 32;

/// What a tree declares besides its nodes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Declarations {
    /// The tree's variables, in order: a variable's index is its position.
    pub variables: Vec<VariableDecl>,
    /// Events that set variables.
    pub signals: Vec<SignalDecl>,
    /// The tree's timestamps, in order.
    pub timestamps: Vec<TimestampDecl>,
    /// The tree's stimuli, in order (at most [`MAX_STIMULI`]).
    pub stimuli: Vec<StimulusDecl>,
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableDecl {
    /// Its name, as scripts and conditions write it.
    pub name: Box<str>,
    /// Its value when an agent starts.
    pub initial: bool,
    /// Where it was declared.
    pub source: Option<Source>,
}

/// A declared signal: when `event` reaches an agent, its `variable` becomes
/// `value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalDecl {
    /// The event's name.
    pub event: Box<str>,
    /// The variable's name.
    pub variable: Box<str>,
    /// The value it takes.
    pub value: bool,
    /// Where it was declared.
    pub source: Option<Source>,
}

/// A declared timestamp: set to the time `event` last reached the agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimestampDecl {
    /// Its name, as time tests write it.
    pub name: Box<str>,
    /// The event that sets it.
    pub event: Box<str>,
    /// A timestamp that setting this one clears, and that clears this one
    /// when set.
    pub exclusive_to: Option<Box<str>>,
    /// Where it was declared.
    pub source: Option<Source>,
}

/// A declared stimulus: a per-agent token with a 32-bit datum, active for
/// `seconds` after it is posted.
#[derive(Clone, Debug, PartialEq)]
pub struct StimulusDecl {
    /// Its name, as `PostStimulus` nodes write it.
    pub name: Box<str>,
    /// How long it stays active once posted: finite, and not negative.
    pub seconds: f64,
    /// Where it was declared.
    pub source: Option<Source>,
}

impl Declarations {
    /// No declarations.
    pub fn new() -> Declarations {
        Declarations::default()
    }

    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.variables.is_empty()
            && self.signals.is_empty()
            && self.timestamps.is_empty()
            && self.stimuli.is_empty()
    }

    /// Declares the variable `name`, starting as `initial`.
    #[must_use]
    pub fn variable(mut self, name: &str, initial: bool) -> Declarations {
        self.variables.push(VariableDecl {
            name: name.into(),
            initial,
            source: None,
        });
        self
    }

    /// Declares that `event` sets `variable` to `value`.
    #[must_use]
    pub fn signal(mut self, event: &str, variable: &str, value: bool) -> Declarations {
        self.signals.push(SignalDecl {
            event: event.into(),
            variable: variable.into(),
            value,
            source: None,
        });
        self
    }

    /// Declares the timestamp `name`, set by `event`.
    #[must_use]
    pub fn timestamp(mut self, name: &str, event: &str) -> Declarations {
        self.timestamps.push(TimestampDecl {
            name: name.into(),
            event: event.into(),
            exclusive_to: None,
            source: None,
        });
        self
    }

    /// Declares the timestamp `name`, set by `event`, exclusive to `other`:
    /// setting either clears the other.
    #[must_use]
    pub fn exclusive_timestamp(mut self, name: &str, event: &str, other: &str) -> Declarations {
        self.timestamps.push(TimestampDecl {
            name: name.into(),
            event: event.into(),
            exclusive_to: Some(other.into()),
            source: None,
        });
        self
    }

    /// Declares the stimulus `name`, active for `seconds` once posted.
    #[must_use]
    pub fn stimulus(mut self, name: &str, seconds: f64) -> Declarations {
        self.stimuli.push(StimulusDecl {
            name: name.into(),
            seconds,
            source: None,
        });
        self
    }
}

/// A variable in a shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Variable {
    /// Its name.
    pub name: Box<str>,
    /// Its value when an agent starts.
    pub initial: bool,
}

/// A signal in a shape: indices into the shape's events and variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Signal {
    /// The event.
    pub event: u32,
    /// The variable it sets.
    pub variable: u32,
    /// The value it sets.
    pub value: bool,
}

/// A timestamp in a shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// Its name.
    pub name: Box<str>,
    /// The event that sets it, an index into the shape's events.
    pub event: u32,
    /// The timestamp it clears when set, an index into the shape's
    /// timestamps. Exclusion goes both ways: the validator requires the
    /// other to name this one back, which the compiler does.
    pub exclusive: Option<u32>,
}

/// A stimulus in a shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Stimulus {
    /// Its name.
    pub name: Box<str>,
    /// How long it stays active once posted, in seconds: finite and not
    /// negative (the validator checks).
    pub seconds: f32,
}

/// A compiled script in a shape (see [`crate::script`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Script {
    /// Its source, for disassembly and debugging.
    pub source: Box<str>,
    /// Its code.
    pub words: Box<[u64]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_declares_stimuli_in_order() {
        let d = Declarations::new()
            .stimulus("Hit", 2.0)
            .stimulus("Invited", 0.25);
        assert!(!d.is_empty());
        let names: Vec<(&str, f64)> = d.stimuli.iter().map(|s| (&*s.name, s.seconds)).collect();
        assert_eq!(names, [("Hit", 2.0), ("Invited", 0.25)]);
        assert!(d.stimuli.iter().all(|s| s.source.is_none()));
        assert!(Declarations::new().is_empty());
    }
}
