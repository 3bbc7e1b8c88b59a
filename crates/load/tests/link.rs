//! Open-world child trees (seed 001, feature A5): a child tree compiled on
//! its own and linked into a running tree's connectors is the tree a
//! designer could have written there (`treebeard_load::link`).

use treebeard_load::link::{LinkError, offer};
use treebeard_load::{LoadOptions, load_str};
use treebeard_shape::{
    Catalog, FieldDecl, FieldType, LeafSchema, Limits, NodeIdx, ParamType, Shape,
};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Int))
        .event("OnEnemySeen")
        .event("OnLostSightOfTarget")
        .declare("enemy_visible", LeafSchema::condition())
        .declare("Say", LeafSchema::action().param("text", ParamType::Str))
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Int),
        )
        .declare("Wander", LeafSchema::action())
        .declare("Sit", LeafSchema::deferred());
    c
}

/// The tree file `name` holding `text`, compiled.
fn shape(name: &str, text: &str) -> Shape {
    match load_str(name, text, &catalog(), &LoadOptions::default()).into_result() {
        Ok(loaded) => loaded.shape,
        Err(e) => panic!("{name} does not load:\n{e}"),
    }
}

/// `shape` without where its nodes were written.
fn bare(shape: &Shape) -> Shape {
    let mut parts = shape.parts().clone();
    for node in &mut parts.nodes {
        node.source = None;
    }
    parts.files.clear();
    parts.validate().expect("a shape without sources is valid")
}

fn link(main: &Shape, name: &str, child: &Shape) -> Result<Shape, LinkError> {
    offer(main, name, child, &catalog(), &Limits::default())
}

/// The village: a connector at the top offering a bench, and one inside a
/// sequence offering nothing yet. `{top}` and `{inner}` are where the
/// closed-world versions write more trees.
const VILLAGE: &str = r#"{"trees": [{"name": "village", "root":
  {"type": "PrioritySelector", "children": [
    {"type": "ChildTree", "name": "use", "children": [
      {"type": "Sit", "name": "bench"}{top}
    ]},
    {"type": "Sequence", "name": "patrol", "children": [
      {"type": "hunger_above", "params": {"threshold": 3}},
      {"type": "ChildTree", "name": "inner", "children": [
        {"type": "Wander", "name": "stroll"}{inner}
      ]}
    ]},
    {"type": "Wander"}
  ]}}]}"#;

const DOOR: &str = r#"{"type": "Sequence", "children": [
  {"type": "enemy_visible"},
  {"type": "Say", "params": {"text": "who's there?"}}
]}"#;

fn village(top: &str, inner: &str) -> Shape {
    shape(
        "village.json",
        &VILLAGE.replace("{top}", top).replace("{inner}", inner),
    )
}

/// The door, as a file would write it under a connector.
const DOOR_WRITTEN: &str = r#", {"type": "Sequence", "name": "door", "children": [
  {"type": "enemy_visible"},
  {"type": "Say", "params": {"text": "who's there?"}}
]}"#;

#[test]
fn a_child_tree_is_offered_at_every_connector_after_the_written_ones() {
    let main = village("", "");
    let door = shape("door.json", DOOR);
    let linked = link(&main, "door", &door).unwrap();
    let (top, inner) = (linked.find("use").unwrap(), linked.find("inner").unwrap());
    assert_eq!(linked.child_tree(top, "bench"), Some(0));
    assert_eq!(linked.child_tree(top, "door"), Some(1));
    assert_eq!(linked.child_tree(inner, "stroll"), Some(0));
    assert_eq!(linked.child_tree(inner, "door"), Some(1));
    // Exactly the closed-world tree with the door written at both.
    let closed = village(DOOR_WRITTEN, DOOR_WRITTEN);
    assert_eq!(bare(&linked), bare(&closed));
    // One tree at two connectors: one set of shared nodes, as written.
    assert_eq!(linked.shared_nodes(), closed.shared_nodes());
}

#[test]
fn offering_a_name_again_replaces_that_tree_at_every_connector() {
    let main = village("", "");
    let door = shape("door.json", DOOR);
    let quiet = shape("quiet.json", r#"{"type": "Wander"}"#);
    let once = link(&main, "door", &door).unwrap();
    let twice = link(&once, "door", &quiet).unwrap();
    let written = r#", {"type": "Wander", "name": "door"}"#;
    assert_eq!(bare(&twice), bare(&village(written, written)));
    // A tree the file wrote is replaced too, in its place.
    let bench = link(&main, "bench", &quiet).unwrap();
    let top = bench.find("use").unwrap();
    assert_eq!(bench.child_tree(top, "bench"), Some(0));
    let inner = bench.find("inner").unwrap();
    assert_eq!(bench.child_tree(inner, "bench"), Some(1));
    let root = bench.children(top).next().unwrap();
    assert_eq!(bench.import(root).unwrap().name.as_ref(), "Wander");
}

#[test]
fn each_node_keeps_where_it_was_written() {
    let main = village("", "");
    let door = shape("door.json", DOOR);
    let linked = link(&main, "door", &door).unwrap();
    let patrol = linked.find("patrol").unwrap();
    assert_eq!(
        linked.location(patrol),
        main.location(main.find("patrol").unwrap())
    );
    assert_eq!(linked.location(patrol).unwrap(), "village.json:6:14");
    // The door's `Say`, at both connectors: where the door's file wrote it.
    let says: Vec<NodeIdx> = (0..linked.len() as u32)
        .map(NodeIdx::new)
        .filter(|&n| linked.import(n).is_some_and(|i| &*i.name == "Say"))
        .collect();
    assert_eq!(says.len(), 2);
    for say in says {
        assert_eq!(linked.location(say).unwrap(), "door.json:3:12");
    }
}

#[test]
fn identities_given_in_the_child_tree_do_not_collide_between_copies() {
    let main = village("", "");
    let door = shape(
        "door.json",
        r#"{"type": "Sequence", "id": 40, "children": [{"type": "Wander", "id": 41}]}"#,
    );
    let linked = link(&main, "door", &door).unwrap();
    let ids: std::collections::HashSet<_> = linked.nodes().iter().map(|n| n.id).collect();
    assert_eq!(ids.len(), linked.len());
}

const DECLARED: &str = r#"{"variables": [{"name": "Alarm", "initial": true}],
  "stimuli": [{"name": "Hit", "seconds": 2}],
  "timestamps": [{"name": "Seen", "event": "OnEnemySeen"}],
  "trees": [{"name": "t", "root": {"type": "ChildTree", "name": "use", "children": [
    {"type": "IfCondition", "name": "alarmed", "params": {"condition": "Alarm"}, "children": [{"type": "Wander"}]}
  ]}}]}"#;

#[test]
fn declarations_merge_by_name() {
    let main = shape("main.json", DECLARED);
    let child = shape(
        "child.json",
        r#"{"variables": [{"name": "Alarm", "initial": true}, {"name": "Calm"}],
          "signals": [{"event": "OnLostSightOfTarget", "variable": "Calm", "value": true}],
          "trees": [{"name": "c", "root":
            {"type": "IfCondition", "params": {"condition": "Alarm && !Calm"}, "children": [{"type": "Wander"}]}}]}"#,
    );
    let linked = link(&main, "calm", &child).unwrap();
    let names: Vec<&str> = linked.variables().iter().map(|v| &*v.name).collect();
    assert_eq!(names, ["Alarm", "Calm"]);
    assert_eq!(linked.signals().len(), 1);
    assert_eq!(linked.stimuli().len(), 1);
    assert_eq!(linked.timestamps().len(), 1);
}

#[test]
fn a_name_declared_two_ways_is_an_error_that_names_both() {
    let main = shape("main.json", DECLARED);
    let cases = [
        (
            r#"{"variables": [{"name": "Alarm", "initial": false}], "trees": [{"name": "c", "root": {"type": "Wander"}}]}"#,
            "the child tree declares variable `Alarm` as initially false, but the running tree as initially true",
        ),
        (
            r#"{"stimuli": [{"name": "Hit", "seconds": 3}], "trees": [{"name": "c", "root": {"type": "Wander"}}]}"#,
            "stimulus `Hit` as lasting 3 s, but the running tree as lasting 2 s",
        ),
        (
            r#"{"timestamps": [{"name": "Seen", "event": "OnLostSightOfTarget"}], "trees": [{"name": "c", "root": {"type": "Wander"}}]}"#,
            "timestamp `Seen` as set on `OnLostSightOfTarget`, but the running tree as set on `OnEnemySeen`",
        ),
    ];
    for (text, says) in cases {
        let child = shape("child.json", text);
        let e = link(&main, "c", &child).unwrap_err();
        assert!(matches!(e, LinkError::Declaration { .. }), "{e:?}");
        assert!(e.to_string().contains(says), "{e}");
    }
}

#[test]
fn a_tree_without_connectors_a_nameless_child_and_the_limits_are_refused() {
    let door = shape("door.json", DOOR);
    let plain = shape("plain.json", r#"{"type": "Wander"}"#);
    assert_eq!(link(&plain, "door", &door), Err(LinkError::NoConnector));
    let main = village("", "");
    assert_eq!(link(&main, "", &door), Err(LinkError::EmptyName));
    let limits = Limits {
        max_items: main.len() + door.len(),
        ..Limits::default()
    };
    let e = offer(&main, "door", &door, &catalog(), &limits).unwrap_err();
    assert!(matches!(&e, LinkError::Invalid(_)), "{e:?}");
    assert!(e.to_string().contains("more than 11 nodes"), "{e}");
}

#[test]
fn a_child_offering_a_name_differently_inside_itself_is_refused() {
    // The main tree offers `bench`; the child offers another `bench` in a
    // connector of its own: two trees under one name.
    let main = village("", "");
    let child = shape(
        "child.json",
        r#"{"type": "ChildTree", "children": [{"type": "Wander", "name": "bench"}]}"#,
    );
    let e = link(&main, "nested", &child).unwrap_err();
    assert!(matches!(&e, LinkError::Invalid(_)), "{e:?}");
    assert!(e.to_string().contains("bench"), "{e}");
}
