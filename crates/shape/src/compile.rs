//! The compiler: a tree description becomes a validated shape.
//!
//! Nodes are emitted in pre-order; a decider's item is written when its
//! sub-stream closes, once its end is known. Leaf names are resolved against
//! a [`LeafCatalog`] into per-kind import tables, parameters are appended to
//! the shape's parameter table, and the result goes through the same
//! validator as any other input. The walk uses an explicit stack, so a deep
//! description cannot overflow the call stack.

use crate::catalog::{LeafCatalog, suggest};
use crate::error::ValidationError;
use crate::ids::NodeId;
use crate::item::{
    FLAG_PERSISTENT, MAX_ITEMS, MAX_LEAF_PARAMS, MAX_PARAM_WORDS, ParamRange, ShapeItem,
};
use crate::kinds::{Kind, LEAF_KINDS};
use crate::shape::{Import, Limits, NodeInfo, Shape, ShapeParts};
use crate::tree::{Count, Expect, Node, Policy, What};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// What is wrong with a tree description that cannot be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unbuildable {
    /// No leaf is registered under the name.
    UnknownLeaf {
        /// The name used.
        name: Box<str>,
        /// A registered name close to it.
        suggestion: Option<Box<str>>,
    },
    /// The leaf is registered, but as another kind than the reference expects.
    WrongLeafKind {
        /// The name used.
        name: Box<str>,
        /// What the reference expects ("a condition", "an action").
        expected: &'static str,
        /// What is registered.
        found: Kind,
    },
    /// The leaf is given a different number of parameters than it declares.
    Arity {
        /// The leaf's name.
        name: Box<str>,
        /// Declared parameter words.
        expected: u8,
        /// Parameter words given.
        found: usize,
    },
    /// A leaf reference has an empty name.
    EmptyLeafName,
    /// A decider was given parameters.
    ParamsOnDecider {
        /// How many.
        count: usize,
    },
    /// A leaf was given children.
    ChildrenOnLeaf {
        /// How many.
        count: usize,
    },
    /// A decider has too few or too many children.
    ChildCount {
        /// The decider's kind.
        kind: Kind,
        /// Its children.
        count: usize,
        /// Fewest allowed.
        min: u32,
        /// Most allowed.
        max: u32,
    },
    /// A concurrent policy asks for more children than there are, or none.
    Threshold {
        /// "succeed" or "fail".
        field: &'static str,
        /// The count asked for.
        value: u16,
        /// The children there are.
        children: usize,
    },
    /// Deciders nest deeper than the limit.
    TooDeep {
        /// The limit.
        max: u32,
    },
    /// The tree has more nodes than one shape may hold.
    TooManyItems {
        /// The limit.
        max: usize,
    },
    /// The tree's parameters exceed the parameter table's limit.
    TooManyParams {
        /// The limit.
        max: usize,
    },
    /// More distinct leaves of one kind than an import table can index.
    TooManyImports {
        /// The leaf kind.
        kind: Kind,
    },
    /// Two nodes have the same stable identity.
    DuplicateId {
        /// The identity.
        id: NodeId,
    },
    /// The compiled parts failed validation (a compiler bug if it happens).
    Invalid(ValidationError),
}

impl fmt::Display for Unbuildable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unbuildable::UnknownLeaf { name, suggestion } => {
                write!(f, "no leaf is registered as `{name}`")?;
                match suggestion {
                    Some(s) => write!(f, "; did you mean `{s}`?"),
                    None => write!(f, "; register it in the leaf table before compiling"),
                }
            }
            Unbuildable::WrongLeafKind {
                name,
                expected,
                found,
            } => write!(
                f,
                "`{name}` is registered as a {found}, but is used as {expected}"
            ),
            Unbuildable::Arity {
                name,
                expected,
                found,
            } => write!(
                f,
                "leaf `{name}` takes {expected} parameters but is given {found}"
            ),
            Unbuildable::EmptyLeafName => write!(f, "a leaf needs the name it is registered under"),
            Unbuildable::ParamsOnDecider { count } => {
                write!(f, "deciders take no parameters, but {count} were given")
            }
            Unbuildable::ChildrenOnLeaf { count } => {
                write!(f, "leaves have no children, but {count} were given")
            }
            Unbuildable::ChildCount {
                kind,
                count,
                min,
                max,
            } => write!(
                f,
                "a {kind} needs between {min} and {max} children, but has {count}"
            ),
            Unbuildable::Threshold {
                field,
                value,
                children,
            } => write!(
                f,
                "the policy needs {value} children to {field}, but the concurrent has {children}"
            ),
            Unbuildable::TooDeep { max } => {
                write!(f, "deciders nest deeper than the limit of {max}")
            }
            Unbuildable::TooManyItems { max } => {
                write!(f, "the tree has more than {max} nodes")
            }
            Unbuildable::TooManyParams { max } => {
                write!(f, "the tree has more than {max} parameter words")
            }
            Unbuildable::TooManyImports { kind } => {
                write!(f, "more than 65536 distinct {kind} leaves")
            }
            Unbuildable::DuplicateId { id } => {
                write!(f, "{id} is given to two nodes; identities must be unique")
            }
            Unbuildable::Invalid(e) => write!(f, "compiled shape is invalid: {e}"),
        }
    }
}

/// A tree description that failed to compile: what is wrong, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    path: String,
    what: Unbuildable,
}

impl BuildError {
    /// The node's path from the root, e.g. `PrioritySelector/eat[1]/FindFood[1]`:
    /// each segment is a node's name (or leaf name, or kind) and its position
    /// among its siblings.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong.
    pub fn what(&self) -> &Unbuildable {
        &self.what
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.what)
    }
}

impl std::error::Error for BuildError {}

/// Compiles a tree description with the default [`Limits`].
pub fn compile(tree: &Node, catalog: &dyn LeafCatalog) -> Result<Shape, BuildError> {
    compile_with(tree, catalog, &Limits::default())
}

/// A decider whose sub-stream is being emitted.
struct Frame<'t> {
    node: &'t Node,
    item: u32,
    position: usize,
    next_child: usize,
}

/// Compiles a tree description, enforcing `limits`.
pub fn compile_with(
    tree: &Node,
    catalog: &dyn LeafCatalog,
    limits: &Limits,
) -> Result<Shape, BuildError> {
    let (explicit, size) = explicit_ids(tree);
    let mut c = Compiler {
        catalog,
        limits,
        parts: ShapeParts::default(),
        import_index: Default::default(),
        ids: HashSet::new(),
        explicit,
        next_default: size,
        stack: Vec::new(),
    };
    c.emit(tree, 0)?;
    while let Some(top) = c.stack.last_mut() {
        let node = top.node;
        if let Some(child) = node.children.get(top.next_child) {
            let position = top.next_child;
            top.next_child += 1;
            c.emit(child, position)?;
        } else {
            c.close()?;
        }
    }
    let nodes = std::mem::take(&mut c.parts.nodes);
    let parts = ShapeParts { nodes, ..c.parts };
    parts.validate_with(limits).map_err(|e| BuildError {
        path: String::from("<shape>"),
        what: Unbuildable::Invalid(e),
    })
}

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

    fn fail(&self, node: &Node, position: usize, what: Unbuildable) -> BuildError {
        let position = (!self.stack.is_empty()).then_some(position);
        BuildError {
            path: self.path(node, position),
            what,
        }
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

    fn emit(&mut self, node: &'t Node, position: usize) -> Result<(), BuildError> {
        let index = self.parts.items.len();
        if index >= self.limits.max_items.min(MAX_ITEMS) {
            return Err(self.fail(
                node,
                position,
                Unbuildable::TooManyItems {
                    max: self.limits.max_items.min(MAX_ITEMS),
                },
            ));
        }
        let id = match node.id {
            Some(id) => id,
            None => self.default_id(index as u32),
        };
        if !self.ids.insert(id) {
            return Err(self.fail(node, position, Unbuildable::DuplicateId { id }));
        }
        self.parts.nodes.push(NodeInfo {
            name: node.label().into(),
            id,
        });
        match &node.what {
            What::Decider { kind, .. } => {
                let kind = *kind;
                if !node.params.is_empty() {
                    let count = node.params.len();
                    return Err(self.fail(node, position, Unbuildable::ParamsOnDecider { count }));
                }
                let (min, max) = kind.children();
                let count = node.children.len();
                if count < min as usize || count > max as usize {
                    return Err(self.fail(
                        node,
                        position,
                        Unbuildable::ChildCount {
                            kind,
                            count,
                            min,
                            max,
                        },
                    ));
                }
                if self.stack.len() as u32 >= self.limits.max_depth {
                    let max = self.limits.max_depth;
                    return Err(self.fail(node, position, Unbuildable::TooDeep { max }));
                }
                // A placeholder until the sub-stream closes and its end is known.
                self.parts.items.push(ShapeItem::from_bits(0));
                self.stack.push(Frame {
                    node,
                    item: index as u32,
                    position,
                    next_child: 0,
                });
            }
            What::Leaf { leaf, expect } => {
                let item = self.leaf(node, position, leaf, *expect)?;
                self.parts.items.push(item);
            }
        }
        Ok(())
    }

    fn leaf(
        &mut self,
        node: &Node,
        position: usize,
        name: &str,
        expect: Expect,
    ) -> Result<ShapeItem, BuildError> {
        let fail = |what| Err(self.fail(node, position, what));
        if !node.children.is_empty() {
            return fail(Unbuildable::ChildrenOnLeaf {
                count: node.children.len(),
            });
        }
        if name.is_empty() {
            return fail(Unbuildable::EmptyLeafName);
        }
        let Some(decl) = self.catalog.decl(name) else {
            let names = self.catalog.names();
            let suggestion = suggest(name, names).map(Box::from);
            return fail(Unbuildable::UnknownLeaf {
                name: name.into(),
                suggestion,
            });
        };
        let expected = match (expect, decl.kind) {
            (_, kind) if !kind.is_leaf() => Some("a leaf"),
            (Expect::Any, _)
            | (Expect::Condition, Kind::Condition)
            | (Expect::Action, Kind::Action | Kind::Deferred) => None,
            (Expect::Condition, _) => Some("a condition"),
            (Expect::Action, _) => Some("an action"),
        };
        if let Some(expected) = expected {
            return fail(Unbuildable::WrongLeafKind {
                name: name.into(),
                expected,
                found: decl.kind,
            });
        }
        if node.params.len() != decl.arity as usize || node.params.len() > MAX_LEAF_PARAMS {
            return fail(Unbuildable::Arity {
                name: name.into(),
                expected: decl.arity,
                found: node.params.len(),
            });
        }
        let Some(slot) = decl.kind.leaf_slot() else {
            unreachable!("catalogs declare leaf kinds only");
        };
        let import = match self.import_index[slot].get(name) {
            Some(&i) => i,
            None => {
                let table = &mut self.parts.imports[slot];
                let Ok(i) = u16::try_from(table.len()) else {
                    let what = Unbuildable::TooManyImports { kind: decl.kind };
                    return Err(self.fail(node, position, what));
                };
                table.push(Import {
                    name: name.into(),
                    arity: decl.arity,
                    persistent: decl.persistent,
                });
                self.import_index[slot].insert(name.into(), i);
                i
            }
        };
        let offset = self.parts.params.len();
        let max_params = self.limits.max_params.min(MAX_PARAM_WORDS);
        if offset + node.params.len() > max_params {
            let what = Unbuildable::TooManyParams { max: max_params };
            return Err(self.fail(node, position, what));
        }
        self.parts.params.extend_from_slice(&node.params);
        let flags = if decl.persistent { FLAG_PERSISTENT } else { 0 };
        let params = ParamRange {
            offset: offset as u32,
            len: decl.arity,
        };
        Ok(ShapeItem::leaf(decl.kind, flags, import, params))
    }

    /// Closes the innermost open decider: its end is now known.
    fn close(&mut self) -> Result<(), BuildError> {
        let Some(frame) = self.stack.last() else {
            return Ok(());
        };
        let node = frame.node;
        let What::Decider { kind, policy } = node.what else {
            unreachable!("only deciders are opened");
        };
        let (a, b) = match kind {
            Kind::Concurrent => match thresholds(policy, node.children.len()) {
                Ok(ab) => ab,
                Err(what) => {
                    let frame = self.stack.pop();
                    let position = frame.map_or(0, |f| f.position);
                    return Err(self.fail(node, position, what));
                }
            },
            _ => (0, 0),
        };
        let end = self.parts.items.len() as u32;
        self.parts.items[frame.item as usize] = ShapeItem::decider(kind, end, a, b);
        self.stack.pop();
        Ok(())
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
