//! The leaf table: the application's conditions and actions, by name.
//!
//! Leaves are plain function pointers (a closure that captures nothing
//! coerces to one), so the table is data: code lives here, parameters live
//! in the shape, state lives in actors. The table declares each leaf to the
//! compiler (it implements [`LeafCatalog`]) and supplies the functions when a
//! shape is linked into a [`Program`].
//!
//! ```
//! use treebeard_vm::{Leaves, Signal, Status};
//!
//! struct Guard { ammo: u32, alert: bool }
//!
//! let mut leaves = Leaves::<Guard>::new();
//! leaves.condition("alert", |g, _| g.alert);
//! leaves.condition("ammo_at_least", |g, args| i64::from(g.ammo) >= args.int(0)).params(1);
//! // Aims for three ticks, then fires.
//! leaves.action("Shoot", |g, call| {
//!     if call.signal() == Signal::Cancel {
//!         return Status::Failure; // nothing to clean up; ignored
//!     }
//!     *call.state_mut() += 1;
//!     if call.state() < 3 {
//!         return Status::Running;
//!     }
//!     g.ammo -= 1;
//!     Status::Success
//! });
//! leaves.deferred("MoveTo").params(2);
//! ```

use crate::frame::Frame;
use crate::program::Program;
use crate::request::AgentId;
use crate::status::{Signal, Status};
use std::collections::BTreeMap;
use std::ops::Deref;
use treebeard_shape::tree::Node;
use treebeard_shape::{BuildError, LeafCatalog, LeafDecl, NodeIdx, ShapeItem};

/// A condition: a test of the blackboard. It cannot change the blackboard
/// and cannot run over several ticks.
pub type ConditionFn<B> = fn(&B, &Args<'_>) -> bool;

/// An immediate action: called on the tick it is reached ([`Signal::Start`]),
/// on every later tick while it returns [`Status::Running`]
/// ([`Signal::Tick`]), and once more with [`Signal::Cancel`] if it is
/// abandoned while running.
pub type ActionFn<B> = fn(&mut B, &mut Call<'_>) -> Status;

/// What every leaf call gets besides the blackboard: its parameters and
/// where and when it runs.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    /// The shape's whole parameter table; the item says which words are
    /// the leaf's (resolved only when a leaf asks, most never do).
    pub(crate) table: &'a [u64],
    pub(crate) item: ShapeItem,
    pub(crate) node: u32,
    pub(crate) agent: AgentId,
    pub(crate) frame: &'a Frame,
}

impl<'a> Args<'a> {
    /// The leaf's parameter words, as many as it declared.
    #[inline]
    pub fn params(&self) -> &'a [u64] {
        &self.table[self.item.params().range()]
    }

    /// Parameter word `i`.
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn word(&self, i: usize) -> u64 {
        let p = self.item.params();
        assert!(i < p.len as usize, "parameter {i} of a leaf with {}", p.len);
        self.table[p.offset as usize + i]
    }

    /// Parameter `i` as a signed integer.
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn int(&self, i: usize) -> i64 {
        self.word(i) as i64
    }

    /// Parameter `i` as a float (stored as its bits).
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn float(&self, i: usize) -> f64 {
        f64::from_bits(self.word(i))
    }

    /// Parameter `i` as a boolean (non-zero is true).
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn flag(&self, i: usize) -> bool {
        self.word(i) != 0
    }

    /// The leaf's item in the shape.
    #[inline]
    pub fn node(&self) -> NodeIdx {
        NodeIdx::new(self.node)
    }

    /// The agent being ticked.
    #[inline]
    pub fn agent(&self) -> AgentId {
        self.agent
    }

    /// The tick's clock.
    #[inline]
    pub fn frame(&self) -> &'a Frame {
        self.frame
    }
}

/// One call of an immediate action: [`Args`], the signal, the action's
/// running state and, if the leaf owns one, its persistent slot.
#[derive(Debug)]
pub struct Call<'a> {
    pub(crate) args: &'a Args<'a>,
    pub(crate) signal: Signal,
    pub(crate) state: u32,
    pub(crate) persistent: Option<u32>,
}

impl<'a> Call<'a> {
    /// Why the action is called.
    #[inline]
    pub fn signal(&self) -> Signal {
        self.signal
    }

    /// The action's running state: zero on [`Signal::Start`], otherwise
    /// what it held when it last returned [`Status::Running`]. Kept only while
    /// the action runs.
    #[inline]
    pub fn state(&self) -> u32 {
        self.state
    }

    /// The running state, to change.
    #[inline]
    pub fn state_mut(&mut self) -> &mut u32 {
        &mut self.state
    }

    /// The leaf's persistent slot, if it declared one: a word per agent that
    /// survives cancellation and restarts (counters, timers). A change is
    /// applied when the tick completes, and undone if a concurrent decider
    /// above the leaf fails in the same tick.
    #[inline]
    pub fn persistent(&mut self) -> Option<&mut u32> {
        self.persistent.as_mut()
    }
}

impl<'a> Deref for Call<'a> {
    type Target = Args<'a>;
    #[inline]
    fn deref(&self) -> &Args<'a> {
        self.args
    }
}

/// A leaf's function, by kind.
pub(crate) enum LeafFn<B> {
    Condition(ConditionFn<B>),
    Action(ActionFn<B>),
    Deferred,
}

impl<B> Clone for LeafFn<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for LeafFn<B> {}

/// A registered leaf: its function and declaration.
pub(crate) struct Leaf<B> {
    pub(crate) decl: LeafDecl,
    pub(crate) f: LeafFn<B>,
}

/// The application's leaves, by name.
pub struct Leaves<B> {
    entries: BTreeMap<Box<str>, Leaf<B>>,
}

impl<B> Default for Leaves<B> {
    fn default() -> Self {
        Leaves {
            entries: BTreeMap::new(),
        }
    }
}

/// A leaf just registered, to declare its parameters or persistent slot.
pub struct Registered<'t, B> {
    leaf: &'t mut Leaf<B>,
}

impl<B> Registered<'_, B> {
    /// Every use of the leaf supplies `n` parameter words.
    pub fn params(self, n: u8) -> Self {
        self.leaf.decl.arity = n;
        self
    }

    /// Every use of the leaf owns a persistent slot (see [`Call::persistent`]).
    ///
    /// # Panics
    /// For conditions and deferred actions, which cannot write one.
    pub fn persistent(self) -> Self {
        assert!(
            matches!(self.leaf.f, LeafFn::Action(_)),
            "only immediate actions own persistent slots"
        );
        self.leaf.decl.persistent = true;
        self
    }
}

impl<B> Leaves<B> {
    /// An empty table.
    pub fn new() -> Leaves<B> {
        Leaves::default()
    }

    fn register(&mut self, name: &str, decl: LeafDecl, f: LeafFn<B>) -> Registered<'_, B> {
        use std::collections::btree_map::Entry;
        assert!(!name.is_empty(), "a leaf needs a name");
        match self.entries.entry(name.into()) {
            Entry::Vacant(v) => Registered {
                leaf: v.insert(Leaf { decl, f }),
            },
            Entry::Occupied(_) => panic!("leaf `{name}` is registered twice"),
        }
    }

    /// Registers a condition under `name`.
    ///
    /// # Panics
    /// If `name` is empty or already registered: two leaves cannot share a
    /// name.
    pub fn condition(&mut self, name: &str, f: ConditionFn<B>) -> Registered<'_, B> {
        self.register(name, LeafDecl::condition(0), LeafFn::Condition(f))
    }

    /// Registers an immediate action under `name`.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn action(&mut self, name: &str, f: ActionFn<B>) -> Registered<'_, B> {
        self.register(name, LeafDecl::action(0), LeafFn::Action(f))
    }

    /// Registers a deferred action under `name`: a game system runs it,
    /// through launch and cancel requests and completions.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn deferred(&mut self, name: &str) -> Registered<'_, B> {
        self.register(name, LeafDecl::deferred(0), LeafFn::Deferred)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Leaf<B>> {
        self.entries.get(name)
    }

    /// Registered names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(|k| &**k)
    }

    /// Compiles `tree` against this table and links the result: the usual
    /// way to get a [`Program`].
    pub fn compile(&self, tree: &Node) -> Result<Program<B>, BuildError> {
        let shape = treebeard_shape::compile(tree, self)?;
        // Compiling against this table declares exactly what linking checks.
        match Program::link(shape, self) {
            Ok(program) => Ok(program),
            Err(e) => unreachable!("a shape compiled against a table links to it: {e}"),
        }
    }
}

impl<B> LeafCatalog for Leaves<B> {
    fn decl(&self, name: &str) -> Option<LeafDecl> {
        self.entries.get(name).map(|l| l.decl)
    }

    fn names(&self) -> Vec<&str> {
        self.entries.keys().map(|k| &**k).collect()
    }
}
