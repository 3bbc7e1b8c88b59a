//! Evaluation of tree scripts.
//!
//! Scripts are compiled when a tree loads (see
//! [`treebeard_shape::script`] for the language and its encoding) into
//! words whose ops are typed, so evaluating one is a loop over the words
//! with a fixed array of [`MAX_STACK`] 64-bit values and a `match` on the op
//! code: no allocation, no recursion, no type dispatch. Blackboard fields
//! are read and written through a [`FieldAccess`] (the [`Blackboard`]
//! trait's functions, as plain function pointers); tree variables are
//! bits and tree entries pairs of words of the agent's [`Memory`].
//!
//! Integer arithmetic wraps (`i64::MIN / -1` is `i64::MIN`); only an integer
//! division or remainder by zero faults. Floats follow IEEE. A [`Fault`] ends
//! the script where it happens: writes made before it stay made.
//!
//! Evaluation trusts nothing: on words that
//! [`check`](treebeard_shape::script::check) rejects it returns a fault
//! (mostly [`Fault::Malformed`]) or some value, but never panics nor loops
//! (jumps only go forward).
//!
//! ```
//! use treebeard_vm::script::{self, FieldAccess, Memory, ScriptValue};
//!
//! #[derive(Default)]
//! struct Deer { hunger: f32, ammo: u8, alert: bool }
//! treebeard_vm::blackboard!(Deer { hunger, ammo, alert });
//!
//! let code = script::compile_for::<Deer>("ammo -= 1; alert = hunger > 0.5 && !tired", &["tired"])?;
//! let mut deer = Deer { hunger: 0.75, ammo: 3, alert: false };
//! let mut vars = [0u32]; // `tired` is bit 0, false
//! let access = FieldAccess::of();
//! let value = script::eval(&code.words, &mut deer, &access, Memory::variables(&mut vars));
//! assert_eq!(value, Ok(ScriptValue::Bool(true)));
//! assert_eq!((deer.ammo, deer.alert), (2, true));
//! # Ok::<(), treebeard_shape::script::ScriptError>(())
//! ```

use crate::blackboard::{Blackboard, FieldId, Value};
use std::fmt;
use treebeard_shape::script::op::{self, Op};
use treebeard_shape::script::{Code, Names, ScriptError, ScriptType};

pub use treebeard_shape::script::MAX_STACK;

/// How a script reaches the fields of a blackboard of type `B`.
pub struct FieldAccess<B> {
    /// Reads a field ([`Blackboard::get`]).
    pub get: fn(&B, FieldId) -> Value<'_>,
    /// Writes a field, false if the blackboard refuses the value
    /// ([`Blackboard::set`]).
    pub set: fn(&mut B, FieldId, Value<'_>) -> bool,
}

impl<B> Clone for FieldAccess<B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for FieldAccess<B> {}

impl<B> fmt::Debug for FieldAccess<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FieldAccess").finish_non_exhaustive()
    }
}

/// A field of [`FieldAccess::none`]: false.
fn no_field<B>(_: &B, _: FieldId) -> Value<'static> {
    Value::Bool(false)
}

/// A write of [`FieldAccess::none`]: refused.
fn no_write<B>(_: &mut B, _: FieldId, _: Value<'_>) -> bool {
    false
}

impl<B> FieldAccess<B> {
    /// Access to no field: every field reads as `false` and refuses
    /// writes, for scripts that touch none.
    pub fn none() -> Self {
        FieldAccess {
            get: no_field::<B>,
            set: no_write::<B>,
        }
    }
}

impl<B> FieldAccess<B> {
    /// Evaluates `words` through this access: with [`eval`], or with
    /// [`eval_read_only`] for a `read_only` script (a condition).
    ///
    /// # Errors
    /// The [`Fault`] where the script stops.
    #[inline]
    pub fn run(
        &self,
        words: &[u64],
        bb: &mut B,
        memory: Memory<'_>,
        read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        if read_only {
            eval_read_only(words, bb, self.get, memory.into())
        } else {
            eval(words, bb, self, memory)
        }
    }
}

impl<B: Blackboard> FieldAccess<B> {
    /// The access of the blackboard's [`Blackboard`] implementation.
    pub fn of() -> Self {
        FieldAccess {
            get: B::get,
            set: B::set,
        }
    }
}

impl<B: Blackboard> Default for FieldAccess<B> {
    fn default() -> Self {
        Self::of()
    }
}

/// The value of a script.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScriptValue {
    /// A flag.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string: its word (see [`ScriptType::Str`]), whose text
    /// `Shape::text` gives.
    Str(u64),
}

impl ScriptValue {
    /// The value's type.
    pub fn ty(self) -> ScriptType {
        match self {
            ScriptValue::Bool(_) => ScriptType::Bool,
            ScriptValue::Int(_) => ScriptType::Int,
            ScriptValue::Float(_) => ScriptType::Float,
            ScriptValue::Str(_) => ScriptType::Str,
        }
    }

    /// The flag, if the value is a bool.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            ScriptValue::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// The integer, if the value is an int.
    pub fn as_int(self) -> Option<i64> {
        match self {
            ScriptValue::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The number as a float, if the value is an int or a float.
    pub fn as_float(self) -> Option<f64> {
        match self {
            ScriptValue::Int(v) => Some(v as f64),
            ScriptValue::Float(v) => Some(v),
            ScriptValue::Bool(_) | ScriptValue::Str(_) => None,
        }
    }
}

impl ScriptValue {
    /// The value as a blackboard value, a string's text read from
    /// `strings` (the shape's string table).
    pub fn value<'s>(self, strings: &'s [Box<str>]) -> Value<'s> {
        match self {
            ScriptValue::Bool(v) => Value::Bool(v),
            ScriptValue::Int(v) => Value::Int(v),
            ScriptValue::Float(v) => Value::Float(v),
            ScriptValue::Str(word) => Value::Str(text(strings, word)),
        }
    }
}

/// The text of the string word `word` in the string table `strings`: empty
/// for 0 and for a word past the table.
pub fn text(strings: &[Box<str>], word: u64) -> &str {
    word.checked_sub(1)
        .and_then(|i| strings.get(usize::try_from(i).ok()?))
        .map_or("", |s| s)
}

impl fmt::Display for ScriptValue {
    /// A string shows as its word: [`ScriptValue::value`] gives its text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScriptValue::Str(word) => write!(f, "string #{word}"),
            v => v.value(&[]).fmt(f),
        }
    }
}

/// Why a script stopped without a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fault {
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// The blackboard gave a value of another type than the field's
    /// declared one (or the field does not exist).
    FieldType(FieldId),
    /// The blackboard refused a value for the field (out of range for its
    /// Rust type, or no such field).
    Rejected(FieldId),
    /// A write, in a read-only evaluation ([`eval_read_only`]).
    ReadOnly,
    /// The words are not sound code (an unknown op, an operand out of
    /// range, a stack that over- or underflows, a jump backward, no return):
    /// code that [`check`](treebeard_shape::script::check) rejects.
    Malformed,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::DivisionByZero => f.write_str("integer division by zero"),
            Fault::FieldType(id) => write!(
                f,
                "blackboard field {} holds a value of another type than declared",
                id.0
            ),
            Fault::Rejected(id) => write!(f, "blackboard field {} refused the value", id.0),
            Fault::ReadOnly => f.write_str("a read-only script writes"),
            Fault::Malformed => f.write_str("malformed script code"),
        }
    }
}

impl std::error::Error for Fault {}

/// Compiles `source` over the fields of the blackboard `B` and the tree
/// variables `variables` (variable `i` is `variables[i]`); a variable hides
/// a field of the same name.
///
/// # Errors
///
/// See [`treebeard_shape::script::compile`].
pub fn compile_for<B: Blackboard>(source: &str, variables: &[&str]) -> Result<Code, ScriptError> {
    let fields = B::fields();
    treebeard_shape::script::compile(
        source,
        &Names {
            fields: &fields,
            variables,
            ..Names::default()
        },
    )
}

/// The tree memory a script reads and writes: the tree's variables, as
/// bits (variable `i` is bit `i % 32` of word `i / 32`), and its entries,
/// two words each (entry `i`'s 64 bits are words `2i`, low, and `2i + 1`).
#[derive(Debug, Default)]
pub struct Memory<'a> {
    /// The variables' bits.
    pub variables: &'a mut [u32],
    /// The entries' words.
    pub entries: &'a mut [u32],
}

impl<'a> Memory<'a> {
    /// Variables only.
    pub fn variables(variables: &'a mut [u32]) -> Memory<'a> {
        Memory {
            variables,
            entries: &mut [],
        }
    }
}

/// Shared access to a tree's memory, for a script that only reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoryRef<'a> {
    /// The variables' bits.
    pub variables: &'a [u32],
    /// The entries' words.
    pub entries: &'a [u32],
}

impl<'a> MemoryRef<'a> {
    /// Variables only.
    pub fn variables(variables: &'a [u32]) -> MemoryRef<'a> {
        MemoryRef {
            variables,
            entries: &[],
        }
    }
}

impl<'a> From<Memory<'a>> for MemoryRef<'a> {
    fn from(m: Memory<'a>) -> MemoryRef<'a> {
        MemoryRef {
            variables: m.variables,
            entries: m.entries,
        }
    }
}

/// Evaluates the script `words` over the blackboard `bb` and the tree
/// memory `memory`: reads and writes fields through `access`, variables as
/// bits (a variable past them reads false and ignores writes) and entries
/// as words (an entry past them is a [`Fault::Malformed`]).
///
/// # Errors
///
/// A [`Fault`] where the script stops; what it wrote before stays written.
#[inline]
pub fn eval<B>(
    words: &[u64],
    bb: &mut B,
    access: &FieldAccess<B>,
    memory: Memory<'_>,
) -> Result<ScriptValue, Fault> {
    let Memory { variables, entries } = memory;
    run(
        words,
        &mut Writable {
            bb,
            access,
            vars: variables,
            entries,
        },
    )
}

/// Evaluates a script that only reads, as a condition does: like [`eval`],
/// with shared access to the blackboard and the variables. A write faults
/// with [`Fault::ReadOnly`]; [`writes`](treebeard_shape::script::writes)
/// tells beforehand whether a script has any.
///
/// # Errors
///
/// A [`Fault`] where the script stops.
#[inline]
pub fn eval_read_only<B>(
    words: &[u64],
    bb: &B,
    get: fn(&B, FieldId) -> Value<'_>,
    memory: MemoryRef<'_>,
) -> Result<ScriptValue, Fault> {
    run(
        words,
        &mut ReadOnly {
            bb,
            get,
            vars: memory.variables,
            entries: memory.entries,
        },
    )
}

/// What a script reads and writes.
trait Env {
    fn load(&self, field: FieldId) -> Value<'_>;
    fn store(&mut self, field: FieldId, value: Value<'_>) -> Result<(), Fault>;
    fn var(&self, index: u64) -> bool;
    fn set_var(&mut self, index: u64, value: bool) -> Result<(), Fault>;
    fn entry(&self, index: u64) -> Result<u64, Fault>;
    fn set_entry(&mut self, index: u64, value: u64) -> Result<(), Fault>;
}

/// Where entry `index` is in the entry words: its first word.
#[inline]
fn entry_at(index: u64) -> usize {
    usize::try_from(index)
        .ok()
        .and_then(|i| i.checked_mul(2))
        .unwrap_or(usize::MAX)
}

#[inline]
fn read_entry(entries: &[u32], index: u64) -> Result<u64, Fault> {
    let at = entry_at(index);
    match entries.get(at..at.wrapping_add(2)) {
        Some(&[lo, hi]) => Ok(u64::from(lo) | u64::from(hi) << 32),
        _ => Err(Fault::Malformed),
    }
}

/// Variable `index` in `vars`: its word and bit mask.
#[inline]
fn bit(index: u64) -> (usize, u32) {
    (
        usize::try_from(index / 32).unwrap_or(usize::MAX),
        1 << (index % 32),
    )
}

#[inline]
fn read_var(vars: &[u32], index: u64) -> bool {
    let (word, mask) = bit(index);
    vars.get(word).is_some_and(|w| w & mask != 0)
}

struct Writable<'a, B> {
    bb: &'a mut B,
    access: &'a FieldAccess<B>,
    vars: &'a mut [u32],
    entries: &'a mut [u32],
}

impl<B> Env for Writable<'_, B> {
    #[inline]
    fn load(&self, field: FieldId) -> Value<'_> {
        (self.access.get)(self.bb, field)
    }

    #[inline]
    fn store(&mut self, field: FieldId, value: Value<'_>) -> Result<(), Fault> {
        if (self.access.set)(self.bb, field, value) {
            Ok(())
        } else {
            Err(Fault::Rejected(field))
        }
    }

    #[inline]
    fn var(&self, index: u64) -> bool {
        read_var(self.vars, index)
    }

    #[inline]
    fn set_var(&mut self, index: u64, value: bool) -> Result<(), Fault> {
        let (word, mask) = bit(index);
        if let Some(w) = self.vars.get_mut(word) {
            if value {
                *w |= mask;
            } else {
                *w &= !mask;
            }
        }
        Ok(())
    }

    #[inline]
    fn entry(&self, index: u64) -> Result<u64, Fault> {
        read_entry(self.entries, index)
    }

    #[inline]
    fn set_entry(&mut self, index: u64, value: u64) -> Result<(), Fault> {
        let at = entry_at(index);
        match self.entries.get_mut(at..at.wrapping_add(2)) {
            Some([lo, hi]) => {
                *lo = value as u32;
                *hi = (value >> 32) as u32;
                Ok(())
            }
            _ => Err(Fault::Malformed),
        }
    }
}

struct ReadOnly<'a, B> {
    bb: &'a B,
    get: fn(&B, FieldId) -> Value<'_>,
    vars: &'a [u32],
    entries: &'a [u32],
}

impl<B> Env for ReadOnly<'_, B> {
    #[inline]
    fn load(&self, field: FieldId) -> Value<'_> {
        (self.get)(self.bb, field)
    }

    fn store(&mut self, _: FieldId, _: Value<'_>) -> Result<(), Fault> {
        Err(Fault::ReadOnly)
    }

    #[inline]
    fn var(&self, index: u64) -> bool {
        read_var(self.vars, index)
    }

    fn set_var(&mut self, _: u64, _: bool) -> Result<(), Fault> {
        Err(Fault::ReadOnly)
    }

    #[inline]
    fn entry(&self, index: u64) -> Result<u64, Fault> {
        read_entry(self.entries, index)
    }

    fn set_entry(&mut self, _: u64, _: u64) -> Result<(), Fault> {
        Err(Fault::ReadOnly)
    }
}

/// The field a field op names.
#[inline]
fn field_id(word: u64) -> Result<FieldId, Fault> {
    u32::try_from(op::operand(word))
        .map(FieldId)
        .map_err(|_| Fault::Malformed)
}

fn run<E: Env>(words: &[u64], env: &mut E) -> Result<ScriptValue, Fault> {
    // Values are words: 0 or 1, an i64's bits, an f64's bits. `sp` counts
    // the values on the stack and never exceeds MAX_STACK.
    let mut stack = [0u64; MAX_STACK];
    let mut sp = 0usize;
    let mut pc = 0usize;

    macro_rules! push {
        ($value:expr) => {{
            let value = $value;
            *stack.get_mut(sp).ok_or(Fault::Malformed)? = value;
            sp += 1;
        }};
    }
    macro_rules! pop {
        () => {{
            sp = sp.checked_sub(1).ok_or(Fault::Malformed)?;
            stack[sp]
        }};
    }
    macro_rules! top {
        () => {
            stack.get_mut(sp.wrapping_sub(1)).ok_or(Fault::Malformed)?
        };
    }
    // Replaces the two values on top by `f(under, top)`.
    macro_rules! binary {
        (|$a:ident: $ta:ident, $b:ident| $f:expr) => {{
            let $b = pop!();
            let under = top!();
            let $a = $ta(*under);
            *under = $f;
        }};
    }
    // The next word, a wide literal.
    macro_rules! literal {
        () => {{
            let literal = *words.get(pc).ok_or(Fault::Malformed)?;
            pc += 1;
            literal
        }};
    }

    #[inline]
    fn int(word: u64) -> i64 {
        word as i64
    }
    #[inline]
    fn float(word: u64) -> f64 {
        f64::from_bits(word)
    }
    #[inline]
    fn flag(word: u64) -> bool {
        word != 0
    }
    #[inline]
    fn raw(word: u64) -> u64 {
        word
    }

    loop {
        let word = *words.get(pc).ok_or(Fault::Malformed)?;
        pc += 1;
        let op = Op::decode(word).ok_or(Fault::Malformed)?;
        match op {
            Op::PushBool => push!(u64::from(op::operand(word) != 0)),
            Op::PushInt => push!(op::inline_int(word) as u64),
            Op::PushFloat => push!(op::inline_float(word).to_bits()),
            Op::PushIntWide | Op::PushFloatWide => push!(literal!()),
            Op::LoadBool => {
                let id = field_id(word)?;
                let Value::Bool(v) = env.load(id) else {
                    return Err(Fault::FieldType(id));
                };
                push!(u64::from(v));
            }
            Op::LoadInt => {
                let id = field_id(word)?;
                let Value::Int(v) = env.load(id) else {
                    return Err(Fault::FieldType(id));
                };
                push!(v as u64);
            }
            Op::LoadFloat => {
                let id = field_id(word)?;
                let Value::Float(v) = env.load(id) else {
                    return Err(Fault::FieldType(id));
                };
                push!(v.to_bits());
            }
            Op::LoadVar => push!(u64::from(env.var(op::operand(word)))),
            Op::StoreBool => env.store(field_id(word)?, Value::Bool(flag(*top!())))?,
            Op::StoreInt => env.store(field_id(word)?, Value::Int(int(*top!())))?,
            Op::StoreFloat => env.store(field_id(word)?, Value::Float(float(*top!())))?,
            Op::StoreVar => {
                let value = flag(*top!());
                env.set_var(op::operand(word), value)?;
            }
            Op::Pop => {
                pop!();
            }
            Op::IntToFloat => {
                let top = top!();
                *top = (int(*top) as f64).to_bits();
            }
            Op::IntToFloatUnder => {
                let under = stack.get_mut(sp.wrapping_sub(2)).ok_or(Fault::Malformed)?;
                *under = (int(*under) as f64).to_bits();
            }
            Op::Not => {
                let top = top!();
                *top = u64::from(!flag(*top));
            }
            Op::NegInt => {
                let top = top!();
                *top = int(*top).wrapping_neg() as u64;
            }
            Op::NegFloat => {
                let top = top!();
                *top = (-float(*top)).to_bits();
            }
            Op::AddInt => binary!(|a: int, b| a.wrapping_add(int(b)) as u64),
            Op::SubInt => binary!(|a: int, b| a.wrapping_sub(int(b)) as u64),
            Op::MulInt => binary!(|a: int, b| a.wrapping_mul(int(b)) as u64),
            Op::DivInt => binary!(|a: int, b| match int(b) {
                0 => return Err(Fault::DivisionByZero),
                b => a.wrapping_div(b) as u64,
            }),
            Op::RemInt => binary!(|a: int, b| match int(b) {
                0 => return Err(Fault::DivisionByZero),
                b => a.wrapping_rem(b) as u64,
            }),
            Op::AddFloat => binary!(|a: float, b| (a + float(b)).to_bits()),
            Op::SubFloat => binary!(|a: float, b| (a - float(b)).to_bits()),
            Op::MulFloat => binary!(|a: float, b| (a * float(b)).to_bits()),
            Op::DivFloat => binary!(|a: float, b| (a / float(b)).to_bits()),
            Op::RemFloat => binary!(|a: float, b| (a % float(b)).to_bits()),
            Op::EqBool => binary!(|a: flag, b| u64::from(a == flag(b))),
            Op::NeBool => binary!(|a: flag, b| u64::from(a != flag(b))),
            Op::EqInt => binary!(|a: int, b| u64::from(a == int(b))),
            Op::NeInt => binary!(|a: int, b| u64::from(a != int(b))),
            Op::LtInt => binary!(|a: int, b| u64::from(a < int(b))),
            Op::LeInt => binary!(|a: int, b| u64::from(a <= int(b))),
            Op::GtInt => binary!(|a: int, b| u64::from(a > int(b))),
            Op::GeInt => binary!(|a: int, b| u64::from(a >= int(b))),
            Op::EqFloat => binary!(|a: float, b| u64::from(a == float(b))),
            Op::NeFloat => binary!(|a: float, b| u64::from(a != float(b))),
            Op::LtFloat => binary!(|a: float, b| u64::from(a < float(b))),
            Op::LeFloat => binary!(|a: float, b| u64::from(a <= float(b))),
            Op::GtFloat => binary!(|a: float, b| u64::from(a > float(b))),
            Op::GeFloat => binary!(|a: float, b| u64::from(a >= float(b))),
            Op::AndThen | Op::OrElse => {
                // Forward only, so that evaluation always ends.
                let target = usize::try_from(op::operand(word)).map_err(|_| Fault::Malformed)?;
                if target < pc {
                    return Err(Fault::Malformed);
                }
                if flag(*top!()) == (op == Op::OrElse) {
                    pc = target;
                } else {
                    sp -= 1;
                }
            }
            Op::ReturnBool => return Ok(ScriptValue::Bool(flag(pop!()))),
            Op::ReturnInt => return Ok(ScriptValue::Int(int(pop!()))),
            Op::ReturnFloat => return Ok(ScriptValue::Float(float(pop!()))),
            Op::ReturnStr => return Ok(ScriptValue::Str(pop!())),
            Op::PushStr => push!(op::operand(word)),
            Op::LoadEntry => push!(env.entry(op::operand(word))?),
            Op::StoreEntry => {
                let value = *top!();
                env.set_entry(op::operand(word), value)?;
            }
            // Strings are equal when their words are (see `ScriptType::Str`).
            Op::EqStr => binary!(|a: raw, b| u64::from(a == b)),
            Op::NeStr => binary!(|a: raw, b| u64::from(a != b)),
        }
    }
}
