//! The leaf table: the application's conditions and actions, by name.
//!
//! Leaves are plain function pointers (a closure that captures nothing
//! coerces to one), so the table is data: code lives here, parameters live
//! in the shape, state lives in actors. The table declares each leaf to the
//! compiler (it implements [`LeafCatalog`]) and supplies the functions when a
//! shape is linked into a [`Program`].
//!
//! ```
//! use treebeard_shape::ParamType;
//! use treebeard_vm::{Leaves, Signal, Status};
//!
//! struct Guard { ammo: u32, alert: bool }
//!
//! let mut leaves = Leaves::<Guard>::new();
//! leaves.condition("alert", |g, _| g.alert);
//! leaves
//!     .condition("ammo_at_least", |g, args| i64::from(g.ammo) >= args.int(0))
//!     .param("rounds", ParamType::Int);
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
//! leaves
//!     .deferred("MoveTo")
//!     .param("x", ParamType::Float)
//!     .param("y", ParamType::Float);
//! ```

use crate::memory_block::MemoryBlock;
use crate::program::Program;
use crate::script::FieldAccess;
use crate::status::{Signal, Status};
use bytemuck::Pod;
use std::collections::BTreeMap;
use treebeard_shape::tree::Node;
use treebeard_shape::{
    BuildError, Catalog, FieldDecl, LeafCatalog, LeafSchema, ParamSpec, ParamType, ShapeItem,
};

mod calls;

pub(crate) use calls::int_input;
pub use calls::{Args, Call, DecideCall, EntryOut, Input, Output};

/// A condition: a test of the blackboard. It cannot change the blackboard
/// and cannot run over several ticks.
pub type ConditionFn<B> = fn(&B, &Args<'_>) -> bool;

/// An immediate action: called on the tick it is reached ([`Signal::Start`]),
/// on every later tick while it returns [`Status::Running`]
/// ([`Signal::Tick`]), and once more with [`Signal::Cancel`] if it is
/// abandoned while running.
pub type ActionFn<B> = fn(&mut B, &mut Call<'_>) -> Status;

/// A Spore decider's Decide function: it looks at the blackboard (and the
/// agent's stimuli, through [`DecideCall::stimulus`]) and returns a score;
/// its decider accepts when the score is above 0. It may fill the decider
/// block ([`DecideCall::set_block`]) that its behavior starts with. A
/// decide should not change the agent: its decider may not be chosen.
pub type DecideFn<B> = fn(&B, &mut DecideCall<'_>) -> f32;

/// The application's decision flags of an agent: Spore's `DecisionFlags`,
/// which deciders' preconditions test (`decision_all`, `decision_any`,
/// `decision_none`). Read from the blackboard whenever a decider with
/// decision-flag preconditions is asked.
pub type DecisionFlagsFn<B> = fn(&B) -> u32;

/// An event an application sends to an agent's running actions, by index
/// in the leaf table's event names (see [`Leaves::event`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(pub u32);

/// An immediate action's event hook: called between ticks, while the
/// action runs, for every event sent to its agent. It may change the
/// action's state and persistent slot; [`Call::signal`] reads
/// [`Signal::Tick`].
pub type EventFn<B> = fn(&mut B, &mut Call<'_>, EventId);

/// How a [`Behavior`] ended, for its terminate hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// Its update returned success.
    Success,
    /// Its update returned failure.
    Failure,
    /// It was abandoned while running.
    Cancelled,
}

/// An immediate action written as hooks, like a Lumberyard MBT node
/// (`OnInitialize`, `Update`, `OnTerminate`, `HandleEvent`) or a Spore
/// behavior (Activate, Tick, Deactivate). Register it with
/// [`Leaves::behavior`]; the hooks are monomorphised into one plain action
/// function, so they cost what a hand-written action costs.
///
/// * [`initialise`](Behavior::initialise) runs when the action is reached
///   anew, before its first update;
/// * [`update`](Behavior::update) runs on that tick and every later tick
///   while it returns [`Status::Running`];
/// * [`terminate`](Behavior::terminate) runs exactly once per start: when an
///   update returns success or failure, or when the action is cancelled;
/// * [`event`](Behavior::event) runs for each event sent to the agent while
///   the action runs, if [`HANDLES_EVENTS`](Behavior::HANDLES_EVENTS).
///
/// ```
/// use treebeard_vm::{Behavior, Call, Ending, EventId, Leaves, Status};
///
/// struct Guard { alarms: u32, log: Vec<&'static str> }
///
/// /// Waits for the alarm event, then succeeds.
/// struct AwaitAlarm;
/// impl Behavior<Guard> for AwaitAlarm {
///     const HANDLES_EVENTS: bool = true;
///     fn initialise(g: &mut Guard, _: &mut Call<'_>) { g.log.push("listen"); }
///     fn update(_: &mut Guard, call: &mut Call<'_>) -> Status {
///         if call.state() == 1 { Status::Success } else { Status::Running }
///     }
///     fn terminate(g: &mut Guard, _: &mut Call<'_>, how: Ending) {
///         g.log.push(if how == Ending::Cancelled { "gave up" } else { "heard" });
///     }
///     fn event(g: &mut Guard, call: &mut Call<'_>, _: EventId) {
///         g.alarms += 1;
///         *call.state_mut() = 1;
///     }
/// }
///
/// let mut leaves = Leaves::<Guard>::new();
/// let _alarm = leaves.event("alarm");
/// leaves.behavior::<AwaitAlarm>("AwaitAlarm");
/// ```
pub trait Behavior<B>: 'static {
    /// Whether [`Behavior::event`] should be called.
    const HANDLES_EVENTS: bool = false;

    /// The action is reached anew.
    fn initialise(_blackboard: &mut B, _call: &mut Call<'_>) {}

    /// One step of the action.
    fn update(blackboard: &mut B, call: &mut Call<'_>) -> Status;

    /// The action ended.
    fn terminate(_blackboard: &mut B, _call: &mut Call<'_>, _how: Ending) {}

    /// An event reached the running action.
    fn event(_blackboard: &mut B, _call: &mut Call<'_>, _event: EventId) {}
}

/// The action function of a [`Behavior`].
fn run_behavior<B, T: Behavior<B>>(blackboard: &mut B, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        T::terminate(blackboard, call, Ending::Cancelled);
        return Status::Failure;
    }
    if call.signal() == Signal::Start {
        T::initialise(blackboard, call);
    }
    let status = T::update(blackboard, call);
    match status {
        Status::Success => T::terminate(blackboard, call, Ending::Success),
        Status::Failure => T::terminate(blackboard, call, Ending::Failure),
        Status::Running => {}
    }
    status
}

/// The hooks of a scope (Valkyrie's scope nodes, MBT's `LuaWrapper`): code
/// that runs when a [`Kind::Scope`](treebeard_shape::Kind::Scope) node
/// using them is entered, and code that runs exactly once when it ends,
/// whatever ends it: its child succeeds or fails, a higher priority cancels
/// it, the tree is reset, the agent is halted. Register it with
/// [`Leaves::scope`]; trees write the scope with its name around one child.
///
/// ```
/// use treebeard_vm::{Args, Ending, Leaves, ScopeHooks};
/// use treebeard_shape::ParamType;
///
/// struct Unit { speed: f64 }
///
/// /// Multiplies the unit's speed while its child runs.
/// struct Haste;
/// impl ScopeHooks<Unit> for Haste {
///     fn enter(u: &mut Unit, args: &Args<'_>) { u.speed *= args.float(0); }
///     fn exit(u: &mut Unit, args: &Args<'_>, _how: Ending) { u.speed /= args.float(0); }
/// }
///
/// let mut leaves = Leaves::<Unit>::new();
/// leaves.scope::<Haste>("Haste").param("factor", ParamType::Float);
/// ```
pub trait ScopeHooks<B>: 'static {
    /// The scope is entered, before its child first runs.
    fn enter(blackboard: &mut B, args: &Args<'_>);

    /// The scope ended: its child succeeded or failed, or the scope was
    /// cancelled.
    fn exit(blackboard: &mut B, args: &Args<'_>, how: Ending);
}

/// The action function of [`ScopeHooks`]: the interpreter calls it with
/// [`Signal::Start`] on entry, and with [`Signal::Cancel`] and the ending
/// in the state word on exit.
fn run_scope<B, T: ScopeHooks<B>>(blackboard: &mut B, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Start {
        T::enter(blackboard, call.args);
    } else {
        let how = match call.state() {
            0 => Ending::Success,
            1 => Ending::Failure,
            _ => Ending::Cancelled,
        };
        T::exit(blackboard, call.args, how);
    }
    Status::Success
}

/// How the interpreter calls a scope's hooks: the action item the hooks see
/// (its import and the scope's parameters after the `hook` word) and the
/// signal and state that select enter (`how` is `None`) or exit.
pub(crate) fn scope_call(
    table: &[u64],
    scope: ShapeItem,
    how: Option<Ending>,
) -> (ShapeItem, Signal, u32) {
    let params = scope.params();
    let hook = table[params.offset as usize] as u16;
    let hook_params = treebeard_shape::ParamRange {
        offset: params.offset + 1,
        len: params.len.saturating_sub(1),
    };
    let item = ShapeItem::leaf(treebeard_shape::Kind::Action, 0, hook, hook_params);
    let (signal, state) = match how {
        None => (Signal::Start, 0),
        Some(how) => (Signal::Cancel, how as u32),
    };
    (item, signal, state)
}

/// The event function of a [`Behavior`].
fn behavior_event<B, T: Behavior<B>>(blackboard: &mut B, call: &mut Call<'_>, event: EventId) {
    T::event(blackboard, call, event);
}

/// A leaf's function, by kind.
pub(crate) enum LeafFn<B> {
    Condition(ConditionFn<B>),
    Action(ActionFn<B>),
    Deferred,
    Decide(DecideFn<B>),
}

impl<B> Clone for LeafFn<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for LeafFn<B> {}

/// A registered leaf: its function and declaration.
pub(crate) struct Leaf<B> {
    pub(crate) decl: LeafSchema,
    pub(crate) f: LeafFn<B>,
    /// An immediate action's event hook.
    pub(crate) on_event: Option<EventFn<B>>,
    /// The function of its leaf set that compiled trees call (see
    /// [`crate::leaf_set!`]).
    pub(crate) rust_fn: Option<&'static str>,
}

/// The application's leaves, by name, its blackboard's fields and the
/// names of the events it sends.
pub struct Leaves<B> {
    entries: BTreeMap<Box<str>, Leaf<B>>,
    fields: Vec<FieldDecl>,
    events: Vec<Box<str>>,
    /// How scripts reach the blackboard's fields.
    access: Option<FieldAccess<B>>,
    /// The agents' decision flags.
    decision_flags: Option<DecisionFlagsFn<B>>,
}

impl<B> Default for Leaves<B> {
    fn default() -> Self {
        Leaves {
            entries: BTreeMap::new(),
            fields: Vec::new(),
            events: Vec::new(),
            access: None,
            decision_flags: None,
        }
    }
}

/// A leaf just registered, to declare its parameters or persistent slot.
pub struct Registered<'t, B> {
    leaf: &'t mut Leaf<B>,
}

impl<B> Registered<'_, B> {
    /// Declares the leaf's next parameter, required.
    pub fn param(self, name: &str, ty: ParamType) -> Self {
        self.leaf.decl.params.push(ParamSpec::new(name, ty));
        self
    }

    /// Declares the leaf's next parameter, fully specified (a default
    /// makes it optional).
    pub fn with(self, spec: ParamSpec) -> Self {
        self.leaf.decl.params.push(spec);
        self
    }

    /// Gives an immediate action an event hook (see [`EventFn`]).
    ///
    /// # Panics
    /// For conditions and deferred actions: a condition does not run over
    /// ticks, and a deferred action runs in a game system, which gets the
    /// game's events itself.
    pub fn on_event(self, f: EventFn<B>) -> Self {
        assert!(
            matches!(self.leaf.f, LeafFn::Action(_)),
            "only immediate actions take events"
        );
        self.leaf.on_event = Some(f);
        self
    }

    /// Describes the leaf in a sentence, for tools that list leaves.
    pub fn describe(self, description: &str) -> Self {
        self.leaf.decl.description = description.into();
        self
    }

    /// Declares that the leaf never returns failure, so the loader can warn
    /// about children a selector can never reach after it.
    pub fn never_fails(self) -> Self {
        self.leaf.decl.never_fails = true;
        self
    }

    /// Names the associated function of the leaf set that compiled trees
    /// call for this leaf; [`crate::leaf_set!`] declares it.
    pub fn rust_fn(self, name: &'static str) -> Self {
        self.leaf.rust_fn = Some(name);
        self
    }

    /// Every use of the leaf owns a memory block of type `M` (see
    /// [`Call::memory`] and, for a Decide, [`DecideCall::memory`]): Spore's
    /// behaviour memory and decider blocks, up to 64 bytes, counted in the
    /// actor's size.
    ///
    /// ```
    /// use treebeard_shape::tree::act;
    /// use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, Status};
    ///
    /// #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    /// #[repr(C)]
    /// struct Patrol {
    ///     leg: u32,
    ///     distance: f32,
    /// }
    ///
    /// let mut leaves = Leaves::<Vec<u32>>::new();
    /// leaves
    ///     .action("Patrol", |legs, call| {
    ///         let patrol = call.memory::<Patrol>(); // zeros when it starts
    ///         patrol.leg += 1;
    ///         legs.push(patrol.leg);
    ///         Status::Running
    ///     })
    ///     .memory::<Patrol>();
    /// let program = leaves.compile(&act("Patrol"))?;
    /// assert_eq!(program.shape().spec().persistent_states, 2, "two words per agent");
    ///
    /// let (mut actor, mut legs) = (Actor::for_shape(program.shape()), Vec::new());
    /// let mut interpreter = Interpreter::new();
    /// for _ in 0..3 {
    ///     let frame = Frame::default();
    ///     let mut requests = Vec::new();
    ///     interpreter.tick(&program, &frame, AgentId(0), &mut actor.as_mut(), &mut legs, &mut requests);
    /// }
    /// assert_eq!(legs, [1, 2, 3]);
    /// # Ok::<(), treebeard_shape::BuildError>(())
    /// ```
    ///
    /// # Panics
    /// For conditions, deferred actions and scopes' hooks, which keep no
    /// state between calls; for an `M` larger than 64 bytes or aligned to
    /// more than 8.
    pub fn memory<M: Pod>(self) -> Self {
        assert!(
            matches!(self.leaf.f, LeafFn::Action(_) | LeafFn::Decide(_)) && !self.leaf.decl.scope,
            "only immediate actions and Decide leaves own memory blocks"
        );
        self.leaf.decl.memory = MemoryBlock::words_of::<M>();
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

    fn register(&mut self, name: &str, decl: LeafSchema, f: LeafFn<B>) -> Registered<'_, B> {
        use std::collections::btree_map::Entry;
        assert!(!name.is_empty(), "a leaf needs a name");
        match self.entries.entry(name.into()) {
            Entry::Vacant(v) => Registered {
                leaf: v.insert(Leaf {
                    decl,
                    f,
                    on_event: None,
                    rust_fn: None,
                }),
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
        self.register(name, LeafSchema::condition(), LeafFn::Condition(f))
    }

    /// Registers an immediate action under `name`.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn action(&mut self, name: &str, f: ActionFn<B>) -> Registered<'_, B> {
        self.register(name, LeafSchema::action(), LeafFn::Action(f))
    }

    /// Registers the [`Behavior`] `T` as an immediate action under `name`.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn behavior<T: Behavior<B>>(&mut self, name: &str) -> Registered<'_, B> {
        let registered = self.action(name, run_behavior::<B, T>);
        if T::HANDLES_EVENTS {
            registered.on_event(behavior_event::<B, T>)
        } else {
            registered
        }
    }

    /// Registers the [`ScopeHooks`] `T` under `name`: trees use the name as a
    /// scope around one child (`Haste(factor: 2) { Run }`), never as a leaf.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn scope<T: ScopeHooks<B>>(&mut self, name: &str) -> Registered<'_, B> {
        self.register(name, LeafSchema::scope(), LeafFn::Action(run_scope::<B, T>))
    }

    /// Registers a Spore Decide function under `name`: trees use it as the
    /// first child of a `Decider`.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn decide(&mut self, name: &str, f: DecideFn<B>) -> Registered<'_, B> {
        self.register(name, LeafSchema::decide(), LeafFn::Decide(f))
    }

    /// Sets how an agent's decision flags are read from its blackboard
    /// (Spore's `DecisionFlags`, tested by deciders' preconditions). Without
    /// it, every agent's decision flags are 0.
    pub fn decision_flags(&mut self, f: DecisionFlagsFn<B>) -> &mut Leaves<B> {
        self.decision_flags = Some(f);
        self
    }

    /// How agents' decision flags are read, if set.
    pub fn decision_flags_fn(&self) -> Option<DecisionFlagsFn<B>> {
        self.decision_flags
    }

    /// The event named `name`, declared on first use. Events are numbered
    /// in declaration order.
    pub fn event(&mut self, name: &str) -> EventId {
        let index = match self.events.iter().position(|e| **e == *name) {
            Some(i) => i,
            None => {
                self.events.push(name.into());
                self.events.len() - 1
            }
        };
        EventId(index as u32)
    }

    /// The event named `name`, if declared.
    pub fn event_id(&self, name: &str) -> Option<EventId> {
        self.events
            .iter()
            .position(|e| **e == *name)
            .map(|i| EventId(i as u32))
    }

    /// The declared event names, by [`EventId`].
    pub fn events(&self) -> &[Box<str>] {
        &self.events
    }

    /// A parameter type naming one of the declared events: its word is the
    /// event's [`EventId`] (read it with [`Args::event`]). Declare the
    /// events first.
    pub fn event_param(&self) -> ParamType {
        ParamType::Enum(self.events.clone().into_boxed_slice())
    }

    /// Registers a deferred action under `name`: a game system runs it,
    /// through launch and cancel requests and completions.
    ///
    /// # Panics
    /// If `name` is empty or already registered.
    pub fn deferred(&mut self, name: &str) -> Registered<'_, B> {
        self.register(name, LeafSchema::deferred(), LeafFn::Deferred)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Leaf<B>> {
        self.entries.get(name)
    }

    /// The associated function of the leaf set that compiled trees call
    /// for the leaf `name`, if it was declared with one (see
    /// [`crate::leaf_set!`]).
    pub fn rust_fn(&self, name: &str) -> Option<&'static str> {
        self.entries.get(name).and_then(|l| l.rust_fn)
    }

    /// Declares the blackboard's fields, so trees can name them (see
    /// [`crate::Blackboard`]). Field parameters refer to them by index.
    pub fn fields(&mut self, fields: &[FieldDecl]) -> &mut Leaves<B> {
        self.fields = fields.to_vec();
        self
    }

    /// Declares the fields of the blackboard type `B` (see
    /// [`crate::blackboard!`]), and lets tree scripts read and write them.
    pub fn blackboard(&mut self) -> &mut Leaves<B>
    where
        B: crate::Blackboard,
    {
        self.access = Some(FieldAccess::of());
        self.fields(&B::fields())
    }

    /// Lets tree scripts read and write the declared fields through
    /// `access` (for blackboards whose fields are known only at run time;
    /// a [`crate::Blackboard`] type uses [`Leaves::blackboard`]).
    pub fn field_access(&mut self, access: FieldAccess<B>) -> &mut Leaves<B> {
        self.access = Some(access);
        self
    }

    /// How tree scripts reach the blackboard's fields, if they can.
    pub fn script_access(&self) -> Option<FieldAccess<B>> {
        self.access
    }

    /// The declared blackboard fields.
    pub fn field_decls(&self) -> &[FieldDecl] {
        &self.fields
    }

    /// The schema of the leaf registered under `name`.
    pub fn schema(&self, name: &str) -> Option<&LeafSchema> {
        self.entries.get(name).map(|l| &l.decl)
    }

    /// Registered names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(|k| &**k)
    }

    /// The table without its functions: every leaf's schema, the function
    /// of the leaf set that implements it (for leaves declared with
    /// [`crate::leaf_set!`]), the blackboard's fields and the events. What
    /// a leaf manifest file holds, for the command line and editors
    /// (`treebeard_load::manifest::to_json` writes it).
    pub fn manifest(&self) -> Catalog {
        let mut catalog = Catalog::new();
        for (name, leaf) in &self.entries {
            catalog.declare(name, leaf.decl.clone());
            if let Some(f) = leaf.rust_fn {
                catalog.function(name, f);
            }
        }
        for field in &self.fields {
            catalog.field(field.clone());
        }
        for event in &self.events {
            catalog.event(event);
        }
        catalog
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
    fn leaf(&self, name: &str) -> Option<&LeafSchema> {
        self.entries.get(name).map(|l| &l.decl)
    }

    fn names(&self) -> Vec<&str> {
        self.entries.keys().map(|k| &**k).collect()
    }

    fn fields(&self) -> &[FieldDecl] {
        &self.fields
    }

    fn events(&self) -> &[Box<str>] {
        &self.events
    }
}
