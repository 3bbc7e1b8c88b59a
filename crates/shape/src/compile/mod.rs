//! The compiler: a tree description becomes a validated shape.
//!
//! Nodes are emitted in pre-order; a decider's item is written when its
//! sub-stream closes, once its end is known. Leaf names are resolved against
//! a [`LeafCatalog`] into per-kind import tables; parameters, given by
//! position or by name, are checked against the leaf's schema, completed
//! with defaults and encoded into the shape's parameter table (see
//! [`crate::params`]). The result goes through the same validator as any
//! other input. The walk uses an explicit stack, so a deep description
//! cannot overflow the call stack.
//!
//! Compilation goes on after a problem that leaves the rest of the tree
//! meaningful (an unknown leaf, a bad parameter), so one run reports every
//! such problem.

// Compiles trees read from untrusted files: a bad input must become an
// error, never a panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod error;
mod leaves;
mod scripts;

pub use error::{BuildError, BuildProblem, Unbuildable};

use crate::catalog::{LeafCatalog, LeafSchema, suggest};
use crate::compat::{self, CompatWarning, Kept};
use crate::declare::{Declarations, MAX_STIMULI, Signal, Stimulus, Timestamp, Variable};
use crate::ids::NodeId;
use crate::item::{
    FLAG_PERSISTENT, MAX_ITEMS, MAX_LEAF_PARAMS, MAX_PARAM_WORDS, ParamRange, ShapeItem,
};
use crate::kinds::{
    Kind, KindParamType, LEAF_KINDS, Layout, MAX_SYNC_POINT, MAX_TEAM_SIZE, POLICIES, decider_param,
};
use crate::logs::NodeLogs;
use crate::params::{Encoded, EntryRefs, Mismatch, ParamSpec, ParamType, ParamValue, encode};
use crate::script;
use crate::shape::{Import, ImportParam, Limits, NodeInfo, Shape, ShapeParts};
use crate::source::Source;
use crate::tree::{Count, Expect, Node, NodeParam, Policy, What};
use crate::validate::MAX_DECLARED;
use std::collections::{HashMap, HashSet};

/// How to compile.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Caps on the shape.
    pub limits: Limits,
    /// The names of the files the tree's [`Source`]s index.
    pub files: Vec<Box<str>>,
    /// The tree's variables, signals, timestamps and stimuli.
    pub declarations: Declarations,
    /// Compatibility mode: a leaf parameter that no longer matches the
    /// leaf's declaration is a warning, and the node is kept (see
    /// [`crate::compat`]); strict (`false`) by default.
    pub compat: bool,
}

/// A compiled shape, with what compatibility mode kept (see
/// [`compile_reporting`]).
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The shape.
    pub shape: Shape,
    /// The mismatches compatibility mode kept the nodes of, in tree order
    /// (none in strict mode).
    pub warnings: Vec<CompatWarning>,
}

/// Compiles a tree description with the default [`Limits`].
pub fn compile(tree: &Node, catalog: &dyn LeafCatalog) -> Result<Shape, BuildError> {
    compile_with(tree, catalog, &Options::default())
}

/// A decider whose sub-stream is being emitted.
struct Frame<'t> {
    node: &'t Node,
    /// The kind being emitted (a scope is written as its hook's name).
    kind: Kind,
    item: u32,
    position: usize,
    next_child: usize,
    /// A configured kind's parameter words.
    params: ParamRange,
}

/// The most problems one compilation reports: it stops at the node that
/// reaches this many.
pub const MAX_PROBLEMS: usize = 256;

/// Compiles a tree description with `options`.
pub fn compile_with(
    tree: &Node,
    catalog: &dyn LeafCatalog,
    options: &Options,
) -> Result<Shape, BuildError> {
    compile_reporting(tree, catalog, options).map(|c| c.shape)
}

/// Compiles a tree description with `options`, and says what
/// compatibility mode ([`Options::compat`]) kept.
pub fn compile_reporting(
    tree: &Node,
    catalog: &dyn LeafCatalog,
    options: &Options,
) -> Result<Compiled, BuildError> {
    let (explicit, size) = explicit_ids(tree);
    let mut c = Compiler {
        catalog,
        limits: &options.limits,
        parts: ShapeParts {
            files: options.files.clone(),
            fields: catalog.fields().to_vec(),
            events: catalog.events().to_vec(),
            ..ShapeParts::default()
        },
        import_index: Default::default(),
        ids: HashSet::new(),
        explicit,
        next_default: size,
        stack: Vec::new(),
        stored: 0,
        monitors: 0,
        problems: Vec::new(),
        compat: options.compat,
        warnings: Vec::new(),
        script_names: HashMap::new(),
        script_texts: HashMap::new(),
    };
    c.declare(&options.declarations);
    c.find_entries(tree);
    if c.emit(tree, 0).is_ok() {
        while let Some(top) = c.stack.last_mut() {
            let node = top.node;
            let result = if let Some(child) = node.children.get(top.next_child) {
                let position = top.next_child;
                top.next_child += 1;
                c.emit(child, position)
            } else {
                c.close();
                Ok(())
            };
            // Past MAX_PROBLEMS, what follows would not be read: a tree
            // that copies one mistake a thousand times stops here.
            if result.is_err() || c.problems.len() >= MAX_PROBLEMS {
                break;
            }
        }
    }
    if !c.problems.is_empty() {
        return Err(BuildError {
            problems: c.problems,
        });
    }
    let warnings = std::mem::take(&mut c.warnings);
    let shape = c.parts.validate_with(&options.limits).map_err(|e| {
        // A rule of the whole stream (child trees' names): at its node.
        let at = e.item().and_then(|item| node_at(tree, item));
        BuildError {
            problems: vec![BuildProblem {
                path: at
                    .as_ref()
                    .map_or_else(|| "<shape>".into(), |(_, path)| path.clone()),
                node_type: at.as_ref().map_or("", |(node, _)| node_type(node)).into(),
                source: at.and_then(|(node, _)| node.source),
                what: Unbuildable::Invalid(e),
            }],
        }
    })?;
    Ok(Compiled { shape, warnings })
}

/// The node of `tree` at pre-order position `item` (its item in the
/// compiled stream), with its path as problems print it; walked without
/// recursion.
fn node_at(tree: &Node, item: u32) -> Option<(&Node, String)> {
    let mut path = String::new();
    push_segment(&mut path, tree, None);
    // The nodes open on the way down: node, its next child, the path's
    // length before the node's segment.
    let mut stack = vec![(tree, 0usize, 0usize)];
    let mut at = 0;
    while let Some(&mut (node, ref mut next, _)) = stack.last_mut() {
        if at == item {
            return Some((node, path));
        }
        match node.children.get(*next) {
            Some(child) => {
                let position = *next;
                *next += 1;
                let len = path.len();
                push_segment(&mut path, child, Some(position));
                stack.push((child, 0, len));
                at += 1;
            }
            None => {
                if let Some((_, _, len)) = stack.pop() {
                    path.truncate(len);
                }
            }
        }
    }
    None
}

/// Stops compilation: the problem leaves the rest of the tree unknowable.
struct Fatal;

struct Compiler<'t, 'c> {
    catalog: &'c dyn LeafCatalog,
    limits: &'c Limits,
    parts: ShapeParts,
    import_index: [HashMap<Box<str>, u16>; LEAF_KINDS],
    ids: HashSet<NodeId>,
    /// Identities the tree gives explicitly; default ones avoid them.
    explicit: HashSet<NodeId>,
    /// The next fresh identity, past every position in the tree.
    next_default: u32,
    stack: Vec<Frame<'t>>,
    /// Open `StoredState` and `Monitor` nodes.
    stored: u32,
    monitors: u32,
    problems: Vec<BuildProblem>,
    /// Compatibility mode (see [`crate::compat`]).
    compat: bool,
    warnings: Vec<CompatWarning>,
    /// What scripts find by name, as they compile: the tree's variables
    /// and entries, and the texts of their strings by word. Maps, so that
    /// no tree's scripts take quadratic time to compile.
    script_names: HashMap<Box<str>, script::Name>,
    script_texts: HashMap<Box<str>, u64>,
}

impl<'t> Compiler<'t, '_> {
    /// The path of a node at `position` under the open deciders.
    fn path(&self, node: &Node, position: Option<usize>) -> String {
        let mut path = String::new();
        for frame in &self.stack {
            push_segment(
                &mut path,
                frame.node,
                (frame.item > 0).then_some(frame.position),
            );
        }
        push_segment(&mut path, node, position);
        path
    }

    /// A problem of `node` (at `source`, else the node's own).
    fn problem(
        &self,
        node: &Node,
        position: usize,
        source: Option<Source>,
        what: Unbuildable,
    ) -> BuildProblem {
        let position = (!self.stack.is_empty()).then_some(position);
        BuildProblem {
            path: self.path(node, position),
            node_type: node_type(node).into(),
            source: source.or(node.source),
            what,
        }
    }

    /// Records a problem of `node` (at `source`, else the node's own).
    fn report(&mut self, node: &Node, position: usize, source: Option<Source>, what: Unbuildable) {
        let problem = self.problem(node, position, source, what);
        self.problems.push(problem);
    }

    /// A leaf parameter that does not match its declaration: in
    /// compatibility mode a warning, the node keeping `kept` (`true`);
    /// else a problem (`false`).
    fn mismatch(
        &mut self,
        node: &Node,
        position: usize,
        source: Option<Source>,
        what: Unbuildable,
        kept: Kept,
    ) -> bool {
        if !self.compat {
            self.report(node, position, source, what);
            return false;
        }
        let problem = self.problem(node, position, source, what);
        self.warnings.push(CompatWarning { problem, kept });
        true
    }

    fn fatal(&mut self, node: &Node, position: usize, what: Unbuildable) -> Fatal {
        self.report(node, position, None, what);
        Fatal
    }

    /// The identity of a node given none: its pre-order position, unless
    /// another node claims that explicitly; then a fresh one past every
    /// position (and past every explicit identity).
    fn default_id(&mut self, position: u32) -> NodeId {
        if !self.explicit.contains(&NodeId(position)) {
            return NodeId(position);
        }
        while self.explicit.contains(&NodeId(self.next_default)) {
            self.next_default += 1;
        }
        let id = NodeId(self.next_default);
        self.next_default += 1;
        id
    }

    fn emit(&mut self, node: &'t Node, position: usize) -> Result<(), Fatal> {
        let index = self.parts.items.len();
        let max_items = self.limits.max_items.min(MAX_ITEMS);
        if index >= max_items {
            return Err(self.fatal(node, position, Unbuildable::TooManyItems { max: max_items }));
        }
        let id = match node.id {
            Some(id) => id,
            None => self.default_id(index as u32),
        };
        if !self.ids.insert(id) {
            self.report(node, position, None, Unbuildable::DuplicateId { id });
        }
        self.parts.nodes.push(NodeInfo {
            name: node.label().into(),
            id,
            source: node.source,
        });
        // Items are emitted in order, so the log table stays sorted.
        if !node.logs.is_empty() {
            self.parts.logs.push(NodeLogs {
                node: index as u32,
                messages: node.logs.clone(),
            });
        }
        match &node.what {
            What::Leaf { leaf, .. } if self.catalog.leaf(leaf).is_some_and(|s| s.scope) => {
                let params = self.scope_params(node, position, leaf)?;
                self.open(node, position, Kind::Scope, params)?;
            }
            What::Decider { kind, .. } => {
                // Under stored-state evaluation, composites keep their place.
                let kind = if self.stored > 0 {
                    kind.stored()
                } else {
                    *kind
                };
                self.check_monitored(node, position, kind);
                let params = match kind.layout() {
                    Layout::Configured if kind == Kind::Scope => {
                        self.report(node, position, None, Unbuildable::BareScope);
                        ParamRange::default()
                    }
                    Layout::Configured => self.kind_params(node, position, kind)?,
                    _ => {
                        if !node.params.is_empty() {
                            let count = node.params.len();
                            let what = Unbuildable::ParamsOnDecider { count };
                            self.report(node, position, None, what);
                        }
                        ParamRange::default()
                    }
                };
                self.open(node, position, kind, params)?;
            }
            What::Leaf { leaf, expect } => {
                let item = self.leaf(node, position, leaf, *expect)?;
                if let Some(kind) = item.and_then(ShapeItem::kind) {
                    self.check_monitored(node, position, kind);
                }
                self.parts
                    .items
                    .push(item.unwrap_or(ShapeItem::from_bits(0)));
            }
        }
        Ok(())
    }

    /// Reports a node of `kind` that can keep running, or a nested monitor,
    /// inside a monitor.
    fn check_monitored(&mut self, node: &Node, position: usize, kind: Kind) {
        if self.monitors > 0 && !kind.fits_in_monitor() {
            self.report(node, position, None, Unbuildable::RunsInMonitor { kind });
        }
        if let Some(rule) = kind.misplaced_in(self.stack.last().map(|f| f.kind)) {
            self.report(node, position, None, Unbuildable::Misplaced { kind, rule });
        }
    }

    /// The kind a child description compiles to, if known.
    fn kind_of(&self, node: &Node) -> Option<Kind> {
        match &node.what {
            What::Decider { kind, .. } => Some(*kind),
            What::Leaf { leaf, .. } => self
                .catalog
                .leaf(leaf)
                .map(|s| if s.scope { Kind::Scope } else { s.kind }),
        }
    }

    /// Checks the children of a Spore `Group` or `Decider` (see
    /// [`Kind::misplaced_children`]), and that a delegating decider's child
    /// is a group.
    fn check_spore_children(&mut self, frame: &Frame<'t>) {
        let Some(kinds) = frame
            .node
            .children
            .iter()
            .map(|c| self.kind_of(c))
            .collect::<Option<Vec<Kind>>>()
        else {
            return;
        };
        let kind = frame.kind;
        let mut rule = kind.misplaced_children(&kinds);
        let delegates = kind == Kind::Decider
            && self
                .parts
                .params
                .get(frame.params.range())
                .and_then(|words| words.get(decider_param::DELEGATE))
                .is_some_and(|&w| w != 0);
        if rule.is_none() && delegates && kinds.last() != Some(&Kind::Group) {
            rule = Some("a Decider that delegates its Decide needs a Group to run");
        }
        if let Some(rule) = rule {
            let what = Unbuildable::Misplaced { kind, rule };
            self.report(frame.node, frame.position, None, what);
        }
    }

    /// Opens the sub-stream of a decider or configured node, after checking
    /// its number of children.
    fn open(
        &mut self,
        node: &'t Node,
        position: usize,
        kind: Kind,
        params: ParamRange,
    ) -> Result<(), Fatal> {
        let index = self.parts.items.len();
        {
            let (min, max) = kind.children();
            let count = node.children.len();
            if count < min as usize || count > max as usize {
                let what = Unbuildable::ChildCount {
                    kind,
                    count,
                    min,
                    max,
                };
                self.report(node, position, None, what);
            }
            if self.stack.len() as u32 >= self.limits.max_depth {
                let max = self.limits.max_depth;
                return Err(self.fatal(node, position, Unbuildable::TooDeep { max }));
            }
            // A placeholder until the sub-stream closes and its end is known.
            self.parts.items.push(ShapeItem::from_bits(0));
            self.stored += u32::from(kind == Kind::StoredState);
            self.monitors += u32::from(kind == Kind::Monitor);
            self.stack.push(Frame {
                node,
                kind,
                item: index as u32,
                position,
                next_child: 0,
                params,
            });
        }
        Ok(())
    }

    /// Encodes a configured kind's parameters (see [`Kind::params`]).
    /// Scripts are compiled into the shape's script table, and their words
    /// are their indices there.
    fn kind_params(
        &mut self,
        node: &Node,
        position: usize,
        kind: Kind,
    ) -> Result<ParamRange, Fatal> {
        let mut schema = LeafSchema::action();
        let timestamps: Vec<Box<str>> = self
            .parts
            .timestamps
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let stimuli: Vec<Box<str>> = self.parts.stimuli.iter().map(|s| s.name.clone()).collect();
        for p in kind.params() {
            let ty = p.ty.written_as(&self.parts.events, &timestamps, &stimuli);
            let spec = ParamSpec::new(p.name, ty);
            schema.params.push(match (p.default, p.ty) {
                (Some(d), KindParamType::Flag) => spec.default(ParamValue::Bool(d != 0)),
                (Some(d), KindParamType::Duration) => spec.default(ParamValue::Duration(d as f64)),
                (Some(d), KindParamType::Policy) => match POLICIES.get(d as usize) {
                    Some(&policy) => spec.default(ParamValue::Str(policy.into())),
                    None => spec.default(ParamValue::Int(d)),
                },
                // A script's default is none: the empty text, which the
                // loop below makes `NO_SCRIPT`.
                (Some(_), KindParamType::Script) => spec.default(ParamValue::Str("".into())),
                (Some(d), _) => spec.default(ParamValue::Int(d)),
                (None, _) => spec,
            });
        }
        let strings = self.parts.strings.len();
        const BUILT_IN: &str = "a built-in node's parameters read blackboard fields and literals";
        let entries = Some(BUILT_IN);
        let Some((mut words, constants)) =
            self.params(node, position, kind.name(), &schema, entries)
        else {
            return Ok(ParamRange::default());
        };
        // Scripts are a configured kind's only strings: their sources are
        // kept in the script table, not twice. Out of the string table
        // before they compile, which may add their string literals to it.
        let sources = self.parts.strings.split_off(strings);
        for (slot, (p, word)) in kind.params().iter().zip(&mut words).enumerate() {
            if !p.ty.is_script() {
                continue;
            }
            // `encode` gave a script's word as the index of the string it
            // added.
            let Some(text) = (*word as usize)
                .checked_sub(strings)
                .and_then(|i| sources.get(i))
            else {
                continue;
            };
            if p.default.is_some() && text.trim().is_empty() {
                *word = crate::kinds::NO_SCRIPT;
                continue;
            }
            match self.script(kind, p.name, p.ty, text) {
                Ok(index) => *word = index,
                Err(what) => {
                    // Point into the script: its value starts after a quote.
                    let given = node.params.iter().filter(|q| q.name.is_none()).nth(slot);
                    let named = node
                        .params
                        .iter()
                        .find(|q| q.name.as_deref() == Some(p.name));
                    let source = given
                        .or(named)
                        .and_then(|q| q.source)
                        .map(|at| match &what {
                            Unbuildable::Script { error, .. } => Source {
                                column: at.column + 1 + error.offset as u32,
                                ..at
                            },
                            _ => at,
                        });
                    self.report(node, position, source, what);
                }
            }
        }
        // The counts whose range is the kind's: the first parameter of each.
        let first = words.first().copied().unwrap_or(0);
        let problem = match kind {
            Kind::Gate if first == 0 => Some(Mismatch::Zero {
                why: "would admit no agent",
            }),
            Kind::Team if !(2..=u64::from(MAX_TEAM_SIZE)).contains(&first) => {
                Some(Mismatch::Range {
                    found: first,
                    min: 2,
                    max: MAX_TEAM_SIZE,
                    what: "a team size",
                })
            }
            Kind::ParallelAll if first > node.children.len() as u64 => Some(Mismatch::Range {
                found: first,
                min: 0,
                max: u32::try_from(node.children.len()).unwrap_or(u32::MAX),
                what: "a number of its children",
            }),
            Kind::Sync if !(1..=u64::from(MAX_SYNC_POINT)).contains(&first) => {
                Some(Mismatch::Range {
                    found: first,
                    min: 1,
                    max: MAX_SYNC_POINT,
                    what: "a sync point",
                })
            }
            _ => None,
        };
        if let (Some(problem), Some(param)) = (problem, kind.params().first()) {
            let given = node.params.iter().find(|q| q.name.is_none());
            let named = node
                .params
                .iter()
                .find(|q| q.name.as_deref() == Some(param.name));
            let what = Unbuildable::BadParam {
                leaf: kind.name().into(),
                name: param.name.into(),
                problem,
            };
            self.report(node, position, given.or(named).and_then(|q| q.source), what);
            return Ok(ParamRange::default());
        }
        self.append_params(node, position, &words, &constants)
    }

    /// Resolves the tree's declarations into the shape's tables.
    fn declare(&mut self, declarations: &'t Declarations) {
        let mut problems = Vec::new();
        let mut variables: HashMap<&str, u32> = HashMap::new();
        for v in &declarations.variables {
            let index = variables.len() as u32;
            if let Some(what) = past_the_limit(&variables, "variable", &v.name) {
                problems.push((v.source, what));
                break;
            }
            if *variables.entry(&v.name).or_insert(index) != index {
                problems.push((
                    v.source,
                    Unbuildable::DeclaredTwice {
                        what: "variable",
                        name: v.name.clone(),
                    },
                ));
                continue;
            }
            self.script_names
                .insert(v.name.clone(), script::Name::Variable { index });
            self.parts.variables.push(Variable {
                name: v.name.clone(),
                initial: v.initial,
            });
        }
        let events = &self.parts.events;
        let event = |name: &str| -> Result<u32, Unbuildable> {
            events
                .iter()
                .position(|e| **e == *name)
                .map(|i| i as u32)
                .ok_or_else(|| Unbuildable::Undeclared {
                    what: "event",
                    name: name.into(),
                    suggestion: suggest(name, events.iter().map(|e| &**e)).map(Box::from),
                })
        };
        let declared = |what, table: &HashMap<&str, u32>, name: &str| -> Result<u32, Unbuildable> {
            table
                .get(name)
                .copied()
                .ok_or_else(|| Unbuildable::Undeclared {
                    what,
                    name: name.into(),
                    suggestion: suggest(name, table.keys().copied()).map(Box::from),
                })
        };
        for sig in &declarations.signals {
            match (
                event(&sig.event),
                declared("variable", &variables, &sig.variable),
            ) {
                (Ok(event), Ok(variable)) => self.parts.signals.push(Signal {
                    event,
                    variable,
                    value: sig.value,
                }),
                (Err(what), _) | (_, Err(what)) => problems.push((sig.source, what)),
            }
        }
        let mut timestamps: HashMap<&str, u32> = HashMap::new();
        let mut stamps: Vec<Timestamp> = Vec::new();
        for t in &declarations.timestamps {
            let index = timestamps.len() as u32;
            if let Some(what) = past_the_limit(&timestamps, "timestamp", &t.name) {
                problems.push((t.source, what));
                break;
            }
            if *timestamps.entry(&t.name).or_insert(index) != index {
                let what = Unbuildable::DeclaredTwice {
                    what: "timestamp",
                    name: t.name.clone(),
                };
                problems.push((t.source, what));
                continue;
            }
            let event = match event(&t.event) {
                Ok(e) => e,
                Err(what) => {
                    problems.push((t.source, what));
                    0
                }
            };
            stamps.push(Timestamp {
                name: t.name.clone(),
                event,
                exclusive: None,
            });
        }
        // Exclusion goes both ways, whichever side declares it.
        for t in &declarations.timestamps {
            let Some(other) = &t.exclusive_to else {
                continue;
            };
            // Every declared name is in the map (a repeat keeps the first).
            let (a, b) = match (
                declared("timestamp", &timestamps, &t.name),
                declared("timestamp", &timestamps, other),
            ) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(what), _) | (_, Err(what)) => {
                    problems.push((t.source, what));
                    continue;
                }
            };
            // Two timestamps (not one twice), not exclusive to others.
            match stamps.get_disjoint_mut([a as usize, b as usize]) {
                Ok([ta, tb])
                    if ta.exclusive.is_none_or(|x| x == b)
                        && tb.exclusive.is_none_or(|x| x == a) =>
                {
                    ta.exclusive = Some(b);
                    tb.exclusive = Some(a);
                }
                _ => problems.push((
                    t.source,
                    Unbuildable::Exclusive {
                        name: t.name.clone(),
                        other: other.clone(),
                    },
                )),
            }
        }
        self.parts.timestamps = stamps;
        let mut stimuli: HashSet<&str> = HashSet::new();
        for d in &declarations.stimuli {
            if !stimuli.insert(&*d.name) {
                let what = Unbuildable::DeclaredTwice {
                    what: "stimulus",
                    name: d.name.clone(),
                };
                problems.push((d.source, what));
                continue;
            }
            // Kept past the limit, so that nodes naming it are not
            // reported too.
            if stimuli.len() > MAX_STIMULI {
                let what = Unbuildable::TooManyStimuli {
                    name: d.name.clone(),
                    max: MAX_STIMULI,
                };
                problems.push((d.source, what));
            }
            // Kept as f32: a finite f64 past f32's range would not stay
            // finite.
            let mut seconds = d.seconds as f32;
            if !(d.seconds >= 0.0 && seconds.is_finite()) {
                let what = Unbuildable::StimulusSeconds {
                    name: d.name.clone(),
                    seconds: d.seconds,
                };
                problems.push((d.source, what));
                seconds = 0.0;
            }
            self.parts.stimuli.push(Stimulus {
                name: d.name.clone(),
                seconds,
            });
        }
        for (source, what) in problems {
            self.problems.push(BuildProblem {
                path: String::from("<declarations>"),
                node_type: "".into(),
                source,
                what,
            });
        }
    }

    /// A scope's words: its hook's action import, then the hook's parameters.
    fn scope_params(
        &mut self,
        node: &Node,
        position: usize,
        name: &str,
    ) -> Result<ParamRange, Fatal> {
        let catalog = self.catalog;
        let Some(schema) = catalog.leaf(name) else {
            unreachable!("checked to be a scope");
        };
        // A scope's hooks are called in the agent's tick: they may read
        // entries.
        let Some((words, constants)) = self.params(node, position, name, schema, None) else {
            return Ok(ParamRange::default());
        };
        let import = self.import(node, position, name, schema)?;
        let mut all = Vec::with_capacity(words.len() + 1);
        all.push(u64::from(import));
        all.extend_from_slice(&words);
        let constants: Vec<(usize, u64)> = constants.iter().map(|&(s, v)| (s + 1, v)).collect();
        self.append_params(node, position, &all, &constants)
    }

    /// Closes the innermost open decider: its end is now known.
    /// (A concurrent with a wrong number of children has been reported;
    /// its policy is not checked against that number too.)
    fn close(&mut self) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let node = frame.node;
        let kind = frame.kind;
        let end = self.parts.items.len() as u32;
        self.stored -= u32::from(kind == Kind::StoredState);
        self.monitors -= u32::from(kind == Kind::Monitor);
        if matches!(kind, Kind::Group | Kind::Decider) {
            self.check_spore_children(&frame);
        }
        if kind.layout() == Layout::Configured {
            self.fill(&frame, ShapeItem::configured(kind, end, frame.params));
            return;
        }
        let What::Decider { policy, .. } = node.what else {
            unreachable!("only deciders and configured nodes are opened");
        };
        let (a, b) = match kind {
            Kind::Sequence | Kind::Selector => {
                let repeat =
                    |c: &Node| matches!(c.what, What::Decider { kind, .. } if kind == Kind::Repeat);
                (u16::from(node.children.iter().any(repeat)), 0)
            }
            Kind::Concurrent if node.children.is_empty() => (0, 0),
            Kind::Concurrent => match thresholds(policy, node.children.len()) {
                Ok(ab) => ab,
                Err(what) => {
                    self.report(node, frame.position, None, what);
                    (0, 0)
                }
            },
            _ => (0, 0),
        };
        self.fill(&frame, ShapeItem::decider(kind, end, a, b));
    }

    /// Puts `item` in place of the placeholder `frame` was opened with.
    // In range: `frame.item` is where `emit` pushed the placeholder, and
    // items are never removed.
    #[allow(clippy::indexing_slicing)]
    fn fill(&mut self, frame: &Frame, item: ShapeItem) {
        self.parts.items[frame.item as usize] = item;
    }
}

/// Resolves a concurrent policy into the item's `succeed_at` and `fail_at`:
/// counts, with `fail_at` lowered to the point where success is out of reach.
fn thresholds(policy: Policy, children: usize) -> Result<(u16, u16), Unbuildable> {
    let n = children as u32;
    let resolve = |count: Count, field| match count {
        Count::All => Ok(n),
        Count::AtLeast(m) if m >= 1 && u32::from(m) <= n => Ok(u32::from(m)),
        Count::AtLeast(m) => Err(Unbuildable::Threshold {
            field,
            value: m,
            children,
        }),
    };
    let succeed = resolve(policy.succeed, "succeed")?;
    let fail = resolve(policy.fail, "fail")?.min(n - succeed + 1);
    Ok((succeed as u16, fail as u16))
}

/// The node's type for messages: its kind, or its leaf name.
fn node_type(node: &Node) -> &str {
    match &node.what {
        What::Decider { kind, .. } => kind.name(),
        What::Leaf { leaf, .. } => leaf,
    }
}

/// The identities a tree gives explicitly, and its number of nodes (walked
/// without recursion).
fn explicit_ids(tree: &Node) -> (HashSet<NodeId>, u32) {
    let mut ids = HashSet::new();
    let mut size = 0u32;
    let mut stack = vec![tree];
    while let Some(node) = stack.pop() {
        size = size.saturating_add(1);
        ids.extend(node.id);
        stack.extend(&node.children);
    }
    (ids, size)
}

fn push_segment(path: &mut String, node: &Node, position: Option<usize>) {
    if !path.is_empty() {
        path.push('/');
    }
    path.push_str(node.label());
    if let Some(p) = position {
        path.push_str(&format!("[{p}]"));
    }
}

/// The problem of declaring `name`, a new `what` (`"variable"`), when
/// `table` already holds as many as a shape does ([`MAX_DECLARED`]).
fn past_the_limit(
    table: &HashMap<&str, u32>,
    what: &'static str,
    name: &str,
) -> Option<Unbuildable> {
    (table.len() == MAX_DECLARED && !table.contains_key(name)).then(|| {
        Unbuildable::TooManyDeclared {
            what,
            name: name.into(),
            max: MAX_DECLARED,
        }
    })
}
