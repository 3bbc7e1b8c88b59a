//! Seed 001's gates never leak a slot. On random trees with gates, run by
//! a few agents that share one program's global state, under everything
//! that abandons a branch (conditions flipping so that higher priorities
//! and reactive guards take over, concurrent deciders finishing and
//! failing, timeouts, loops, groups choosing again), random game-system
//! reports and random halts (`Interpreter::halt`, what removing an agent
//! from a crowd does), after every settling each gate's count of agents
//! admitted (`Globals::admitted`) is the number of actors holding an
//! admitted ticket at it, and never above its `max`; and halting every
//! agent, then settling, leaves every gate empty. Teams the same way: after
//! every settling the team table agrees with the members' tickets
//! (`Program::check_globals`: each member still in a team holds its seat's
//! ticket, each admitted ticket at a `Team` is a seat of its table), and
//! halting every agent leaves no team record.
//!
//! The VM alone is checked here; the differential tests check the same
//! runs against the reference interpreter, and `crates/crowd/tests/
//! reload.rs` the counts and records across hot reloads.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::BTreeSet;
use treebeard_shape::{Kind, NodeIdx};
use treebeard_testkit::r#gen::MAX_GATE;
use treebeard_testkit::{Run, Spec, World, spec_strategy};
use treebeard_vm::{
    ActionState, ActorLayout, Actors, AgentId, Frame, Interpreter, Outcome, Program, Request,
    RequestKind,
};

/// A tree with a gate under a reactive guard, before a random branch: the
/// guard's condition flips at random, so the branch after it takes over
/// and cancels the gate's work. The gate's child and the other branch are
/// random trees, which hold more gates and global cool-downs now and then.
fn gated_tree() -> impl Strategy<Value = Spec> {
    (1..=MAX_GATE, spec_strategy(), spec_strategy()).prop_map(|(max, inside, other)| {
        Spec::Priority(vec![
            Spec::Reactive(vec![Spec::Cond, Spec::Gate(max, Box::new(inside))]),
            other,
        ])
    })
}

/// The gates of `program`'s shape, with their `max`.
fn gates(program: &Program<World>) -> Vec<(NodeIdx, u32)> {
    let shape = program.shape();
    program
        .globals()
        .iter()
        .map(|(node, _)| node)
        .filter(|&node| shape.kind(node) == Kind::Gate)
        .map(|node| (node, shape.params(node)[0] as u32))
        .collect()
}

/// A tree with a team under a reactive guard, before a random branch: the
/// guard's condition flips at random, so the branch after it takes over
/// and breaks the team. The roles' branches meet at sync points; they and
/// the other branch are random trees, which hold more crowd nodes now and
/// then.
fn teamed_tree() -> impl Strategy<Value = Spec> {
    (
        2..=3u8,
        prop::collection::vec(spec_strategy(), 2..=3),
        spec_strategy(),
    )
        .prop_map(|(size, branches, other)| {
            let roles = branches
                .into_iter()
                .map(|b| Spec::Sequence(vec![b, Spec::Sync(1), Spec::Act, Spec::Sync(2)]))
                .cycle()
                .take(usize::from(size))
                .collect();
            Spec::Priority(vec![
                Spec::Reactive(vec![Spec::Cond, Spec::Team(size, roles)]),
                other,
            ])
        })
}

/// Checks every gate's count and every team's record against the actors'
/// tickets.
fn check_counts(
    program: &Program<World>,
    actors: &Actors,
    when: &str,
) -> Result<(), TestCaseError> {
    if let Err(e) = program.check_globals(actors) {
        return Err(TestCaseError::fail(format!("{when}: {e}")));
    }
    for (gate, max) in gates(program) {
        let holders = (0..actors.len())
            .filter(|&i| actors.get(i).action(gate) == Some(ActionState::Running(1)))
            .count() as u32;
        let admitted = program.globals().admitted(program.shape(), gate);
        prop_assert_eq!(
            admitted,
            Some(holders),
            "{}: gate {} counts {:?}, {} actors hold its ticket",
            when,
            gate,
            admitted,
            holders
        );
        prop_assert!(
            holders <= max,
            "{when}: gate {gate} admits {holders} of {max}"
        );
    }
    Ok(())
}

/// Runs `spec` for `agents` agents as `run` schedules the leaves, the
/// reports and the halts, settling after every round and checking the
/// counts; then halts every agent and checks that every gate is empty and
/// no team is left. Returns how many settlings left teams in the table.
fn no_slot_leaks(spec: &Spec, run: &Run) -> Result<usize, TestCaseError> {
    let mut teamed = 0;
    let mut program = spec.compile();
    let mut interpreter = Interpreter::with_capacity(program.spec());
    let layout = ActorLayout::for_shape(program.shape());
    let mut actors = Actors::new(layout, run.agents as usize);
    let mut worlds: Vec<World> = (0..run.agents).map(|i| run.world(AgentId(i))).collect();
    let mut launched: Vec<BTreeSet<NodeIdx>> = vec![BTreeSet::new(); run.agents as usize];
    let deferred = spec.deferred_nodes();
    let mut last = Frame::default();
    let mut round: Vec<Request> = Vec::new();
    for tick in 0..run.ticks {
        let frame = run.frame(tick, &last);
        round.clear();
        for i in 0..run.agents as usize {
            let id = AgentId(i as u32);
            for &node in &deferred {
                let on = launched[i].contains(&node);
                if let Some(outcome) = run.report(tick, id, node, on)
                    && actors.get_mut(i).complete(node, outcome).is_ok()
                    && outcome != Outcome::Running
                {
                    launched[i].remove(&node);
                }
            }
            let before = round.len();
            if run.halts_at(tick, id) {
                let actor = &mut actors.get_mut(i);
                interpreter.halt(&program, &frame, id, actor, &mut worlds[i], &mut round);
            }
            worlds[i].tick = tick;
            let actor = &mut actors.get_mut(i);
            interpreter.tick(&program, &frame, id, actor, &mut worlds[i], &mut round);
            for r in &round[before..] {
                match r.kind {
                    RequestKind::Launch => launched[i].insert(r.node),
                    RequestKind::Cancel => launched[i].remove(&r.node),
                    _ => false,
                };
            }
        }
        program.settle(&frame, &round, &mut actors);
        check_counts(&program, &actors, &format!("after tick {tick}"))?;
        teamed += usize::from(program.globals().teams().next().is_some());
        last = frame;
    }
    // Every agent leaves: its slots come back at the next settling.
    round.clear();
    for (i, world) in worlds.iter_mut().enumerate() {
        let id = AgentId(i as u32);
        let actor = &mut actors.get_mut(i);
        interpreter.halt(&program, &last, id, actor, world, &mut round);
    }
    program.settle(&last, &round, &mut actors);
    check_counts(&program, &actors, "after every agent left")?;
    for (gate, _) in gates(&program) {
        prop_assert_eq!(
            program.globals().admitted(program.shape(), gate),
            Some(0),
            "gate {} keeps slots after every agent left",
            gate
        );
    }
    let left: Vec<u32> = program.globals().teams().map(|(i, _)| i).collect();
    prop_assert!(left.is_empty(), "teams {left:?} outlive their members");
    Ok(teamed)
}

/// Runs `no_slot_leaks` on trees of `trees`, 256 cases (or
/// `PROPTEST_CASES`) of 2 to 6 agents for 60 ticks. Returns how many
/// settlings left teams in the table.
fn random_runs(trees: impl Strategy<Value = Spec>) -> usize {
    let teamed = std::cell::Cell::new(0);
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (trees, any::<u64>(), 2u32..=6);
    let result = runner.run(&strategy, |(spec, seed, agents)| {
        let run = Run {
            seed,
            agents,
            ticks: 60,
            halts: true,
            trace: false,
        };
        teamed.set(teamed.get() + no_slot_leaks(&spec, &run)?);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    teamed.get()
}

#[test]
fn gate_counts_match_the_tickets_and_no_slot_leaks() {
    random_runs(gated_tree());
}

#[test]
fn team_records_match_the_seats_and_none_leak() {
    let teamed = random_runs(teamed_tree());
    assert!(teamed > 1000, "teams formed in {teamed} settlings only");
}

/// Many agents on one small tree for long: slots circulate among them.
#[test]
fn a_busy_gate_never_leaks_a_slot() {
    let spec = Spec::Priority(vec![
        Spec::Reactive(vec![
            Spec::Cond,
            Spec::Gate(
                2,
                Box::new(Spec::Concurrent {
                    succeed: treebeard_shape::tree::Count::AtLeast(1),
                    fail: treebeard_shape::tree::Count::All,
                    children: vec![
                        Spec::Gate(1, Box::new(Spec::Deferred)),
                        Spec::Sequence(vec![Spec::Act, Spec::Deferred]),
                    ],
                }),
            ),
        ]),
        Spec::Selector(vec![Spec::Gate(3, Box::new(Spec::Act)), Spec::Act]),
    ]);
    for seed in 0..20 {
        let run = Run {
            seed,
            agents: 12,
            ticks: 400,
            halts: true,
            trace: false,
        };
        no_slot_leaks(&spec, &run).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}
