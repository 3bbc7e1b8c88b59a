//! The shape: a validated stream of shape items and the tables beside it.

use crate::capacity::CapacitySpec;
use crate::declare::{Script, Signal, Stimulus, Timestamp, Variable};
use crate::error::ValidationError;
use crate::ids::{ActionId, NodeId, NodeIdx};
use crate::item::{MAX_ITEMS, MAX_PARAM_WORDS, ShapeItem};
use crate::kinds::{Kind, LEAF_KINDS, Layout};
use crate::logs::{LogMessages, NodeLogs};
use crate::params::{Encoded, FieldDecl, ParamType};
use crate::script::{Entry, ScriptType};
use crate::source::Source;

/// A leaf the shape refers to by name, resolved against the application's
/// leaf table when the shape is linked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Import {
    /// The registered name.
    pub name: Box<str>,
    /// Its parameters, in order: one word each in every use.
    pub params: Vec<ImportParam>,
    /// Whether each use owns a persistent state slot.
    pub persistent: bool,
    /// The words of each use's memory block (0: none; at most
    /// [`crate::MAX_MEMORY_WORDS`]): an immediate action's working memory,
    /// reset when it starts, or a Decide's decider block, reset when its
    /// decider is asked. Kept in persistent slots, after the persistent
    /// slot if the import has one.
    pub memory: u8,
    /// Whether the import is a scope's hooks (an action used only as the
    /// `hook` of [`Kind::Scope`] nodes), not a leaf.
    pub scope: bool,
}

impl Import {
    /// Parameter words every use supplies.
    pub fn arity(&self) -> usize {
        self.params.len()
    }

    /// The persistent slots each use owns: its persistent slot, then its
    /// memory block's words.
    pub fn slots(&self) -> usize {
        usize::from(self.persistent) + usize::from(self.memory)
    }
}

/// A parameter of an import, as the shape was compiled with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImportParam {
    /// The parameter's name.
    pub name: Box<str>,
    /// Its type.
    pub ty: ParamType,
    /// Its default, encoded as a node that leaves the parameter out gets
    /// it (an input's literal as [`Encoded::Constant`]), if the leaf's
    /// catalog gave one: drawings leave out parameters at their default.
    pub default: Option<Encoded>,
}

/// What the shape knows about a node beside the stream: never read by a tick.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeInfo {
    /// The node's name (its given name, else its leaf name or kind).
    pub name: Box<str>,
    /// The node's stable identity.
    pub id: NodeId,
    /// Where the node was written, if it came from a file.
    pub source: Option<Source>,
}

/// The parts of a shape before validation.
///
/// Anyone can assemble parts (the compiler, a byte decoder, a fuzzer); only
/// [`ShapeParts::validate`] turns them into a [`Shape`], the one type the
/// interpreter accepts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeParts {
    /// The depth-first item stream; item 0 is the root.
    pub items: Vec<ShapeItem>,
    /// The parameter table: leaves' parameter words.
    pub params: Vec<u64>,
    /// One import table per leaf kind, indexed by [`Kind::leaf_slot`].
    pub imports: [Vec<Import>; LEAF_KINDS],
    /// One entry per item: names and identities.
    pub nodes: Vec<NodeInfo>,
    /// The string table: what `Str` parameter words index.
    pub strings: Vec<Box<str>>,
    /// The file table: what [`Source::file`] indexes.
    pub files: Vec<Box<str>>,
    /// The blackboard fields the shape was compiled against: what field
    /// parameter words index.
    pub fields: Vec<FieldDecl>,
    /// The application's events the shape was compiled against: what event
    /// parameter words, signals and timestamps index.
    pub events: Vec<Box<str>>,
    /// The tree's variables: what scripts' variable operands index.
    pub variables: Vec<Variable>,
    /// The tree's entries, created by its scripts: what scripts' entry
    /// operands index.
    pub entries: Vec<Entry>,
    /// The tree's signals.
    pub signals: Vec<Signal>,
    /// The tree's timestamps: what timestamp parameter words index.
    pub timestamps: Vec<Timestamp>,
    /// The tree's stimuli: what stimulus parameter words index.
    pub stimuli: Vec<Stimulus>,
    /// The tree's scripts: what script parameter words index.
    pub scripts: Vec<Script>,
    /// The log table: the messages nodes log on start, success and
    /// failure, sorted by item, one entry per node that has any. Debug
    /// information like the node table: a tick never reads it.
    pub logs: Vec<NodeLogs>,
}

/// Caps the validator enforces, so that no input can make later stages use
/// unbounded memory or time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most items in one shape (at most [`MAX_ITEMS`]).
    pub max_items: usize,
    /// Most parameter words in one shape (at most [`MAX_PARAM_WORDS`]).
    pub max_params: usize,
    /// Deepest nesting of deciders.
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_items: MAX_ITEMS,
            max_params: MAX_PARAM_WORDS,
            max_depth: 1024,
        }
    }
}

impl ShapeParts {
    /// Validates the parts with the default [`Limits`].
    pub fn validate(self) -> Result<Shape, ValidationError> {
        self.validate_with(&Limits::default())
    }

    /// Validates the parts: known kinds, nested sub-streams within bounds,
    /// child counts, every import and parameter index in range, depth within
    /// the limits. On success the result carries its capacity specification
    /// and persistent-state map.
    pub fn validate_with(self, limits: &Limits) -> Result<Shape, ValidationError> {
        let facts = crate::validate::check(&self, limits)?;
        Ok(Shape {
            parts: self,
            persistent: facts.persistent.into_boxed_slice(),
            script_types: facts.script_types.into_boxed_slice(),
            implied: facts.implied.into_boxed_slice(),
            spec: facts.spec,
        })
    }
}

/// A validated shape: a tree compiled into a flat stream of 64-bit items,
/// shared by every agent that runs it.
///
/// The only ways to get one are [`ShapeParts::validate`] (which the compiler
/// and [`Shape::from_bytes`] go through), so code holding a `Shape` may rely
/// on its structure: sub-streams nest, indices are in range, the capacity
/// specification bounds every tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    parts: ShapeParts,
    persistent: Box<[NodeIdx]>,
    script_types: Box<[ScriptType]>,
    /// Per item, whether its resume is implied (see
    /// [`Shape::resume_implied`]).
    implied: Box<[bool]>,
    spec: CapacitySpec,
}

impl Shape {
    /// The item stream.
    #[inline]
    pub fn items(&self) -> &[ShapeItem] {
        &self.parts.items
    }

    /// Number of items.
    #[inline]
    pub fn len(&self) -> usize {
        self.parts.items.len()
    }

    /// Always false: a valid shape has at least a root.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The item at `node`.
    #[inline]
    pub fn item(&self, node: NodeIdx) -> ShapeItem {
        self.parts.items[node.index()]
    }

    /// The item's kind (valid shapes have only known kinds).
    #[inline]
    pub fn kind(&self, node: NodeIdx) -> Kind {
        match self.item(node).kind() {
            Some(kind) => kind,
            None => unreachable!("validated shapes hold only known kinds"),
        }
    }

    /// The whole parameter table.
    #[inline]
    pub fn param_table(&self) -> &[u64] {
        &self.parts.params
    }

    /// A leaf's or configured node's parameter words (empty for deciders).
    pub fn params(&self, node: NodeIdx) -> &[u64] {
        let item = self.item(node);
        match self.kind(node).layout() {
            Layout::Leaf | Layout::Configured => &self.parts.params[item.params().range()],
            Layout::Decider => &[],
        }
    }

    /// The import table of a leaf kind (empty for deciders).
    pub fn imports(&self, kind: Kind) -> &[Import] {
        match kind.leaf_slot() {
            Some(slot) => &self.parts.imports[slot],
            None => &[],
        }
    }

    /// The import a leaf refers to; for a scope, its hook's.
    pub fn import(&self, node: NodeIdx) -> Option<&Import> {
        let kind = self.kind(node);
        if kind == Kind::Scope {
            let hook = *self.params(node).first()?;
            return self.imports(Kind::Action).get(usize::try_from(hook).ok()?);
        }
        let slot = kind.leaf_slot()?;
        self.parts.imports[slot].get(self.item(node).import() as usize)
    }

    /// The deferred action registered under `name`, as requests name it.
    pub fn action_id(&self, name: &str) -> Option<ActionId> {
        self.imports(Kind::Deferred)
            .iter()
            .position(|i| &*i.name == name)
            .map(|i| ActionId(i as u16))
    }

    /// The node's name and identity.
    pub fn node(&self, node: NodeIdx) -> &NodeInfo {
        &self.parts.nodes[node.index()]
    }

    /// Every node's name and identity, by item.
    pub fn nodes(&self) -> &[NodeInfo] {
        &self.parts.nodes
    }

    /// The first node with the given name, in stream order.
    pub fn find(&self, name: &str) -> Option<NodeIdx> {
        self.parts
            .nodes
            .iter()
            .position(|n| &*n.name == name)
            .map(|i| NodeIdx::new(i as u32))
    }

    /// The node with the given stable identity.
    pub fn find_id(&self, id: NodeId) -> Option<NodeIdx> {
        self.parts
            .nodes
            .iter()
            .position(|n| n.id == id)
            .map(|i| NodeIdx::new(i as u32))
    }

    /// One past the last item of the node's sub-stream.
    #[inline]
    pub fn subtree_end(&self, node: NodeIdx) -> NodeIdx {
        let item = self.item(node);
        NodeIdx::new(match self.kind(node).layout() {
            Layout::Decider | Layout::Configured => item.end(),
            Layout::Leaf => node.get() + 1,
        })
    }

    /// Every node's path from the root, by item: node names joined by `/`,
    /// a name followed by `[i]` (its position among its siblings) only where
    /// a sibling has the same name, so paths are unique and short:
    /// `guard/fight/Shoot`, `guard/wander/Walk[0]`. Traces print these.
    pub fn paths(&self) -> Vec<String> {
        self.paths_by(|name, position, shared| {
            if shared {
                format!("{name}[{position}]")
            } else {
                name.to_owned()
            }
        })
    }

    /// Every node's path with every segment indexed
    /// (`guard/fight[0]/Shoot[1]`), as the compiler's errors print them.
    pub fn indexed_paths(&self) -> Vec<String> {
        self.paths_by(|name, position, _| format!("{name}[{position}]"))
    }

    /// Paths whose segment below the root `segment` makes from a node's
    /// name, its position and whether a sibling shares its name.
    fn paths_by(&self, segment: impl Fn(&str, usize, bool) -> String) -> Vec<String> {
        let mut paths = vec![String::new(); self.len()];
        if self.is_empty() {
            return paths;
        }
        paths[0] = self.node(NodeIdx::ROOT).name.to_string();
        for i in 0..self.len() as u32 {
            let node = NodeIdx::new(i);
            if !self.kind(node).is_decider() {
                continue;
            }
            let children: Vec<NodeIdx> = self.children(node).collect();
            for (position, &child) in children.iter().enumerate() {
                let name = &self.node(child).name;
                let shared = children
                    .iter()
                    .filter(|&&c| self.node(c).name == *name)
                    .count()
                    > 1;
                let part = segment(name, position, shared);
                paths[child.index()] = format!("{}/{part}", paths[i as usize]);
            }
        }
        paths
    }

    /// The direct children of a decider, in order.
    pub fn children(&self, node: NodeIdx) -> impl Iterator<Item = NodeIdx> + '_ {
        let end = self.subtree_end(node).get();
        let mut next = node.get() + 1;
        std::iter::from_fn(move || {
            (next < end).then(|| {
                let child = NodeIdx::new(next);
                next = self.subtree_end(child).get();
                child
            })
        })
    }

    /// The position of the child tree named `name` among the child trees
    /// of the `ChildTree` connector at `connector` (`None` if `connector`
    /// is not a connector or offers no tree of that name).
    pub fn child_tree(&self, connector: NodeIdx, name: &str) -> Option<u32> {
        if self.items().get(connector.index())?.kind() != Some(Kind::ChildTree) {
            return None;
        }
        self.children(connector)
            .position(|root| &*self.node(root).name == name)
            .map(|k| k as u32)
    }

    /// For every item, the item whose crowd state (a gate's count, a
    /// cool-down's time) it shares: the first item, in stream order, of the
    /// places that are one place of one child tree offered by several
    /// connectors (itself outside such copies; see the validator's rules
    /// for child trees).
    pub fn shared_nodes(&self) -> Vec<u32> {
        crate::child_trees::shared_nodes(self.items(), |root| {
            self.node(NodeIdx::new(root)).name.clone()
        })
    }

    /// Whether the `Sequence`, `Selector` or `IfThenElse` at `node`
    /// resumes where its running leaf lies instead of keeping a resume
    /// point: its whole sub-tree is of the kinds that
    /// [imply resume points](Kind::implies_resume), so the only action
    /// state in it is the running leaf's, and the child holding that state
    /// is where it resumes. Such deciders hold no state, and the capacity
    /// specification counts none for them. False for other kinds.
    pub fn resume_implied(&self, node: NodeIdx) -> bool {
        self.implied.get(node.index()).copied().unwrap_or(false)
    }

    /// The capacity specification: bounds on per-agent and per-tick state.
    #[inline]
    pub fn spec(&self) -> &CapacitySpec {
        &self.spec
    }

    /// The persistent-state map: the items owning persistent slots, in
    /// stream order; an actor's slot `i` belongs to item `map[i]`. An item
    /// owning several (a leaf with a memory block) appears once per slot,
    /// in a row.
    #[inline]
    pub fn persistent_map(&self) -> &[NodeIdx] {
        &self.persistent
    }

    /// The first persistent slot of a node that owns slots: a leaf's
    /// persistent slot, or its memory block's first word if it declares
    /// none (see [`Shape::memory_slots`]).
    #[inline]
    pub fn persistent_slot(&self, node: NodeIdx) -> Option<usize> {
        let first = self.persistent.partition_point(|&n| n < node);
        (self.persistent.get(first) == Some(&node)).then_some(first)
    }

    /// Every persistent slot of `node`, in order (empty if it owns none).
    pub fn slots_of(&self, node: NodeIdx) -> std::ops::Range<usize> {
        let first = self.persistent.partition_point(|&n| n < node);
        first..self.persistent.partition_point(|&n| n <= node)
    }

    /// The slots of a leaf's memory block (see [`Import::memory`]), if it
    /// declares one.
    pub fn memory_slots(&self, node: NodeIdx) -> Option<std::ops::Range<usize>> {
        let import = self.import(node).filter(|i| i.memory > 0)?;
        let slots = self.slots_of(node);
        Some(slots.start + usize::from(import.persistent)..slots.end)
    }

    /// The string table, indexed by `Str` parameter words.
    #[inline]
    pub fn strings(&self) -> &[Box<str>] {
        &self.parts.strings
    }

    /// The file table, indexed by [`Source::file`].
    pub fn files(&self) -> &[Box<str>] {
        &self.parts.files
    }

    /// The blackboard fields field parameters refer to, by index.
    pub fn fields(&self) -> &[FieldDecl] {
        &self.parts.fields
    }

    /// The events the shape was compiled against, by index.
    pub fn events(&self) -> &[Box<str>] {
        &self.parts.events
    }

    /// The tree's variables, by index.
    pub fn variables(&self) -> &[Variable] {
        &self.parts.variables
    }

    /// The tree's entries (see [`Entry`]), by index.
    pub fn entries(&self) -> &[Entry] {
        &self.parts.entries
    }

    /// The tree's signals.
    pub fn signals(&self) -> &[Signal] {
        &self.parts.signals
    }

    /// The tree's timestamps, by index.
    pub fn timestamps(&self) -> &[Timestamp] {
        &self.parts.timestamps
    }

    /// The tree's stimuli, by index.
    pub fn stimuli(&self) -> &[Stimulus] {
        &self.parts.stimuli
    }

    /// The tree's scripts, by index.
    pub fn scripts(&self) -> &[Script] {
        &self.parts.scripts
    }

    /// The value type of each script, by index (the validator's finding).
    pub fn script_types(&self) -> &[ScriptType] {
        &self.script_types
    }

    /// The code of the script a parameter word of a script type names.
    #[inline]
    pub fn script(&self, word: u64) -> &[u64] {
        &self.parts.scripts[word as usize].words
    }

    /// The log table: every node that logs messages, by item.
    pub fn logs(&self) -> &[NodeLogs] {
        &self.parts.logs
    }

    /// The messages the node logs, if it logs any.
    pub fn logs_of(&self, node: NodeIdx) -> Option<&LogMessages> {
        let logs = &self.parts.logs;
        let at = logs.binary_search_by_key(&node.get(), |l| l.node).ok()?;
        Some(&logs[at].messages)
    }

    /// Where the node was written, as `file:line:column`, if known.
    pub fn location(&self, node: NodeIdx) -> Option<String> {
        let source = self.node(node).source?;
        let file = self
            .parts
            .files
            .get(source.file as usize)
            .map_or("?", |f| &**f);
        Some(format!("{file}:{}:{}", source.line, source.column))
    }

    /// The parts, for editing and validating again.
    pub fn into_parts(self) -> ShapeParts {
        self.parts
    }

    /// The parts, read-only.
    pub fn parts(&self) -> &ShapeParts {
        &self.parts
    }

    /// A 64-bit hash (FNV-1a) of everything a tick of the shape depends
    /// on: the item stream, the parameter table, the imports (names, typed
    /// parameters, slots), the strings, the blackboard fields, the events,
    /// the declarations and the scripts. Names of nodes, source locations
    /// and log messages are left out, so a tree file that moves a node or
    /// edits a comment keeps its hash. A compiled tree records the hash of
    /// the shape it was generated from, and linking checks it.
    pub fn behavior_hash(&self) -> u64 {
        struct Fnv(u64);
        impl std::fmt::Write for Fnv {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.bytes(s.as_bytes());
                Ok(())
            }
        }
        impl Fnv {
            fn bytes(&mut self, bytes: &[u8]) {
                for &b in bytes {
                    self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
                }
            }
            fn words(&mut self, words: impl IntoIterator<Item = u64>) {
                for w in words {
                    self.bytes(&w.to_le_bytes());
                }
                // A section's end, so that moving a word between sections
                // changes the hash.
                self.bytes(&[0xFF; 9]);
            }
        }
        use std::fmt::Write;
        let p = &self.parts;
        let mut h = Fnv(0xCBF2_9CE4_8422_2325);
        h.words(p.items.iter().map(|i| i.bits()));
        h.words(p.params.iter().copied());
        // Debug forms are exact and stable for a given build of this crate,
        // which is what generated code is compiled against.
        let _ = write!(
            h,
            "{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}{:?}",
            p.imports,
            p.strings,
            p.fields,
            p.events,
            p.variables,
            p.entries,
            p.signals,
            p.timestamps,
            p.stimuli,
            p.scripts
        );
        h.0
    }
}
