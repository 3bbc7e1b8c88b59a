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

use crate::actor::stimulus_datum;
use crate::blackboard::{Blackboard, FieldId, Value};
use crate::frame::Frame;
use crate::memory_block::MemoryBlock;
use crate::program::Program;
use crate::request::AgentId;
use crate::script::FieldAccess;
use crate::status::{Signal, Status};
use bytemuck::Pod;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::ops::Deref;
use treebeard_shape::params::{ENTRY_REF, FIELD_REF};
use treebeard_shape::script::ScriptType;
use treebeard_shape::tree::Node;
use treebeard_shape::{
    BuildError, Catalog, Entry, FieldDecl, LeafCatalog, LeafSchema, NodeIdx, ParamSpec, ParamType,
    Shape, ShapeItem,
};

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

/// What every leaf call gets besides the blackboard: its parameters and
/// where and when it runs.
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    /// The shape's whole parameter table; the item says which words are
    /// the leaf's (resolved only when a leaf asks, most never do).
    pub(crate) table: &'a [u64],
    /// The shape, for its string table (string parameters), its entries'
    /// types (outputs that write them) and its variables' names.
    pub(crate) shape: &'a Shape,
    /// The agent's tree entries, two words each, for inputs that read
    /// them (empty where a leaf reads none: see `Input::Entry`): cells that
    /// the interpreter fills once per agent, so that a leaf call costs
    /// nothing more for them.
    pub(crate) entries: &'a [Cell<u32>],
    /// The agent's tree variables' words, for leaves that read or set
    /// them by name (see [`Args::variable`]): bits stored `^` their
    /// initial values, as in the actor, in cells filled as `entries` are.
    pub(crate) variables: &'a [Cell<u32>],
    pub(crate) item: ShapeItem,
    pub(crate) node: u32,
    pub(crate) agent: AgentId,
    /// The agent's frame: held by value, so that a batch can give each
    /// agent its own (see `Interpreter::tick_batch_scheduled`).
    pub(crate) frame: Frame,
}

impl<'a> Args<'a> {
    /// The arguments of the leaves of `shape` for `agent` at `frame`, whose
    /// leaf cells are `cells` (its variables' words, then its entries':
    /// see [`ActorRef::leaf_words`](crate::ActorRef::leaf_words)); each
    /// call sets its own item and node.
    #[inline]
    pub(crate) fn of_shape(
        shape: &'a Shape,
        cells: &'a [Cell<u32>],
        agent: AgentId,
        frame: Frame,
    ) -> Args<'a> {
        let at = shape.variables().len().div_ceil(32).min(cells.len());
        let (variables, entries) = cells.split_at(at);
        Args {
            table: shape.param_table(),
            shape,
            entries,
            variables,
            item: ShapeItem::from_bits(0),
            node: 0,
            agent,
            frame,
        }
    }

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

    /// Parameter `i` as a duration in seconds.
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn seconds(&self, i: usize) -> f64 {
        f64::from_bits(self.word(i))
    }

    /// Parameter `i` as a string (a `string` parameter).
    ///
    /// # Panics
    /// If `i` is not a declared `string` parameter of the leaf.
    #[inline]
    pub fn str(&self, i: usize) -> &'a str {
        &self.shape.strings()[self.word(i) as usize]
    }

    /// Parameter `i` as the index of an enumeration's variant.
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn variant(&self, i: usize) -> usize {
        self.word(i) as usize
    }

    /// Parameter `i` as an event (a parameter of [`Leaves::event_param`]'s
    /// type).
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn event(&self, i: usize) -> EventId {
        EventId(self.word(i) as u32)
    }

    /// Parameter `i`, an input: a blackboard field or a literal.
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn input(&self, i: usize) -> Input<'a> {
        Input::of(self.word(i), self.table, self.shape.strings(), self.entries)
    }

    /// Parameter `i`, an output: the blackboard field or the tree entry
    /// to write ([`Output::write`]).
    ///
    /// # Panics
    /// If `i` is not below the leaf's declared number of parameters.
    #[inline]
    pub fn output(&self, i: usize) -> Output<'a> {
        Output::of(self.word(i), self.entries, self.shape.entries())
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

    /// The tick's clock, as the agent sees it: an agent that does not tick
    /// every frame gets a `dt` covering the time since its previous tick.
    #[inline]
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// The value of the agent's tree variable `name` (one the tree
    /// declares, as MBT's `<Variables>` do), as it is at this call: a
    /// variable set by a script, a signal or another leaf earlier in the
    /// tick reads as set. `None` for a name the tree does not declare (or
    /// in a tool's call given no cells: see `Program::call_condition`).
    ///
    /// Found by name among the tree's declarations, for leaves that are
    /// given names at run time (Lua's `entity`).
    pub fn variable(&self, name: &str) -> Option<bool> {
        let (cell, bit, initial) = self.find_variable(name)?;
        Some((cell.get() & bit != 0) != initial)
    }

    /// Sets the agent's tree variable `name` to `value`, as a script's
    /// assignment does: the nodes and scripts after this call, and the
    /// agent's next ticks, see it. False, and nothing set, where
    /// [`Args::variable`] is `None`.
    pub fn set_variable(&self, name: &str, value: bool) -> bool {
        let Some((cell, bit, initial)) = self.find_variable(name) else {
            return false;
        };
        let word = cell.get() & !bit;
        cell.set(if value != initial { word | bit } else { word });
        true
    }

    /// The cell and bit of the variable `name`, with its initial value.
    fn find_variable(&self, name: &str) -> Option<(&'a Cell<u32>, u32, bool)> {
        let declared = self.shape.variables();
        let i = declared.iter().position(|v| *v.name == *name)?;
        let cell = self.variables.get(i / 32)?;
        Some((cell, 1 << (i % 32), declared[i].initial))
    }
}

/// An input parameter: where the leaf reads its value.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// A blackboard field.
    Field(FieldId),
    /// A literal word, read as the parameter's type (strings index the
    /// shape's string table, given here).
    Literal(u64, &'a [Box<str>]),
    /// The value of one of the agent's tree entries (see
    /// `treebeard_shape::Entry`), read when the leaf was called: its word,
    /// read as the parameter's type (a string's word is one more than its
    /// index in the shape's string table, given here; 0 is empty).
    Entry(u64, &'a [Box<str>]),
}

/// An output parameter: where the leaf writes its value.
///
/// ```
/// # use treebeard_vm::{Args, Blackboard, Output, Value};
/// /// Writes the number of enemies in sight into its output `count`.
/// fn count_enemies<B: Blackboard>(bb: &mut B, args: &Args<'_>, seen: i64) {
///     args.output(0).write(bb, Value::Int(seen));
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Output<'a> {
    /// A blackboard field.
    Field(FieldId),
    /// One of the agent's tree entries (see `treebeard_shape::Entry`):
    /// BehaviorTree.CPP's output port `{key}` where the blackboard has no
    /// field `key`, which creates the entry it writes.
    Entry(EntryOut<'a>),
}

impl<'a> Output<'a> {
    /// The output an output parameter's `word` names (validation checked
    /// that an entry reference is a condition's, an action's or a
    /// scope's, whose calls get the agent's `entries`, and names an entry
    /// of the output's type, not a string).
    #[inline]
    pub(crate) fn of(word: u64, entries: &'a [Cell<u32>], types: &[Entry]) -> Output<'a> {
        if word & ENTRY_REF != 0 && word & FIELD_REF == 0 {
            let index = (word & !ENTRY_REF) as usize;
            let at = 2 * index;
            Output::Entry(EntryOut {
                cells: entries.get(at..at + 2).unwrap_or_default(),
                ty: types.get(index).map_or(ScriptType::Str, |e| e.ty),
            })
        } else {
            Output::Field(FieldId((word & !FIELD_REF) as u32))
        }
    }

    /// Writes `value`: into the field of `bb` (see [`Blackboard::set`]),
    /// or into the entry ([`EntryOut::set`]); false, and nothing written,
    /// when the value does not fit.
    #[inline]
    pub fn write<B: Blackboard>(&self, bb: &mut B, value: Value<'_>) -> bool {
        match self {
            Output::Field(field) => bb.set(*field, value),
            Output::Entry(entry) => entry.set(value),
        }
    }
}

/// A tree entry as a leaf's output writes it: its two words in the cells
/// the agent's leaves read, which the tick stores back into the agent's
/// actor when the leaf returns.
#[derive(Clone, Copy, Debug)]
pub struct EntryOut<'a> {
    cells: &'a [Cell<u32>],
    ty: ScriptType,
}

impl EntryOut<'_> {
    /// Writes `value`, converted as a blackboard field of the entry's type
    /// converts it (an int into a float entry; a float with no fraction
    /// into an int entry); false, and nothing written, when it does not
    /// fit. Strings never fit: an entry's strings are the tree's own texts
    /// (the compiler refuses a string output naming an entry).
    #[inline]
    pub fn set(&self, value: Value<'_>) -> bool {
        let word = match (self.ty, value) {
            (ScriptType::Bool, Value::Bool(b)) => u64::from(b),
            (ScriptType::Int, Value::Int(i)) => i as u64,
            (ScriptType::Int, Value::Float(f))
                if f.fract() == 0.0 && (-9.2e18..9.2e18).contains(&f) =>
            {
                f as i64 as u64
            }
            (ScriptType::Float, Value::Float(f)) => f.to_bits(),
            (ScriptType::Float, Value::Int(i)) => (i as f64).to_bits(),
            _ => return false,
        };
        let [lo, hi] = self.cells else {
            return false;
        };
        lo.set(word as u32);
        hi.set((word >> 32) as u32);
        true
    }

    /// The entry's type.
    #[inline]
    pub fn ty(&self) -> ScriptType {
        self.ty
    }
}

/// The value of a built-in node's int input parameter `word` in a shape's
/// parameter `table`: a literal, or a blackboard field read with `get`;
/// `None` if it is not an int. (A built-in node's parameters read no
/// entries: the compiler refuses.)
pub(crate) fn int_input<B>(
    word: u64,
    table: &[u64],
    strings: &[Box<str>],
    get: fn(&B, FieldId) -> Value<'_>,
    bb: &B,
) -> Option<i64> {
    match Input::of(word, table, strings, &[]).read_with(get, bb, treebeard_shape::FieldType::Int) {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

impl<'a> Input<'a> {
    /// The input an input parameter's `word` names in a shape's parameter
    /// `table` (validation checked that a literal's offset is in it, and
    /// that an entry reference is a condition's, an action's or a scope's,
    /// whose calls get the agent's `entries`; an entry past them reads 0).
    #[inline]
    pub(crate) fn of(
        word: u64,
        table: &[u64],
        strings: &'a [Box<str>],
        entries: &[Cell<u32>],
    ) -> Input<'a> {
        if word & FIELD_REF != 0 {
            Input::Field(FieldId((word & !FIELD_REF) as u32))
        } else if word & ENTRY_REF != 0 {
            let at = 2 * (word & !ENTRY_REF) as usize;
            let value = match entries.get(at..at + 2) {
                Some([lo, hi]) => u64::from(lo.get()) | u64::from(hi.get()) << 32,
                _ => 0,
            };
            Input::Entry(value, strings)
        } else {
            Input::Literal(table[word as usize], strings)
        }
    }

    /// The value, reading a field from `bb`. A literal reads as `ty`.
    pub fn read<'b, B: crate::Blackboard>(
        &self,
        bb: &'b B,
        ty: treebeard_shape::FieldType,
    ) -> Value<'b>
    where
        'a: 'b,
    {
        self.read_with(B::get, bb, ty)
    }

    /// The value, reading a field from `bb` with `get` (a
    /// [`crate::script::FieldAccess`]'s). A literal reads as `ty`.
    pub fn read_with<'b, B>(
        &self,
        get: fn(&B, FieldId) -> Value<'_>,
        bb: &'b B,
        ty: treebeard_shape::FieldType,
    ) -> Value<'b>
    where
        'a: 'b,
    {
        use treebeard_shape::FieldType as T;
        match *self {
            Input::Field(field) => get(bb, field),
            Input::Literal(w, strings) => match ty {
                T::Bool => Value::Bool(w != 0),
                T::Int => Value::Int(w as i64),
                T::Float => Value::Float(f64::from_bits(w)),
                T::Str => Value::Str(strings.get(w as usize).map_or("", |s| s)),
            },
            Input::Entry(w, strings) => match ty {
                T::Str => Value::Str(crate::script::text(strings, w)),
                _ => Input::Literal(w, strings).read_with(get, bb, ty),
            },
        }
    }
}

/// One call of an immediate action: [`Args`], the signal, the action's
/// running state and, if the leaf owns them, its persistent slot and its
/// memory block.
#[derive(Debug)]
pub struct Call<'a> {
    pub(crate) args: &'a Args<'a>,
    pub(crate) signal: Signal,
    pub(crate) state: u32,
    pub(crate) persistent: Option<u32>,
    pub(crate) memory: Option<&'a mut MemoryBlock>,
}

impl<'a> Call<'a> {
    /// A call with `args`, `signal`, `state` and the persistent slot's
    /// value, if the leaf owns one; no memory block.
    #[inline(always)]
    pub(crate) fn new(
        args: &'a Args<'a>,
        signal: Signal,
        state: u32,
        persistent: Option<u32>,
    ) -> Call<'a> {
        Call {
            args,
            signal,
            state,
            persistent,
            memory: None,
        }
    }

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

    /// The leaf arguments, for the wrappers [`crate::leaf_set!`] writes:
    /// borrowed for as long as the call, not from it.
    #[inline(always)]
    pub fn leaf_args(&self) -> &'a Args<'a> {
        self.args
    }

    /// The leaf's persistent slot, if it declared one: a word per agent that
    /// survives cancellation and restarts (counters, timers). A change is
    /// applied when the tick completes, and undone if a concurrent decider
    /// above the leaf fails in the same tick.
    #[inline]
    pub fn persistent(&mut self) -> Option<&mut u32> {
        self.persistent.as_mut()
    }

    /// The leaf's memory block as `M`, the type it declared
    /// ([`Registered::memory`]): reset when the action starts (to zeros,
    /// or to its decider's block), kept while it runs. Changes are kept as
    /// a persistent slot's are.
    ///
    /// # Panics
    /// If the leaf declared no memory block, or a smaller one than `M`.
    #[inline]
    pub fn memory<M: Pod>(&mut self) -> &mut M {
        match self.memory.as_deref_mut() {
            Some(block) => block.get(),
            None => panic!("the leaf declared no memory block (`Registered::memory`)"),
        }
    }

    /// The leaf's memory block as words, if it declared one.
    #[inline]
    pub fn memory_block(&mut self) -> Option<&mut MemoryBlock> {
        self.memory.as_deref_mut()
    }
}

impl<'a> Deref for Call<'a> {
    type Target = Args<'a>;
    #[inline]
    fn deref(&self) -> &Args<'a> {
        self.args
    }
}

/// One call of a [`DecideFn`]: [`Args`], the agent's stimuli and the
/// decider block.
#[derive(Debug)]
pub struct DecideCall<'a> {
    pub(crate) args: &'a Args<'a>,
    /// The agent's stimuli words: per stimulus, its expiry (f32 bits) and
    /// its datum.
    pub(crate) stimuli: &'a [u32],
    pub(crate) block: u32,
    /// The Decide's own decider block, if it declared one.
    pub(crate) memory: Option<&'a mut MemoryBlock>,
}

impl<'a> DecideCall<'a> {
    /// The datum of the agent's stimulus `stimulus` (its index in the tree's
    /// declared stimuli), if it is active at this tick's time.
    pub fn stimulus(&self, stimulus: usize) -> Option<u32> {
        stimulus_datum(self.stimuli, stimulus, self.args.frame.time)
    }

    /// The decider block so far (0 when the Decide is called).
    pub fn block(&self) -> u32 {
        self.block
    }

    /// Sets the decider block: if this decider is chosen and runs an
    /// immediate action, the action starts with the block as its state.
    pub fn set_block(&mut self, block: u32) {
        self.block = block;
    }

    /// The decider block as `M`, the type the Decide declared
    /// ([`Registered::memory`]; Spore's DBlock): zeroed before each call;
    /// if this decider is chosen and runs an immediate action with a
    /// memory block, that action starts with this block's words as its
    /// memory.
    ///
    /// # Panics
    /// If the Decide declared no memory block, or a smaller one than `M`.
    pub fn memory<M: Pod>(&mut self) -> &mut M {
        match self.memory.as_deref_mut() {
            Some(block) => block.get(),
            None => panic!("the Decide declared no memory block (`Registered::memory`)"),
        }
    }
}

impl<'a> Deref for DecideCall<'a> {
    type Target = Args<'a>;
    #[inline]
    fn deref(&self) -> &Args<'a> {
        self.args
    }
}

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
