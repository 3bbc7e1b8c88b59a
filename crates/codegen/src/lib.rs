//! Compiled trees: a validated treebeard shape, turned into Rust.
//!
//! The interpreter walks a shape's item stream for every agent; this crate
//! writes, once, the Rust function that the walk amounts to for one tree:
//! one function per node, whose control flow is the tree's, whose leaf
//! calls are static calls into the application's [`leaf_set!`] (so the
//! compiler inlines them, with the tree's parameters as constants), and
//! whose running states are constant tables. The code runs on the
//! interpreter's actors through `treebeard_vm::compiled`, emits the same
//! requests in the same order and makes the same leaf calls, so a program
//! linked with it ([`Program::with_compiled`]) gives bit-identical results
//! and may switch engines between any two ticks.
//!
//! Generate from a build script (see [`build`]) or from the command line;
//! link the result:
//!
//! ```
//! use treebeard_codegen::Generator;
//! use treebeard_workload::{CrowdLeaves, tree};
//!
//! let leaves = CrowdLeaves::leaves();
//! let shape = treebeard_shape::compile(&tree(), &leaves)?;
//! let generated = Generator::new(&shape, &leaves)
//!     .name("crowd")
//!     .blackboard("treebeard_workload::Critter")
//!     .leaf_set("treebeard_workload::CrowdLeaves")
//!     .generate()?;
//! assert!(generated.is_compiled());
//! assert!(generated.source().contains("fn tick("));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A tree compiles in one of two [`Form`]s. A tree of the kinds that keep
//! to one running leaf ([`Kind::compiles`]: the static deciders, the
//! constant statuses, the leaves, waits, timeouts, cooldowns, loops, the
//! async sequences and the nodes of the agent's memory) compiles
//! *straight*: code with its own constant resume tables, at the
//! hand-written machine's speed. A tree with a node whose behaviour is data
//! at run time (a concurrent decider, a Spore group, a crowd's gate or
//! team, a child-tree connector, a scope, a monitor) compiles *hosted*: its
//! code walks the tree on the interpreter's tick, calls the leaves
//! directly, and has the interpreter's steps decide those nodes: around
//! their compiled children for the nodes that only guard them, whole for
//! the others ([`Generated::interpreted_nodes`] names them; a leaf the leaf
//! set does not declare is called through the program's table). Only a
//! tree the hosted walk cannot enter (none that validation admits today)
//! is generated as a `CompiledTree::interpreted` that says why, and runs on
//! the interpreter.
//!
//! [`leaf_set!`]: treebeard_vm::leaf_set!
//! [`Program::with_compiled`]: treebeard_vm::Program::with_compiled

pub mod build;
mod emit;

use std::collections::BTreeMap;
use std::fmt;
use treebeard_shape::{Catalog, Kind, NodeIdx, Shape};
use treebeard_vm::Leaves;

/// Writes the Rust code of one tree.
#[derive(Clone, Debug)]
pub struct Generator<'s> {
    shape: &'s Shape,
    /// Per leaf import name, the leaf set's function (when declared).
    rust_fns: BTreeMap<Box<str>, Box<str>>,
    name: String,
    blackboard: String,
    leaf_set: String,
    runtime: String,
    /// Whether to generate the hosted form even for a tree that compiles
    /// straight.
    hosted: bool,
}

/// How a tree's generated code runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Form {
    /// Straight code, with its own view of the actor and constant resume
    /// tables: for trees whose kinds keep to one running leaf
    /// ([`Kind::compiles`]).
    Straight,
    /// Code that walks the tree on the interpreter's tick, in place of its
    /// loop: the static deciders are Rust's control flow, the leaves are
    /// called directly, and the interpreter's steps decide the other nodes
    /// ([`Generated::interpreted_nodes`]).
    Hosted,
    /// No code for the tree: it runs on the interpreter
    /// ([`Generated::uncompiled`] says why).
    Interpreted,
}

/// A node that keeps its tree on the interpreter, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uncompiled {
    /// The node.
    pub node: NodeIdx,
    /// Its path in the tree (node names joined by `/`).
    pub path: String,
    /// Where it was written (`file:line:column`), if known.
    pub location: Option<String>,
    /// What keeps it from compiling.
    pub reason: String,
}

impl fmt::Display for Uncompiled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (item {}", self.path, self.node.get())?;
        if let Some(location) = &self.location {
            write!(f, ", {location}")?;
        }
        write!(f, "): {}", self.reason)
    }
}

/// The generated code of one tree.
#[derive(Clone, Debug)]
pub struct Generated {
    source: String,
    plan: Plan,
}

/// What the generator makes of a tree: its form, and the nodes that decide
/// it.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub(crate) form: Form,
    /// Why the tree runs on the interpreter (for [`Form::Interpreted`]).
    pub(crate) uncompiled: Vec<Uncompiled>,
    /// What the interpreter does for a hosted tree (for [`Form::Hosted`]).
    pub(crate) interpreted: Vec<Uncompiled>,
}

impl Generated {
    /// The Rust source: items to `include!` in a module of their own.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// How the generated code runs.
    pub fn form(&self) -> Form {
        self.plan.form
    }

    /// Whether the tree compiled, straight or hosted; otherwise its code
    /// links a tree that runs on the interpreter, for the reasons
    /// [`Generated::uncompiled`] lists.
    pub fn is_compiled(&self) -> bool {
        self.plan.form != Form::Interpreted
    }

    /// The nodes that keep the tree on the interpreter.
    pub fn uncompiled(&self) -> &[Uncompiled] {
        &self.plan.uncompiled
    }

    /// In a hosted tree, what the interpreter does for the compiled code:
    /// the nodes its steps decide (their behaviour is data at run time),
    /// the sub-trees it ticks whole, and the leaves it calls through the
    /// program's table (not declared in the leaf set).
    pub fn interpreted_nodes(&self) -> &[Uncompiled] {
        &self.plan.interpreted
    }
}

/// Why no code could be written.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodegenError {
    /// A type or path option is not a Rust path.
    Path {
        /// The option (`blackboard`, `leaf_set`, `runtime`).
        option: &'static str,
        /// What it was given.
        given: String,
    },
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodegenError::Path { option, given } => write!(
                f,
                "the generator's `{option}` must be a Rust path such as `crate::ai::Guard`, not `{given}`"
            ),
        }
    }
}

impl std::error::Error for CodegenError {}

impl<'s> Generator<'s> {
    /// A generator for `shape`, whose leaves are those of `leaves` (a table
    /// built by a [`leaf_set!`](treebeard_vm::leaf_set!), which names the
    /// function of each leaf).
    pub fn new<B>(shape: &'s Shape, leaves: &Leaves<B>) -> Generator<'s> {
        Generator::with_functions(shape, |name| leaves.rust_fn(name))
    }

    /// A generator for `shape`, whose leaves' functions are those a leaf
    /// manifest names (`treebeard_load::manifest`, from the application's
    /// `Leaves::manifest`).
    pub fn with_catalog(shape: &'s Shape, catalog: &Catalog) -> Generator<'s> {
        Generator::with_functions(shape, |name| catalog.function_of(name))
    }

    fn with_functions<'f>(
        shape: &'s Shape,
        function: impl Fn(&str) -> Option<&'f str>,
    ) -> Generator<'s> {
        let mut rust_fns = BTreeMap::new();
        for kind in Kind::LEAVES {
            for import in shape.imports(kind) {
                if let Some(f) = function(&import.name) {
                    rust_fns.insert(import.name.clone(), f.into());
                }
            }
        }
        Generator {
            shape,
            rust_fns,
            name: "tree".into(),
            blackboard: "crate::Blackboard".into(),
            leaf_set: "crate::Leaves".into(),
            runtime: "::treebeard::vm".into(),
            hosted: false,
        }
    }

    /// Generates the hosted form even for a tree that compiles straight
    /// (smaller code, at the interpreter's speed for the nodes it ticks;
    /// the differential tests use it to run both forms).
    pub fn hosted(mut self, hosted: bool) -> Self {
        self.hosted = hosted;
        self
    }

    /// The tree's name, as its compiled tree reports it (default `tree`).
    pub fn name(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }

    /// The path of the blackboard type, as the including crate names it.
    pub fn blackboard(mut self, path: &str) -> Self {
        self.blackboard = path.into();
        self
    }

    /// The path of the [`leaf_set!`](treebeard_vm::leaf_set!) type, as the
    /// including crate names it.
    pub fn leaf_set(mut self, path: &str) -> Self {
        self.leaf_set = path.into();
        self
    }

    /// The path of `treebeard_vm` as the including crate names it (default
    /// `::treebeard::vm`, through the facade; `::treebeard_vm` for a crate
    /// that depends on the VM alone).
    pub fn runtime(mut self, path: &str) -> Self {
        self.runtime = path.into();
        self
    }

    /// The nodes that keep the tree on the interpreter.
    pub fn uncompiled(&self) -> Vec<Uncompiled> {
        self.plan().uncompiled
    }

    /// The tree's form, and the nodes that decide it.
    pub(crate) fn plan(&self) -> Plan {
        let shape = self.shape;
        let paths = shape.paths();
        let note = |node: NodeIdx, reason: String| Uncompiled {
            node,
            path: paths.get(node.index()).cloned().unwrap_or_default(),
            location: shape.location(node),
            reason,
        };
        let mut uncompiled = Vec::new();
        let straight = !self.hosted
            && (0..shape.len() as u32).all(|i| {
                let node = NodeIdx::new(i);
                shape.kind(node).compiles() && self.callable(node)
            });
        let mut interpreted = Vec::new();
        if !straight {
            // The hosted walk: the nodes it runs itself, and the sub-trees
            // of the others, which the interpreter ticks.
            let mut i = 0;
            while i < shape.len() as u32 {
                let node = NodeIdx::new(i);
                let kind = shape.kind(node);
                if !self.callable(node) {
                    let name = shape.import(node).map_or("?", |i| &i.name);
                    interpreted.push(note(
                        node,
                        format!(
                            "the {kind} `{name}` has no function that compiled code can call, and is called through the program's table (declare it in a `leaf_set!`)"
                        ),
                    ));
                    i += 1;
                } else if emit::guards(kind) {
                    interpreted.push(note(
                        node,
                        format!(
                            "the interpreter's helpers decide this {kind}; its children are compiled"
                        ),
                    ));
                    i += 1;
                } else if emit::hosts(kind) {
                    i += 1;
                } else if emit::hands_over(kind) {
                    interpreted.push(note(
                        node,
                        format!("the interpreter ticks this {kind} and its sub-tree"),
                    ));
                    i = shape.subtree_end(node).get();
                } else {
                    uncompiled.push(note(
                        node,
                        format!(
                            "a {kind} outside the nodes the interpreter ticks for compiled code; the tree runs on the interpreter"
                        ),
                    ));
                    break;
                }
            }
        }
        let form = if !uncompiled.is_empty() {
            interpreted.clear();
            Form::Interpreted
        } else if straight {
            Form::Straight
        } else {
            Form::Hosted
        };
        Plan {
            form,
            uncompiled,
            interpreted,
        }
    }

    /// Whether compiled code can call the node (not a condition or action
    /// the leaf set did not declare).
    pub(crate) fn callable(&self, node: NodeIdx) -> bool {
        !matches!(self.shape.kind(node), Kind::Condition | Kind::Action)
            || self
                .shape
                .import(node)
                .is_some_and(|import| self.rust_fns.contains_key(&import.name))
    }

    /// Writes the code.
    pub fn generate(&self) -> Result<Generated, CodegenError> {
        for (option, given) in [
            ("blackboard", &self.blackboard),
            ("leaf_set", &self.leaf_set),
            ("runtime", &self.runtime),
        ] {
            if !is_path(given) {
                return Err(CodegenError::Path {
                    option,
                    given: given.clone(),
                });
            }
        }
        let plan = self.plan();
        let source = emit::source(self, &plan);
        Ok(Generated { source, plan })
    }
}

/// Whether `s` reads as a Rust path (with generic arguments allowed).
fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '<' | '>' | ',' | ' '))
        && !s.starts_with(|c: char| c.is_ascii_digit())
}
