//! The reference checked by hand against docs/nodes.md, independently
//! of the VM.

use super::*;
use crate::script::{Event, World};

const AGENT: AgentId = AgentId(0);

fn n(i: u32) -> NodeIdx {
    NodeIdx::new(i)
}

fn launch(i: u32) -> Request {
    Request {
        agent: AGENT,
        node: n(i),
        action: ActionId(0),
        kind: RequestKind::Launch,
    }
}

fn cancel(i: u32) -> Request {
    Request {
        kind: RequestKind::Cancel,
        ..launch(i)
    }
}

fn policy(succeed: Count, fail: Count) -> Policy {
    Policy { succeed, fail }
}

/// Leaves for a lone `PostStimulus`: a clock and an int input.
struct Posting {
    time: f64,
    data: Option<i64>,
}

impl RefLeaves for Posting {
    fn condition(&mut self, _: NodeIdx) -> bool {
        false
    }

    fn action(
        &mut self,
        _: NodeIdx,
        _: Signal,
        _: &mut u32,
        _: Option<&mut u32>,
        _: Option<&mut MemoryBlock>,
    ) -> Status {
        Status::Failure
    }

    fn clock(&self) -> Frame {
        Frame {
            time: self.time,
            ..Frame::default()
        }
    }

    fn input_int(&self, _: u64) -> Option<i64> {
        self.data
    }
}

#[test]
fn post_stimulus_posts_for_its_seconds_and_restarts() {
    // 0 PostStimulus(stimulus 1, 2 seconds)
    let post = RefNode::PostStimulus {
        node: n(0),
        stimulus: 1,
        seconds: 2.0,
        data: IntInput::Input(0),
    };
    let memory = Memory {
        stimuli: 2,
        ..Memory::default()
    };
    let mut r = Reference::with_memory(post, memory);
    assert_eq!(r.stimulus(1, 0.0), None);
    let mut world = Posting {
        time: 1.0,
        data: Some(7),
    };
    assert_eq!(r.tick(&mut world, AGENT).status, Status::Success);
    assert_eq!(r.stimulus(1, 1.0), Some(7));
    assert_eq!(r.stimulus(1, 2.75), Some(7));
    assert_eq!(r.stimulus(1, 3.0), None);
    assert_eq!(r.stimulus(0, 1.0), None);
    // Posting again restarts it and replaces the datum.
    world = Posting {
        time: 2.0,
        data: Some(-1),
    };
    assert_eq!(r.tick(&mut world, AGENT).status, Status::Success);
    assert_eq!(r.stimulus(1, 3.5), Some(u32::MAX));
    // A datum past 32 bits, or a field without an int, posts nothing.
    for data in [Some(i64::from(u32::MAX) + 1), None] {
        world = Posting { time: 5.0, data };
        assert_eq!(r.tick(&mut world, AGENT).status, Status::Failure);
        assert_eq!(r.stimulus(1, 5.0), None);
    }
    // Game code posts too, for the seconds it gives.
    r.post_stimulus(0, 9, 6.0, 0.5);
    assert_eq!(r.stimulus(0, 6.25), Some(9));
    assert_eq!(r.stimulus(0, 6.5), None);
}

#[test]
fn post_stimulus_takes_a_literal_datum() {
    // 0 PostStimulus(stimulus 0, 0.5 seconds, data -3)
    let post = RefNode::PostStimulus {
        node: n(0),
        stimulus: 0,
        seconds: 0.5,
        data: IntInput::Literal(-3),
    };
    let memory = Memory {
        stimuli: 1,
        ..Memory::default()
    };
    let mut r = Reference::with_memory(post, memory);
    // The leaves' input is not read.
    let mut world = Posting {
        time: 0.0,
        data: None,
    };
    assert_eq!(r.tick(&mut world, AGENT).status, Status::Success);
    assert_eq!(r.stimulus(0, 0.25), Some(-3i32 as u32));
    assert_eq!(r.coverage().stimuli_posted, 1);
}

#[test]
fn priority_cancels_lower_priority_work_when_a_higher_child_runs() {
    // 0 priority(1 c, 2 a, 3 d)
    let mut r = Reference::new(RefNode::priority(
        n(0),
        vec![
            RefNode::condition(n(1)),
            RefNode::action(n(2), false),
            RefNode::deferred(n(3), ActionId(0)),
        ],
    ));
    let mut w = World::new();
    w.set(2, Status::Failure);
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Running);
    assert_eq!(out.requests, vec![launch(3)]);
    w.take_log();

    w.set(2, Status::Running);
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Running);
    assert_eq!(out.requests, vec![cancel(3)]);
    assert_eq!(
        w.take_log(),
        vec![
            Event::Condition(n(1), false),
            Event::Action(n(2), Signal::Start, 0, Status::Running),
        ]
    );

    // The condition now wins: the running action gets its cancel call.
    w.set(1, Status::Success);
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Success);
    assert!(out.requests.is_empty());
    assert_eq!(
        w.take_log(),
        vec![
            Event::Condition(n(1), true),
            Event::Action(n(2), Signal::Cancel, 1, Status::Failure),
        ]
    );
    assert!(r.is_idle());
}

#[test]
fn sequence_resumes_at_the_running_child() {
    // 0 sequence(1 c, 2 d)
    let mut r = Reference::new(RefNode::sequence(
        n(0),
        vec![
            RefNode::condition(n(1)),
            RefNode::deferred(n(2), ActionId(0)),
        ],
    ));
    let mut w = World::new();
    w.set(1, Status::Success);
    assert_eq!(r.tick(&mut w, AGENT).requests, vec![launch(2)]);
    assert_eq!(
        r.resume_points(),
        vec![DeciderState::Resume {
            node: n(0),
            child: n(2)
        }]
    );
    // In the actor's form the running deferred action implies it.
    assert!(r.remembered().deciders.is_empty());
    w.take_log();
    assert_eq!(r.complete(n(2), Outcome::Running), Ok(()));
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Running);
    assert!(w.take_log().is_empty(), "the condition is not ticked again");
    assert_eq!(r.complete(n(2), Outcome::Success), Ok(()));
    assert_eq!(r.complete(n(2), Outcome::Failure), Err(Stale::AlreadyDone));
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Success);
    assert_eq!(r.complete(n(2), Outcome::Success), Err(Stale::NotRunning));
    assert!(r.is_idle());
}

#[test]
fn selector_resumes_at_the_running_child_and_moves_on_after_its_failure() {
    // 0 selector(1 c, 2 a, 3 a)
    let mut r = Reference::new(RefNode::selector(
        n(0),
        vec![
            RefNode::condition(n(1)),
            RefNode::action(n(2), false),
            RefNode::action(n(3), false),
        ],
    ));
    let mut w = World::new();
    w.set(2, Status::Running).set(3, Status::Success);
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Running);
    assert_eq!(
        w.take_log(),
        vec![
            Event::Condition(n(1), false),
            Event::Action(n(2), Signal::Start, 0, Status::Running),
        ]
    );
    assert_eq!(
        r.resume_points(),
        vec![DeciderState::Resume {
            node: n(0),
            child: n(2)
        }]
    );
    // The condition is not tested again; the resumed child's failure
    // moves on to the next child in the same tick.
    w.set(1, Status::Success).set(2, Status::Failure);
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Success);
    assert_eq!(
        w.take_log(),
        vec![
            Event::Action(n(2), Signal::Tick, 1, Status::Failure),
            Event::Action(n(3), Signal::Start, 0, Status::Success),
        ]
    );
    assert!(r.is_idle());
    assert_eq!(r.coverage().selector_resumes, 1);
    assert_eq!(r.coverage().selector_moves_after_resume, 1);
    // Completed, it starts from its first child.
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Success);
    assert_eq!(w.take_log(), vec![Event::Condition(n(1), true)]);
}

#[test]
fn selector_abandoned_forgets_its_resume_point() {
    // 0 priority(1 c, 2 selector(3 a, 4 d))
    let mut r = Reference::new(RefNode::priority(
        n(0),
        vec![
            RefNode::condition(n(1)),
            RefNode::selector(
                n(2),
                vec![
                    RefNode::action(n(3), false),
                    RefNode::deferred(n(4), ActionId(0)),
                ],
            ),
        ],
    ));
    let mut w = World::new();
    assert_eq!(r.tick(&mut w, AGENT).requests, vec![launch(4)]);
    assert_eq!(
        r.resume_points(),
        vec![DeciderState::Resume {
            node: n(2),
            child: n(4)
        }]
    );
    w.set(1, Status::Success);
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Success);
    assert_eq!(out.requests, vec![cancel(4)]);
    assert!(r.is_idle());
    assert_eq!(r.coverage().selector_resumes_abandoned, 1);
}

#[test]
fn decorators_map_finished_statuses_and_pass_running_through() {
    // 0 sequence(1 inverter(2 a), 3 force_success(4 a), 5 force_failure(6 a))
    let mut r = Reference::new(RefNode::sequence(
        n(0),
        vec![
            RefNode::inverter(n(1), RefNode::action(n(2), false)),
            RefNode::force_success(n(3), RefNode::action(n(4), false)),
            RefNode::force_failure(n(5), RefNode::action(n(6), false)),
        ],
    ));
    let mut w = World::new();
    w.set(6, Status::Running);
    // 2 fails: the inverter succeeds; 4 fails: forced to success; 6 runs
    // and so does its decorator.
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Running);
    assert_eq!(
        r.resume_points(),
        vec![DeciderState::Resume {
            node: n(0),
            child: n(5)
        }]
    );
    // 6 succeeds: forced to failure, which fails the sequence.
    w.take_log();
    w.set(6, Status::Success);
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Failure);
    assert_eq!(
        w.take_log(),
        vec![Event::Action(n(6), Signal::Tick, 1, Status::Success)]
    );
    assert!(r.is_idle());
    assert_eq!(r.coverage().decorator_changes, 3);
    // 2 succeeds: the inverter fails the sequence at once.
    w.set(2, Status::Success);
    assert_eq!(r.tick(&mut w, AGENT).status, Status::Failure);
    assert_eq!(
        w.take_log(),
        vec![Event::Action(n(2), Signal::Start, 0, Status::Success)]
    );
}

#[test]
fn concurrent_failure_rolls_back_the_tick() {
    // 0 concurrent[all, 1](1 d, 2 p, 3 a, 4 c, 5 d)
    let tree = RefNode::concurrent(
        n(0),
        policy(Count::All, Count::AtLeast(1)),
        vec![
            RefNode::deferred(n(1), ActionId(0)),
            RefNode::action(n(2), true),
            RefNode::action(n(3), false),
            RefNode::condition(n(4)),
            RefNode::deferred(n(5), ActionId(0)),
        ],
    );
    let mut r = Reference::new(tree);
    let mut w = World::new();
    w.set(2, Status::Success)
        .set(3, Status::Running)
        .set(4, Status::Success);
    // Tick 1: 1 launches, 2 succeeds (slot 1), 3 runs, 4 succeeds, 5
    // launches; nothing decides.
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Running);
    assert_eq!(out.requests, vec![launch(1), launch(5)]);
    assert_eq!(r.persistent(), vec![(n(2), 1)]);
    w.take_log();

    // Tick 2: 1 is still launched, 3 fails: the concurrent fails. The
    // deferred actions launched last tick get cancel requests.
    w.set(3, Status::Failure);
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Failure);
    assert_eq!(out.requests, vec![cancel(1), cancel(5)]);
    assert!(r.is_idle());

    // Tick 3: 1 launches again and 2 succeeds, then 3 fails at once:
    // the launch is dropped and the slot change undone.
    w.take_log();
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Failure);
    assert!(out.requests.is_empty());
    assert_eq!(r.persistent(), vec![(n(2), 1)]);
    assert_eq!(r.coverage().dropped_launches, 1);
    assert_eq!(r.coverage().persistent_undos, 1);
}

#[test]
fn concurrent_success_cancels_running_children_started_this_tick() {
    // 0 concurrent[1, all](1 a, 2 p, 3 d)
    let tree = RefNode::concurrent(
        n(0),
        policy(Count::AtLeast(1), Count::All),
        vec![
            RefNode::action(n(1), false),
            RefNode::action(n(2), true),
            RefNode::deferred(n(3), ActionId(0)),
        ],
    );
    let mut r = Reference::new(tree);
    let mut w = World::new();
    w.set(1, Status::Running).set(2, Status::Success);
    let out = r.tick(&mut w, AGENT);
    assert_eq!(out.status, Status::Success);
    assert!(out.requests.is_empty());
    assert_eq!(
        w.take_log(),
        vec![
            Event::Action(n(1), Signal::Start, 0, Status::Running),
            Event::Action(n(2), Signal::Start, 0, Status::Success),
            Event::Action(n(1), Signal::Cancel, 1, Status::Failure),
        ]
    );
    // A success keeps the slot change.
    assert_eq!(r.persistent(), vec![(n(2), 1)]);
}

#[test]
fn concurrent_fail_threshold_is_lowered_to_what_makes_success_unreachable() {
    let tree = RefNode::concurrent(
        n(0),
        policy(Count::AtLeast(2), Count::All),
        vec![
            RefNode::condition(n(1)),
            RefNode::condition(n(2)),
            RefNode::condition(n(3)),
        ],
    );
    let RefNode::Concurrent {
        succeed_at,
        fail_at,
        ..
    } = tree
    else {
        unreachable!()
    };
    assert_eq!((succeed_at, fail_at), (2, 2));
}

/// The memory kinds, with the scripts and declarations of
/// [`crate::Spec`] (`v0` false, `v1` true, `v2` false; `e0` sets `v0`
/// and `t0`, `e1` clears `v0` and `v1` and sets `t1`, clearing `t0`;
/// `e2` sets `v2` and `t2`).
mod memory {
    use super::*;
    use crate::r#gen::{Spec, TimeSpec};
    use crate::harness::RefWorld;
    use treebeard_vm::Program;

    /// An agent of `spec` on the reference, with its world and program.
    struct Agent {
        reference: Reference,
        world: World,
        program: Program<World>,
        frame: Frame,
    }

    impl Agent {
        fn new(spec: &Spec) -> Agent {
            Agent {
                reference: spec.to_reference(),
                world: World::new(),
                program: spec.compile(),
                frame: Frame::default(),
            }
        }

        fn tick(&mut self) -> TickOutput {
            self.traced().0
        }

        fn traced(&mut self) -> (TickOutput, Vec<(NodeIdx, TraceEvent)>) {
            let mut leaves = RefWorld {
                world: &mut self.world,
                program: &self.program,
                frame: self.frame,
                crowd: None,
            };
            let mut trace = Vec::new();
            let out = self
                .reference
                .tick_traced(&mut leaves, AGENT, &mut |n, e| trace.push((n, e)));
            (out, trace)
        }

        fn send(&mut self, event: u32) -> usize {
            let mut leaves = RefWorld {
                world: &mut self.world,
                program: &self.program,
                frame: self.frame,
                crowd: None,
            };
            self.reference.send_event(&mut leaves, EventId(event))
        }
    }

    #[test]
    fn a_gate_tests_only_when_its_child_starts() {
        // 0 if[v0](1 a)
        let mut r = Agent::new(&Spec::IfCondition(0, Box::new(Spec::Act)));
        r.world.set(1, Status::Running);
        assert_eq!(r.tick().status, Status::Failure);
        assert!(r.world.take_log().is_empty(), "the child is not ticked");
        assert_eq!(r.send(0), 0);
        assert_eq!(r.tick().status, Status::Running);
        // v0 no longer holds, but the running child goes on.
        assert_eq!(r.send(1), 0);
        r.world.set(1, Status::Success);
        assert_eq!(r.tick().status, Status::Success);
        assert_eq!(
            r.world.take_log(),
            vec![
                Event::Action(n(1), Signal::Start, 0, Status::Running),
                Event::Action(n(1), Signal::Tick, 1, Status::Success),
            ]
        );
        // Started anew, it tests again.
        assert_eq!(r.tick().status, Status::Failure);
        assert!(r.world.take_log().is_empty());
        let c = r.reference.coverage();
        assert_eq!((c.gate_failures, c.gates_passed_running), (2, 1));
    }

    #[test]
    fn a_wrapper_whose_enter_faults_fails_and_a_cancelled_one_exits_last() {
        // 0 pri(1 c, 2 wrap["v1 = !v1; v0 || 1 / 0 == 0" | "v0 = !v0"](3 a))
        let mut r = Agent::new(&Spec::Priority(vec![
            Spec::Cond,
            Spec::ScriptWrapper {
                enter: 4,
                exit: 0,
                child: Box::new(Spec::Act),
            },
        ]));
        r.world.set(3, Status::Running);
        // v0 is false: the enter script flips v1, then faults. The
        // child is not ticked and the exit does not run.
        assert_eq!(r.tick().status, Status::Failure);
        assert_eq!(r.reference.variables(), [false, false, false]);
        assert_eq!(r.world.take_log(), vec![Event::Condition(n(1), false)]);
        assert!(r.reference.is_idle());
        assert_eq!(r.send(0), 0);
        assert_eq!(r.tick().status, Status::Running);
        assert_eq!(r.reference.variables(), [true, true, false]);
        assert_eq!(
            r.world.take_log(),
            vec![
                Event::Condition(n(1), false),
                Event::Entered(n(2)),
                Event::Action(n(3), Signal::Start, 0, Status::Running),
            ]
        );
        assert_eq!(
            r.reference.remembered().actions,
            vec![
                (n(2), ActionState::Running(0)),
                (n(3), ActionState::Running(1))
            ]
        );
        // The condition wins: the child's cancel call, then the exit
        // (its mark first).
        r.world.set(1, Status::Success);
        let (out, trace) = r.traced();
        assert_eq!(out.status, Status::Success);
        assert_eq!(
            r.world.take_log(),
            vec![
                Event::Condition(n(1), true),
                Event::Action(n(3), Signal::Cancel, 1, Status::Failure),
                Event::Exited(n(2)),
            ]
        );
        assert_eq!(r.reference.variables(), [false, true, false]);
        assert_eq!(
            trace,
            vec![
                (n(1), TraceEvent::Start),
                (n(1), TraceEvent::Success),
                (n(3), TraceEvent::Cancel),
                (n(2), TraceEvent::Cancel),
                (n(0), TraceEvent::Success),
            ]
        );
        assert!(r.reference.is_idle());
        assert_eq!(r.reference.coverage().wrapper_exits_cancelled, 1);
    }

    #[test]
    fn a_wait_for_an_event_counts_only_events_that_arrive_while_it_runs() {
        // 0 seq(1 await[e0], 2 send[e1 to -1], 3 send[e2 to -2])
        let mut r = Agent::new(&Spec::Sequence(vec![
            Spec::WaitForEvent(0),
            Spec::SendEvent { event: 1, to: -1 },
            Spec::SendEvent { event: 2, to: -2 },
        ]));
        r.frame = Frame {
            index: 3,
            time: 2.0,
            dt: 0.5,
        };
        // Before it runs: the timestamp is set, the wait does not hear.
        assert_eq!(r.send(0), 0);
        assert_eq!(r.reference.timestamps(), [Some(2.5), None, None]);
        assert_eq!(r.tick().status, Status::Running);
        assert_eq!(
            r.reference.remembered().actions,
            vec![(n(1), ActionState::Running(0))]
        );
        // Another event does not wake it; e1 clears t0, its partner.
        assert_eq!(r.send(1), 0);
        assert_eq!(r.reference.timestamps(), [None, Some(2.5), None]);
        assert_eq!(r.send(0), 1);
        assert_eq!(r.send(0), 1);
        assert_eq!(
            r.reference.remembered().actions,
            vec![(n(1), ActionState::Running(1))]
        );
        // It succeeds; the event to itself is sent, the one to -2 fails.
        let out = r.tick();
        assert_eq!(out.status, Status::Failure);
        let event = Request {
            kind: RequestKind::Event {
                event: EventId(1),
                to: AGENT,
            },
            ..launch(2)
        };
        assert_eq!(out.requests, vec![event]);
        assert_eq!(r.reference.coverage().events_awaited, 1);
        assert!(r.reference.is_idle());
    }

    #[test]
    fn events_follow_cancels_and_launches_and_survive_a_rollback() {
        // 0 seq(1 pri(2 c, 3 d), 4 con[all, 1](5 send[e2 to 1], 6 d, 7 a))
        let mut r = Agent::new(&Spec::Sequence(vec![
            Spec::Priority(vec![Spec::Cond, Spec::Deferred]),
            Spec::Concurrent {
                succeed: Count::All,
                fail: Count::AtLeast(1),
                children: vec![
                    Spec::SendEvent { event: 2, to: 1 },
                    Spec::Deferred,
                    Spec::Act,
                ],
            },
        ]));
        assert_eq!(r.tick().requests, vec![launch(3)]);
        // The condition wins: d 3 is cancelled; the concurrent sends,
        // launches d 6, then fails on a: the launch is dropped, the
        // event stays.
        r.world.set(2, Status::Success);
        let out = r.tick();
        assert_eq!(out.status, Status::Failure);
        let event = Request {
            agent: AGENT,
            node: n(5),
            action: ActionId(0),
            kind: RequestKind::Event {
                event: EventId(2),
                to: AgentId(1),
            },
        };
        assert_eq!(out.requests, vec![cancel(3), event]);
        assert_eq!(r.reference.coverage().dropped_launches, 1);
    }

    #[test]
    fn a_wait_until_time_tests_on_every_tick() {
        // 0 until[t2 > 1]
        let time = TimeSpec {
            since: 2,
            halves: 2,
            less_than: false,
            or_never: false,
        };
        let mut r = Agent::new(&Spec::WaitUntilTime(time));
        assert_eq!(r.tick().status, Status::Running, "never set");
        // Set at the start of the next tick: time 0 + dt 0.5.
        r.frame.dt = 0.5;
        assert_eq!(r.send(2), 0);
        assert_eq!(r.reference.timestamps(), [None, None, Some(0.5)]);
        for (time, status) in [
            (0.5, Status::Running),
            (1.5, Status::Running),
            (1.75, Status::Success),
        ] {
            r.frame.time = time;
            assert_eq!(r.tick().status, status, "at {time}");
        }
        // Tested on the first tick too.
        assert_eq!(r.tick().status, Status::Success);
        assert_eq!(r.reference.coverage().time_waits_done, 1);
    }
}
