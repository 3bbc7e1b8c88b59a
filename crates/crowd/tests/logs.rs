//! Node log messages in a crowd: a `Logs` observer gives each agent's
//! messages to a sink on observed ticks only, per agent in event order,
//! and observing changes nothing the crowd does.

use treebeard_crowd::Crowd;
use treebeard_shape::LogEvent::{Failure, Start, Success};
use treebeard_shape::tree::{act, cond, priority, sequence};
use treebeard_vm::{AgentId, Leaves, LogHistory, Logs, Program, Status};

#[derive(Clone, Debug, Default, PartialEq)]
struct Critter {
    hungry: bool,
    meals: u32,
}

/// ```text
/// 0 PrioritySelector
/// 1   Sequence "feed"      start "feed?"
/// 2     Condition hungry   failure "not hungry"
/// 3     Action Eat         success "ate"
/// 4   Action Idle          (no messages)
/// ```
fn program() -> Program<Critter> {
    let mut leaves = Leaves::<Critter>::new();
    leaves.condition("hungry", |c, _| c.hungry);
    leaves.action("Eat", |c, _| {
        c.meals += 1;
        c.hungry = false;
        Status::Success
    });
    leaves.action("Idle", |_, _| Status::Success);
    leaves
        .compile(&priority([
            sequence([
                cond("hungry").log(Failure, "not hungry"),
                act("Eat").log(Success, "ate"),
            ])
            .named("feed")
            .log(Start, "feed?"),
            act("Idle"),
        ]))
        .unwrap()
}

fn critters() -> Vec<Critter> {
    (0..6u32)
        .map(|i| Critter {
            hungry: i.is_multiple_of(3),
            meals: 0,
        })
        .collect()
}

/// Each record of `agent` as `frame event message`.
fn said(history: &LogHistory, agent: u32) -> Vec<String> {
    history
        .of(AgentId(agent))
        .map(|r| format!("{} {} {}", r.frame.index, r.event, r.message))
        .collect()
}

#[test]
fn each_agent_logs_its_own_messages_on_observed_ticks_only() {
    let mut crowd = Crowd::with_agents(program(), critters());
    let mut logs = Logs::new(crowd.program().shape(), LogHistory::new(8));
    // Frame 1, observed; agents 0 and 3 are hungry and eat.
    crowd.tick_observed(0.1, |_, _| {}, &mut logs);
    // Frame 2, not observed: agent 1 gets hungry, but nothing is logged.
    crowd.tick_with(0.1, |agent, c| c.hungry |= agent.0 == 1);
    // Frame 3, observed: agent 2 gets hungry.
    crowd.tick_observed(0.1, |agent, c| c.hungry |= agent.0 == 2, &mut logs);

    let history = logs.sink();
    let f3 = crowd.frame().index;
    let f1 = f3 - 2;
    let ate = |f| [format!("{f} start feed?"), format!("{f} success ate")];
    let idle = |f| {
        [
            format!("{f} start feed?"),
            format!("{f} failure not hungry"),
        ]
    };
    assert_eq!(said(history, 0), [ate(f1), idle(f3)].concat());
    // Agent 1 ate on frame 2, unobserved.
    assert_eq!(said(history, 1), [idle(f1), idle(f3)].concat());
    assert_eq!(said(history, 2), [idle(f1), ate(f3)].concat());
    assert_eq!(said(history, 3), [ate(f1), idle(f3)].concat());
    assert_eq!(said(history, 4), [idle(f1), idle(f3)].concat());
    assert_eq!(said(history, 5), [idle(f1), idle(f3)].concat());
    assert_eq!(crowd.blackboards()[1].meals, 1, "agent 1 ate unobserved");
}

#[test]
fn observing_changes_nothing_the_crowd_does() {
    let mut plain = Crowd::with_agents(program(), critters());
    let mut observed = Crowd::with_agents(program(), critters());
    let mut logs = Logs::new(observed.program().shape(), LogHistory::new(2));
    for tick in 0..5u32 {
        let before =
            move |agent: AgentId, c: &mut Critter| c.hungry |= (agent.0 + tick).is_multiple_of(4);
        plain.tick_with(0.1, before);
        observed.tick_observed(0.1, before, &mut logs);
        assert_eq!(plain.requests(), observed.requests());
        assert_eq!(plain.blackboards(), observed.blackboards());
    }
    // The history is bounded: two records per agent.
    for agent in 0..6 {
        assert_eq!(logs.sink().of(AgentId(agent)).count(), 2);
    }
}

#[test]
fn after_a_reload_the_observer_takes_the_new_shape() {
    let mut crowd = Crowd::with_agents(program(), critters());
    let mut logs = Logs::new(crowd.program().shape(), LogHistory::new(8));
    crowd.tick_observed(0.1, |_, _| {}, &mut logs);
    // The new version moves `feed` behind a new first child and says
    // other things.
    let mut leaves = Leaves::<Critter>::new();
    leaves.condition("hungry", |c, _| c.hungry);
    leaves.action("Eat", |c, _| {
        c.meals += 1;
        c.hungry = false;
        Status::Success
    });
    leaves.action("Idle", |_, _| Status::Success);
    let new = leaves
        .compile(&priority([
            cond("hungry").log(Success, "still hungry?"),
            sequence([cond("hungry"), act("Eat")])
                .named("feed")
                .log(Start, "feeding"),
            act("Idle"),
        ]))
        .unwrap();
    crowd.reload(new).unwrap();
    logs.set_shape(crowd.program().shape());
    logs.sink_mut().clear();
    crowd.tick_observed(0.1, |agent, c| c.hungry = agent.0 == 4, &mut logs);
    let f = crowd.frame().index;
    let history = logs.sink();
    assert_eq!(
        said(history, 4),
        [format!("{f} success still hungry?")],
        "the first child succeeds, and the root with it"
    );
    assert_eq!(said(history, 0), [format!("{f} start feeding")]);
}
