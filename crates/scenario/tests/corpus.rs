//! The scenario corpus (`tests/scenarios/`), run on the stream interpreter
//! and on the reference interpreter of `treebeard-testkit`: every scenario
//! must pass on both, and both must do exactly the same thing on every tick
//! (statuses, requests, trace events, running leaves, the outcome of every
//! completion and event the script plays, the crowd state after every
//! settling).
//!
//! One test per scenario file (this test's harness is libtest-mimic), so
//! that a failure names its file and `cargo test --test corpus NAME` runs
//! one; and one that the corpus uses every decider kind and built-in leaf.

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use treebeard_scenario::leaves::BUILTIN;
use treebeard_scenario::observed::{Logged, Observed};
use treebeard_scenario::{
    Agent, Engine, PrepareOptions, Prepared, Verdict, prepare, scenario_files,
};
use treebeard_shape::{Kind, NodeIdx};
use treebeard_testkit::CrowdState;
use treebeard_testkit::reference::{ProgramLeaves, Reference};
use treebeard_vm::{AgentId, EventId, Frame, Outcome, Program, Request, Stale, Status, TraceEvent};

/// The corpus's folder.
fn corpus_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios");
    dir.canonicalize().unwrap_or(dir)
}

/// The reference interpreter as an [`Engine`]: one [`Reference`] per agent,
/// calling the program's own leaf functions, and the reference's crowd
/// state for the tree's gates and global cool-downs.
struct RefEngine<'p> {
    program: &'p Program<Agent>,
    agents: Vec<Reference>,
    crowd: CrowdState,
}

impl<'p> RefEngine<'p> {
    fn new(prepared: &'p Prepared) -> RefEngine<'p> {
        let shape = prepared.program.shape();
        let agents: Vec<Reference> = (0..prepared.scenario.agents)
            .map(|_| Reference::from_shape(shape))
            .collect();
        RefEngine {
            program: &prepared.program,
            crowd: CrowdState::for_tree(Reference::from_shape(shape).root()),
            agents,
        }
    }
}

impl Engine for RefEngine<'_> {
    fn tick(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        requests: &mut Vec<Request>,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> Status {
        let mut leaves = ProgramLeaves::new(
            self.program,
            blackboard,
            AgentId(agent),
            frame,
            Some(&self.crowd),
        );
        let out = self.agents[agent as usize].tick_traced(&mut leaves, AgentId(agent), trace);
        requests.extend(out.requests);
        out.status
    }

    fn complete(&mut self, agent: u32, node: NodeIdx, outcome: Outcome) -> Result<(), Stale> {
        self.agents[agent as usize].complete(node, outcome)
    }

    fn send_event(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        event: EventId,
    ) -> usize {
        let mut leaves = ProgramLeaves::new(
            self.program,
            blackboard,
            AgentId(agent),
            frame,
            Some(&self.crowd),
        );
        self.agents[agent as usize].send_event(&mut leaves, event)
    }

    fn running(&self, agent: u32) -> Vec<NodeIdx> {
        self.agents[agent as usize].running_leaves()
    }

    fn post_stimulus(&mut self, agent: u32, stimulus: usize, data: u32, now: f64, seconds: f64) {
        self.agents[agent as usize].post_stimulus(stimulus, data, now, seconds);
    }

    fn stimuli(&self, agent: u32, now: f64) -> u32 {
        self.agents[agent as usize].stimuli_flags(now)
    }

    fn entries(&self, agent: u32) -> Vec<u64> {
        self.agents[agent as usize].entries()
    }

    fn settle(&mut self, frame: &Frame, requests: &[Request]) {
        self.crowd.settle_agents(frame, requests, &mut self.agents);
    }

    fn globals(&self) -> Vec<(NodeIdx, u64)> {
        self.crowd.words()
    }

    fn inject(&mut self, agent: u32, connector: NodeIdx, tree: u32) {
        assert!(self.agents[agent as usize].inject(connector, tree));
    }
}

/// Runs `prepared` on `engine`, turning a panic into an error.
fn run_on(prepared: &Prepared, engine: &mut dyn Engine) -> Result<Verdict, String> {
    match catch_unwind(AssertUnwindSafe(|| prepared.run(engine, None))) {
        Ok(Ok(verdict)) => Ok(verdict),
        Ok(Err(e)) => Err(format!("the run failed: {e}")),
        Err(panic) => Err(format!(
            "the engine panicked: {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)")
        )),
    }
}

/// Runs one scenario on both engines; the problems found, if any.
fn check_file(prepared: &Prepared) -> Vec<String> {
    let mut problems = Vec::new();
    let mut vm = Logged::new(prepared.vm());
    let mut reference = Logged::new(RefEngine::new(prepared));
    for (name, engine) in [
        ("the stream interpreter", &mut vm as &mut dyn Engine),
        (
            "the reference interpreter",
            &mut reference as &mut dyn Engine,
        ),
    ] {
        match run_on(prepared, engine) {
            Ok(verdict) => {
                if let Some(f) = &verdict.failure {
                    problems.push(format!("on {name}:\n{}", prepared.render_failure(f, false)));
                } else if verdict.ticks != prepared.scenario.ticks {
                    problems.push(format!(
                        "on {name}: ran {} of {} ticks",
                        verdict.ticks, prepared.scenario.ticks
                    ));
                }
            }
            Err(e) => problems.push(format!("on {name}: {e}")),
        }
    }
    let (a, b) = (&vm.log, &reference.log);
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        let show = |o: Option<&Observed>| {
            o.map_or_else(|| "(nothing)".to_owned(), |o| o.describe(&prepared.paths))
        };
        problems.push(format!(
            "the engines disagree (observation {i}):\n  stream:    {}\n  reference: {}",
            show(a.get(i)),
            show(b.get(i)),
        ));
    }
    problems
}

fn main() {
    let args = Arguments::from_args();
    let dir = corpus_dir();
    let files = match scenario_files(&dir) {
        Ok(files) if !files.is_empty() => files,
        Ok(_) => panic!("the corpus in {} is empty", dir.display()),
        Err(e) => panic!("cannot read the corpus {}: {e}", dir.display()),
    };
    let mut trials: Vec<Trial> = files
        .iter()
        .map(|path| {
            let path = path.clone();
            let shown = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            // Scenarios that run Lua need the `lua` feature (which
            // `cargo test --workspace` has: the command line turns it on).
            let lua = std::fs::read_to_string(&path).is_ok_and(|t| t.contains("lua: true"));
            Trial::test(shown, move || {
                let prepared = prepare(&path, &options())
                    .map_err(|report| format!("does not prepare:\n{}", report.render(false)))?;
                let problems = check_file(&prepared);
                if problems.is_empty() {
                    Ok(())
                } else {
                    Err(problems.join("\n\n").into())
                }
            })
            .with_ignored_flag(lua && !cfg!(feature = "lua"))
        })
        .collect();
    trials.push(Trial::test(
        "the corpus uses every decider kind and built-in leaf",
        move || covers_every_kind(&files),
    ));
    libtest_mimic::run(&args, trials).exit();
}

/// How the scenarios prepare: their trees are in `tests/trees`, so the
/// content root is `tests`.
fn options() -> PrepareOptions {
    PrepareOptions {
        root: corpus_dir().parent().map(Path::to_path_buf),
        ..PrepareOptions::default()
    }
}

/// Every decider kind and every built-in leaf appears in some scenario.
fn covers_every_kind(files: &[PathBuf]) -> Result<(), Failed> {
    let mut deciders = BTreeSet::new();
    let mut leaves = BTreeSet::new();
    for path in files {
        // A scenario that does not prepare is its own test's failure.
        let Ok(prepared) = prepare(path, &options()) else {
            continue;
        };
        let shape = prepared.program.shape();
        for i in 0..shape.len() {
            let node = NodeIdx::new(i as u32);
            let kind = shape.kind(node);
            if kind.is_decider() {
                deciders.insert(kind.name());
            }
            if let Some(import) = shape.import(node) {
                leaves.insert(import.name.to_string());
            }
        }
    }
    let mut missing = Vec::new();
    let missing_deciders: Vec<&str> = Kind::ALL
        .iter()
        .filter(|k| k.is_decider() && !deciders.contains(k.name()))
        .map(|k| k.name())
        .collect();
    if !missing_deciders.is_empty() {
        missing.push(format!(
            "no scenario uses the decider kinds {missing_deciders:?}"
        ));
    }
    let missing_leaves: Vec<&str> = BUILTIN
        .iter()
        .copied()
        .filter(|l| !leaves.contains(*l))
        .collect();
    if !missing_leaves.is_empty() {
        missing.push(format!(
            "no scenario uses the built-in leaves {missing_leaves:?}"
        ));
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing.join("\n").into())
    }
}
