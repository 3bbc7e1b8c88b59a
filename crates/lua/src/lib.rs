//! Lua nodes for treebeard: seed 002's scripting (Lumberyard MBT's
//! `ExecuteLua`, `AssertLua`, `LuaGate` and `LuaWrapper`), on Lua 5.4
//! built from its C sources.
//!
//! treebeard's own [script language](../treebeard_vm/script/index.html)
//! stays the default and the fast path: compiled when the tree loads,
//! evaluated in place without allocation. Lua is for trees written with
//! Lua, and for code that calls the application's functions. [`register`]
//! adds the Lua nodes to a leaf table as leaves, so that both engines, the
//! loaders and the tools run them as they run any leaf:
//!
//! | node | leaf | does |
//! | --- | --- | --- |
//! | `<ExecuteLua code="..">` | action `ExecuteLua` | runs the code; always succeeds |
//! | `<AssertLua code="..">` | condition `AssertLua` | succeeds if the code returns a true value (not `nil` or `false`) |
//! | `<LuaGate code="..">child</LuaGate>` | a Sequence of `AssertLua` and the child | runs the child if the code returns a true value (tested when the child is not running); else, or if the code fails, fails |
//! | `<LuaWrapper onEnter=".." onExit="..">child</LuaWrapper>` | scope `LuaWrapper` | runs `onEnter` before the child starts and `onExit` when it ends, however it ends |
//!
//! The MBT reader maps the elements to these leaves when it is told to
//! (`LoadOptions::lua`, which also checks each code's syntax when the tree
//! loads, at the attribute's file:line:column); without it, their code
//! runs as treebeard's scripts.
//!
//! # What Lua code sees
//!
//! - `entity`: the agent. `entity.name` reads the blackboard field `name`
//!   ([`LuaHost::field`]), or where the blackboard has none, the tree
//!   variable `name` (a bool the tree declares, as MBT's `<Variables>`,
//!   which its scripts, signals and conditions share); `entity.name =
//!   value` writes it, from `ExecuteLua` and `LuaWrapper` (a condition's
//!   code cannot change the agent: an error, which fails it). A tree
//!   variable takes `true` or `false`.
//! - The application's functions, by name ([`LuaHost::query`] from any
//!   node, [`LuaHost::command`] from `ExecuteLua` and `LuaWrapper`).
//! - Lua's `math` (without `random`), `string` and `table` libraries,
//!   read-only, and the base functions that touch nothing outside the call
//!   (`tostring`, `pairs`, `pcall`, ...).
//!
//! # Errors
//!
//! Code that does not compile is an error when the tree loads, at its
//! attribute's file:line:column ([`check`]). Code that fails while a tree
//! runs (a missing function or field, Lua's `error`) leaves its node as
//! the table above says and goes to [`LuaHost::lua_error`], with the node
//! and the agent: by default into a bounded list that [`take_errors`]
//! hands over, and [`LuaError::located`] says where each was written
//! (`treebeard run` prints them after each scenario).
//!
//! # Same results at any thread count
//!
//! Each worker thread has its own Lua state, which compiles each code once
//! and keeps it. A call runs in an environment of its own: it cannot set
//! globals (an error that says to keep state in `entity`), the libraries
//! are read-only, and nothing draws random numbers, so nothing a call does
//! outlives it but what it writes to its agent and what the application's
//! commands do. An agent's results do not depend on which thread ran it.
//!
//! # Cost
//!
//! A Lua node's call costs what an interpreted Lua call costs, plus one
//! scoped callback into the agent: a few microseconds, where a treebeard
//! script costs tens of nanoseconds (BENCHMARKS.md, "Lua
//! nodes"; `cargo run --release -p treebeard-lua --example cost` measures
//! both in one run). Keep Lua for what the script language cannot say.
//!
//! ```
//! use treebeard_lua::{LuaHost, LuaValue};
//! use treebeard_shape::tree::{Node, decider_of, leaf, sequence};
//! use treebeard_shape::{FieldDecl, FieldType, Kind};
//! use treebeard_vm::{FieldId, Leaves, Value};
//!
//! #[derive(Default)]
//! struct Apple {
//!     green: bool,
//!     eaten: i64,
//! }
//!
//! impl LuaHost for Apple {
//!     fn field(&self, name: &str) -> Option<FieldId> {
//!         ["green", "eaten"].iter().position(|f| *f == name).map(|i| FieldId(i as u32))
//!     }
//!     fn get(&self, field: FieldId) -> Value<'_> {
//!         match field.0 {
//!             0 => Value::Bool(self.green),
//!             _ => Value::Int(self.eaten),
//!         }
//!     }
//!     fn set(&mut self, field: FieldId, value: Value<'_>) -> bool {
//!         match (field.0, value) {
//!             (0, Value::Bool(b)) => self.green = b,
//!             (1, Value::Int(n)) => self.eaten = n,
//!             _ => return false,
//!         }
//!         true
//!     }
//!     fn has_function(&self, name: &str) -> bool {
//!         name == "IsAppleGreen"
//!     }
//!     fn query(&self, name: &str, _: &[LuaValue]) -> Option<Result<LuaValue, String>> {
//!         (name == "IsAppleGreen").then(|| Ok(LuaValue::Bool(self.green)))
//!     }
//! }
//!
//! let mut leaves = Leaves::<Apple>::new();
//! treebeard_lua::register(&mut leaves);
//! let tree = sequence([
//!     leaf("AssertLua").arg("code", "return IsAppleGreen()"),
//!     leaf("ExecuteLua").arg("code", "entity.eaten = entity.eaten + 1"),
//! ]);
//! let program = leaves.compile(&tree).map_err(|e| e.to_string())?;
//! let mut actor = treebeard_vm::Actor::for_shape(program.shape());
//! let mut apple = Apple { green: true, eaten: 0 };
//! let status = treebeard_vm::Interpreter::new().tick(
//!     &program,
//!     &Default::default(),
//!     treebeard_vm::AgentId(0),
//!     &mut actor.as_mut(),
//!     &mut apple,
//!     &mut Vec::new(),
//! );
//! assert_eq!((status, apple.eaten), (treebeard_vm::Status::Success, 1));
//! # Ok::<(), String>(())
//! ```

use mlua::{Function, Lua, Table, Variadic};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::sync::Mutex;
use treebeard_shape::{NodeIdx, ParamSpec, ParamType, Shape};
use treebeard_vm::{
    AgentId, Args, Call, Ending, FieldId, Leaves, ScopeHooks, Signal, Status, Value,
};

/// A value that Lua code and the application's functions pass each other.
#[derive(Clone, Debug, PartialEq)]
pub enum LuaValue {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
}

/// The agent, as the Lua nodes see it: its blackboard (`entity`) and the
/// application's functions. Leaves of a `Leaves<H>` call it with the
/// agent's `H`.
pub trait LuaHost: 'static {
    /// The blackboard field `entity.name` names, if any.
    fn field(&self, name: &str) -> Option<FieldId>;

    /// The value of `field`.
    fn get(&self, field: FieldId) -> Value<'_>;

    /// Sets `field` to `value`, converting as a blackboard does; false
    /// (and nothing set) where it does not fit.
    fn set(&mut self, field: FieldId, value: Value<'_>) -> bool;

    /// Whether the application has a function `name` (a query or a
    /// command) that Lua code may call. None by default.
    fn has_function(&self, name: &str) -> bool {
        let _ = name;
        false
    }

    /// Calls the application's function `name`, one that does not change
    /// the agent (any Lua node may call it): `None` if there is none of
    /// that name; an `Err` is a Lua error with that message.
    fn query(&self, name: &str, args: &[LuaValue]) -> Option<Result<LuaValue, String>> {
        let _ = (name, args);
        None
    }

    /// Calls the application's function `name`, which may change the agent
    /// (from `ExecuteLua` and `LuaWrapper` only; the others call
    /// [`LuaHost::query`]). By default, the query of that name. A function
    /// that runs Lua nodes itself (ticks a tree) finds them failing: the
    /// thread's Lua state is in use.
    fn command(&mut self, name: &str, args: &[LuaValue]) -> Option<Result<LuaValue, String>> {
        self.query(name, args)
    }

    /// Hears a Lua node's code failing while a tree runs (a function it
    /// calls is missing, a field it reads is not the agent's, Lua's own
    /// `error`): the node goes on as documented (an `AssertLua` or a
    /// `LuaGate` fails; an `ExecuteLua` succeeds; a `LuaWrapper`'s child
    /// runs), and the error comes here, once per failing call. By default
    /// it is kept in the process's list that [`take_errors`] hands over;
    /// an application that routes errors its own way (its log, its
    /// editor) overrides this. Called on the thread that ticks the agent.
    fn lua_error(&self, error: LuaError) {
        keep_error(error);
    }
}

/// A Lua node's code that failed while a tree ran: see
/// [`LuaHost::lua_error`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LuaError {
    /// The node whose code failed.
    pub node: NodeIdx,
    /// Lua's message, with the line in the code (`code:2: ...`).
    pub message: String,
    /// The agent whose tick ran it.
    pub agent: AgentId,
}

impl LuaError {
    /// The error as a line that says where: the node's `file:line:column`
    /// in its tree file (where the shape knows it), its path, the agent
    /// and Lua's message.
    pub fn located(&self, shape: &Shape) -> String {
        let path = shape.paths().swap_remove(self.node.index());
        let at = shape
            .location(self.node)
            .unwrap_or_else(|| format!("item {}", self.node.get()));
        format!(
            "{at}: the Lua code of `{path}` failed for agent {}: {}",
            self.agent.0, self.message
        )
    }
}

/// Lua errors kept by [`LuaHost::lua_error`]'s default, by node and
/// message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptError {
    /// The error, with the lowest agent that met it.
    pub error: LuaError,
    /// How many failing calls gave it.
    pub count: u64,
}

/// At most this many distinct errors (node and message) are kept between
/// two [`take_errors`]; past it, those that sort last are dropped, and
/// [`take_errors`] says how many calls they were.
pub const MAX_KEPT_ERRORS: usize = 256;

/// The errors kept since the last call, by [`LuaHost::lua_error`]'s
/// default: one per node and message, sorted by node, then message, each
/// with the lowest agent that met it and how many calls did; and how many
/// failing calls were past [`MAX_KEPT_ERRORS`]. The same ticks keep the
/// same errors at any thread count (which agent a thread runs first
/// changes nothing: the lowest agent and the counts do not depend on the
/// order).
pub fn take_errors() -> (Vec<KeptError>, u64) {
    let mut kept = KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let errors = std::mem::take(&mut kept.errors)
        .into_iter()
        .map(|((node, message), (agent, count))| KeptError {
            error: LuaError {
                node,
                message,
                agent,
            },
            count,
        })
        .collect();
    (errors, std::mem::take(&mut kept.dropped))
}

/// The errors [`take_errors`] hands over.
struct Kept {
    errors: BTreeMap<(NodeIdx, String), (AgentId, u64)>,
    /// Failing calls whose errors sorted past the bound.
    dropped: u64,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept {
    errors: BTreeMap::new(),
    dropped: 0,
});

/// Keeps `error` for [`take_errors`], as [`LuaHost::lua_error`] does by
/// default (a lock per failing call, never per tick): the bound keeps the
/// errors that sort first, so which are kept does not depend on the order
/// they came in.
pub fn keep_error(error: LuaError) {
    let mut kept = KEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = (error.node, error.message);
    if let Some((agent, count)) = kept.errors.get_mut(&key) {
        *agent = (*agent).min(error.agent);
        *count += 1;
        return;
    }
    kept.errors.insert(key, (error.agent, 1));
    if kept.errors.len() > MAX_KEPT_ERRORS
        && let Some((_, (_, count))) = kept.errors.pop_last()
    {
        kept.dropped += count;
    }
}

/// Registers the Lua nodes' leaves (`ExecuteLua`, `AssertLua` and the
/// scope `LuaWrapper`) in `leaves`: see the crate's documentation.
pub fn register<H: LuaHost>(leaves: &mut Leaves<H>) {
    leaves
        .action("ExecuteLua", execute::<H>)
        .param("code", ParamType::Str)
        .never_fails()
        .describe("runs its Lua code; always succeeds");
    leaves
        .condition("AssertLua", assert::<H>)
        .param("code", ParamType::Str)
        .describe("succeeds if its Lua code returns a true value");
    leaves
        .scope::<Wrapper<H>>("LuaWrapper")
        .with(ParamSpec::new("onEnter", ParamType::Str).default(""))
        .with(ParamSpec::new("onExit", ParamType::Str).default(""))
        .describe("a scope: runs its Lua code `onEnter` before its child, `onExit` after it");
}

/// Whether `code` compiles as Lua: the syntax error's message if not,
/// with the line and column in the code where Lua gives them.
pub fn check(code: &str) -> Result<(), String> {
    with_state(|state| state.chunk(code).map(|_| ()).map_err(|e| message(&e)))
}

/// `ExecuteLua code`: runs the code; always succeeds (seed 002), however
/// it ends.
fn execute<H: LuaHost>(host: &mut H, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Start {
        let args = call.leaf_args();
        let result = run(args.str(0), args, Access::Write(host));
        report(host, args, result);
    }
    Status::Success
}

/// `AssertLua code`: whether the code returns a true value; an error is
/// false.
fn assert<H: LuaHost>(host: &H, args: &Args<'_>) -> bool {
    report(host, args, run(args.str(0), args, Access::Read(host))).is_some_and(|v| truthy(&v))
}

/// What a call returned; its error, if it failed, goes to the host.
fn report<H: LuaHost>(
    host: &H,
    args: &Args<'_>,
    result: Result<LuaValue, String>,
) -> Option<LuaValue> {
    result
        .map_err(|message| {
            host.lua_error(LuaError {
                node: args.node(),
                message,
                agent: args.agent(),
            });
        })
        .ok()
}

/// `LuaWrapper onEnter onExit`.
struct Wrapper<H>(PhantomData<fn(H)>);

impl<H: LuaHost> ScopeHooks<H> for Wrapper<H> {
    fn enter(host: &mut H, args: &Args<'_>) {
        let code = args.str(0);
        if !code.is_empty() {
            let result = run(code, args, Access::Write(host));
            report(host, args, result);
        }
    }

    fn exit(host: &mut H, args: &Args<'_>, _how: Ending) {
        let code = args.str(1);
        if !code.is_empty() {
            let result = run(code, args, Access::Write(host));
            report(host, args, result);
        }
    }
}

/// Lua's truth: all but `nil` and `false`.
fn truthy(value: &LuaValue) -> bool {
    !matches!(value, LuaValue::Nil | LuaValue::Bool(false))
}

/// What a call may do to its agent.
enum Access<'a, H> {
    /// Read it and call queries (a condition's code).
    Read(&'a H),
    /// Also write its fields and call commands.
    Write(&'a mut H),
}

impl<H: LuaHost> Access<'_, H> {
    fn host(&self) -> &H {
        match self {
            Access::Read(h) => h,
            Access::Write(h) => h,
        }
    }
}

thread_local! {
    /// This thread's Lua state, made at its first Lua call.
    static STATE: RefCell<State> = RefCell::new(State::new());
}

/// Runs `f` on this thread's Lua state; an error if a Lua call is running
/// on it already (an application's function that ran Lua nodes).
fn with_state<T>(f: impl FnOnce(&mut State) -> Result<T, String>) -> Result<T, String> {
    STATE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut state) => f(&mut state),
        Err(_) => Err("Lua nodes cannot run inside a Lua node's call".into()),
    })
}

/// A thread's Lua: its state, the environment every code runs in, the
/// slot of the running call's host, and the code compiled so far.
struct State {
    lua: Lua,
    /// The environment (`_ENV`) each code is compiled with (see
    /// [`ENVIRONMENT`]): read-only, the same for every call.
    environment: Table,
    /// `slot.host`: the running call's callback into its agent.
    slot: Table,
    /// Each code, compiled once per thread.
    chunks: HashMap<Box<str>, Function>,
}

/// The environment codes run in, made in Lua once per thread: `entity`,
/// the read-only libraries, and the application's functions, both through
/// `slot.host(op, name, ...)`, the running call's one Rust callback (it
/// lives as long as the call). The environment and `entity` hold nothing:
/// setting a global is an error, and `entity`'s fields are the agent's.
const ENVIRONMENT: &str = r#"
local function read_only(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function() error(name .. " is read-only", 2) end,
    __metatable = false,
  })
end
local maths = {}
for k, v in pairs(math) do
  if k ~= "random" and k ~= "randomseed" then maths[k] = v end
end
local libs = {
  math = read_only(maths, "math"), string = read_only(string, "string"),
  table = read_only(table, "table"),
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs,
  pcall = pcall, rawequal = rawequal, rawget = rawget, rawlen = rawlen,
  select = select, tonumber = tonumber, tostring = tostring, type = type,
  unpack = table.unpack, xpcall = xpcall,
}
local slot = {}
local entity = setmetatable({}, {
  __index = function(_, name) return slot.host("get", name) end,
  __newindex = function(_, name, value) slot.host("set", name, value) end,
  __metatable = false,
})
local environment = setmetatable({}, {
  __index = function(_, name)
    if name == "entity" then return entity end
    local lib = libs[name]
    if lib ~= nil then return lib end
    if slot.host("has", name) then
      return function(...) return slot.host("call", name, ...) end
    end
    return nil
  end,
  __newindex = function(_, name)
    error("Lua nodes keep no globals (`" .. tostring(name) .. "`): keep state in entity", 2)
  end,
  __metatable = false,
})
return environment, slot
"#;

impl State {
    fn new() -> State {
        let lua = Lua::new();
        let (environment, slot) = lua
            .load(ENVIRONMENT)
            .set_name("=treebeard-lua")
            .call::<(Table, Table)>(())
            .expect("the environment's Lua compiles and runs");
        State {
            lua,
            environment,
            slot,
            chunks: HashMap::new(),
        }
    }

    /// `code`, compiled (once per thread) in the environment.
    fn chunk(&mut self, code: &str) -> mlua::Result<Function> {
        if let Some(f) = self.chunks.get(code) {
            return Ok(f.clone());
        }
        let f = self
            .lua
            .load(code)
            .set_name("=code")
            .set_environment(self.environment.clone())
            .into_function()?;
        self.chunks.insert(code.into(), f.clone());
        Ok(f)
    }
}

/// Runs `code` on an agent, whose tree variables `args` lends: what it
/// returns (its first value), or the error's message.
fn run<H: LuaHost>(code: &str, args: &Args<'_>, access: Access<'_, H>) -> Result<LuaValue, String> {
    with_state(|state| {
        let f = state.chunk(code).map_err(|e| message(&e))?;
        let access = RefCell::new(access);
        let lua = &state.lua;
        let result = lua.scope(|scope| {
            let host =
                scope.create_function(
                    |lua,
                     (op, name, values): (
                        mlua::LuaString,
                        mlua::LuaString,
                        Variadic<mlua::Value>,
                    )| {
                        let name = name.to_str()?;
                        let mut access = access.borrow_mut();
                        match op.as_bytes().as_ref() {
                            b"get" => get(lua, access.host(), args, &name),
                            b"set" => {
                                let value = values.first().map_or(Ok(LuaValue::Nil), from_lua)?;
                                set(&mut access, args, &name, &value)?;
                                Ok(mlua::Value::Nil)
                            }
                            b"has" => Ok(mlua::Value::Boolean(access.host().has_function(&name))),
                            _ => call(lua, &mut access, &name, &values),
                        }
                    },
                )?;
            state.slot.raw_set("host", host)?;
            f.call::<mlua::Value>(())
        });
        result.and_then(|v| from_lua(&v)).map_err(|e| message(&e))
    })
}

/// `entity.name`: the blackboard field `name`, else the tree variable.
fn get<H: LuaHost>(lua: &Lua, host: &H, args: &Args<'_>, name: &str) -> mlua::Result<mlua::Value> {
    match (host.field(name), args.variable(name)) {
        (Some(field), _) => to_lua(lua, host.get(field)),
        (None, Some(value)) => Ok(mlua::Value::Boolean(value)),
        (None, None) => Err(unknown(name)),
    }
}

/// `entity.name = value`: into the blackboard field `name`, else the
/// tree variable.
fn set<H: LuaHost>(
    access: &mut Access<'_, H>,
    args: &Args<'_>,
    name: &str,
    value: &LuaValue,
) -> mlua::Result<()> {
    let Access::Write(host) = access else {
        return Err(mlua::Error::runtime(
            "a condition's Lua code cannot change the agent",
        ));
    };
    let field = host.field(name);
    let set = match field {
        Some(field) => host.set(field, value.as_value()),
        None if args.variable(name).is_none() => return Err(unknown(name)),
        // A tree variable is a bool.
        None => match value {
            LuaValue::Bool(b) => args.set_variable(name, *b),
            _ => false,
        },
    };
    if set {
        Ok(())
    } else {
        let what = if field.is_some() {
            "field"
        } else {
            "tree variable"
        };
        Err(mlua::Error::runtime(format!(
            "the {what} `{name}` cannot take {value:?}"
        )))
    }
}

/// The error for an `entity.name` that names nothing of the agent's.
fn unknown(name: &str) -> mlua::Error {
    mlua::Error::runtime(format!("the agent has no field or tree variable `{name}`"))
}

/// A call of the application's function `name`.
fn call<H: LuaHost>(
    lua: &Lua,
    access: &mut Access<'_, H>,
    name: &str,
    args: &[mlua::Value],
) -> mlua::Result<mlua::Value> {
    let args = args
        .iter()
        .map(from_lua)
        .collect::<mlua::Result<Vec<_>>>()?;
    let answer = match access {
        Access::Read(host) => host.query(name, &args),
        Access::Write(host) => host.command(name, &args),
    };
    match answer {
        Some(Ok(value)) => to_lua_owned(lua, value),
        Some(Err(e)) => Err(mlua::Error::runtime(e)),
        None => Err(mlua::Error::runtime(format!(
            "`{name}` is no function of the application"
        ))),
    }
}

/// An error's message, without Lua's or mlua's traceback.
fn message(e: &mlua::Error) -> String {
    let text = match e {
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(message) => message.clone(),
        mlua::Error::CallbackError { cause, .. } => return message(cause),
        other => other.to_string(),
    };
    match text.split_once("\nstack traceback:") {
        Some((first, _)) => first.to_owned(),
        None => text,
    }
}

/// A blackboard value as Lua's.
fn to_lua(lua: &Lua, value: Value<'_>) -> mlua::Result<mlua::Value> {
    Ok(match value {
        Value::Bool(b) => mlua::Value::Boolean(b),
        Value::Int(i) => mlua::Value::Integer(i),
        Value::Float(f) => mlua::Value::Number(f),
        Value::Str(s) => mlua::Value::String(lua.create_string(s)?),
    })
}

/// A function's result as Lua's.
fn to_lua_owned(lua: &Lua, value: LuaValue) -> mlua::Result<mlua::Value> {
    Ok(match value {
        LuaValue::Nil => mlua::Value::Nil,
        LuaValue::Bool(b) => mlua::Value::Boolean(b),
        LuaValue::Int(i) => mlua::Value::Integer(i),
        LuaValue::Float(f) => mlua::Value::Number(f),
        LuaValue::Str(s) => mlua::Value::String(lua.create_string(&s)?),
    })
}

/// A Lua value as ours: `nil`, a boolean, a number or a string (a table
/// or a function is an error).
fn from_lua(value: &mlua::Value) -> mlua::Result<LuaValue> {
    Ok(match value {
        mlua::Value::Nil => LuaValue::Nil,
        mlua::Value::Boolean(b) => LuaValue::Bool(*b),
        mlua::Value::Integer(i) => LuaValue::Int(*i),
        mlua::Value::Number(f) => LuaValue::Float(*f),
        mlua::Value::String(s) => LuaValue::Str(s.to_str()?.to_owned()),
        other => {
            return Err(mlua::Error::runtime(format!(
                "a {} cannot leave Lua code",
                other.type_name()
            )));
        }
    })
}

impl LuaValue {
    /// The value as a blackboard's ([`Value::Bool`] for `nil`: false).
    fn as_value(&self) -> Value<'_> {
        match self {
            LuaValue::Nil => Value::Bool(false),
            LuaValue::Bool(b) => Value::Bool(*b),
            LuaValue::Int(i) => Value::Int(*i),
            LuaValue::Float(f) => Value::Float(*f),
            LuaValue::Str(s) => Value::Str(s),
        }
    }
}
