//! Static checks: warnings about children that can never run and about
//! guarded groups that break Spore's subset rule. Warnings never stop a
//! load.

use treebeard_load::{Diagnostic, Load, LoadOptions, Severity, load_str};
use treebeard_shape::{Catalog, LeafSchema, ParamType};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("enemy_visible", LeafSchema::condition())
        .declare("hungry", LeafSchema::condition())
        .declare("tired", LeafSchema::condition())
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Int),
        )
        .declare("Eat", LeafSchema::action())
        .declare("Sleep", LeafSchema::action())
        .declare("Shoot", LeafSchema::action())
        .declare("Idle", LeafSchema::action().never_fails())
        .declare("Wander", LeafSchema::deferred().never_fails())
        .declare("Score", LeafSchema::decide().param("test", ParamType::Str))
        .declare("Patrol", LeafSchema::deferred());
    c
}

/// Loads `text`, which must load (warnings allowed).
fn load(name: &str, text: &str) -> Load {
    let load = load_str(name, text, &catalog(), &LoadOptions::default());
    assert!(
        load.loaded.is_some(),
        "the tree should load:\n{}",
        load.diagnostics.render(&load.map, false)
    );
    assert!(!load.diagnostics.has_errors());
    load
}

/// A warning in full.
#[derive(Debug, PartialEq)]
struct Warning {
    location: Option<String>,
    message: String,
    tree: Option<String>,
    path: Option<String>,
    node_type: Option<String>,
    help: Option<String>,
}

fn warning(d: &Diagnostic, load: &Load) -> Warning {
    assert_eq!(d.severity, Severity::Warning);
    Warning {
        location: d.location(&load.map),
        message: d.message.clone(),
        tree: d.tree.as_deref().map(Into::into),
        path: d.path.clone(),
        node_type: d.node_type.as_deref().map(Into::into),
        help: d.help.clone(),
    }
}

/// The warnings of a load.
fn warnings(load: &Load) -> Vec<Warning> {
    load.diagnostics
        .items()
        .iter()
        .map(|d| warning(d, load))
        .collect()
}

/// The only warning of a load.
fn only_warning(load: &Load) -> Warning {
    let mut all = warnings(load);
    assert_eq!(
        all.len(),
        1,
        "one warning expected:\n{}",
        load.diagnostics.render(&load.map, false)
    );
    all.remove(0)
}

/// The warnings' messages.
fn messages(load: &Load) -> Vec<String> {
    load.diagnostics
        .items()
        .iter()
        .map(|d| d.message.clone())
        .collect()
}

const REORDER: &str = "reorder the children, or remove the ones that cannot run";
const SUBSET_HELP: &str = "give the group a child without a condition, or test the group's condition in one of its children";

/// An unreachable-child warning as expected.
fn unreachable(location: &str, message: &str, tree: &str, path: &str, node_type: &str) -> Warning {
    Warning {
        location: Some(location.into()),
        message: message.into(),
        tree: Some(tree.into()),
        path: Some(path.into()),
        node_type: Some(node_type.into()),
        help: Some(REORDER.into()),
    }
}

// ---------------------------------------------------------------------------
// Unreachable children
// ---------------------------------------------------------------------------

#[test]
fn a_child_after_force_success_in_a_selector_never_runs() {
    let text = r#"{"type": "Selector", "children": [
  {"type": "enemy_visible"},
  {"type": "ForceSuccess", "children": [{"type": "Shoot"}]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:4:12",
            "`Patrol` can never run: `ForceSuccess` before it never fails",
            "guard",
            "guard/Patrol[2]",
            "Patrol",
        )
    );
}

#[test]
fn a_branch_its_condition_never_chooses_never_runs() {
    // `Idle` never fails: the else branch of the first never runs; an
    // inverted `Idle` never succeeds: the then branch of the second.
    let text = r#"{"type": "Sequence", "children": [
  {"type": "IfThenElse", "children": [{"type": "Idle"}, {"type": "Eat"}, {"type": "Sleep"}]},
  {"type": "WhileDoElse", "children": [
    {"type": "Inverter", "children": [{"type": "Idle"}]}, {"type": "Shoot"}, {"type": "Eat"}
  ]},
  {"type": "IfThenElse", "children": [{"type": "hungry"}, {"type": "Eat"}, {"type": "Sleep"}]}
]}"#;
    let load = load("guard.json", text);
    let help = "check the condition, or remove the branch it never chooses";
    assert_eq!(
        warnings(&load),
        [
            Warning {
                help: Some(help.into()),
                ..unreachable(
                    "guard.json:2:83",
                    "`Sleep` can never run: the condition `Idle` never fails",
                    "guard",
                    "guard/IfThenElse[0]/Sleep[2]",
                    "Sleep",
                )
            },
            Warning {
                help: Some(help.into()),
                ..unreachable(
                    "guard.json:4:68",
                    "`Shoot` can never run: the condition `Inverter` never succeeds",
                    "guard",
                    "guard/WhileDoElse[1]/Shoot[1]",
                    "Shoot",
                )
            },
        ]
    );
}

#[test]
fn the_warning_counts_the_other_children_that_never_run() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "ForceSuccess", "children": [{"type": "Shoot"}]},
  {"type": "Patrol"},
  {"type": "Eat"},
  {"type": "Sleep"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:3:12",
            "`Patrol` can never run: `ForceSuccess` before it never fails (nor can the 2 children after it)",
            "guard",
            "guard/Patrol[1]",
            "Patrol",
        )
    );
}

#[test]
fn a_child_after_a_leaf_that_never_fails_never_runs() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Idle"},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:3:12",
            "`Patrol` can never run: `Idle` before it never fails",
            "guard",
            "guard/Patrol[1]",
            "Patrol",
        )
    );
}

#[test]
fn a_deferred_leaf_that_never_fails_blocks_too() {
    let text = r#"{"type": "Selector", "children": [{"type": "Wander"}, {"type": "Eat"}]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        ["`Eat` can never run: `Wander` before it never fails"]
    );
}

#[test]
fn a_sequence_of_children_that_never_fail_never_fails() {
    let text = r#"{"type": "Selector", "children": [
  {"type": "Sequence", "name": "busy", "children": [
    {"type": "Idle"},
    {"type": "ForceSuccess", "children": [{"type": "Eat"}]}
  ]},
  {"type": "Sleep"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:6:12",
            "`Sleep` can never run: `busy` before it never fails",
            "guard",
            "guard/Sleep[1]",
            "Sleep",
        )
    );
}

#[test]
fn an_inverted_force_failure_never_fails() {
    let text = r#"{"type": "Selector", "children": [
  {"type": "Inverter", "children": [{"type": "ForceFailure", "children": [{"type": "Eat"}]}]},
  {"type": "Sleep"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        ["`Sleep` can never run: `Inverter` before it never fails"]
    );
}

#[test]
fn a_selector_with_one_child_that_never_fails_never_fails() {
    let text = r#"{"type": "Selector", "children": [
  {"type": "Selector", "name": "inner", "children": [{"type": "enemy_visible"}, {"type": "Idle"}]},
  {"type": "Sleep"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        ["`Sleep` can never run: `inner` before it never fails"]
    );
}

#[test]
fn a_child_after_force_failure_in_a_sequence_never_runs() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "enemy_visible"},
  {"type": "ForceFailure", "children": [{"type": "Shoot"}]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:4:12",
            "`Patrol` can never run: `ForceFailure` before it never succeeds",
            "guard",
            "guard/Patrol[2]",
            "Patrol",
        )
    );
}

#[test]
fn a_child_after_an_inverted_leaf_that_never_fails_never_runs() {
    let text = r#"{"type": "ReactiveSequence", "children": [
  {"type": "Inverter", "children": [{"type": "Idle"}]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        ["`Patrol` can never run: `Inverter` before it never succeeds"]
    );
}

#[test]
fn a_child_after_a_selector_that_never_succeeds_never_runs() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "Selector", "name": "doomed", "children": [
    {"type": "ForceFailure", "children": [{"type": "Eat"}]},
    {"type": "Inverter", "children": [{"type": "ForceSuccess", "children": [{"type": "Sleep"}]}]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        ["`Patrol` can never run: `doomed` before it never succeeds"]
    );
}

#[test]
fn unreachable_children_are_found_at_any_depth() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "enemy_visible"},
  {"type": "Selector", "name": "fallback", "children": [
    {"type": "Eat"},
    {"type": "Idle"},
    {"type": "Sleep"}
  ]}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:6:14",
            "`Sleep` can never run: `Idle` before it never fails",
            "guard",
            "guard/fallback[1]/Sleep[2]",
            "Sleep",
        )
    );
}

#[test]
fn each_decider_is_warned_about_once() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "Selector", "children": [{"type": "Idle"}, {"type": "Eat"}]},
  {"type": "Selector", "children": [{"type": "Wander"}, {"type": "ForceSuccess", "children": [{"type": "Eat"}]}, {"type": "Sleep"}]}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        [
            "`Eat` can never run: `Idle` before it never fails",
            "`ForceSuccess` can never run: `Wander` before it never fails (nor can the child after it)",
        ]
    );
}

#[test]
fn a_blocking_last_child_is_no_warning() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "Selector", "children": [{"type": "enemy_visible"}, {"type": "Idle"}]},
  {"type": "Selector", "children": [{"type": "enemy_visible"}, {"type": "ForceSuccess", "children": [{"type": "Eat"}]}]},
  {"type": "ForceFailure", "children": [{"type": "Eat"}]}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn concurrent_and_decorator_children_are_not_checked_for_order() {
    let text = r#"{"type": "Concurrent", "children": [
  {"type": "ForceFailure", "children": [{"type": "Eat"}]},
  {"type": "Idle"},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn a_warning_inside_a_sub_tree_names_the_sub_tree() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "SubTree", "tree": "fallback"}
  ]}},
  {"name": "fallback", "root": {"type": "Selector", "children": [
    {"type": "Idle"},
    {"type": "Sleep"}
  ]}}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:8:14",
            "`Sleep` can never run: `Idle` before it never fails",
            "fallback",
            "guard/fallback[1]/Sleep[1]",
            "Sleep",
        )
    );
}

#[test]
fn an_unreachable_sub_tree_use_is_reported_at_the_use() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Selector", "children": [
    {"type": "Idle"},
    {"type": "SubTree", "tree": "rest"}
  ]}},
  {"name": "rest", "root": {"type": "Sleep"}}
]}"#;
    let load = load("guard.json", text);
    // The children to reorder are `guard`'s: the frame should show the use,
    // not the line where `rest` is defined.
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.json:4:14",
            "`rest` can never run: `Idle` before it never fails",
            "guard",
            "guard/rest[1]",
            "Sleep",
        )
    );
}

#[test]
fn a_warning_renders_as_a_code_frame() {
    let text = "{\"type\": \"Selector\", \"children\": [\n  {\"type\": \"Idle\"},\n  {\"type\": \"Eat\"}\n]}\n";
    let load = load("guard.json", text);
    let want = "\
warning: `Eat` can never run: `Idle` before it never fails
 --> guard.json:3:12
  |
3 |   {\"type\": \"Eat\"}
  |            ^^^^^
  = node: guard/Eat[1] (Eat) in tree `guard`
  = help: reorder the children, or remove the ones that cannot run

1 warning
";
    assert_eq!(load.diagnostics.render(&load.map, false), want);
    assert!(
        load.diagnostics
            .render(&load.map, true)
            .starts_with("\x1b[1;33mwarning\x1b[0m")
    );
}

#[test]
fn a_warning_about_a_named_node_gives_its_type() {
    let text = r#"{"type": "Selector", "children": [
  {"type": "Idle"},
  {"type": "Sequence", "name": "rest", "children": [{"type": "Sleep"}]}
]}"#;
    let load = load("guard.json", text);
    let w = only_warning(&load);
    assert_eq!(w.path.as_deref(), Some("guard/rest[1]"));
    assert_eq!(w.node_type.as_deref(), Some("Sequence"));
}

// ---------------------------------------------------------------------------
// Spore's subset rule
// ---------------------------------------------------------------------------

#[test]
fn a_group_whose_children_all_test_other_conditions_breaks_the_subset_rule() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "name": "needs", "children": [
    {"type": "enemy_visible"},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hungry"}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "tired"}, {"type": "Sleep"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    let mut w = only_warning(&load);
    // See `a_warning_about_a_named_node_gives_its_type`.
    w.node_type = None;
    assert_eq!(
        w,
        Warning {
            location: Some("guard.json:2:12".into()),
            message: "group `needs` may be chosen when none of its children can run: its condition `enemy_visible` is not among theirs (Spore's subset rule)".into(),
            tree: Some("guard".into()),
            path: Some("guard/needs[0]".into()),
            node_type: None,
            help: Some(SUBSET_HELP.into()),
        }
    );
}

#[test]
fn bare_conditions_count_as_guarded_children() {
    let text = r#"{"type": "Selector", "children": [
  {"type": "ReactiveSequence", "children": [
    {"type": "enemy_visible"},
    {"type": "PrioritySelector", "children": [
      {"type": "hungry"},
      {"type": "ReactiveSequence", "children": [{"type": "tired"}, {"type": "Sleep"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        [
            "group `ReactiveSequence` may be chosen when none of its children can run: its condition `enemy_visible` is not among theirs (Spore's subset rule)"
        ]
    );
}

#[test]
fn a_child_that_repeats_the_groups_condition_keeps_the_rule() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hungry"}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "enemy_visible"}, {"type": "Shoot"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn a_child_that_repeats_the_groups_condition_with_its_parameters_keeps_the_rule() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "children": [
    {"type": "hunger_above", "params": {"threshold": 5}},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hunger_above", "params": {"threshold": 5}}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "tired"}, {"type": "Sleep"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn the_same_condition_with_other_parameters_is_another_condition() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "name": "feed", "children": [
    {"type": "hunger_above", "params": {"threshold": 5}},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hunger_above", "params": {"threshold": 9}}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "tired"}, {"type": "Sleep"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(
        messages(&load),
        [
            "group `feed` may be chosen when none of its children can run: its condition `hunger_above` is not among theirs (Spore's subset rule)"
        ]
    );
}

#[test]
fn an_unguarded_fallback_child_keeps_the_rule() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hungry"}, {"type": "Eat"}]},
      {"type": "Shoot"}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn a_child_sequence_that_starts_with_an_action_is_unguarded() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hungry"}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "Shoot"}, {"type": "tired"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn a_group_that_does_not_end_in_a_selector_is_not_a_guarded_group() {
    let text = r#"{"type": "PrioritySelector", "children": [
  {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "Sequence", "children": [
      {"type": "Sequence", "children": [{"type": "hungry"}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "tired"}, {"type": "Sleep"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

#[test]
fn groups_are_checked_only_under_selectors() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "Selector", "children": [
      {"type": "Sequence", "children": [{"type": "hungry"}, {"type": "Eat"}]},
      {"type": "Sequence", "children": [{"type": "tired"}, {"type": "Sleep"}]}
    ]}
  ]},
  {"type": "Patrol"}
]}"#;
    let load = load("guard.json", text);
    assert_eq!(messages(&load), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// Ordinary trees, and what warnings do to a load
// ---------------------------------------------------------------------------

#[test]
fn an_ordinary_tree_has_no_warnings() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "PrioritySelector", "children": [
    {"type": "Sequence", "name": "fight", "children": [
      {"type": "enemy_visible"},
      {"type": "Selector", "children": [
        {"type": "Sequence", "children": [{"type": "enemy_visible"}, {"type": "Shoot"}]},
        {"type": "Patrol"}
      ]}
    ]},
    {"type": "Sequence", "name": "feed", "children": [
      {"type": "hunger_above", "params": {"threshold": 70}},
      {"type": "Eat"}
    ]},
    {"type": "ReactiveSequence", "children": [
      {"type": "Inverter", "children": [{"type": "tired"}]},
      {"type": "Patrol"}
    ]},
    {"type": "Concurrent", "succeed": 1, "children": [{"type": "Wander"}, {"type": "Patrol"}]},
    {"type": "SubTree", "tree": "rest"}
  ]}},
  {"name": "rest", "root": {"type": "Sequence", "children": [
    {"type": "tired"},
    {"type": "ForceSuccess", "children": [{"type": "Sleep"}]},
    {"type": "Idle"}
  ]}}
]}"#;
    let load = load("guard.json", text);
    assert!(
        load.diagnostics.is_empty(),
        "{}",
        load.diagnostics.render(&load.map, false)
    );
}

#[test]
fn warnings_do_not_stop_a_load() {
    let text = r#"{"type": "Selector", "children": [{"type": "Idle"}, {"type": "Eat"}, {"type": "Sleep"}]}"#;
    let load = load("guard.json", text);
    let loaded = load.loaded.as_ref().expect("a tree with warnings loads");
    assert_eq!(loaded.shape.len(), 4);
    assert_eq!(load.diagnostics.warnings().count(), 1);
    assert!(!load.diagnostics.has_errors());
    assert!(
        load.diagnostics
            .render(&load.map, false)
            .ends_with("\n1 warning\n")
    );
}

#[test]
fn ron_trees_are_checked_too() {
    let text = "(type: \"Selector\", children: [\n    (type: \"Idle\"),\n    (type: \"Eat\"),\n])";
    let load = load("guard.ron", text);
    assert_eq!(
        only_warning(&load),
        unreachable(
            "guard.ron:3:12",
            "`Eat` can never run: `Idle` before it never fails",
            "guard",
            "guard/Eat[1]",
            "Eat",
        )
    );
}

#[test]
fn a_tree_with_errors_is_not_checked() {
    let text = r#"{"type": "Selector", "children": [{"type": "Idle"}, {"type": "Eat"}, {"type": "Teleport"}]}"#;
    let load = load_str("guard.json", text, &catalog(), &LoadOptions::default());
    assert!(load.loaded.is_none());
    assert_eq!(messages(&load), ["unknown node type `Teleport`"]);
}

/// Spore's own form (issue 23): GUARD's Decide accepts on an intruder, its
/// group's only decider wants an enemy.
#[test]
fn a_decider_whose_group_tests_other_things_breaks_the_subset_rule() {
    let tree = |fight_test: &str, idle: &str| {
        format!(
            r#"{{"type": "Group", "name": "ROOT", "children": [
  {{"type": "Decider", "name": "GUARD", "children": [
    {{"type": "Score", "params": {{"test": "intruder"}}}},
    {{"type": "Group", "name": "g", "children": [
      {{"type": "Decider", "name": "FIGHT", "children": [
        {{"type": "Score", "params": {{"test": "{fight_test}"}}}},
        {{"type": "Shoot"}}
      ]}}{idle}
    ]}}
  ]}},
  {{"type": "Decider", "name": "IDLE", "children": [{{"type": "Idle"}}]}}
]}}"#
        )
    };
    let broken = load("spore.json", &tree("enemy", ""));
    let w = only_warning(&broken);
    assert_eq!(
        w.message,
        "decider `GUARD` may accept when none of the deciders in its group `g` does: its test (`Score(test: \"intruder\")`) is not among theirs (Spore's subset rule)"
    );
    assert_eq!(w.location.as_deref(), Some("spore.json:2:12"));
    assert_eq!(w.path.as_deref(), Some("ROOT/GUARD[0]"));
    assert!(w.help.unwrap().contains("`delegate`"));
    // The group's decider testing the same, or a decider in it that always
    // accepts: the rule may hold, and the check says nothing.
    assert!(warnings(&load("spore.json", &tree("intruder", ""))).is_empty());
    let idle = r#", {"type": "Decider", "children": [{"type": "Idle"}]}"#;
    assert!(warnings(&load("spore.json", &tree("enemy", idle))).is_empty());
}

/// Issue 23: a Repeat under a decorator repeats nothing, and says so.
#[test]
fn a_repeat_under_a_decorator_is_never_ticked_again() {
    let text = r#"{"type": "StoredState", "children": [
  {"type": "Sequence", "name": "watch", "children": [
    {"type": "ForceSuccess", "children": [
      {"type": "Repeat", "children": [{"type": "enemy_visible"}]}
    ]},
    {"type": "Patrol"}
  ]}
]}"#;
    let idle = load("watch.json", text);
    let w = only_warning(&idle);
    assert_eq!(
        w.message,
        "`Repeat` under `ForceSuccess` is never ticked again: only a sequence or selector ticks a Repeat child past where it resumes"
    );
    assert_eq!(w.location.as_deref(), Some("watch.json:4:16"));
    assert!(w.help.unwrap().contains("Repeat > ForceSuccess"));
    // Right under the sequence, it is: no warning.
    let text = r#"{"type": "StoredState", "children": [
  {"type": "Sequence", "children": [
    {"type": "Repeat", "children": [{"type": "ForceSuccess", "children": [{"type": "enemy_visible"}]}]},
    {"type": "Patrol"}
  ]}
]}"#;
    assert!(warnings(&load("watch.json", text)).is_empty());
}
