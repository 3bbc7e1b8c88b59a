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
//! Which kinds compile is [`Kind::compiles`]: the static deciders, the
//! constant statuses (`AlwaysSuccess`, `AlwaysFailure`), the leaves, and
//! the nodes of the agent's memory (scripts, time tests, events, stimuli),
//! which call the runtime's helpers. A
//! tree with another kind is generated as a `CompiledTree::interpreted`
//! that names the nodes, and runs on the interpreter; so is a tree whose
//! leaves were not declared in a leaf set.
//!
//! [`leaf_set!`]: treebeard_vm::leaf_set!
//! [`Program::with_compiled`]: treebeard_vm::Program::with_compiled

pub mod build;
mod emit;

use std::collections::BTreeMap;
use std::fmt;
use treebeard_shape::{Kind, NodeIdx, Shape};
use treebeard_vm::Leaves;

/// Writes the Rust code of one tree.
#[derive(Clone, Debug)]
pub struct Generator<'s> {
    shape: &'s Shape,
    /// Per leaf import name, the leaf set's function (when declared).
    rust_fns: BTreeMap<Box<str>, &'static str>,
    name: String,
    blackboard: String,
    leaf_set: String,
    runtime: String,
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
    uncompiled: Vec<Uncompiled>,
}

impl Generated {
    /// The Rust source: items to `include!` in a module of their own.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the tree compiled; otherwise its code links a tree that
    /// runs on the interpreter, for the reasons [`Generated::uncompiled`]
    /// lists.
    pub fn is_compiled(&self) -> bool {
        self.uncompiled.is_empty()
    }

    /// The nodes that keep the tree on the interpreter.
    pub fn uncompiled(&self) -> &[Uncompiled] {
        &self.uncompiled
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
        let mut rust_fns = BTreeMap::new();
        for kind in Kind::LEAVES {
            for import in shape.imports(kind) {
                if let Some(f) = leaves.rust_fn(&import.name) {
                    rust_fns.insert(import.name.clone(), f);
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
        }
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
        let shape = self.shape;
        let paths = shape.paths();
        let mut out = Vec::new();
        for i in 0..shape.len() as u32 {
            let node = NodeIdx::new(i);
            let kind = shape.kind(node);
            let reason = if !kind.compiles() {
                format!(
                    "{kind} is not compiled yet (its behaviour is data at run time); the tree runs on the interpreter"
                )
            } else if matches!(kind, Kind::Condition | Kind::Action)
                && shape
                    .import(node)
                    .is_none_or(|import| !self.rust_fns.contains_key(&import.name))
            {
                let name = shape.import(node).map_or("?", |i| &i.name);
                format!(
                    "the {kind} `{name}` has no function that compiled code can call; declare it in a `leaf_set!`"
                )
            } else {
                continue;
            };
            out.push(Uncompiled {
                node,
                path: paths.get(i as usize).cloned().unwrap_or_default(),
                location: shape.location(node),
                reason,
            });
        }
        out
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
        let uncompiled = self.uncompiled();
        let source = emit::source(self, &uncompiled);
        Ok(Generated { source, uncompiled })
    }
}

/// Whether `s` reads as a Rust path (with generic arguments allowed).
fn is_path(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '<' | '>' | ',' | ' '))
        && !s.starts_with(|c: char| c.is_ascii_digit())
}
