//! Compatibility mode (seed 003, U7): a tree written for an older version
//! of its leaves loads, each mismatch a located warning saying what the
//! node keeps; strict loading (the default) refuses it.

use treebeard_load::{Load, LoadOptions, Severity, load_str};
use treebeard_shape::params::{ParamSpec, ParamType};
use treebeard_shape::{Catalog, LeafSchema};

/// The leaves as they are now: `Walk`'s `speed` became `pace` (an int
/// with the fallback 3), `alert` lost its `loud` flag, and `Aim` gained a
/// required `hand`.
fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("alert", LeafSchema::condition())
        .declare(
            "Walk",
            LeafSchema::action().with(ParamSpec::new("pace", ParamType::Int).fallback(3)),
        )
        .declare(
            "Aim",
            LeafSchema::action()
                .param("hand", ParamType::enumeration(&["left", "right"]))
                .param("range", ParamType::Float),
        );
    c
}

/// Written for the old leaves.
const OLD: &str = r#"{"type": "Sequence", "name": "patrol", "children": [
  {"type": "alert", "params": {"loud": true}},
  {"type": "Walk", "params": {"speed": 2}},
  {"type": "Aim", "params": {"range": "far"}}
]}"#;

fn load(compat: bool) -> Load {
    let options = LoadOptions {
        compat,
        ..LoadOptions::default()
    };
    load_str("patrol.json", OLD, &catalog(), &options)
}

#[test]
fn strict_loading_refuses_a_tree_for_older_leaves() {
    let load = load(false);
    assert!(load.loaded.is_none());
    assert_eq!(
        load.diagnostics.errors().count(),
        5,
        "{:?}",
        load.diagnostics
    );
}

#[test]
fn compatibility_mode_keeps_every_node_and_says_what_it_kept() {
    let load = load(true);
    assert!(!load.diagnostics.has_errors());
    let loaded = load.loaded.as_ref().expect("the tree loads");
    let said: Vec<(String, String, String)> = load
        .diagnostics
        .warnings()
        .map(|d| {
            assert_eq!(d.severity, Severity::Warning);
            (
                d.location(&load.map).unwrap_or_default(),
                d.message.clone(),
                d.help.clone().unwrap_or_default(),
            )
        })
        .collect();
    let kept = |s: &str| s.split(';').next().unwrap_or("").to_string();
    let said: Vec<(&str, &str, String)> = said
        .iter()
        .map(|(at, m, h)| (at.as_str(), m.as_str(), kept(h)))
        .collect();
    assert_eq!(
        said,
        [
            (
                "patrol.json:2:32",
                "`alert` has no parameter `loud`",
                "compatibility mode dropped it".to_string()
            ),
            (
                "patrol.json:3:12",
                "`Walk` needs parameter `pace` (int), which is not given",
                "compatibility mode gave `pace` the value 3".to_string()
            ),
            (
                "patrol.json:3:31",
                "`Walk` has no parameter `speed`",
                "compatibility mode dropped it".to_string()
            ),
            (
                "patrol.json:4:12",
                "`Aim` needs parameter `hand` (one of left|right), which is not given",
                "compatibility mode gave `hand` the value \"left\"".to_string()
            ),
            (
                "patrol.json:4:39",
                "parameter `range` of `Aim`: expected float, found \"far\"",
                "compatibility mode gave `range` the value 0".to_string()
            ),
        ],
        "{:?}",
        load.diagnostics
    );
    // The nodes hold the fallbacks.
    let shape = &loaded.shape;
    let walk = shape.find("Walk").expect("Walk");
    assert_eq!(shape.params(walk), [3]);
    let aim = shape.find("Aim").expect("Aim");
    assert_eq!(shape.params(aim)[0], 0, "left is the first variant");
    assert_eq!(f64::from_bits(shape.params(aim)[1]), 0.0);
}
