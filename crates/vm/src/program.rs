//! Programs: a validated shape linked to the application's leaf functions.

use crate::actor::{ActorLayout, Actors};
use crate::compiled::{BatchFn, CompiledTree, Engine, EngineError, HostedFn};
use crate::flow::{Flow, Reentry};
use crate::frame::Frame;
use crate::globals::Globals;
use crate::leaves::{
    ActionFn, Args, Call, ConditionFn, DecideCall, DecideFn, DecisionFlagsFn, Ending, EventFn,
    EventId, LeafFn, Leaves, int_input, scope_call,
};
use crate::memory_block::MemoryBlock;
use crate::request::{AgentId, Request};
use crate::script::{Fault, FieldAccess, Memory, ScriptValue};
use crate::status::{Signal, Status};
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;
use treebeard_shape::params::FIELD_REF;
use treebeard_shape::script::touches_fields;
use treebeard_shape::{CapacitySpec, FLAG_PERSISTENT, Kind, NodeIdx, Shape, ShapeItem};

/// A shape whose imports are resolved to functions, with its flow tables
/// (see the `flow` module): what the interpreter runs. Cheap to clone; the
/// shape is shared.
pub struct Program<B> {
    shape: Arc<Shape>,
    pub(crate) flow: Arc<Flow>,
    pub(crate) conditions: Box<[ConditionFn<B>]>,
    /// The re-entries' guards (`Flow::retests`), resolved to their calls.
    pub(crate) retests: Arc<[Retest<B>]>,
    /// Per item, its re-entry (`Flow::reentries`) with the leaf's call.
    pub(crate) reentries: Arc<[Reentered<B>]>,
    pub(crate) actions: Box<[ActionFn<B>]>,
    /// Spore deciders' Decide functions, by import.
    pub(crate) decides: Box<[DecideFn<B>]>,
    /// How agents' decision flags are read (see [`Leaves::decision_flags`]).
    pub(crate) decision_flags: Option<DecisionFlagsFn<B>>,
    /// Per immediate action: its event hook. Empty if no action has one.
    pub(crate) on_event: Box<[Option<EventFn<B>>]>,
    /// Per item: its persistent slot (`u32::MAX` for none), so that a
    /// tick indexes it instead of searching the persistent map. Empty if
    /// the shape has no persistent slots.
    pub(crate) slots: Arc<[u32]>,
    /// Per item: its memory block's first slot and words (`first << 8 |
    /// words`; 0 for none). Empty if no leaf has a memory block.
    pub(crate) memory: Arc<[u32]>,
    /// How scripts reach the blackboard's fields.
    pub(crate) access: Option<FieldAccess<B>>,
    /// The variables' initial values, 32 a word: an actor stores each
    /// variable's bit `^` its initial one (see the `actor` module).
    pub(crate) initial: Arc<[u32]>,
    /// The global tree state of the crowd running the program (see the
    /// `globals` module): a clone carries a copy.
    pub(crate) globals: Globals,
    /// The generated code linked for the shape, if any (see the
    /// `compiled` module), and the engine that runs plain ticks.
    compiled: Option<CompiledTree<B>>,
    engine: Engine,
}

impl<B> Clone for Program<B> {
    fn clone(&self) -> Self {
        Program {
            shape: Arc::clone(&self.shape),
            flow: Arc::clone(&self.flow),
            conditions: self.conditions.clone(),
            retests: Arc::clone(&self.retests),
            reentries: Arc::clone(&self.reentries),
            actions: self.actions.clone(),
            decides: self.decides.clone(),
            decision_flags: self.decision_flags,
            on_event: self.on_event.clone(),
            slots: Arc::clone(&self.slots),
            memory: Arc::clone(&self.memory),
            access: self.access,
            initial: Arc::clone(&self.initial),
            globals: self.globals.clone(),
            compiled: self.compiled,
            engine: self.engine,
        }
    }
}

impl<B> fmt::Debug for Program<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("items", &self.shape.len())
            .field("conditions", &self.conditions.len())
            .field("actions", &self.actions.len())
            .field("engine", &self.engine)
            .finish()
    }
}

/// A re-entry's guard (see `Flow::retests`), resolved at link time: the
/// condition's function, its item and its index, so that a plain tick
/// re-tests it with one indirect call and nothing looked up.
pub(crate) struct Retest<B> {
    pub(crate) f: ConditionFn<B>,
    pub(crate) item: ShapeItem,
    pub(crate) ip: u32,
}

/// A leaf's re-entry (see `Flow::reentries`), resolved at link time: its
/// guards' place in the re-tests and, for an immediate action that owns
/// no persistent slot, its function, so that a plain tick calls the
/// re-entered leaf with nothing looked up (neither its item nor its
/// import).
pub(crate) struct Reentered<B> {
    pub(crate) reentry: Reentry,
    /// The leaf's item.
    pub(crate) item: ShapeItem,
    /// The leaf's function, if it is a stateless immediate action with a
    /// re-entry; `None` for any other item.
    pub(crate) action: Option<ActionFn<B>>,
}

/// Whether `item` is an immediate action that owns no persistent slot:
/// its call needs the agent's blackboard alone.
#[inline(always)]
fn is_stateless_action(item: ShapeItem) -> bool {
    item.kind() == Some(Kind::Action) && item.flags() & FLAG_PERSISTENT == 0
}

/// Why a shape does not link against a leaf table.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkError {
    /// The shape imports a leaf the table does not register.
    Missing {
        /// The import's kind.
        kind: Kind,
        /// Its name.
        name: Box<str>,
    },
    /// The leaf is registered as another kind.
    Kind {
        /// The leaf's name.
        name: Box<str>,
        /// The kind the shape imports.
        imported: Kind,
        /// The kind the table registers.
        registered: Kind,
    },
    /// The leaf's parameters (names, types, order) differ.
    Params {
        /// The leaf's name.
        name: Box<str>,
        /// The parameters as the shape was compiled with them
        /// (`name: type`, in order).
        compiled: Vec<String>,
        /// The parameters as the table declares them now.
        declared: Vec<String>,
    },
    /// The table and the shape disagree on the persistent slot.
    Persistent {
        /// The leaf's name.
        name: Box<str>,
        /// What the table registers.
        registered: bool,
    },
    /// The blackboard's fields differ from those the shape was compiled
    /// against.
    Fields {
        /// The first field index that differs.
        index: usize,
    },
    /// The application's events differ from those the shape was compiled
    /// against.
    Events {
        /// The first event index that differs.
        index: usize,
    },
    /// A script reads or writes blackboard fields, or a `SendEvent` reads
    /// its target (a `PostStimulus` its datum) from one, but the table
    /// gives no access to them.
    FieldAccess,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Missing { kind, name } => write!(
                f,
                "the shape imports {kind} `{name}`, which the leaf table does not register"
            ),
            LinkError::Kind {
                name,
                imported,
                registered,
            } => write!(
                f,
                "the shape imports `{name}` as a {imported}, but the table registers a {registered}"
            ),
            LinkError::Params {
                name,
                compiled,
                declared,
            } => write!(
                f,
                "the shape was compiled with parameters ({}) for `{name}`, but the table declares ({}); compile it again",
                compiled.join(", "),
                declared.join(", ")
            ),
            LinkError::Persistent { name, registered } => write!(
                f,
                "the shape {} a persistent slot for `{name}`, but the table {}",
                if *registered { "gives no" } else { "gives" },
                if *registered {
                    "declares one"
                } else {
                    "does not"
                }
            ),
            LinkError::Fields { index } => write!(
                f,
                "blackboard field {index} differs from the one the shape was compiled against; compile it again"
            ),
            LinkError::Events { index } => write!(
                f,
                "event {index} differs from the one the shape was compiled against; compile it again"
            ),
            LinkError::FieldAccess => write!(
                f,
                "the tree's scripts use blackboard fields, but the leaf table gives scripts no access to them; call `Leaves::blackboard` (or `Leaves::field_access`)"
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
        let mut decides = Vec::new();
        let mut on_event = Vec::new();
        for kind in Kind::LEAVES {
            for import in shape.imports(kind) {
                let name = || import.name.clone();
                let Some(leaf) = leaves.get(&import.name) else {
                    return Err(LinkError::Missing { kind, name: name() });
                };
                let decl = &leaf.decl;
                if decl.kind != kind {
                    return Err(LinkError::Kind {
                        name: name(),
                        imported: kind,
                        registered: decl.kind,
                    });
                }
                let same_params = decl.params.len() == import.params.len()
                    && decl
                        .params
                        .iter()
                        .zip(&import.params)
                        .all(|(d, i)| d.name == i.name && d.ty == i.ty);
                if !same_params {
                    let show = |n: &str, t: &treebeard_shape::ParamType| format!("{n}: {t}");
                    return Err(LinkError::Params {
                        name: name(),
                        compiled: import.params.iter().map(|p| show(&p.name, &p.ty)).collect(),
                        declared: decl.params.iter().map(|p| show(&p.name, &p.ty)).collect(),
                    });
                }
                if decl.persistent != import.persistent {
                    return Err(LinkError::Persistent {
                        name: name(),
                        registered: decl.persistent,
                    });
                }
                match leaf.f {
                    LeafFn::Condition(f) => conditions.push(f),
                    LeafFn::Action(f) => {
                        actions.push(f);
                        on_event.push(leaf.on_event);
                    }
                    LeafFn::Deferred => {}
                    LeafFn::Decide(f) => decides.push(f),
                }
            }
        }
        let (shape_fields, table_fields) = (shape.fields(), leaves.field_decls());
        if let Some(index) =
            (0..shape_fields.len()).find(|&i| table_fields.get(i) != Some(&shape_fields[i]))
        {
            return Err(LinkError::Fields { index });
        }
        let (shape_events, table_events) = (shape.events(), leaves.events());
        if let Some(index) =
            (0..shape_events.len()).find(|&i| table_events.get(i) != Some(&shape_events[i]))
        {
            return Err(LinkError::Events { index });
        }
        let access = leaves.script_access();
        let scripts_use_fields = shape.scripts().iter().any(|s| touches_fields(&s.words));
        // `SendEvent`'s `to` and `PostStimulus`'s `data` are int inputs.
        let sends_to_fields = (0..shape.len() as u32).map(NodeIdx::new).any(|n| {
            matches!(shape.kind(n), Kind::SendEvent | Kind::PostStimulus)
                && shape.params(n)[1] & FIELD_REF != 0
        });
        if (scripts_use_fields || sends_to_fields) && access.is_none() {
            return Err(LinkError::FieldAccess);
        }
        let mut initial = vec![0u32; shape.variables().len().div_ceil(32)];
        for (i, v) in shape.variables().iter().enumerate() {
            initial[i / 32] |= u32::from(v.initial) << (i % 32);
        }
        if on_event.iter().all(Option::is_none) {
            on_event.clear();
        }
        let mut slots = Vec::new();
        let mut memory = Vec::new();
        if !shape.persistent_map().is_empty() {
            slots = vec![u32::MAX; shape.len()];
            for (slot, &node) in shape.persistent_map().iter().enumerate() {
                // A node's first slot is its persistent slot, but for a
                // leaf with only a memory block.
                let owns = shape.import(node).is_none_or(|i| i.persistent);
                if owns && slots[node.index()] == u32::MAX {
                    slots[node.index()] = slot as u32;
                }
                if let Some(block) = shape.memory_slots(node) {
                    memory.resize(shape.len(), 0);
                    memory[node.index()] = (block.start as u32) << 8 | block.len() as u32;
                }
            }
        }
        let flow = Flow::of(&shape);
        let retests = flow
            .retests()
            .iter()
            .map(|&ip| {
                let item = shape.items()[ip as usize];
                Retest {
                    f: conditions[item.import() as usize],
                    item,
                    ip,
                }
            })
            .collect();
        let reentries = (flow.reentries().iter().zip(shape.items()))
            .map(|(&reentry, &item)| Reentered {
                reentry,
                item,
                action: (reentry.exists() && is_stateless_action(item))
                    .then(|| actions[item.import() as usize]),
            })
            .collect();
        Ok(Program {
            globals: Globals::for_shape(&shape),
            flow: Arc::new(flow),
            retests,
            reentries,
            shape,
            conditions: conditions.into_boxed_slice(),
            actions: actions.into_boxed_slice(),
            decides: decides.into_boxed_slice(),
            decision_flags: leaves.decision_flags_fn(),
            on_event: on_event.into_boxed_slice(),
            slots: slots.into(),
            memory: memory.into(),
            access,
            initial: initial.into(),
            compiled: None,
            engine: Engine::Interpreted,
        })
    }

    /// Links `tree`, code generated for this program's shape, and makes it
    /// the engine of plain ticks ([`Engine::Compiled`]); a tree the
    /// generator left to the interpreter links too, and the interpreter
    /// keeps running it ([`CompiledTree::why_interpreted`] says why). Fails,
    /// leaving nothing linked, when the code was generated from another
    /// shape.
    pub fn with_compiled(mut self, tree: CompiledTree<B>) -> Result<Program<B>, EngineError> {
        let linked = self.shape.behavior_hash();
        if tree.hash() != linked {
            return Err(EngineError::ShapeChanged {
                tree: tree.name(),
                generated: tree.hash(),
                linked,
            });
        }
        self.compiled = Some(tree);
        self.engine = if tree.is_compiled() {
            Engine::Compiled
        } else {
            Engine::Interpreted
        };
        Ok(self)
    }

    /// The compiled tree linked, if any.
    pub fn compiled(&self) -> Option<&CompiledTree<B>> {
        self.compiled.as_ref()
    }

    /// The engine that runs plain ticks. Observed ticks, `halt` and events
    /// always run on the interpreter; both engines read and write the same
    /// actors, so the engine may change between any two ticks.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Chooses the engine of plain ticks: [`Engine::Compiled`] needs a
    /// compiled tree ([`Program::with_compiled`]).
    pub fn set_engine(&mut self, engine: Engine) -> Result<(), EngineError> {
        if engine == Engine::Compiled {
            match &self.compiled {
                None => return Err(EngineError::NotCompiled("")),
                Some(tree) if !tree.is_compiled() => {
                    return Err(EngineError::NotCompiled(tree.why_interpreted()));
                }
                Some(_) => {}
            }
        }
        self.engine = engine;
        Ok(())
    }

    /// The compiled batch function, when the compiled engine runs plain
    /// ticks of actors of `layout`.
    #[inline]
    pub(crate) fn compiled_tick(&self, layout: ActorLayout) -> Option<BatchFn<B>> {
        match (self.engine, &self.compiled) {
            (Engine::Compiled, Some(tree)) => tree.batch_fn(layout),
            _ => None,
        }
    }

    /// The hosted compiled tree, when the compiled engine runs plain ticks
    /// and the tree was generated hosted (see [`CompiledTree::hosted`]).
    #[inline]
    pub(crate) fn hosted_root(&self) -> Option<HostedFn<B>> {
        match (self.engine, &self.compiled) {
            (Engine::Compiled, Some(tree)) => tree.hosted_fn(),
            _ => None,
        }
    }

    /// The persistent slot of the leaf at item `node`, if it owns one.
    #[inline]
    pub(crate) fn slot(&self, node: u32) -> Option<usize> {
        self.slots
            .get(node as usize)
            .filter(|&&s| s != u32::MAX)
            .map(|&s| s as usize)
    }

    /// The slots of the memory block of the leaf at item `node`, if it
    /// declares one.
    #[inline]
    pub(crate) fn memory_slots(&self, node: u32) -> Option<std::ops::Range<usize>> {
        let packed = *self.memory.get(node as usize)?;
        let first = (packed >> 8) as usize;
        (packed != 0).then(|| first..first + (packed & 0xFF) as usize)
    }

    /// Words of the leaf cells an agent's tick lends its leaves (`Args`):
    /// its variables' words, then its entries' (two an entry), the first
    /// words of its memory.
    #[inline]
    pub(crate) fn leaf_cell_words(&self) -> usize {
        crate::actor::leaf_words(&self.shape)
    }

    /// The shape.
    #[inline]
    pub fn shape(&self) -> &Arc<Shape> {
        &self.shape
    }

    /// The global tree state: what the shape's `Gate`, `GlobalCooldown` and
    /// `Team` nodes share across the crowd running the program.
    pub fn globals(&self) -> &Globals {
        &self.globals
    }

    /// The global tree state, to restore from a snapshot (see
    /// [`Globals::restore_words`]).
    pub fn globals_mut(&mut self) -> &mut Globals {
        &mut self.globals
    }

    /// Checks the global tree state against the agents' tickets in
    /// `actors`: every `Gate`'s count is the number of actors admitted to
    /// it, within its `max`; every `Team`'s count is its number of teams,
    /// every member still in a team holds its seat's ticket, and every
    /// admitted ticket at a `Team` is a seat of the table. It holds after
    /// every settling; use it on state from outside (a snapshot) and in
    /// tests.
    pub fn check_globals(&self, actors: &Actors) -> Result<(), String> {
        self.globals.check(&self.shape, actors)
    }

    /// Makes room in the global state for a crowd of `agents`, so that
    /// settling its ticks does not allocate: every agent asking at every
    /// crowd node at once, and `agents / size` teams per `Team` node (a
    /// crowd calls this as it grows).
    pub fn reserve_globals(&mut self, agents: usize) {
        self.globals.reserve(&self.shape, agents);
    }

    /// Settles the crowd requests of a tick of `frame` that ticked agents
    /// of `actors` (agent `i` is actor `i`), after the tick: gate slots
    /// given back, cool-downs started and the teams' arrivals, leaves and
    /// break-outs; then the teams that broke or emptied end (their members
    /// still in them get a broken ticket); then requests to enter a gate,
    /// an entering cool-down or a team, answered in agent order in the
    /// agents' actors (teams matched in that order). `requests` is the tick's request stream, in agent order; its
    /// other requests are ignored. A crowd calls this after every tick;
    /// code that ticks agents one by one calls it after each round. See the
    /// `globals` module for the latency it implies.
    pub fn settle(&mut self, frame: &Frame, requests: &[Request], actors: &mut Actors) {
        self.globals.settle(&self.shape, frame, requests, actors);
    }

    /// The arguments of the leaf at `node`.
    fn args<'a>(
        &'a self,
        node: NodeIdx,
        agent: AgentId,
        frame: &'a Frame,
        want: Kind,
        cells: &'a [Cell<u32>],
    ) -> Args<'a> {
        let item = self.shape.item(node);
        assert_eq!(
            item.kind(),
            Some(want),
            "item {} is not a {want}",
            node.get()
        );
        Args {
            item,
            node: node.get(),
            ..Args::of_shape(&self.shape, cells, agent, *frame)
        }
    }

    /// Calls the condition at `node` as a tick would, the agent's tree
    /// variables and entries being `cells` (its [`ActorRef::leaf_words`]
    /// as cells, `Cell::from_mut(words).as_slice_of_cells()`, which inputs
    /// that read an entry and [`Args::variable`] see, and outputs and
    /// [`Args::set_variable`] write; `&[]` for a tree with neither). For
    /// tools that run a program's leaves outside the interpreter
    /// (reference interpreters, debuggers); ticks never come here.
    ///
    /// [`ActorRef::leaf_words`]: crate::ActorRef::leaf_words
    ///
    /// # Panics
    /// If `node` is not a condition.
    pub fn call_condition(
        &self,
        node: NodeIdx,
        blackboard: &B,
        agent: AgentId,
        frame: &Frame,
        cells: &[Cell<u32>],
    ) -> bool {
        let args = self.args(node, agent, frame, Kind::Condition, cells);
        (self.conditions[args.item.import() as usize])(blackboard, &args)
    }

    /// Calls the immediate action at `node` as a tick would, with its state,
    /// persistent slot and memory block (see [`Program::call_condition`]).
    ///
    /// # Panics
    /// If `node` is not an immediate action.
    #[allow(clippy::too_many_arguments)]
    pub fn call_action(
        &self,
        node: NodeIdx,
        blackboard: &mut B,
        agent: AgentId,
        frame: &Frame,
        signal: Signal,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
        cells: &[Cell<u32>],
    ) -> Status {
        let args = self.args(node, agent, frame, Kind::Action, cells);
        let mut call = Call {
            args: &args,
            signal,
            state: *state,
            persistent: persistent.as_deref().copied(),
            memory,
        };
        let status = (self.actions[args.item.import() as usize])(blackboard, &mut call);
        *state = call.state;
        if let (Some(slot), Some(v)) = (persistent, call.persistent) {
            *slot = v;
        }
        status
    }

    /// Calls the hooks of the scope at `node` as a tick would: its enter
    /// (`how` is `None`) or its exit (see [`crate::ScopeHooks`]).
    ///
    /// # Panics
    /// If `node` is not a scope.
    pub fn call_scope(
        &self,
        node: NodeIdx,
        blackboard: &mut B,
        agent: AgentId,
        frame: &Frame,
        how: Option<Ending>,
        cells: &[Cell<u32>],
    ) {
        let mut args = self.args(node, agent, frame, Kind::Scope, cells);
        let (item, signal, state) = scope_call(args.table, args.item, how);
        args.item = item;
        let mut call = Call::new(&args, signal, state, None);
        (self.actions[item.import() as usize])(blackboard, &mut call);
    }

    /// Calls the Decide leaf at `node` as its group would ask it, with the
    /// agent's stimuli `stimuli` (per declared stimulus its expiry, `f32`
    /// bits, and its datum, as [`crate::ActorRef`] keeps them): its score
    /// and the decider block it set (see [`Program::call_condition`]); a
    /// Decide with a memory block fills `memory`.
    ///
    /// # Panics
    /// If `node` is not a Decide leaf.
    pub fn call_decide(
        &self,
        node: NodeIdx,
        blackboard: &B,
        agent: AgentId,
        frame: &Frame,
        stimuli: &[u32],
        memory: Option<&mut MemoryBlock>,
    ) -> (f32, u32) {
        // Decide functions read no entries (the compiler refuses them).
        let args = self.args(node, agent, frame, Kind::Decide, &[]);
        let mut call = DecideCall {
            args: &args,
            stimuli,
            block: 0,
            memory,
        };
        let score = (self.decides[args.item.import() as usize])(blackboard, &mut call);
        (score, call.block)
    }

    /// The agent's decision flags, as its groups read them: by the
    /// program's [`Leaves::decision_flags`], or 0.
    pub fn decision_flags(&self, blackboard: &B) -> u32 {
        self.decision_flags.map_or(0, |f| f(blackboard))
    }

    /// Runs the script `index` of the shape as a tick would, over
    /// `blackboard` and the tree memory `memory` (the variables' true
    /// values and the entries' words); a `read_only` script (a condition)
    /// cannot assign. For tools that run a program outside the
    /// interpreter (see [`Program::call_condition`]).
    ///
    /// # Errors
    /// The [`Fault`] where the script stops.
    ///
    /// # Panics
    /// If the shape has no script `index`.
    pub fn run_script(
        &self,
        index: u64,
        blackboard: &mut B,
        memory: Memory<'_>,
        read_only: bool,
    ) -> Result<ScriptValue, Fault> {
        self.script_access()
            .run(self.shape.script(index), blackboard, memory, read_only)
    }

    /// How scripts and `SendEvent` targets reach the blackboard's fields:
    /// the table's access, or none (linking checked that nothing needs one
    /// then).
    #[inline]
    pub(crate) fn script_access(&self) -> FieldAccess<B> {
        self.access.unwrap_or_else(FieldAccess::none)
    }

    /// The value of the int input parameter `word` (a literal, or a
    /// blackboard field read through the script access), as a tick reads
    /// `SendEvent`'s `to`; `None` if the field is not an int.
    pub fn input_int(&self, word: u64, blackboard: &B) -> Option<i64> {
        let shape = &self.shape;
        let get = self.script_access().get;
        int_input(word, shape.param_table(), shape.strings(), get, blackboard)
    }

    /// Delivers `event` to the immediate action at `node`, if it has an
    /// event hook (see [`Program::call_condition`]); returns whether one ran.
    ///
    /// # Panics
    /// If `node` is not an immediate action.
    #[allow(clippy::too_many_arguments)]
    pub fn call_event(
        &self,
        node: NodeIdx,
        blackboard: &mut B,
        agent: AgentId,
        frame: &Frame,
        event: EventId,
        state: &mut u32,
        persistent: Option<&mut u32>,
        memory: Option<&mut MemoryBlock>,
        cells: &[Cell<u32>],
    ) -> bool {
        let args = self.args(node, agent, frame, Kind::Action, cells);
        let Some(Some(hook)) = self.on_event.get(args.item.import() as usize).copied() else {
            return false;
        };
        let mut call = Call {
            args: &args,
            signal: Signal::Tick,
            state: *state,
            persistent: persistent.as_deref().copied(),
            memory,
        };
        hook(blackboard, &mut call, event);
        *state = call.state;
        if let (Some(slot), Some(v)) = (persistent, call.persistent) {
            *slot = v;
        }
        true
    }

    /// Whether any of the program's actions has an event hook.
    #[inline]
    pub fn handles_events(&self) -> bool {
        !self.on_event.is_empty()
    }

    /// The shape's capacity specification.
    #[inline]
    pub fn spec(&self) -> &CapacitySpec {
        self.shape.spec()
    }
}
