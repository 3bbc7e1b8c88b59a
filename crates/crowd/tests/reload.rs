//! Hot reload of a crowd (`Crowd::reload`): random trees ticked a while,
//! then replaced by an edited version (a node inserted or removed, a gate
//! added or taken away) and ticked on. Every actor stays valid for the new
//! shape, no gate slot leaks (a gate's count is the number of admitted
//! tickets), the game's view of its deferred actions stays exact through
//! the reload's cancels and remaps, and the result is the same at any
//! thread count.

use rayon::ThreadPoolBuilder;
use std::collections::BTreeSet;
use treebeard_crowd::{Crowd, PlanConfig, ReloadReport};
use treebeard_shape::tree::{Node, gate, global_cooldown, priority};
use treebeard_shape::{Kind, NodeIdx, NodeMap, Options, Shape, compile_with};
use treebeard_testkit::r#gen::declarations;
use treebeard_testkit::{Event, Rng, Spec, World, leaves};
use treebeard_vm::{
    ActionState, ActorRef, AgentId, Completion, DeciderState, Outcome, Program, Request,
    RequestKind, Signal, Status,
};

const AGENTS: usize = 7;
const DT: f32 = 0.25;

/// A tree of three random parts under a priority selector, the first two
/// optionally behind a gate (of 1 and 2 agents), the third behind a global
/// cool-down.
#[derive(Clone, Debug)]
struct Edit {
    parts: [Spec; 3],
    gates: [bool; 2],
}

impl Edit {
    fn random(seed: u64) -> Edit {
        Edit {
            parts: [0, 1, 2].map(|i| Spec::random(seed * 3 + i, 4, 4)),
            gates: [true, true],
        }
    }

    fn tree(&self) -> Node {
        let [a, b, c] = self.parts.each_ref().map(Spec::to_tree);
        let a = if self.gates[0] { gate(1, a) } else { a };
        let b = if self.gates[1] { gate(2, b) } else { b };
        priority([a, b, global_cooldown(0.5, c)])
    }

    fn program(&self) -> Program<World> {
        let leaves = leaves();
        let options = Options {
            declarations: declarations(),
            ..Options::default()
        };
        let shape = compile_with(&self.tree(), &leaves, &options)
            .unwrap_or_else(|e| panic!("{self:?} does not compile: {e}"));
        Program::link(shape, &leaves).unwrap()
    }

    /// The same tree with one edit chosen by `rng`: a gate added or taken
    /// away, a child of a composite wrapped in a new node, a leaf inserted
    /// into a composite, or a child removed from one.
    fn mutate(&self, rng: &mut Rng) -> Edit {
        let mut next = self.clone();
        if rng.below(5) == 0 {
            let g = rng.below(2);
            next.gates[g] = !next.gates[g];
            return next;
        }
        let part = &mut next.parts[rng.below(3)];
        let mut places = Vec::new();
        composites(part, &mut Vec::new(), false, &mut places);
        if places.is_empty() {
            // A leaf alone: put it in a sequence with a new leaf.
            *part = Spec::Sequence(vec![part.clone(), Spec::Act]);
            return next;
        }
        let path = &places[rng.below(places.len())];
        let node = at(part, path);
        let concurrent = matches!(node, Spec::Concurrent { .. });
        let children = list(node);
        if rng.below(4) == 0 {
            // Wrap a child: what runs in it finds a new node on its path.
            let i = rng.below(children.len());
            let child = Box::new(children[i].clone());
            children[i] = match rng.below(3) {
                0 => Spec::Scope(child),
                1 => Spec::ForceSuccess(child),
                _ => Spec::Loop(0, false, child),
            };
        } else if children.len() >= 2 && !concurrent && rng.below(2) == 0 {
            children.remove(rng.below(children.len()));
        } else {
            let leaf = match rng.below(5) {
                0 => Spec::Act,
                1 => Spec::Deferred,
                2 => Spec::Cond,
                3 => Spec::Persistent,
                _ => Spec::Wait(1),
            };
            children.insert(rng.below(children.len() + 1), leaf);
        }
        next
    }
}

/// The paths (child positions from `spec`) of the composites that may take
/// another child or lose one: not inside a monitor's query, which may hold
/// nothing that runs.
fn composites(spec: &Spec, path: &mut Vec<usize>, in_monitor: bool, out: &mut Vec<Vec<usize>>) {
    let in_monitor = in_monitor || matches!(spec, Spec::Monitor(_));
    if !in_monitor
        && matches!(
            spec,
            Spec::Sequence(_)
                | Spec::Reactive(_)
                | Spec::Priority(_)
                | Spec::Selector(_)
                | Spec::WithMemory(_)
                | Spec::Concurrent { .. }
        )
    {
        out.push(path.clone());
    }
    for (i, child) in spec.children().iter().enumerate() {
        path.push(i);
        composites(child, path, in_monitor, out);
        path.pop();
    }
}

/// The node at `path` below `spec`.
fn at<'s>(spec: &'s mut Spec, path: &[usize]) -> &'s mut Spec {
    match path.split_first() {
        None => spec,
        Some((&i, rest)) => at(kids(spec).swap_remove(i), rest),
    }
}

/// The children of a composite, to edit.
fn list(spec: &mut Spec) -> &mut Vec<Spec> {
    match spec {
        Spec::Sequence(c)
        | Spec::Reactive(c)
        | Spec::Priority(c)
        | Spec::Selector(c)
        | Spec::WithMemory(c) => c,
        Spec::Concurrent { children, .. } => children,
        _ => unreachable!("not a composite"),
    }
}

/// Every child, to edit.
fn kids(spec: &mut Spec) -> Vec<&mut Spec> {
    match spec {
        Spec::Sequence(c) | Spec::Reactive(c) | Spec::Priority(c) | Spec::Selector(c) => {
            c.iter_mut().collect()
        }
        Spec::Concurrent { children, .. }
        | Spec::IfThenElse(children)
        | Spec::WhileDoElse(children)
        | Spec::WithMemory(children)
        | Spec::ParallelAll(_, children)
        | Spec::Group { children, .. }
        | Spec::Team(_, children)
        | Spec::ChildTree(children)
        | Spec::Decider { children, .. } => children.iter_mut().collect(),
        Spec::Inverter(c)
        | Spec::ForceSuccess(c)
        | Spec::ForceFailure(c)
        | Spec::ScriptGate(_, c)
        | Spec::IfCondition(_, c)
        | Spec::IfTime(_, c)
        | Spec::ScriptWrapper { child: c, .. }
        | Spec::Loop(_, _, c)
        | Spec::LoopUntilSuccess(_, _, c)
        | Spec::Timeout(_, c)
        | Spec::Cooldown(_, c)
        | Spec::Scope(c)
        | Spec::StoredState(c)
        | Spec::Repeat(c)
        | Spec::Monitor(c)
        | Spec::Gate(_, c)
        | Spec::GlobalCooldown { child: c, .. } => vec![&mut **c],
        _ => Vec::new(),
    }
}

/// The game systems' view: the deferred actions they run, by agent and
/// item, as the requests told them.
#[derive(Default)]
struct Game {
    running: BTreeSet<(u32, u32)>,
    turn: usize,
}

impl Game {
    /// Follows launches, cancels and remaps: a cancel or remap names an
    /// action the game runs, exactly once. An agent's remaps re-address at
    /// once (an item may be one action's old address and another's new).
    fn follow(&mut self, requests: &[Request]) -> Result<(), String> {
        let mut remapped = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            let key = (r.agent.0, r.node.get());
            let (ok, what) = match r.kind {
                RequestKind::Launch => (self.running.insert(key), "launched twice"),
                RequestKind::Cancel => (self.running.remove(&key), "cancels what does not run"),
                RequestKind::Remap { from } => {
                    remapped.push(*r);
                    (
                        self.running.remove(&(r.agent.0, from.get())),
                        "remaps what does not run",
                    )
                }
                _ => (true, ""),
            };
            if !ok {
                return Err(format!("{r:?}: {what}"));
            }
            let last_of_agent = requests.get(i + 1).is_none_or(|n| n.agent != r.agent);
            if last_of_agent {
                for r in remapped.drain(..) {
                    if !self.running.insert((r.agent.0, r.node.get())) {
                        return Err(format!("{r:?}: remaps onto a running action"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Reports on some running actions: success, failure, running, or
    /// nothing, by turn. A final report ends the game's part.
    fn answer(&mut self, crowd: &mut Crowd<World>) {
        self.turn += 1;
        let running: Vec<(u32, u32)> = self.running.iter().copied().collect();
        for (k, (agent, node)) in running.into_iter().enumerate() {
            let outcome = match (self.turn + k) % 4 {
                0 => Outcome::Success,
                1 => Outcome::Failure,
                2 => Outcome::Running,
                _ => continue,
            };
            if outcome != Outcome::Running {
                self.running.remove(&(agent, node));
            }
            crowd.complete(Completion {
                agent: AgentId(agent),
                node: NodeIdx::new(node),
                outcome,
            });
        }
    }
}

/// The immediate actions running and the scopes open, by agent and item,
/// as the leaves' calls tell: each starts once and ends once, by finishing
/// or by its clean-up, through any number of reloads.
#[derive(Default)]
struct Runs {
    open: BTreeSet<(u32, u32)>,
}

impl Runs {
    fn follow(&mut self, agent: u32, log: &[Event]) -> Result<(), String> {
        for &event in log {
            let (node, opens, closes) = match event {
                Event::Action(node, Signal::Cancel, _, _) => (node, false, true),
                Event::Action(node, Signal::Start, _, status) => {
                    (node, status == Status::Running, false)
                }
                Event::Action(node, Signal::Tick, _, status) => {
                    if !self.open.contains(&(agent, node.get())) {
                        return Err(format!("agent {agent}: {event:?} ticks what does not run"));
                    }
                    (node, false, status != Status::Running)
                }
                Event::Enter(node) => (node, true, false),
                Event::Exit(node, _) => (node, false, true),
                _ => continue,
            };
            let key = (agent, node.get());
            if closes && !self.open.remove(&key) {
                return Err(format!("agent {agent}: {event:?} ends what does not run"));
            }
            if opens && !self.open.insert(key) {
                return Err(format!("agent {agent}: {event:?} starts what runs"));
            }
        }
        Ok(())
    }

    /// After a reload's clean-up: what still runs was carried to its new
    /// item.
    fn remap(&mut self, nodes: &NodeMap) -> Result<(), String> {
        let mut carried = BTreeSet::new();
        for &(agent, node) in &self.open {
            let Some(new) = nodes.new_of(NodeIdx::new(node)) else {
                return Err(format!("agent {agent}: #{node} neither ended nor carried"));
            };
            carried.insert((agent, new.get()));
        }
        self.open = carried;
        Ok(())
    }

    /// The runs are the actors' running actions and open scopes.
    fn check(&self, crowd: &Crowd<World>) -> Result<(), String> {
        let shape = crowd.program().shape();
        let mut held = BTreeSet::new();
        for i in 0..crowd.len() {
            for (node, state) in crowd.actor(AgentId(i as u32)).actions() {
                let kind = shape.kind(node);
                if matches!(state, ActionState::Running(_))
                    && matches!(kind, Kind::Action | Kind::Scope)
                {
                    held.insert((i as u32, node.get()));
                }
            }
        }
        if held != self.open {
            return Err(format!(
                "the actors hold {held:?}, the calls left {:?} running",
                self.open
            ));
        }
        Ok(())
    }
}

/// What an actor may hold for `shape` (see docs/nodes.md for each kind's
/// state).
fn valid(shape: &Shape, actor: ActorRef<'_>) -> Result<(), String> {
    let len = shape.len() as u32;
    let parent_of = |node: NodeIdx| {
        (0..node.get())
            .rev()
            .map(NodeIdx::new)
            .find(|&p| shape.kind(p).is_decider() && shape.children(p).any(|c| c == node))
    };
    let mut last = None;
    for state in actor.deciders() {
        let (node, rank) = match state {
            DeciderState::Resume { node, child } => {
                let ok = shape.kind(node).keeps_resume()
                    && child.get() > node.get() + 1
                    && shape.children(node).any(|c| c == child);
                if !ok {
                    return Err(format!(
                        "{state:?}: not a later child of a sequence, selector or if-then-else"
                    ));
                }
                (node, 0)
            }
            DeciderState::Done { node, success } => {
                let ok = node.get() < len
                    && parent_of(node).is_some_and(|p| {
                        matches!(shape.kind(p), Kind::Concurrent | Kind::ParallelAll)
                    });
                if !ok {
                    return Err(format!("{state:?}: not a concurrent's child"));
                }
                (node, 2 - u32::from(success))
            }
            DeciderState::Value { node, value } => {
                let ok = node.get() < len
                    && match shape.kind(node) {
                        Kind::Loop | Kind::LoopUntilSuccess | Kind::Timeout => true,
                        Kind::Group => shape
                            .children(node)
                            .any(|c| c.get() == value && shape.kind(c) == Kind::Decider),
                        _ => false,
                    };
                if !ok {
                    return Err(format!("{state:?}: no value of this node"));
                }
                (node, 3)
            }
            DeciderState::Monitor { node } => {
                if node.get() >= len || shape.kind(node) != Kind::Monitor {
                    return Err(format!("{state:?}: not a monitor"));
                }
                (node, 4)
            }
        };
        if last >= Some((node, rank)) {
            return Err(format!("{state:?}: decider states out of order"));
        }
        last = Some((node, rank));
    }
    let mut last = None;
    for (node, state) in actor.actions() {
        if node.get() >= len {
            return Err(format!("{node}: past the shape"));
        }
        let kind = shape.kind(node);
        let ok = match state {
            ActionState::Running(_) => matches!(
                kind,
                Kind::Action
                    | Kind::Wait
                    | Kind::WaitUntilTime
                    | Kind::WaitForEvent
                    | Kind::Loop
                    | Kind::LoopUntilSuccess
                    | Kind::Scope
                    | Kind::ScriptWrapper
                    | Kind::Gate
                    | Kind::GlobalCooldown
                    | Kind::Team
                    | Kind::Sync
            ),
            _ => kind == Kind::Deferred,
        };
        if !ok {
            return Err(format!("{node} ({kind}): holds {state:?}"));
        }
        if last >= Some(node) {
            return Err(format!("{node}: action states out of order"));
        }
        last = Some(node);
    }
    let spec = shape.spec();
    let (d, a) = (actor.deciders().count(), actor.actions().count());
    if d > spec.decider_states as usize || a > spec.action_states as usize {
        return Err(format!("{d} decider and {a} action states: over the spec"));
    }
    Ok(())
}

/// Every agent valid, every gate's count its admitted tickets, and the game
/// running exactly the deferred actions the actors have with it.
fn check(crowd: &Crowd<World>, game: &Game) -> Result<(), String> {
    let shape = crowd.program().shape();
    let mut with_game = BTreeSet::new();
    for i in 0..crowd.len() {
        let actor = crowd.actor(AgentId(i as u32));
        valid(shape, actor).map_err(|e| format!("agent {i}: {e}"))?;
        for (node, state) in actor.actions() {
            if matches!(state, ActionState::Launched | ActionState::Acknowledged) {
                with_game.insert((i as u32, node.get()));
            }
        }
    }
    if with_game != game.running {
        return Err(format!(
            "the actors run {with_game:?} with the game, the game runs {:?}",
            game.running
        ));
    }
    crowd.check_globals()?;
    let globals = crowd.program().globals();
    for (node, _) in globals.iter() {
        let Some(count) = globals.admitted(shape, node) else {
            continue;
        };
        let tickets = (0..crowd.len())
            .filter(|&i| {
                crowd.actor(AgentId(i as u32)).action(node) == Some(ActionState::Running(1))
            })
            .count() as u32;
        if count != tickets {
            return Err(format!(
                "gate {node} counts {count}, {tickets} tickets held"
            ));
        }
    }
    Ok(())
}

/// What a run looked like, for comparing thread counts.
#[derive(Debug, PartialEq)]
struct Snapshot {
    actors: Vec<String>,
    requests: Vec<Request>,
    globals: Vec<(NodeIdx, u64)>,
    logs: Vec<Vec<treebeard_testkit::Event>>,
}

/// Takes the leaves' calls, follows them in `runs` (then, after a reload,
/// carries the runs over `nodes`), and checks the runs against the actors.
fn snapshot(
    crowd: &mut Crowd<World>,
    runs: &mut Runs,
    nodes: Option<&NodeMap>,
) -> Result<Snapshot, String> {
    let logs: Vec<Vec<Event>> = crowd
        .blackboards_mut()
        .iter_mut()
        .map(World::take_log)
        .collect();
    for (agent, log) in logs.iter().enumerate() {
        runs.follow(agent as u32, log)?;
    }
    if let Some(nodes) = nodes {
        runs.remap(nodes)?;
    }
    runs.check(crowd)?;
    Ok(Snapshot {
        actors: (0..crowd.len())
            .map(|i| format!("{:?}", crowd.actor(AgentId(i as u32))))
            .collect(),
        requests: crowd.requests().to_vec(),
        globals: crowd.program().globals().iter().collect(),
        logs,
    })
}

fn step(crowd: &mut Crowd<World>, game: &mut Game, tick: u64) -> Result<(), String> {
    crowd.tick_with(DT, |_, world| world.tick = tick);
    game.follow(crowd.requests())?;
    check(crowd, game)
}

/// One case: ticks, a reload into an edit, ticks. Returns the snapshots
/// after every tick and the reload's report.
fn case(seed: u64, plan: PlanConfig) -> Result<(Vec<Snapshot>, ReloadReport, Edit, Edit), String> {
    let mut rng = Rng::new(seed ^ 0x5EED);
    let before = Edit::random(seed);
    let after = before.mutate(&mut rng);
    let worlds = (0..AGENTS)
        .map(|a| World::random(seed * 101 + a as u64))
        .collect();
    let mut crowd = Crowd::with_agents(before.program(), worlds);
    crowd.set_plan_config(plan);
    let mut game = Game::default();
    let mut runs = Runs::default();
    let mut snapshots = Vec::new();
    for tick in 0..8 {
        step(&mut crowd, &mut game, tick)?;
        snapshots.push(snapshot(&mut crowd, &mut runs, None)?);
        game.answer(&mut crowd);
    }
    let report = crowd
        .reload(after.program())
        .map_err(|e| format!("reload refused: {e}"))?;
    game.follow(&report.requests)?;
    check(&crowd, &game).map_err(|e| format!("after the reload: {e}"))?;
    snapshots.push(
        snapshot(&mut crowd, &mut runs, Some(&report.nodes))
            .map_err(|e| format!("after the reload: {e}"))?,
    );
    for tick in 8..16 {
        step(&mut crowd, &mut game, tick)?;
        snapshots.push(snapshot(&mut crowd, &mut runs, None)?);
        game.answer(&mut crowd);
    }
    Ok((snapshots, report, before, after))
}

#[test]
fn random_trees_reload_into_edited_trees() {
    let mut totals = treebeard_vm::Carried::default();
    for seed in 0..1000 {
        let (_, report, before, after) = case(seed, PlanConfig::default()).unwrap_or_else(|e| {
            let mut rng = Rng::new(seed ^ 0x5EED);
            let before = Edit::random(seed);
            let after = before.mutate(&mut rng);
            panic!("seed {seed}: {e}\nbefore: {before:?}\nafter: {after:?}")
        });
        let nodes = &report.nodes;
        assert_eq!(
            nodes.kept() + nodes.moved() + nodes.vanished(),
            nodes.old_len(),
            "seed {seed}: {before:?} -> {after:?}"
        );
        assert_eq!(
            nodes.kept() + nodes.moved() + nodes.added(),
            nodes.new_len()
        );
        totals += report.carried;
    }
    // The cases exercise both sides of the rules.
    assert!(totals.kept > 100, "{totals:?}");
    assert!(totals.cancelled > 50, "{totals:?}");
    assert!(totals.remapped > 10, "{totals:?}");
}

#[test]
fn a_reload_gives_the_same_crowd_at_any_thread_count() {
    let run = |threads: usize, plan: PlanConfig, seed: u64| {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| case(seed, plan))
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"))
    };
    for seed in [3, 17, 42] {
        let (one, report, _, _) = run(1, PlanConfig::default(), seed);
        for threads in [2, 4] {
            let plan = PlanConfig {
                chunk_agents: 2,
                serial_below_ns: 0,
                ..PlanConfig::default()
            };
            let (many, again, _, _) = run(threads, plan, seed);
            assert_eq!(report.requests, again.requests, "seed {seed}");
            assert_eq!(report.carried, again.carried, "seed {seed}");
            for (tick, (a, b)) in one.iter().zip(&many).enumerate() {
                assert_eq!(a, b, "seed {seed}, {threads} threads, snapshot {tick}");
            }
        }
    }
}

#[test]
fn a_program_for_another_blackboard_is_refused_and_the_crowd_is_unchanged() {
    let edit = Edit::random(5);
    let mut crowd = Crowd::with_agents(edit.program(), (0..3).map(World::random).collect());
    crowd.tick(DT);
    let before = format!("{:?}", crowd.actor(AgentId(1)));
    // A table without the blackboard's fields.
    let mut other = treebeard_vm::Leaves::<World>::new();
    other.action("a", |_, _| treebeard_vm::Status::Success);
    let program = other.compile(&treebeard_shape::tree::act("a")).unwrap();
    let e = crowd.reload(program).unwrap_err();
    assert_eq!(e, treebeard_crowd::ReloadError::Fields { index: 0 });
    assert!(e.to_string().contains("same blackboard"), "{e}");
    assert_eq!(before, format!("{:?}", crowd.actor(AgentId(1))));
    crowd.tick(DT);
}
