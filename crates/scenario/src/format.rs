//! Reading scenario files (docs/scenarios.md): JSON or RON, every value
//! checked where it is written.

// Parses untrusted scenario files: a bad input must become an error, never a
// panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::blackboard::DynValue;
use std::path::{Path, PathBuf};
use treebeard_load::spanned::{Entry, Value, ValueKind, check_keys, get, read_value};
use treebeard_load::{Diagnostic, Diagnostics, FileId, SourceMap, Span, StubStatus};
use treebeard_shape::{FieldDecl, FieldType, suggest};
use treebeard_vm::{Outcome, Status};

/// A scenario as its file says.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario file.
    pub file: FileId,
    /// Its name (the file's stem unless given).
    pub name: String,
    /// The tree.
    pub tree: TreeRef,
    /// The tree to run, if not the file's main tree, and where it is named.
    pub main: Option<(String, Span)>,
    /// Stub leaves the built-in leaves lack.
    pub stub_unknown: bool,
    /// Load the tree in compatibility mode (see `LoadOptions::compat`).
    pub compat: bool,
    /// Run MBT's Lua nodes as Lua (see `LoadOptions::lua`; needs the
    /// `lua` feature).
    pub lua: bool,
    /// What the stubs return, if the scenario says.
    pub stub_status: Option<StubStatus>,
    /// Agents ticked in order, numbered from 0.
    pub agents: u32,
    /// Ticks, numbered from 0.
    pub ticks: u64,
    /// Seeds `Chance` leaves.
    pub seed: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// The blackboard's keys.
    pub keys: Vec<FieldDecl>,
    /// Initial values: per agent, per key.
    pub initial: Vec<Vec<DynValue>>,
    /// Event names, declared or used by the script.
    pub events: Vec<String>,
    /// What the world does, in order.
    pub script: Vec<Step>,
    /// What must hold, in order.
    pub expect: Vec<Expect>,
}

/// Where the tree comes from.
#[derive(Clone, Debug)]
pub enum TreeRef {
    /// A tree file, by path (relative to the scenario file).
    File(PathBuf, Span),
    /// A tree written in the scenario file itself, in its dialect.
    Inline(Span),
}

/// A node named in a script step or an expectation: a path (as traces
/// print them) or a node name, resolved when the tree has loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRef {
    /// As written.
    pub text: String,
    /// Where.
    pub span: Span,
}

/// What the world does before a tick.
#[derive(Clone, Debug)]
pub struct Step {
    /// Before this tick.
    pub tick: u64,
    /// To these agents.
    pub agents: Vec<u32>,
    /// What.
    pub action: Action,
    /// Where the step is written.
    pub span: Span,
}

/// A step's action.
#[derive(Clone, Debug)]
pub enum Action {
    /// Set keys (key index, value, where).
    Set(Vec<(usize, DynValue, Span)>),
    /// Send the event.
    Event(String, Span),
    /// Report a deferred action's outcome.
    Complete(NodeRef, Outcome),
    /// Post the named stimulus with a datum (a 32-bit value), active for
    /// its declared seconds from this tick's time.
    Stimulus(String, u32, Span),
    /// Inject the named child tree (`None`: none) into the `ChildTree`
    /// connector, as a smart object does.
    Inject(NodeRef, Option<(String, Span)>),
}

/// What must hold after a tick.
#[derive(Clone, Debug)]
pub struct Expect {
    /// After this tick.
    pub tick: u64,
    /// For these agents.
    pub agents: Vec<u32>,
    /// The checks.
    pub checks: Vec<Check>,
    /// Where the expectation is written.
    pub span: Span,
}

/// One check of an expectation, with where it is written.
#[derive(Clone, Debug)]
pub struct Check {
    /// What is checked.
    pub what: CheckKind,
    /// Where.
    pub span: Span,
}

/// What an expectation checks.
#[derive(Clone, Debug)]
pub enum CheckKind {
    /// The root's status.
    Status(Status),
    /// Exactly these leaves have running work.
    Running(Vec<NodeRef>),
    /// The tick's trace is exactly these events (`"start guard/fight"`).
    Trace(Vec<(String, NodeRef)>),
    /// The tick's trace holds these events, in this order.
    TraceContains(Vec<(String, NodeRef)>),
    /// The tick's requests are exactly these (`"launch guard/patrol"`).
    Requests(Vec<(String, NodeRef)>),
    /// Keys hold these values.
    Blackboard(Vec<(usize, DynValue, Span)>),
    /// Exactly these stimuli are active at the tick's time (names, where).
    Stimuli(Vec<(String, Span)>),
    /// The tree's entries (created by its scripts) hold these values
    /// (names, values, where).
    Entries(Vec<(String, DynValue, Span)>),
    /// The crowd's state of these `Gate`, `GlobalCooldown` and `Team` nodes
    /// after the tick's settling: a gate's agents admitted, a cool-down's
    /// ready time, a team node's teams (node, value, where the value is).
    Globals(Vec<(NodeRef, f64, Span)>),
}

const TOP: &[&str] = &[
    "name",
    "description",
    "tree",
    "main",
    "stub_unknown",
    "stub_status",
    "compat",
    "lua",
    "agents",
    "ticks",
    "seed",
    "dt",
    "blackboard",
    "events",
    "script",
    "expect",
];
const STEP: &[&str] = &[
    "tick", "agent", "agents", "set", "event", "complete", "status", "stimulus", "data", "inject",
    "tree",
];
const EXPECT: &[&str] = &[
    "tick",
    "agent",
    "agents",
    "status",
    "running",
    "trace",
    "trace_contains",
    "requests",
    "blackboard",
    "stimuli",
    "entries",
    "globals",
];

/// Reads the scenario file `file` of `map`.
pub fn read(map: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<Scenario> {
    let value = read_value(map, file, diags)?;
    let mut d = Decoder { diags };
    d.scenario(map, file, &value)
}

/// The stem of a path, for a scenario's default name.
fn stem(name: &str) -> String {
    Path::new(name)
        .file_stem()
        .map_or_else(|| name.to_owned(), |s| s.to_string_lossy().into_owned())
}

struct Decoder<'d> {
    diags: &'d mut Diagnostics,
}

/// A map's entries by name, checked against the names a place allows.
struct Fields<'v> {
    entries: &'v [Entry],
}

impl<'v> Fields<'v> {
    fn get(&self, key: &str) -> Option<&'v Value> {
        get(self.entries, key)
    }
}

impl Decoder<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(message).at(span));
    }

    /// The entries of `v`, a map whose keys must be among `allowed`.
    fn fields<'v>(&mut self, v: &'v Value, what: &str, allowed: &[&str]) -> Option<Fields<'v>> {
        let Some(entries) = v.as_map() else {
            self.error(
                v.span,
                format!("{what} must be a map, not {}", v.describe()),
            );
            return None;
        };
        let unknown = |k: &str| format!("{what} has no field `{k}`");
        let twice = |k: &str| format!("`{k}` is given twice");
        // Unknown keys are reported and the rest still read.
        check_keys(entries, allowed, self.diags, &unknown, &twice);
        Some(Fields { entries })
    }

    fn uint(&mut self, v: &Value, what: &str) -> Option<u64> {
        match v.kind {
            ValueKind::Int(i) if i >= 0 => Some(i as u64),
            ValueKind::Int(i) => {
                self.error(
                    v.span,
                    format!("{what} must be a whole number from 0, not {i}"),
                );
                None
            }
            ValueKind::Float(x) => {
                self.error(
                    v.span,
                    format!("{what} must be a whole number from 0, not {x}"),
                );
                None
            }
            _ => {
                self.error(
                    v.span,
                    format!("{what} must be a whole number from 0, not {}", v.describe()),
                );
                None
            }
        }
    }

    /// A stimulus's datum: a 32-bit value, from `i32::MIN` to `u32::MAX`
    /// (a negative one is kept as its two's complement, as `PostStimulus`
    /// keeps it).
    fn datum(&mut self, v: &Value) -> Option<u32> {
        match v.kind {
            ValueKind::Int(i) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&i) => {
                Some(i as u32)
            }
            _ => {
                let found = match v.kind {
                    ValueKind::Int(i) => i.to_string(),
                    _ => v.describe().to_owned(),
                };
                self.error(
                    v.span,
                    format!(
                        "`data` must be a 32-bit whole number (from {} to {}), not {found}",
                        i32::MIN,
                        u32::MAX,
                    ),
                );
                None
            }
        }
    }

    fn string(&mut self, v: &Value, what: &str) -> Option<String> {
        match v.as_str() {
            Some(s) => Some(s.to_owned()),
            None => {
                self.error(
                    v.span,
                    format!("{what} must be a string, not {}", v.describe()),
                );
                None
            }
        }
    }

    fn scenario(&mut self, map: &SourceMap, file: FileId, v: &Value) -> Option<Scenario> {
        let f = self.fields(v, "a scenario", TOP)?;
        let errors_before = self.diags.errors().count();
        let name = match f.get("name") {
            Some(n) => self.string(n, "`name`").unwrap_or_default(),
            None => stem(map.file(file).name()),
        };
        if let Some(d) = f.get("description") {
            self.string(d, "`description`");
        }
        let tree = match f.get("tree") {
            None => {
                self.error(
                    v.span,
                    "a scenario needs a `tree`: a path, or the tree itself",
                );
                return None;
            }
            Some(t) => match &t.kind {
                ValueKind::Str(path) => {
                    let base = Path::new(map.file(file).name())
                        .parent()
                        .unwrap_or(Path::new(""));
                    TreeRef::File(base.join(path), t.span)
                }
                ValueKind::Map(_) => TreeRef::Inline(t.span),
                _ => {
                    self.error(
                        t.span,
                        format!("`tree` must be a path or a tree, not {}", t.describe()),
                    );
                    return None;
                }
            },
        };
        let main = match f.get("main") {
            Some(m) => self.string(m, "`main`").map(|s| (s, m.span)),
            None => None,
        };
        let mut flag = |name: &str| match f.get(name) {
            Some(s) => match s.as_bool() {
                Some(b) => b,
                None => {
                    self.error(s.span, format!("`{name}` must be true or false"));
                    false
                }
            },
            None => false,
        };
        let (stub_unknown, compat, lua) = (flag("stub_unknown"), flag("compat"), flag("lua"));
        let stub_status = match f.get("stub_status") {
            Some(s) => match s.as_str().and_then(StubStatus::from_name) {
                Some(status) => Some(status),
                None => {
                    self.error(
                        s.span,
                        "`stub_status` must be \"running\", \"success\" or \"failure\"",
                    );
                    None
                }
            },
            None => None,
        };
        let agents = match f.get("agents") {
            Some(a) => match self.uint(a, "`agents`") {
                Some(n) if (1..=100_000).contains(&n) => n as u32,
                Some(_) => {
                    self.error(a.span, "`agents` must be from 1 to 100000");
                    1
                }
                None => 1,
            },
            None => 1,
        };
        // `None` after an error: steps are then not checked against it.
        let ticks = match f.get("ticks") {
            Some(t) => match self.uint(t, "`ticks`") {
                Some(n) if n <= 1_000_000 => Some(n),
                Some(_) => {
                    self.error(t.span, "`ticks` must be at most 1000000");
                    None
                }
                None => None,
            },
            None => {
                self.error(v.span, "a scenario needs `ticks`: how many ticks to run");
                None
            }
        };
        let seed = f
            .get("seed")
            .and_then(|s| self.uint(s, "`seed`"))
            .unwrap_or(0);
        let dt = match f.get("dt") {
            Some(d) => match d.as_f64() {
                Some(x) if x.is_finite() && x >= 0.0 => x as f32,
                _ => {
                    self.error(d.span, "`dt` must be a number of seconds from 0");
                    0.1
                }
            },
            None => 0.1,
        };
        let (keys, initial) = match f.get("blackboard") {
            Some(b) => self.blackboard(b, agents),
            None => (Vec::new(), vec![Vec::new(); agents as usize]),
        };
        let mut events = Vec::new();
        if let Some(e) = f.get("events") {
            match e.as_seq() {
                Some(items) => {
                    for item in items {
                        if let Some(s) = self.string(item, "an event") {
                            events.push(s);
                        }
                    }
                }
                None => self.error(e.span, "`events` must be a list of names"),
            }
        }
        let cx = Context {
            keys: &keys,
            agents,
            ticks,
        };
        let mut script = Vec::new();
        if let Some(s) = f.get("script") {
            for step in self.list(s, "`script`") {
                if let Some(step) = self.step(step, &cx) {
                    if let Action::Event(name, _) = &step.action
                        && !events.contains(name)
                    {
                        events.push(name.clone());
                    }
                    script.push(step);
                }
            }
        }
        let mut expect = Vec::new();
        if let Some(e) = f.get("expect") {
            for item in self.list(e, "`expect`") {
                if let Some(x) = self.expect(item, &cx) {
                    expect.push(x);
                }
            }
        }
        if self.diags.errors().count() > errors_before {
            return None;
        }
        Some(Scenario {
            file,
            name,
            tree,
            main,
            stub_unknown,
            compat,
            lua,
            stub_status,
            agents,
            ticks: ticks.unwrap_or(0),
            seed,
            dt,
            keys,
            initial,
            events,
            script,
            expect,
        })
    }

    fn list<'v>(&mut self, v: &'v Value, what: &str) -> &'v [Value] {
        match v.as_seq() {
            Some(items) => items,
            None => {
                self.error(
                    v.span,
                    format!("{what} must be a list, not {}", v.describe()),
                );
                &[]
            }
        }
    }

    /// Keys and their initial values: `"key": value` for every agent, or
    /// `"key": [value per agent]`.
    fn blackboard(&mut self, v: &Value, agents: u32) -> (Vec<FieldDecl>, Vec<Vec<DynValue>>) {
        let mut keys = Vec::new();
        let mut initial = vec![Vec::new(); agents as usize];
        let Some(entries) = v.as_map() else {
            self.error(v.span, "`blackboard` must map keys to initial values");
            return (keys, initial);
        };
        for e in entries {
            if keys.iter().any(|k: &FieldDecl| *k.name == *e.key) {
                self.error(e.key_span, format!("key `{}` is declared twice", e.key));
                continue;
            }
            let values: Vec<DynValue> = match &e.value.kind {
                ValueKind::Seq(items) => {
                    if items.len() != agents as usize {
                        self.error(
                            e.value.span,
                            format!(
                                "key `{}` lists {} values, but there are {agents} agents",
                                e.key,
                                items.len()
                            ),
                        );
                        continue;
                    }
                    match items
                        .iter()
                        .map(|i| self.literal(i))
                        .collect::<Option<Vec<_>>>()
                    {
                        Some(v) => v,
                        None => continue,
                    }
                }
                _ => match self.literal(&e.value) {
                    Some(x) => vec![x; agents as usize],
                    None => continue,
                },
            };
            let numeric = |v: &DynValue| matches!(v.ty(), FieldType::Int | FieldType::Float);
            let ty = match values.split_first() {
                Some((first, rest)) if rest.iter().all(|v| v.ty() == first.ty()) => first.ty(),
                // Whole and fractional numbers together make a float key.
                _ if values.iter().all(numeric) => FieldType::Float,
                _ => {
                    self.error(
                        e.value.span,
                        format!("key `{}` mixes values of different types", e.key),
                    );
                    continue;
                }
            };
            // One value for each agent.
            for (agent, value) in initial.iter_mut().zip(&values) {
                agent.push(value.to_type(ty).unwrap_or_else(|| value.clone()));
            }
            keys.push(FieldDecl::new(&e.key, ty));
        }
        (keys, initial)
    }

    fn literal(&mut self, v: &Value) -> Option<DynValue> {
        match &v.kind {
            ValueKind::Bool(b) => Some(DynValue::Bool(*b)),
            ValueKind::Int(i) => Some(DynValue::Int(*i)),
            ValueKind::Float(f) => Some(DynValue::Float(*f)),
            ValueKind::Str(s) => Some(DynValue::Str(s.clone())),
            _ => {
                self.error(
                    v.span,
                    format!(
                        "a key's value is true, false, a number or a string, not {}",
                        v.describe()
                    ),
                );
                None
            }
        }
    }

    /// The crowd state to expect: `{"node": number}`, a gate's agents
    /// admitted or a cool-down's ready time.
    fn crowd_values(&mut self, v: &Value) -> Vec<(NodeRef, f64, Span)> {
        let mut out = Vec::new();
        let Some(entries) = v.as_map() else {
            self.error(v.span, "expected a map of nodes to numbers");
            return out;
        };
        for e in entries {
            let value = match e.value.kind {
                ValueKind::Int(i) => i as f64,
                ValueKind::Float(x) => x,
                _ => {
                    self.error(
                        e.value.span,
                        format!(
                            "a gate's agents admitted, a cool-down's ready time or a team node's teams is a number, not {}",
                            e.value.describe()
                        ),
                    );
                    continue;
                }
            };
            let node = NodeRef {
                text: e.key.to_string(),
                span: e.key_span,
            };
            out.push((node, value, e.value.span));
        }
        out
    }

    /// Tree entries' values to expect: `{"name": value}`.
    fn entry_values(&mut self, v: &Value) -> Vec<(String, DynValue, Span)> {
        let Some(entries) = v.as_map() else {
            self.error(v.span, "expected a map of entries to values");
            return Vec::new();
        };
        entries
            .iter()
            .filter_map(|e| Some((e.key.to_string(), self.literal(&e.value)?, e.key_span)))
            .collect()
    }

    /// Key values to set or expect: `{"key": value}`, each of the key's type.
    fn assignments(&mut self, v: &Value, cx: &Context<'_>) -> Vec<(usize, DynValue, Span)> {
        let mut out = Vec::new();
        let Some(entries) = v.as_map() else {
            self.error(v.span, "expected a map of keys to values");
            return out;
        };
        for e in entries {
            let Some((k, key)) = cx.keys.iter().enumerate().find(|(_, k)| *k.name == *e.key) else {
                let mut d = Diagnostic::error(format!("the scenario declares no key `{}`", e.key))
                    .at(e.key_span);
                if let Some(s) = suggest(&e.key, cx.keys.iter().map(|k| &*k.name)) {
                    d = d.help(format!("did you mean `{s}`?"));
                } else {
                    d = d.help("declare it in the scenario's `blackboard`");
                }
                self.diags.push(d);
                continue;
            };
            let Some(value) = self.literal(&e.value) else {
                continue;
            };
            match value.to_type(key.ty) {
                Some(v) => out.push((k, v, e.value.span)),
                None => self.error(
                    e.value.span,
                    format!(
                        "key `{}` holds {} values, not {}",
                        e.key,
                        key.ty,
                        value.ty()
                    ),
                ),
            }
        }
        out
    }

    /// `tick` and `agent` / `agents` of a step or expectation.
    fn when(&mut self, f: &Fields<'_>, whole: &Value, cx: &Context<'_>) -> Option<(u64, Vec<u32>)> {
        let Some(t) = f.get("tick") else {
            self.error(whole.span, "a step or expectation needs its `tick`");
            return None;
        };
        let tick = self.uint(t, "`tick`")?;
        if let Some(ticks) = cx.ticks
            && tick >= ticks
        {
            self.error(
                t.span,
                format!("tick {tick} is past the scenario's {ticks} ticks"),
            );
            return None;
        }
        let agents = match (f.get("agent"), f.get("agents")) {
            (Some(a), None) => vec![self.agent(a, cx)?],
            (None, Some(list)) => {
                let mut out = Vec::new();
                for a in self.list(list, "`agents`") {
                    out.push(self.agent(a, cx)?);
                }
                out
            }
            (None, None) => (0..cx.agents).collect(),
            (Some(a), Some(_)) => {
                self.error(a.span, "give `agent` or `agents`, not both");
                return None;
            }
        };
        Some((tick, agents))
    }

    fn agent(&mut self, v: &Value, cx: &Context<'_>) -> Option<u32> {
        let a = self.uint(v, "an agent")?;
        if a >= u64::from(cx.agents) {
            self.error(
                v.span,
                format!("agent {a} does not exist: there are {} agents", cx.agents),
            );
            return None;
        }
        Some(a as u32)
    }

    /// A status word, with "did you mean" for a close one.
    fn status(&mut self, v: &Value) -> Option<Status> {
        const WORDS: [&str; 3] = ["success", "failure", "running"];
        match v.as_str() {
            Some("success") => Some(Status::Success),
            Some("failure") => Some(Status::Failure),
            Some("running") => Some(Status::Running),
            other => {
                let mut d =
                    Diagnostic::error("`status` is \"success\", \"failure\" or \"running\"")
                        .at(v.span);
                if let Some(s) = other.and_then(|w| suggest(w, WORDS)) {
                    d = d.help(format!("did you mean \"{s}\"?"));
                }
                self.diags.push(d);
                None
            }
        }
    }

    fn node_ref(&mut self, v: &Value) -> Option<NodeRef> {
        let text = self.string(v, "a node")?;
        Some(NodeRef { text, span: v.span })
    }

    fn step(&mut self, v: &Value, cx: &Context<'_>) -> Option<Step> {
        let f = self.fields(v, "a script step", STEP)?;
        let (tick, agents) = self.when(&f, v, cx)?;
        let given: Vec<&str> = ["set", "event", "complete", "stimulus", "inject"]
            .into_iter()
            .filter(|k| f.get(k).is_some())
            .collect();
        let &[action] = given.as_slice() else {
            self.error(
                v.span,
                "a script step does one thing: `set`, `event`, `complete`, `stimulus` or `inject`",
            );
            return None;
        };
        let action = match action {
            "set" => Action::Set(self.assignments(f.get("set")?, cx)),
            "event" => {
                let e = f.get("event")?;
                Action::Event(self.string(e, "`event`")?, e.span)
            }
            "stimulus" => {
                let name = f.get("stimulus")?;
                let data = match f.get("data") {
                    None => 0,
                    Some(d) => self.datum(d)?,
                };
                Action::Stimulus(self.string(name, "`stimulus`")?, data, name.span)
            }
            "inject" => {
                let node = self.node_ref(f.get("inject")?)?;
                let tree = match f.get("tree") {
                    None => None,
                    Some(t) => Some((self.string(t, "`tree`")?, t.span)),
                };
                Action::Inject(node, tree)
            }
            _ => {
                let node = self.node_ref(f.get("complete")?)?;
                let outcome = match f.get("status") {
                    None => Outcome::Success,
                    Some(s) => match self.status(s)? {
                        Status::Success => Outcome::Success,
                        Status::Failure => Outcome::Failure,
                        Status::Running => Outcome::Running,
                    },
                };
                Action::Complete(node, outcome)
            }
        };
        if f.get("status").is_some() && !matches!(action, Action::Complete(..)) {
            self.error(v.span, "`status` goes with `complete`");
        }
        if f.get("data").is_some() && !matches!(action, Action::Stimulus(..)) {
            self.error(v.span, "`data` goes with `stimulus`");
        }
        if f.get("tree").is_some() && !matches!(action, Action::Inject(..)) {
            self.error(v.span, "`tree` goes with `inject`");
        }
        Some(Step {
            tick,
            agents,
            action,
            span: v.span,
        })
    }

    /// `["start guard/fight", ...]`: an event (or request) name, a space,
    /// a node.
    fn events(&mut self, v: &Value, names: &[&str]) -> Option<Vec<(String, NodeRef)>> {
        let mut out = Vec::new();
        for item in self.list(v, "a list of events") {
            let text = self.string(item, "an event")?;
            let Some((name, node)) = text.trim().split_once(' ') else {
                self.error(item.span, format!("write `<{}> <node>`", names.join("|")));
                return None;
            };
            if !names.contains(&name) {
                let mut d =
                    Diagnostic::error(format!("`{name}` is not one of {}", names.join(", ")))
                        .at(item.span);
                if let Some(s) = suggest(name, names.iter().copied()) {
                    d = d.help(format!("did you mean `{s}`?"));
                }
                self.diags.push(d);
                return None;
            }
            out.push((
                name.to_owned(),
                NodeRef {
                    text: node.trim().to_owned(),
                    span: item.span,
                },
            ));
        }
        Some(out)
    }

    fn expect(&mut self, v: &Value, cx: &Context<'_>) -> Option<Expect> {
        let f = self.fields(v, "an expectation", EXPECT)?;
        let (tick, agents) = self.when(&f, v, cx)?;
        const EVENTS: &[&str] = &[
            "start", "success", "failure", "cancel", "launch", "complete",
        ];
        let mut checks = Vec::new();
        let mut given = false;
        for e in f.entries {
            // Past `tick`, `agent` and `agents`: the checks.
            given |= EXPECT.iter().skip(3).any(|&k| k == &*e.key);
            let span = e.value.span;
            let what = match &*e.key {
                "status" => match self.status(&e.value) {
                    Some(s) => CheckKind::Status(s),
                    None => continue,
                },
                "running" => {
                    let mut nodes = Vec::new();
                    for n in self.list(&e.value, "`running`") {
                        nodes.extend(self.node_ref(n));
                    }
                    CheckKind::Running(nodes)
                }
                "trace" => CheckKind::Trace(self.events(&e.value, EVENTS)?),
                "trace_contains" => CheckKind::TraceContains(self.events(&e.value, EVENTS)?),
                "requests" => CheckKind::Requests(self.events(
                    &e.value,
                    &[
                        "launch",
                        "cancel",
                        "send",
                        "redecide_limit",
                        "subset_rule",
                        "enter",
                        "leave",
                        "start_cooldown",
                        "arrive",
                        "leave_team",
                        "break_out",
                    ],
                )?),
                "blackboard" => CheckKind::Blackboard(self.assignments(&e.value, cx)),
                "stimuli" => {
                    let mut names = Vec::new();
                    for n in self.list(&e.value, "`stimuli`") {
                        names.extend(self.string(n, "a stimulus").map(|s| (s, n.span)));
                    }
                    CheckKind::Stimuli(names)
                }
                "globals" => CheckKind::Globals(self.crowd_values(&e.value)),
                "entries" => CheckKind::Entries(self.entry_values(&e.value)),
                _ => continue,
            };
            checks.push(Check { what, span });
        }
        if checks.is_empty() {
            if !given {
                self.error(v.span, "an expectation checks something: `status`, `running`, `trace`, `trace_contains`, `requests`, `blackboard`, `stimuli`, `entries` or `globals`");
            }
            return None;
        }
        Some(Expect {
            tick,
            agents,
            checks,
            span: v.span,
        })
    }
}

/// What steps and expectations are checked against.
struct Context<'a> {
    keys: &'a [FieldDecl],
    agents: u32,
    /// `None` if the scenario's own `ticks` is wrong.
    ticks: Option<u64>,
}
