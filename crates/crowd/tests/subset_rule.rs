//! Spore's subset rule broken in a crowd (issue 23): the decider is
//! reported once per agent, also across a snapshot; a removed agent's
//! reports go with it, and a reload forgets them.

use treebeard_crowd::Crowd;
use treebeard_shape::NodeIdx;
use treebeard_shape::tree::{act, decide, decider, decider_with, group};
use treebeard_vm::{AgentId, Leaves, Program, RequestKind, Status};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Guard {
    intruder: bool,
}

/// 0 ROOT { 1 GUARD { 2 intruder, 3 g { 4 FIGHT { 5 enemy, 6 Fight } } },
///   7 IDLE { 8 Idle } }: GUARD accepts on an intruder, FIGHT never.
fn program() -> Program<Guard> {
    let mut leaves = Leaves::<Guard>::new();
    leaves.decide("intruder", |g, _| if g.intruder { 1.0 } else { 0.0 });
    leaves.decide("enemy", |_, _| 0.0);
    leaves.action("Fight", |_, _| Status::Running);
    leaves.action("Idle", |_, _| Status::Running);
    let fight = decider_with(decide("enemy"), act("Fight"));
    let tree = group(
        "prioritized",
        [
            decider_with(decide("intruder"), group("prioritized", [fight])),
            decider(act("Idle")),
        ],
    );
    leaves.compile(&tree).unwrap()
}

const GUARD: NodeIdx = NodeIdx::new(1);

fn reports(crowd: &Crowd<Guard>) -> Vec<(u32, u32)> {
    crowd
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::SubsetRule)
        .map(|r| (r.agent.0, r.node.get()))
        .collect()
}

#[test]
fn a_broken_subset_rule_is_reported_once_per_agent_and_decider() {
    let mut crowd = Crowd::with_agents(program(), vec![Guard::default(); 3]);
    crowd.tick(0.1);
    assert!(reports(&crowd).is_empty());
    crowd.blackboards_mut()[0].intruder = true;
    crowd.blackboards_mut()[2].intruder = true;
    crowd.tick(0.1);
    assert_eq!(reports(&crowd), [(0, 1), (2, 1)]);
    // It goes on every tick, unreported.
    crowd.tick(0.1);
    assert!(reports(&crowd).is_empty());
    assert_eq!(
        crowd.subset_rule_reports().collect::<Vec<_>>(),
        [(AgentId(0), GUARD), (AgentId(2), GUARD)]
    );

    // A snapshot keeps what was reported.
    let bytes = crowd.save().unwrap();
    let mut restored = Crowd::load(program(), &bytes).unwrap();
    restored.tick(0.1);
    crowd.tick(0.1);
    assert!(reports(&restored).is_empty());
    assert_eq!(restored.requests(), crowd.requests());

    // The agent that takes a removed one's slot is reported anew.
    crowd.remove(AgentId(2), &mut Vec::new());
    let id = crowd.spawn(Guard { intruder: true });
    assert_eq!(id, AgentId(2));
    crowd.tick(0.1);
    assert_eq!(reports(&crowd), [(2, 1)]);

    // A reload forgets: the items may be others now.
    crowd.reload(program()).unwrap();
    crowd.tick(0.1);
    assert_eq!(reports(&crowd), [(0, 1), (2, 1)]);
}

#[test]
fn a_damaged_report_in_a_snapshot_is_an_error() {
    let mut crowd = Crowd::with_agents(program(), vec![Guard { intruder: true }]);
    crowd.tick(0.1);
    let mut snapshot = crowd.snapshot();
    assert_eq!(snapshot.subset_rule_reports, [(0, 1)]);
    snapshot.subset_rule_reports = vec![(0, 6)];
    let err = Crowd::restore(program(), snapshot.clone()).unwrap_err();
    assert!(
        err.to_string()
            .contains("subset-rule report 0 is for item 6, which is no Decider"),
        "{err}"
    );
    snapshot.subset_rule_reports = vec![(5, 1)];
    assert!(Crowd::restore(program(), snapshot).is_err());
}
