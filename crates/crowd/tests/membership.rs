//! Agents join and leave a running crowd, and tick at their own rates.
//!
//! Removing an agent cancels its work (immediate actions get `Cancel`,
//! scopes exit, launched deferred actions make cancel requests, handed to
//! the caller) and leaves its slot vacant: ticks, traces, events and
//! completions skip it, and the next agent to join reuses the lowest vacant
//! id, idle. An agent of tick rate `k` ticks on one frame in `k`, spread by
//! its id, and sees a `dt` covering all the time since its previous tick,
//! so the tree's timers run in seconds.

use std::sync::Mutex;
use treebeard_crowd::{Crowd, CrowdError};
use treebeard_shape::tree::{Node, act, concurrent, cond, decider_of, leaf, priority, sequence};
use treebeard_shape::{Kind, NodeIdx};
use treebeard_testkit::{Event, World, answer_launches, leaves as test_leaves};
use treebeard_vm::{
    AgentId, Completion, Ending, EventId, Frame, Leaves, Outcome, Program, Request, RequestKind,
    Signal, Status,
};

/// Items, in pre-order: 0 the concurrent root, 1 the deferred `d`, 2 the
/// scope `s`, 3 the immediate action `a` inside it, 4 the persistent `p`.
fn busy_tree() -> Node {
    let mut scope = leaf("s");
    scope.push(act("a"));
    concurrent([leaf("d"), scope, act("p")])
}

/// A world whose `a` runs and whose `p` succeeds (adding to its slot).
fn busy_world() -> World {
    let mut w = World::new();
    w.set(3, Status::Running).set(4, Status::Success);
    w
}

fn busy_crowd(n: usize) -> Crowd<World> {
    let program = test_leaves().compile(&busy_tree()).expect("busy tree");
    Crowd::with_agents(program, (0..n).map(|_| busy_world()).collect())
}

fn launch_of(requests: &[Request], agent: AgentId) -> Request {
    *requests
        .iter()
        .find(|r| r.agent == agent && r.kind == RequestKind::Launch)
        .expect("a launch")
}

#[test]
fn removing_an_agent_cancels_its_work_and_hands_the_requests_to_the_caller() {
    let mut crowd = busy_crowd(3);
    crowd.tick(0.1);
    let launch = launch_of(crowd.requests(), AgentId(1));
    assert_eq!(launch.node, NodeIdx::new(1));
    assert!(!crowd.actor(AgentId(1)).is_idle());
    // `p`'s persistent slot (its memory block's words follow it).
    assert_eq!(crowd.actor(AgentId(1)).persistent()[0], 1);
    crowd.blackboards_mut()[1].clear_log();

    let mut cancels = vec![];
    let mut world = crowd
        .remove(AgentId(1), &mut cancels)
        .expect("a live agent");
    assert_eq!(
        cancels,
        [Request {
            kind: RequestKind::Cancel,
            ..launch
        }]
    );
    // The running immediate action got its cancel, then its scope exited.
    assert_eq!(
        world.take_log(),
        [
            Event::Action(NodeIdx::new(3), Signal::Cancel, 1, Status::Failure),
            Event::Exit(NodeIdx::new(2), Ending::Cancelled),
        ]
    );
    assert!(!crowd.is_alive(AgentId(1)));
    assert_eq!((crowd.len(), crowd.slots()), (2, 3));
    assert_eq!(crowd.agents().collect::<Vec<_>>(), [AgentId(0), AgentId(2)]);
    assert!(crowd.blackboard(AgentId(1)).is_none());
    // A vacant slot is no agent: removing it again does nothing.
    assert!(crowd.remove(AgentId(1), &mut cancels).is_none());
    assert!(crowd.remove(AgentId(7), &mut cancels).is_none());
    assert_eq!(cancels.len(), 1);
    // The requests of the next tick are the other agents' only.
    crowd.tick(0.1);
    assert!(crowd.requests().iter().all(|r| r.agent != AgentId(1)));
}

#[test]
fn work_reported_done_before_a_removal_is_not_cancelled() {
    let mut crowd = busy_crowd(3);
    crowd.tick(0.1);
    let launch = launch_of(crowd.requests(), AgentId(1));
    let other = launch_of(crowd.requests(), AgentId(2));
    let done = Completion {
        agent: AgentId(1),
        node: launch.node,
        outcome: Outcome::Success,
    };
    // Reported before the removal: the deferred action ended, so the
    // removal cancels only the work still running (the scope's action).
    crowd.complete(done);
    crowd.blackboards_mut()[1].clear_log();
    let mut cancels = vec![];
    let mut world = crowd
        .remove(AgentId(1), &mut cancels)
        .expect("a live agent");
    assert_eq!(cancels, []);
    assert_eq!(
        world.take_log(),
        [
            Event::Action(NodeIdx::new(3), Signal::Cancel, 1, Status::Failure),
            Event::Exit(NodeIdx::new(2), Ending::Cancelled),
        ]
    );
    // A report that does not apply stays queued, and the next tick finds
    // it stale, as any report on a removed agent.
    crowd.tick(0.1);
    assert_eq!(crowd.stale_completions(), 0);
    crowd.complete(Completion {
        agent: AgentId(2),
        node: NodeIdx::new(3),
        outcome: Outcome::Success,
    });
    crowd.complete(Completion {
        agent: AgentId(2),
        node: other.node,
        outcome: Outcome::Failure,
    });
    let cancels = &mut vec![];
    crowd.remove(AgentId(2), cancels).expect("a live agent");
    assert_eq!(cancels, &[], "the launch was reported failed");
    crowd.tick(0.1);
    assert_eq!(crowd.stale_completions(), 1, "#3 is no deferred action");
}

#[test]
fn completions_for_a_removed_agent_are_stale() {
    let mut crowd = busy_crowd(3);
    crowd.tick(0.1);
    let launch = launch_of(crowd.requests(), AgentId(1));
    let done = Completion {
        agent: AgentId(1),
        node: launch.node,
        outcome: Outcome::Success,
    };
    // Reported after the removal.
    crowd.remove(AgentId(1), &mut vec![]);
    crowd.complete(done);
    crowd.tick(0.1);
    assert_eq!(crowd.stale_completions(), 1);
    // Reported after the id was reused, before the new agent ticked.
    assert_eq!(crowd.spawn(busy_world()), AgentId(1));
    crowd.complete(done);
    crowd.tick(0.1);
    assert_eq!(crowd.stale_completions(), 1);
    // The new agent's own launch is not the old one's.
    assert_eq!(launch_of(crowd.requests(), AgentId(1)).node, launch.node);
}

#[test]
fn a_joining_agent_takes_the_lowest_vacant_id_and_starts_idle() {
    let mut crowd = busy_crowd(5);
    for _ in 0..3 {
        crowd.tick(0.1);
    }
    // `p`'s persistent slot (its memory block's words follow it).
    assert_eq!(crowd.actor(AgentId(1)).persistent()[0], 1);
    crowd.set_tick_rate(AgentId(1), 4).unwrap();
    crowd.remove(AgentId(3), &mut vec![]);
    crowd.remove(AgentId(1), &mut vec![]);
    assert_eq!(crowd.spawn(busy_world()), AgentId(1));
    let reused = crowd.actor(AgentId(1));
    assert!(reused.is_idle());
    assert_eq!(reused.persistent(), &[0; 3], "a reused slot starts cleared");
    assert_eq!(crowd.tick_rate(AgentId(1)).unwrap(), 1);
    assert_eq!(crowd.spawn(busy_world()), AgentId(3));
    assert_eq!(crowd.spawn(busy_world()), AgentId(5));
    assert_eq!((crowd.len(), crowd.slots()), (6, 6));
    // The new agent runs from the next tick, with every other agent.
    crowd.tick(0.1);
    let ticked: Vec<AgentId> = crowd.requests().iter().map(|r| r.agent).collect();
    assert_eq!(ticked, [AgentId(1), AgentId(3), AgentId(5)]);
}

#[test]
fn vacant_slots_at_the_end_are_dropped() {
    let mut crowd = busy_crowd(6);
    crowd.tick(0.1);
    crowd.remove(AgentId(3), &mut vec![]);
    crowd.remove(AgentId(4), &mut vec![]);
    assert_eq!((crowd.len(), crowd.slots()), (4, 6));
    crowd.remove(AgentId(5), &mut vec![]);
    assert_eq!((crowd.len(), crowd.slots()), (3, 3));
    assert_eq!(crowd.blackboards().len(), 3);
    assert_eq!(crowd.spawn(busy_world()), AgentId(3));
    crowd.tick(0.1);
    assert_eq!(crowd.requests().len(), 1);
    assert_eq!(crowd.requests()[0].agent, AgentId(3));
}

#[test]
fn ticks_traces_and_events_skip_vacant_slots() {
    // Every agent sends `e0` to agent 2, then idles.
    let tree = sequence([
        decider_of(Kind::SendEvent, [] as [Node; 0])
            .arg("event", "e0")
            .arg("to", 2),
        act("a"),
    ]);
    let program = test_leaves().compile(&tree).expect("event tree");
    let mut crowd = Crowd::with_agents(program, (0..4).map(|_| World::new()).collect());
    crowd.remove(AgentId(2), &mut vec![]);
    let seen = Mutex::new(vec![]);
    crowd.tick_with(0.1, |agent, _| seen.lock().unwrap().push(agent));
    assert_eq!(*seen.lock().unwrap(), [AgentId(0), AgentId(1), AgentId(3)]);
    assert_eq!(crowd.undelivered_events(), 3);
    let mut traced = vec![];
    crowd.tick_traced(0.1, &mut |agent, _, _| traced.push(agent));
    assert!(!traced.is_empty() && !traced.contains(&AgentId(2)));
    assert_eq!(crowd.undelivered_events(), 3);
}

#[test]
fn calls_on_a_vacant_slot_are_errors() {
    let mut crowd = busy_crowd(3);
    crowd.remove(AgentId(1), &mut vec![]);
    let gone = AgentId(1);
    let err = crowd.send_event(gone, EventId(0)).unwrap_err();
    assert_eq!(err, CrowdError::NoAgent(gone));
    assert!(
        err.to_string().contains("no agent 1: it was removed"),
        "{err}"
    );
    assert_eq!(crowd.set_tick_rate(gone, 2), Err(CrowdError::NoAgent(gone)));
    assert_eq!(crowd.tick_rate(gone), None);
    assert_eq!(crowd.tick_rate(AgentId(9)), None);
    assert_eq!(
        crowd.post_stimulus(gone, 0, 1),
        Err(CrowdError::NoAgent(gone))
    );
    // The crowd is as it was: the slot stays vacant, the others tick.
    crowd.tick(0.1);
    assert!(!crowd.is_alive(gone));
    assert_eq!(crowd.len(), 2);
}

#[test]
fn a_tick_rate_of_zero_is_an_error_and_changes_nothing() {
    let mut crowd = busy_crowd(1);
    let err = crowd.set_tick_rate(AgentId(0), 0).unwrap_err();
    assert_eq!(err, CrowdError::ZeroTickRate);
    assert!(
        err.to_string().contains("give 1 (every frame) or more"),
        "{err}"
    );
    assert_eq!(crowd.tick_rate(AgentId(0)), Some(1));
}

// ---------------------------------------------------------------------------
// Tick rates
// ---------------------------------------------------------------------------

/// A blackboard that remembers the frames it ticked with.
#[derive(Default)]
struct Clock {
    /// Per tick: the frame's index, time and `dt`.
    ticks: Vec<(u64, f64, f32)>,
    /// `start` runs until this time.
    start_at: f64,
    /// When `start` succeeded, and `finish` after it.
    started: Option<f64>,
    finished: Option<f64>,
}

/// `look`, which runs for ever and records every frame it ticks with,
/// beside `start` (running until the time `start_at`), a `Wait` of `wait`
/// seconds and `finish`, which record their frame's time once.
fn clock_program(wait: f64) -> Program<Clock> {
    let mut leaves = Leaves::<Clock>::new();
    leaves.action("look", |c, call| {
        let f = call.frame();
        c.ticks.push((f.index, f.time, f.dt));
        Status::Running
    });
    leaves.action("start", |c, call| {
        let now = call.frame().time;
        if now < c.start_at {
            return Status::Running;
        }
        c.started.get_or_insert(now);
        Status::Success
    });
    leaves.action("finish", |c, call| {
        if c.started.is_some() {
            c.finished.get_or_insert(call.frame().time);
        }
        Status::Success
    });
    let tree = concurrent([
        act("look"),
        sequence([
            act("start"),
            decider_of(Kind::Wait, [] as [Node; 0]).arg("seconds", wait),
            act("finish"),
        ]),
    ]);
    leaves.compile(&tree).expect("clock tree")
}

fn clocks(n: usize) -> Crowd<Clock> {
    Crowd::with_agents(
        clock_program(2.0),
        (0..n).map(|_| Clock::default()).collect(),
    )
}

#[test]
fn a_rate_three_agent_ticks_on_one_frame_in_three_by_its_id() {
    let mut crowd = clocks(6);
    for id in 0..6 {
        crowd.set_tick_rate(AgentId(id), 3).unwrap();
    }
    let before = Mutex::new(vec![]);
    for _ in 0..12 {
        crowd.tick_with_frame(0.25, |agent, frame, _| {
            before.lock().unwrap().push((frame.index, agent.0));
        });
    }
    for id in 0..6u64 {
        let frames: Vec<u64> = crowd.blackboards()[id as usize]
            .ticks
            .iter()
            .map(|t| t.0)
            .collect();
        let expected: Vec<u64> = (0..12).filter(|f| (f + id % 3) % 3 == 0).collect();
        assert_eq!(frames, expected, "agent {id}");
        // After its first tick, each covers three frames.
        for &(_, _, dt) in &crowd.blackboards()[id as usize].ticks[1..] {
            assert_eq!(dt, 0.75);
        }
    }
    // Even load: two of the six agents tick on every frame, and `before`
    // runs for exactly them.
    let before = before.into_inner().unwrap();
    for f in 0..12 {
        assert_eq!(before.iter().filter(|b| b.0 == f).count(), 2, "frame {f}");
    }
    assert_eq!(before.len(), 24);
}

/// When each agent of `crowd`, at `rates[id % rates.len()]`, started and
/// finished its wait, after `ticks` ticks of 0.5 seconds.
fn waits(crowd: &mut Crowd<Clock>, rates: &[u32], ticks: usize) -> Vec<(u32, f64)> {
    for id in crowd.agents().collect::<Vec<_>>() {
        crowd
            .set_tick_rate(id, rates[id.index() % rates.len()])
            .unwrap();
    }
    for _ in 0..ticks {
        crowd.tick(0.5);
    }
    crowd
        .blackboards()
        .iter()
        .enumerate()
        .map(|(id, clock)| {
            let (Some(started), Some(finished)) = (clock.started, clock.finished) else {
                panic!("agent {id} did not finish its wait")
            };
            (rates[id % rates.len()], finished - started)
        })
        .collect()
}

#[test]
fn a_wait_takes_the_same_seconds_at_rate_one_and_two() {
    // The wait starts on each agent's first tick.
    let mut crowd = clocks(8);
    for (rate, took) in waits(&mut crowd, &[1, 2], 20) {
        if rate == 1 {
            assert_eq!(took, 2.0);
        } else {
            // Never early; at most one of the agent's ticks late.
            assert!((2.0..=3.0).contains(&took), "rate {rate}: {took}");
        }
    }
}

#[test]
fn at_a_steady_rate_a_wait_ends_on_the_agent_s_first_tick_past_its_seconds() {
    // The waits start after the rates are set and a few ticks have run.
    let mut crowd = clocks(20);
    for clock in crowd.blackboards_mut() {
        clock.start_at = 4.0;
    }
    for (rate, took) in waits(&mut crowd, &[1, 2, 3, 4, 5], 40) {
        // The agent ticks every `rate` half-seconds: the wait of 2 seconds
        // ends on the first of them at or past 2 seconds.
        let tick = 0.5 * f64::from(rate);
        assert_eq!(took, (2.0 / tick).ceil() * tick, "rate {rate}");
    }
}

#[test]
fn a_slow_agent_s_ticks_cover_the_time_exactly_across_rate_changes_and_joins() {
    let mut crowd = clocks(5);
    let mut frames = vec![];
    for t in 0..60u32 {
        match t {
            5 => crowd.set_tick_rate(AgentId(1), 4).unwrap(),
            9 => crowd.set_tick_rate(AgentId(2), 7).unwrap(),
            13 => {
                crowd.remove(AgentId(3), &mut vec![]);
                crowd.spawn(Clock::default());
            }
            20 => crowd.set_tick_rate(AgentId(1), 2).unwrap(),
            31 => crowd.set_tick_rate(AgentId(2), 1).unwrap(),
            44 => crowd.set_tick_rate(AgentId(4), 3).unwrap(),
            _ => {}
        }
        // Uneven frames.
        crowd.tick(0.05 * (1 + t % 4) as f32);
        frames.push(*crowd.frame());
    }
    let joined_3 = frames[12].time + f64::from(frames[12].dt);
    for (id, clock) in crowd.blackboards().iter().enumerate() {
        let &(index, _, _) = clock.ticks.last().expect("ticked");
        let last: &Frame = &frames[index as usize];
        let end = last.time + f64::from(last.dt);
        let from = if id == 3 { joined_3 } else { 0.0 };
        let covered: f64 = clock.ticks.iter().map(|t| f64::from(t.2)).sum();
        assert!(
            (covered - (end - from)).abs() < 1e-4,
            "agent {id}: covered {covered}, elapsed {}",
            end - from
        );
        // A rate-1 agent's dt is the frame's, bit for bit.
        for &(index, time, dt) in &clock.ticks {
            let frame = frames[index as usize];
            assert_eq!(time, frame.time);
            if id == 0 {
                assert_eq!(dt.to_bits(), frame.dt.to_bits());
            }
        }
    }
}

#[test]
fn agents_at_rate_one_tick_as_on_the_fast_path() {
    // A slow agent puts the crowd on its scheduled path; the others must
    // do exactly what they do on the fast path.
    let tree = priority([
        sequence([cond("c"), leaf("d"), act("p")]),
        concurrent([leaf("d"), sequence([act("a"), leaf("d")]), act("a")]),
        leaf("d"),
    ]);
    let program = test_leaves().compile(&tree).expect("test tree");
    let worlds = |n: u64| (0..n).map(World::random).collect::<Vec<_>>();
    let mut fast = Crowd::with_agents(program.clone(), worlds(4));
    let mut scheduled = Crowd::with_agents(program, worlds(5));
    scheduled.set_tick_rate(AgentId(4), 2).unwrap();
    let mut answers = vec![];
    for t in 0..100 {
        for crowd in [&mut fast, &mut scheduled] {
            answer_launches(crowd.requests(), t, &mut answers);
            for &answer in &answers {
                crowd.complete(answer);
            }
            crowd.tick_with(0.1 + 0.01 * (t % 3) as f32, |_, w| w.tick += 1);
        }
        let ours: Vec<Request> = scheduled
            .requests()
            .iter()
            .copied()
            .filter(|r| r.agent != AgentId(4))
            .collect();
        assert_eq!(fast.requests(), ours, "tick {t}");
        for id in 0..4 {
            let a = AgentId(id);
            assert_eq!(
                format!("{:?}", fast.actor(a)),
                format!("{:?}", scheduled.actor(a))
            );
            assert_eq!(fast.blackboards()[id as usize].tick, t as u64 + 1);
        }
    }
    assert_eq!(scheduled.blackboards()[4].tick, 50);
}

/// A crowd keeps no lanes while every agent ticks every frame (issue 24:
/// no per-agent bytes for level of detail until it is used); going back to
/// rate 1, an agent's next tick still covers the frames it skipped.
#[test]
fn back_at_rate_one_an_agent_s_first_tick_covers_what_it_skipped() {
    let mut crowd = clocks(3);
    crowd.set_tick_rate(AgentId(1), 4).unwrap();
    for _ in 0..5 {
        crowd.tick(0.25);
    }
    // Agent 1 (rate 4, phase 1) ticked on frame 3 only.
    crowd.set_tick_rate(AgentId(1), 1).unwrap();
    crowd.tick(0.25);
    crowd.tick(0.25);
    let ticks: Vec<(u64, f32)> = crowd.blackboards()[1]
        .ticks
        .iter()
        .map(|&(index, _, dt)| (index, dt))
        .collect();
    // Frame 3 covered frames 0 to 3; frame 5, the first at rate 1,
    // covers frames 4 and 5; then one frame each.
    assert_eq!(ticks, [(3, 1.0), (5, 0.5), (6, 0.25)]);
    // The others ticked every frame, each covering its own.
    assert!(crowd.blackboards()[0].ticks.iter().all(|t| t.2 == 0.25));
    assert_eq!(crowd.blackboards()[0].ticks.len(), 7);
}
