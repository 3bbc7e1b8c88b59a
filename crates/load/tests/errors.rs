//! Errors in tree files: every problem of a load reported at once, each
//! with its file, line, column, tree, node path and node type, and no input
//! that makes a load panic.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use treebeard_load::native::MAX_NESTING;
use treebeard_load::{Diagnostic, Load, LoadOptions, Loader, Severity, load_file, load_str};
use treebeard_shape::{Catalog, FieldDecl, FieldType, LeafSchema, ParamType};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Int))
        .field(FieldDecl::new("goal", FieldType::Str))
        .field(FieldDecl::new("pace", FieldType::Float))
        .field(FieldDecl::new("alert", FieldType::Bool))
        .event("OnEnemySeen")
        .event("OnLostSightOfTarget")
        .declare("enemy_visible", LeafSchema::condition())
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Int),
        )
        .declare(
            "Patrol",
            LeafSchema::deferred().param("speed", ParamType::Float),
        )
        .declare("Say", LeafSchema::action().param("text", ParamType::Str))
        .declare(
            "Walk",
            LeafSchema::action().param("gait", ParamType::enumeration(&["walk", "run"])),
        )
        .declare(
            "Track",
            LeafSchema::action().param("target", ParamType::Input(FieldType::Str)),
        )
        .declare(
            "Aim",
            LeafSchema::action().param("at", ParamType::Input(FieldType::Float)),
        );
    c
}

fn load(name: &str, text: &str) -> Load {
    load_str(name, text, &catalog(), &LoadOptions::default())
}

/// Runs `f` on a thread of 1.5 MiB of stack: the deepest tree must load on
/// the 2 MiB of a spawned thread (docs/fuzzing.md, "Limits"), and a quarter
/// less here keeps a margin, so that a change that grows a frame on one of
/// the recursive paths (reader, resolver, compiler) fails this test before
/// it fails a build with other optimisations.
fn on_a_small_stack(f: impl FnOnce() -> Load + Send + 'static) -> Load {
    std::thread::Builder::new()
        .stack_size(3 << 19)
        .spawn(f)
        .expect("spawns")
        .join()
        .expect("the load does not panic or overflow its stack")
}

/// `tests/trees/native/<name>`, read.
fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/trees/native")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A diagnostic in full, for exact comparisons.
#[derive(Debug, PartialEq)]
struct Seen {
    severity: Severity,
    location: Option<String>,
    message: String,
    tree: Option<String>,
    path: Option<String>,
    node_type: Option<String>,
    help: Option<String>,
}

fn seen(load: &Load, d: &Diagnostic) -> Seen {
    Seen {
        severity: d.severity,
        location: d.location(&load.map),
        message: d.message.clone(),
        tree: d.tree.as_deref().map(Into::into),
        path: d.path.clone(),
        node_type: d.node_type.as_deref().map(Into::into),
        help: d.help.clone(),
    }
}

/// An error as expected: `location` and `message`, then tree, path and node
/// type (all or none), then help.
fn error(
    location: &str,
    message: &str,
    node: Option<(&str, &str, &str)>,
    help: Option<&str>,
) -> Seen {
    Seen {
        severity: Severity::Error,
        location: (!location.is_empty()).then(|| location.into()),
        message: message.into(),
        tree: node.map(|n| n.0.into()),
        path: node.map(|n| n.1.into()),
        node_type: node.map(|n| n.2.into()),
        help: help.map(Into::into),
    }
}

/// Every diagnostic of a load that must fail.
fn all(load: &Load) -> Vec<Seen> {
    assert!(load.loaded.is_none(), "the load should fail");
    load.diagnostics
        .items()
        .iter()
        .map(|d| seen(load, d))
        .collect()
}

/// The only diagnostic of a load that must fail.
fn only(load: &Load) -> Seen {
    let mut all = all(load);
    assert_eq!(
        all.len(),
        1,
        "one diagnostic expected:\n{}",
        load.diagnostics.render(&load.map, false)
    );
    all.remove(0)
}

/// `seen` without its node: for errors the reader finds in a node it still
/// reads, which have none yet (see `reader_errors_name_their_node`).
fn without_node(mut seen: Seen) -> Seen {
    seen.tree = None;
    seen.path = None;
    seen.node_type = None;
    seen
}

/// The first diagnostic whose message starts with `start`.
fn find(load: &Load, start: &str) -> Seen {
    assert!(load.loaded.is_none(), "the load should fail");
    let d = load
        .diagnostics
        .items()
        .iter()
        .find(|d| d.message.starts_with(start))
        .unwrap_or_else(|| {
            panic!(
                "no diagnostic `{start}...`:\n{}",
                load.diagnostics.render(&load.map, false)
            )
        });
    seen(load, d)
}

/// A temporary file for this test, in a folder of its own, removed when
/// dropped.
struct TempFile {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl TempFile {
    fn new(name: &str, bytes: &[u8]) -> TempFile {
        let dir = tempfile::Builder::new()
            .prefix("treebeard-load-errors-")
            .tempdir()
            .expect("a temporary directory");
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("a temporary file");
        TempFile { _dir: dir, path }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

// ---------------------------------------------------------------------------
// Every problem at once
// ---------------------------------------------------------------------------

#[test]
fn one_json_file_reports_an_unknown_node_a_bad_parameter_a_missing_sub_tree_and_a_syntax_error() {
    let load = load("broken.json", &data("broken.json"));
    assert_eq!(
        all(&load),
        [
            error(
                "broken.json:6:18",
                "unknown node type `enemy_visibel`",
                Some(("guard", "guard/fight[0]/enemy_visibel[0]", "enemy_visibel")),
                Some("did you mean `enemy_visible`?"),
            ),
            error(
                "broken.json:7:18",
                "no tree is named `atack`",
                Some(("guard", "guard/fight[0]/atack[1]", "SubTree")),
                Some("did you mean `attack`?"),
            ),
            error(
                "broken.json:9:46",
                "parameter `speed` of `Patrol`: expected float, found \"fast\"",
                Some(("guard", "guard/Patrol[1]", "Patrol")),
                None,
            ),
            error(
                "broken.json:10:48",
                "expected `,` or `}`",
                Some(("guard", "guard/Say[2]", "Say")),
                Some("this is not valid JSON"),
            ),
        ]
    );
    assert!(
        load.diagnostics
            .render(&load.map, false)
            .ends_with("\n4 errors\n")
    );
}

#[test]
fn one_ron_file_reports_the_same_four_errors() {
    let load = load("broken.ron", &data("broken.ron"));
    assert_eq!(
        all(&load),
        [
            error(
                "broken.ron:7:24",
                "unknown node type `enemy_visibel`",
                Some(("guard", "guard/fight[0]/enemy_visibel[0]", "enemy_visibel")),
                Some("did you mean `enemy_visible`?"),
            ),
            error(
                "broken.ron:8:24",
                "no tree is named `atack`",
                Some(("guard", "guard/fight[0]/atack[1]", "SubTree")),
                Some("did you mean `attack`?"),
            ),
            error(
                "broken.ron:10:48",
                "parameter `speed` of `Patrol`: expected float, found \"fast\"",
                Some(("guard", "guard/Patrol[1]", "Patrol")),
                None,
            ),
            error(
                "broken.ron:11:50",
                "Expected comma",
                Some(("guard", "guard/Say[2]", "Say")),
                Some("this is not valid RON"),
            ),
        ]
    );
}

#[test]
fn syntax_errors_in_several_nodes_are_all_reported_with_the_rest() {
    let text = r#"{"type": "Sequence", "children": [
  {"type": "Patrol", "params": {"speed": 1,}},
  {"type": "enemy_visible"},
  {"type": "Patrol" "params": {"speed": 1}},
  {"type": "Teleport"}
]}"#;
    let load = load("t.json", text);
    assert_eq!(
        all(&load),
        [
            error(
                "t.json:2:44",
                "key must be a string",
                Some(("t", "t/Patrol[0]", "Patrol")),
                Some("this is not valid JSON"),
            ),
            error(
                "t.json:4:21",
                "expected `,` or `}`",
                Some(("t", "t/Patrol[2]", "Patrol")),
                Some("this is not valid JSON"),
            ),
            error(
                "t.json:5:12",
                "unknown node type `Teleport`",
                Some(("t", "t/Teleport[3]", "Teleport")),
                Some("register a leaf named `Teleport`, or pass --stub-unknown to stub it"),
            ),
        ]
    );
}

#[test]
fn ron_syntax_errors_in_several_nodes_are_all_reported_with_the_rest() {
    let text = r#"(type: "Sequence", children: [
  (type: "Patrol", params: {"speed": 1 "x": 2}),
  (type: "enemy_visible"),
  (type: "Patrol" params: {"speed": 1}),
  (type: "Teleport"),
])"#;
    let load = load("t.ron", text);
    assert_eq!(
        all(&load),
        [
            error(
                "t.ron:2:40",
                "Expected comma",
                Some(("t", "t/Patrol[0]", "Patrol")),
                Some("this is not valid RON"),
            ),
            error(
                "t.ron:4:19",
                "Expected comma",
                Some(("t", "t/Patrol[2]", "Patrol")),
                Some("this is not valid RON"),
            ),
            error(
                "t.ron:5:10",
                "unknown node type `Teleport`",
                Some(("t", "t/Teleport[3]", "Teleport")),
                Some("register a leaf named `Teleport`, or pass --stub-unknown to stub it"),
            ),
        ]
    );
}

#[test]
fn a_syntax_error_outside_every_node_ends_the_file() {
    let load = load("t.json", r#"{"type": "enemy_visible"} x"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:27",
            "trailing characters",
            None,
            Some("this is not valid JSON")
        )
    );
}

#[test]
fn an_unclosed_file_is_reported_once() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "children": [{"type": "enemy_visible"}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:59",
            "EOF while parsing a list",
            None,
            Some("this is not valid JSON")
        )
    );
}

#[test]
fn an_empty_file_is_a_syntax_error() {
    let load = load("t.json", "");
    assert_eq!(
        only(&load),
        error(
            "t.json:1:1",
            "EOF while parsing a value",
            None,
            Some("this is not valid JSON")
        )
    );
}

// ---------------------------------------------------------------------------
// The file and its trees
// ---------------------------------------------------------------------------

#[test]
fn a_file_that_is_neither_a_tree_file_nor_a_node() {
    let load = load("t.json", r#"{"name": "x"}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:1",
            "expected a tree file (with `trees`) or a node (with `type`)",
            None,
            None
        )
    );
}

#[test]
fn a_file_that_is_not_an_object_says_what_a_file_holds() {
    for text in ["[1, 2]", "\"text\"", "42"] {
        let load = load("t.json", text);
        let d = only(&load);
        assert_eq!(
            d.message, "expected a tree file (with `trees`) or a node (with `type`)",
            "{text}"
        );
    }
}

#[test]
fn an_unknown_field_of_a_node_suggests_the_right_one() {
    let load = load("t.json", r#"{"type": "Patrol", "parms": {"speed": 1}}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:20",
            "unknown field `parms`",
            Some(("t", "t", "Patrol")),
            Some("did you mean `params`?"),
        )
    );
}

#[test]
fn an_unknown_field_of_a_tree_suggests_the_right_one() {
    let load = load(
        "t.json",
        r#"{"trees": [{"name": "t", "rot": {"type": "enemy_visible"}}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:26",
            "unknown field `rot`",
            None,
            Some("did you mean `root`?")
        )
    );
}

#[test]
fn an_unknown_ron_field_suggests_the_right_one() {
    let load = load("t.ron", r#"(type: "Patrol", parms: {"speed": 1})"#);
    assert_eq!(
        only(&load),
        error(
            "t.ron:1:18",
            "unknown field `parms`",
            Some(("t", "t", "Patrol")),
            Some("did you mean `params`?")
        )
    );
}

#[test]
fn a_field_given_twice_is_an_error() {
    let load = load(
        "t.json",
        r#"{"type": "Patrol", "params": {"speed": 1}, "params": {"speed": 2}}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:44",
            "duplicate field `params`",
            Some(("t", "t", "Patrol")),
            None
        )
    );
}

#[test]
fn a_tree_without_a_name() {
    let load = load(
        "t.json",
        r#"{"trees": [{"root": {"type": "enemy_visible"}}]}"#,
    );
    assert_eq!(
        only(&load),
        error("t.json:1:46", "missing field `name`", None, None)
    );
}

#[test]
fn a_tree_name_that_is_not_a_string() {
    let load = load(
        "t.json",
        r#"{"trees": [{"name": 5, "root": {"type": "enemy_visible"}}]}"#,
    );
    assert_eq!(
        find(&load, "a tree's"),
        error(
            "t.json:1:21",
            "a tree's `name` must be a string",
            None,
            None
        )
    );
}

#[test]
fn a_file_without_trees() {
    let load = load("t.json", r#"{"trees": []}"#);
    assert_eq!(
        find(&load, "the file"),
        error(
            "t.json:1:1",
            "the file has no trees",
            None,
            Some("add a tree: {\"name\": ..., \"root\": {\"type\": ...}}"),
        )
    );
}

#[test]
fn two_trees_of_one_name() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "enemy_visible"}},
  {"name": "guard", "root": {"type": "enemy_visible"}}
]}"#;
    let load = load("t.json", text);
    assert_eq!(
        only(&load),
        error(
            "t.json:3:12",
            "a second tree is named `guard`",
            None,
            Some("the first is at t.json:2:12; tree names must be unique"),
        )
    );
}

#[test]
fn two_trees_of_one_name_in_two_files() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    loader.add_source(
        "a.json",
        r#"{"trees": [{"name": "guard", "root": {"type": "enemy_visible"}}]}"#.into(),
        None,
    );
    loader.add_source(
        "b.ron",
        "\n(trees: [(name: \"guard\", root: (type: \"enemy_visible\"))])".into(),
        None,
    );
    let load = loader.finish();
    assert_eq!(
        only(&load),
        error(
            "b.ron:2:17",
            "a second tree is named `guard`",
            None,
            Some("the first is at a.json:1:21; tree names must be unique"),
        )
    );
}

#[test]
fn main_naming_a_missing_tree_suggests_one() {
    let load = load(
        "t.json",
        r#"{"main": "gaurd", "trees": [{"name": "guard", "root": {"type": "enemy_visible"}}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "no tree is named `gaurd`",
            None,
            Some("did you mean `guard`?")
        )
    );
}

#[test]
fn the_main_option_naming_a_missing_tree_suggests_one() {
    let options = LoadOptions {
        main: Some("gaurd".into()),
        ..LoadOptions::default()
    };
    let load = load_str(
        "t.json",
        r#"{"trees": [{"name": "guard", "root": {"type": "enemy_visible"}}]}"#,
        &catalog(),
        &options,
    );
    assert_eq!(
        only(&load),
        error(
            "",
            "no tree is named `gaurd`",
            None,
            Some("did you mean `guard`?")
        )
    );
}

#[test]
fn main_that_is_not_a_string() {
    let load = load(
        "t.json",
        r#"{"main": 1, "trees": [{"name": "guard", "root": {"type": "enemy_visible"}}]}"#,
    );
    assert_eq!(
        only(&load),
        error("t.json:1:10", "`main` must be a string", None, None)
    );
}

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

#[test]
fn a_file_that_is_not_utf8() {
    let file = TempFile::new("latin1.json", b"{\"type\": \"caf\xe9\"}");
    let load = load_file(file.path(), &catalog(), &LoadOptions::default());
    let name = file.path().display().to_string();
    assert_eq!(
        only(&load),
        error(
            &format!("{name}:1:14"),
            &format!("`{name}` is not UTF-8 text (invalid byte at offset 13)"),
            None,
            Some("tree files are UTF-8"),
        )
    );
}

#[test]
fn a_missing_file() {
    let path = std::env::temp_dir().join("treebeard-load-errors-no-such-file.json");
    let load = load_file(&path, &catalog(), &LoadOptions::default());
    let d = only(&load);
    assert_eq!(
        d.message,
        format!("cannot read `{}`: it does not exist", path.display())
    );
    assert_eq!(d.location, None);
}

#[test]
fn a_file_of_an_unknown_kind() {
    let load = load("notes.txt", "hello");
    assert_eq!(
        only(&load),
        error(
            "notes.txt:1:1",
            "`notes.txt` is not a tree file treebeard reads",
            None,
            Some("tree files are .json, .ron or .xml (MBT or BehaviorTree.CPP v4)"),
        )
    );
}

#[test]
fn a_file_on_disk_of_an_unknown_kind() {
    let file = TempFile::new("tree.yaml", b"type: Sequence\n");
    let load = load_file(file.path(), &catalog(), &LoadOptions::default());
    let name = file.path().display().to_string();
    assert_eq!(
        only(&load),
        error(
            &format!("{name}:1:1"),
            &format!("`{name}` is not a tree file treebeard reads"),
            None,
            Some("tree files are .json, .ron or .xml (MBT or BehaviorTree.CPP v4)"),
        )
    );
}

// ---------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------

#[test]
fn an_unknown_node_type_without_a_close_name() {
    let load = load("t.json", r#"{"type": "Teleport"}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "unknown node type `Teleport`",
            Some(("t", "t", "Teleport")),
            Some("register a leaf named `Teleport`, or pass --stub-unknown to stub it"),
        )
    );
}

#[test]
fn an_unknown_node_type_close_to_a_decider() {
    let load = load(
        "t.json",
        r#"{"type": "Sequense", "children": [{"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "unknown node type `Sequense`",
            Some(("t", "t", "Sequense")),
            Some("did you mean `Sequence`?"),
        )
    );
}

#[test]
fn a_node_type_that_is_not_a_string() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "children": [{"type": 5}, {"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:44",
            "a node's `type` must be a string",
            Some(("t", "t/?[0]", "?")),
            None
        )
    );
}

#[test]
fn a_node_name_that_is_not_a_string() {
    let load = load("t.json", r#"{"type": "enemy_visible", "name": 3}"#);
    assert_eq!(
        without_node(only(&load)),
        error(
            "t.json:1:35",
            "a node's `name` must be a string",
            None,
            None
        )
    );
}

#[test]
fn an_id_out_of_range() {
    for id in ["-1", "4294967296", "1.5", "\"7\""] {
        let text = format!(r#"{{"type": "enemy_visible", "id": {id}}}"#);
        let load = load("t.json", &text);
        assert_eq!(
            without_node(only(&load)),
            error(
                "t.json:1:33",
                "`id` must be a whole number from 0 to 4294967295",
                None,
                None
            ),
            "{id}"
        );
    }
}

#[test]
fn two_nodes_with_one_id() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "children": [{"type": "enemy_visible", "id": 5}, {"type": "Say", "id": 5, "params": {"text": "x"}}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:80",
            "id 5 is given to two nodes",
            Some(("t", "t/Say[1]", "Say")),
            Some("identities must be unique"),
        )
    );
}

#[test]
fn tree_on_a_node_that_is_not_a_sub_tree() {
    let load = load(
        "t.json",
        r#"{"type": "Patrol", "tree": "x", "params": {"speed": 1}}"#,
    );
    assert_eq!(
        without_node(only(&load)),
        error(
            "t.json:1:28",
            "`tree` is only for a `SubTree`, not `Patrol`",
            None,
            None
        )
    );
}

#[test]
fn a_sub_tree_without_its_tree() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "children": [{"type": "SubTree"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:44",
            "a `SubTree` needs the `tree` it uses",
            Some(("t", "t/SubTree[0]", "SubTree")),
            Some("add \"tree\": \"<name of a tree>\""),
        )
    );
}

#[test]
fn concurrent_counts_must_be_positive_counts_or_all() {
    for count in ["0", "-1", "70000", "1.5", "\"some\"", "true", "[1]"] {
        let text = format!(
            r#"{{"type": "Concurrent", "succeed": {count}, "children": [{{"type": "enemy_visible"}}]}}"#
        );
        let load = load("t.json", &text);
        assert_eq!(
            without_node(only(&load)),
            error(
                "t.json:1:35",
                "`succeed` must be a positive count or \"all\"",
                None,
                None
            ),
            "{count}"
        );
    }
    let load = load(
        "t.json",
        r#"{"type": "Concurrent", "fail": "any", "children": [{"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        without_node(only(&load)),
        error(
            "t.json:1:32",
            "`fail` must be a positive count or \"all\"",
            None,
            None
        )
    );
}

#[test]
fn a_concurrent_count_past_its_children() {
    let load = load(
        "t.json",
        r#"{"type": "Concurrent", "succeed": 3, "children": [{"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "the policy needs 3 children to succeed, but the concurrent has 1",
            Some(("t", "t", "Concurrent")),
            None,
        )
    );
}

#[test]
fn a_policy_on_a_node_that_is_not_concurrent() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "fail": 1, "children": [{"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        without_node(only(&load)),
        error(
            "t.json:1:30",
            "`fail` is only for a `Concurrent`, not `Sequence`",
            None,
            None
        )
    );
}

#[test]
fn a_decider_with_parameters() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "params": {"x": 1}, "children": [{"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:38",
            "`Sequence` takes no parameters, but is given `x`",
            Some(("t", "t", "Sequence")),
            None,
        )
    );
}

#[test]
fn a_decider_without_children() {
    let load = load("t.json", r#"{"type": "Selector"}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "`Selector` takes at least 1 child, but has 0",
            Some(("t", "t", "Selector")),
            None,
        )
    );
}

#[test]
fn a_decorator_with_two_children() {
    let load = load(
        "t.json",
        r#"{"type": "Inverter", "children": [{"type": "enemy_visible"}, {"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "`Inverter` takes exactly 1 child, but has 2",
            Some(("t", "t", "Inverter")),
            None,
        )
    );
}

#[test]
fn a_leaf_with_children() {
    let load = load(
        "t.json",
        r#"{"type": "enemy_visible", "children": [{"type": "enemy_visible"}, {"type": "enemy_visible"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "`enemy_visible` is a leaf, but has 2 children",
            Some(("t", "t", "enemy_visible")),
            None,
        )
    );
}

#[test]
fn nesting_past_the_limit() {
    let mut text = String::from(r#"{"type": "enemy_visible"}"#);
    for _ in 0..=MAX_NESTING {
        text = format!("{{\"type\": \"Sequence\", \"children\": [\n{text}]}}");
    }
    let load = on_a_small_stack(move || load("deep.json", &text));
    let d = find(&load, "nodes nest");
    assert_eq!(
        (d.location.as_deref(), d.message.as_str(), d.help.as_deref()),
        (
            Some(format!("deep.json:{}:1", MAX_NESTING + 2).as_str()),
            "nodes nest deeper than 1024 levels",
            Some("split the tree into sub-trees"),
        )
    );
    assert_eq!(d.tree.as_deref(), Some("deep"));
}

#[test]
fn nesting_up_to_the_limit_loads() {
    let mut text = String::from(r#"{"type": "enemy_visible"}"#);
    for _ in 0..MAX_NESTING {
        text = format!("{{\"type\": \"Sequence\", \"children\": [{text}]}}");
    }
    let load = on_a_small_stack(move || load("deep.json", &text));
    assert!(
        load.loaded.is_some(),
        "{}",
        load.diagnostics.render(&load.map, false)
    );
}

#[test]
fn tens_of_thousands_of_levels_are_an_error_not_a_stack_overflow() {
    // (JSON takes time in the number of levels read, 1024, times the
    // file's size: 30,000 levels keep the test quick.)
    let deep = |depth: usize, open: &str, leaf: &str, close: &str| {
        let mut text = String::with_capacity(depth * (open.len() + close.len()));
        for _ in 0..depth {
            text.push_str(open);
        }
        text.push_str(leaf);
        for _ in 0..depth {
            text.push_str(close);
        }
        text
    };
    let json = deep(
        30_000,
        r#"{"type": "Sequence", "children": ["#,
        r#"{"type": "enemy_visible"}"#,
        "]}",
    );
    let ron = deep(
        100_000,
        r#"(type: "Sequence", children: ["#,
        r#"(type: "enemy_visible")"#,
        "])",
    );
    for (name, text) in [("deep.json", json), ("deep.ron", ron)] {
        let load = load(name, &text);
        assert!(load.loaded.is_none(), "{name}");
        assert!(load.diagnostics.has_errors(), "{name}");
    }
}

#[test]
fn ron_nests_to_its_documented_depth_with_one_clear_error_past_it() {
    // ron's parser recurses per bracket (two per level of nodes) and stops
    // at its own limit, so RON files stop at 26 levels; JSON goes to
    // MAX_NESTING.
    let nested = |levels: usize| {
        let mut text = String::from(r#"(type: "enemy_visible")"#);
        for _ in 0..levels {
            text = format!("(type: \"Sequence\", children: [{text}])");
        }
        text
    };
    let load = load("deep.ron", &nested(25));
    assert!(
        load.loaded.is_some(),
        "{}",
        load.diagnostics.render(&load.map, false)
    );
    let load = self::load("deep.ron", &nested(100));
    let d = only(&load);
    assert_eq!(
        d.message,
        "the file nests deeper than RON files may (about 26 levels of nodes)"
    );
    assert_eq!(
        d.help.as_deref(),
        Some("split the tree into sub-trees, or write it in JSON")
    );
}

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

#[test]
fn an_unknown_parameter_suggests_the_right_one() {
    let load = load("t.json", r#"{"type": "Say", "params": {"txt": "hi"}}"#);
    let d = find(&load, "`Say` has no");
    assert_eq!(
        (d.message.as_str(), d.help.as_deref()),
        ("`Say` has no parameter `txt`", Some("did you mean `text`?"))
    );
    assert_eq!(
        (d.tree.as_deref(), d.path.as_deref(), d.node_type.as_deref()),
        (Some("t"), Some("t"), Some("Say"))
    );
}

#[test]
fn an_unknown_parameter_is_underlined_at_its_name() {
    let load = load("t.json", r#"{"type": "Say", "params": {"txt": "hi"}}"#);
    let d = find(&load, "`Say` has no");
    assert_eq!(d.location.as_deref(), Some("t.json:1:28"));
}

#[test]
fn a_missing_required_parameter() {
    let load = load("t.json", r#"{"type": "Patrol"}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:10",
            "`Patrol` needs parameter `speed` (float), which is not given",
            Some(("t", "t", "Patrol")),
            None,
        )
    );
}

#[test]
fn a_parameter_given_twice() {
    let load = load(
        "t.json",
        r#"{"type": "Patrol", "params": {"speed": 1, "speed": 2}}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:43",
            "parameter `speed` of `Patrol` is given twice",
            Some(("t", "t", "Patrol")),
            None,
        )
    );
}

#[test]
fn a_value_of_the_wrong_type() {
    let load = load(
        "t.json",
        r#"{"type": "hunger_above", "params": {"threshold": 2.5}}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:50",
            "parameter `threshold` of `hunger_above`: expected int, found 2.5",
            Some(("t", "t", "hunger_above")),
            None,
        )
    );
}

#[test]
fn a_value_that_is_not_a_literal() {
    let load = load("t.json", r#"{"type": "Patrol", "params": {"speed": [1]}}"#);
    assert_eq!(
        find(&load, "a parameter's value"),
        error(
            "t.json:1:40",
            "a parameter's value must be a number, a string, true or false",
            Some(("t", "t", "Patrol")),
            None,
        )
    );
}

#[test]
fn a_value_that_is_not_a_literal_is_reported_once_with_its_node() {
    let load = load("t.json", r#"{"type": "Patrol", "params": {"speed": [1]}}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:40",
            "a parameter's value must be a number, a string, true or false",
            Some(("t", "t", "Patrol")),
            None,
        )
    );
}

#[test]
fn a_null_parameter() {
    let load = load("t.json", r#"{"type": "Patrol", "params": {"speed": null}}"#);
    assert_eq!(
        find(&load, "parameter `speed` is null"),
        error(
            "t.json:1:40",
            "parameter `speed` is null",
            Some(("t", "t", "Patrol")),
            Some("give a value, or leave the parameter out for its default"),
        )
    );
}

#[test]
fn a_null_parameter_is_reported_once_with_its_node() {
    let load = load("t.json", r#"{"type": "Patrol", "params": {"speed": null}}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:40",
            "parameter `speed` is null",
            Some(("t", "t", "Patrol")),
            Some("give a value, or leave the parameter out for its default"),
        )
    );
}

#[test]
fn reader_errors_name_their_node() {
    for (text, node_type) in [
        (
            r#"{"type": "Sequence", "children": [{"type": "Patrol", "tree": "x", "params": {"speed": 1}}]}"#,
            "Patrol",
        ),
        (
            r#"{"type": "Sequence", "children": [{"type": "Concurrent", "succeed": 0, "children": [{"type": "enemy_visible"}]}]}"#,
            "Concurrent",
        ),
        (
            r#"{"type": "Sequence", "children": [{"type": "Patrol", "id": -1, "params": {"speed": 1}}]}"#,
            "Patrol",
        ),
    ] {
        let load = load("t.json", text);
        let d = only(&load);
        assert_eq!(d.tree.as_deref(), Some("t"), "{text}");
        assert_eq!(d.node_type.as_deref(), Some(node_type), "{text}");
        assert!(d.path.is_some(), "{text}");
    }
}

#[test]
fn an_enum_value_suggests_a_variant() {
    let load = load("t.json", r#"{"type": "Walk", "params": {"gait": "rn"}}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:37",
            "parameter `gait` of `Walk`: `rn` is not a valid choice",
            Some(("t", "t", "Walk")),
            Some("did you mean `run`?"),
        )
    );
}

#[test]
fn an_unknown_blackboard_field_suggests_one() {
    let load = load(
        "t.json",
        r#"{"type": "Track", "params": {"target": "{gaol}"}}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:40",
            "parameter `target` of `Track`: the blackboard has no field `gaol`",
            Some(("t", "t", "Track")),
            Some("did you mean `goal`?"),
        )
    );
}

#[test]
fn a_blackboard_field_of_the_wrong_type() {
    let load = load("t.json", r#"{"type": "Aim", "params": {"at": "{alert}"}}"#);
    assert_eq!(
        only(&load),
        error(
            "t.json:1:34",
            "parameter `at` of `Aim`: field `alert` holds bool values, but float is needed",
            Some(("t", "t", "Aim")),
            None,
        )
    );
}

#[test]
fn errors_inside_a_sub_tree_name_it_and_the_full_path() {
    let text = r#"{"trees": [
  {"name": "main", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "walk"}
  ]}},
  {"name": "walk", "root": {"type": "Sequence", "children": [
    {"type": "Walk", "params": {"gait": "fly"}}
  ]}}
]}"#;
    let load = load("t.json", text);
    assert_eq!(
        only(&load),
        error(
            "t.json:6:41",
            "parameter `gait` of `Walk`: `fly` is not a valid choice",
            Some(("walk", "main/walk[0]/Walk[0]", "Walk")),
            None,
        )
    );
}

// ---------------------------------------------------------------------------
// Declarations and scripts
// ---------------------------------------------------------------------------

/// `name:line:column` of the first `needle` in `text`.
fn place_of(name: &str, text: &str, needle: &str) -> String {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in {text}"));
    let line = text[..at].matches('\n').count() + 1;
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let column = text[start..at].chars().count() + 1;
    format!("{name}:{line}:{column}")
}

/// The text a diagnostic underlines.
fn underlined<'l>(load: &'l Load, d: &Diagnostic) -> &'l str {
    load.map.text(d.span.expect("a place"))
}

#[test]
fn an_undeclared_variable_in_a_condition_is_shown_in_the_script() {
    let json = r#"{"variables": [{"name": "TargetVisible"}],
 "trees": [{"name": "t", "root": {"type": "IfCondition", "params": {"condition": "alert && TargetVisble"}, "children": [{"type": "enemy_visible"}]}}]}"#;
    let ron = r#"(variables: [(name: "TargetVisible")],
 trees: [(name: "t", root: (type: "IfCondition", params: {"condition": "alert && TargetVisble"}, children: [(type: "enemy_visible")]))])"#;
    let mbt = r#"<BehaviorTree>
  <Variables> <Variable name="TargetVisible"/> </Variables>
  <Root> <IfCondition condition="alert &amp;&amp; TargetVisble"> <enemy_visible/> </IfCondition> </Root>
</BehaviorTree>"#;
    for (name, text, location) in [
        ("t.json", json, "t.json:2:92"),
        ("t.ron", ron, "t.ron:2:82"),
        ("t.xml", mbt, "t.xml:3:51"),
    ] {
        let load = load(name, text);
        assert_eq!(place_of(name, text, "TargetVisble"), location);
        assert_eq!(
            only(&load),
            error(
                location,
                "script `condition` of `IfCondition`: unknown name `TargetVisble`",
                Some(("t", "t", "IfCondition")),
                Some("did you mean `TargetVisible`?"),
            ),
            "{name}"
        );
        assert_eq!(
            underlined(&load, &load.diagnostics.items()[0]),
            "TargetVisble"
        );
    }
}

#[test]
fn script_errors_point_at_the_characters_as_written_in_every_dialect() {
    let json = |script: &str| {
        format!(
            r#"{{"type": "Sequence", "children": [{{"type": "AssertScript", "params": {{"test": {script}}}}}]}}"#
        )
    };
    let ron = |script: &str| {
        format!(
            r#"(type: "Sequence", children: [(type: "AssertScript", params: {{"test": {script}}})])"#
        )
    };
    let btcpp = |script: &str| {
        format!(
            r#"<root BTCPP_format="4"><BehaviorTree ID="t"><Sequence><ScriptCondition code="{script}"/></Sequence></BehaviorTree></root>"#
        )
    };
    let cases: Vec<(&str, String, &str, &str)> = vec![
        // An unknown name after escapes.
        (
            "t.json",
            json(r#""alert \u0026\u0026 hungr > 1""#),
            "hungr",
            "unknown name `hungr`",
        ),
        (
            "t.json",
            json(r#""alert && \"x\"""#),
            r#"\"x\""#,
            "`&&` needs bools, found a string",
        ),
        (
            "t.ron",
            ron(r##"r#"alert && hungr > 1"#"##),
            "hungr",
            "unknown name `hungr`",
        ),
        (
            "t.ron",
            ron(r#""alert &&\thungr > 1""#),
            "hungr",
            "unknown name `hungr`",
        ),
        (
            "t.xml",
            "<Sequence> <AssertLua code=\"alert &amp;&amp; hungr &gt; 1\"/> </Sequence>".into(),
            "hungr",
            "unknown name `hungr`",
        ),
        // Typeset quotes, as the seed prints its trees.
        (
            "t.xml",
            "<Sequence> <AssertLua code=\u{201d}alert &amp;&amp; hungr\u{201d}/> </Sequence>"
                .into(),
            "hungr",
            "unknown name `hungr`",
        ),
        // A value over two lines.
        (
            "t.xml",
            "<Sequence>\n  <AssertLua code=\"alert &amp;&amp;\n    hungr &gt; 1\"/>\n</Sequence>"
                .into(),
            "hungr",
            "unknown name `hungr`",
        ),
        // BT.CPP's `:=` and `@`: columns as written.
        (
            "t.xml",
            btcpp("hunger := 1; @alert := hungr &gt; 1"),
            "hungr",
            "unknown name `hungr`",
        ),
        // Syntax errors.
        (
            "t.json",
            json(r#""hunger > = 1""#),
            "=",
            "expected an expression, found `=`",
        ),
        (
            "t.xml",
            btcpp("hunger == &gt; 1"),
            "&gt;",
            "expected an expression, found `>`",
        ),
        (
            "t.xml",
            "<Sequence> <AssertLua code=\"(alert || !alert\"/> </Sequence>".into(),
            "\"/>",
            "expected `)`, found the end of the script",
        ),
    ];
    for (name, text, written, message) in cases {
        let load = load(name, &text);
        // One error (and, for typeset quotes, a warning about them).
        let all: Vec<Seen> = all(&load)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        assert_eq!(
            all.len(),
            1,
            "{text}:\n{}",
            load.diagnostics.render(&load.map, false)
        );
        let d = load.diagnostics.errors().next().expect("an error");
        // Where `written` is first written in the script's value (`"/>`:
        // where the value ends, at its closing quote).
        let value = text.find("code=").or(text.find("\"test\":")).unwrap_or(0) + 5;
        let at = value + text[value..].find(written).expect("the needle");
        let mut map = treebeard_load::SourceMap::new();
        let file = map.add(name, text.clone());
        let (line, column) = map.file(file).line_column(at);
        assert_eq!(
            all[0].location,
            Some(format!("{name}:{line}:{column}")),
            "{text}"
        );
        assert!(all[0].message.ends_with(message), "{}", all[0].message);
        if written != "\"/>" {
            assert_eq!(underlined(&load, d), written, "{text}");
        }
    }
}

#[test]
fn lua_from_the_seed_is_an_error_at_the_call() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/trees/mbt/execute_lua.xml");
    let load = load_file(&path, &catalog(), &LoadOptions::default());
    let name = path.display().to_string();
    assert_eq!(
        all(&load)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect::<Vec<_>>(),
        [error(
            &format!("{name}:1:19"),
            "script `code` of `ExecuteLua` calls `DoSomething`, but scripts have no function calls",
            Some(("execute_lua", "execute_lua", "ExecuteLua")),
            Some(
                "MBT's Lua code does not carry over: treebeard's scripts are expressions over \
                 blackboard fields and tree variables (see docs/trees.md); write the work as a \
                 leaf, and tests as expressions"
            ),
        )]
    );
    let d = load.diagnostics.errors().next().unwrap();
    assert_eq!(underlined(&load, d), "DoSomething");
    // `return` is Lua's too.
    let load = load_str(
        "gate.xml",
        "<LuaGate code=\"return alert\"> <enemy_visible/> </LuaGate>",
        &catalog(),
        &LoadOptions::default(),
    );
    let seen = only(&load);
    assert_eq!(seen.location.as_deref(), Some("gate.xml:1:16"));
    assert_eq!(
        seen.message,
        "script `code` of `LuaGate` uses `return`, which scripts do not have"
    );
    assert!(seen.help.unwrap().ends_with("leave `return` out"));
}

#[test]
fn a_condition_that_assigns_or_is_not_a_bool() {
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "children": [
  {"type": "AssertCondition", "params": {"condition": "alert = true"}},
  {"type": "AssertScript", "params": {"test": "hunger + 1"}}
]}"#,
    );
    assert_eq!(
        all(&load),
        [
            error(
                "t.json:2:56",
                "script `condition` of `AssertCondition`: a condition cannot assign",
                Some(("t", "t/AssertCondition[0]", "AssertCondition")),
                Some("use `==` to compare, or a ScriptGate to assign"),
            ),
            error(
                "t.json:3:48",
                "script `test` of `AssertScript`: the script's value is int, but AssertScript needs a bool",
                Some(("t", "t/AssertScript[1]", "AssertScript")),
                None,
            ),
        ]
    );
    // The whole script is underlined.
    assert_eq!(
        underlined(&load, &load.diagnostics.items()[0]),
        "alert = true"
    );
}

#[test]
fn an_undeclared_event_in_a_signal_is_shown_at_the_event() {
    let json = r#"{"variables": [{"name": "Seen"}],
 "signals": [{"event": "OnEnemySen", "variable": "Seen", "value": true}],
 "trees": [{"name": "t", "root": {"type": "enemy_visible"}}]}"#;
    let mbt = r#"<BehaviorTree>
  <Variables> <Variable name="Seen"/> </Variables>
  <SignalVariables> <Signal name="OnEnemySen" variable="Seen" value="true"/> </SignalVariables>
  <Root> <enemy_visible/> </Root>
</BehaviorTree>"#;
    for (name, text, location) in [
        ("t.json", json, "t.json:2:24"),
        ("t.xml", mbt, "t.xml:3:35"),
    ] {
        let load = load(name, text);
        assert_eq!(
            only(&load),
            error(
                location,
                "no event is declared as `OnEnemySen`",
                None,
                Some("did you mean `OnEnemySeen`?"),
            ),
            "{name}"
        );
        let d = &load.diagnostics.items()[0];
        assert!(underlined(&load, d).contains("OnEnemySen"));
    }
    // A signal of an undeclared variable, at the variable.
    let load = load(
        "t.json",
        r#"{"signals": [{"event": "OnEnemySeen", "variable": "Sen", "value": true}],
 "trees": [{"name": "t", "root": {"type": "enemy_visible"}}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:51",
            "no variable is declared as `Sen`",
            None,
            Some("declare it in the tree's variables"),
        )
    );
}

#[test]
fn timestamps_name_declared_events_and_timestamps() {
    let text = r#"{"timestamps": [
  {"name": "Spotted", "event": "OnEnemySeen", "exclusive_to": "Lots"},
  {"name": "Lost", "event": "OnEnemySeen", "exclusive_to": "Lost"}
],
 "trees": [{"name": "t", "root": {"type": "Sequence", "children": [
  {"type": "WaitUntilTime", "params": {"since": "Spoted", "seconds": 1}},
  {"type": "WaitForEvent", "params": {"event": "OnEnemy"}}
]}}]}"#;
    let load = load("t.json", text);
    assert_eq!(
        all(&load),
        [
            error(
                "t.json:2:63",
                "no timestamp is declared as `Lots`",
                None,
                Some("did you mean `Lost`?"),
            ),
            error(
                "t.json:3:60",
                "timestamp `Lost` cannot be exclusive to `Lost`: a timestamp is exclusive to one other, and not to itself",
                None,
                None,
            ),
            error(
                "t.json:6:49",
                "parameter `since` of `WaitUntilTime`: no timestamp is declared as `Spoted`",
                Some(("t", "t/WaitUntilTime[0]", "WaitUntilTime")),
                Some("did you mean `Spotted`?"),
            ),
            error(
                "t.json:7:48",
                "parameter `event` of `WaitForEvent`: `OnEnemy` is not one of the application's events",
                Some(("t", "t/WaitForEvent[1]", "WaitForEvent")),
                Some("the application declares events (`Leaves::event`)"),
            ),
        ]
    );
}

#[test]
fn a_name_declared_twice_in_one_file_names_both_places() {
    let load = load(
        "t.ron",
        r#"(variables: [(name: "Seen"), (name: "Seen", initial: true)],
 trees: [(name: "t", root: (type: "enemy_visible"))])"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.ron:1:37",
            "variable `Seen` is declared twice",
            None,
            Some(
                "it is first declared at t.ron:1:21; a load's files share one set of declarations"
            ),
        )
    );
}

#[test]
fn a_time_test_needs_is_more_than_or_is_less_than() {
    let text = "<Sequence>\n  <IfTime since=\"T\"> <enemy_visible/> </IfTime>\n</Sequence>";
    let load = load_str(
        "t.xml",
        &format!(
            "<BehaviorTree><Timestamps><Timestamp name=\"T\" setOnEvent=\"OnEnemySeen\"/></Timestamps><Root>{text}</Root></BehaviorTree>"
        ),
        &catalog(),
        &LoadOptions::default(),
    );
    // One error: the compiler's `seconds` is not reported again.
    assert_eq!(
        only(&load),
        error(
            "t.xml:2:4",
            "`<IfTime>` needs `isMoreThan` or `isLessThan`",
            Some(("t", "t/IfTime[0]", "IfTime")),
            Some(
                "write isMoreThan=\"5\" (passes 5 seconds after `since` was set) or \
                 isLessThan=\"5\" (passes within 5 seconds of it)"
            ),
        )
    );
}

#[test]
fn unknown_fields_of_native_declarations_are_errors_at_the_field() {
    let json = r#"{"variables": [{"name": "A", "inital": true}],
 "signals": [{"event": "OnEnemySeen", "variable": "A", "valeu": true}],
 "timestamps": [{"name": "T", "event": "OnEnemySeen", "exclusive": "U"}],
 "trees": [{"name": "t", "root": {"type": "enemy_visible"}}]}"#;
    let load = load("t.json", json);
    assert_eq!(
        all(&load),
        [
            error(
                "t.json:1:30",
                "unknown field `inital`",
                None,
                Some("did you mean `initial`?")
            ),
            error(
                "t.json:2:56",
                "unknown field `valeu`",
                None,
                Some("did you mean `value`?")
            ),
            error(
                "t.json:3:55",
                "unknown field `exclusive`",
                None,
                Some("did you mean `exclusive_to`?")
            ),
        ]
    );
    let ron = r#"(variables: [(name: "A", intial: true)], trees: [(name: "t", root: (type: "enemy_visible"))])"#;
    assert_eq!(
        only(&load_str("t.ron", ron, &catalog(), &LoadOptions::default()))
            .location
            .as_deref(),
        Some("t.ron:1:26")
    );
    // Sections of the wrong shape, and values of the wrong type.
    let load = load_str(
        "t.json",
        r#"{"variables": {"A": true}, "signals": [{"event": "OnEnemySeen", "variable": "A", "value": "yes"}],
 "trees": [{"name": "t", "root": {"type": "enemy_visible"}}]}"#,
        &catalog(),
        &LoadOptions::default(),
    );
    let messages: Vec<String> = all(&load).into_iter().map(|d| d.message).collect();
    assert_eq!(
        messages,
        [
            "`variables` must be a list, not a map",
            "`value` must be true or false, not a string",
        ]
    );
}

#[test]
fn stimuli_are_named_declared_and_timed() {
    let text = r#"{"stimuli": [
  {"name": "Hit", "seconds": 2},
  {"name": "Hit", "seconds": 1.5},
  {"name": "Invited", "seconds": -1},
  {"name": "Greeted", "seconds": "soon"},
  {"name": "Waved"},
  {"seconds": 1, "nmae": "Bowed"}
],
 "trees": [{"name": "t", "root": {"type": "Sequence", "children": [
  {"type": "PostStimulus", "params": {"stimulus": "Hti"}},
  {"type": "PostStimulus", "params": {"stimulus": "Kicked", "data": 3}}
]}}]}"#;
    let load = load("t.json", text);
    assert_eq!(
        all(&load),
        [
            error(
                "t.json:3:12",
                "stimulus `Hit` is declared twice",
                None,
                Some(
                    "it is first declared at t.json:2:12; a load's files share one set of declarations"
                ),
            ),
            error(
                "t.json:4:34",
                "a stimulus's `seconds` must be from 0 to 3.4028235e38, not -1",
                None,
                None,
            ),
            error(
                "t.json:5:34",
                "a stimulus's `seconds` must be a number of seconds, not a string",
                None,
                None,
            ),
            error("t.json:6:19", "missing field `seconds`", None, None),
            error(
                "t.json:7:18",
                "unknown field `nmae`",
                None,
                Some("did you mean `name`?")
            ),
            error(
                "t.json:10:51",
                "parameter `stimulus` of `PostStimulus`: no stimulus is declared as `Hti`",
                Some(("t", "t/PostStimulus[0]", "PostStimulus")),
                Some("did you mean `Hit`?"),
            ),
            error(
                "t.json:11:51",
                "parameter `stimulus` of `PostStimulus`: no stimulus is declared as `Kicked`",
                Some(("t", "t/PostStimulus[1]", "PostStimulus")),
                Some("declare it in the tree's stimuli (JSON, RON: `stimuli`)"),
            ),
        ]
    );
}

#[test]
fn stimuli_past_the_limit_are_reported_at_the_name() {
    let stimuli: Vec<String> = (0..33)
        .map(|i| format!(r#"(name: "s{i}", seconds: 1)"#))
        .collect();
    let text = format!(
        "(stimuli: [{}],\n trees: [(name: \"t\", root: (type: \"enemy_visible\"))])",
        stimuli.join(",\n  ")
    );
    let load = load("t.ron", &text);
    assert_eq!(
        only(&load),
        error(
            "t.ron:33:10",
            "stimulus `s32` is past the limit: a tree declares at most 32 stimuli (an agent's stimulus flags are 32 bits)",
            None,
            None,
        )
    );
}

#[test]
fn declarations_in_a_file_of_one_node_say_where_they_go() {
    let load = load(
        "t.json",
        r#"{"type": "enemy_visible", "variables": [{"name": "A"}]}"#,
    );
    assert_eq!(
        only(&load),
        error(
            "t.json:1:27",
            "`variables` is a section of a tree file, not a field of a node",
            None,
            Some(
                r#"write the file as {"variables": [...], "trees": [{"name": ..., "root": ...}]}"#
            ),
        )
    );
}

// ---------------------------------------------------------------------------
// Code frames
// ---------------------------------------------------------------------------

#[test]
fn an_error_renders_as_a_code_frame() {
    let text = "{\"type\": \"Sequence\", \"children\": [\n\t{\"type\": \"enemy_visibel\"}\n]}\n";
    let load = load("guard.json", text);
    let want = "\
error: unknown node type `enemy_visibel`
 --> guard.json:2:11
  |
2 |     {\"type\": \"enemy_visibel\"}
  |              ^^^^^^^^^^^^^^^
  = node: guard/enemy_visibel[0] (enemy_visibel) in tree `guard`
  = help: did you mean `enemy_visible`?

1 error
";
    assert_eq!(load.diagnostics.render(&load.map, false), want);
}

#[test]
fn a_frame_on_line_ten_widens_its_gutter() {
    let text = format!("{}{{\"type\": \"Teleport\"}}", "\n".repeat(9));
    let load = load("t.json", &text);
    let want = "\
error: unknown node type `Teleport`
  --> t.json:10:10
   |
10 | {\"type\": \"Teleport\"}
   |          ^^^^^^^^^^
   = node: t (Teleport) in tree `t`
   = help: register a leaf named `Teleport`, or pass --stub-unknown to stub it
";
    let d = &load.diagnostics.items()[0];
    assert_eq!(d.render(&load.map, false), want);
}

#[test]
fn a_frame_without_a_place_has_only_its_notes() {
    let options = LoadOptions {
        main: Some("other".into()),
        ..LoadOptions::default()
    };
    let load = load_str(
        "t.json",
        r#"{"type": "enemy_visible"}"#,
        &catalog(),
        &options,
    );
    assert_eq!(
        load.diagnostics.render(&load.map, false),
        "error: no tree is named `other`\n\n1 error\n"
    );
}

#[test]
fn colour_paints_the_severity() {
    let load = load("t.json", r#"{"type": "Teleport"}"#);
    let coloured = load.diagnostics.render(&load.map, true);
    assert!(
        coloured.starts_with("\x1b[1;31merror\x1b[0m"),
        "{coloured:?}"
    );
}

// ---------------------------------------------------------------------------
// No input panics
// ---------------------------------------------------------------------------

/// Checks what any load must hold: no error without an explanation, every
/// placed diagnostic at a real place, every frame renderable.
/// The `tree_text` fuzz target's check of a load (it panics on a bug,
/// which proptest reports with the case).
fn check_sane(load: &Load) -> Result<(), TestCaseError> {
    treebeard_fuzzing::tree_text::check_load(load);
    Ok(())
}

/// One edit of a file's bytes.
#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, Vec<u8>),
    Replace(usize, u8),
    Copy(usize, usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![
        prop::sample::select(b"{}[]():,\"'\\/*-.0123456789eE+ \n\tnulltrueallNoneSome".to_vec()),
        any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), 1..8usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<usize>(), prop::collection::vec(byte.clone(), 1..4))
            .prop_map(|(at, b)| Edit::Insert(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Edit::Replace(at, b)),
        (any::<usize>(), any::<usize>(), 1..40usize)
            .prop_map(|(from, to, n)| Edit::Copy(from, to, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let len = bytes.len().max(1);
    match edit {
        Edit::Delete(at, n) => {
            let at = at % len;
            let end = (at + n).min(bytes.len());
            if at < end {
                bytes.drain(at..end);
            }
        }
        Edit::Insert(at, b) => {
            let at = at % (bytes.len() + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Edit::Replace(at, b) => {
            if !bytes.is_empty() {
                let at = at % bytes.len();
                bytes[at] = *b;
            }
        }
        Edit::Copy(from, to, n) => {
            if !bytes.is_empty() {
                let from = from % bytes.len();
                let end = (from + n).min(bytes.len());
                let piece = bytes[from..end].to_vec();
                let to = to % (bytes.len() + 1);
                bytes.splice(to..to, piece);
            }
        }
        Edit::Truncate(at) => bytes.truncate(at % len),
    }
}

fn mutated(name: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec(edit(), 1..6).prop_map(move |edits| {
        let mut bytes = data(name).into_bytes();
        for e in &edits {
            apply(&mut bytes, e);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Text made of the pieces of tree files.
fn tree_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            "(",
            ")",
            ":",
            ",",
            "\"",
            " ",
            "\n",
            "\"type\"",
            "type",
            "\"children\"",
            "children",
            "\"params\"",
            "params",
            "\"trees\"",
            "trees",
            "\"name\"",
            "name",
            "\"root\"",
            "root",
            "\"main\"",
            "\"tree\"",
            "\"succeed\"",
            "\"fail\"",
            "\"all\"",
            "\"Sequence\"",
            "\"Concurrent\"",
            "\"SubTree\"",
            "\"Patrol\"",
            "\"speed\"",
            "\"x\"",
            "\"enemy_visible\"",
            "1",
            "-2.5",
            "null",
            "true",
            "()",
            "None",
            "Some(",
            "//",
            "/*",
            "*/",
            "\u{e9}",
            "\u{feff}",
            "\t",
            "\\",
            "'",
        ]),
        0..80,
    )
    .prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_text_never_panics(
        text in prop_oneof![any::<String>(), tree_like()],
        name in prop::sample::select(vec!["t.json", "t.ron", "t"]),
    ) {
        check_sane(&load(name, &text))?;
    }

    #[test]
    fn mutated_json_files_never_panic(text in mutated("broken.json")) {
        check_sane(&load("t.json", &text))?;
    }

    #[test]
    fn mutated_ron_files_never_panic(text in mutated("broken.ron")) {
        check_sane(&load("t.ron", &text))?;
    }

    #[test]
    fn mutated_good_files_never_panic(
        text in prop_oneof![mutated("guard.json"), mutated("guard.ron")],
        name in prop::sample::select(vec!["t.json", "t.ron"]),
    ) {
        check_sane(&load(name, &text))?;
    }

    #[test]
    fn mutated_files_with_declarations_and_scripts_never_panic(
        (name, text) in prop_oneof![
            mutated("../declarations/guard.json").prop_map(|t| ("t.json", t)),
            mutated("../declarations/guard.ron").prop_map(|t| ("t.ron", t)),
            mutated("../declarations/guard.xml").prop_map(|t| ("t.xml", t)),
            mutated("../declarations/main.xml").prop_map(|t| ("m.xml", t)),
        ],
    ) {
        check_sane(&load(name, &text))?;
    }
}

#[test]
fn a_gate_that_admits_nobody_is_an_error_at_its_max() {
    let json = r#"{"type": "Gate", "params": {"max": 0}, "children": [{"type": "enemy_visible"}]}"#;
    let ron = r#"(type: "Gate", params: {"max": 0}, children: [(type: "enemy_visible")])"#;
    let mbt = r#"<LimitConcurrentUsers max="0"><enemy_visible/></LimitConcurrentUsers>"#;
    for (name, text, at) in [
        ("g.json", json, "g.json:1:36"),
        ("g.ron", ron, "g.ron:1:32"),
        ("g.xml", mbt, "g.xml:1:28"),
    ] {
        assert_eq!(
            only(&load(name, text)),
            error(
                at,
                "parameter `max` of `Gate`: 0 would admit no agent",
                Some(("g", "g", "Gate")),
                Some("give at least 1"),
            ),
            "{name}"
        );
    }
    // Deeper in a tree, and with the other crowd node's mistakes.
    let load = load(
        "t.json",
        r#"{"type": "Sequence", "children": [
  {"type": "GlobalCooldown", "params": {"on_enter": true}, "children": [
    {"type": "Gate", "params": {"max": 0}, "children": [{"type": "enemy_visible"}]}
  ]},
  {"type": "Gate", "params": {"max": 1}, "children": []}
]}"#,
    );
    assert_eq!(
        all(&load),
        [
            error(
                "t.json:2:12",
                "`GlobalCooldown` needs parameter `seconds` (duration), which is not given",
                Some(("t", "t/GlobalCooldown[0]", "GlobalCooldown")),
                None,
            ),
            error(
                "t.json:3:40",
                "parameter `max` of `Gate`: 0 would admit no agent",
                Some(("t", "t/GlobalCooldown[0]/Gate[0]", "Gate")),
                Some("give at least 1"),
            ),
            error(
                "t.json:5:12",
                "`Gate` takes exactly 1 child, but has 0",
                Some(("t", "t/Gate[1]", "Gate")),
                None,
            ),
        ]
    );
}

#[test]
fn child_trees_with_one_name_are_errors_at_the_second() {
    // Two child trees of one connector with one name.
    let twice = r#"{"type": "ChildTree", "name": "use", "children": [
  {"type": "enemy_visible", "name": "look"},
  {"type": "enemy_visible", "name": "look"}
]}"#;
    let seen = only(&load("c.json", twice));
    assert_eq!(seen.location.as_deref(), Some("c.json:3:12"), "{seen:?}");
    assert!(
        seen.message
            .contains("this connector offers two child trees named `look`"),
        "{seen:?}"
    );
    // Two connectors offering different trees under one name.
    let differ = r#"{"type": "Sequence", "children": [
  {"type": "ChildTree", "name": "left", "children": [{"type": "enemy_visible", "name": "bench"}]},
  {"type": "ChildTree", "name": "right", "children": [
    {"type": "Inverter", "name": "bench", "children": [{"type": "enemy_visible"}]}
  ]}
]}"#;
    let seen = only(&load("d.json", differ));
    assert_eq!(seen.location.as_deref(), Some("d.json:4:14"), "{seen:?}");
    assert!(
        seen.message.contains("the child tree `bench` differs"),
        "{seen:?}"
    );
}
