//! Blackboards: what trees may name of an agent's knowledge.
//!
//! The blackboard is the application's own type. To let tree files name its
//! fields (as parameters of generic leaves: "wait until `{hunger}` is above
//! 70", "write the target to `{enemy}`"), the application declares them once:
//! [`Blackboard::fields`] lists names and types, and [`Blackboard::get`] and
//! [`Blackboard::set`] reach a field by its index. The compiler turns every
//! field name in a tree into that index, so a tick never looks a name up.
//!
//! [`blackboard!`](crate::blackboard!) implements the trait for a struct by
//! naming its fields; each field's type must implement [`FieldValue`] (all
//! integers, `f32`, `f64`, `bool`, `String`).
//!
//! ```
//! use treebeard_vm::{Blackboard, FieldId, Value};
//!
//! #[derive(Default)]
//! struct Deer { hunger: u8, alert: bool, name: String }
//! treebeard_vm::blackboard!(Deer { hunger, alert, name });
//!
//! let mut deer = Deer::default();
//! assert_eq!(Deer::fields()[0].name.as_ref(), "hunger");
//! assert!(deer.set(FieldId(0), Value::Int(70)));
//! assert!(!deer.set(FieldId(0), Value::Int(700))); // out of range for a u8
//! assert_eq!(deer.get(FieldId(0)), Value::Int(70));
//! ```

use std::fmt;
use treebeard_shape::{FieldDecl, FieldType};

/// A blackboard field, by its index in the declared fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId(pub u32);

/// A field's value, borrowed from the blackboard where it is a string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// A flag.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(&'a str),
}

impl Value<'_> {
    /// The value's type.
    pub fn ty(&self) -> FieldType {
        match self {
            Value::Bool(_) => FieldType::Bool,
            Value::Int(_) => FieldType::Int,
            Value::Float(_) => FieldType::Float,
            Value::Str(_) => FieldType::Str,
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(v) => write!(f, "{v}"),
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Str(v) => write!(f, "{v:?}"),
        }
    }
}

/// A blackboard whose fields trees may name.
pub trait Blackboard {
    /// The fields, by index: their names and types.
    fn fields() -> Vec<FieldDecl>
    where
        Self: Sized;

    /// The value of `field`. An index past the fields reads as `false`.
    fn get(&self, field: FieldId) -> Value<'_>;

    /// Sets `field` to `value`, converting integers and floats where the
    /// value fits; false (and nothing set) when it does not, or when the
    /// index is past the fields.
    fn set(&mut self, field: FieldId, value: Value<'_>) -> bool;
}

/// A Rust type a blackboard field can have.
pub trait FieldValue {
    /// Its field type.
    const TYPE: FieldType;
    /// Its value.
    fn to_value(&self) -> Value<'_>;
    /// Takes `value` if it fits.
    fn take(&mut self, value: Value<'_>) -> bool;
}

impl FieldValue for bool {
    const TYPE: FieldType = FieldType::Bool;
    fn to_value(&self) -> Value<'_> {
        Value::Bool(*self)
    }
    fn take(&mut self, value: Value<'_>) -> bool {
        match value {
            Value::Bool(v) => {
                *self = v;
                true
            }
            _ => false,
        }
    }
}

macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            const TYPE: FieldType = FieldType::Int;
            fn to_value(&self) -> Value<'_> {
                Value::Int(*self as i64)
            }
            fn take(&mut self, value: Value<'_>) -> bool {
                let Value::Int(v) = value else { return false };
                match <$t>::try_from(v) {
                    Ok(v) => {
                        *self = v;
                        true
                    }
                    Err(_) => false,
                }
            }
        }
    )*};
}
int_field!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

macro_rules! float_field {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            const TYPE: FieldType = FieldType::Float;
            fn to_value(&self) -> Value<'_> {
                Value::Float(f64::from(*self))
            }
            fn take(&mut self, value: Value<'_>) -> bool {
                let v = match value {
                    Value::Float(v) => v,
                    Value::Int(v) => v as f64,
                    _ => return false,
                };
                *self = v as $t;
                true
            }
        }
    )*};
}
float_field!(f32, f64);

impl FieldValue for String {
    const TYPE: FieldType = FieldType::Str;
    fn to_value(&self) -> Value<'_> {
        Value::Str(self)
    }
    fn take(&mut self, value: Value<'_>) -> bool {
        let Value::Str(v) = value else { return false };
        self.clear();
        self.push_str(v);
        true
    }
}

/// Implements [`Blackboard`] for a struct by naming the fields trees may
/// use: `blackboard!(Type { field, other_field })`. Each field's type must
/// implement [`FieldValue`]; its index is its position in the list.
#[macro_export]
macro_rules! blackboard {
    ($ty:ty { $($field:ident),* $(,)? }) => {
        impl $crate::Blackboard for $ty {
            fn fields() -> ::std::vec::Vec<$crate::__private::FieldDecl> {
                fn ty_of<T: $crate::FieldValue>(_: fn(&$ty) -> &T) -> $crate::__private::FieldType {
                    T::TYPE
                }
                ::std::vec![$(
                    $crate::__private::FieldDecl::new(
                        ::std::stringify!($field),
                        ty_of(|b: &$ty| &b.$field),
                    ),
                )*]
            }

            #[allow(unused_assignments)]
            fn get(&self, field: $crate::FieldId) -> $crate::Value<'_> {
                let mut i = 0u32;
                $(
                    if field.0 == i {
                        return $crate::FieldValue::to_value(&self.$field);
                    }
                    i += 1;
                )*
                $crate::Value::Bool(false)
            }

            #[allow(unused_assignments)]
            fn set(&mut self, field: $crate::FieldId, value: $crate::Value<'_>) -> bool {
                let mut i = 0u32;
                $(
                    if field.0 == i {
                        return $crate::FieldValue::take(&mut self.$field, value);
                    }
                    i += 1;
                )*
                false
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Deer {
        hunger: u8,
        speed: f32,
        alert: bool,
        name: String,
    }
    crate::blackboard!(Deer {
        hunger,
        speed,
        alert,
        name
    });

    #[test]
    fn the_macro_declares_names_and_types_in_order() {
        let names: Vec<_> = Deer::fields().into_iter().map(|f| (f.name, f.ty)).collect();
        assert_eq!(
            names,
            vec![
                ("hunger".into(), FieldType::Int),
                ("speed".into(), FieldType::Float),
                ("alert".into(), FieldType::Bool),
                ("name".into(), FieldType::Str),
            ]
        );
    }

    #[test]
    fn fields_convert_when_the_value_fits() {
        let mut d = Deer::default();
        assert!(d.set(FieldId(1), Value::Int(3)));
        assert_eq!(d.get(FieldId(1)), Value::Float(3.0));
        assert!(!d.set(FieldId(0), Value::Int(-1)));
        assert!(!d.set(FieldId(2), Value::Int(1)));
        assert!(d.set(FieldId(3), Value::Str("Bambi")));
        assert_eq!(d.get(FieldId(3)), Value::Str("Bambi"));
        assert!(!d.set(FieldId(9), Value::Bool(true)));
        assert_eq!(d.get(FieldId(9)), Value::Bool(false));
    }
}
