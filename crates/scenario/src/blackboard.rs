//! The dynamic blackboard: keys and types a scenario file declares.

use std::fmt;
use treebeard_shape::{FieldDecl, FieldType};
use treebeard_vm::{Blackboard, FieldId, Value};

/// A value a dynamic blackboard holds.
#[derive(Clone, Debug, PartialEq)]
pub enum DynValue {
    /// A flag.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number with a fraction.
    Float(f64),
    /// Text.
    Str(String),
}

impl DynValue {
    /// Its type.
    pub fn ty(&self) -> FieldType {
        match self {
            DynValue::Bool(_) => FieldType::Bool,
            DynValue::Int(_) => FieldType::Int,
            DynValue::Float(_) => FieldType::Float,
            DynValue::Str(_) => FieldType::Str,
        }
    }

    /// As the VM's borrowed value.
    pub fn as_value(&self) -> Value<'_> {
        match self {
            DynValue::Bool(b) => Value::Bool(*b),
            DynValue::Int(i) => Value::Int(*i),
            DynValue::Float(f) => Value::Float(*f),
            DynValue::Str(s) => Value::Str(s),
        }
    }

    /// `self` converted to `ty` where the meaning is kept: an integer is a
    /// float too. `None` otherwise.
    pub fn to_type(&self, ty: FieldType) -> Option<DynValue> {
        match (self, ty) {
            (v, t) if v.ty() == t => Some(v.clone()),
            (DynValue::Int(i), FieldType::Float) => Some(DynValue::Float(*i as f64)),
            _ => None,
        }
    }
}

impl fmt::Display for DynValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynValue::Bool(b) => write!(f, "{b}"),
            DynValue::Int(i) => write!(f, "{i}"),
            DynValue::Float(x) => write!(f, "{x:?}"),
            DynValue::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// One agent's values of the declared keys, by key index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DynBlackboard {
    values: Vec<DynValue>,
}

impl DynBlackboard {
    /// A blackboard holding `values` (one per declared key, in order).
    pub fn new(values: Vec<DynValue>) -> DynBlackboard {
        DynBlackboard { values }
    }

    /// The values, by key index.
    pub fn values(&self) -> &[DynValue] {
        &self.values
    }

    /// The value of key `i`.
    pub fn value(&self, i: usize) -> Option<&DynValue> {
        self.values.get(i)
    }

    /// Sets key `i`, if `value` has its type (integers become floats for
    /// float keys); false otherwise.
    pub fn put(&mut self, i: usize, value: &DynValue) -> bool {
        let Some(slot) = self.values.get_mut(i) else {
            return false;
        };
        match value.to_type(slot.ty()) {
            Some(v) => {
                *slot = v;
                true
            }
            None => false,
        }
    }
}

impl Blackboard for DynBlackboard {
    /// A dynamic blackboard's keys are the scenario's, not the type's:
    /// declare them with `Leaves::fields`. This list is empty.
    fn fields() -> Vec<FieldDecl> {
        Vec::new()
    }

    fn get(&self, field: FieldId) -> Value<'_> {
        self.values
            .get(field.0 as usize)
            .map_or(Value::Bool(false), DynValue::as_value)
    }

    fn set(&mut self, field: FieldId, value: Value<'_>) -> bool {
        let value = match value {
            Value::Bool(b) => DynValue::Bool(b),
            Value::Int(i) => DynValue::Int(i),
            Value::Float(f) => DynValue::Float(f),
            Value::Str(s) => DynValue::Str(s.into()),
        };
        self.put(field.0 as usize, &value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_types() {
        let mut bb = DynBlackboard::new(vec![DynValue::Int(1), DynValue::Float(0.5)]);
        assert!(bb.put(0, &DynValue::Int(7)));
        assert!(!bb.put(0, &DynValue::Str("x".into())));
        assert!(bb.put(1, &DynValue::Int(2)));
        assert_eq!(bb.values(), [DynValue::Int(7), DynValue::Float(2.0)]);
        assert!(bb.set(FieldId(0), Value::Int(3)));
        assert_eq!(bb.get(FieldId(0)), Value::Int(3));
        assert!(!bb.set(FieldId(5), Value::Int(3)));
        assert_eq!(bb.get(FieldId(9)), Value::Bool(false));
    }
}
