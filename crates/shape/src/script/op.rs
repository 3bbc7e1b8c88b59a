//! The one list of script operations.
//!
//! Every word of compiled script code that is not a literal starts with a
//! one-byte op code; the other 56 bits are the op's operand, laid out as its
//! [`Operand`] says. The [`Op`] enum, its decoding, its mnemonic and its
//! operand layout are generated from the `script_ops!` invocation below,
//! so the compiler, [`check`](super::check), the disassembler and the
//! evaluator in `treebeard-vm` (whose `match` is exhaustive) all follow one
//! list. Codes are dense from 1 and never reused; 0 is no op, so a zeroed
//! word is always rejected.

/// How an op uses the 56 bits above its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// Unused: the bits must be zero.
    None,
    /// 0 (false) or 1 (true).
    Bool,
    /// A signed 56-bit integer ([`inline_int`]).
    Int,
    /// The top 56 bits of an `f64` whose low 8 bits are zero
    /// ([`inline_float`]).
    Float,
    /// Unused (zero); the literal's 64 bits are the next word.
    Wide,
    /// The index of a blackboard field.
    Field,
    /// The index of a tree variable.
    Variable,
    /// The index of a tree entry (an entry the tree's scripts create).
    Entry,
    /// A string: 0 for the empty string, else one more than its index in
    /// the shape's string table.
    Str,
    /// A word offset in the same code, after the op's own.
    Target,
}

macro_rules! script_ops {
    (
        $(
            $(#[doc = $doc:literal])+
            $code:literal => $name:ident $mnemonic:literal ($operand:ident);
        )+
    ) => {
        /// A script operation; the discriminant is its code, the low byte of
        /// its word.
        ///
        /// Ops are typed: each one knows the types of the values it takes
        /// from the stack and leaves on it, so evaluation never inspects a
        /// value's type. Stack effects are written `before -> after`, the top
        /// on the right.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Op {
            $( $(#[doc = $doc])+ $name = $code, )+
        }

        impl Op {
            /// Every op, in code order.
            pub const ALL: &'static [Op] = &[ $( Op::$name, )+ ];

            /// The op of a code word (its low byte); `None` for codes no op
            /// uses.
            #[inline]
            pub const fn decode(word: u64) -> Option<Op> {
                match word as u8 {
                    $( $code => Some(Op::$name), )+
                    _ => None,
                }
            }

            /// The op's name in listings.
            pub const fn mnemonic(self) -> &'static str {
                match self { $( Op::$name => $mnemonic, )+ }
            }

            /// How the op's operand bits are used.
            pub const fn operand(self) -> Operand {
                match self { $( Op::$name => Operand::$operand, )+ }
            }
        }
    };
}

script_ops! {
    /// `-> bool`: pushes the operand (0 or 1).
    1 => PushBool "push_bool" (Bool);
    /// `-> int`: pushes the operand, a sign-extended 56-bit integer.
    2 => PushInt "push_int" (Int);
    /// `-> int`: pushes the next word, an `i64`.
    3 => PushIntWide "push_int_wide" (Wide);
    /// `-> float`: pushes the operand bits as the top 56 bits of an `f64`.
    4 => PushFloat "push_float" (Float);
    /// `-> float`: pushes the next word, an `f64`'s bits.
    5 => PushFloatWide "push_float_wide" (Wide);
    /// `-> bool`: pushes the bool field.
    6 => LoadBool "load_bool" (Field);
    /// `-> int`: pushes the int field.
    7 => LoadInt "load_int" (Field);
    /// `-> float`: pushes the float field.
    8 => LoadFloat "load_float" (Field);
    /// `-> bool`: pushes the variable.
    9 => LoadVar "load_var" (Variable);
    /// `bool -> bool`: writes the top to the bool field and keeps it.
    10 => StoreBool "store_bool" (Field);
    /// `int -> int`: writes the top to the int field and keeps it.
    11 => StoreInt "store_int" (Field);
    /// `float -> float`: writes the top to the float field and keeps it.
    12 => StoreFloat "store_float" (Field);
    /// `bool -> bool`: writes the top to the variable and keeps it.
    13 => StoreVar "store_var" (Variable);
    /// `bool|int|float ->`: drops the top (the value of a statement).
    14 => Pop "pop" (None);
    /// `int -> float`: converts the top.
    15 => IntToFloat "int_to_float" (None);
    /// `int float -> float float`: converts the value under the top.
    16 => IntToFloatUnder "int_to_float_under" (None);
    /// `bool -> bool`: logical not.
    17 => Not "not" (None);
    /// `int -> int`: wrapping negation.
    18 => NegInt "neg_int" (None);
    /// `float -> float`: negation.
    19 => NegFloat "neg_float" (None);
    /// `int int -> int`: wrapping addition.
    20 => AddInt "add_int" (None);
    /// `float float -> float`: addition.
    21 => AddFloat "add_float" (None);
    /// `int int -> int`: wrapping subtraction.
    22 => SubInt "sub_int" (None);
    /// `float float -> float`: subtraction.
    23 => SubFloat "sub_float" (None);
    /// `int int -> int`: wrapping multiplication.
    24 => MulInt "mul_int" (None);
    /// `float float -> float`: multiplication.
    25 => MulFloat "mul_float" (None);
    /// `int int -> int`: wrapping division, rounding toward zero; a zero
    /// divisor faults.
    26 => DivInt "div_int" (None);
    /// `float float -> float`: IEEE division.
    27 => DivFloat "div_float" (None);
    /// `int int -> int`: wrapping remainder with the dividend's sign; a zero
    /// divisor faults.
    28 => RemInt "rem_int" (None);
    /// `float float -> float`: remainder with the dividend's sign.
    29 => RemFloat "rem_float" (None);
    /// `bool bool -> bool`: equality.
    30 => EqBool "eq_bool" (None);
    /// `int int -> bool`: equality.
    31 => EqInt "eq_int" (None);
    /// `float float -> bool`: IEEE equality.
    32 => EqFloat "eq_float" (None);
    /// `bool bool -> bool`: inequality.
    33 => NeBool "ne_bool" (None);
    /// `int int -> bool`: inequality.
    34 => NeInt "ne_int" (None);
    /// `float float -> bool`: IEEE inequality.
    35 => NeFloat "ne_float" (None);
    /// `int int -> bool`: less than.
    36 => LtInt "lt_int" (None);
    /// `float float -> bool`: less than.
    37 => LtFloat "lt_float" (None);
    /// `int int -> bool`: less than or equal.
    38 => LeInt "le_int" (None);
    /// `float float -> bool`: less than or equal.
    39 => LeFloat "le_float" (None);
    /// `int int -> bool`: greater than.
    40 => GtInt "gt_int" (None);
    /// `float float -> bool`: greater than.
    41 => GtFloat "gt_float" (None);
    /// `int int -> bool`: greater than or equal.
    42 => GeInt "ge_int" (None);
    /// `float float -> bool`: greater than or equal.
    43 => GeFloat "ge_float" (None);
    /// `bool -> bool` (`&&`): when the top is false, jumps to the target
    /// keeping it; otherwise drops it and goes on.
    44 => AndThen "and_then" (Target);
    /// `bool -> bool` (`||`): when the top is true, jumps to the target
    /// keeping it; otherwise drops it and goes on.
    45 => OrElse "or_else" (Target);
    /// `bool ->`: ends the script with the top, the stack's only value.
    46 => ReturnBool "return_bool" (None);
    /// `int ->`: ends the script with the top, the stack's only value.
    47 => ReturnInt "return_int" (None);
    /// `float ->`: ends the script with the top, the stack's only value.
    48 => ReturnFloat "return_float" (None);
    /// `-> string`: pushes the operand, a string.
    49 => PushStr "push_str" (Str);
    /// `-> t`: pushes the tree entry, of its type `t`.
    50 => LoadEntry "load_entry" (Entry);
    /// `t -> t`: writes the top to the tree entry (of type `t`) and keeps
    /// it.
    51 => StoreEntry "store_entry" (Entry);
    /// `string string -> bool`: equality.
    52 => EqStr "eq_str" (None);
    /// `string string -> bool`: inequality.
    53 => NeStr "ne_str" (None);
    /// `string ->`: ends the script with the top, the stack's only value.
    54 => ReturnStr "return_str" (None);
}

/// The bits of a code word above the op code.
#[inline]
pub const fn operand(word: u64) -> u64 {
    word >> 8
}

/// The code word of `op` with `operand` (which must fit in 56 bits).
#[inline]
pub const fn encode(op: Op, operand: u64) -> u64 {
    debug_assert!(operand >> 56 == 0);
    operand << 8 | op as u64
}

/// The integer of a [`Op::PushInt`] word: its operand, sign-extended.
#[inline]
pub const fn inline_int(word: u64) -> i64 {
    (word as i64) >> 8
}

/// The float of a [`Op::PushFloat`] word: its operand bits are the top 56
/// bits of the `f64`, whose low 8 bits are zero.
#[inline]
pub fn inline_float(word: u64) -> f64 {
    f64::from_bits(word & !0xff)
}

/// The [`Op::PushInt`] word for `value`, if it fits in 56 bits.
pub const fn push_int(value: i64) -> Option<u64> {
    let word = (value as u64) << 8 | Op::PushInt as u64;
    if inline_int(word) == value {
        Some(word)
    } else {
        None
    }
}

/// The [`Op::PushFloat`] word for `value`, if its low 8 bits are zero (as
/// for every float with a short mantissa: 0.5, 1.0, 70.0, -2.25).
pub fn push_float(value: f64) -> Option<u64> {
    let bits = value.to_bits();
    (bits & 0xff == 0).then_some(bits | Op::PushFloat as u64)
}
