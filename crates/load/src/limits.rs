//! What a load may cost: the caps that keep any file, however hostile, to
//! bounded memory, stack and time. Each cap a file exceeds is an error at
//! the place that exceeds it, never a panic, a stack overflow or a hang.
//!
//! | cap | value | what it bounds |
//! | --- | --- | --- |
//! | [`MAX_NESTING`] | 1024 | nodes nested in one file, and in the tree once its sub-trees are copied in: the stack of every recursive pass (the resolver, the compiler, dropping a tree) |
//! | [`MAX_VALUE_DEPTH`] | 128 | JSON and RON values nested in one file |
//! | [`MAX_SUBTREE_DEPTH`] | 64 | sub-trees used inside sub-trees |
//! | [`MAX_NODES`] | 131 072 | nodes once sub-trees are copied in: a file of a few kilobytes can use a tree twice that uses a tree twice ..., doubling at each level |
//! | [`MAX_COPIED_BYTES`] | 64 MiB | names, parameters, log messages and node paths the resolver writes while copying |
//! | [`MAX_NAME`] | 256 bytes | a name: of a tree, node, leaf, parameter or declaration |
//! | [`MAX_STRING`] | 64 KiB | a parameter's or log message's text (scripts have their own cap, 4096 bytes) |
//! | [`MAX_FILES`] | 1024 | files one load reads (a file and what it includes); includes are followed without recursion |
//! | [`MAX_DIAGNOSTICS`] | 256 | diagnostics kept by one load; the rest are counted (a sub-tree with an error, copied a thousand times, reports a thousand errors) |
//!
//! The compiler reports at most [`MAX_PROBLEMS`] problems, and the
//! compiled shape has the validator's caps on top ([`Limits`]).
//!
//! [`Limits`]: treebeard_shape::Limits
//! [`MAX_PROBLEMS`]: treebeard_shape::MAX_PROBLEMS

use crate::diagnostic::Diagnostic;
use crate::document::{NodeDecl, What};
use treebeard_shape::ParamValue;

pub use crate::native::MAX_NESTING;
pub use crate::resolve::MAX_SUBTREE_DEPTH;
pub use crate::spanned::MAX_VALUE_DEPTH;

/// The most nodes a tree may have once its sub-trees are copied in.
pub const MAX_NODES: usize = 1 << 17;

/// The most bytes of names, parameters, log messages and node paths the
/// resolver may write while copying sub-trees in.
pub const MAX_COPIED_BYTES: usize = 64 << 20;

/// The longest name, in bytes.
pub const MAX_NAME: usize = 256;

/// The longest parameter or log message text, in bytes.
pub const MAX_STRING: usize = 64 << 10;

/// The most files one load reads.
pub const MAX_FILES: usize = 1024;

/// The most diagnostics one load keeps.
pub const MAX_DIAGNOSTICS: usize = 256;

/// Why a name or text is refused: `what` (`"tree name"`, ...) is `len`
/// bytes long, over `max`.
fn too_long(what: &str, len: usize, max: usize) -> Diagnostic {
    Diagnostic::error(format!(
        "{what} is {len} bytes long, over the limit of {max}"
    ))
}

/// The problem with the name `name` (a `what`), if it is longer than
/// [`MAX_NAME`].
pub(crate) fn long_name(what: &str, name: &str) -> Option<Diagnostic> {
    (name.len() > MAX_NAME).then(|| too_long(what, name.len(), MAX_NAME).help("shorten the name"))
}

/// The problem with the text `text` (a `what`), if it is longer than
/// [`MAX_STRING`].
fn long_text(what: &str, text: &str) -> Option<Diagnostic> {
    (text.len() > MAX_STRING).then(|| {
        too_long(what, text.len(), MAX_STRING)
            .help("keep long texts in the game's data and pass a key to them")
    })
}

/// The first problem with a node's own names and texts (not its
/// children's): a name over [`MAX_NAME`] or a text over [`MAX_STRING`].
pub(crate) fn node_problem(decl: &NodeDecl) -> Option<Diagnostic> {
    let named = match &decl.what {
        What::Leaf(name) => long_name("the leaf name", name),
        What::SubTree(name) => long_name("the sub-tree's name", name),
        What::Decider(..) | What::Unsupported(_) | What::BuiltIn(_) => None,
    };
    let attrs = decl.attrs.iter().find_map(|attr| {
        let value = match &attr.value {
            ParamValue::Str(text) => long_text("the parameter's value", text),
            ParamValue::Field(name) => long_name("the field name", name),
            _ => None,
        };
        let problem = long_name("the parameter name", &attr.name).or(value)?;
        Some(problem.at(attr.span))
    });
    long_name("the node type", &decl.written)
        .or(named)
        .or_else(|| long_name("the node name", decl.name.as_deref()?))
        .or(attrs)
        .or_else(|| {
            let mut logs = decl.logs.iter();
            logs.find_map(|(_, message)| long_text("the log message", message))
        })
}

/// What copying the tree has cost so far, against [`MAX_NODES`] and
/// [`MAX_COPIED_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct Budget {
    nodes: usize,
    bytes: usize,
}

impl Budget {
    /// Charges the node `decl`, resolved at `path`; the problem, when the
    /// tree has grown past a cap.
    pub(crate) fn charge(&mut self, decl: &NodeDecl, path: &str) -> Option<Diagnostic> {
        self.nodes += 1;
        let attrs: usize = decl
            .attrs
            .iter()
            .map(|a| {
                a.name.len()
                    + match &a.value {
                        ParamValue::Str(text) => text.len(),
                        _ => 8,
                    }
            })
            .sum();
        let logs: usize = decl.logs.iter().map(|(_, m)| m.len()).sum();
        let name = decl.name.as_ref().map_or(0, |n| n.len());
        self.bytes += path.len() + decl.written.len() + name + attrs + logs;
        let help = "every use of a sub-tree is a copy of it: use fewer or smaller sub-trees";
        let message = if self.nodes > MAX_NODES {
            format!("the tree has more than {MAX_NODES} nodes once its sub-trees are copied in")
        } else if self.bytes > MAX_COPIED_BYTES {
            format!(
                "the tree's names, parameters and paths take more than {} MiB once its \
                 sub-trees are copied in",
                MAX_COPIED_BYTES >> 20
            )
        } else {
            return None;
        };
        Some(Diagnostic::error(message).help(help))
    }
}
