//! Preparing and running scenarios.

mod engine;
mod live;

pub use engine::{Engine, Vm};
pub use live::{Live, LiveTick, Reloaded};

use crate::blackboard::{DynBlackboard, DynValue};
use crate::format::{self, Action, CheckKind, NodeRef, Scenario, Step, TreeRef};
use crate::leaves::{self, Agent, Setup};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use treebeard_load::diagnostic::escaped_lines;
use treebeard_load::files::{ContentRoot, Refusal};
use treebeard_load::{Diagnostic, Diagnostics, LoadOptions, Loader, SourceMap, Span, StubStatus};
use treebeard_shape::script::ScriptType;
use treebeard_shape::{Kind, NodeIdx, Shape, suggest};
use treebeard_vm::{
    CompiledTree, EngineError, EventId, Frame, Leaves, Outcome, Program, Request, RequestKind,
    Stale, Status, SubsetRuleReports, TraceEvent,
};

/// Problems that keep a scenario from running, with the files they are in.
#[derive(Debug, Default)]
pub struct Report {
    /// Each part: the files of one load and its diagnostics.
    pub parts: Vec<(SourceMap, Diagnostics)>,
}

impl Report {
    fn one(map: SourceMap, diagnostics: Diagnostics) -> Report {
        Report {
            parts: vec![(map, diagnostics)],
        }
    }

    /// Whether any part has an error.
    pub fn has_errors(&self) -> bool {
        self.parts.iter().any(|(_, d)| d.has_errors())
    }

    /// Every diagnostic as a code frame.
    pub fn render(&self, color: bool) -> String {
        self.parts
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(m, d)| d.render(m, color))
            .collect()
    }
}

/// A scenario ready to run: its tree loaded, linked to the built-in leaves,
/// and every node it names found.
pub struct Prepared {
    /// The scenario.
    pub scenario: Scenario,
    /// The scenario file, for messages.
    pub map: SourceMap,
    /// The program the agents run.
    pub program: Program<Agent>,
    /// Every node's path, by item.
    pub paths: Vec<String>,
    /// Warnings of the tree's load.
    pub warnings: Report,
    setup: Arc<Setup>,
    nodes: BTreeMap<(u32, u32), NodeIdx>,
    events: Vec<EventId>,
}

/// How to prepare.
#[derive(Clone, Debug, Default)]
pub struct PrepareOptions {
    /// Stub unknown leaves even if the scenario does not say so.
    pub stub_unknown: bool,
    /// Load in compatibility mode even if the scenario does not say so.
    pub compat: bool,
    /// What stubs return, unless the scenario says (`stub_status`).
    pub stub_status: StubStatus,
    /// The folder that the scenario's tree file (and what it includes)
    /// must stay inside; `None`: the scenario file's folder. See
    /// `treebeard_load::files`.
    pub root: Option<PathBuf>,
}

/// Reads, loads and checks the scenario at `path`.
pub fn prepare(path: &Path, options: &PrepareOptions) -> Result<Prepared, Report> {
    let map = SourceMap::new();
    let name = path.display().to_string();
    let unreadable = |message: String, help: &str| {
        let mut d = Diagnostics::new();
        d.push(Diagnostic::error(message).help(help));
        Err(Report::one(SourceMap::new(), d))
    };
    let limit = treebeard_load::files::ReadLimits::default().file_bytes;
    let bytes = match treebeard_load::files::read_bytes(path, limit) {
        Ok(bytes) => bytes,
        Err(refusal) => {
            return unreadable(
                format!("cannot read `{name}`: it {refusal}"),
                refusal.help(),
            );
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let message = format!("`{name}` is not UTF-8 text (invalid byte at offset {at})");
            return unreadable(message, "scenario files are UTF-8");
        }
    };
    prepare_text(map, &name, text, options)
}

/// Every scenario file (`*.ron`, `*.json`) under `dir`, its folders
/// included, sorted: a corpus such as `tests/scenarios`.
pub fn scenario_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("ron" | "json")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Prepares a scenario given as text named `name` (relative tree paths are
/// relative to `name`, whose folder is the default content root).
pub fn prepare_str(name: &str, text: &str, options: &PrepareOptions) -> Result<Prepared, Report> {
    prepare_text(SourceMap::new(), name, text.into(), options)
}

fn prepare_text(
    mut map: SourceMap,
    name: &str,
    text: String,
    options: &PrepareOptions,
) -> Result<Prepared, Report> {
    let file = map.add(name, text);
    let mut diags = Diagnostics::new();
    let folder = Path::new(name).parent().unwrap_or(Path::new(""));
    let root = match &options.root {
        Some(dir) => ContentRoot::new(dir),
        None => ContentRoot::new(folder),
    };
    let root = match root {
        Ok(root) => root,
        Err(e) => {
            let dir = options.root.as_deref().unwrap_or(folder);
            diags.push(
                Diagnostic::error(format!(
                    "the content root `{}` cannot be used: {e}",
                    dir.display()
                ))
                .help("the content root is a folder that exists"),
            );
            return Err(Report::one(map, diags));
        }
    };
    let Some(scenario) = format::read(&map, file, &mut diags) else {
        diags.sort();
        return Err(Report::one(map, diags));
    };
    // The tree, against the built-in leaves over the scenario's keys.
    #[allow(unused_mut)]
    let mut catalog = leaves::builtin(&scenario.keys, &scenario.events);
    if scenario.lua {
        #[cfg(feature = "lua")]
        treebeard_lua::register(&mut catalog);
        #[cfg(not(feature = "lua"))]
        {
            diags.push(
                Diagnostic::error("this scenario runs Lua (`lua: true`)")
                    .at(Span::new(file, 0, 0))
                    .help("build with the `lua` feature (treebeard-scenario's, or the command line's)"),
            );
            return Err(Report::one(map, diags));
        }
    }
    let load_options = LoadOptions {
        lua: scenario.lua,
        stub_unknown: scenario.stub_unknown || options.stub_unknown,
        compat: scenario.compat || options.compat,
        stub_status: scenario.stub_status.unwrap_or(options.stub_status),
        root: Some(root.dir().to_path_buf()),
        ..LoadOptions::default()
    };
    let mut loader = Loader::new(&catalog, load_options);
    let mut inline = None;
    match &scenario.tree {
        TreeRef::File(path, span) => {
            if let Err(refusal) = root.confine(path) {
                let help = match refusal {
                    Refusal::Missing => "paths are relative to the scenario file",
                    _ => refusal.help(),
                };
                diags.push(
                    Diagnostic::error(format!("the tree file `{}` {refusal}", path.display()))
                        .at(*span)
                        .help(help),
                );
                return Err(Report::one(map, diags));
            }
            loader.add_file(path);
        }
        TreeRef::Inline(span) => {
            // The tree alone, at its own offsets: the rest blanked.
            let whole = map.file(file).text();
            let blanked: String = whole
                .char_indices()
                .map(|(i, c)| {
                    let inside = (span.start as usize..span.end as usize).contains(&i);
                    if inside || c.is_whitespace() {
                        c.to_string()
                    } else {
                        // As many bytes as the character: offsets stay.
                        " ".repeat(c.len_utf8())
                    }
                })
                .collect();
            inline = Some(whole.to_owned());
            loader.add_source(map.file(file).name(), blanked, Some(folder));
        }
    }
    // The scenario's `main` must name a tree the files hold: its mistake,
    // shown where the scenario writes it.
    if let Some((main, span)) = &scenario.main {
        if loader.tree_names().any(|t| t == main) {
            loader.set_main(Some(main.clone()));
        } else {
            let mut d = Diagnostic::error(format!("no tree is named `{main}`")).at(*span);
            if let Some(s) = suggest(main, loader.tree_names()) {
                d = d.help(format!("did you mean `{s}`?"));
            }
            diags.push(d);
        }
    }
    let mut load = loader.finish();
    if let Some(whole) = inline
        && let Some(id) = load.map.find(map.file(file).name())
        && load.map.file(id).text().len() == whole.len()
    {
        load.map.set_text(id, whole);
    }
    let loaded = match load.loaded {
        Some(loaded) if !diags.has_errors() => loaded,
        _ => {
            let mut report = Report::one(load.map, load.diagnostics);
            report.parts.insert(0, (map, diags));
            return Err(report);
        }
    };
    let warnings = Report::one(load.map, load.diagnostics);
    let shape = loaded.shape;
    let mut leaves = catalog;
    leaves::add_stubs(&mut leaves, &loaded.stubs);
    // Events the tree names that the scenario does not: stubbed, after its own.
    for event in &loaded.stub_events {
        leaves.event(event);
    }
    let setup = match leaves::configure(&shape, &scenario.keys) {
        Ok(nodes) => Setup {
            nodes,
            seed: scenario.seed,
            decision_flags: leaves::decision_flags_key(&scenario.keys),
            keys: scenario.keys.iter().map(|k| k.name.clone()).collect(),
        },
        Err(errors) => {
            let (tree_map, mut tree_diags) = warnings.parts.into_iter().next().unwrap_or_default();
            let paths = shape.paths();
            for (node, message) in errors {
                let path = &paths[node.index()];
                let d = node_diagnostic(&shape, &tree_map, &loaded.main, path, node, &message);
                tree_diags.push(d);
            }
            let mut report = Report::one(tree_map, tree_diags);
            report.parts.insert(0, (map, diags));
            return Err(report);
        }
    };
    let program = match Program::link(shape, &leaves) {
        Ok(p) => p,
        Err(e) => unreachable!("a shape compiled against these leaves links to them: {e}"),
    };
    let paths = program.shape().paths();
    let mut prepared = Prepared {
        events: scenario
            .events
            .iter()
            .map(|e| leaves.event_id(e).unwrap_or(EventId(u32::MAX)))
            .collect(),
        scenario,
        map,
        program,
        paths,
        warnings,
        setup: Arc::new(setup),
        nodes: BTreeMap::new(),
    };
    prepared.resolve_refs(&mut diags);
    if diags.has_errors() {
        return Err(Report::one(prepared.map, diags));
    }
    Ok(prepared)
}

/// A diagnostic about a node of the loaded tree.
fn node_diagnostic(
    shape: &Shape,
    map: &SourceMap,
    tree: &str,
    path: &str,
    node: NodeIdx,
    message: &str,
) -> Diagnostic {
    let (message, help) = match message.split_once("; ") {
        Some((m, h)) => (m, Some(h)),
        None => (message, None),
    };
    let info = shape.node(node);
    let mut d = Diagnostic::error(message.to_owned());
    if let Some(h) = help {
        d = d.help(h.to_owned());
    }
    let leaf = shape.import(node).map_or(&*info.name, |i| &*i.name);
    d = d.node(tree, path, leaf);
    if let Some(s) = info.source
        && let Some(f) = map.files().get(s.file as usize)
        && let Some(offset) = f.offset(s.line, s.column)
    {
        d = d.at(Span::new(
            treebeard_load::FileId(s.file),
            offset,
            offset + 1,
        ));
    }
    d
}

/// Where a node reference is written: the key of [`Prepared::nodes`].
fn key(span: Span) -> (u32, u32) {
    (span.start, span.end)
}

impl Prepared {
    /// The errors of the Lua code its run met (`lua: true` trees), each a
    /// line saying where (the node's file:line:column and path), with how
    /// many calls failed so; taken from the process's list
    /// (`treebeard_lua::take_errors`), so call it after each run.
    #[cfg(feature = "lua")]
    pub fn lua_errors(&self) -> Vec<String> {
        let (errors, dropped) = treebeard_lua::take_errors();
        let shape = self.program.shape();
        let mut lines: Vec<String> = errors
            .iter()
            .map(|e| format!("{} ({} calls)", e.error.located(shape), e.count))
            .collect();
        if dropped > 0 {
            lines.push(format!(
                "{dropped} more failing calls, past the errors kept"
            ));
        }
        lines
    }

    /// Finds every node and stimulus the script and expectations name.
    fn resolve_refs(&mut self, diags: &mut Diagnostics) {
        let mut refs: Vec<NodeRef> = Vec::new();
        let mut stimuli: Vec<(&str, Span)> = Vec::new();
        let mut entries: Vec<(&str, Span)> = Vec::new();
        // Where `globals` checks name nodes: they must be crowd nodes.
        let mut crowd: Vec<Span> = Vec::new();
        for step in &self.scenario.script {
            match &step.action {
                Action::Complete(node, _) => refs.push(node.clone()),
                Action::Inject(node, _) => refs.push(node.clone()),
                Action::Stimulus(name, _, span) => stimuli.push((name, *span)),
                Action::Set(_) | Action::Event(..) => {}
            }
        }
        for e in &self.scenario.expect {
            for c in &e.checks {
                match &c.what {
                    CheckKind::Running(nodes) => refs.extend(nodes.iter().cloned()),
                    CheckKind::Trace(events)
                    | CheckKind::TraceContains(events)
                    | CheckKind::Requests(events) => {
                        refs.extend(events.iter().map(|(_, n)| n.clone()));
                    }
                    CheckKind::Stimuli(names) => {
                        stimuli.extend(names.iter().map(|(n, span)| (&**n, *span)));
                    }
                    CheckKind::Entries(values) => {
                        entries.extend(values.iter().map(|(n, _, span)| (&**n, *span)));
                    }
                    CheckKind::Globals(values) => {
                        refs.extend(values.iter().map(|(n, _, _)| n.clone()));
                        crowd.extend(values.iter().map(|(n, _, _)| n.span));
                    }
                    CheckKind::Status(_) | CheckKind::Blackboard(_) => {}
                }
            }
        }
        let shape = self.program.shape();
        let declared: Vec<&str> = shape.stimuli().iter().map(|s| &*s.name).collect();
        let what = (
            "declares no stimulus",
            "declare it in the tree file's `stimuli`",
        );
        unknown_names(&stimuli, &declared, what, diags);
        let created: Vec<&str> = shape.entries().iter().map(|e| &*e.name).collect();
        let what = (
            "creates no entry",
            "a tree's scripts create entries with `name := value`",
        );
        unknown_names(&entries, &created, what, diags);
        let injects: Vec<Span> = self
            .scenario
            .script
            .iter()
            .filter_map(|s| match &s.action {
                Action::Inject(node, _) => Some(node.span),
                _ => None,
            })
            .collect();
        let completions: Vec<Span> = self
            .scenario
            .script
            .iter()
            .filter_map(|s| match &s.action {
                Action::Complete(node, _) => Some(node.span),
                _ => None,
            })
            .collect();
        for r in refs {
            match self.find(&r.text) {
                Ok(node)
                    if completions.contains(&r.span)
                        && self.program.shape().kind(node) != treebeard_shape::Kind::Deferred =>
                {
                    diags.push(
                        Diagnostic::error(format!(
                            "`{}` is not a deferred action: only a game system's actions complete",
                            self.paths[node.index()]
                        ))
                        .at(r.span)
                        .help("complete a `Deferred` leaf (or another deferred action)"),
                    );
                }
                Ok(node) if injects.contains(&r.span) => {
                    if let Some(d) = self.check_inject(node, &r, &self.scenario.script) {
                        diags.push(d);
                    } else {
                        self.nodes.insert(key(r.span), node);
                    }
                }
                Ok(node)
                    if crowd.contains(&r.span) && !self.program.shape().kind(node).is_global() =>
                {
                    diags.push(
                        Diagnostic::error(format!(
                            "`{}` ({}) holds no crowd state",
                            self.paths[node.index()],
                            self.program.shape().kind(node)
                        ))
                        .at(r.span)
                        .help("`globals` checks `Gate`, `GlobalCooldown` and `Team` nodes"),
                    );
                }
                Ok(node) => {
                    self.nodes.insert(key(r.span), node);
                }
                Err(message) => {
                    let (m, h) = message.split_once("; ").unwrap_or((&message, ""));
                    let mut d = Diagnostic::error(m.to_owned()).at(r.span);
                    if !h.is_empty() {
                        d = d.help(h.to_owned());
                    }
                    diags.push(d);
                }
            }
        }
    }

    /// Why the `inject` step naming `node` (at `r`) cannot run, if it
    /// cannot: `node` is no `ChildTree` connector, or offers no such tree.
    fn check_inject(&self, node: NodeIdx, r: &NodeRef, script: &[Step]) -> Option<Diagnostic> {
        let shape = self.program.shape();
        let path = &self.paths[node.index()];
        if shape.kind(node) != treebeard_shape::Kind::ChildTree {
            return Some(
                Diagnostic::error(format!(
                    "`{path}` ({}) is not a ChildTree connector",
                    shape.kind(node)
                ))
                .at(r.span)
                .help("`inject` names a `ChildTree` node"),
            );
        }
        let tree = script.iter().find_map(|s| match &s.action {
            Action::Inject(n, tree) if n.span == r.span => tree.as_ref(),
            _ => None,
        })?;
        if shape.child_tree(node, &tree.0).is_some() {
            return None;
        }
        let offered: Vec<&str> = shape.children(node).map(|c| &*shape.node(c).name).collect();
        let mut d = Diagnostic::error(format!(
            "the connector `{path}` offers no child tree `{}`",
            tree.0
        ))
        .at(tree.1);
        d = match suggest(&tree.0, offered.iter().copied()) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help(format!("it offers {}", offered.join(", "))),
        };
        Some(d)
    }

    /// The index of the tree's stimulus `name`.
    fn stimulus(&self, name: &str) -> Option<usize> {
        let declared = self.program.shape().stimuli();
        declared.iter().position(|s| &*s.name == name)
    }

    /// The node a reference names: a path, a node name, or the end of a path.
    fn find(&self, text: &str) -> Result<NodeIdx, String> {
        let shape = self.program.shape();
        if let Some(i) = self.paths.iter().position(|p| p == text) {
            return Ok(NodeIdx::new(i as u32));
        }
        // Paths as diagnostics print them, every segment indexed.
        if let Some(i) = shape.indexed_paths().iter().position(|p| p == text) {
            return Ok(NodeIdx::new(i as u32));
        }
        let by_name: Vec<usize> = (0..shape.len())
            .filter(|&i| *shape.nodes()[i].name == *text)
            .collect();
        let by_end: Vec<usize> = (0..shape.len())
            .filter(|&i| self.paths[i].ends_with(&format!("/{text}")))
            .collect();
        let found = if by_name.is_empty() { by_end } else { by_name };
        match found.as_slice() {
            [one] => Ok(NodeIdx::new(*one as u32)),
            [] => {
                let mut e = format!("the tree has no node `{text}`");
                // Paths, names, and the last segments of paths.
                let names = shape.nodes().iter().map(|n| &*n.name);
                let ends = self.paths.iter().filter_map(|p| p.rsplit('/').next());
                let candidates = self
                    .paths
                    .iter()
                    .map(String::as_str)
                    .chain(names)
                    .chain(ends);
                match suggest(text, candidates) {
                    Some(s) => write!(e, "; did you mean `{s}`?").unwrap_or(()),
                    None => write!(
                        e,
                        "; name a node by its path, as traces print it (e.g. `{}`)",
                        self.paths.last().map_or("", |p| p)
                    )
                    .unwrap_or(()),
                }
                Err(e)
            }
            many => {
                let paths: Vec<&str> = many.iter().map(|&i| self.paths[i].as_str()).collect();
                Err(format!(
                    "`{text}` names {} nodes; use one of their paths: {}",
                    many.len(),
                    paths.join(", ")
                ))
            }
        }
    }

    fn node(&self, r: &NodeRef) -> NodeIdx {
        // Every reference was resolved by `prepare`.
        self.nodes
            .get(&key(r.span))
            .copied()
            .unwrap_or(NodeIdx::ROOT)
    }

    /// The agents, with their initial blackboards.
    pub fn agents(&self) -> Vec<Agent> {
        self.scenario
            .initial
            .iter()
            .enumerate()
            .map(|(i, values)| {
                Agent::new(
                    i as u32,
                    DynBlackboard::new(values.clone()),
                    Arc::clone(&self.setup),
                )
            })
            .collect()
    }

    /// An engine running the program on the stream interpreter.
    pub fn vm(&self) -> Vm {
        Vm::new(self.program.clone(), self.scenario.agents as usize)
    }

    /// An engine running the program on the compiled tree `tree` (code
    /// `treebeard-codegen` generated for the scenario's tree against
    /// [`leaves::Builtin`]): plain ticks, which report no trace events, so
    /// a run on it skips the scenario's trace checks and checks the rest.
    /// Fails if `tree` was generated from another shape.
    pub fn compiled_vm(&self, tree: CompiledTree<Agent>) -> Result<Vm, EngineError> {
        self.vm().compiled(tree)
    }

    /// Runs the scenario on `engine`, writing a JSON line per trace event to
    /// `trace` if given. Stops at the first unmet expectation.
    pub fn run(
        &self,
        engine: &mut dyn Engine,
        trace: Option<&mut dyn Write>,
    ) -> io::Result<Verdict> {
        let mut world = World::new(self.agents());
        self.run_ticks(engine, trace, &mut world, 0..self.scenario.ticks)
    }

    /// Runs the ticks `ticks` of the scenario on `engine` over `world` (see
    /// [`Prepared::run`]); ticks past the script only tick the agents.
    pub(crate) fn run_ticks(
        &self,
        engine: &mut dyn Engine,
        mut trace: Option<&mut dyn Write>,
        world: &mut World,
        ticks: std::ops::Range<u64>,
    ) -> io::Result<Verdict> {
        let s = &self.scenario;
        let World {
            agents,
            due,
            last,
            statuses,
            reported,
        } = world;
        let shape = self.program.shape();
        let mut verdict = Verdict::default();
        for tick in ticks {
            let frame = Frame {
                index: tick,
                time: tick as f64 * f64::from(s.dt),
                dt: s.dt,
            };
            // The world, before the tick.
            for step in s.script.iter().filter(|st| st.tick == tick) {
                for &a in &step.agents {
                    let agent = &mut agents[a as usize];
                    match &step.action {
                        Action::Set(values) => {
                            for (k, v, _) in values {
                                agent.blackboard.put(*k, v);
                            }
                        }
                        Action::Event(name, _) => {
                            let i = s.events.iter().position(|e| e == name).unwrap_or(0);
                            engine.send_event(a, agent, last, self.events[i]);
                        }
                        Action::Complete(node, outcome) => {
                            let n = self.node(node);
                            if let Err(stale) = engine.complete(a, n, *outcome) {
                                let why = match stale {
                                    Stale::NotRunning => "is not running",
                                    Stale::AlreadyDone => "has already completed",
                                };
                                verdict.failure = Some(Failure {
                                    tick,
                                    agent: a,
                                    what: format!(
                                        "the script completes `{}`, which {why}",
                                        self.paths[n.index()]
                                    ),
                                    expected: vec!["a launched deferred action".into()],
                                    actual: vec![format!("it {why}")],
                                    span: step.span,
                                });
                                return Ok(verdict);
                            }
                            due.remove(&(a, n));
                        }
                        Action::Inject(node, tree) => {
                            let n = self.node(node);
                            let k = tree
                                .as_ref()
                                .and_then(|(name, _)| shape.child_tree(n, name))
                                .map_or(0, |k| k + 1);
                            engine.inject(a, n, k);
                        }
                        Action::Stimulus(name, data, _) => {
                            let i = self.stimulus(name).unwrap_or_default();
                            let seconds = f64::from(shape.stimuli()[i].seconds);
                            engine.post_stimulus(a, i, *data, frame.time, seconds);
                        }
                    }
                }
            }
            for ((a, n), (at, outcome)) in due.clone() {
                if at == tick {
                    let _ = engine.complete(a, n, outcome);
                    due.remove(&(a, n));
                }
            }
            // The tick.
            let mut results = Vec::with_capacity(agents.len());
            for (a, agent) in agents.iter_mut().enumerate() {
                let a = a as u32;
                let mut requests = Vec::new();
                let mut events = Vec::new();
                let status = engine.tick(a, agent, &frame, &mut requests, &mut |n, e| {
                    events.push((n, e))
                });
                // A broken subset rule is reported once per agent and
                // decider, as a crowd does.
                reported.keep_first(&mut requests);
                for r in &requests {
                    match r.kind {
                        RequestKind::Launch => {
                            if let Some(auto) = self.auto_completion(shape, r.node) {
                                due.insert((a, r.node), (tick + auto.0.max(1), auto.1));
                            }
                        }
                        RequestKind::Cancel => {
                            due.remove(&(a, r.node));
                        }
                        RequestKind::Event { .. }
                        | RequestKind::RedecideLimit
                        | RequestKind::SubsetRule
                        | RequestKind::Enter
                        | RequestKind::Leave
                        | RequestKind::StartCooldown
                        | RequestKind::Arrive { .. }
                        | RequestKind::LeaveTeam { .. }
                        | RequestKind::BreakOut { .. }
                        | RequestKind::Remap { .. } => {}
                    }
                }
                if let Some(out) = trace.as_deref_mut() {
                    let scenario = serde_json::Value::from(s.name.as_str());
                    for (n, e) in &events {
                        // Written by hand to keep the documented key order.
                        let node = serde_json::Value::from(self.paths[n.index()].as_str());
                        writeln!(
                            out,
                            r#"{{"scenario":{scenario},"tick":{tick},"agent":{a},"node":{node},"event":"{}"}}"#,
                            e.name()
                        )?;
                    }
                }
                verdict.trace_events += events.len();
                results.push(TickResult {
                    status,
                    requests,
                    events,
                });
            }
            // The crowd settles the round's requests for its gates and
            // global cool-downs, then delivers the events the agents sent in
            // agent order before the next tick, as a crowd does after a
            // tick.
            let round: Vec<Request> = results
                .iter()
                .flat_map(|r| r.requests.iter().copied())
                .collect();
            engine.settle(&frame, &round);
            for result in &results {
                for r in &result.requests {
                    if let RequestKind::Event { event, to } = r.kind
                        && let Some(agent) = agents.get_mut(to.index())
                    {
                        engine.send_event(to.0, agent, &frame, event);
                    }
                }
            }
            *last = frame;
            *statuses = results.iter().map(|r| r.status).collect();
            verdict.ticks = tick + 1;
            // The expectations.
            for e in s.expect.iter().filter(|e| e.tick == tick) {
                for &a in &e.agents {
                    for c in &e.checks {
                        verdict.checks += 1;
                        if let Some(f) = self.check(
                            &c.what,
                            &frame,
                            a,
                            &results[a as usize],
                            engine,
                            &agents[a as usize],
                        ) {
                            verdict.failure = Some(Failure { span: c.span, ..f });
                            return Ok(verdict);
                        }
                    }
                }
            }
        }
        Ok(verdict)
    }

    /// A `Deferred` leaf's own completion: ticks after launch, and outcome.
    fn auto_completion(&self, shape: &Shape, node: NodeIdx) -> Option<(u64, Outcome)> {
        let import = shape.import(node)?;
        if &*import.name != "Deferred" {
            return None;
        }
        let words = shape.params(node);
        let ticks = *words.get(1)? as i64;
        let outcome = if words.get(2) == Some(&1) {
            Outcome::Failure
        } else {
            Outcome::Success
        };
        (ticks >= 0).then_some((ticks as u64, outcome))
    }

    fn describe(&self, event: &str, node: NodeIdx) -> String {
        format!("{event} {}", self.paths[node.index()])
    }

    /// The failure of check `what` for agent `a` after a tick, if it fails.
    fn check(
        &self,
        what: &CheckKind,
        frame: &Frame,
        a: u32,
        result: &TickResult,
        engine: &dyn Engine,
        agent: &Agent,
    ) -> Option<Failure> {
        let tick = frame.index;
        let fail = |what: &str, expected: Vec<String>, actual: Vec<String>| Failure {
            tick,
            agent: a,
            what: format!("{what} is not as expected"),
            expected,
            actual,
            span: Span::new(self.scenario.file, 0, 0),
        };
        let status = |s: Status| format!("{s:?}").to_lowercase();
        let events = |list: &[(String, NodeRef)]| -> Vec<String> {
            list.iter()
                .map(|(e, n)| self.describe(e, self.node(n)))
                .collect()
        };
        if !engine.traces() && matches!(what, CheckKind::Trace(_) | CheckKind::TraceContains(_)) {
            return None;
        }
        let actual_events: Vec<String> = result
            .events
            .iter()
            .map(|(n, e)| self.describe(e.name(), *n))
            .collect();
        match what {
            CheckKind::Status(want) => (result.status != *want).then(|| {
                fail(
                    "root status",
                    vec![status(*want)],
                    vec![status(result.status)],
                )
            }),
            CheckKind::Running(nodes) => {
                let mut want: Vec<NodeIdx> = nodes.iter().map(|n| self.node(n)).collect();
                want.sort();
                want.dedup();
                let have = engine.running(a);
                let show =
                    |v: &[NodeIdx]| v.iter().map(|n| self.paths[n.index()].clone()).collect();
                (want != have).then(|| fail("running leaves", show(&want), show(&have)))
            }
            CheckKind::Trace(list) => {
                let want = events(list);
                (want != actual_events).then(|| fail("trace", want, actual_events))
            }
            CheckKind::TraceContains(list) => {
                let want = events(list);
                let mut rest = actual_events.iter();
                let contained = want.iter().all(|w| rest.any(|x| x == w));
                (!contained).then(|| fail("trace (in order, among others)", want, actual_events))
            }
            CheckKind::Requests(list) => {
                let want = events(list);
                let have: Vec<String> = result
                    .requests
                    .iter()
                    .map(|r| {
                        let kind = match r.kind {
                            RequestKind::Launch => "launch",
                            RequestKind::Cancel => "cancel",
                            RequestKind::Event { .. } => "send",
                            RequestKind::RedecideLimit => "redecide_limit",
                            RequestKind::SubsetRule => "subset_rule",
                            RequestKind::Enter => "enter",
                            RequestKind::Leave => "leave",
                            RequestKind::StartCooldown => "start_cooldown",
                            RequestKind::Remap { .. } => "remap",
                            RequestKind::Arrive { .. } => "arrive",
                            RequestKind::LeaveTeam { .. } => "leave_team",
                            RequestKind::BreakOut { .. } => "break_out",
                        };
                        self.describe(kind, r.node)
                    })
                    .collect();
                (want != have).then(|| fail("requests", want, have))
            }
            CheckKind::Blackboard(values) => {
                for (k, v, _) in values {
                    let have = agent.blackboard.value(*k);
                    if have != Some(v) {
                        let name = &self.scenario.keys[*k].name;
                        return Some(fail(
                            &format!("blackboard key `{name}`"),
                            vec![v.to_string()],
                            vec![have.map_or("nothing".into(), ToString::to_string)],
                        ));
                    }
                }
                None
            }
            CheckKind::Stimuli(names) => {
                let declared = self.program.shape().stimuli();
                let flags = engine.stimuli(a, frame.time);
                let names_of = |flags: u32| -> Vec<String> {
                    (0..declared.len())
                        .filter(|&i| flags >> i & 1 != 0)
                        .map(|i| declared[i].name.to_string())
                        .collect()
                };
                let want = names
                    .iter()
                    .filter_map(|(n, _)| self.stimulus(n))
                    .fold(0, |flags, i| flags | 1 << i);
                (want != flags).then(|| fail("active stimuli", names_of(want), names_of(flags)))
            }
            CheckKind::Entries(values) => {
                let shape = self.program.shape();
                let words = engine.entries(a);
                values.iter().find_map(|(name, want, _)| {
                    let i = shape.entries().iter().position(|e| *e.name == **name)?;
                    let have = entry_value(shape, i, words.get(i).copied().unwrap_or(0));
                    (want.to_type(have.ty()).as_ref() != Some(&have)).then(|| {
                        fail(
                            &format!("tree entry `{name}`"),
                            vec![want.to_string()],
                            vec![have.to_string()],
                        )
                    })
                })
            }
            CheckKind::Globals(values) => {
                let shape = self.program.shape();
                let words = engine.globals();
                for (node, want, _) in values {
                    let n = self.node(node);
                    let word = words.iter().find(|(m, _)| *m == n).map_or(0, |&(_, w)| w);
                    let (have, show): (f64, fn(f64) -> String) = match shape.kind(n) {
                        Kind::Gate | Kind::Team => (word as f64, |x| format!("{x}")),
                        _ => (f64::from_bits(word), |x| format!("{x:?}")),
                    };
                    // Times add in f64: a cool-down's ready time is within
                    // rounding of what a scenario writes.
                    if (have - want).abs() > 1e-9 {
                        return Some(fail(
                            &format!("crowd state of `{}`", self.paths[n.index()]),
                            vec![show(*want)],
                            vec![show(have)],
                        ));
                    }
                }
                None
            }
        }
    }

    /// A failure as a readable report: where the expectation is, what it
    /// wanted and what happened, as a diff.
    pub fn render_failure(&self, f: &Failure, color: bool) -> String {
        let d =
            Diagnostic::error(format!("tick {}, agent {}: {}", f.tick, f.agent, f.what)).at(f.span);
        let mut out = d.render(&self.map, color);
        // Node paths are in them: escaped as a diagnostic escapes them.
        let shown = |lines: &[String]| -> Vec<String> {
            lines
                .iter()
                .map(|l| escaped_lines(l).into_owned())
                .collect()
        };
        let (expected, actual) = (shown(&f.expected), shown(&f.actual));
        out.push_str(&diff(&expected, &actual, color));
        out
    }
}

/// What a run keeps between its ticks.
pub(crate) struct World {
    /// The agents, with their blackboards.
    pub(crate) agents: Vec<Agent>,
    /// Deferred leaves that complete by themselves: (agent, node) -> (tick,
    /// outcome).
    pub(crate) due: BTreeMap<(u32, NodeIdx), (u64, Outcome)>,
    /// The last tick's frame: events sent between ticks arrive at the end
    /// of it (see `Interpreter::send_event`).
    pub(crate) last: Frame,
    /// The agents' statuses in the last tick.
    pub(crate) statuses: Vec<Status>,
    /// The deciders each agent was reported for breaking Spore's subset
    /// rule: a crowd reports each once.
    pub(crate) reported: SubsetRuleReports,
}

impl World {
    fn new(agents: Vec<Agent>) -> World {
        World {
            agents,
            due: BTreeMap::new(),
            last: Frame::default(),
            statuses: Vec::new(),
            reported: SubsetRuleReports::default(),
        }
    }
}

/// One agent's tick, as the checks see it.
struct TickResult {
    status: Status,
    requests: Vec<Request>,
    events: Vec<(NodeIdx, TraceEvent)>,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Ticks run.
    pub ticks: u64,
    /// Checks that held (and the failing one).
    pub checks: usize,
    /// Trace events.
    pub trace_events: usize,
    /// The first unmet expectation.
    pub failure: Option<Failure>,
}

impl Verdict {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// An unmet expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// After this tick.
    pub tick: u64,
    /// For this agent.
    pub agent: u32,
    /// What went wrong, in a sentence (`running leaves is not as
    /// expected`).
    pub what: String,
    /// What the scenario expected, one line each.
    pub expected: Vec<String>,
    /// What happened.
    pub actual: Vec<String>,
    /// Where the expectation is written.
    pub span: Span,
}

/// `expected` against `actual`, line by line: `-` lines expected but
/// missing, `+` lines that happened unexpected.
pub fn diff(expected: &[String], actual: &[String], color: bool) -> String {
    let (n, m) = (expected.len(), actual.len());
    // Longest common subsequence, for a minimal diff.
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if expected[i] == actual[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let paint = |code: &str, text: String| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text
        }
    };
    let mut out = String::from("   expected (-) / actual (+):\n");
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            out.push_str(&format!("     {}\n", expected[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&paint("31", format!("   - {}", expected[i])));
            out.push('\n');
            i += 1;
        } else {
            out.push_str(&paint("32", format!("   + {}", actual[j])));
            out.push('\n');
            j += 1;
        }
    }
    if n == 0 && m == 0 {
        out.push_str("     (both empty)\n");
    }
    out
}

/// The leaf table the CLI lists: the built-in leaves, no keys.
pub fn builtin_leaves() -> Leaves<Agent> {
    leaves::builtin(&[], &[])
}

/// Reports each of `names` (as written, and where) that `known` lacks:
/// "the tree `missing` `name`", with a close known name or `help`.
fn unknown_names(
    names: &[(&str, Span)],
    known: &[&str],
    (missing, help): (&str, &str),
    diags: &mut Diagnostics,
) {
    for &(name, span) in names {
        if known.contains(&name) {
            continue;
        }
        let d = Diagnostic::error(format!("the tree {missing} `{name}`")).at(span);
        diags.push(match suggest(name, known.iter().copied()) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help(help),
        });
    }
}

/// The value of the shape's entry `index` whose word is `word`.
pub fn entry_value(shape: &Shape, index: usize, word: u64) -> DynValue {
    match shape.entries().get(index).map(|e| e.ty) {
        Some(ScriptType::Int) => DynValue::Int(word as i64),
        Some(ScriptType::Float) => DynValue::Float(f64::from_bits(word)),
        Some(ScriptType::Str) => {
            DynValue::Str(treebeard_vm::script::text(shape.strings(), word).to_owned())
        }
        Some(ScriptType::Bool) | None => DynValue::Bool(word != 0),
    }
}
