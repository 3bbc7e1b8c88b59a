//! Compatibility mode (seed 003's): a tree written for an older version of
//! its leaves still compiles.
//!
//! When a leaf's parameters changed since a tree was written (one renamed,
//! removed, retyped or made required), strict compilation refuses the
//! tree. With [`Options::compat`](crate::Options::compat) the compiler
//! keeps the node instead and reports each mismatch as a
//! [`CompatWarning`]: a parameter the leaf no longer declares is dropped,
//! and one that is missing or whose value no longer fits gets the
//! parameter's default, else its declared
//! [`fallback`](crate::params::ParamSpec::fallback), else the zero of its
//! type. A parameter with none of those (an output, which needs a
//! blackboard field) stays an error. Strict mode stays the default, for
//! CI; compatibility mode is for running the game while trees catch up.

use crate::compile::BuildProblem;
use crate::params::{FieldType, ParamSpec, ParamType, ParamValue};
use std::fmt;

/// What compatibility mode did about one mismatch between a tree and the
/// declaration of its leaf.
#[derive(Clone, Debug, PartialEq)]
pub struct CompatWarning {
    /// The mismatch, where strict mode reports it.
    pub problem: BuildProblem,
    /// What the compiled node has instead.
    pub kept: Kept,
}

/// What compatibility mode kept of a mismatched parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Kept {
    /// The value given was dropped.
    Dropped,
    /// The parameter has this value instead.
    Value {
        /// The parameter.
        name: Box<str>,
        /// Its value in the compiled node.
        value: ParamValue,
    },
}

impl fmt::Display for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kept::Dropped => f.write_str("compatibility mode dropped it"),
            Kept::Value { name, value } => {
                write!(f, "compatibility mode gave `{name}` the value {value}")
            }
        }
    }
}

/// The value compatibility mode gives `spec` when a tree's is missing or
/// no longer fits: its default, its fallback, or its type's zero (`None`
/// for an output, which only a blackboard field can be).
pub(crate) fn fallback(spec: &ParamSpec) -> Option<ParamValue> {
    if let Some(value) = spec.default.clone().or_else(|| spec.fallback.clone()) {
        return Some(value);
    }
    Some(match &spec.ty {
        ParamType::Int | ParamType::Count => ParamValue::Int(0),
        ParamType::Float => ParamValue::Float(0.0),
        ParamType::Bool => ParamValue::Bool(false),
        ParamType::Duration => ParamValue::Duration(0.0),
        ParamType::Str => ParamValue::Str("".into()),
        ParamType::Enum(variants) => ParamValue::Str(variants.first()?.clone()),
        // An input takes a literal of its type.
        ParamType::Input(FieldType::Bool) => ParamValue::Bool(false),
        ParamType::Input(FieldType::Int) => ParamValue::Int(0),
        ParamType::Input(FieldType::Float) => ParamValue::Float(0.0),
        ParamType::Input(FieldType::Str) => ParamValue::Str("".into()),
        ParamType::Output(_) => return None,
    })
}
