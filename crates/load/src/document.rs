//! The document: what every tree-file reader produces.
//!
//! Each dialect's reader ([`crate::native`] for JSON and RON, the XML readers
//! for Lumberyard MBT and BehaviorTree.CPP v4) parses its syntax, maps the
//! dialect's standard node names to treebeard's and hands over a
//! [`Document`]: named trees of [`NodeDecl`]s, each with the span it was
//! written at. The resolver ([`crate::resolve`]) then does the rest the same
//! way for every dialect: leaf names against the registry, parameters,
//! sub-tree inlining, stubs.
//!
//! A file may also declare variables, signals, timestamps and stimuli
//! ([`Declared`]): MBT's `<Variables>`, `<SignalVariables>` and
//! `<Timestamps>` sections, the native format's `variables`, `signals`,
//! `timestamps` and `stimuli`. The resolver merges the declarations of every file of a
//! load, in file order, into the loaded tree's.

use crate::source::{FileId, Span};

/// The name of the nodes a reader adds to run what a dialect has and
/// treebeard's nodes do not (BT.CPP's SKIPPED, a RunOnce's record of its
/// run): their branches are bookkeeping, which the checks do not report
/// as unreachable.
pub const ADDED: &str = "SKIPPED";
use treebeard_shape::tree::Count;
use treebeard_shape::{Kind, LogMessages, ParamValue};

/// The tree-file dialect a document was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// treebeard's own format, as JSON.
    Json,
    /// treebeard's own format, as RON.
    Ron,
    /// Lumberyard's Modular Behavior Tree XML.
    Mbt,
    /// BehaviorTree.CPP v4 XML.
    BtCpp,
}

impl Dialect {
    /// The dialect's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Json => "JSON",
            Dialect::Ron => "RON",
            Dialect::Mbt => "MBT XML",
            Dialect::BtCpp => "BehaviorTree.CPP XML",
        }
    }
}

/// One file's trees.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The file.
    pub file: FileId,
    /// Its dialect.
    pub dialect: Dialect,
    /// Its trees, in file order.
    pub trees: Vec<TreeDecl>,
    /// The tree to run, if the file says (BT.CPP's `main_tree_to_execute`,
    /// the native `main`); otherwise the first.
    pub main: Option<(Box<str>, Span)>,
    /// Other files whose trees this one uses (BT.CPP `<include path=...>`),
    /// as written, relative to this file.
    pub includes: Vec<(Box<str>, Span)>,
    /// The variables, signals, timestamps and stimuli the file declares.
    pub declarations: Declared,
    /// The sub-tree models of BT.CPP's `<TreeNodesModel>`.
    pub models: Vec<SubTreeModel>,
}

/// What a file declares beside its trees, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Declared {
    /// Variables, in file order.
    pub variables: Vec<DeclaredVariable>,
    /// Signals: events that set variables.
    pub signals: Vec<DeclaredSignal>,
    /// Timestamps, in file order.
    pub timestamps: Vec<DeclaredTimestamp>,
    /// Stimuli, in file order.
    pub stimuli: Vec<DeclaredStimulus>,
}

impl Declared {
    /// Whether nothing is declared.
    pub fn is_empty(&self) -> bool {
        self.variables.is_empty()
            && self.signals.is_empty()
            && self.timestamps.is_empty()
            && self.stimuli.is_empty()
    }
}

/// A name or value in a declaration, and where it is written.
pub type Spanned<T> = (T, Span);

/// A declared variable.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredVariable {
    /// The declaration as a whole (MBT: its element's tag; native: its
    /// entry).
    pub span: Span,
    /// Its name.
    pub name: Spanned<Box<str>>,
    /// Its value when an agent starts.
    pub initial: bool,
}

/// A declared signal: when `event` reaches an agent, `variable` becomes
/// `value`.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredSignal {
    /// The declaration as a whole.
    pub span: Span,
    /// The application's event.
    pub event: Spanned<Box<str>>,
    /// The variable it sets.
    pub variable: Spanned<Box<str>>,
    /// The value it sets.
    pub value: bool,
}

/// A declared timestamp.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredTimestamp {
    /// The declaration as a whole.
    pub span: Span,
    /// Its name.
    pub name: Spanned<Box<str>>,
    /// The application's event that sets it.
    pub event: Spanned<Box<str>>,
    /// The timestamp it is exclusive to, if any.
    pub exclusive_to: Option<Spanned<Box<str>>>,
}

/// A declared stimulus.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredStimulus {
    /// The declaration as a whole.
    pub span: Span,
    /// Its name.
    pub name: Spanned<Box<str>>,
    /// How long it stays active once posted, in seconds.
    pub seconds: Spanned<f64>,
}

/// A named tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeDecl {
    /// Its name, unique in a load.
    pub name: Box<str>,
    /// Where the name is written.
    pub span: Span,
    /// The parameters it takes as a sub-tree, if it declares them (native
    /// `params`); `None` accepts any.
    pub params: Option<Vec<TreeParam>>,
    /// Its root.
    pub root: NodeDecl,
}

/// A sub-tree's ports as BehaviorTree.CPP's `<TreeNodesModel>` declares
/// them (`<SubTree ID="X"><input_port name="p" default="..."/></SubTree>`):
/// a use of tree `X` that neither passes a port nor autoremaps gets the
/// port's default, and one whose port has no default must pass it. Unlike
/// a tree's own `params`, a model does not refuse other ports (BT.CPP
/// remaps them too). The models of every file of a load apply to every
/// tree of it.
#[derive(Clone, Debug, PartialEq)]
pub struct SubTreeModel {
    /// The tree it describes.
    pub tree: Box<str>,
    /// Where the model is written.
    pub span: Span,
    /// Its ports, with their defaults.
    pub ports: Vec<TreeParam>,
}

/// A parameter a tree declares for its uses as a sub-tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeParam {
    /// Its name.
    pub name: Box<str>,
    /// Its value when a use gives none; `None` makes it required.
    pub default: Option<ParamValue>,
    /// Where it is declared.
    pub span: Span,
}

/// One node as written.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeDecl {
    /// What the node is, in treebeard's terms.
    pub what: What,
    /// Its type as written (`Fallback`, `hunger_above`, `SubTree`).
    pub written: Box<str>,
    /// Where its type is written.
    pub span: Span,
    /// The whole node as written, children included (its type's span where
    /// a dialect cannot tell more).
    pub extent: Span,
    /// Its name, if given.
    pub name: Option<Box<str>>,
    /// Its stable identity, if given.
    pub id: Option<u32>,
    /// Its parameters (a leaf's, or a sub-tree use's), in file order.
    pub attrs: Vec<Attr>,
    /// What it logs on start, success and failure (MBT's `_startLog`,
    /// `_successLog`, `_failureLog`; the native `log` map).
    pub logs: LogMessages,
    /// Its children, in order.
    pub children: Vec<NodeDecl>,
    /// A sub-tree use whose ports it does not pass read those of the
    /// copy it stands in (BT.CPP's `_autoremap="true"`); otherwise they
    /// name the blackboard fields of their names.
    pub autoremap: bool,
}

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A decider of this kind. Concurrent deciders carry their policy.
    Decider(Kind, Option<PolicyDecl>),
    /// A leaf, by its registered name (= [`NodeDecl::written`], unless the
    /// dialect renamed it).
    Leaf(Box<str>),
    /// The tree of this name, inlined here.
    SubTree(Box<str>),
    /// A node of the dialect that treebeard cannot run (yet): an error, or
    /// a stub with `--stub-unknown`. The text says what it is.
    Unsupported(&'static str),
    /// A built-in node of the dialect that treebeard cannot run yet:
    /// always an error, never stubbed (a stub would change what the tree
    /// does where the file relies on the built-in's behaviour).
    BuiltIn(&'static str),
}

/// A concurrent decider's policy as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyDecl {
    /// Successes needed, and where written.
    pub succeed: Option<(Count, Span)>,
    /// Failures that fail it, and where written.
    pub fail: Option<(Count, Span)>,
}

/// A parameter as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// Its name.
    pub name: Box<str>,
    /// Its value (files write most values as text; the compiler converts).
    pub value: ParamValue,
    /// Where the value is written.
    pub span: Span,
    /// Where the name is written.
    pub name_span: Span,
}

impl Attr {
    /// A text attribute a reader makes (a rewriting's script, a parameter
    /// it fills in), written at `span`: no file holds it as such.
    pub fn made(name: &str, value: &str, span: Span) -> Attr {
        Attr {
            name: name.into(),
            value: ParamValue::Str(value.into()),
            span,
            name_span: span,
        }
    }
}

impl NodeDecl {
    /// A node of `what`, written as `written` at `span`, without name,
    /// parameters or children.
    pub fn new(what: What, written: &str, span: Span) -> NodeDecl {
        NodeDecl {
            what,
            written: written.into(),
            span,
            extent: span,
            name: None,
            id: None,
            attrs: Vec::new(),
            logs: LogMessages::default(),
            children: Vec::new(),
            autoremap: false,
        }
    }

    /// The treebeard kind named `name` that files may write as a node type:
    /// the deciders.
    pub fn decider_named(name: &str) -> Option<Kind> {
        Kind::ALL
            .iter()
            .copied()
            .find(|k| k.is_decider() && k.name() == name)
    }
}

impl Drop for NodeDecl {
    /// Drops deep documents without recursion.
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut node) = stack.pop() {
            stack.append(&mut node.children);
        }
    }
}
