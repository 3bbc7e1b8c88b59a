//! `treebeard check MAIN --offer NAME=FILE`: a child tree from its own file
//! checked against the tree it will join at run time (the open world,
//! `Crowd::offer_child_tree`).

mod common;

use common::{TempDir, run_in};

const VILLAGE: &str = r#"{"variables": [{"name": "Alarm", "initial": false}],
  "trees": [{"name": "village", "root":
  {"type": "PrioritySelector", "children": [
    {"type": "ChildTree", "name": "use", "children": [{"type": "Running", "name": "bench"}]},
    {"type": "Running", "name": "idle"}
  ]}}]}"#;

fn village(test: &str) -> TempDir {
    let dir = TempDir::new(test);
    std::fs::write(dir.path("village.json"), VILLAGE).unwrap();
    dir
}

#[test]
fn an_offered_tree_that_joins_is_ok_with_the_linked_size() {
    let dir = village("offer-ok");
    std::fs::write(
        dir.path("door.json"),
        r#"{"type": "Sequence", "children": [{"type": "Succeed"}, {"type": "Running"}]}"#,
    )
    .unwrap();
    std::fs::write(dir.path("cart.json"), r#"{"type": "Running"}"#).unwrap();
    run_in(
        dir.root(),
        &[
            "check",
            "village.json",
            "--offer",
            "door=door.json",
            "--offer",
            "cart=cart.json",
        ],
    )
    .code(0)
    .err_has("village.json: ok, 4 nodes; 8 nodes with door, cart offered");
}

#[test]
fn an_offered_tree_that_does_not_join_says_why() {
    let dir = village("offer-conflict");
    std::fs::write(
        dir.path("alarm.json"),
        r#"{"variables": [{"name": "Alarm", "initial": true}],
           "trees": [{"name": "alarm", "root": {"type": "Running"}}]}"#,
    )
    .unwrap();
    run_in(
        dir.root(),
        &["check", "village.json", "--offer", "alarm=alarm.json"],
    )
    .code(1)
    .err_has("error: alarm.json cannot be offered as `alarm` in village.json")
    .err_has("variable `Alarm` as initially true, but the running tree as initially false");
}

#[test]
fn an_offered_file_with_mistakes_is_reported_where_they_are() {
    let dir = village("offer-mistake");
    std::fs::write(dir.path("broken.json"), r#"{"type": "Runing"}"#).unwrap();
    run_in(
        dir.root(),
        &["check", "village.json", "--offer", "b=broken.json"],
    )
    .code(1)
    .err_has("broken.json:1:");
    run_in(
        dir.root(),
        &["check", "village.json", "--offer", "b=missing.json"],
    )
    .code(2);
    run_in(
        dir.root(),
        &["check", "village.json", "--offer", "nameless"],
    )
    .code(2)
    .err_has("is not NAME=FILE");
}
