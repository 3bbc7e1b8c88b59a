//! `treebeard export --btcpp`: a tree file of any dialect as
//! BehaviorTree.CPP XML. (That the export loads back as the same tree, for
//! every tree of the scenario corpus BT.CPP can express, is
//! `crates/scenario/tests/export.rs`.)

mod common;

use common::{TempDir, tb_in as tb};

/// A RON tree of kinds BT.CPP has: a memory-less selector, a loop with
/// `again`, a wait and a built-in leaf.
const EXPRESSIBLE: &str = r#"(type: "Selector", name: "root", children: [
    (type: "Condition", name: "ready", params: {"test": "ready"}),
    (type: "Loop", name: "thrice", params: {"count": 3, "again": true}, children: [
        (type: "Sequence", name: "step", children: [
            (type: "Wait", name: "pause", params: {"seconds": 0.25}),
            (type: "WaitTicks", name: "walk", params: {"ticks": 2}),
        ]),
    ]),
])
"#;

#[test]
fn a_ron_tree_exports_as_bt_cpp_xml_that_checks_clean() {
    let dir = TempDir::new("export-ron");
    std::fs::write(dir.path("walk.ron"), EXPRESSIBLE).expect("writable");
    let (code, xml, stderr) = tb(dir.root(), &["export", "--btcpp", "walk.ron"]);
    assert_eq!(code, 0, "{stderr}");
    for line in [
        r#"<root BTCPP_format="4" main_tree_to_execute="walk">"#,
        r#"<Fallback name="root">"#,
        r#"<Repeat name="thrice" num_cycles="3">"#,
        r#"<Sleep name="pause" msec="250"/>"#,
        r#"<Action ID="WaitTicks" name="walk" ticks="2"/>"#,
        r#"<Condition ID="Condition" name="ready" test="ready"/>"#,
        r#"<input_port name="ticks" type="int"/>"#,
    ] {
        assert!(xml.contains(line), "{line} in\n{xml}");
    }
    let (code, _, stderr) = tb(
        dir.root(),
        &[
            "export", "--btcpp", "walk.ron", "-o", "walk.xml", "--name", "Walk",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("walk.ron: written to walk.xml"), "{stderr}");
    let written = std::fs::read_to_string(dir.path("walk.xml")).expect("written");
    assert!(written.contains(r#"<BehaviorTree ID="Walk">"#), "{written}");
    let (code, _, stderr) = tb(dir.root(), &["check", "walk.xml"]);
    assert_eq!(code, 0, "the export loads: {stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn treebeard_s_own_kinds_are_written_as_treebeard_elements_that_load_back() {
    let dir = TempDir::new("export-cooldown");
    std::fs::write(
        dir.path("rest.ron"),
        r#"(type: "Sequence", name: "root", children: [
    (type: "Cooldown", name: "breather", params: {"seconds": 2.0}, children: [
        (type: "Succeed", name: "rest"),
    ]),
])
"#,
    )
    .expect("writable");
    let (code, xml, stderr) = tb(
        dir.root(),
        &["export", "--btcpp", "rest.ron", "-o", "rest.xml"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(xml.is_empty());
    let xml = std::fs::read_to_string(dir.path("rest.xml")).expect("written");
    for line in [
        r#"<treebeard.Cooldown name="breather" seconds="2s">"#,
        r#"</treebeard.Cooldown>"#,
        r#"<Decorator ID="treebeard.Cooldown">"#,
        r#"<input_port name="seconds" type="double"/>"#,
    ] {
        assert!(xml.contains(line), "{line} in\n{xml}");
    }
    let (code, _, stderr) = tb(dir.root(), &["check", "rest.xml"]);
    assert_eq!(code, 0, "the export loads: {stderr}");
}

#[test]
fn what_a_tree_declares_is_written_in_treebeard_sections_that_load_back() {
    let dir = TempDir::new("export-memory");
    std::fs::write(
        dir.path("alert.json"),
        r#"{
  "variables": [{"name": "Alert", "initial": true}],
  "trees": [{"name": "alert", "root": {"type": "AssertCondition", "name": "calm", "params": {"condition": "!Alert"}}}]
}
"#,
    )
    .expect("writable");
    let (code, xml, stderr) = tb(dir.root(), &["export", "--btcpp", "alert.json"]);
    assert_eq!(code, 0, "{stderr}");
    for line in [
        "<treebeard.Variables>",
        r#"<Variable name="Alert" value="true"/>"#,
        r#"<treebeard.AssertCondition name="calm" condition="!Alert"/>"#,
    ] {
        assert!(xml.contains(line), "{line} in\n{xml}");
    }
    std::fs::write(dir.path("alert.xml"), &xml).expect("writable");
    let (code, _, stderr) = tb(dir.root(), &["check", "alert.xml"]);
    assert_eq!(code, 0, "the export loads: {stderr}");
}
