//! The compiler: a Pratt parser that type-checks and emits code in one pass.
//!
//! Each parsing function leaves exactly one value's code behind it and
//! returns the value's static type and source span. Recursion goes through
//! [`Compiler::expr`] only, which counts its depth against [`MAX_DEPTH`], so
//! no source can overflow the compiler's stack: a chain of left-associative
//! operators is a loop, and only parentheses, prefix operators, operands of
//! tighter operators and right-hand sides of assignments nest.

use super::lex::{Lexer, Tok, Token};
use super::op::{self, Op, encode};
use super::{
    Code, Entry, MAX_DEPTH, MAX_SOURCE, MAX_STACK, MAX_WORDS, Name, Scope, ScriptError, ScriptType,
};
use crate::params::FieldType;

/// Compiles `source` with its names resolved by `scope`.
///
/// The code is sound for the blackboard schema and variables `scope`
/// describes ([`check`](super::check) accepts it).
///
/// # Errors
///
/// The first problem in the source: a lexical or syntax error, an unknown
/// name (with a suggestion from [`Scope::suggest`]), a string field, a type
/// error, or a limit exceeded ([`MAX_SOURCE`], [`MAX_DEPTH`],
/// [`MAX_WORDS`], [`MAX_STACK`]). Its span points at the offending token or
/// expression.
pub fn compile(source: &str, scope: &dyn Scope) -> Result<Code, ScriptError> {
    if source.len() > MAX_SOURCE {
        let mut at = MAX_SOURCE;
        while !source.is_char_boundary(at) {
            at -= 1;
        }
        return Err(ScriptError::new(
            (at, source.len()),
            format!("script is longer than {MAX_SOURCE} bytes"),
        ));
    }
    let mut lexer = Lexer::new(source);
    let tok = lexer.next()?;
    let mut c = Compiler {
        src: source,
        lexer,
        tok,
        scope,
        words: Vec::new(),
        sp: 0,
        max_sp: 0,
        depth: 0,
        created: Vec::new(),
        strings: Vec::new(),
    };
    if c.tok.tok == Tok::End {
        return Err(ScriptError::new(c.tok.span(), "empty script"));
    }
    let ty = loop {
        let value = c.expr(0)?;
        match c.tok.tok {
            Tok::End => break value.ty,
            Tok::Semi => {
                c.advance()?;
                if c.tok.tok == Tok::End {
                    break value.ty;
                }
                c.emit(encode(Op::Pop, 0))?;
                c.sp -= 1;
            }
            Tok::RParen => return Err(ScriptError::new(c.tok.span(), "unmatched `)`")),
            _ => {
                let error = ScriptError::new(
                    c.tok.span(),
                    format!(
                        "expected an operator, `;` or the end of the script, found {}",
                        c.found()
                    ),
                );
                let help = match &source[c.tok.start..c.tok.end] {
                    "and" => "write `&&` for \"and\"",
                    "or" => "write `||` for \"or\"",
                    "(" => "scripts have no function calls",
                    _ => "write `;` between statements",
                };
                return Err(error.help(help));
            }
        }
    };
    let ret = match ty {
        ScriptType::Bool => Op::ReturnBool,
        ScriptType::Int => Op::ReturnInt,
        ScriptType::Float => Op::ReturnFloat,
        ScriptType::Str => Op::ReturnStr,
    };
    c.emit(encode(ret, 0))?;
    Ok(Code {
        words: c.words,
        ty,
        stack: c.max_sp,
        created: c.created,
        strings: c.strings,
    })
}

/// A compiled expression: its type and source span, and what it names when
/// it is a bare name (whose code is then its one load word, the last word).
/// An unknown name before `:=` is a place to create, with no code (`ty` is
/// then meaningless).
#[derive(Clone, Copy)]
struct Value {
    ty: ScriptType,
    start: usize,
    end: usize,
    place: Option<Name>,
    create: bool,
}

impl Value {
    fn span(&self) -> (usize, usize) {
        (self.start, self.end)
    }
}

/// Binary operators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bin {
    Assign,
    Define,
    AddAssign,
    SubAssign,
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// Binding power of assignments, the loosest (right-associative).
const ASSIGN: u8 = 1;
/// Binding power of the operand of a prefix operator, tighter than any
/// binary operator.
const PREFIX: u8 = 8;

/// The binary operator of a token and its binding power.
fn binary(tok: Tok) -> Option<(Bin, u8)> {
    Some(match tok {
        Tok::Assign => (Bin::Assign, ASSIGN),
        Tok::Define => (Bin::Define, ASSIGN),
        Tok::PlusAssign => (Bin::AddAssign, ASSIGN),
        Tok::MinusAssign => (Bin::SubAssign, ASSIGN),
        Tok::OrOr => (Bin::Or, 2),
        Tok::AndAnd => (Bin::And, 3),
        Tok::EqEq => (Bin::Eq, 4),
        Tok::NotEq => (Bin::Ne, 4),
        Tok::Lt => (Bin::Lt, 5),
        Tok::Le => (Bin::Le, 5),
        Tok::Gt => (Bin::Gt, 5),
        Tok::Ge => (Bin::Ge, 5),
        Tok::Plus => (Bin::Add, 6),
        Tok::Minus => (Bin::Sub, 6),
        Tok::Star => (Bin::Mul, 7),
        Tok::Slash => (Bin::Div, 7),
        Tok::Percent => (Bin::Rem, 7),
        _ => return None,
    })
}

/// The typed op of an arithmetic or comparison operator on operands of
/// type `ty` (after promotion).
fn typed(op: Bin, ty: ScriptType) -> Op {
    use ScriptType::{Bool, Float, Int, Str};
    match (op, ty) {
        (Bin::Add | Bin::AddAssign, Float) => Op::AddFloat,
        (Bin::Add | Bin::AddAssign, _) => Op::AddInt,
        (Bin::Sub | Bin::SubAssign, Float) => Op::SubFloat,
        (Bin::Sub | Bin::SubAssign, _) => Op::SubInt,
        (Bin::Mul, Float) => Op::MulFloat,
        (Bin::Mul, _) => Op::MulInt,
        (Bin::Div, Float) => Op::DivFloat,
        (Bin::Div, _) => Op::DivInt,
        (Bin::Rem, Float) => Op::RemFloat,
        (Bin::Rem, _) => Op::RemInt,
        (Bin::Eq, Bool) => Op::EqBool,
        (Bin::Eq, Int) => Op::EqInt,
        (Bin::Eq, Float) => Op::EqFloat,
        (Bin::Ne, Bool) => Op::NeBool,
        (Bin::Ne, Int) => Op::NeInt,
        (Bin::Ne, Float) => Op::NeFloat,
        (Bin::Lt, Float) => Op::LtFloat,
        (Bin::Lt, _) => Op::LtInt,
        (Bin::Le, Float) => Op::LeFloat,
        (Bin::Le, _) => Op::LeInt,
        (Bin::Gt, Float) => Op::GtFloat,
        (Bin::Gt, _) => Op::GtInt,
        (Bin::Ge, Float) => Op::GeFloat,
        (Bin::Ge, _) => Op::GeInt,
        (Bin::Eq, Str) => Op::EqStr,
        (Bin::Ne, Str) => Op::NeStr,
        (Bin::Assign | Bin::Define | Bin::Or | Bin::And, _) => {
            unreachable!("not a typed operator")
        }
    }
}

/// "a bool", "an int", "a float".
fn a(ty: ScriptType) -> &'static str {
    match ty {
        ScriptType::Bool => "a bool",
        ScriptType::Int => "an int",
        ScriptType::Float => "a float",
        ScriptType::Str => "a string",
    }
}

/// The most entries one tree's scripts may create.
pub const MAX_ENTRIES: usize = 4096;

struct Compiler<'s> {
    src: &'s str,
    lexer: Lexer<'s>,
    /// The current token, not yet consumed.
    tok: Token,
    scope: &'s dyn Scope,
    words: Vec<u64>,
    /// Values on the stack at the end of the code so far.
    sp: usize,
    max_sp: usize,
    /// Active calls of [`Compiler::expr`].
    depth: usize,
    /// The entries this script creates.
    created: Vec<Entry>,
    /// The strings this script adds to the scope's.
    strings: Vec<Box<str>>,
}

impl Compiler<'_> {
    fn advance(&mut self) -> Result<Token, ScriptError> {
        let tok = self.tok;
        self.tok = self.lexer.next()?;
        Ok(tok)
    }

    /// The current token, for "found ..." in messages.
    fn found(&self) -> String {
        match self.tok.tok {
            Tok::Name | Tok::Int(_) | Tok::Float(_) | Tok::Str => {
                format!("`{}`", &self.src[self.tok.start..self.tok.end])
            }
            other => other.text().to_owned(),
        }
    }

    fn emit(&mut self, word: u64) -> Result<(), ScriptError> {
        if self.words.len() >= MAX_WORDS {
            return Err(ScriptError::new(
                self.tok.span(),
                format!("script compiles to more than {MAX_WORDS} words"),
            )
            .help("split it between several nodes"));
        }
        self.words.push(word);
        Ok(())
    }

    /// Replaces the word at `at`, where `emit` put a jump before the code
    /// it jumps over, by `word`. (Were it not there, the jump would stay
    /// one to word 0, which the verifier refuses.)
    fn patch(&mut self, at: usize, word: u64) {
        if let Some(jump) = self.words.get_mut(at) {
            *jump = word;
        }
    }

    /// Emits `word`, which pushes a value for the source at `span`.
    fn emit_push(&mut self, word: u64, span: (usize, usize)) -> Result<(), ScriptError> {
        self.sp += 1;
        if self.sp > MAX_STACK {
            return Err(ScriptError::new(
                span,
                format!("expression too complex: it needs more than {MAX_STACK} stack slots"),
            )
            .help("split it into several statements or nodes"));
        }
        self.max_sp = self.max_sp.max(self.sp);
        self.emit(word)
    }

    /// Emits the binary `op` over the two values on top.
    fn emit_binary(&mut self, op: Op) -> Result<(), ScriptError> {
        self.sp -= 1;
        self.emit(encode(op, 0))
    }

    fn push_int(&mut self, v: i64, span: (usize, usize)) -> Result<(), ScriptError> {
        match op::push_int(v) {
            Some(word) => self.emit_push(word, span),
            None => {
                self.emit_push(encode(Op::PushIntWide, 0), span)?;
                self.emit(v as u64)
            }
        }
    }

    fn push_float(&mut self, v: f64, span: (usize, usize)) -> Result<(), ScriptError> {
        match op::push_float(v) {
            Some(word) => self.emit_push(word, span),
            None => {
                self.emit_push(encode(Op::PushFloatWide, 0), span)?;
                self.emit(v.to_bits())
            }
        }
    }

    /// An expression whose operators bind at least as tightly as `min`.
    fn expr(&mut self, min: u8) -> Result<Value, ScriptError> {
        if self.depth >= MAX_DEPTH {
            return Err(ScriptError::new(
                self.tok.span(),
                format!("expression nested too deeply (the limit is {MAX_DEPTH} levels)"),
            ));
        }
        self.depth += 1;
        let mut lhs = self.prefix()?;
        let mut comparing = false;
        while let Some((op, power)) = binary(self.tok.tok) {
            if power < min {
                break;
            }
            let at = self.advance()?;
            lhs = match op {
                Bin::Assign | Bin::Define | Bin::AddAssign | Bin::SubAssign => {
                    self.assign(lhs, op, at)?
                }
                Bin::Or | Bin::And => self.logic(lhs, op, power)?,
                Bin::Eq | Bin::Ne => self.equality(lhs, op, at, power)?,
                Bin::Lt | Bin::Le | Bin::Gt | Bin::Ge => {
                    if comparing {
                        return Err(ScriptError::new(at.span(), "comparisons cannot be chained")
                            .help("write `a < b && b < c`"));
                    }
                    comparing = true;
                    self.arithmetic(lhs, op, at, power)?
                }
                Bin::Add | Bin::Sub | Bin::Mul | Bin::Div | Bin::Rem => {
                    self.arithmetic(lhs, op, at, power)?
                }
            };
        }
        if lhs.create {
            let text = &self.src[lhs.start..lhs.end];
            return Err(
                ScriptError::new(lhs.span(), format!("unknown name `{text}`"))
                    .help("`:=` creates an entry only as a statement of its own: `name := value`"),
            );
        }
        self.depth -= 1;
        Ok(lhs)
    }

    /// A literal, a name, a parenthesized expression or a prefix operator
    /// and its operand.
    fn prefix(&mut self) -> Result<Value, ScriptError> {
        let t = self.tok;
        let value = |ty, end| Value {
            ty,
            start: t.start,
            end,
            place: None,
            create: false,
        };
        match t.tok {
            Tok::Int(v) => {
                self.advance()?;
                let Ok(v) = i64::try_from(v) else {
                    return Err(ScriptError::new(t.span(), "integer literal out of range")
                        .help("integers are 64-bit: at most 9223372036854775807"));
                };
                self.push_int(v, t.span())?;
                Ok(value(ScriptType::Int, t.end))
            }
            Tok::Float(v) => {
                self.advance()?;
                self.push_float(v, t.span())?;
                Ok(value(ScriptType::Float, t.end))
            }
            Tok::True | Tok::False => {
                self.advance()?;
                let word = encode(Op::PushBool, u64::from(t.tok == Tok::True));
                self.emit_push(word, t.span())?;
                Ok(value(ScriptType::Bool, t.end))
            }
            Tok::Name => self.name(t),
            Tok::Str => {
                self.advance()?;
                let word = self.string(t)?;
                self.emit_push(encode(Op::PushStr, word), t.span())?;
                Ok(value(ScriptType::Str, t.end))
            }
            Tok::LParen => {
                self.advance()?;
                let inner = self.expr(0)?;
                if self.tok.tok != Tok::RParen {
                    return Err(ScriptError::new(
                        self.tok.span(),
                        format!("expected `)`, found {}", self.found()),
                    )
                    .help(format!("to close the `(` at column {}", t.start + 1)));
                }
                let close = self.advance()?;
                Ok(value(inner.ty, close.end))
            }
            Tok::Bang => {
                self.advance()?;
                let operand = self.expr(PREFIX)?;
                if operand.ty != ScriptType::Bool {
                    return Err(ScriptError::new(
                        operand.span(),
                        format!("`!` needs a bool, found {}", a(operand.ty)),
                    )
                    .help("compare the number to get a bool, e.g. `x == 0`"));
                }
                self.emit(encode(Op::Not, 0))?;
                Ok(value(ScriptType::Bool, operand.end))
            }
            Tok::Minus => {
                self.advance()?;
                // A negative literal: folded, so that -9223372036854775808
                // is representable and constants cost no op.
                let lit = self.tok;
                match lit.tok {
                    Tok::Int(v) => {
                        self.advance()?;
                        let span = (t.start, lit.end);
                        let Some(v) = 0i64.checked_sub_unsigned(v) else {
                            return Err(ScriptError::new(span, "integer literal out of range")
                                .help("integers are 64-bit: at least -9223372036854775808"));
                        };
                        self.push_int(v, span)?;
                        return Ok(value(ScriptType::Int, lit.end));
                    }
                    Tok::Float(v) => {
                        self.advance()?;
                        self.push_float(-v, (t.start, lit.end))?;
                        return Ok(value(ScriptType::Float, lit.end));
                    }
                    _ => {}
                }
                let operand = self.expr(PREFIX)?;
                let neg = match operand.ty {
                    ScriptType::Int => Op::NegInt,
                    ScriptType::Float => Op::NegFloat,
                    ScriptType::Bool => {
                        return Err(ScriptError::new(
                            operand.span(),
                            "`-` needs a number, found a bool",
                        )
                        .help("write `!` to negate a bool"));
                    }
                    ScriptType::Str => {
                        return Err(ScriptError::new(
                            operand.span(),
                            "`-` needs a number, found a string",
                        ));
                    }
                };
                self.emit(encode(neg, 0))?;
                Ok(value(operand.ty, operand.end))
            }
            Tok::End => Err(ScriptError::new(
                t.span(),
                "expected an expression, found the end of the script",
            )),
            _ => Err(ScriptError::new(
                t.span(),
                format!("expected an expression, found {}", self.found()),
            )),
        }
    }

    /// What `text` names: an entry this script created, else what the
    /// scope resolves it to.
    fn resolve(&self, text: &str) -> Option<Name> {
        if let Some(i) = self.created.iter().position(|e| &*e.name == text) {
            let index = self.scope.next_entry()? + u32::try_from(i).ok()?;
            let ty = self.created.get(i)?.ty;
            return Some(Name::Entry { index, ty });
        }
        self.scope.resolve(text)
    }

    /// The word of the string literal `t` (its text between the quotes),
    /// adding the text to the script's strings if the scope lacks it.
    fn string(&mut self, t: Token) -> Result<u64, ScriptError> {
        let text = self.src.get(t.start + 1..t.end - 1).unwrap_or("");
        if text.is_empty() {
            return Ok(0);
        }
        let Some((found, next)) = self.scope.string(text) else {
            return Err(ScriptError::new(t.span(), "scripts here have no strings"));
        };
        if let Some(word) = found {
            return Ok(word);
        }
        let at = self.strings.iter().position(|s| &**s == text);
        let k = at.unwrap_or(self.strings.len());
        if at.is_none() {
            self.strings.push(text.into());
        }
        Ok(next + k as u64)
    }

    /// A name: a load of the field, variable or entry it resolves to; an
    /// unknown name before `:=`, a place to create.
    fn name(&mut self, t: Token) -> Result<Value, ScriptError> {
        let text = &self.src[t.start..t.end];
        let Some(name) = self.resolve(text) else {
            self.advance()?;
            if self.tok.tok == Tok::Define {
                if self.scope.next_entry().is_none() {
                    return Err(ScriptError::new(
                        t.span(),
                        format!("unknown name `{text}`: this tree cannot create entries"),
                    ));
                }
                return Ok(Value {
                    ty: ScriptType::Bool,
                    start: t.start,
                    end: t.end,
                    place: None,
                    create: true,
                });
            }
            let error = ScriptError::new(t.span(), format!("unknown name `{text}`"));
            let operator = match text {
                "and" => Some("&&"),
                "or" => Some("||"),
                "not" => Some("!"),
                _ => None,
            };
            let define = self.tok.tok == Tok::Assign && self.scope.next_entry().is_some();
            return Err(match (self.scope.suggest(text), operator) {
                (Some(known), _) => error.help(format!("did you mean `{known}`?")),
                (None, Some(op)) => error.help(format!("write `{op}` for \"{text}\"")),
                (None, None) if define => error.help(format!(
                    "write `{text} := ...` to create a tree entry of that name"
                )),
                (None, None) => error,
            });
        };
        let (word, ty) = match name {
            Name::Variable { index } => (encode(Op::LoadVar, index.into()), ScriptType::Bool),
            Name::Entry { index, ty } => (encode(Op::LoadEntry, index.into()), ty),
            Name::Field { index, ty } => {
                let (op, ty) = match ty {
                    FieldType::Bool => (Op::LoadBool, ScriptType::Bool),
                    FieldType::Int => (Op::LoadInt, ScriptType::Int),
                    FieldType::Float => (Op::LoadFloat, ScriptType::Float),
                    FieldType::Str => {
                        return Err(ScriptError::new(
                            t.span(),
                            format!("`{text}` is a string field"),
                        )
                        .help("scripts use bool, int and float fields"));
                    }
                };
                (encode(op, index.into()), ty)
            }
        };
        self.advance()?;
        self.emit_push(word, t.span())?;
        Ok(Value {
            ty,
            start: t.start,
            end: t.end,
            place: Some(name),
            create: false,
        })
    }

    /// `lhs = rhs`, `lhs := rhs`, `lhs += rhs`, `lhs -= rhs`, after the
    /// operator `at`.
    fn assign(&mut self, lhs: Value, op: Bin, at: Token) -> Result<Value, ScriptError> {
        let text = &self.src[lhs.start..lhs.end];
        if lhs.create {
            return self.create(lhs);
        }
        if op == Bin::Define && lhs.place.is_none() {
            return Err(ScriptError::new(lhs.span(), "only a name can be created")
                .help("write `name := value`"));
        }
        let Some(place) = lhs.place else {
            let error = ScriptError::new(lhs.span(), "only a field or a variable can be assigned");
            return Err(if op == Bin::Assign {
                error.help("write `==` to compare")
            } else {
                error
            });
        };
        let (store, what) = match place {
            Name::Variable { index } => (encode(Op::StoreVar, index.into()), "variable"),
            Name::Entry { index, .. } => (encode(Op::StoreEntry, index.into()), "entry"),
            Name::Field { index, ty } => {
                let op = match ty {
                    FieldType::Int => Op::StoreInt,
                    FieldType::Float => Op::StoreFloat,
                    _ => Op::StoreBool,
                };
                (encode(op, index.into()), "field")
            }
        };
        let compound = !matches!(op, Bin::Assign | Bin::Define);
        if compound {
            if !lhs.ty.is_number() {
                return Err(ScriptError::new(
                    at.span(),
                    format!(
                        "`{}` needs a number, but `{text}` is {}",
                        &self.src[at.start..at.end],
                        a(lhs.ty)
                    ),
                ));
            }
        } else {
            // The target's load is the last word; a store replaces it.
            self.words.pop();
            self.sp -= 1;
        }
        let rhs = self.expr(ASSIGN)?;
        match (lhs.ty, rhs.ty) {
            (l, r) if l == r => {}
            (ScriptType::Float, ScriptType::Int) => self.emit(encode(Op::IntToFloat, 0))?,
            (ScriptType::Int, ScriptType::Float) => {
                return Err(ScriptError::new(
                    rhs.span(),
                    format!("the int {what} `{text}` cannot take a float"),
                )
                .help("use an int expression"));
            }
            (l, r) => {
                return Err(ScriptError::new(
                    rhs.span(),
                    format!("the {l} {what} `{text}` cannot take {}", a(r)),
                ));
            }
        }
        if compound {
            self.emit_binary(typed(op, lhs.ty))?;
        }
        self.emit(store)?;
        Ok(Value {
            ty: lhs.ty,
            start: lhs.start,
            end: rhs.end,
            place: None,
            create: false,
        })
    }

    /// `name := rhs` for an unknown `name`, after the operator `at`: a new
    /// entry of the value's type.
    fn create(&mut self, lhs: Value) -> Result<Value, ScriptError> {
        let rhs = self.expr(ASSIGN)?;
        let name: Box<str> = self.src[lhs.start..lhs.end].into();
        let base = self.scope.next_entry().unwrap_or(0) as usize;
        if base + self.created.len() >= MAX_ENTRIES {
            return Err(ScriptError::new(
                lhs.span(),
                format!("a tree's scripts create at most {MAX_ENTRIES} entries"),
            ));
        }
        let index = (base + self.created.len()) as u64;
        self.created.push(Entry { name, ty: rhs.ty });
        self.emit(encode(Op::StoreEntry, index))?;
        Ok(Value {
            ty: rhs.ty,
            start: lhs.start,
            end: rhs.end,
            place: None,
            create: false,
        })
    }

    /// `lhs && rhs`, `lhs || rhs`, after the operator.
    fn logic(&mut self, lhs: Value, op: Bin, power: u8) -> Result<Value, ScriptError> {
        let name = if op == Bin::And { "&&" } else { "||" };
        let need_bool = |v: Value| {
            if v.ty == ScriptType::Bool {
                return Ok(());
            }
            Err(
                ScriptError::new(v.span(), format!("`{name}` needs bools, found {}", a(v.ty)))
                    .help("compare the number to get a bool, e.g. `x != 0`"),
            )
        };
        need_bool(lhs)?;
        let jump = self.words.len();
        let op = if op == Bin::And {
            Op::AndThen
        } else {
            Op::OrElse
        };
        self.emit(encode(op, 0))?;
        self.sp -= 1;
        let rhs = self.expr(power + 1)?;
        need_bool(rhs)?;
        // Forward to the word after the right operand: at worst the return.
        self.patch(jump, encode(op, self.words.len() as u64));
        Ok(Value {
            ty: ScriptType::Bool,
            start: lhs.start,
            end: rhs.end,
            place: None,
            create: false,
        })
    }

    /// `lhs == rhs`, `lhs != rhs`, after the operator `at`.
    fn equality(
        &mut self,
        lhs: Value,
        op: Bin,
        at: Token,
        power: u8,
    ) -> Result<Value, ScriptError> {
        let rhs = self.expr(power + 1)?;
        let ty = match (lhs.ty, rhs.ty) {
            (ScriptType::Bool, ScriptType::Bool) => ScriptType::Bool,
            (ScriptType::Str, ScriptType::Str) => ScriptType::Str,
            (l, r) if l.is_number() && r.is_number() => self.promote(l, r)?,
            (l, r) => {
                return Err(ScriptError::new(
                    rhs.span(),
                    format!(
                        "`{}` compares {} with {}",
                        &self.src[at.start..at.end],
                        a(l),
                        a(r)
                    ),
                )
                .help("both sides must be bools, both numbers or both strings"));
            }
        };
        self.emit_binary(typed(op, ty))?;
        Ok(Value {
            ty: ScriptType::Bool,
            start: lhs.start,
            end: rhs.end,
            place: None,
            create: false,
        })
    }

    /// An arithmetic operator or an ordering, after the operator `at`.
    fn arithmetic(
        &mut self,
        lhs: Value,
        op: Bin,
        at: Token,
        power: u8,
    ) -> Result<Value, ScriptError> {
        let name = &self.src[at.start..at.end];
        let need_number = |v: Value| {
            if v.ty.is_number() {
                return Ok(());
            }
            Err(ScriptError::new(
                v.span(),
                format!("`{name}` needs numbers, found {}", a(v.ty)),
            ))
        };
        need_number(lhs)?;
        let rhs = self.expr(power + 1)?;
        need_number(rhs)?;
        let ty = self.promote(lhs.ty, rhs.ty)?;
        self.emit_binary(typed(op, ty))?;
        let result = match op {
            Bin::Lt | Bin::Le | Bin::Gt | Bin::Ge => ScriptType::Bool,
            _ => ty,
        };
        Ok(Value {
            ty: result,
            start: lhs.start,
            end: rhs.end,
            place: None,
            create: false,
        })
    }

    /// Converts one of two numbers on top to a float if the other is one;
    /// the type of both after.
    fn promote(&mut self, l: ScriptType, r: ScriptType) -> Result<ScriptType, ScriptError> {
        match (l, r) {
            (ScriptType::Int, ScriptType::Float) => {
                self.emit(encode(Op::IntToFloatUnder, 0))?;
                Ok(ScriptType::Float)
            }
            (ScriptType::Float, ScriptType::Int) => {
                self.emit(encode(Op::IntToFloat, 0))?;
                Ok(ScriptType::Float)
            }
            (l, _) => Ok(l),
        }
    }
}
