//! Semantics tests of Spore's deciders (seed 000): `Group`, `Decider` and
//! `Decide` (docs/nodes.md, "Spore deciders").
//!
//! Every test builds a small tree over this file's leaves, scripts Decide
//! scores and action outcomes by item index, ticks with `dt` = 1 s, and
//! checks the exact calls in order. Item indices are pre-order positions
//! (root 0); each tree is numbered in a comment.

use std::cell::RefCell;
use std::collections::HashMap;
use treebeard_shape::Kind;
use treebeard_shape::tree::{
    Node, act, decide, decider, decider_of, decider_with, group, group_with_behavior, sequence,
};
use treebeard_vm::Status::{Failure, Running, Success};
use treebeard_vm::{
    Actor, ActorLayout, Actors, AgentId, Call, DecideCall, DeciderState, Frame, Interpreter,
    Leaves, Program, Request, RequestKind, Signal, Status,
};

/// One call, as a test sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    /// The Decide at the item returned the score.
    Decide(u32, f32),
    /// The action at the item was called with the signal and the state it
    /// held, and returned the status (`Failure` for a cancel call).
    Act(u32, Signal, u32, Status),
}
use Ev::{Act, Decide};
use Signal::{Cancel, Start, Tick};

#[derive(Default)]
struct Bb {
    /// Decide scores by item; unset: 0.
    scores: HashMap<u32, f32>,
    /// Action outcomes by item; unset: running.
    outcomes: HashMap<u32, Status>,
    /// The decision flags.
    flags: u32,
    log: RefCell<Vec<Ev>>,
}

/// `score`: its scripted score; its block is ten times its item.
fn score(bb: &Bb, call: &mut DecideCall<'_>) -> f32 {
    let node = call.node().get();
    let s = bb.scores.get(&node).copied().unwrap_or(0.0);
    bb.log.borrow_mut().push(Decide(node, s));
    call.set_block(node * 10);
    s
}

/// `a`: its scripted outcome; its state counts its ticks.
fn a(bb: &mut Bb, call: &mut Call<'_>) -> Status {
    let node = call.node().get();
    let (signal, state) = (call.signal(), call.state());
    let status = match signal {
        Signal::Cancel => Failure,
        _ => bb.outcomes.get(&node).copied().unwrap_or(Running),
    };
    bb.log.borrow_mut().push(Act(node, signal, state, status));
    if signal != Signal::Cancel {
        *call.state_mut() += 1;
    }
    status
}

struct Rig {
    program: Program<Bb>,
    actor: Actor,
    bb: Bb,
    interpreter: Interpreter,
    frame: Frame,
    agent: AgentId,
}

impl Rig {
    fn new(tree: Node) -> Rig {
        let mut leaves = Leaves::new();
        leaves.decide("score", score);
        leaves.action("a", a);
        leaves.decision_flags(|bb: &Bb| bb.flags);
        Rig::with(tree, &leaves)
    }

    /// A rig for `tree` over `leaves`.
    fn with(tree: Node, leaves: &Leaves<Bb>) -> Rig {
        let program = leaves.compile(&tree).unwrap_or_else(|e| panic!("{e}"));
        Rig {
            actor: Actor::for_shape(program.shape()),
            program,
            bb: Bb::default(),
            interpreter: Interpreter::new(),
            frame: Frame::default(),
            agent: AgentId(3),
        }
    }

    /// One tick: its status, calls and requests.
    fn tick(&mut self) -> (Status, Vec<Ev>, Vec<Request>) {
        self.frame = self.frame.next(1.0);
        let mut requests = Vec::new();
        let status = self.interpreter.tick(
            &self.program,
            &self.frame,
            self.agent,
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut requests,
        );
        (status, self.bb.log.take(), requests)
    }

    fn score(&mut self, node: u32, s: f32) -> &mut Rig {
        self.bb.scores.insert(node, s);
        self
    }

    fn outcome(&mut self, node: u32, s: Status) -> &mut Rig {
        self.bb.outcomes.insert(node, s);
        self
    }

    fn halt(&mut self) -> Vec<Ev> {
        let mut requests = Vec::new();
        self.interpreter.halt(
            &self.program,
            &self.frame,
            self.agent,
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut requests,
        );
        self.bb.log.take()
    }
}

fn scored(d: &str) -> Node {
    decider_with(decide(d), act("a"))
}

/// Spore's Figure 1, its first levels:
/// 0 Group(prioritized)
///   1 Decider FLEE { 2 score, 3 a }
///   4 Decider GUARD { 5 score, 6 a }
///   7 Decider EAT { 8 Group(prioritized)
///       9 Decider FIND_FOOD { 10 score, 11 a }
///       12 Decider EAT_FOOD { 13 a } }
///   14 Decider IDLE { 15 a }
fn figure_1() -> Node {
    group(
        "prioritized",
        [
            scored("score").named("FLEE"),
            scored("score").named("GUARD"),
            decider(group(
                "prioritized",
                [
                    scored("score").named("FIND_FOOD"),
                    decider(act("a")).named("EAT_FOOD"),
                ],
            ))
            .named("EAT"),
            decider(act("a")).named("IDLE"),
        ],
    )
}

#[test]
fn figure_1_walkthrough() {
    let mut r = Rig::new(figure_1());
    // ROOT -> EAT -> EAT_FOOD: FLEE and GUARD decline, EAT has no Decide
    // (1.0), FIND_FOOD declines, EAT_FOOD starts with no block.
    let (status, log, _) = r.tick();
    assert_eq!(status, Running);
    assert_eq!(
        log,
        [
            Decide(2, 0.0),
            Decide(5, 0.0),
            Decide(10, 0.0),
            Act(13, Start, 0, Running)
        ]
    );
    // Hysteresis: only the deciders before the active ones are asked.
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Decide(2, 0.0),
            Decide(5, 0.0),
            Decide(10, 0.0),
            Act(13, Tick, 1, Running)
        ]
    );
    // GUARD accepts: the EAT path is deactivated first, then GUARD's
    // behavior starts with GUARD's decider block.
    r.score(5, 1.0);
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Decide(2, 0.0),
            Decide(5, 1.0),
            Act(13, Cancel, 2, Failure),
            Act(6, Start, 50, Running)
        ]
    );
    // Next tick only FLEE is asked.
    let (_, log, _) = r.tick();
    assert_eq!(log, [Decide(2, 0.0), Act(6, Tick, 51, Running)]);
    // GUARD's behavior fails: a masked redecide in ROOT (GUARD masked)
    // picks EAT again, whose group starts afresh.
    r.outcome(6, Failure);
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Decide(2, 0.0),
            Act(6, Tick, 52, Failure),
            Decide(2, 0.0),
            Decide(10, 0.0),
            Act(13, Start, 0, Running)
        ]
    );
    // EAT_FOOD fails: EAT's group redecides without it, nothing accepts,
    // it pops up, and ROOT redecides with EAT masked: IDLE.
    r.outcome(13, Failure);
    r.score(5, 0.0);
    let (status, log, _) = r.tick();
    assert_eq!(status, Running);
    assert_eq!(
        log,
        [
            Decide(2, 0.0),
            Decide(5, 0.0),
            Decide(10, 0.0),
            Act(13, Tick, 1, Failure),
            Decide(10, 0.0),
            Decide(2, 0.0),
            Decide(5, 0.0),
            Act(15, Start, 0, Running)
        ]
    );
}

/// 0 Group(sequential) { 1 Decider { 2 a }, 3 Decider { 4 a }, 5 Decider { 6 a } }
#[test]
fn a_sequential_group_runs_its_deciders_in_order_and_then_ends() {
    let tree = group(
        "sequential",
        [decider(act("a")), decider(act("a")), decider(act("a"))],
    );
    let mut r = Rig::new(tree);
    r.outcome(2, Success)
        .outcome(4, Failure)
        .outcome(6, Success);
    let (status, log, _) = r.tick();
    // Each ends at once; the group ends with the last one's status.
    assert_eq!(status, Success);
    assert_eq!(
        log,
        [
            Act(2, Start, 0, Success),
            Act(4, Start, 0, Failure),
            Act(6, Start, 0, Success)
        ]
    );
    // A running decider is never interrupted by an earlier one.
    r.outcome(4, Running);
    let (status, _, _) = r.tick();
    assert_eq!(status, Running);
    let (_, log, _) = r.tick();
    assert_eq!(log, [Act(4, Tick, 1, Running)]);
}

/// 0 Group(scored) { 1 Decider { 2 score, 3 a }, 4 Decider { 5 score, 6 a },
/// 7 Decider { 8 score, 9 a } }
#[test]
fn a_scored_group_runs_the_highest_score_ties_to_the_earlier() {
    let tree = group(
        "scored",
        [scored("score"), scored("score"), scored("score")],
    );
    let mut r = Rig::new(tree);
    r.score(2, 0.5).score(5, 2.0).score(8, 2.0);
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Decide(2, 0.5),
            Decide(5, 2.0),
            Decide(8, 2.0),
            Act(6, Start, 50, Running)
        ]
    );
    // Hysteresis: nothing is asked while the chosen one runs.
    r.score(2, 9.0);
    let (_, log, _) = r.tick();
    assert_eq!(log, [Act(6, Tick, 51, Running)]);
}

/// Which action a random or shuffle group of three runs first, per agent.
fn first_choices(policy: &str, scores: [f32; 3], agents: u32) -> Vec<u32> {
    (0..agents)
        .map(|agent| {
            let tree = group(policy, [scored("score"), scored("score"), scored("score")]);
            let mut r = Rig::new(tree);
            r.agent = AgentId(agent);
            r.score(2, scores[0])
                .score(5, scores[1])
                .score(8, scores[2]);
            let (_, log, _) = r.tick();
            match log.last() {
                Some(&Act(node, Start, _, _)) => node,
                other => panic!("no action started: {other:?}"),
            }
        })
        .collect()
}

#[test]
fn a_random_group_draws_by_score_from_the_agents_stream() {
    let choices = first_choices("random", [1.0, 3.0, 0.0], 400);
    // The same agents choose the same.
    assert_eq!(choices, first_choices("random", [1.0, 3.0, 0.0], 400));
    let count = |node| choices.iter().filter(|&&c| c == node).count();
    // A decider that declines is never chosen; the others in proportion
    // to their scores (1 : 3 of 400, within a wide margin).
    assert_eq!(count(9), 0);
    assert!((60..140).contains(&count(3)), "{}", count(3));
    assert_eq!(count(3) + count(6), 400);
}

/// 0 Group(shuffle) { 1 Decider { 2 a }, 3 Decider { 4 a }, 5 Decider { 6 a } }
#[test]
fn a_shuffle_group_runs_each_decider_once_per_round() {
    let tree = group(
        "shuffle",
        [decider(act("a")), decider(act("a")), decider(act("a"))],
    );
    for agent in 0..20 {
        let mut r = Rig::new(tree.clone());
        r.agent = AgentId(agent);
        r.outcome(2, Success)
            .outcome(4, Success)
            .outcome(6, Success);
        let mut order = Vec::new();
        for _ in 0..6 {
            // Each tick runs one decider to success, then the group ends
            // with nothing else to choose... but the round continues over
            // ticks: masks are per tick, rounds per agent.
            let (_, log, _) = r.tick();
            let started: Vec<u32> = log
                .iter()
                .filter_map(|e| match e {
                    Act(node, Start, _, _) => Some(*node),
                    _ => None,
                })
                .collect();
            order.extend(started);
        }
        // Within each tick all three run (masked redecide), and each round
        // of three holds each decider once.
        for round in order.chunks(3) {
            let mut sorted = round.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, [2, 4, 6], "agent {agent}: {order:?}");
        }
    }
}

/// 0 Group(prioritized) { 1 Decider(decision_all: 1, decision_none: 4)
/// { 2 a }, 3 Decider(decision_any: 6) { 4 a }, 5 Decider { 6 a } }
#[test]
fn decision_flags_are_checked_before_anything_is_called() {
    let tree = group(
        "prioritized",
        [
            decider(act("a"))
                .arg("decision_all", 1)
                .arg("decision_none", 4),
            decider(act("a")).arg("decision_any", 6),
            decider(act("a")),
        ],
    );
    let mut r = Rig::new(tree);
    let runs = |r: &mut Rig, flags: u32| {
        r.bb.flags = flags;
        r.halt();
        let (_, log, _) = r.tick();
        log.iter()
            .find_map(|e| match e {
                Act(node, Start, _, _) => Some(*node),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(runs(&mut r, 0), 6);
    assert_eq!(runs(&mut r, 1), 2);
    assert_eq!(runs(&mut r, 1 | 4), 4);
    assert_eq!(runs(&mut r, 2), 4);
    assert_eq!(runs(&mut r, 0b1000), 6);
}

/// 0 Group(prioritized) { 1 Decider(every: 3) { 2 score, 3 a }, 4 Decider { 5 a } }
#[test]
fn a_timer_asks_a_decider_at_most_every_n_seconds() {
    let tree = group(
        "prioritized",
        [
            decider_with(decide("score"), act("a")).arg("every", 3.0),
            decider(act("a")),
        ],
    );
    let mut r = Rig::new(tree);
    let asked: Vec<bool> = (0..7)
        .map(|_| r.tick().1.iter().any(|e| matches!(e, Decide(2, _))))
        .collect();
    // Times 0, 1, 2, ... : asked at 0, 3, 6.
    assert_eq!(asked, [true, false, false, true, false, false, true]);
}

/// 0 Group(prioritized) { 1 Decider(delegate) { 2 Group(prioritized)
///   { 3 Decider { 4 score, 5 a }, 6 Decider { 7 score, 8 a } } },
///   9 Decider { 10 a } }
#[test]
fn a_delegating_decider_accepts_when_a_child_would() {
    let tree = group(
        "prioritized",
        [
            decider(group("prioritized", [scored("score"), scored("score")])).arg("delegate", true),
            decider(act("a")),
        ],
    );
    let mut r = Rig::new(tree);
    let (_, log, _) = r.tick();
    // Both children asked for the delegation, both decline: the fallback.
    assert_eq!(
        log,
        [Decide(4, 0.0), Decide(7, 0.0), Act(10, Start, 0, Running)]
    );
    r.score(7, 1.0);
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Decide(4, 0.0),
            Decide(7, 1.0),
            Act(10, Cancel, 1, Failure),
            Decide(4, 0.0),
            Decide(7, 1.0),
            Act(8, Start, 70, Running)
        ]
    );
}

/// 0 Group(prioritized) { 1 Decider(redecide) { 2 score, 3 Group(prioritized)
///   { 4 Decider { 5 a }, 6 Decider { 7 a } } }, 8 Decider { 9 a } }
#[test]
fn redecide_asks_the_groups_decider_again() {
    let tree = group(
        "prioritized",
        [
            decider_with(
                decide("score"),
                group("prioritized", [decider(act("a")), decider(act("a"))]),
            )
            .arg("redecide", true),
            decider(act("a")),
        ],
    );
    let mut r = Rig::new(tree);
    r.score(2, 1.0);
    let (_, log, _) = r.tick();
    assert_eq!(log, [Decide(2, 1.0), Act(5, Start, 0, Running)]);
    // The first behavior fails; the group's decider no longer accepts, so
    // the group ends without trying its second child, and ROOT redecides.
    r.score(2, 0.0).outcome(5, Failure);
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Act(5, Tick, 1, Failure),
            Decide(2, 0.0),
            Act(9, Start, 0, Running)
        ]
    );
}

/// 0 Group(prioritized, behavior 1 a) { 2 Decider { 3 score, 4 a },
/// 5 Decider { 6 a } }
#[test]
fn a_group_behavior_runs_with_the_group_and_ends_after_its_children() {
    let tree = group_with_behavior(
        "prioritized",
        act("a"),
        [scored("score"), decider(act("a"))],
    );
    let mut r = Rig::new(tree);
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Act(1, Start, 0, Running),
            Decide(3, 0.0),
            Act(6, Start, 0, Running)
        ]
    );
    let (_, log, _) = r.tick();
    assert_eq!(
        log,
        [
            Act(1, Tick, 1, Running),
            Decide(3, 0.0),
            Act(6, Tick, 1, Running)
        ]
    );
    // Halting cancels the child first, then the group behavior.
    assert_eq!(
        r.halt(),
        [Act(6, Cancel, 2, Failure), Act(1, Cancel, 2, Failure)]
    );
    // A failing group behavior ends the group and cancels its child.
    r.tick();
    r.outcome(1, Failure);
    let (status, log, _) = r.tick();
    assert_eq!(status, Failure);
    assert_eq!(log, [Act(1, Tick, 1, Failure), Act(6, Cancel, 1, Failure)]);
}

/// A tree that breaks the subset rule: ROOT's deciders accept, but none of
/// their groups' children do.
/// 0 Group(prioritized, redecide_limit 2) { 1 Decider { 2 Group { 3 Decider { 4 score, 5 a } } },
///   6 Decider { 7 Group { 8 Decider { 9 score, 10 a } } },
///   11 Decider { 12 Group { 13 Decider { 14 score, 15 a } } }, 16 Decider { 17 a } }
#[test]
fn the_redecide_limit_stops_the_tick_with_a_reported_error() {
    let broken = || decider(group("prioritized", [scored("score")]));
    let tree = |limit: i64| {
        group(
            "prioritized",
            [broken(), broken(), broken(), decider(act("a"))],
        )
        .arg("redecide_limit", limit)
    };
    let kinds = |requests: &[Request]| -> Vec<(RequestKind, u32)> {
        requests.iter().map(|r| (r.kind, r.node.get())).collect()
    };
    let mut r = Rig::new(tree(2));
    let (status, log, requests) = r.tick();
    assert_eq!(status, Failure);
    // Three deciders at ROOT break the subset rule (the third past the
    // limit): each is reported, then the limit; no behavior ran.
    assert_eq!(log, [Decide(4, 0.0), Decide(9, 0.0), Decide(14, 0.0)]);
    assert_eq!(
        kinds(&requests),
        [
            (RequestKind::SubsetRule, 1),
            (RequestKind::SubsetRule, 6),
            (RequestKind::SubsetRule, 11),
            (RequestKind::RedecideLimit, 0)
        ]
    );
    // With a limit that allows it, the fallback runs.
    let mut r = Rig::new(tree(3));
    let (status, log, requests) = r.tick();
    assert_eq!(status, Running);
    assert_eq!(log.last(), Some(&Act(17, Start, 0, Running)));
    assert_eq!(
        kinds(&requests),
        [
            (RequestKind::SubsetRule, 1),
            (RequestKind::SubsetRule, 6),
            (RequestKind::SubsetRule, 11)
        ]
    );
}

/// Masks bound how often a group chooses again in a tick (at most once per
/// decider), so a tree that obeys the subset rule never meets the limit,
/// whatever its size (issue 23: ten deciders that succeed at once used to
/// pass the default limit of 8).
#[test]
fn ten_deciders_ending_in_one_tick_stay_within_the_limit() {
    let ten = |policy| {
        let deciders = (0..10).map(|_| decider(act("a")));
        sequence([group(policy, deciders)])
    };
    // Sequential: each succeeds at once and the next is chosen; the group
    // succeeds with the last. Prioritized: each fails at once and is
    // masked; the group fails.
    for (policy, outcome) in [("sequential", Success), ("prioritized", Failure)] {
        let mut r = Rig::new(ten(policy));
        for i in 0..10 {
            r.outcome(3 + 2 * i, outcome);
        }
        let (status, log, requests) = r.tick();
        assert_eq!(status, outcome, "{policy}");
        assert_eq!(log.len(), 10, "{policy}");
        assert!(requests.is_empty(), "{policy}: {requests:?}");
    }
}

/// The limit stops a tick in which work was running: it is all cancelled.
/// (The first behavior's failure is a masked redecide, which the limit
/// does not count; the next decider then breaks the subset rule.)
#[test]
fn the_redecide_limit_cancels_running_work() {
    let tree = group(
        "prioritized",
        [
            scored("score"),
            decider(group("prioritized", [scored("score")])),
            decider(act("a")),
        ],
    )
    .arg("redecide_limit", 0);
    // 0 Group { 1 Decider { 2 score, 3 a }, 4 Decider { 5 Group { 6 Decider { 7 score, 8 a } } },
    //   9 Decider { 10 a } }
    let mut r = Rig::new(tree);
    r.score(2, 1.0);
    let (status, _, _) = r.tick();
    assert_eq!(status, Running);
    // The first behavior fails; the group chooses again, and the decider
    // at 4 accepts but its group finds nothing: past the limit of 0, the
    // tick stops.
    r.outcome(3, Failure);
    let (status, log, requests) = r.tick();
    assert_eq!(status, Failure);
    // (Its state started as its decider block, 20.)
    assert_eq!(log, [Act(3, Tick, 21, Failure), Decide(7, 0.0)]);
    assert_eq!(requests[0].kind, RequestKind::SubsetRule);
    assert_eq!(requests[0].node.get(), 4);
    assert_eq!(requests[1].kind, RequestKind::RedecideLimit);
    assert!(r.actor.as_ref().actions().next().is_none());
}

/// A batch ticks agents one after another with one interpreter: an agent
/// whose tick stopped at the limit leaves nothing behind for the next.
#[test]
fn the_redecide_limit_stops_one_agent_of_a_batch_only() {
    // 0 Group { 1 Decider(decision_any 1) { 2 Group { 3 Decider { 4 score, 5 a } } },
    //   6 Decider { 7 Timeout { 8 a } } }
    // Agent 0's flags pass the first decider, whose group finds nothing:
    // past the limit of 0, its tick stops. The others' flags fail it.
    let fallback = decider_of(Kind::Timeout, [act("a")]).arg("seconds", 100.0);
    let broken = decider(group("prioritized", [scored("score")])).arg("decision_any", 1);
    let tree = group("prioritized", [broken, decider(fallback)]).arg("redecide_limit", 0);
    let rig = Rig::new(tree);
    let stopped = Bb {
        flags: 1,
        ..Bb::default()
    };
    let mut blackboards = [stopped, Bb::default(), Bb::default()];
    let mut actors = Actors::new(ActorLayout::for_shape(rig.program.shape()), 3);
    let mut interpreter = Interpreter::new();
    let mut frame = Frame::default();
    for _ in 0..2 {
        frame = frame.next(1.0);
        let mut requests = Vec::new();
        interpreter.tick_batch(
            &rig.program,
            &frame,
            AgentId(0),
            actors.as_mut(),
            &mut blackboards,
            &mut requests,
            |_, _| {},
        );
        let kinds: Vec<_> = requests.iter().map(|r| (r.agent, r.kind)).collect();
        assert_eq!(
            kinds,
            [
                (AgentId(0), RequestKind::SubsetRule),
                (AgentId(0), RequestKind::RedecideLimit)
            ]
        );
        for (i, bb) in blackboards.iter().enumerate().skip(1) {
            // The others run the fallback: the group keeps its active
            // decider and the timeout its time.
            let log = bb.log.take();
            assert!(
                matches!(log.last(), Some(Act(8, _, _, Running))),
                "agent {i}: {log:?}"
            );
            let values: Vec<u32> = actors
                .get(i)
                .deciders()
                .filter_map(|d| match d {
                    DeciderState::Value { node, .. } => Some(node.get()),
                    _ => None,
                })
                .collect();
            assert_eq!(values, [0, 7], "agent {i}");
        }
    }
}

#[test]
fn spore_kinds_out_of_place_are_compile_errors_at_their_node() {
    let mut leaves = Leaves::<Bb>::new();
    leaves.decide("score", score);
    leaves.action("a", a);
    let cases: [(Node, &str); 4] = [
        (decider(act("a")), "a Decider stands only in a Group"),
        (
            group("prioritized", [decider(act("a")), act("a")]),
            "a Group's children are Deciders",
        ),
        (
            group("prioritized", [decider_with(act("a"), act("a"))]),
            "a Decider has one child to run",
        ),
        (
            group("prioritized", [decider(act("a")).arg("delegate", true)]),
            "delegates its Decide needs a Group",
        ),
    ];
    for (tree, message) in cases {
        let error = leaves.compile(&tree).expect_err(message).to_string();
        assert!(error.contains(message), "{error}");
    }
}

/// A Decide's decider block as a memory block (Spore's DBlock, S8): filled
/// when its decider is asked, and copied into the memory block of the
/// behavior its decider starts.
#[test]
fn a_decider_block_starts_its_behavior_s_memory() {
    #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Target {
        x: f32,
        y: f32,
    }
    #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    struct Approach {
        target: Target,
        steps: u32,
    }
    fn pick(bb: &Bb, call: &mut DecideCall<'_>) -> f32 {
        let node = call.node().get();
        bb.log.borrow_mut().push(Decide(node, 1.0));
        *call.memory::<Target>() = Target {
            x: bb.flags as f32,
            y: 2.0,
        };
        1.0
    }
    fn approach(bb: &mut Bb, call: &mut Call<'_>) -> Status {
        let node = call.node().get();
        let memory = call.memory::<Approach>();
        memory.steps += 1;
        let (x, steps) = (memory.target.x, memory.steps);
        bb.log
            .borrow_mut()
            .push(Act(node, call.signal(), x as u32 * 100 + steps, Running));
        Running
    }
    let mut leaves = Leaves::new();
    leaves.decide("pick", pick).memory::<Target>();
    leaves.action("approach", approach).memory::<Approach>();
    leaves.action("a", a);
    // 0 Group { 1 Decider { 2 pick, 3 approach }, 4 Decider { 5 a } }
    let tree = group(
        "prioritized",
        [
            decider_with(decide("pick"), act("approach")),
            decider(act("a")),
        ],
    );
    let mut r = Rig::with(tree, &leaves);
    r.bb.flags = 4;
    // The block's target (4, 2) starts the behavior's memory; its steps
    // count from 1.
    let (_, log, _) = r.tick();
    assert_eq!(log, [Decide(2, 1.0), Act(3, Start, 401, Running)]);
    // Hysteresis: not asked again while active; the memory goes on.
    r.bb.flags = 9;
    let (_, log, _) = r.tick();
    assert_eq!(log, [Act(3, Tick, 402, Running)]);
}
