//! Programs: a validated shape linked to the application's leaf functions.

use crate::flow::Flow;
use crate::leaves::{ActionFn, ConditionFn, LeafFn, Leaves};
use std::fmt;
use std::sync::Arc;
use treebeard_shape::{CapacitySpec, Kind, Shape};

/// A shape whose imports are resolved to functions, with its flow tables
/// (see the `flow` module): what the interpreter runs. Cheap to clone; the
/// shape is shared.
pub struct Program<B> {
    shape: Arc<Shape>,
    pub(crate) flow: Arc<Flow>,
    pub(crate) conditions: Box<[ConditionFn<B>]>,
    pub(crate) actions: Box<[ActionFn<B>]>,
}

impl<B> Clone for Program<B> {
    fn clone(&self) -> Self {
        Program {
            shape: Arc::clone(&self.shape),
            flow: Arc::clone(&self.flow),
            conditions: self.conditions.clone(),
            actions: self.actions.clone(),
        }
    }
}

impl<B> fmt::Debug for Program<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("items", &self.shape.len())
            .field("conditions", &self.conditions.len())
            .field("actions", &self.actions.len())
            .finish()
    }
}

/// Why a shape's import does not match the leaf table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unlinkable {
    /// No leaf is registered under the name.
    Missing,
    /// The leaf is registered as another kind.
    Kind {
        /// What the table registers.
        registered: Kind,
    },
    /// The leaf takes another number of parameter words.
    Arity {
        /// What the table registers.
        registered: u8,
        /// What the shape's import declares.
        imported: u8,
    },
    /// The table and the shape disagree on the persistent slot.
    Persistent {
        /// What the table registers.
        registered: bool,
    },
}

/// A shape import that the leaf table cannot satisfy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError {
    /// The import's leaf kind.
    pub kind: Kind,
    /// The import's name.
    pub name: Box<str>,
    /// What is wrong.
    pub what: Unlinkable,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let LinkError { kind, name, what } = self;
        match what {
            Unlinkable::Missing => write!(
                f,
                "the shape imports {kind} `{name}`, which the leaf table does not register"
            ),
            Unlinkable::Kind { registered } => write!(
                f,
                "the shape imports `{name}` as a {kind}, but the table registers a {registered}"
            ),
            Unlinkable::Arity {
                registered,
                imported,
            } => write!(
                f,
                "the shape gives `{name}` {imported} parameters, but the table registers {registered}"
            ),
            Unlinkable::Persistent { registered } => write!(
                f,
                "the shape {} a persistent slot for `{name}`, but the table {}",
                if *registered { "gives no" } else { "gives" },
                if *registered {
                    "declares one"
                } else {
                    "does not"
                }
            ),
        }
    }
}

impl std::error::Error for LinkError {}

impl<B> Program<B> {
    /// Resolves every import of `shape` in `leaves`. Each import must be
    /// registered with the same kind, number of parameters and persistent
    /// slot.
    pub fn link(shape: impl Into<Arc<Shape>>, leaves: &Leaves<B>) -> Result<Program<B>, LinkError> {
        let shape = shape.into();
        let mut conditions = Vec::new();
        let mut actions = Vec::new();
        for kind in Kind::LEAVES {
            for import in shape.imports(kind) {
                let fail = |what| LinkError {
                    kind,
                    name: import.name.clone(),
                    what,
                };
                let Some(leaf) = leaves.get(&import.name) else {
                    return Err(fail(Unlinkable::Missing));
                };
                let decl = leaf.decl;
                if decl.kind != kind {
                    return Err(fail(Unlinkable::Kind {
                        registered: decl.kind,
                    }));
                }
                if decl.arity != import.arity {
                    return Err(fail(Unlinkable::Arity {
                        registered: decl.arity,
                        imported: import.arity,
                    }));
                }
                if decl.persistent != import.persistent {
                    return Err(fail(Unlinkable::Persistent {
                        registered: decl.persistent,
                    }));
                }
                match leaf.f {
                    LeafFn::Condition(f) => conditions.push(f),
                    LeafFn::Action(f) => actions.push(f),
                    LeafFn::Deferred => {}
                }
            }
        }
        Ok(Program {
            flow: Arc::new(Flow::of(&shape)),
            shape,
            conditions: conditions.into_boxed_slice(),
            actions: actions.into_boxed_slice(),
        })
    }

    /// The shape.
    #[inline]
    pub fn shape(&self) -> &Arc<Shape> {
        &self.shape
    }

    /// The shape's capacity specification.
    #[inline]
    pub fn spec(&self) -> &CapacitySpec {
        self.shape.spec()
    }
}
