//! Live runs (`Live`, what `treebeard run --watch` drives): a scenario's
//! agents tick on past its script, and a new version of its tree replaces
//! the running one between two ticks.

use treebeard_scenario::{Live, LiveTick, PrepareOptions, Prepared, prepare_str};
use treebeard_shape::NodeIdx;
use treebeard_vm::{RequestKind, Status};

fn prepared(tree: &str) -> Prepared {
    let text = format!("(tree: {tree}, agents: 2, ticks: 2)");
    prepare_str("live.ron", &text, &PrepareOptions::default())
        .unwrap_or_else(|r| panic!("{}", r.render(false)))
}

const PATROL: &str = r#"(type: "Sequence", name: "patrol", children: [
    (type: "Succeed", name: "look"),
    (type: "Deferred", name: "go", params: {"label": "go", "ticks": 4}),
    (type: "WaitTicks", name: "rest", params: {"ticks": 100}),
])"#;

/// The patrol with `listen` inserted before `go`.
const LISTENING: &str = r#"(type: "Sequence", name: "patrol", children: [
    (type: "Succeed", name: "look"),
    (type: "Succeed", name: "listen"),
    (type: "Deferred", name: "go", params: {"label": "go", "ticks": 4}),
    (type: "WaitTicks", name: "rest", params: {"ticks": 100}),
])"#;

/// Without `go`.
const RESTING: &str = r#"(type: "Sequence", name: "patrol", children: [
    (type: "Succeed", name: "look"),
    (type: "WaitTicks", name: "rest", params: {"ticks": 100}),
])"#;

fn running(tick: &LiveTick, agent: usize) -> Vec<&str> {
    tick.agents[agent].1.iter().map(String::as_str).collect()
}

#[test]
fn a_live_run_ticks_on_past_the_script() {
    let (mut live, verdict) = Live::start(prepared(PATROL), None).unwrap();
    assert!(verdict.passed());
    assert_eq!((verdict.ticks, live.next_tick()), (2, 2));
    let tick = live.tick(None).unwrap();
    assert_eq!(tick.tick, 2);
    assert_eq!(running(&tick, 1), ["patrol/go"]);
    assert_eq!(
        tick.to_string(),
        "tick 2: agent 0 running (patrol/go), agent 1 running (patrol/go)"
    );
    // `go` launched at tick 0 completes by itself at tick 4.
    live.tick(None).unwrap();
    let tick = live.tick(None).unwrap();
    assert_eq!(running(&tick, 0), ["patrol/rest"]);
}

#[test]
fn a_moved_deferred_leaf_completes_at_its_new_item() {
    let (mut live, _) = Live::start(prepared(PATROL), None).unwrap();
    live.tick(None).unwrap();
    let reloaded = live.reload(prepared(LISTENING)).unwrap();
    assert_eq!(
        reloaded.to_string(),
        "2 nodes kept, 2 moved, 0 vanished, 1 added; running work: 2 carried, 0 cancelled, 2 remapped"
    );
    let from = NodeIdx::new(2);
    assert!(
        reloaded
            .requests
            .iter()
            .all(|r| r.kind == RequestKind::Remap { from } && r.node == NodeIdx::new(3))
    );
    let tick = live.tick(None).unwrap();
    assert_eq!(running(&tick, 0), ["patrol/go"]);
    // Still due at tick 4, at its new item.
    let tick = live.tick(None).unwrap();
    assert_eq!(tick.tick, 4);
    assert_eq!(running(&tick, 0), ["patrol/rest"]);
    assert_eq!(tick.agents[1].0, Status::Running);
}

#[test]
fn a_vanished_deferred_leaf_is_cancelled_and_the_run_goes_on() {
    let (mut live, _) = Live::start(prepared(PATROL), None).unwrap();
    let reloaded = live.reload(prepared(RESTING)).unwrap();
    assert_eq!(reloaded.carried.cancelled, 2);
    assert!(
        reloaded
            .requests
            .iter()
            .all(|r| r.kind == RequestKind::Cancel)
    );
    // The sequence starts again: `look`, then `rest`.
    let tick = live.tick(None).unwrap();
    assert_eq!(running(&tick, 0), ["patrol/rest"]);
    // Back again: `go` is added, and launched when the sequence gets there.
    live.reload(prepared(PATROL)).unwrap();
    let tick = live.tick(None).unwrap();
    assert_eq!(running(&tick, 0), ["patrol/rest"]);
}

#[test]
fn a_tree_for_other_keys_is_refused_and_the_run_goes_on() {
    let (mut live, _) = Live::start(prepared(PATROL), None).unwrap();
    let text = format!("(tree: {PATROL}, ticks: 1, blackboard: {{\"alarm\": false}})");
    let other = prepare_str("live.ron", &text, &PrepareOptions::default())
        .unwrap_or_else(|r| panic!("{}", r.render(false)));
    let Err(e) = live.reload(other) else {
        panic!("a tree over other keys reloaded")
    };
    assert!(e.to_string().contains("blackboard field 0"), "{e}");
    let tick = live.tick(None).unwrap();
    assert_eq!(running(&tick, 0), ["patrol/go"]);
}
