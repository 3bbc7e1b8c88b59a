//! Stimuli in a crowd: `Crowd::post_stimulus` posts to one agent between
//! ticks, at the time of the crowd's next tick, for the stimulus's declared
//! seconds; `PostStimulus` nodes post to their own agent during a tick, with
//! the same results at any thread count.
//!
//! The tree, shared by every agent (item indices in pre-order):
//!
//! ```text
//! 0 ForceSuccess
//! 1   IfCondition(greet)
//! 2     PostStimulus(Greeted, data: {id})
//! ```
//!
//! It finishes on every tick, so each tick tests `greet` again.
//!
//! The stimuli: `Hit` (0, one second) and `Greeted` (1, half a second).

use rayon::ThreadPoolBuilder;
use treebeard_crowd::{Crowd, CrowdError, PlanConfig};
use treebeard_shape::tree::{Node, decider_of, force_success};
use treebeard_shape::{Declarations, Kind, Options, ParamValue, compile_with};
use treebeard_vm::{AgentId, Leaves, Program};

#[derive(Clone, Debug, Default, PartialEq)]
struct Unit {
    /// The agent's number: its greeting's datum.
    id: i64,
    /// Whether the agent greets this tick.
    greet: bool,
}

treebeard_vm::blackboard!(Unit { id, greet });

const HIT: usize = 0;
const GREETED: usize = 1;

fn program() -> Program<Unit> {
    let mut leaves = Leaves::<Unit>::new();
    leaves.blackboard();
    let none: [Node; 0] = [];
    let tree = force_success(
        decider_of(
            Kind::IfCondition,
            [decider_of(Kind::PostStimulus, none)
                .arg("stimulus", "Greeted")
                .arg("data", ParamValue::Field("id".into()))],
        )
        .arg("condition", "greet"),
    );
    let options = Options {
        declarations: Declarations::new()
            .stimulus("Hit", 1.0)
            .stimulus("Greeted", 0.5),
        ..Options::default()
    };
    let shape = compile_with(&tree, &leaves, &options).unwrap_or_else(|e| panic!("{e}"));
    Program::link(shape, &leaves).unwrap_or_else(|e| panic!("{e}"))
}

fn units(n: usize) -> Vec<Unit> {
    (0..n)
        .map(|i| Unit {
            id: i as i64,
            greet: false,
        })
        .collect()
}

/// The datum of `agent`'s stimulus while it is active at the time of the
/// crowd's next tick.
fn next_tick(crowd: &Crowd<Unit>, agent: u32, stimulus: usize) -> Option<u32> {
    let frame = crowd.frame();
    let now = frame.time + f64::from(frame.dt);
    crowd.actor(AgentId(agent)).stimulus(stimulus, now)
}

#[test]
fn post_stimulus_reaches_one_agent_for_the_declared_seconds() {
    let mut crowd = Crowd::with_agents(program(), units(3));
    // Before any tick, the next tick is at time 0.
    crowd.post_stimulus(AgentId(1), HIT, 42).unwrap();
    assert_eq!(next_tick(&crowd, 1, HIT), Some(42));
    assert_eq!(next_tick(&crowd, 0, HIT), None);
    assert_eq!(next_tick(&crowd, 2, HIT), None);
    assert_eq!(crowd.actor(AgentId(1)).stimuli_flags(0.0), 0b01);
    // Ticks at 0, 0.25, 0.5 and 0.75 see it; the tick at 1.0 does not.
    let mut seen = Vec::new();
    for _ in 0..6 {
        crowd.tick(0.25);
        let now = crowd.frame().time;
        seen.push((now, crowd.actor(AgentId(1)).stimulus(HIT, now)));
    }
    assert_eq!(
        seen,
        [
            (0.0, Some(42)),
            (0.25, Some(42)),
            (0.5, Some(42)),
            (0.75, Some(42)),
            (1.0, None),
            (1.25, None)
        ]
    );
}

#[test]
fn post_stimulus_between_ticks_starts_at_the_next_tick_and_restarts() {
    let mut crowd = Crowd::with_agents(program(), units(2));
    crowd.tick(0.5); // time 0
    crowd.tick(0.5); // time 0.5; the next is at 1.0
    crowd.post_stimulus(AgentId(0), HIT, 1).unwrap();
    let actor = crowd.actor(AgentId(0));
    assert_eq!(actor.stimulus(HIT, 0.5), Some(1));
    assert_eq!(actor.stimulus(HIT, 1.75), Some(1));
    assert_eq!(actor.stimulus(HIT, 2.0), None, "1.0 + 1 second");
    crowd.tick(0.5); // time 1.0
    // Posting again restarts it from the next tick (1.5) with the new datum.
    crowd.post_stimulus(AgentId(0), HIT, 2).unwrap();
    let actor = crowd.actor(AgentId(0));
    assert_eq!(actor.stimulus(HIT, 2.25), Some(2));
    assert_eq!(actor.stimulus(HIT, 2.5), None);
    assert_eq!(crowd.actor(AgentId(1)).stimuli_flags(1.5), 0);
}

#[test]
fn post_stimulus_nodes_post_to_their_own_agent_at_any_thread_count() {
    let run = |threads: usize| {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| {
            let mut crowd = Crowd::with_agents(program(), units(40));
            crowd.set_plan_config(PlanConfig {
                chunk_agents: 3,
                serial_below_ns: 0,
                ..PlanConfig::default()
            });
            let mut flags = Vec::new();
            for t in 0..6 {
                // Every third agent greets on even ticks.
                for (i, unit) in crowd.blackboards_mut().iter_mut().enumerate() {
                    unit.greet = t % 2 == 0 && i % 3 == 0;
                }
                crowd.tick(0.25);
                let now = crowd.frame().time;
                let tick: Vec<(u32, Option<u32>)> = (0..crowd.len() as u32)
                    .map(|a| {
                        let actor = crowd.actor(AgentId(a));
                        (actor.stimuli_flags(now), actor.stimulus(GREETED, now))
                    })
                    .collect();
                flags.push(tick);
            }
            flags
        })
    };
    let one = run(1);
    // Greeted lasts half a second: posted at 0, seen at 0 and 0.25, posted
    // again at 0.5, and so on; agent i's datum is its id.
    for (t, tick) in one.iter().enumerate() {
        for (i, &(flags, datum)) in tick.iter().enumerate() {
            let want = (i % 3 == 0).then_some(i as u32);
            assert_eq!(datum, want, "tick {t}, agent {i}");
            assert_eq!(flags, u32::from(want.is_some()) << GREETED, "tick {t}");
        }
    }
    assert_eq!(run(4), one);
}

#[test]
fn post_stimulus_of_an_undeclared_stimulus_is_an_error() {
    let mut crowd = Crowd::with_agents(program(), units(1));
    let err = crowd.post_stimulus(AgentId(0), 2, 0).unwrap_err();
    let declared = program().shape().stimuli().len();
    assert_eq!(
        err,
        CrowdError::NoStimulus {
            stimulus: 2,
            declared
        }
    );
    assert!(err.to_string().contains("no stimulus 2"), "{err}");
}

#[test]
fn post_stimulus_to_an_unknown_agent_is_an_error() {
    let mut crowd = Crowd::with_agents(program(), units(1));
    let err = crowd.post_stimulus(AgentId(5), HIT, 0).unwrap_err();
    assert_eq!(err, CrowdError::NoAgent(AgentId(5)));
}
