//! The verifier: whether words are sound script code for a schema.
//!
//! One forward pass with an abstract stack of types. Jumps go forward only,
//! so the stack expected at every jump target is known before the pass
//! reaches it, and every op is reached by falling through (there is no
//! unconditional jump): an op where a jump lands must see the same stack
//! from both paths. A stack of up to [`MAX_STACK`] types fits one `u128`,
//! three bits a value.

use super::op::{self, Op, Operand};
use super::{Entry, MAX_STACK, MAX_WORDS, ScriptType};
use crate::params::{FieldDecl, FieldType};

const _: () = assert!(MAX_STACK * 3 <= 128, "a type stack must fit in a u128");

/// A value type as three bits; 0 marks an empty slot.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum T {
    Bool = 1,
    Int = 2,
    Float = 3,
    Str = 4,
}

impl T {
    fn of_field(ty: FieldType) -> Option<T> {
        match ty {
            FieldType::Bool => Some(T::Bool),
            FieldType::Int => Some(T::Int),
            FieldType::Float => Some(T::Float),
            FieldType::Str => None,
        }
    }

    fn of(ty: ScriptType) -> T {
        match ty {
            ScriptType::Bool => T::Bool,
            ScriptType::Int => T::Int,
            ScriptType::Float => T::Float,
            ScriptType::Str => T::Str,
        }
    }
}

/// The types on the stack, bottom in the low bits.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Stack {
    len: u32,
    bits: u128,
}

impl Stack {
    fn push(&mut self, t: T) -> Result<(), &'static str> {
        if self.len as usize >= MAX_STACK {
            return Err("the stack grows deeper than the limit");
        }
        self.bits |= (t as u128) << (3 * self.len);
        self.len += 1;
        Ok(())
    }

    fn pop(&mut self) -> Result<u128, &'static str> {
        if self.len == 0 {
            return Err("an op pops an empty stack");
        }
        self.len -= 1;
        let shift = 3 * self.len;
        let t = (self.bits >> shift) & 7;
        self.bits &= !(7 << shift);
        Ok(t)
    }

    fn take(&mut self, t: T) -> Result<(), &'static str> {
        if self.pop()? != t as u128 {
            return Err("an op takes a value of another type");
        }
        Ok(())
    }
}

/// What script code may name, to check it against ([`check_in`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// The blackboard's fields.
    pub fields: &'a [FieldDecl],
    /// How many variables the tree has.
    pub variables: u32,
    /// The tree's entries.
    pub entries: &'a [Entry],
    /// How many strings the shape's string table holds: string words go
    /// up to it (see [`ScriptType::Str`]).
    pub strings: u64,
}

/// Checks that `words` are sound script code over a blackboard with
/// `fields` and a tree with `variables` variables, no entries and no
/// strings: [`check_in`] with that context.
///
/// # Errors
///
/// What is wrong with the first word that is not sound.
pub fn check(
    words: &[u64],
    fields: &[FieldDecl],
    variables: u32,
) -> Result<ScriptType, &'static str> {
    check_in(
        words,
        &Context {
            fields,
            variables,
            ..Context::default()
        },
    )
}

/// Checks that `words` are sound script code in the context `cx`, and
/// returns the type of the script's value.
///
/// Sound code has only known ops; no reserved operand bits set; bool
/// literals 0 or 1; field operands in range and of the op's type (never a
/// string); variable and entry operands in range, an entry op's value of
/// the entry's type; string words within the string table; the literal word of every
/// wide push present; jumps forward, within the code, never onto a literal
/// word, and onto an op that sees the same stack types from both paths;
/// every op given values of its types, the stack never popped when empty
/// nor deeper than [`MAX_STACK`]; and a typed return as the last word, with
/// its value the only one on the stack. At most [`MAX_WORDS`] words.
///
/// It never panics, whatever the words.
///
/// # Errors
///
/// What is wrong with the first word that is not sound.
pub fn check_in(words: &[u64], cx: &Context<'_>) -> Result<ScriptType, &'static str> {
    let (fields, variables) = (cx.fields, cx.variables);
    if words.is_empty() {
        return Err("the code is empty");
    }
    if words.len() > MAX_WORDS {
        return Err("the code has more words than the limit");
    }
    // The stack each jump expects at its target.
    let mut joins: Vec<Option<Stack>> = vec![None; words.len()];
    let mut s = Stack::default();
    let mut pc = 0;
    while let Some(&word) = words.get(pc) {
        if joins.get(pc).is_some_and(|j| j.is_some_and(|j| j != s)) {
            return Err("a jump lands with another stack than the code before its target");
        }
        let op = Op::decode(word).ok_or("unknown op code")?;
        let operand = op::operand(word);
        let mut next = pc + 1;
        // The operand and, for field ops, the field's type; for entry ops,
        // the entry's.
        let mut field = None;
        let mut entry = T::Bool;
        match op.operand() {
            Operand::None if operand != 0 => return Err("reserved operand bits are set"),
            Operand::None | Operand::Int | Operand::Float => {}
            Operand::Bool if operand > 1 => return Err("a bool literal is neither 0 nor 1"),
            Operand::Bool => {}
            Operand::Wide => {
                if operand != 0 {
                    return Err("reserved operand bits are set");
                }
                match joins.get(pc + 1) {
                    None => return Err("a wide literal's word is missing"),
                    Some(Some(_)) => return Err("a jump lands on a literal word"),
                    Some(None) => {}
                }
                next = pc + 2;
            }
            Operand::Field => {
                let decl = usize::try_from(operand)
                    .ok()
                    .and_then(|i| fields.get(i))
                    .ok_or("field index out of range")?;
                field = Some(T::of_field(decl.ty).ok_or("a script names a string field")?);
            }
            Operand::Variable if operand >= u64::from(variables) => {
                return Err("variable index out of range");
            }
            Operand::Variable => {}
            Operand::Entry => {
                let e = usize::try_from(operand)
                    .ok()
                    .and_then(|i| cx.entries.get(i))
                    .ok_or("entry index out of range")?;
                entry = T::of(e.ty);
            }
            Operand::Str if operand > cx.strings => return Err("string index out of range"),
            Operand::Str => {}
            Operand::Target => {
                let target = usize::try_from(operand).unwrap_or(usize::MAX);
                let join = match joins.get_mut(target) {
                    Some(join) if target > pc => join,
                    _ => return Err("a jump goes backward or out of the code"),
                };
                let before = s;
                s.take(T::Bool)?;
                match join {
                    Some(j) if *j != before => {
                        return Err("two jumps land on one op with different stacks");
                    }
                    j => *j = Some(before),
                }
            }
        }
        let field_is = |t: T| {
            if field == Some(t) {
                Ok(())
            } else {
                Err("a field op names a field of another type")
            }
        };
        match op {
            Op::PushBool | Op::LoadVar => s.push(T::Bool)?,
            Op::PushInt | Op::PushIntWide => s.push(T::Int)?,
            Op::PushFloat | Op::PushFloatWide => s.push(T::Float)?,
            Op::PushStr => s.push(T::Str)?,
            Op::LoadEntry => s.push(entry)?,
            Op::StoreEntry => {
                s.take(entry)?;
                s.push(entry)?;
            }
            Op::EqStr | Op::NeStr => {
                s.take(T::Str)?;
                s.take(T::Str)?;
                s.push(T::Bool)?;
            }
            Op::LoadBool => {
                field_is(T::Bool)?;
                s.push(T::Bool)?;
            }
            Op::LoadInt => {
                field_is(T::Int)?;
                s.push(T::Int)?;
            }
            Op::LoadFloat => {
                field_is(T::Float)?;
                s.push(T::Float)?;
            }
            Op::StoreBool => {
                field_is(T::Bool)?;
                s.take(T::Bool)?;
                s.push(T::Bool)?;
            }
            Op::StoreInt => {
                field_is(T::Int)?;
                s.take(T::Int)?;
                s.push(T::Int)?;
            }
            Op::StoreFloat => {
                field_is(T::Float)?;
                s.take(T::Float)?;
                s.push(T::Float)?;
            }
            Op::StoreVar | Op::Not => {
                s.take(T::Bool)?;
                s.push(T::Bool)?;
            }
            Op::Pop => {
                s.pop()?;
            }
            Op::IntToFloat => {
                s.take(T::Int)?;
                s.push(T::Float)?;
            }
            Op::IntToFloatUnder => {
                s.take(T::Float)?;
                s.take(T::Int)?;
                s.push(T::Float)?;
                s.push(T::Float)?;
            }
            Op::NegInt => {
                s.take(T::Int)?;
                s.push(T::Int)?;
            }
            Op::NegFloat => {
                s.take(T::Float)?;
                s.push(T::Float)?;
            }
            Op::AddInt | Op::SubInt | Op::MulInt | Op::DivInt | Op::RemInt => {
                s.take(T::Int)?;
                s.take(T::Int)?;
                s.push(T::Int)?;
            }
            Op::AddFloat | Op::SubFloat | Op::MulFloat | Op::DivFloat | Op::RemFloat => {
                s.take(T::Float)?;
                s.take(T::Float)?;
                s.push(T::Float)?;
            }
            Op::EqBool | Op::NeBool => {
                s.take(T::Bool)?;
                s.take(T::Bool)?;
                s.push(T::Bool)?;
            }
            Op::EqInt | Op::NeInt | Op::LtInt | Op::LeInt | Op::GtInt | Op::GeInt => {
                s.take(T::Int)?;
                s.take(T::Int)?;
                s.push(T::Bool)?;
            }
            Op::EqFloat | Op::NeFloat | Op::LtFloat | Op::LeFloat | Op::GtFloat | Op::GeFloat => {
                s.take(T::Float)?;
                s.take(T::Float)?;
                s.push(T::Bool)?;
            }
            // Checked with the operand: the fall-through path popped.
            Op::AndThen | Op::OrElse => {}
            Op::ReturnBool | Op::ReturnInt | Op::ReturnFloat | Op::ReturnStr => {
                let ty = match op {
                    Op::ReturnBool => ScriptType::Bool,
                    Op::ReturnInt => ScriptType::Int,
                    Op::ReturnFloat => ScriptType::Float,
                    _ => ScriptType::Str,
                };
                let t = T::of(ty);
                s.take(t)?;
                if s.len != 0 {
                    return Err("values are left on the stack at the return");
                }
                if next != words.len() {
                    return Err("words follow the return");
                }
                return Ok(ty);
            }
        }
        pc = next;
    }
    Err("the code does not end with a return")
}

/// Whether sound `words` read or write a blackboard field (have a field
/// operand): scripts that only touch variables need no access to the
/// blackboard. For words that are not sound the answer is only a guess.
pub fn touches_fields(words: &[u64]) -> bool {
    let mut pc = 0;
    while let Some(&word) = words.get(pc) {
        match Op::decode(word) {
            Some(op) if op.operand() == Operand::Field => return true,
            Some(op) if op.operand() == Operand::Wide => pc += 2,
            _ => pc += 1,
        }
    }
    false
}

/// Whether sound `words` may write a field or a variable (have a store op).
///
/// A script that does not is pure: evaluating it changes nothing, so it can
/// serve as a condition that only reads the blackboard. For words that are
/// not sound the answer is only a guess (unknown ops are skipped).
pub fn writes(words: &[u64]) -> bool {
    let mut pc = 0;
    while let Some(&word) = words.get(pc) {
        let op = Op::decode(word);
        match op {
            Some(Op::StoreBool | Op::StoreInt | Op::StoreFloat | Op::StoreVar | Op::StoreEntry) => {
                return true;
            }
            Some(op) if op.operand() == Operand::Wide => pc += 2,
            _ => pc += 1,
        }
    }
    false
}

/// The string words that `words` push (the operands of their `push_str`
/// ops), in order. For words that are not sound the answer is only a guess.
pub fn strings(words: &[u64]) -> impl Iterator<Item = u64> + '_ {
    let mut pc = 0;
    std::iter::from_fn(move || {
        while let Some(&word) = words.get(pc) {
            let op = Op::decode(word);
            pc += if op.is_some_and(|op| op.operand() == Operand::Wide) {
                2
            } else {
                1
            };
            if op == Some(Op::PushStr) {
                return Some(op::operand(word));
            }
        }
        None
    })
}
