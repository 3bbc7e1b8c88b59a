//! The built-in test leaves that scenarios (and the CLI) run trees with.
//!
//! | leaf | kind | parameters | does |
//! | --- | --- | --- | --- |
//! | `Succeed` | action | | succeeds |
//! | `Fail` | action | | fails |
//! | `Running` | action | | runs forever |
//! | `WaitTicks` | action | `ticks` (an int input) | runs `ticks` ticks, then succeeds |
//! | `Statuses` | action | `statuses` | returns the listed statuses on its successive calls (`"R R S"`, or words), the last one repeating; a persistent slot counts the calls (cancel calls are not steps) |
//! | `Condition` | condition | `test` | `key`, `!key`, or `key OP operand` with `OP` one of `== != < <= > >=` and `operand` a number, `true`, `false`, `'text'` or `{key}` |
//! | `Set` | action | `key`, `value` | sets the key (written `key` or, as a BT.CPP output port, `{key}`) to the value (a literal, or `{key}`), succeeds |
//! | `Chance` | condition | `percent` | succeeds with that chance, decided by the scenario's seed, the agent, the tick and the node |
//! | `Deferred` | deferred | `label` = "" (a label), `ticks` = -1, `outcome` = success | a game-system action: the scenario's script completes it, or it completes by itself `ticks` ticks after its launch |
//! | `WaitEvent` | action | `event` | runs until the named event is sent to the agent, then succeeds (an event hook) |
//! | `Tally` | action | `ticks` (an int input), `to` (an int output) | a behaviour with a memory block (`given`, `count`): counts its calls, writes `given × 100 + count` to `to` on each and succeeds on the `ticks`-th; cancelled, writes the negative; its memory starts as zeros or as its decider's `Give` block |
//! | `Give` | decide | `give` (an int) | a Spore Decide that always accepts; its decider block (`given`) holds `give` |
//! | `Score` | decide | `test` = "", `score` = "1", `block` = 0, `stimulus` = "" | a Spore Decide: `score` (a number or `{key}`) when `test` holds (no test: always), else 0; its decider block is `block`, or, with a `stimulus`, that stimulus's datum, and it scores 0 while the stimulus is not active |
//!
//! An int key named `decision_flags`, when the scenario declares one, holds
//! each agent's decision flags (the deciders' `decision_*` preconditions).
//!
//! Parameters that need the scenario's keys (`test`, `key`, `value`,
//! `statuses`) are parsed once, when the tree loads, into a table by node:
//! a tick only indexes it.

use crate::blackboard::{DynBlackboard, DynValue};
use std::sync::Arc;
use treebeard_load::{Stub, StubStatus};
use treebeard_shape::{FieldDecl, FieldType, NodeIdx, ParamSpec, ParamType, Shape, suggest};
use treebeard_vm::script::FieldAccess;
use treebeard_vm::{
    Args, Behavior, Blackboard, Call, DecideCall, Ending, EventId, In, LeafParam, Leaves, Out,
    ScopeHooks, Signal, Status, Value,
};

/// The memory block of [`Builtin::tally`]: what its decider's
/// `Give` gave (a Decide's block is copied into the start
/// of the memory, so the words both hold come first), and its calls since
/// it started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct TallyMemory {
    /// The `give` of the decider's `Give`, or 0.
    pub given: u32,
    /// Calls since the action started (cancel calls aside).
    pub count: u32,
}

/// The decider block of the Decide `Give`: the prefix of [`TallyMemory`]
/// it fills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct GiveBlock {
    /// The `give` parameter.
    pub given: u32,
}

/// One scenario agent: its blackboard, and what the built-in leaves share.
#[derive(Clone, Debug)]
pub struct Agent {
    /// The agent's keys.
    pub blackboard: DynBlackboard,
    /// The agent's number.
    pub index: u32,
    pub(crate) setup: Arc<Setup>,
}

impl Agent {
    /// Agent `index` with `blackboard`, for leaves configured by `setup`.
    pub(crate) fn new(index: u32, blackboard: DynBlackboard, setup: Arc<Setup>) -> Agent {
        Agent {
            blackboard,
            index,
            setup,
        }
    }
}

/// What the built-in leaves of one loaded tree need: their parsed
/// parameters by node, and the seed.
#[derive(Debug, Default)]
pub(crate) struct Setup {
    pub(crate) nodes: Vec<Config>,
    pub(crate) seed: u64,
    /// The int key holding the agents' decision flags, if declared.
    pub(crate) decision_flags: Option<usize>,
    /// The keys' names, by index (Lua's `entity`: read only with the
    /// `lua` feature).
    #[cfg_attr(not(feature = "lua"), allow(dead_code))]
    pub(crate) keys: Vec<Box<str>>,
}

/// A built-in leaf's parsed parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Config {
    #[default]
    None,
    Test(Test),
    Set(usize, Operand),
    Statuses(Vec<Status>),
    Score(Score),
}

/// A `Score` Decide's parsed parameters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Score {
    test: Option<Test>,
    score: Operand,
    block: u32,
    stimulus: Option<usize>,
}

/// The key named `decision_flags`, if `keys` declare it as an int.
pub(crate) fn decision_flags_key(keys: &[FieldDecl]) -> Option<usize> {
    keys.iter()
        .position(|k| &*k.name == "decision_flags" && k.ty == FieldType::Int)
}

/// A condition's test.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Test {
    Key(usize, bool),
    Compare(usize, Op, Operand),
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A value a leaf reads: a literal or a key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Operand {
    Literal(DynValue),
    Key(usize),
}

impl Operand {
    fn get<'a>(&'a self, bb: &'a DynBlackboard) -> Option<&'a DynValue> {
        match self {
            Operand::Literal(v) => Some(v),
            Operand::Key(k) => bb.value(*k),
        }
    }
}

impl Setup {
    fn config(&self, node: NodeIdx) -> &Config {
        self.nodes.get(node.index()).unwrap_or(&Config::None)
    }

    fn test(&self, node: NodeIdx, bb: &DynBlackboard) -> bool {
        let Config::Test(test) = self.config(node) else {
            return false;
        };
        test.holds(bb)
    }

    /// `Score`: its score, 0 when its test or its stimulus is not met.
    fn score(&self, bb: &DynBlackboard, call: &mut DecideCall<'_>) -> f32 {
        let Config::Score(score) = self.config(call.node()) else {
            return 0.0;
        };
        if score.test.as_ref().is_some_and(|t| !t.holds(bb)) {
            return 0.0;
        }
        let block = match score.stimulus {
            None => score.block,
            Some(stimulus) => match call.stimulus(stimulus) {
                Some(datum) => datum,
                None => return 0.0,
            },
        };
        call.set_block(block);
        match score
            .score
            .get(bb)
            .and_then(|v| v.to_type(FieldType::Float))
        {
            Some(DynValue::Float(x)) => x as f32,
            _ => 0.0,
        }
    }
}

impl Test {
    fn holds(&self, bb: &DynBlackboard) -> bool {
        match self {
            Test::Key(k, want) => bb.value(*k) == Some(&DynValue::Bool(*want)),
            Test::Compare(k, op, right) => {
                let (Some(left), Some(right)) = (bb.value(*k), right.get(bb)) else {
                    return false;
                };
                compare(left, *op, right)
            }
        }
    }
}

fn compare(left: &DynValue, op: Op, right: &DynValue) -> bool {
    use std::cmp::Ordering;
    let ordering = match (left, right) {
        (DynValue::Int(a), DynValue::Int(b)) => a.partial_cmp(b),
        (DynValue::Str(a), DynValue::Str(b)) => a.partial_cmp(b),
        (DynValue::Bool(a), DynValue::Bool(b)) => a.partial_cmp(b),
        (a, b) => match (a.to_type(FieldType::Float), b.to_type(FieldType::Float)) {
            (Some(DynValue::Float(x)), Some(DynValue::Float(y))) => x.partial_cmp(&y),
            _ => None,
        },
    };
    let Some(o) = ordering else { return false };
    match op {
        Op::Eq => o == Ordering::Equal,
        Op::Ne => o != Ordering::Equal,
        Op::Lt => o == Ordering::Less,
        Op::Le => o != Ordering::Greater,
        Op::Gt => o == Ordering::Greater,
        Op::Ge => o != Ordering::Less,
    }
}

/// The built-in leaves that compiled trees call (`treebeard-codegen`):
/// one function per leaf, with the leaf's parameters as arguments, which
/// the runtime table ([`builtin`]) calls too, so both engines run the same
/// code. (`Deferred` has no function; `WaitEvent`, `Holding` and `Score`
/// are kinds compiled trees do not hold yet.) The string parameters of
/// `Statuses`, `Condition` and `Set` are parsed when the tree loads, by
/// node, so their functions do not read them again.
pub struct Builtin;

impl Builtin {
    /// `Succeed`.
    pub fn succeed(_: &mut Agent, _: &mut Call<'_>) -> Status {
        Status::Success
    }

    /// `Fail`.
    pub fn fail(_: &mut Agent, _: &mut Call<'_>) -> Status {
        Status::Failure
    }

    /// `Running`.
    pub fn running(_: &mut Agent, _: &mut Call<'_>) -> Status {
        Status::Running
    }

    /// `WaitTicks(ticks)`: running for `ticks` ticks, then success. The
    /// number is an input (a literal, a key, or a tree's entry), read on
    /// every tick.
    pub fn wait_ticks(agent: &mut Agent, call: &mut Call<'_>, ticks: In<'_, i64>) -> Status {
        if i64::from(call.state()) >= ticks.read(&agent.blackboard) {
            return Status::Success;
        }
        *call.state_mut() += 1;
        Status::Running
    }

    /// `Write(value, to)`: writes the int `value` (a literal, a key, or a
    /// tree's entry) into its output `to` (a key, or a tree's entry, which
    /// naming it creates); succeeds, or fails when the value does not fit.
    pub fn write(
        agent: &mut Agent,
        _: &mut Call<'_>,
        value: In<'_, i64>,
        to: Out<'_, i64>,
    ) -> Status {
        let value = value.read(&agent.blackboard);
        if to.write(&mut agent.blackboard, value) {
            Status::Success
        } else {
            Status::Failure
        }
    }

    /// `Tally(ticks, to)`: a behaviour with a memory block
    /// ([`TallyMemory`]): counts its calls in it, writes `given × 100 +
    /// count` into its output `to` on each, and succeeds on its `ticks`-th
    /// call. Cancelled, it writes the negative of that, from the memory it
    /// kept. Its memory starts as zeros, or as the decider block of its
    /// decider's `Give` (the `given` word).
    pub fn tally(
        agent: &mut Agent,
        call: &mut Call<'_>,
        ticks: In<'_, i64>,
        to: Out<'_, i64>,
    ) -> Status {
        let cancel = call.signal() == Signal::Cancel;
        let memory = call.memory::<TallyMemory>();
        if !cancel {
            memory.count += 1;
        }
        let (given, count) = (i64::from(memory.given), i64::from(memory.count));
        let mark = given * 100 + count;
        to.write(&mut agent.blackboard, if cancel { -mark } else { mark });
        if count >= ticks.read(&agent.blackboard) {
            Status::Success
        } else {
            Status::Running
        }
    }

    /// `Statuses(statuses)`: the next status of its list. A cancel call is
    /// not a step of the script.
    pub fn statuses(agent: &mut Agent, call: &mut Call<'_>, _statuses: &str) -> Status {
        if call.signal() == Signal::Cancel {
            return Status::Failure;
        }
        let Config::Statuses(statuses) = agent.setup.config(call.node()) else {
            return Status::Failure;
        };
        let Some(calls) = call.persistent() else {
            return Status::Failure;
        };
        let i = (*calls as usize).min(statuses.len().saturating_sub(1));
        *calls = calls.saturating_add(1);
        statuses.get(i).copied().unwrap_or(Status::Failure)
    }

    /// `Condition(test)`.
    pub fn condition(agent: &Agent, args: &Args<'_>, _test: &str) -> bool {
        agent.setup.test(args.node(), &agent.blackboard)
    }

    /// `Set(key, value)`.
    pub fn set(agent: &mut Agent, call: &mut Call<'_>, _key: &str, _value: &str) -> Status {
        let Agent {
            blackboard, setup, ..
        } = agent;
        let Config::Set(key, value) = setup.config(call.node()) else {
            return Status::Failure;
        };
        let Some(v) = value.get(blackboard).cloned() else {
            return Status::Failure;
        };
        blackboard.put(*key, &v);
        Status::Success
    }

    /// `Chance(percent)`: by the scenario's seed, the agent, the tick and
    /// the node.
    pub fn chance(agent: &Agent, args: &Args<'_>, percent: i64) -> bool {
        let f = args.frame();
        let roll = mix(agent.setup.seed
            ^ mix(u64::from(agent.index))
            ^ mix(f.index << 20 | u64::from(args.node().get())));
        (roll % 100) < percent.clamp(0, 100) as u64
    }
}

/// Lua code in a scenario (`lua: true`): `entity.key` is the agent's key,
/// and a call `F(...)` is the key `F`'s: a bool key answers its value; an
/// int key answers its value too, and a call from an `ExecuteLua` or a
/// `LuaWrapper` counts one more (`DoSomething()`).
#[cfg(feature = "lua")]
impl treebeard_lua::LuaHost for Agent {
    fn field(&self, name: &str) -> Option<treebeard_vm::FieldId> {
        let i = self.setup.keys.iter().position(|k| &**k == name)?;
        Some(treebeard_vm::FieldId(i as u32))
    }

    fn get(&self, field: treebeard_vm::FieldId) -> Value<'_> {
        self.blackboard.get(field)
    }

    fn set(&mut self, field: treebeard_vm::FieldId, value: Value<'_>) -> bool {
        self.blackboard.set(field, value)
    }

    fn has_function(&self, name: &str) -> bool {
        self.setup.keys.iter().any(|k| &**k == name)
    }

    fn query(
        &self,
        name: &str,
        _: &[treebeard_lua::LuaValue],
    ) -> Option<Result<treebeard_lua::LuaValue, String>> {
        use treebeard_lua::LuaValue;
        let field = treebeard_lua::LuaHost::field(self, name)?;
        Some(Ok(match self.blackboard.get(field) {
            Value::Bool(b) => LuaValue::Bool(b),
            Value::Int(i) => LuaValue::Int(i),
            Value::Float(f) => LuaValue::Float(f),
            Value::Str(s) => LuaValue::Str(s.to_owned()),
        }))
    }

    fn command(
        &mut self,
        name: &str,
        args: &[treebeard_lua::LuaValue],
    ) -> Option<Result<treebeard_lua::LuaValue, String>> {
        let field = treebeard_lua::LuaHost::field(self, name)?;
        if let Value::Int(n) = self.blackboard.get(field) {
            self.blackboard.set(field, Value::Int(n + 1));
            return Some(Ok(treebeard_lua::LuaValue::Nil));
        }
        treebeard_lua::LuaHost::query(self, name, args)
    }
}

/// `Holding(flag)`: a scope that sets a bool key while it is open and
/// clears it when it ends, however it ends.
struct Holding;

impl ScopeHooks<Agent> for Holding {
    fn enter(agent: &mut Agent, args: &Args<'_>) {
        args.output(0)
            .write(&mut agent.blackboard, Value::Bool(true));
    }

    fn exit(agent: &mut Agent, args: &Args<'_>, _how: Ending) {
        args.output(0)
            .write(&mut agent.blackboard, Value::Bool(false));
    }
}

/// A small hash for `Chance`: SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `WaitEvent(event)`: running until its event arrives.
struct WaitEvent;

impl Behavior<Agent> for WaitEvent {
    const HANDLES_EVENTS: bool = true;

    fn update(_: &mut Agent, call: &mut Call<'_>) -> Status {
        if call.state() == 1 {
            Status::Success
        } else {
            Status::Running
        }
    }

    fn event(_: &mut Agent, call: &mut Call<'_>, event: EventId) {
        if event == call.event(0) {
            *call.state_mut() = 1;
        }
    }
}

/// The names of the built-in leaves.
pub const BUILTIN: &[&str] = &[
    "Succeed",
    "Fail",
    "Running",
    "WaitTicks",
    "Statuses",
    "Condition",
    "Set",
    "Chance",
    "Deferred",
    "WaitEvent",
    "Holding",
    "Score",
];

/// The built-in leaves over a blackboard of `keys`, with `events`
/// declared.
pub fn builtin(keys: &[FieldDecl], events: &[String]) -> Leaves<Agent> {
    let mut l = Leaves::<Agent>::new();
    l.fields(keys);
    l.field_access(FieldAccess {
        get: |agent, field| agent.blackboard.get(field),
        set: |agent, field, value| agent.blackboard.set(field, value),
    });
    for e in events {
        l.event(e);
    }
    l.action("Succeed", Builtin::succeed)
        .never_fails()
        .rust_fn("succeed")
        .describe("succeeds");
    l.action("Fail", Builtin::fail)
        .rust_fn("fail")
        .describe("fails");
    l.action("Running", Builtin::running)
        .never_fails()
        .rust_fn("running")
        .describe("runs forever");
    l.action("WaitTicks", |a, call| {
        let args = call.leaf_args();
        let ticks = In::from_word(args.word(0), args);
        Builtin::wait_ticks(a, call, ticks)
    })
    .param("ticks", <In<'_, i64>>::param_type())
    .never_fails()
    .rust_fn("wait_ticks")
    .describe("runs `ticks` ticks, then succeeds");
    l.action("Write", |a, call| {
        let args = call.leaf_args();
        let value = In::from_word(args.word(0), args);
        let to = Out::from_word(args.word(1), args);
        Builtin::write(a, call, value, to)
    })
    .param("value", <In<'_, i64>>::param_type())
    .param("to", <Out<'_, i64>>::param_type())
    .rust_fn("write")
    .describe("writes the int `value` into its output `to`, succeeds");
    l.scope::<Holding>("Holding")
        .param("flag", ParamType::Output(FieldType::Bool))
        .describe("a scope: sets the bool output `flag` while open, clears it when it ends");
    l.action("Statuses", |a, call| Builtin::statuses(a, call, ""))
        .param("statuses", ParamType::Str)
        .persistent()
        .rust_fn("statuses")
        .describe("returns the listed statuses on its successive calls, the last repeating");
    l.condition("Condition", |a, args| Builtin::condition(a, args, ""))
        .param("test", ParamType::Str)
        .rust_fn("condition")
        .describe("`key`, `!key` or `key OP operand` (OP: == != < <= > >=)");
    l.action("Set", |a, call| Builtin::set(a, call, "", ""))
        .param("key", ParamType::Str)
        .param("value", ParamType::Str)
        .rust_fn("set")
        .describe("sets a key to a literal or `{key}`, succeeds");
    l.condition("Chance", |a, args| Builtin::chance(a, args, args.int(0)))
        .param("percent", ParamType::Int)
        .rust_fn("chance")
        .describe("succeeds with the given chance, by seed, agent, tick and node");
    // `label` labels the action (not `name`, which BT.CPP XML reads as the
    // node's name); optional.
    l.deferred("Deferred")
        .with(ParamSpec::new("label", ParamType::Str).default(""))
        .with(ParamSpec::new("ticks", ParamType::Int).default(-1))
        .with(
            ParamSpec::new("outcome", ParamType::enumeration(&["success", "failure"]))
                .default("success"),
        )
        .describe("a game-system action: completed by the script, or `ticks` ticks after launch");
    let event = l.event_param();
    l.behavior::<WaitEvent>("WaitEvent")
        .param("event", event)
        .never_fails()
        .describe("runs until the named event is sent to the agent");
    l.action("Tally", |a, call| {
        let args = call.leaf_args();
        let ticks = In::from_word(args.word(0), args);
        let to = Out::from_word(args.word(1), args);
        Builtin::tally(a, call, ticks, to)
    })
    .param("ticks", <In<'_, i64>>::param_type())
    .param("to", <Out<'_, i64>>::param_type())
    .memory::<TallyMemory>()
    .rust_fn("tally")
    .describe("counts its calls in its memory block, writes given × 100 + count into `to`");
    l.decide("Give", |_, call| {
        let give = call.int(0);
        call.memory::<GiveBlock>().given = give as u32;
        1.0
    })
    .param("give", ParamType::Int)
    .memory::<GiveBlock>()
    .describe("a Spore Decide that always accepts, its decider block holding `give`");
    l.decide("Score", |a, call| a.setup.score(&a.blackboard, call))
        .with(ParamSpec::new("test", ParamType::Str).default(""))
        .with(ParamSpec::new("score", ParamType::Str).default("1"))
        .with(ParamSpec::new("block", ParamType::Int).default(0))
        .with(ParamSpec::new("stimulus", ParamType::Str).default(""))
        .describe(
            "a Spore Decide: `score` (a number or `{key}`) when `test` holds (no test: always), \
             else 0; its block is `block`, or the datum of `stimulus`, without which it scores 0",
        );
    l.decision_flags(|a| {
        let flags = a.setup.decision_flags.and_then(|k| a.blackboard.value(k));
        match flags {
            Some(&DynValue::Int(f)) => f as u32,
            _ => 0,
        }
    });
    l
}

/// Registers `stubs` (leaves a tree names that the registry lacks): each
/// returns its stub status on every tick.
pub fn add_stubs(leaves: &mut Leaves<Agent>, stubs: &[Stub]) {
    for stub in stubs {
        let r = match stub.status {
            StubStatus::Running => leaves
                .action(&stub.name, |_, _| Status::Running)
                .never_fails()
                .describe("a stub: keeps running"),
            StubStatus::Success => leaves
                .action(&stub.name, |_, _| Status::Success)
                .never_fails()
                .describe("a stub: succeeds at once"),
            StubStatus::Failure => leaves
                .action(&stub.name, |_, _| Status::Failure)
                .describe("a stub: fails at once"),
        };
        let mut r = r;
        for p in &stub.schema.params {
            r = r.with(p.clone());
        }
    }
}

/// A problem with a built-in leaf's parameters: the node and what.
pub(crate) type ConfigError = (NodeIdx, String);

/// Parses the parameters of the built-in leaves of `shape` against the
/// blackboard's `keys`.
pub(crate) fn configure(
    shape: &Shape,
    keys: &[FieldDecl],
) -> Result<Vec<Config>, Vec<ConfigError>> {
    let mut nodes = vec![Config::None; shape.len()];
    let mut errors = Vec::new();
    for (i, config) in nodes.iter_mut().enumerate() {
        let node = NodeIdx::new(i as u32);
        let Some(import) = shape.import(node) else {
            continue;
        };
        let words = shape.params(node);
        let text = |k: usize| {
            words
                .get(k)
                .and_then(|&w| shape.strings().get(w as usize))
                .map_or("", |s| &**s)
        };
        let parsed = match &*import.name {
            "Condition" => parse_test(text(0), keys)
                .map(Config::Test)
                .map_err(|e| ("test", e)),
            "Set" => parse_set(text(0), text(1), keys),
            "Statuses" => parse_statuses(text(0))
                .map(Config::Statuses)
                .map_err(|e| ("statuses", e)),
            "Score" => parse_score(shape, [text(0), text(1), text(3)], words.get(2), keys),
            _ => continue,
        };
        match parsed {
            Ok(c) => *config = c,
            Err((param, e)) => {
                errors.push((
                    node,
                    format!("parameter `{param}` of `{}`: {e}", import.name),
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(nodes)
    } else {
        Err(errors)
    }
}

fn key(name: &str, keys: &[FieldDecl]) -> Result<usize, String> {
    // A key written as an output port, `{key}` (BT.CPP's way), or bare.
    let name = name.trim();
    let name = treebeard_shape::params::field_name(name).unwrap_or(name);
    keys.iter().position(|k| &*k.name == name).ok_or_else(|| {
        let mut e = format!("the scenario declares no key `{name}`");
        match suggest(name, keys.iter().map(|k| &*k.name)) {
            Some(s) => e.push_str(&format!("; did you mean `{s}`?")),
            None => e.push_str("; declare it in the scenario's `blackboard`"),
        }
        e
    })
}

/// An operand: `{key}`, or a literal read as `ty`.
fn operand(text: &str, ty: FieldType, keys: &[FieldDecl]) -> Result<Operand, String> {
    let text = text.trim();
    if let Some(name) = treebeard_shape::params::field_name(text) {
        let k = key(name, keys)?;
        let found = keys[k].ty;
        let fits = found == ty || (found == FieldType::Int && ty == FieldType::Float);
        if !fits {
            return Err(format!(
                "key `{name}` holds {found} values, but {ty} is needed"
            ));
        }
        return Ok(Operand::Key(k));
    }
    literal(text, ty).map(Operand::Literal)
}

/// A literal of type `ty`.
pub(crate) fn literal(text: &str, ty: FieldType) -> Result<DynValue, String> {
    let t = text.trim();
    let bad = || format!("expected {ty}, found `{t}`");
    match ty {
        FieldType::Bool => match t {
            "true" => Ok(DynValue::Bool(true)),
            "false" => Ok(DynValue::Bool(false)),
            _ => Err(bad()),
        },
        FieldType::Int => t.parse().map(DynValue::Int).map_err(|_| bad()),
        FieldType::Float => t.parse().map(DynValue::Float).map_err(|_| bad()),
        FieldType::Str => {
            let unquoted = t
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| t.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
                .unwrap_or(t);
            Ok(DynValue::Str(unquoted.into()))
        }
    }
}

fn parse_test(text: &str, keys: &[FieldDecl]) -> Result<Test, String> {
    let t = text.trim();
    const OPS: [(&str, Op); 6] = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("<", Op::Lt),
        (">", Op::Gt),
    ];
    if let Some((at, (sym, op))) = OPS
        .iter()
        .filter_map(|&(sym, op)| t.find(sym).map(|at| (at, (sym, op))))
        .min_by_key(|&(at, (sym, _))| (at, std::cmp::Reverse(sym.len())))
    {
        let k = key(&t[..at], keys)?;
        let ty = keys[k].ty;
        let right = operand(&t[at + sym.len()..], ty, keys)?;
        if matches!(ty, FieldType::Bool | FieldType::Str) && !matches!(op, Op::Eq | Op::Ne) {
            return Err(format!("{ty} keys compare only with == and !="));
        }
        return Ok(Test::Compare(k, op, right));
    }
    let (name, want) = match t.strip_prefix('!') {
        Some(rest) => (rest, false),
        None => (t, true),
    };
    let k = key(name, keys)?;
    if keys[k].ty != FieldType::Bool {
        return Err(format!(
            "key `{}` holds {} values: compare it (`{} > 3`), or test a bool key",
            name.trim(),
            keys[k].ty,
            name.trim()
        ));
    }
    Ok(Test::Key(k, want))
}

/// `Set`'s parameters; an error names the parameter it is about.
fn parse_set(
    key_text: &str,
    value: &str,
    keys: &[FieldDecl],
) -> Result<Config, (&'static str, String)> {
    let k = key(key_text, keys).map_err(|e| ("key", e))?;
    let value = operand(value, keys[k].ty, keys).map_err(|e| ("value", e))?;
    Ok(Config::Set(k, value))
}

/// `Score`'s parameters (`test`, `score`, `stimulus` as text; `block`'s
/// word); an error names the parameter it is about.
fn parse_score(
    shape: &Shape,
    [test, score, stimulus]: [&str; 3],
    block: Option<&u64>,
    keys: &[FieldDecl],
) -> Result<Config, (&'static str, String)> {
    let test = match test.trim() {
        "" => None,
        t => Some(parse_test(t, keys).map_err(|e| ("test", e))?),
    };
    let score = operand(score, FieldType::Float, keys).map_err(|e| ("score", e))?;
    let block = block.map_or(0, |&w| w as i64);
    let block = u32::try_from(block)
        .or_else(|_| i32::try_from(block).map(|b| b as u32))
        .map_err(|_| ("block", format!("{block} does not fit in 32 bits")))?;
    let stimulus = match stimulus.trim() {
        "" => None,
        name => {
            let declared = shape.stimuli();
            let found = declared.iter().position(|s| &*s.name == name);
            Some(found.ok_or_else(|| {
                let mut e = format!("the tree declares no stimulus `{name}`");
                match suggest(name, declared.iter().map(|s| &*s.name)) {
                    Some(s) => e.push_str(&format!("; did you mean `{s}`?")),
                    None => e.push_str("; declare it in the tree file's `stimuli`"),
                }
                ("stimulus", e)
            })?)
        }
    };
    Ok(Config::Score(Score {
        test,
        score,
        block,
        stimulus,
    }))
}

fn parse_statuses(text: &str) -> Result<Vec<Status>, String> {
    let statuses: Result<Vec<Status>, String> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| match w.to_ascii_lowercase().as_str() {
            "s" | "success" => Ok(Status::Success),
            "f" | "failure" => Ok(Status::Failure),
            "r" | "running" => Ok(Status::Running),
            _ => Err(format!(
                "`{w}` is not a status: write S, F, R or success, failure, running"
            )),
        })
        .collect();
    let statuses = statuses?;
    if statuses.is_empty() {
        return Err("a script needs at least one status".into());
    }
    Ok(statuses)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<FieldDecl> {
        vec![
            FieldDecl::new("hunger", FieldType::Int),
            FieldDecl::new("alert", FieldType::Bool),
            FieldDecl::new("name", FieldType::Str),
            FieldDecl::new("speed", FieldType::Float),
        ]
    }

    #[test]
    fn tests_parse_keys_negations_and_comparisons() {
        let k = keys();
        assert_eq!(parse_test("alert", &k), Ok(Test::Key(1, true)));
        assert_eq!(parse_test(" !alert ", &k), Ok(Test::Key(1, false)));
        assert_eq!(
            parse_test("hunger >= 70", &k),
            Ok(Test::Compare(
                0,
                Op::Ge,
                Operand::Literal(DynValue::Int(70))
            ))
        );
        assert_eq!(
            parse_test("speed < {hunger}", &k),
            Ok(Test::Compare(3, Op::Lt, Operand::Key(0)))
        );
        assert_eq!(
            parse_test("name == 'bob'", &k),
            Ok(Test::Compare(
                2,
                Op::Eq,
                Operand::Literal(DynValue::Str("bob".into()))
            ))
        );
    }

    #[test]
    fn bad_tests_say_why() {
        let k = keys();
        assert_eq!(
            parse_test("hungr > 3", &k).unwrap_err(),
            "the scenario declares no key `hungr`; did you mean `hunger`?"
        );
        assert!(parse_test("hunger", &k).unwrap_err().contains("compare it"));
        assert!(
            parse_test("hunger > lots", &k)
                .unwrap_err()
                .contains("expected int, found `lots`")
        );
        assert!(
            parse_test("name < 'x'", &k)
                .unwrap_err()
                .contains("only with ==")
        );
        assert!(
            parse_test("alert == {hunger}", &k)
                .unwrap_err()
                .contains("holds int values")
        );
    }

    #[test]
    fn comparisons_follow_types() {
        let bb = DynBlackboard::new(vec![
            DynValue::Int(70),
            DynValue::Bool(true),
            DynValue::Str("bob".into()),
            DynValue::Float(1.5),
        ]);
        let setup = |t| Setup {
            nodes: vec![Config::Test(t)],
            seed: 0,
            decision_flags: None,
            keys: Vec::new(),
        };
        let check = |text: &str| setup(parse_test(text, &keys()).unwrap()).test(NodeIdx::ROOT, &bb);
        assert!(check("hunger >= 70"));
        assert!(!check("hunger > 70"));
        assert!(check("speed < {hunger}"));
        assert!(check("name == \"bob\""));
        assert!(check("alert"));
        assert!(!check("!alert"));
        assert!(check("speed != 2"));
    }

    #[test]
    fn statuses_parse_letters_and_words() {
        use Status::*;
        assert_eq!(parse_statuses("R R S"), Ok(vec![Running, Running, Success]));
        assert_eq!(
            parse_statuses("failure, success"),
            Ok(vec![Failure, Success])
        );
        assert!(parse_statuses("").is_err());
        assert!(parse_statuses("R X").unwrap_err().contains("`X`"));
    }
}
