//! What a leaf call gets besides the blackboard: [`Args`] (its
//! parameters, read from the shape, its inputs and outputs, the agent's
//! tree entries and variables, where and when it runs), and the call
//! records of actions ([`Call`]: the signal, the action's state, its
//! persistent slot and memory block) and of Spore's Decide functions
//! ([`DecideCall`]).

use super::EventId;
use crate::actor::stimulus_datum;
use crate::blackboard::{Blackboard, FieldId, Value};
use crate::frame::Frame;
use crate::memory_block::MemoryBlock;
use crate::request::AgentId;
use crate::status::Signal;
use bytemuck::Pod;
use std::cell::Cell;
use std::ops::Deref;
use treebeard_shape::params::{ENTRY_REF, FIELD_REF};
use treebeard_shape::script::ScriptType;
use treebeard_shape::{Entry, NodeIdx, Shape, ShapeItem};

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

    /// Parameter word `i`, unchecked: what [`leaf_set!`](crate::leaf_set)'s
    /// leaves read their declared parameters with.
    ///
    /// # Safety
    /// `i` must be below the number of parameters the leaf was linked
    /// with: linking checks the leaf's declared parameters against its
    /// import's, and the validator checks that every item of the import
    /// has that many words, inside the parameter table.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn word_unchecked(&self, i: usize) -> u64 {
        let p = self.item.params();
        debug_assert!(i < p.len as usize, "parameter {i} of a leaf with {}", p.len);
        // SAFETY: the caller's `i` is below `p.len`, and the validator
        // checked `p.offset + p.len` against the table's length.
        unsafe { *self.table.get_unchecked(p.offset as usize + i) }
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

    /// Parameter `i` as an event (a parameter of [`Leaves::event_param`](super::Leaves::event_param)'s
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
    /// what it held when it last returned [`Status::Running`](crate::Status::Running). Kept only while
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
    /// ([`Registered::memory`](super::Registered::memory)): reset when the action starts (to zeros,
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

/// One call of a [`DecideFn`](super::DecideFn): [`Args`], the agent's stimuli and the
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
    /// ([`Registered::memory`](super::Registered::memory); Spore's DBlock): zeroed before each call;
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
