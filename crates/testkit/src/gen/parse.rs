//! The compact form of a spec read back: `"seq(c, pri(a, d))".parse()`.
//!
//! A fuzz finding or a shrunk failing case is kept as the text its report
//! printed, not as the bytes or the seed that made it: the generator's
//! choices change whenever it learns a kind, and a witness kept as bytes
//! would then quietly test another tree. Every spec's `Debug` form parses
//! back to the spec (a test below checks it over random specs).

use super::*;
use std::str::FromStr;

/// Why a compact form did not read as a spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSpecError {
    /// The byte offset where reading stopped.
    pub at: usize,
    /// What was expected there.
    pub what: String,
}

impl fmt::Display for ParseSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.what)
    }
}

impl std::error::Error for ParseSpecError {}

impl FromStr for Spec {
    type Err = ParseSpecError;

    fn from_str(text: &str) -> Result<Spec, ParseSpecError> {
        let mut reader = Reader { text, at: 0 };
        let spec = reader.spec()?;
        reader.skip_spaces();
        if reader.at != text.len() {
            return Err(reader.error("the end of the tree"));
        }
        Ok(spec)
    }
}

struct Reader<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Reader<'t> {
    fn error(&self, what: impl Into<String>) -> ParseSpecError {
        ParseSpecError {
            at: self.at,
            what: format!("expected {}", what.into()),
        }
    }

    fn rest(&self) -> &'t str {
        &self.text[self.at..]
    }

    fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        if self.rest().starts_with(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// One node: its head, its `[arguments]` and its `(children)`.
    fn spec(&mut self) -> Result<Spec, ParseSpecError> {
        self.skip_spaces();
        let start = self.at;
        let head_len = self
            .rest()
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(self.rest().len());
        let head = &self.text[start..start + head_len];
        self.at += head_len;
        let args = if self.eat('[') {
            let Some(len) = self.rest().find(']') else {
                return Err(self.error("`]`"));
            };
            let args = &self.text[self.at..self.at + len];
            self.at += len + 1;
            Some(args)
        } else {
            None
        };
        let at_args = start + head_len + 1;
        let mut children = Vec::new();
        if self.eat('(') {
            loop {
                children.push(self.spec()?);
                self.skip_spaces();
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.error("`,` or `)`"));
                }
            }
        }
        node(head, args, children).map_err(|what| ParseSpecError {
            at: if what.starts_with("arguments") {
                at_args
            } else {
                start
            },
            what,
        })
    }
}

/// The spec of a node read as `head[args](children)`.
fn node(head: &str, args: Option<&str>, mut children: Vec<Spec>) -> Result<Spec, String> {
    let arg = || args.ok_or_else(|| format!("arguments: `{head}` takes `[..]`"));
    let bad = |what: &str| {
        format!(
            "arguments of `{head}`: {what}, not `{}`",
            args.unwrap_or("")
        )
    };
    let index = |table: &[&str], text: &str| {
        table
            .iter()
            .position(|t| *t == text)
            .map(|i| i as u8)
            .ok_or_else(|| bad(&format!("one of {table:?}")))
    };
    let number = |text: &str| text.trim().parse::<i64>().map_err(|_| bad("a number"));
    let small =
        |text: &str| number(text).and_then(|n| u8::try_from(n).map_err(|_| bad("a number to 255")));
    let duration = |text: &str| {
        DURATIONS
            .iter()
            .position(|d| d.to_string() == text.trim())
            .map(|i| i as u8)
            .ok_or_else(|| bad(&format!("one of the durations {DURATIONS:?}")))
    };
    let leaf = children.is_empty();
    let one = |children: &mut Vec<Spec>| -> Result<Box<Spec>, String> {
        match children.len() {
            1 => Ok(Box::new(children.remove(0))),
            n => Err(format!("`{head}` takes one child, not {n}")),
        }
    };
    Ok(match head {
        "c" if leaf => Spec::Cond,
        "a" if leaf => Spec::Act,
        "p" if leaf => Spec::Persistent,
        "d" if leaf => Spec::Deferred,
        "ok" if leaf => Spec::Always(true),
        "ko" if leaf => Spec::Always(false),
        "score" if leaf => Spec::Decide,
        "seq" => Spec::Sequence(children),
        "rseq" => Spec::Reactive(children),
        "pri" => Spec::Priority(children),
        "sel" => Spec::Selector(children),
        "ite" => Spec::IfThenElse(children),
        "wde" => Spec::WhileDoElse(children),
        "mseq" => Spec::WithMemory(children),
        "aseq" => Spec::Async(false, children),
        "asel" => Spec::Async(true, children),
        "pall" => Spec::ParallelAll(small(arg()?)?, children),
        "inv" => Spec::Inverter(one(&mut children)?),
        "fsucc" => Spec::ForceSuccess(one(&mut children)?),
        "ffail" => Spec::ForceFailure(one(&mut children)?),
        "scope" => Spec::Scope(one(&mut children)?),
        "stored" => Spec::StoredState(one(&mut children)?),
        "repeat" => Spec::Repeat(one(&mut children)?),
        "monitor" => Spec::Monitor(one(&mut children)?),
        "child" => Spec::ChildTree(children),
        "con" => {
            let counts = arg()?
                .strip_prefix("S=")
                .and_then(|rest| rest.split_once(" F="))
                .ok_or_else(|| bad("`S=.. F=..`"))?;
            let count = |text: &str| match text {
                "all" => Ok(Count::All),
                n => number(n)
                    .and_then(|n| u16::try_from(n).map_err(|_| bad("a count")))
                    .map(Count::AtLeast),
            };
            Spec::Concurrent {
                succeed: count(counts.0)?,
                fail: count(counts.1)?,
                children,
            }
        }
        "script" if leaf => Spec::Script(index(&SCRIPTS, arg()?)?),
        "assert" if leaf => Spec::AssertScript(index(&TESTS, arg()?)?),
        "check" if leaf => Spec::AssertCondition(index(&CONDITIONS, arg()?)?),
        "gate" => Spec::ScriptGate(index(&TESTS, arg()?)?, one(&mut children)?),
        "if" => Spec::IfCondition(index(&CONDITIONS, arg()?)?, one(&mut children)?),
        "iftime" => Spec::IfTime(
            time(arg()?).ok_or_else(|| bad("a time test"))?,
            one(&mut children)?,
        ),
        "until" if leaf => Spec::WaitUntilTime(time(arg()?).ok_or_else(|| bad("a time test"))?),
        "wrap" => {
            let (enter, exit) = arg()?
                .split_once(" | ")
                .ok_or_else(|| bad("`enter | exit`"))?;
            Spec::ScriptWrapper {
                enter: index(&SCRIPTS, enter)?,
                exit: index(&SCRIPTS, exit)?,
                child: one(&mut children)?,
            }
        }
        "await" if leaf => Spec::WaitForEvent(index(&crate::script::EVENTS, arg()?)?),
        "send" if leaf => {
            let (event, to) = arg()?
                .split_once(" to ")
                .ok_or_else(|| bad("`event to agent`"))?;
            Spec::SendEvent {
                event: index(&crate::script::EVENTS, event)?,
                to: number(to).and_then(|n| i8::try_from(n).map_err(|_| bad("an agent")))?,
            }
        }
        "post" if leaf => {
            let (stimulus, data) = arg()?
                .split_once('=')
                .ok_or_else(|| bad("`stimulus=data`"))?;
            let names: Vec<&str> = STIMULI.iter().map(|s| s.0).collect();
            Spec::PostStimulus {
                stimulus: index(&names, stimulus)?,
                data: number(data)?,
            }
        }
        "loop" | "retry" => {
            let text = arg()?;
            let (count, again) = match text.strip_suffix(" again") {
                Some(count) => (count, true),
                None => (text, false),
            };
            let (count, child) = (small(count)?, one(&mut children)?);
            if head == "loop" {
                Spec::Loop(count, again, child)
            } else {
                Spec::LoopUntilSuccess(count, again, child)
            }
        }
        "timeout" => Spec::Timeout(duration(arg()?)?, one(&mut children)?),
        "wait" if leaf => Spec::Wait(duration(arg()?)?),
        "cooldown" => Spec::Cooldown(duration(arg()?)?, one(&mut children)?),
        "group" => {
            let text = arg()?;
            let (policy, limit) = match text.split_once(" limit ") {
                Some((policy, limit)) => (policy, small(limit)?),
                None => (text, 8),
            };
            Spec::Group {
                policy: index(&POLICIES, policy)?,
                limit,
                children,
            }
        }
        "decider" => {
            let mut params = DeciderSpec::default();
            for part in args.iter().flat_map(|a| a.split(", ")) {
                match part {
                    "redecide" => params.redecide = true,
                    "delegate" => params.delegate = true,
                    _ => {
                        if let Some(every) = part.strip_prefix("every ") {
                            params.every = duration(every)?;
                            continue;
                        }
                        let (name, mask) = part
                            .split_once(' ')
                            .ok_or_else(|| bad("a timer, a precondition or a flag"))?;
                        let mask = number(mask)?;
                        params.flags = PRECONDITIONS
                            .iter()
                            .position(|&(n, m)| n == name && m == mask)
                            .map(|i| i as u8)
                            .ok_or_else(|| bad("one of the preconditions"))?;
                    }
                }
            }
            Spec::Decider { params, children }
        }
        "limit" => {
            let text = arg()?;
            let (max, waits) = match text.strip_suffix(", wait") {
                Some(max) => (max, GATE_WAITS),
                None => (text, 0),
            };
            let max = small(max)?;
            if max & GATE_WAITS != 0 {
                return Err(bad("a gate's max below 128"));
            }
            Spec::Gate(max | waits, one(&mut children)?)
        }
        "gcooldown" => {
            let text = arg()?;
            let (seconds, on_enter) = match text.strip_suffix(" on enter") {
                Some(seconds) => (seconds, true),
                None => (text, false),
            };
            Spec::GlobalCooldown {
                seconds: duration(seconds)?,
                on_enter,
                child: one(&mut children)?,
            }
        }
        "team" => Spec::Team(small(arg()?)?, children),
        "sync" if leaf => Spec::Sync(small(arg()?)?),
        _ => return Err(format!("a node of the compact form, not `{head}`")),
    })
}

/// A time test `t1 < 2.5 or never` (see [`TimeSpec`]'s `Debug`).
fn time(text: &str) -> Option<TimeSpec> {
    let (test, or_never) = match text.strip_suffix(" or never") {
        Some(test) => (test, true),
        None => (text, false),
    };
    let mut words = test.split(' ');
    let (since, op, seconds) = (words.next()?, words.next()?, words.next()?);
    if words.next().is_some() {
        return None;
    }
    let seconds: f64 = seconds.parse().ok()?;
    let halves = seconds * 2.0;
    if halves.fract() != 0.0 || !(0.0..=255.0).contains(&halves) {
        return None;
    }
    Some(TimeSpec {
        since: TIMESTAMPS.iter().position(|t| t.0 == since)? as u8,
        halves: halves as u8,
        less_than: match op {
            "<" => true,
            ">" => false,
            _ => return None,
        },
        or_never,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_compact_form_reads_back_as_its_spec() {
        for seed in 0..2000 {
            let spec = Spec::random(seed, 5, 4);
            let text = format!("{spec:?}");
            let read: Spec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(read, spec, "{text}");
        }
    }

    #[test]
    fn a_bad_form_says_where_and_what() {
        let err = "seq(c, bogus(a))".parse::<Spec>().unwrap_err();
        assert_eq!(err.at, 7);
        assert!(err.what.contains("`bogus`"), "{err}");
        let err = "timeout[2](c)".parse::<Spec>().unwrap_err();
        assert!(err.to_string().contains("durations"), "{err}");
        let err = "seq(c, a".parse::<Spec>().unwrap_err();
        assert_eq!(err.at, 8);
        assert!("seq(c) x".parse::<Spec>().is_err());
        assert!("inv(c, a)".parse::<Spec>().is_err());
    }
}
