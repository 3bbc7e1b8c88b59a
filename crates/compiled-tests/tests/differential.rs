//! Compiled trees against the interpreter: every random tree the build
//! script generated runs on both engines in lockstep, under random leaf
//! outcomes and deferred completions arriving at various ticks, and after
//! every tick every agent's actor (canonical words), root status, requests
//! and leaf calls are compared. The events a tick sends are delivered to
//! their agents before the next. A third run switches engine every few
//! ticks and must end where the interpreter ends.

use treebeard_compiled_tests::{CHILDREN, DEPTH, HOSTED, TREES};
use treebeard_shape::{Kind, NodeIdx};
use treebeard_testkit::{Spec, World, answer_launches};
use treebeard_vm::{
    ActorLayout, Actors, AgentId, CompiledTree, Completion, Engine, Frame, Interpreter, Program,
    Request, RequestKind, Status,
};

const AGENTS: usize = 6;
const TICKS: u64 = 40;

/// One engine's run of a tree: the agents, their worlds, the requests.
struct Side {
    program: Program<World>,
    actors: Actors,
    worlds: Vec<World>,
    interpreter: Interpreter,
    frame: Frame,
}

/// What one tick of one agent left.
#[derive(Debug, PartialEq)]
struct After {
    words: Vec<u32>,
    status: Status,
    requests: Vec<Request>,
    log: Vec<treebeard_testkit::Event>,
}

impl Side {
    fn new(program: Program<World>, seed: u64) -> Side {
        let layout = ActorLayout::for_shape(program.shape());
        Side {
            interpreter: Interpreter::with_capacity(program.spec()),
            actors: Actors::new(layout, AGENTS),
            worlds: (0..AGENTS)
                .map(|a| World::random(seed ^ (a as u64) << 32))
                .collect(),
            program,
            frame: Frame::default(),
        }
    }

    fn tick(&mut self, tick: u64, completions: &[Completion]) -> Vec<After> {
        for c in completions {
            let mut actor = self.actors.get_mut(c.agent.0 as usize);
            let _ = actor.complete(c.node, c.outcome);
        }
        self.frame = self.frame.next(0.25);
        let mut out = Vec::new();
        for agent in 0..AGENTS {
            let world = &mut self.worlds[agent];
            world.tick = tick;
            let mut requests = Vec::new();
            let status = self.interpreter.tick(
                &self.program,
                &self.frame,
                AgentId(agent as u32),
                &mut self.actors.get_mut(agent),
                world,
                &mut requests,
            );
            let mut words = Vec::new();
            self.actors.get(agent).canonical_words(&mut words);
            out.push(After {
                words,
                status,
                requests,
                log: world.take_log(),
            });
        }
        // The events the tick sent reach their agents before the next
        // tick, in the order they were sent (the interpreter delivers them
        // on either side: what they set is what the next tick reads).
        for after in &out {
            for request in &after.requests {
                if let RequestKind::Event { event, to } = request.kind
                    && (to.0 as usize) < AGENTS
                {
                    let agent = to.0 as usize;
                    self.interpreter.send_event(
                        &self.program,
                        &self.frame,
                        to,
                        &mut self.actors.get_mut(agent),
                        &mut self.worlds[agent],
                        event,
                    );
                }
            }
        }
        out
    }
}

/// The random trees of one form: how a seed makes its tree, and the
/// compiled trees the build script generated from them.
#[derive(Clone, Copy)]
struct Suite {
    form: &'static str,
    spec: fn(u64, usize, usize) -> Spec,
    trees: &'static [fn() -> CompiledTree<World>],
}

const STRAIGHT: Suite = Suite {
    form: "straight",
    spec: Spec::random_static,
    trees: TREES,
};

const HOSTED_TREES: Suite = Suite {
    form: "hosted",
    spec: Spec::random,
    trees: HOSTED,
};

impl Suite {
    fn spec(self, seed: u64) -> Spec {
        (self.spec)(seed, DEPTH, CHILDREN)
    }

    /// The tree of `seed` on the interpreter, and linked with its code.
    fn programs(self, seed: u64) -> (Program<World>, Program<World>) {
        let interpreted = self.spec(seed).compile();
        let compiled = interpreted
            .clone()
            .with_compiled(self.trees[seed as usize]())
            .unwrap_or_else(|e| panic!("{} tree {seed}: {e}", self.form));
        assert_eq!(compiled.engine(), Engine::Compiled);
        assert_eq!(interpreted.engine(), Engine::Interpreted);
        (interpreted, compiled)
    }

    /// Every tree in lockstep on both engines, compared after every tick.
    fn lockstep(self) {
        assert!(
            self.trees.len() >= 200,
            "the suite covers at least 200 trees"
        );
        for seed in 0..self.trees.len() as u64 {
            let (interpreted, compiled) = self.programs(seed);
            let mut a = Side::new(interpreted, seed);
            let mut b = Side::new(compiled, seed);
            let mut answers = Vec::new();
            for tick in 0..TICKS {
                let left = a.tick(tick, &answers);
                let right = b.tick(tick, &answers);
                for (agent, (x, y)) in left.iter().zip(&right).enumerate() {
                    assert_eq!(
                        x,
                        y,
                        "{} tree {seed} ({:?}), tick {tick}, agent {agent}: interpreted (left) and compiled (right) differ",
                        self.form,
                        self.spec(seed)
                    );
                }
                let requests: Vec<Request> = left.iter().flat_map(|x| x.requests.clone()).collect();
                answer_launches(&requests, tick as usize, &mut answers);
            }
        }
    }

    /// Every third tree, switching engine every few ticks, ends where the
    /// interpreter ends.
    fn switching(self) {
        for seed in (0..self.trees.len() as u64).step_by(3) {
            let (interpreted, compiled) = self.programs(seed);
            let mut a = Side::new(interpreted, seed);
            let mut b = Side::new(compiled, seed);
            let mut answers = Vec::new();
            let k = 1 + seed % 4;
            let mut last = (Vec::new(), Vec::new());
            for tick in 0..TICKS {
                let engine = if (tick / k) % 2 == 0 {
                    Engine::Compiled
                } else {
                    Engine::Interpreted
                };
                b.program.set_engine(engine).expect("the tree is compiled");
                let left = a.tick(tick, &answers);
                let right = b.tick(tick, &answers);
                let requests: Vec<Request> = left.iter().flat_map(|x| x.requests.clone()).collect();
                answer_launches(&requests, tick as usize, &mut answers);
                last = (left, right);
            }
            assert_eq!(
                last.0, last.1,
                "{} tree {seed}, switching every {k} ticks",
                self.form
            );
        }
    }
}

fn programs(seed: u64) -> (Program<World>, Program<World>) {
    STRAIGHT.programs(seed)
}

#[test]
fn every_generated_tree_ticks_as_the_interpreter_does() {
    STRAIGHT.lockstep();
}

#[test]
fn every_hosted_tree_ticks_as_the_interpreter_does() {
    HOSTED_TREES.lockstep();
}

#[test]
fn switching_engine_every_few_ticks_ends_where_the_interpreter_ends() {
    STRAIGHT.switching();
}

#[test]
fn switching_engine_on_hosted_trees_ends_where_the_interpreter_ends() {
    HOSTED_TREES.switching();
}

/// The hosted suite covers every kind the random generator makes, and
/// most of its trees hand nodes to the interpreter.
#[test]
fn the_hosted_trees_cover_the_kinds_of_data_at_run_time() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..HOSTED.len() as u64 {
        let program = HOSTED_TREES.spec(seed).compile();
        let shape = program.shape();
        for i in 0..shape.len() as u32 {
            kinds.insert(format!("{}", shape.kind(NodeIdx::new(i))));
        }
    }
    for kind in [
        "Concurrent",
        "ParallelAll",
        "Monitor",
        "Scope",
        "ScriptWrapper",
        "Gate",
        "GlobalCooldown",
        "ChildTree",
        "Repeat",
    ] {
        assert!(
            kinds.contains(kind),
            "no hosted tree holds a {kind}: {kinds:?}"
        );
    }
}

#[test]
fn a_tree_generated_from_another_shape_does_not_link() {
    let (interpreted, _) = programs(0);
    let other = (1..TREES.len())
        .find(|&i| TREES[i]().hash() != TREES[0]().hash())
        .expect("random trees differ");
    let err = interpreted
        .with_compiled(TREES[other]())
        .expect_err("another tree's code");
    assert!(err.to_string().contains("generate it again"), "{err}");
}

/// The generated code reads only the forms a static tree's tick leaves an
/// actor in; any other valid form (here: a sequence told to resume at its
/// second child with nothing running, as a hot reload or a hand-edited
/// snapshot may leave it) is ticked by the interpreter, so the engines
/// still agree.
#[test]
fn actors_in_other_forms_tick_as_the_interpreter_ticks_them() {
    let mut covered = 0;
    for seed in 0..TREES.len() as u64 {
        let (interpreted, compiled) = programs(seed);
        let shape = interpreted.shape();
        let Some((sequence, second)) = (0..shape.len() as u32).find_map(|i| {
            let node = NodeIdx::new(i);
            let children: Vec<_> = shape.children(node).collect();
            // (A sequence whose running leaf implies its resume keeps no
            // resume point to tell.)
            (shape.kind(node) == Kind::Sequence
                && !shape.resume_implied(node)
                && children.len() > 1)
                .then(|| (i, children[1].get()))
        }) else {
            continue;
        };
        covered += 1;
        let mut a = Side::new(interpreted, seed);
        let mut b = Side::new(compiled, seed);
        let stride = a.actors.layout().words();
        let mut answers = Vec::new();
        for tick in 0..TICKS {
            if tick % 7 == 3 {
                for side in [&mut a, &mut b] {
                    for agent in 0..AGENTS {
                        if side.actors.get(agent).is_idle() {
                            let words = &mut side.actors.words_mut()[agent * stride..];
                            // One decider state (resume `sequence` at
                            // `second`, tag 0), no action states.
                            words[..3].copy_from_slice(&[1, sequence << 8, second]);
                        }
                        let actor = side.actors.get(agent);
                        assert_eq!(actor.check(side.program.shape()), Ok(()), "a valid actor");
                    }
                }
            }
            let left = a.tick(tick, &answers);
            let right = b.tick(tick, &answers);
            assert_eq!(left, right, "tree {seed}, tick {tick}");
            let requests: Vec<Request> = left.iter().flat_map(|x| x.requests.clone()).collect();
            answer_launches(&requests, tick as usize, &mut answers);
        }
    }
    assert!(
        covered >= 50,
        "{covered} trees with a sequence of two children"
    );
}
