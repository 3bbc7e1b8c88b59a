//! The compiled crowd tree against the interpreter on batches of agents:
//! every agent ticking with one frame, and agents on their own schedules
//! (some skipped, each with its own frame), in batches that are not a
//! multiple of the compiled loop's run of agents. After every tick both
//! engines must leave the same actors and blackboards.

use treebeard_vm::{ActorLayout, Actors, AgentId, Frame, Interpreter, Program};
use treebeard_workload::{Critter, compiled, leaves, spawn, tree};

const AGENTS: usize = 77;
const TICKS: u64 = 300;

/// One engine's crowd: its program, actors and blackboards.
struct Side {
    program: Program<Critter>,
    actors: Actors,
    critters: Vec<Critter>,
    interpreter: Interpreter,
}

impl Side {
    fn new(program: Program<Critter>) -> Side {
        Side {
            actors: Actors::new(ActorLayout::for_shape(program.shape()), AGENTS),
            critters: spawn(AGENTS, 7),
            interpreter: Interpreter::with_capacity(program.spec()),
            program,
        }
    }

    /// Ticks the batch: agent `i` ticks on tick `t` when `due(i, t)`, with
    /// a frame of its own.
    fn tick(&mut self, t: u64, due: impl Fn(u32, u64) -> bool) {
        let mut requests = Vec::new();
        self.interpreter.tick_batch_scheduled(
            &self.program,
            AgentId(0),
            self.actors.as_mut(),
            &mut self.critters,
            &mut requests,
            |agent, critter| {
                due(agent.0, t).then(|| {
                    critter.world_step();
                    Frame {
                        index: t,
                        time: t as f64,
                        dt: 1.0 + agent.0 as f32 / 100.0,
                    }
                })
            },
        );
        assert!(requests.is_empty());
    }

    /// Ticks every agent with one frame.
    fn tick_all(&mut self, frame: &Frame) {
        let mut requests = Vec::new();
        self.interpreter.tick_batch(
            &self.program,
            frame,
            AgentId(0),
            self.actors.as_mut(),
            &mut self.critters,
            &mut requests,
            |_, critter| critter.world_step(),
        );
        assert!(requests.is_empty());
    }
}

fn sides() -> (Side, Side) {
    let program: Program<Critter> = leaves().compile(&tree()).unwrap();
    let compiled = program.clone().with_compiled(compiled::tree()).unwrap();
    (Side::new(program), Side::new(compiled))
}

/// The same canonical actor words (the words past an actor's states are
/// free, and each engine may leave what it likes there) and blackboards.
fn assert_same(interpreted: &Side, compiled: &Side, what: &str) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for agent in 0..AGENTS {
        a.clear();
        b.clear();
        interpreted.actors.get(agent).canonical_words(&mut a);
        compiled.actors.get(agent).canonical_words(&mut b);
        assert_eq!(a, b, "{what}, agent {agent}");
    }
    assert_eq!(interpreted.critters, compiled.critters, "{what}");
}

#[test]
fn agents_on_their_own_schedules_tick_as_on_the_interpreter() {
    let (mut interpreted, mut compiled) = sides();
    // Rates from 1 to 5 ticks, staggered: due masks with gaps of every
    // length, whole runs due, and runs with no agent due.
    let due = |agent: u32, t: u64| {
        let rate = u64::from(agent % 5 + 1);
        (t + u64::from(agent / 3)).is_multiple_of(rate) && !(t % 7 == 3 && agent < 40)
    };
    for t in 0..TICKS {
        interpreted.tick(t, due);
        compiled.tick(t, due);
        assert_same(&interpreted, &compiled, &format!("tick {t}"));
    }
}

#[test]
fn every_agent_ticking_with_one_frame_ticks_as_on_the_interpreter() {
    let (mut interpreted, mut compiled) = sides();
    let mut frame = Frame::default();
    for t in 0..TICKS {
        interpreted.tick_all(&frame);
        compiled.tick_all(&frame);
        assert_same(&interpreted, &compiled, &format!("tick {t}"));
        frame = frame.next(1.0);
    }
}
