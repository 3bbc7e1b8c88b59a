//! The lexer: tokens on demand, each with its byte span.

use super::ScriptError;

/// A token's kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Tok {
    /// An integer literal, up to 2^64 - 1 (negation makes -2^63 reachable).
    Int(u64),
    /// A finite float literal.
    Float(f64),
    /// A string literal, in single or double quotes; its text is the
    /// token's span without them.
    Str,
    True,
    False,
    Name,
    LParen,
    RParen,
    Semi,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    AndAnd,
    OrOr,
    Assign,
    /// `:=`: an assignment that creates the entry it names if the tree has
    /// none of that name.
    Define,
    PlusAssign,
    MinusAssign,
    End,
}

impl Tok {
    /// How the token is written, for messages.
    pub(super) fn text(self) -> &'static str {
        match self {
            Tok::Int(_) | Tok::Float(_) => "a number",
            Tok::Str => "a string",
            Tok::True => "`true`",
            Tok::False => "`false`",
            Tok::Name => "a name",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::Semi => "`;`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Percent => "`%`",
            Tok::Bang => "`!`",
            Tok::EqEq => "`==`",
            Tok::NotEq => "`!=`",
            Tok::Lt => "`<`",
            Tok::Le => "`<=`",
            Tok::Gt => "`>`",
            Tok::Ge => "`>=`",
            Tok::AndAnd => "`&&`",
            Tok::OrOr => "`||`",
            Tok::Assign => "`=`",
            Tok::Define => "`:=`",
            Tok::PlusAssign => "`+=`",
            Tok::MinusAssign => "`-=`",
            Tok::End => "the end of the script",
        }
    }
}

/// A token and its byte span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub(super) fn span(self) -> (usize, usize) {
        (self.start, self.end)
    }
}

/// Reads tokens from a source, one at a time.
pub(super) struct Lexer<'s> {
    src: &'s str,
    pos: usize,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

impl<'s> Lexer<'s> {
    pub(super) fn new(src: &'s str) -> Lexer<'s> {
        Lexer { src, pos: 0 }
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.src.as_bytes().get(self.pos + ahead).copied()
    }

    /// The next token; `Tok::End` at the end, again and again.
    pub(super) fn next(&mut self) -> Result<Token, ScriptError> {
        while self.peek_byte(0).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(b) = self.peek_byte(0) else {
            return Ok(Token {
                tok: Tok::End,
                start,
                end: start,
            });
        };
        if b.is_ascii_digit() {
            return self.number();
        }
        if b == b'\'' || b == b'"' {
            return self.string(b);
        }
        if is_name_start(b) {
            while self.peek_byte(0).is_some_and(is_name_char) {
                self.pos += 1;
            }
            let tok = match &self.src[start..self.pos] {
                "true" => Tok::True,
                "false" => Tok::False,
                _ => Tok::Name,
            };
            return Ok(Token {
                tok,
                start,
                end: self.pos,
            });
        }
        let next = self.peek_byte(1);
        let (tok, len) = match (b, next) {
            (b'(', _) => (Tok::LParen, 1),
            (b')', _) => (Tok::RParen, 1),
            (b';', _) => (Tok::Semi, 1),
            (b'+', Some(b'=')) => (Tok::PlusAssign, 2),
            (b'+', _) => (Tok::Plus, 1),
            (b'-', Some(b'=')) => (Tok::MinusAssign, 2),
            (b'-', _) => (Tok::Minus, 1),
            (b'*', _) => (Tok::Star, 1),
            (b'/', _) => (Tok::Slash, 1),
            (b'%', _) => (Tok::Percent, 1),
            (b'!', Some(b'=')) => (Tok::NotEq, 2),
            (b'!', _) => (Tok::Bang, 1),
            (b'=', Some(b'=')) => (Tok::EqEq, 2),
            (b'=', _) => (Tok::Assign, 1),
            (b':', Some(b'=')) => (Tok::Define, 2),
            (b'<', Some(b'=')) => (Tok::Le, 2),
            (b'<', _) => (Tok::Lt, 1),
            (b'>', Some(b'=')) => (Tok::Ge, 2),
            (b'>', _) => (Tok::Gt, 1),
            (b'&', Some(b'&')) => (Tok::AndAnd, 2),
            (b'|', Some(b'|')) => (Tok::OrOr, 2),
            (b'&', _) => {
                return Err(ScriptError::new((start, start + 1), "unexpected `&`")
                    .help("write `&&` for \"and\""));
            }
            (b'|', _) => {
                return Err(ScriptError::new((start, start + 1), "unexpected `|`")
                    .help("write `||` for \"or\""));
            }
            _ => {
                let c = self.src[start..].chars().next().unwrap_or('?');
                let end = start + c.len_utf8();
                return Err(ScriptError::new(
                    (start, end),
                    format!("unexpected character `{c}`"),
                ));
            }
        };
        self.pos += len;
        Ok(Token {
            tok,
            start,
            end: self.pos,
        })
    }

    /// A string literal from the quote `quote` to the next one: no escapes,
    /// one line.
    fn string(&mut self, quote: u8) -> Result<Token, ScriptError> {
        let start = self.pos;
        self.pos += 1;
        while let Some(b) = self.peek_byte(0) {
            self.pos += 1;
            if b == quote {
                return Ok(Token {
                    tok: Tok::Str,
                    start,
                    end: self.pos,
                });
            }
            if b == b'\n' {
                break;
            }
        }
        let q = char::from(quote);
        Err(ScriptError::new((start, start + 1), "unterminated string")
            .help(format!("close it with `{q}` on the same line")))
    }

    /// A number: `digits`, then `.digits` and an exponent `e[+-]digits` for
    /// a float.
    fn number(&mut self) -> Result<Token, ScriptError> {
        let start = self.pos;
        let digits = |lexer: &mut Lexer<'_>| {
            while lexer.peek_byte(0).is_some_and(|b| b.is_ascii_digit()) {
                lexer.pos += 1;
            }
        };
        digits(self);
        let mut float = false;
        if self.peek_byte(0) == Some(b'.') && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit())
        {
            float = true;
            self.pos += 1;
            digits(self);
        }
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek_byte(1), Some(b'+' | b'-')));
            if self.peek_byte(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                float = true;
                self.pos += 1 + sign;
                digits(self);
            }
        }
        if self.peek_byte(0).is_some_and(is_name_char) {
            while self.peek_byte(0).is_some_and(is_name_char) {
                self.pos += 1;
            }
            let text = &self.src[start..self.pos];
            return Err(
                ScriptError::new((start, self.pos), format!("invalid number `{text}`"))
                    .help("a number is digits, with an optional fraction and exponent: `12`, `0.5`, `1e3`"),
            );
        }
        let span = (start, self.pos);
        let text = &self.src[start..self.pos];
        let tok = if float {
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Tok::Float(v),
                _ => return Err(ScriptError::new(span, "float literal out of range")),
            }
        } else {
            match text.parse::<u64>() {
                Ok(v) => Tok::Int(v),
                Err(_) => {
                    return Err(ScriptError::new(span, "integer literal out of range").help(
                        "integers are 64-bit: from -9223372036854775808 to 9223372036854775807",
                    ));
                }
            }
        };
        Ok(Token {
            tok,
            start,
            end: self.pos,
        })
    }
}
