//! Disassembly: code back to source text, or an op listing.
//!
//! [`disassemble`] runs the code symbolically, with a stack of source
//! texts instead of values, and parenthesizes by precedence. Implicit
//! conversions disappear and a store of `x + e` into `x` reads `x += e`, so
//! the text compiles back to the same words.

use super::op::{self, Op, Operand};
use std::fmt::Write as _;

/// Binding powers of the text forms, as the compiler parses them.
const ASSIGN: u8 = 1;
const OR: u8 = 2;
const AND: u8 = 3;
const EQUALITY: u8 = 4;
const ORDERING: u8 = 5;
const SUM: u8 = 6;
const PRODUCT: u8 = 7;
const PREFIX: u8 = 8;
const ATOM: u8 = 9;

/// What an operand names, for [`disassemble`] and [`listing`] to show by
/// name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symbol {
    /// A blackboard field, by index.
    Field(u32),
    /// A tree variable, by index.
    Variable(u32),
    /// A tree entry, by index.
    Entry(u32),
    /// A string's text, by its index in the shape's string table (its
    /// word less one).
    Str(u32),
}

/// A field, a variable or an entry: the operand of a load or a store.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Field(u64),
    Variable(u64),
    Entry(u64),
}

/// A value on the symbolic stack.
struct Text {
    text: String,
    power: u8,
    /// The place when the value is a bare load of one.
    load: Option<Place>,
    /// `place ± rhs` where the value is that sum: the operator and `rhs`.
    update: Option<(Place, &'static str, String)>,
}

impl Text {
    fn new(text: String, power: u8) -> Text {
        Text {
            text,
            power,
            load: None,
            update: None,
        }
    }

    /// The text, in parentheses if `wrap`.
    fn wrapped(&self, wrap: bool) -> String {
        if wrap {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// A float as the lexer reads it back (`1.0`, `0.1`, `1e300`).
fn float(v: f64) -> String {
    format!("{v:?}")
}

/// The source text of script code: `hunger > 0.5 && !tired`, statements
/// separated by `; `. `names` names fields, variables and entries and
/// gives strings' texts.
///
/// For code that [`check`](super::check) accepts, the text compiles back to
/// the same words (given the same names). Code it cannot render (unsound
/// code) comes back as `<unsound script: ...>` with a one-line
/// [`listing`]; it never panics, though `names` may then be called with
/// any index. An entry's store reads `=`: the text compiles back where the
/// entry exists.
pub fn disassemble(words: &[u64], names: &dyn Fn(Symbol) -> String) -> String {
    render(words, names).unwrap_or_else(|| {
        let listing = listing(words, names);
        let ops: Vec<&str> = listing.lines().map(str::trim).collect();
        format!("<unsound script: {}>", ops.join("; "))
    })
}

fn name(place: Place, names: &dyn Fn(Symbol) -> String) -> String {
    let (i, symbol): (u64, fn(u32) -> Symbol) = match place {
        Place::Field(i) => (i, Symbol::Field),
        Place::Variable(i) => (i, Symbol::Variable),
        Place::Entry(i) => (i, Symbol::Entry),
    };
    u32::try_from(i).map_or_else(|_| format!("#{i}"), |i| names(symbol(i)))
}

/// A string literal of the word `word`, in quotes its text lacks.
fn string(word: u64, names: &dyn Fn(Symbol) -> String) -> String {
    let text = match word.checked_sub(1).map(u32::try_from) {
        None => String::new(),
        Some(Ok(i)) => names(Symbol::Str(i)),
        Some(Err(_)) => format!("#{word}"),
    };
    if text.contains('\'') {
        format!("\"{text}\"")
    } else {
        format!("'{text}'")
    }
}

fn render(words: &[u64], names: &dyn Fn(Symbol) -> String) -> Option<String> {
    let mut stack: Vec<Text> = Vec::new();
    let mut statements: Vec<String> = Vec::new();
    // Open `&&` and `||`: target, operator, stack depth with the left
    // operand on it.
    let mut open: Vec<(usize, &'static str, usize)> = Vec::new();
    let mut pc = 0;
    while let Some(&word) = words.get(pc) {
        while let Some(&(target, symbol, depth)) = open.last() {
            if target > pc {
                break;
            }
            if target < pc || stack.len() != depth + 1 {
                return None;
            }
            open.pop();
            let rhs = stack.pop()?;
            let lhs = stack.pop()?;
            let power = if symbol == "&&" { AND } else { OR };
            stack.push(binary(&lhs, symbol, &rhs, power));
        }
        let op = Op::decode(word)?;
        let operand = op::operand(word);
        pc += 1;
        let place = match op.operand() {
            Operand::Field => Place::Field(operand),
            Operand::Entry => Place::Entry(operand),
            _ => Place::Variable(operand),
        };
        match op {
            Op::PushBool => {
                let text = if operand == 0 { "false" } else { "true" };
                stack.push(Text::new(text.into(), ATOM));
            }
            Op::PushInt | Op::PushIntWide | Op::PushFloat | Op::PushFloatWide => {
                let text = match op {
                    Op::PushInt => op::inline_int(word).to_string(),
                    Op::PushFloat => float(op::inline_float(word)),
                    Op::PushIntWide => (*words.get(pc)? as i64).to_string(),
                    _ => float(f64::from_bits(*words.get(pc)?)),
                };
                if op.operand() == Operand::Wide {
                    pc += 1;
                }
                let power = if text.starts_with('-') { PREFIX } else { ATOM };
                stack.push(Text::new(text, power));
            }
            Op::PushStr => stack.push(Text::new(string(operand, names), ATOM)),
            Op::LoadBool | Op::LoadInt | Op::LoadFloat | Op::LoadVar | Op::LoadEntry => {
                let mut text = Text::new(name(place, names), ATOM);
                text.load = Some(place);
                stack.push(text);
            }
            Op::StoreBool | Op::StoreInt | Op::StoreFloat | Op::StoreVar | Op::StoreEntry => {
                let value = stack.pop()?;
                let target = name(place, names);
                let text = match value.update {
                    Some((p, symbol, rhs)) if p == place => format!("{target} {symbol}= {rhs}"),
                    _ => format!("{target} = {}", value.text),
                };
                stack.push(Text::new(text, ASSIGN));
            }
            Op::Pop => {
                if stack.len() != 1 || !open.is_empty() {
                    return None;
                }
                statements.push(stack.pop()?.text);
            }
            // A converted value is neither a bare load nor an update.
            Op::IntToFloat | Op::IntToFloatUnder => {
                let at = stack
                    .len()
                    .checked_sub(1 + usize::from(op == Op::IntToFloatUnder))?;
                let converted = stack.get_mut(at)?;
                converted.load = None;
                converted.update = None;
            }
            Op::Not | Op::NegInt | Op::NegFloat => {
                let operand = stack.pop()?;
                let symbol = if op == Op::Not { "!" } else { "-" };
                // `-3` would read back as a literal, `--x` as well as
                // `-(-x)`, but neither as clearly.
                let wrap = operand.power < PREFIX
                    || operand
                        .text
                        .starts_with(|c: char| c == '-' || c.is_ascii_digit());
                let text = format!("{symbol}{}", operand.wrapped(wrap));
                stack.push(Text::new(text, PREFIX));
            }
            Op::AndThen | Op::OrElse => {
                let target = usize::try_from(operand).ok()?;
                if target < pc || stack.is_empty() {
                    return None;
                }
                let symbol = if op == Op::AndThen { "&&" } else { "||" };
                open.push((target, symbol, stack.len()));
            }
            Op::ReturnBool | Op::ReturnInt | Op::ReturnFloat | Op::ReturnStr => {
                let value = stack.pop()?;
                if !stack.is_empty() || !open.is_empty() || pc != words.len() {
                    return None;
                }
                statements.push(value.text);
                return Some(statements.join("; "));
            }
            Op::AddInt
            | Op::AddFloat
            | Op::SubInt
            | Op::SubFloat
            | Op::MulInt
            | Op::MulFloat
            | Op::DivInt
            | Op::DivFloat
            | Op::RemInt
            | Op::RemFloat
            | Op::EqBool
            | Op::EqInt
            | Op::EqFloat
            | Op::NeBool
            | Op::NeInt
            | Op::NeFloat
            | Op::LtInt
            | Op::LtFloat
            | Op::LeInt
            | Op::LeFloat
            | Op::GtInt
            | Op::GtFloat
            | Op::GeInt
            | Op::GeFloat
            | Op::EqStr
            | Op::NeStr => {
                let (symbol, power) = infix(op);
                let rhs = stack.pop()?;
                let lhs = stack.pop()?;
                let mut text = binary(&lhs, symbol, &rhs, power);
                if let (Some(place), "+" | "-") = (lhs.load, symbol) {
                    text.update = Some((place, symbol, rhs.text));
                }
                stack.push(text);
            }
        }
    }
    None
}

/// The symbol and binding power of a binary op.
fn infix(op: Op) -> (&'static str, u8) {
    match op {
        Op::AddInt | Op::AddFloat => ("+", SUM),
        Op::SubInt | Op::SubFloat => ("-", SUM),
        Op::MulInt | Op::MulFloat => ("*", PRODUCT),
        Op::DivInt | Op::DivFloat => ("/", PRODUCT),
        Op::RemInt | Op::RemFloat => ("%", PRODUCT),
        Op::EqBool | Op::EqInt | Op::EqFloat | Op::EqStr => ("==", EQUALITY),
        Op::NeBool | Op::NeInt | Op::NeFloat | Op::NeStr => ("!=", EQUALITY),
        Op::LtInt | Op::LtFloat => ("<", ORDERING),
        Op::LeInt | Op::LeFloat => ("<=", ORDERING),
        Op::GtInt | Op::GtFloat => (">", ORDERING),
        _ => (">=", ORDERING),
    }
}

/// `lhs symbol rhs`, left-associative at `power` (orderings do not chain).
fn binary(lhs: &Text, symbol: &str, rhs: &Text, power: u8) -> Text {
    let left = lhs.wrapped(lhs.power < power || (power == ORDERING && lhs.power == power));
    let right = rhs.wrapped(rhs.power <= power);
    Text::new(format!("{left} {symbol} {right}"), power)
}

/// A listing of script code, one op a line: its offset, mnemonic and
/// operand (a literal, a field or variable name, a jump target). Words that
/// are no op are listed as hexadecimal. Never panics; `names` is called
/// with any operand that fits a `u32`.
pub fn listing(words: &[u64], names: &dyn Fn(Symbol) -> String) -> String {
    let mut out = String::new();
    let mut pc = 0;
    while let Some(&word) = words.get(pc) {
        let _ = write!(out, "{pc:4} ");
        pc += 1;
        let Some(op) = Op::decode(word) else {
            let _ = writeln!(out, "0x{word:016x}");
            continue;
        };
        out.push_str(op.mnemonic());
        let operand = op::operand(word);
        let text = match op.operand() {
            Operand::None => None,
            Operand::Bool => Some((operand != 0).to_string()),
            Operand::Int => Some(op::inline_int(word).to_string()),
            Operand::Float => Some(float(op::inline_float(word))),
            Operand::Wide => {
                let literal = words.get(pc).copied();
                pc += 1;
                Some(match (literal, op) {
                    (None, _) => "(missing)".into(),
                    (Some(w), Op::PushIntWide) => (w as i64).to_string(),
                    (Some(w), _) => float(f64::from_bits(w)),
                })
            }
            Operand::Field => Some(name(Place::Field(operand), names)),
            Operand::Variable => Some(name(Place::Variable(operand), names)),
            Operand::Entry => Some(name(Place::Entry(operand), names)),
            Operand::Str => Some(string(operand, names)),
            Operand::Target => Some(format!("-> {operand}")),
        };
        if let Some(text) = text {
            out.push(' ');
            out.push_str(&text);
        }
        out.push('\n');
    }
    out
}
