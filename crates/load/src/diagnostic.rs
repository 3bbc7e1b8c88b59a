//! Diagnostics: errors and warnings with where they are, printed as code
//! frames.
//!
//! Every diagnostic of a load says what is wrong and, where it can, where:
//! the file, line and column, the tree, the node's path from the tree's root
//! and the node's type. [`Diagnostics::render`] prints them like a compiler
//! does, the offending text underlined:
//!
//! ```text
//! error: unknown parameter `treshold` of `hunger_above`
//!   --> trees/guard.json:12:45
//!    |
//! 12 |         {"type": "hunger_above", "params": {"treshold": 70}},
//!    |                                             ^^^^^^^^^^
//!    = node: Main/PrioritySelector/eat[1]/hunger_above[0] (hunger_above) in tree `Main`
//!    = help: did you mean `threshold`?
//! ```

use crate::limits::MAX_DIAGNOSTICS;
use crate::source::{SourceMap, Span};
use std::fmt::{self, Write};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The tree does not load.
    Error,
    /// The tree loads, but probably not as meant.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One error or warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
    /// Where, if known.
    pub span: Option<Span>,
    /// The tree the node belongs to.
    pub tree: Option<Box<str>>,
    /// The node's path from its tree's root: `name[position]` segments.
    pub path: Option<String>,
    /// The node's type as written.
    pub node_type: Option<Box<str>>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error.
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span: None,
            tree: None,
            path: None,
            node_type: None,
            help: None,
        }
    }

    /// A warning.
    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    /// The same diagnostic, at `span`.
    pub fn at(mut self, span: Span) -> Diagnostic {
        self.span = Some(span);
        self
    }

    /// The same diagnostic, about the node at `path` of type `node_type` in
    /// tree `tree`.
    pub fn node(mut self, tree: &str, path: &str, node_type: &str) -> Diagnostic {
        self.tree = Some(tree.into());
        self.path = Some(path.into());
        self.node_type = Some(node_type.into());
        self
    }

    /// The same diagnostic, with advice.
    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// `file:line:column`, if the diagnostic has a place.
    pub fn location(&self, map: &SourceMap) -> Option<String> {
        let span = self.span?;
        let file = map.files().get(span.file.0 as usize)?;
        let (line, column) = file.line_column(span.start as usize);
        Some(format!("{}:{line}:{column}", file.name()))
    }

    /// The diagnostic as a code frame; `color` adds terminal colours.
    pub fn render(&self, map: &SourceMap, color: bool) -> String {
        let paint = |code: &str, text: &str| {
            if color {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text.to_owned()
            }
        };
        let (title, caret) = match self.severity {
            Severity::Error => ("1;31", "1;31"),
            Severity::Warning => ("1;33", "1;33"),
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}{}",
            paint(title, &self.severity.to_string()),
            paint("1", &format!(": {}", escaped(&self.message)))
        );
        let frame = self.span.and_then(|span| {
            let file = map.files().get(span.file.0 as usize)?;
            let (line, column) = file.line_column(span.start as usize);
            let text = file.line_text(line)?;
            Some((file.name(), line, column, text, span))
        });
        let gutter = frame.map_or(1, |(_, line, ..)| line.to_string().len());
        let pad = " ".repeat(gutter);
        let bar = paint("1;34", "|");
        if let Some((name, line, column, text, span)) = frame {
            let name = escaped(name);
            let _ = writeln!(out, "{pad}{} {name}:{line}:{column}", paint("1;34", "-->"));
            let _ = writeln!(out, "{pad} {bar}");
            // The line around the span, at most `FRAME_CHARS` of it.
            let before = column as usize - 1;
            let chars = text.chars().count();
            let from = before.saturating_sub(FRAME_CHARS / 3);
            let to = (from + FRAME_CHARS).min(chars);
            let covered = map
                .text(span)
                .lines()
                .next()
                .map_or(0, |l| l.chars().count());
            let width = covered.clamp(1, to.saturating_sub(before).max(1));
            let (mut shown, mut indent, mut marks) = (String::new(), 0, 0);
            if from > 0 {
                shown.push_str("...");
                indent += 3;
            }
            for (i, c) in text.chars().enumerate().skip(from).take(to - from) {
                let piece = frame_char(c);
                let n = piece.chars().count();
                if i < before {
                    indent += n;
                } else if i < before + width {
                    marks += n;
                }
                shown.push_str(&piece);
            }
            if to < chars {
                shown.push_str("...");
            }
            let _ = writeln!(out, "{} {bar} {shown}", paint("1;34", &line.to_string()));
            let _ = writeln!(
                out,
                "{pad} {bar} {}{}",
                " ".repeat(indent),
                paint(caret, &"^".repeat(marks.max(1)))
            );
        }
        let note = paint("1;34", "=");
        if let Some(path) = &self.path {
            let mut line = format!("node: {}", escaped(&clipped(path, PATH_CHARS)));
            if let Some(t) = &self.node_type {
                let _ = write!(line, " ({})", escaped(t));
            }
            if let Some(tree) = &self.tree {
                let _ = write!(line, " in tree `{}`", escaped(tree));
            }
            let _ = writeln!(out, "{pad} {note} {line}");
        } else if let Some(tree) = &self.tree {
            let _ = writeln!(out, "{pad} {note} in tree `{}`", escaped(tree));
        }
        if let Some(help) = &self.help {
            let help = escaped(help);
            let _ = writeln!(out, "{pad} {note} {}: {help}", paint("1", "help"));
        }
        out
    }
}

/// The most characters of a line a code frame shows: a file of one long
/// line (minified, or hostile) shows the part around each span.
pub const FRAME_CHARS: usize = 120;

/// The most characters of a node path a diagnostic shows: a node nested
/// a thousand levels deep shows its path's start and end.
pub const PATH_CHARS: usize = 240;

/// `text`, or its start and end around ` ... ` when longer than `most`
/// characters.
fn clipped(text: &str, most: usize) -> std::borrow::Cow<'_, str> {
    let chars = text.chars().count();
    if chars <= most {
        return text.into();
    }
    let head = most / 3;
    let tail = most - head - 5;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(chars - tail).collect();
    format!("{start} ... {end}").into()
}

/// Whether printing `c` raw could do something other than show a
/// character: C0 and C1 controls (a terminal's escape sequences: clear the
/// screen, set the title, write the clipboard), the bidirectional controls
/// that reorder what a reader sees, and line and paragraph separators.
fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `text` as a diagnostic prints it: every character that could do more
/// than show itself (C0 and C1 controls, bidirectional controls, line and
/// paragraph separators) written as a Rust escape (`\u{1b}`), so that a
/// name in a tree file cannot drive the terminal that shows the error.
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    escape_unless(text, |_| false)
}

/// `text` as [`escaped`], but with its line breaks and tabs kept: for
/// listings of many lines (disassembly, a drawing) that print names.
pub fn escaped_lines(text: &str) -> std::borrow::Cow<'_, str> {
    escape_unless(text, |c| matches!(c, '\n' | '\t'))
}

fn escape_unless(text: &str, keep: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    let escapes = |c: char| is_unprintable(c) && !keep(c);
    if !text.chars().any(escapes) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escapes(c) {
            let _ = write!(out, "{}", c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// One character of a code frame's line as printed: a tab as four
/// spaces, a carriage return (which would send the cursor back over the
/// frame) as a space, another unprintable character escaped.
fn frame_char(c: char) -> String {
    match c {
        '\t' => "    ".to_owned(),
        '\r' => " ".to_owned(),
        c => escaped(c.encode_utf8(&mut [0; 4])).into_owned(),
    }
}

/// The diagnostics of one load, in the order found: the first
/// [`MAX_DIAGNOSTICS`], and a count of the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
    /// Errors and warnings found past [`MAX_DIAGNOSTICS`], not kept.
    dropped_errors: usize,
    dropped_warnings: usize,
}

impl Diagnostics {
    /// None yet.
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    /// Adds one; past [`MAX_DIAGNOSTICS`], only counts it.
    pub fn push(&mut self, d: Diagnostic) {
        if self.items.len() < MAX_DIAGNOSTICS {
            self.items.push(d);
        } else if d.severity == Severity::Error {
            self.dropped_errors += 1;
        } else {
            self.dropped_warnings += 1;
        }
    }

    /// Adds all of `other`'s.
    pub fn extend(&mut self, other: Diagnostics) {
        self.dropped_errors += other.dropped_errors;
        self.dropped_warnings += other.dropped_warnings;
        for d in other.items {
            self.push(d);
        }
    }

    /// All of them.
    pub fn items(&self) -> &[Diagnostic] {
        &self.items
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// Whether any is an error, kept or not.
    pub fn has_errors(&self) -> bool {
        self.dropped_errors > 0 || self.errors().next().is_some()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether no more are kept: what is found now is only counted, so
    /// work that only improves a message (a suggestion) can be skipped.
    pub fn is_full(&self) -> bool {
        self.items.len() >= MAX_DIAGNOSTICS
    }

    /// How many were found past [`MAX_DIAGNOSTICS`] and not kept.
    pub fn dropped(&self) -> usize {
        self.dropped_errors + self.dropped_warnings
    }

    /// Gives the errors inside `span` that have no node yet the node at
    /// `path` (a node the reader could not read, found later in the tree).
    pub fn attach_node(&mut self, span: Span, tree: &str, path: &str, node_type: &str) {
        for d in &mut self.items {
            let inside = d.span.is_some_and(|s| {
                s.file == span.file
                    && span.start <= s.start
                    && s.start < span.end.max(span.start + 1)
            });
            if inside && d.path.is_none() {
                *d = d.clone().node(tree, path, node_type);
            }
        }
    }

    /// Sorts them by file and position, errors before warnings at one place
    /// (diagnostics without a place go last, in the order found).
    pub fn sort(&mut self) {
        self.items.sort_by_key(|d| {
            (
                d.span.is_none(),
                d.span.map(|s| (s.file, s.start)),
                d.severity,
            )
        });
    }

    /// Every diagnostic as a code frame, then a summary line.
    pub fn render(&self, map: &SourceMap, color: bool) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render(map, color));
            out.push('\n');
        }
        if self.dropped() > 0 {
            let _ = writeln!(
                out,
                "... and {} more not shown (a load keeps the first {MAX_DIAGNOSTICS})\n",
                self.dropped()
            );
        }
        let errors = self.errors().count() + self.dropped_errors;
        let warnings = self.warnings().count() + self.dropped_warnings;
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match (errors, warnings) {
            (0, 0) => {}
            (0, w) => out.push_str(&format!("{}\n", plural(w, "warning"))),
            (e, 0) => out.push_str(&format!("{}\n", plural(e, "error"))),
            (e, w) => out.push_str(&format!(
                "{}, {}\n",
                plural(e, "error"),
                plural(w, "warning")
            )),
        }
        out
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    #[test]
    fn renders_a_code_frame_with_the_span_underlined() {
        let mut map = SourceMap::new();
        let text = "{\n  \"type\": \"Shooot\"\n}\n";
        let file = map.add("t.json", text.into());
        let start = text.find("\"Shooot\"").unwrap();
        let d = Diagnostic::error("unknown leaf `Shooot`")
            .at(Span::new(file, start, start + 8))
            .node("Main", "Main/Shooot", "Shooot")
            .help("did you mean `Shoot`?");
        let want = "\
error: unknown leaf `Shooot`
 --> t.json:2:11
  |
2 |   \"type\": \"Shooot\"
  |           ^^^^^^^^
  = node: Main/Shooot (Shooot) in tree `Main`
  = help: did you mean `Shoot`?
";
        assert_eq!(d.render(&map, false), want);
        assert_eq!(d.location(&map).as_deref(), Some("t.json:2:11"));
        assert!(d.render(&map, true).contains("\x1b[1;31merror"));
    }

    #[test]
    fn frames_of_a_long_line_show_the_part_around_the_span() {
        let mut map = SourceMap::new();
        let line = format!("{}\"Shooot\"{}", "x".repeat(2_000_000), "y".repeat(500));
        let file = map.add("t.json", line.clone());
        let start = line.find('"').unwrap();
        let d = Diagnostic::error("unknown leaf").at(Span::new(file, start, start + 8));
        let shown = d.render(&map, false);
        let frame: Vec<&str> = shown.lines().collect();
        let pad = FRAME_CHARS / 3;
        let want = format!(
            "...{}\"Shooot\"{}...",
            "x".repeat(pad),
            "y".repeat(FRAME_CHARS - pad - 8)
        );
        assert_eq!(frame[3], format!("1 | {want}"));
        assert_eq!(frame[4], format!("  | {}^^^^^^^^", " ".repeat(pad + 3)));
        assert_eq!(frame[1], " --> t.json:1:2000001");
        // 256 errors on the line (a load keeps no more) print kilobytes,
        // not the half gigabyte of 256 copies of the line.
        let mut all = Diagnostics::new();
        for i in 0..MAX_DIAGNOSTICS * 2 {
            all.push(Diagnostic::error("e").at(Span::new(file, i * 7_000, i * 7_000 + 1)));
        }
        assert!(all.render(&map, false).len() < 100_000);
    }

    #[test]
    fn names_cannot_drive_the_terminal() {
        let mut map = SourceMap::new();
        let text = "{\"type\": \"a\u{1b}]52;c;Zm9v\u{7}b\u{202e}c\u{2028}d\u{9b}2J\"}";
        let file = map.add("t.json", text.into());
        let start = text.find("\"a").unwrap();
        let name = &text[start + 1..text.len() - 2];
        let d = Diagnostic::error(format!("unknown leaf `{name}`"))
            .at(Span::new(file, start, text.len() - 1))
            .node("T\u{1b}[2J", &format!("T/{name}"), name)
            .help(format!("did you mean `{name}`?"));
        let shown = d.render(&map, false);
        assert!(!shown.chars().any(is_unprintable_but_newline), "{shown:?}");
        let escaped = "a\\u{1b}]52;c;Zm9v\\u{7}b\\u{202e}c\\u{2028}d\\u{9b}2J";
        assert!(
            shown.contains(&format!("error: unknown leaf `{escaped}`")),
            "{shown}"
        );
        assert!(
            shown.contains(&format!("1 | {{\"type\": \"{escaped}\"}}")),
            "{shown}"
        );
        assert!(shown.contains("in tree `T\\u{1b}[2J`"), "{shown}");
        // The caret still underlines the escaped text.
        let carets = shown.lines().nth(4).unwrap();
        assert_eq!(
            carets.trim_start_matches([' ', '|']).len(),
            escaped.len() + 2,
            "{shown}"
        );
    }

    #[test]
    fn long_node_paths_show_their_ends() {
        let map = SourceMap::new();
        let path = format!("Main{}/Shoot[0]", "/Sequence[0]".repeat(1000));
        let d = Diagnostic::error("x").node("Main", &path, "Shoot");
        let shown = d.render(&map, false);
        let line = shown.lines().nth(1).unwrap();
        assert!(line.starts_with("  = node: Main/Sequence[0]/"), "{line}");
        assert!(
            line.ends_with("/Sequence[0]/Shoot[0] (Shoot) in tree `Main`"),
            "{line}"
        );
        assert!(
            line.contains(" ... ") && line.chars().count() < PATH_CHARS + 60,
            "{line}"
        );
    }

    fn is_unprintable_but_newline(c: char) -> bool {
        c != '\n' && is_unprintable(c)
    }

    #[test]
    fn renders_without_a_place() {
        let map = SourceMap::new();
        let d = Diagnostic::warning("no trees").help("add one");
        assert_eq!(
            d.render(&map, false),
            "warning: no trees\n  = help: add one\n"
        );
        let d = Diagnostic::error("x").at(Span::new(FileId(3), 0, 1));
        assert_eq!(d.render(&map, false), "error: x\n");
    }

    #[test]
    fn sorts_by_place_and_counts() {
        let mut map = SourceMap::new();
        let f = map.add("f", "abc\ndef\n".into());
        let mut ds = Diagnostics::new();
        ds.push(Diagnostic::warning("w").at(Span::new(f, 5, 6)));
        ds.push(Diagnostic::error("late").at(Span::new(f, 5, 6)));
        ds.push(Diagnostic::error("nowhere"));
        ds.push(Diagnostic::error("early").at(Span::new(f, 0, 1)));
        ds.sort();
        let order: Vec<&str> = ds.items().iter().map(|d| d.message.as_str()).collect();
        assert_eq!(order, ["early", "late", "w", "nowhere"]);
        assert!(ds.render(&map, false).ends_with("3 errors, 1 warning\n"));
    }
}
