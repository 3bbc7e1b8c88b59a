//! From documents to one tree description: leaf names, parameters,
//! sub-trees and stubs, the same way for every dialect.
//!
//! * A leaf's name must be registered; its attributes become named
//!   parameters, checked by the compiler against the leaf's schema.
//! * A `SubTree` is replaced by a copy of the tree it names. Inside the
//!   copy, a parameter written `{port}` takes what the use passes for
//!   `port`: another field (`{goal}`, remapping) or a literal (`3`). Ports
//!   the use does not pass keep their name and refer to the blackboard field
//!   of that name (like BehaviorTree.CPP's `_autoremap`). Trees that use
//!   themselves, directly or not, are an error.
//! * A node's log messages go with it; a sub-tree use's replace its
//!   copy's root's, event by event (as its name does), and a stubbed node
//!   that passes its children through gives them to what runs in its place.
//! * With stubs on, an unknown leaf becomes a stub leaf the caller
//!   registers (see [`Stub`]), and a node the dialect has but treebeard
//!   cannot run passes its only child through (or runs its children as a
//!   sequence), with a warning naming what was stubbed.
//!
//! * The declarations of every file (variables, signals, timestamps) are
//!   merged in file order (the main file first, then what it includes) into
//!   the tree's [`Declarations`]; a variable or timestamp declared twice,
//!   in one file or in two, is an error naming both places.
//!
//! Each node keeps where it was written, and the resolver records which
//! tree each position belongs to, so the compiler's problems can be reported
//! with the tree's name. A script parameter of a built-in kind is given the
//! position one column before its first character (its opening quote), so
//! that the compiler's column for an error in it (the position, plus one,
//! plus the offset in the script) lands on the offending character; the
//! loader then maps the error exactly onto the file ([`ScriptAt`]), escapes
//! and entities included.

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::document::{
    Attr, DeclaredSignal, DeclaredStimulus, DeclaredTimestamp, DeclaredVariable, Dialect, Document,
    NodeDecl, SubTreeModel, TreeDecl, What,
};
use crate::limits::{self, Budget, MAX_NESTING};
use crate::source::{FileId, SourceMap, Span};
use std::collections::{BTreeMap, HashMap};
use treebeard_shape::params::field_name;
use treebeard_shape::tree::{Node, NodeParam, Policy, decider_of, leaf, sequence};
use treebeard_shape::{
    Declarations, Kind, KindParamType, Layout, LeafCatalog, LeafSchema, ParamSpec, ParamType,
    ParamValue, SignalDecl, Source, StimulusDecl, TimestampDecl, VariableDecl, suggest,
};

/// A leaf the loaded trees use that the registry lacks, stubbed: the caller
/// registers a leaf of this name and schema before linking, which returns
/// `status` on every tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Stub {
    /// The name the trees use.
    pub name: Box<str>,
    /// Its schema: an action taking every parameter any use gives, as a
    /// string defaulting to `""`.
    pub schema: LeafSchema,
    /// What it returns on every tick.
    pub status: StubStatus,
}

/// What a stubbed leaf returns on every tick (`--stub-status`). Running by
/// default, so that a stubbed branch is visibly pending rather than
/// silently taken as done: a stub that succeeded would skip a `Fallback`'s
/// later children, one that failed would skip a `Sequence`'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StubStatus {
    /// Runs, and never ends.
    #[default]
    Running,
    /// Succeeds at once.
    Success,
    /// Fails at once.
    Failure,
}

impl StubStatus {
    /// What a stub with it does, for warnings.
    pub fn does(self) -> &'static str {
        match self {
            StubStatus::Running => "it keeps running",
            StubStatus::Success => "it succeeds at once",
            StubStatus::Failure => "it fails at once",
        }
    }

    /// Its name: `running`, `success` or `failure`.
    pub fn name(self) -> &'static str {
        match self {
            StubStatus::Running => "running",
            StubStatus::Success => "success",
            StubStatus::Failure => "failure",
        }
    }

    /// The status named `name`.
    pub fn from_name(name: &str) -> Option<StubStatus> {
        [
            StubStatus::Running,
            StubStatus::Success,
            StubStatus::Failure,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// The leaf that stands in for a node with errors, so that the rest of the
/// tree still compiles and reports its own problems. No registry has it; the
/// loader's catalog declares it, and a load with errors returns no shape.
pub const PLACEHOLDER: &str = "\u{0}placeholder";

/// The deepest sub-tree nesting followed.
pub const MAX_SUBTREE_DEPTH: usize = 64;

/// What resolving produced.
#[derive(Debug, Default)]
pub struct Resolved {
    /// The main tree, sub-trees inlined; `None` after errors that leave
    /// nothing to compile.
    pub tree: Option<Node>,
    /// The main tree's name.
    pub main: Box<str>,
    /// The stubs the tree needs.
    pub stubs: Vec<Stub>,
    /// The tree each node position belongs to.
    pub trees_at: HashMap<Source, Box<str>>,
    /// Where each parameter's name is written, by where its value is: for
    /// problems about the name (unknown, given twice).
    pub names_at: HashMap<Source, Span>,
    /// Where each sub-tree copy is used, by its path (as the compiler
    /// writes paths).
    pub copies: HashMap<String, Source>,
    /// The declarations of every file, merged.
    pub declarations: Declarations,
    /// Each declaration, by the position the compiler reports its problems
    /// at: to point at the name a problem is about.
    pub declared_at: HashMap<Source, Declared>,
    /// Each script parameter of a built-in kind, by the position given to
    /// the compiler (one column before the script).
    pub scripts_at: HashMap<Source, ScriptAt>,
    /// With stubs on, the events the trees name that the application lacks:
    /// the caller declares these after its own before linking.
    pub stub_events: Vec<Box<str>>,
}

/// A declaration as written (see [`Resolved::declared_at`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Declared {
    /// A variable.
    Variable(DeclaredVariable),
    /// A signal.
    Signal(DeclaredSignal),
    /// A timestamp.
    Timestamp(DeclaredTimestamp),
    /// A stimulus.
    Stimulus(DeclaredStimulus),
}

impl Declared {
    /// Where the `what` (`event`, `variable`, `timestamp` or `stimulus`)
    /// named `name` is written in the declaration, if it names one.
    pub fn part(&self, what: &str, name: &str) -> Option<Span> {
        let is = |part: &(Box<str>, Span)| (*part.0 == *name).then_some(part.1);
        match (self, what) {
            (Declared::Variable(v), "variable") => is(&v.name),
            (Declared::Signal(s), "event") => is(&s.event),
            (Declared::Signal(s), "variable") => is(&s.variable),
            (Declared::Timestamp(t), "event") => is(&t.event),
            (Declared::Timestamp(t), "timestamp") => {
                is(&t.name).or_else(|| t.exclusive_to.as_ref().and_then(is))
            }
            (Declared::Stimulus(s), "stimulus") => is(&s.name),
            _ => None,
        }
    }

    /// Where the declared name is written (a signal's variable).
    pub fn name(&self) -> Span {
        match self {
            Declared::Variable(v) => v.name.1,
            Declared::Signal(s) => s.variable.1,
            Declared::Timestamp(t) => t.name.1,
            Declared::Stimulus(s) => s.name.1,
        }
    }

    /// Where a stimulus's `seconds` are written.
    pub fn seconds(&self) -> Option<Span> {
        match self {
            Declared::Stimulus(s) => Some(s.seconds.1),
            _ => None,
        }
    }

    /// Where a timestamp's `exclusive_to` is written.
    pub fn exclusive_to(&self) -> Option<Span> {
        match self {
            Declared::Timestamp(t) => t.exclusive_to.as_ref().map(|e| e.1),
            _ => None,
        }
    }
}

/// A script parameter as written (see [`Resolved::scripts_at`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptAt {
    /// Where its value is written.
    pub span: Span,
    /// The file's dialect.
    pub dialect: Dialect,
    /// The script as given to the compiler.
    pub value: Box<str>,
    /// The parameter's name as written (`code`, `onEnter`).
    pub written_name: Box<str>,
    /// The node's type as written (`ExecuteLua`, `Script`).
    pub node_type: Box<str>,
}

impl ScriptAt {
    /// The span of the bytes `offset..offset + len` of the script, as
    /// written in `map`'s file; `None` if the value is not written as read.
    pub fn span_of(&self, map: &SourceMap, offset: usize, len: usize) -> Option<Span> {
        let at = crate::escapes::positions(self.dialect, map.text(self.span), &self.value)?;
        let start = *at.get(offset)?;
        let end = *at.get(offset + len)?;
        let base = self.span.start as usize;
        Some(Span::new(self.span.file, base + start, base + end))
    }
}

/// Resolves the main tree of `docs` (the first document's `main`, or its
/// first tree, unless `main` names one).
pub fn resolve(
    docs: &[Document],
    map: &SourceMap,
    catalog: &dyn LeafCatalog,
    main: Option<&str>,
    stubs: Option<StubStatus>,
    diags: &mut Diagnostics,
) -> Resolved {
    let stub_unknown = stubs.is_some();
    let mut trees: BTreeMap<&str, &TreeDecl> = BTreeMap::new();
    for tree in docs.iter().flat_map(|d| &d.trees) {
        if let Some(d) = limits::long_name("the tree name", &tree.name) {
            diags.push(d.at(tree.span));
            continue;
        }
        if let Some(first) = trees.get(&*tree.name) {
            let first = map.source(first.span);
            diags.push(
                Diagnostic::error(format!("a second tree is named `{}`", tree.name))
                    .at(tree.span)
                    .help(format!(
                        "the first is at {}:{first}; tree names must be unique",
                        map.file(first_file(first)).name()
                    )),
            );
            continue;
        }
        trees.insert(&tree.name, tree);
    }
    let mut out = Resolved::default();
    declare(docs, map, diags, &mut out);
    if stub_unknown {
        for decl in docs.iter().map(|d| &d.declarations) {
            let events = decl.signals.iter().map(|s| &s.event);
            for event in events.chain(decl.timestamps.iter().map(|t| &t.event)) {
                stub_event(catalog, &mut out.stub_events, event, diags);
            }
        }
    }
    let chosen = match main {
        Some(name) => Some((name.into(), None)),
        None => docs
            .first()
            .and_then(|d| d.main.clone().map(|(n, s)| (n, Some(s))))
            .or_else(|| {
                docs.iter()
                    .flat_map(|d| &d.trees)
                    .next()
                    .map(|t| (t.name.clone(), None))
            }),
    };
    let Some((main, span)) = chosen else {
        // A file whose trees all failed to read has said why already.
        if !diags.has_errors() {
            diags.push(Diagnostic::error("no tree to load").help("a file needs at least one tree"));
        }
        return out;
    };
    let Some(&root) = trees.get(&*main) else {
        let names = trees.keys().copied();
        let mut d = Diagnostic::error(format!("no tree is named `{main}`"));
        if let Some(span) = span {
            d = d.at(span);
        }
        if let Some(s) = suggest(&main, names) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        diags.push(d);
        return out;
    };
    let mut r = Resolver {
        map,
        catalog,
        dialects: docs.iter().map(|d| (d.file, d.dialect)).collect(),
        scripts_at: HashMap::new(),
        trees: &trees,
        models: models(docs, map, diags),
        stub_unknown,
        stub_status: stubs.unwrap_or_default(),
        stub_events: std::mem::take(&mut out.stub_events),
        diags,
        stubs: BTreeMap::new(),
        trees_at: HashMap::new(),
        names_at: HashMap::new(),
        copies: HashMap::new(),
        stack: vec![main.clone()],
        depth: 0,
        budget: Budget::default(),
        stopped: false,
    };
    let scope = Scope::default();
    let label = root.root.name.as_deref().unwrap_or(&main).to_owned();
    let tree = Some(r.node(&root.root, &main, &label, &scope));
    out.stubs = r
        .stubs
        .into_iter()
        .map(|(name, params)| Stub {
            schema: params.into_iter().fold(LeafSchema::action(), |s, p| {
                s.with(ParamSpec::new(&p, ParamType::Str).default(""))
            }),
            name: name.into(),
            status: stubs.unwrap_or_default(),
        })
        .collect();
    out.trees_at = r.trees_at;
    out.names_at = r.names_at;
    out.copies = r.copies;
    out.scripts_at = r.scripts_at;
    out.stub_events = r.stub_events;
    // The root is named after its tree, so every path starts with the tree.
    out.tree = tree.map(|t| {
        if root.root.name.is_none() {
            t.named(&main)
        } else {
            t
        }
    });
    out.main = main;
    out
}

fn first_file(s: Source) -> FileId {
    FileId(s.file)
}

/// With stubs on: stubs the event `name` (written at its span) unless the
/// application or an earlier stub has it, with a warning.
fn stub_event(
    catalog: &dyn LeafCatalog,
    stubbed: &mut Vec<Box<str>>,
    name: &(Box<str>, Span),
    diags: &mut Diagnostics,
) {
    let known = |e: &str| e == &*name.0;
    let mut events = catalog.events().iter().chain(stubbed.iter());
    if events.any(|e| known(e)) {
        return;
    }
    stubbed.push(name.0.clone());
    diags.push(
        Diagnostic::warning(format!(
            "`{}` is not one of the application's events: stubbed",
            name.0
        ))
        .at(name.1)
        .help("declare the event (`Leaves::event`) to run the tree as written"),
    );
}

/// Merges the declarations of `docs`, in order, into `out`; a variable,
/// timestamp or stimulus declared again is reported with where it was
/// first, and left out.
fn declare(docs: &[Document], map: &SourceMap, diags: &mut Diagnostics, out: &mut Resolved) {
    let mut first: HashMap<(&str, Box<str>), Span> = HashMap::new();
    // A declared name too long to keep is refused like one declared twice.
    let long = |what: &str, name: &(Box<str>, Span), diags: &mut Diagnostics| {
        let problem = limits::long_name(&format!("the {what} name"), &name.0);
        problem.map(|d| diags.push(d.at(name.1))).is_some()
    };
    let mut again = |what: &'static str, name: &(Box<str>, Span), diags: &mut Diagnostics| {
        if long(what, name, diags) {
            return true;
        }
        let Some(&at) = first.get(&(what, name.0.clone())) else {
            first.insert((what, name.0.clone()), name.1);
            return false;
        };
        let s = map.source(at);
        diags.push(
            Diagnostic::error(format!("{what} `{}` is declared twice", name.0))
                .at(name.1)
                .help(format!(
                    "it is first declared at {}:{s}; a load's files share one set of declarations",
                    map.file(first_file(s)).name()
                )),
        );
        true
    };
    for decl in docs.iter().map(|d| &d.declarations) {
        for v in &decl.variables {
            if again("variable", &v.name, diags) {
                continue;
            }
            let source = map.source(v.span);
            out.declarations.variables.push(VariableDecl {
                name: v.name.0.clone(),
                initial: v.initial,
                source: Some(source),
            });
            out.declared_at
                .insert(source, Declared::Variable(v.clone()));
        }
        for s in &decl.signals {
            if long("event", &s.event, diags) || long("variable", &s.variable, diags) {
                continue;
            }
            let source = map.source(s.span);
            out.declarations.signals.push(SignalDecl {
                event: s.event.0.clone(),
                variable: s.variable.0.clone(),
                value: s.value,
                source: Some(source),
            });
            out.declared_at.insert(source, Declared::Signal(s.clone()));
        }
        for t in &decl.timestamps {
            if again("timestamp", &t.name, diags) {
                continue;
            }
            let source = map.source(t.span);
            out.declarations.timestamps.push(TimestampDecl {
                name: t.name.0.clone(),
                event: t.event.0.clone(),
                exclusive_to: t.exclusive_to.as_ref().map(|e| e.0.clone()),
                source: Some(source),
            });
            out.declared_at
                .insert(source, Declared::Timestamp(t.clone()));
        }
        for st in &decl.stimuli {
            if again("stimulus", &st.name, diags) {
                continue;
            }
            let source = map.source(st.span);
            out.declarations.stimuli.push(StimulusDecl {
                name: st.name.0.clone(),
                seconds: st.seconds.0,
                source: Some(source),
            });
            out.declared_at
                .insert(source, Declared::Stimulus(st.clone()));
        }
    }
}

/// What a sub-tree use passes: port name to value.
#[derive(Default)]
struct Scope {
    ports: HashMap<Box<str>, ParamValue>,
}

impl Scope {
    /// `value` with a port reference replaced by what the use passed.
    fn apply(&self, value: &ParamValue) -> ParamValue {
        let port = match value {
            ParamValue::Field(name) => Some(&**name),
            ParamValue::Str(text) => field_name(text),
            _ => None,
        };
        match port.and_then(|p| self.ports.get(p)) {
            Some(passed) => passed.clone(),
            None => value.clone(),
        }
    }
}

struct Resolver<'a, 'd> {
    map: &'a SourceMap,
    catalog: &'a dyn LeafCatalog,
    /// Each file's dialect.
    dialects: HashMap<FileId, Dialect>,
    scripts_at: HashMap<Source, ScriptAt>,
    trees: &'a BTreeMap<&'a str, &'a TreeDecl>,
    /// The sub-tree models of every file (BT.CPP's `<TreeNodesModel>`), by
    /// tree.
    models: BTreeMap<&'a str, &'a SubTreeModel>,
    stub_unknown: bool,
    /// What stubs return.
    stub_status: StubStatus,
    /// The events stubbed so far.
    stub_events: Vec<Box<str>>,
    diags: &'d mut Diagnostics,
    /// Stubbed leaf names and the parameter names their uses give.
    stubs: BTreeMap<String, Vec<String>>,
    trees_at: HashMap<Source, Box<str>>,
    names_at: HashMap<Source, Span>,
    copies: HashMap<String, Source>,
    /// The trees being inlined, outermost first.
    stack: Vec<Box<str>>,
    /// How deep the node being resolved is, sub-trees copied in.
    depth: usize,
    /// What copying has cost so far.
    budget: Budget,
    /// Set when the tree exceeded a cap on its whole: nothing more is
    /// resolved (the error says why).
    stopped: bool,
}

impl Resolver<'_, '_> {
    fn source(&self, span: Span) -> Source {
        self.map.source(span)
    }

    /// The node `decl` of tree `tree`, at `path`, with its subtree. A node
    /// with errors (reported) becomes a [`PLACEHOLDER`] leaf, so that the
    /// rest of the tree still compiles and reports its own problems.
    fn node(&mut self, decl: &NodeDecl, tree: &str, path: &str, scope: &Scope) -> Node {
        let node = if self.admit(decl, tree, path) {
            self.try_node(decl, tree, path, scope)
        } else {
            None
        };
        let node = node.unwrap_or_else(|| leaf(PLACEHOLDER).at(self.source(decl.span)));
        // What the reader found wrong inside this node, now that its place
        // in the tree is known (children, resolved first, took theirs).
        self.diags
            .attach_node(decl.extent, tree, path, &decl.written);
        node
    }

    /// A likely meant name for `name` among `candidates`, unless the
    /// diagnostics are full (a sub-tree copied a thousand times repeats its
    /// errors a thousand times; their suggestions would not be shown).
    fn suggest<'c>(
        &self,
        name: &str,
        candidates: impl IntoIterator<Item = &'c str>,
    ) -> Option<&'c str> {
        if self.diags.is_full() {
            return None;
        }
        suggest(name, candidates)
    }

    /// Whether `decl` is within the caps of [`crate::limits`]; reports it
    /// when not. After a cap on the whole tree (its depth, its size) is
    /// exceeded, nothing more is admitted, so the error comes once and the
    /// rest of the copying is skipped.
    #[inline(never)]
    fn admit(&mut self, decl: &NodeDecl, tree: &str, path: &str) -> bool {
        if self.stopped {
            return false;
        }
        // A node at the deepest level may be a leaf, not a decider. (Outside
        // sub-tree copies, the readers have reported nodes too deep.)
        let too_deep = self.stack.len() > 1
            && (self.depth > MAX_NESTING
                || (self.depth == MAX_NESTING && !decl.children.is_empty()));
        let whole = if too_deep {
            Some(
                Diagnostic::error(format!(
                    "nodes nest deeper than {MAX_NESTING} levels once sub-trees are copied in"
                ))
                .help("the sub-trees used on the way add their depths: use them higher up"),
            )
        } else if matches!(decl.what, What::SubTree(_)) {
            // Its copy's root is charged in its place.
            None
        } else {
            self.budget.charge(decl, path)
        };
        self.stopped = whole.is_some();
        let Some(problem) = whole.or_else(|| limits::node_problem(decl)) else {
            return true;
        };
        let problem = if problem.span.is_some() {
            problem
        } else {
            problem.at(decl.span)
        };
        self.diags.push(problem.node(tree, path, &decl.written));
        false
    }

    /// Gives `node` the parameters written on `decl`. Out of line: its
    /// frame would otherwise be part of `try_node`'s, on the recursion.
    #[inline(never)]
    fn params(&mut self, mut node: Node, decl: &NodeDecl, tree: &str, scope: &Scope) -> Node {
        let kind = match decl.what {
            What::Decider(kind, _) => Some(kind),
            _ => None,
        };
        for attr in &decl.attrs {
            let script = kind.is_some_and(|k| {
                k.params()
                    .iter()
                    .any(|p| *p.name == *attr.name && p.ty.is_script())
            });
            let source = if script {
                self.script_source(attr, decl, scope)
            } else {
                self.source(attr.span)
            };
            let event = kind.is_some_and(|k| {
                k.params()
                    .iter()
                    .any(|p| *p.name == *attr.name && p.ty == KindParamType::Event)
            });
            if event
                && self.stub_unknown
                && let ParamValue::Str(name) = scope.apply(&attr.value)
            {
                let name = (Box::from(name.trim()), attr.span);
                stub_event(self.catalog, &mut self.stub_events, &name, self.diags);
            }
            self.trees_at.insert(source, tree.into());
            self.names_at.insert(source, attr.name_span);
            node = node.with_param(NodeParam {
                name: Some(attr.name.clone()),
                value: scope.apply(&attr.value),
                source: Some(source),
            });
        }
        node
    }

    /// The position given to the compiler for the script `attr`: one column
    /// before its first character as written (recorded in `scripts_at`).
    fn script_source(&mut self, attr: &Attr, decl: &NodeDecl, scope: &Scope) -> Source {
        let dialect = self
            .dialects
            .get(&attr.span.file)
            .copied()
            .unwrap_or(Dialect::Json);
        let value: Box<str> = match scope.apply(&attr.value) {
            ParamValue::Str(s) => s,
            other => other.to_string().into(),
        };
        let raw = self.map.text(attr.span);
        let first = crate::escapes::positions(dialect, raw, &value)
            .and_then(|at| at.first().copied())
            .unwrap_or(0);
        let mut source = self.source(Span::new(
            attr.span.file,
            attr.span.start as usize + first,
            attr.span.end as usize,
        ));
        source.column = source.column.saturating_sub(1);
        self.scripts_at.insert(
            source,
            ScriptAt {
                span: attr.span,
                dialect,
                value,
                written_name: self.map.text(attr.name_span).trim_matches('"').into(),
                node_type: decl.written.clone(),
            },
        );
        source
    }

    fn try_node(&mut self, decl: &NodeDecl, tree: &str, path: &str, scope: &Scope) -> Option<Node> {
        let at = self.source(decl.span);
        self.trees_at.insert(at, tree.into());
        // PERF: the deciders' path here, the rest out of line: this
        // function is on the resolver's recursion once per level of nodes,
        // and its frame must stay small for the deepest tree to resolve on
        // a 2 MiB stack in the unoptimised build.
        let node = match &decl.what {
            What::Decider(kind, policy) => {
                let configured = kind.layout() == Layout::Configured;
                if let Some(attr) = decl.attrs.first().filter(|_| !configured) {
                    self.diags
                        .push(no_parameters(decl, attr).node(tree, path, &decl.written));
                }
                let children = self.children(decl, tree, path, scope);
                let mut node = decider_of(*kind, children);
                if configured {
                    node = self.params(node, decl, tree, scope);
                }
                if let Some(p) = policy {
                    let mut policy = Policy::default();
                    if let Some((c, _)) = p.succeed {
                        policy.succeed = c;
                    }
                    if let Some((c, _)) = p.fail {
                        policy.fail = c;
                    }
                    node = node.policy(policy);
                }
                node
            }
            _ => return self.other_node(decl, at, tree, path, scope),
        };
        Some(written_at(node, decl, at))
    }

    /// A node other than a decider (see `try_node`), written at `at`: a
    /// leaf, a sub-tree, a node treebeard cannot run.
    #[inline(never)]
    fn other_node(
        &mut self,
        decl: &NodeDecl,
        at: Source,
        tree: &str,
        path: &str,
        scope: &Scope,
    ) -> Option<Node> {
        let problem = |d: Diagnostic| d.at(decl.span).node(tree, path, &decl.written);
        let node = match &decl.what {
            What::Leaf(name) if **name == *PLACEHOLDER => {
                // Its errors were reported without a place in the tree.
                self.diags.attach_node(decl.span, tree, path, &decl.written);
                leaf(PLACEHOLDER)
            }
            What::Leaf(name) => {
                if self.catalog.leaf(name).is_none() {
                    if !self.stub_unknown {
                        let mut candidates: Vec<&str> = self.catalog.names();
                        candidates.extend(
                            Kind::ALL
                                .iter()
                                .filter(|k| k.is_decider())
                                .map(|k| k.name()),
                        );
                        let mut d = Diagnostic::error(format!("unknown node type `{name}`"));
                        d = match self.suggest(name, candidates) {
                            Some(s) => d.help(format!("did you mean `{s}`?")),
                            None => d.help(format!(
                                "register a leaf named `{name}`, or pass --stub-unknown to stub it"
                            )),
                        };
                        self.diags.push(problem(d));
                        return None;
                    }
                    if decl.children.is_empty() {
                        self.stub(name, decl);
                        self.diags.push(problem(
                            Diagnostic::warning(format!(
                                "`{name}` is not a registered leaf: stubbed, {}",
                                self.stub_status.does()
                            ))
                            .help("register the leaf to run the tree as written"),
                        ));
                    } else {
                        return self.pass_through(decl, tree, path, scope, "an unknown node");
                    }
                }
                let is_scope = self.catalog.leaf(name).is_some_and(|s| s.scope);
                let n = decl.children.len();
                if is_scope && n != 1 {
                    self.diags.push(problem(
                        Diagnostic::error(format!(
                            "scope `{name}` needs exactly one child, but has {n}"
                        ))
                        .help("put the nodes it wraps under one child, such as a Sequence"),
                    ));
                } else if !is_scope && n > 0 {
                    self.diags.push(problem(Diagnostic::error(format!(
                        "`{name}` is a leaf, but has {n} {}",
                        if n == 1 { "child" } else { "children" }
                    ))));
                }
                let mut node = self.params(leaf(name), decl, tree, scope);
                if is_scope {
                    for child in self.children(decl, tree, path, scope) {
                        node.push(child);
                    }
                }
                node
            }
            What::SubTree(name) => return self.subtree(decl, name, tree, path, scope),
            What::BuiltIn(reason) => {
                self.diags.push(problem(unsupported_built_in(decl, reason)));
                return None;
            }
            What::Unsupported(reason) => {
                if !self.stub_unknown {
                    self.diags.push(problem(
                        Diagnostic::error(format!(
                            "`{}` ({reason}) is not supported by treebeard yet",
                            decl.written
                        ))
                        .help("pass --stub-unknown to check, draw or run the tree with it stubbed"),
                    ));
                    return None;
                }
                if decl.children.is_empty() {
                    // Its own stub name: the registry may have a leaf of the
                    // dialect's name with other parameters (a test `Wait`).
                    let name = format!("stub:{}", decl.written);
                    self.stub(&name, decl);
                    let mut node = leaf(&name).named(&decl.written);
                    for attr in &decl.attrs {
                        node = node.arg(&attr.name, scope.apply(&attr.value));
                    }
                    self.diags.push(problem(Diagnostic::warning(format!(
                        "`{}` ({reason}) is stubbed: {}",
                        decl.written,
                        self.stub_status.does()
                    ))));
                    node
                } else {
                    return self.pass_through(decl, tree, path, scope, reason);
                }
            }
            What::Decider(..) => unreachable!("`try_node` builds deciders"),
        };
        Some(written_at(node, decl, at))
    }

    fn children(&mut self, decl: &NodeDecl, tree: &str, path: &str, scope: &Scope) -> Vec<Node> {
        self.depth += 1;
        // PERF: a plain loop, not an iterator chain: the resolver recurses
        // once per level of nodes, and in the unoptimised build each
        // adaptor of a chain is a frame of its own on every level (the
        // deepest tree must resolve on a 2 MiB stack).
        let mut children = Vec::with_capacity(decl.children.len());
        for (i, child) in decl.children.iter().enumerate() {
            let child_path = format!("{path}/{}[{i}]", self.label(child));
            children.push(self.node(child, tree, &child_path, scope));
        }
        self.depth -= 1;
        children
    }

    /// Records a stubbed leaf and the parameters this use gives it.
    fn stub(&mut self, name: &str, decl: &NodeDecl) {
        let params = self.stubs.entry(name.to_owned()).or_default();
        for attr in &decl.attrs {
            if !params.iter().any(|p| **p == *attr.name) {
                params.push(attr.name.to_string());
            }
        }
    }

    /// A stubbed node with children: its only child, or its children as a
    /// sequence.
    fn pass_through(
        &mut self,
        decl: &NodeDecl,
        tree: &str,
        path: &str,
        scope: &Scope,
        reason: &str,
    ) -> Option<Node> {
        let runs_as = if decl.children.len() == 1 {
            "its child runs in its place"
        } else {
            "its children run as a sequence"
        };
        let mut d = Diagnostic::warning(format!(
            "`{}` ({reason}) is stubbed: {runs_as}",
            decl.written
        ))
        .at(decl.span)
        .node(tree, path, &decl.written);
        if !decl.attrs.is_empty() {
            let names: Vec<&str> = decl.attrs.iter().map(|a| &*a.name).collect();
            d = d.help(format!("its parameters are ignored: {}", names.join(", ")));
        }
        self.diags.push(d);
        let mut children = self.children(decl, tree, path, scope);
        let node = if children.len() == 1 {
            children.pop()?
        } else {
            sequence(children).at(self.source(decl.span))
        };
        // What runs in its place logs what the stubbed node was given.
        Some(node.with_logs(&decl.logs))
    }

    /// The tree `name`, inlined for the use `decl`.
    fn subtree(
        &mut self,
        decl: &NodeDecl,
        name: &str,
        tree: &str,
        path: &str,
        scope: &Scope,
    ) -> Option<Node> {
        let problem = |d: Diagnostic| d.at(decl.span).node(tree, path, &decl.written);
        let Some(&sub) = self.trees.get(name) else {
            let mut d = Diagnostic::error(format!("no tree is named `{name}`"));
            if let Some(s) = self.suggest(name, self.trees.keys().copied()) {
                d = d.help(format!("did you mean `{s}`?"));
            }
            self.diags.push(problem(d));
            return None;
        };
        if self.stack.iter().any(|t| **t == *name) {
            let mut cycle: Vec<&str> = self.stack.iter().map(|t| &**t).collect();
            cycle.push(name);
            self.diags.push(problem(
                Diagnostic::error(format!(
                    "sub-tree `{name}` uses itself: {}",
                    cycle.join(" -> ")
                ))
                .help("a tree cannot contain itself; break the cycle"),
            ));
            return None;
        }
        if self.stack.len() > MAX_SUBTREE_DEPTH {
            self.diags.push(problem(Diagnostic::error(format!(
                "sub-trees nest deeper than {MAX_SUBTREE_DEPTH} levels"
            ))));
            return None;
        }
        // What this use passes (and the tree's defaults for what it does
        // not). With `autoremap`, a port neither names keeps the enclosing
        // copy's value, as BT.CPP's `_autoremap` chains through nested
        // sub-trees; without, it names the field of its name.
        let mut passed = Scope::default();
        let mut ok = true;
        for attr in &decl.attrs {
            if let Some(declared) = &sub.params
                && !declared.iter().any(|p| p.name == attr.name)
            {
                let mut d =
                    Diagnostic::error(format!("tree `{name}` has no parameter `{}`", attr.name))
                        .at(attr.span)
                        .node(tree, path, &decl.written);
                if let Some(s) = self.suggest(&attr.name, declared.iter().map(|p| &*p.name)) {
                    d = d.help(format!("did you mean `{s}`?"));
                }
                self.diags.push(d);
                ok = false;
                continue;
            }
            passed
                .ports
                .insert(attr.name.clone(), scope.apply(&attr.value));
        }
        for p in sub.params.iter().flatten() {
            if passed.ports.contains_key(&p.name) {
                continue;
            }
            match &p.default {
                Some(v) => {
                    passed.ports.insert(p.name.clone(), v.clone());
                }
                None => {
                    self.diags.push(problem(Diagnostic::error(format!(
                        "tree `{name}` needs parameter `{}`, which is not given",
                        p.name
                    ))));
                    ok = false;
                }
            }
        }
        if sub.params.is_none() && !decl.autoremap {
            ok &= self.model_defaults(name, scope, &mut passed, problem);
        }
        if !ok {
            return None;
        }
        let mut inner = Scope::default();
        if decl.autoremap {
            inner.ports.clone_from(&scope.ports);
        }
        inner.ports.extend(passed.ports);
        self.stack.push(name.into());
        let mut root = self.node(&sub.root, name, path, &inner);
        self.stack.pop();
        // The copy is named after the use, so paths and debuggers show it.
        // Its nodes keep where they are written (that is where their
        // problems are fixed); warnings about the copy as a child of the
        // using tree point at the use.
        root = root.named(self.label(decl));
        // Like its name, the use's log messages override the root's, event
        // by event.
        root = root.with_logs(&decl.logs);
        self.copies.insert(path.to_owned(), self.source(decl.span));
        if let Some(id) = decl.id {
            root = root.with_id(id);
        }
        Some(root)
    }
}

impl Resolver<'_, '_> {
    /// The ports of the sub-tree `name`'s model (BT.CPP's
    /// `<TreeNodesModel>`) that a use does not pass (`passed`): each gets
    /// its default, resolved in the use's `scope`, as BT.CPP remaps it; one
    /// without a default is an error (located by `problem`). False after an
    /// error.
    fn model_defaults(
        &mut self,
        name: &str,
        scope: &Scope,
        passed: &mut Scope,
        problem: impl Fn(Diagnostic) -> Diagnostic,
    ) -> bool {
        let Some(model) = self.models.get(name).copied() else {
            return true;
        };
        let mut ok = true;
        for port in &model.ports {
            if passed.ports.contains_key(&port.name) {
                continue;
            }
            match &port.default {
                Some(v) => {
                    passed.ports.insert(port.name.clone(), scope.apply(v));
                }
                None => {
                    let at = self.map.source(port.span);
                    let file = self.map.file(first_file(at)).name();
                    self.diags.push(
                        problem(Diagnostic::error(format!(
                            "tree `{name}` needs port `{}`, which is not given",
                            port.name
                        )))
                        .help(format!(
                            "its TreeNodesModel ({file}:{at}) declares the port without a default: \
                             pass it (`{}=\"...\"`), or give the model's port a default",
                            port.name
                        )),
                    );
                    ok = false;
                }
            }
        }
        ok
    }
}

/// The sub-tree models of `docs` by tree: the first for each tree, and a
/// warning for a later one.
fn models<'d>(
    docs: &'d [Document],
    map: &SourceMap,
    diags: &mut Diagnostics,
) -> BTreeMap<&'d str, &'d SubTreeModel> {
    let mut models: BTreeMap<&str, &SubTreeModel> = BTreeMap::new();
    for model in docs.iter().flat_map(|d| &d.models) {
        if let Some(first) = models.get(&*model.tree) {
            let at = map.source(first.span);
            diags.push(
                Diagnostic::warning(format!(
                    "a second TreeNodesModel of sub-tree `{}` is ignored",
                    model.tree
                ))
                .at(model.span)
                .help(format!(
                    "the first is at {}:{at}; keep one model per sub-tree",
                    map.file(first_file(at)).name()
                )),
            );
            continue;
        }
        models.insert(&model.tree, model);
    }
    models
}

impl<'a> Resolver<'a, '_> {
    /// A node's label in paths, as the compiler makes them: a sub-tree's
    /// copy is named after its use, else its root, else its tree.
    fn label<'n>(&self, decl: &'n NodeDecl) -> &'n str
    where
        'a: 'n,
    {
        if let What::SubTree(tree) = &decl.what
            && decl.name.is_none()
            && let Some(root_name) = self.trees.get(&**tree).and_then(|t| t.root.name.as_deref())
        {
            return root_name;
        }
        label(decl)
    }
}

/// A node's label in paths, from the node alone.
/// `node` with what `decl` gives every node: where it is written, its log
/// messages, its name and its id.
fn written_at(node: Node, decl: &NodeDecl, at: Source) -> Node {
    let mut node = node.at(at).with_logs(&decl.logs);
    if let Some(name) = &decl.name {
        node = node.named(name);
    }
    if let Some(id) = decl.id {
        node = node.with_id(id);
    }
    node
}

/// The error of a decider given parameters it does not take.
#[inline(never)]
fn no_parameters(decl: &NodeDecl, attr: &crate::document::Attr) -> Diagnostic {
    Diagnostic::error(format!(
        "`{}` takes no parameters, but is given `{}`",
        decl.written, attr.name
    ))
    .at(attr.span)
}

/// The error of a built-in node treebeard cannot run yet. Out of line: the
/// resolver recurses once per level of nodes, and its frame stays small.
#[inline(never)]
fn unsupported_built_in(decl: &NodeDecl, reason: &str) -> Diagnostic {
    Diagnostic::error(format!(
        "`{}` ({reason}) is not supported by treebeard yet",
        decl.written
    ))
    .help(
        "a built-in node is never stubbed, since a stub would change what the tree does; \
         docs/trees.md lists the built-ins treebeard runs",
    )
}

pub(crate) fn label(decl: &NodeDecl) -> &str {
    if let Some(name) = &decl.name {
        return name;
    }
    match &decl.what {
        What::SubTree(tree) => tree,
        What::Leaf(name) if **name == *PLACEHOLDER => &decl.written,
        What::Leaf(name) => name,
        What::Decider(kind, _) => kind.name(),
        What::Unsupported(_) | What::BuiltIn(_) => &decl.written,
    }
}
