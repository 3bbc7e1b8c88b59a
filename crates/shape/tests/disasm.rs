//! Disassembly: one line per item between a header and a capacity line,
//! nesting shown by dots, leaves with their names, parameters and slots.

mod common;

use common::{build, creature};
use treebeard_shape::tree::{act, concurrent, cond, priority, sequence};
use treebeard_shape::{NodeIdx, Shape};

fn lines(shape: &Shape) -> Vec<String> {
    shape
        .disassemble()
        .to_string()
        .lines()
        .map(String::from)
        .collect()
}

/// The kind column of an item line: dots for nesting, then the kind.
fn kind_column(line: &str) -> &str {
    line[27..49].trim_end()
}

#[test]
fn one_line_per_item_between_header_and_capacity() {
    let shape = build(&creature());
    let lines = lines(&shape);
    assert_eq!(lines.len(), shape.len() + 2);
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["off", "item", "kind", "end", "payload", "node"]);
    assert!(lines.last().unwrap().starts_with("capacity: "));
}

#[test]
fn item_lines_start_with_offset_and_raw_bits() {
    let shape = build(&creature());
    for (i, line) in lines(&shape)[1..=shape.len()].iter().enumerate() {
        let bits = shape.items()[i].bits();
        let start = format!("{i:>5}  {bits:#018x}  ");
        assert!(line.starts_with(&start), "{line}");
    }
}

#[test]
fn nesting_is_shown_by_dots() {
    let shape = build(&creature());
    let kinds: Vec<String> = lines(&shape)[1..=shape.len()]
        .iter()
        .map(|l| kind_column(l).to_owned())
        .collect();
    let want = [
        "PrioritySelector",
        ". Sequence",
        ". . Condition",
        ". . Action",
        ". . Action",
        ". Sequence",
        ". . Condition",
        ". . Deferred",
        ". . Action",
        ". Concurrent",
        ". . Action",
        ". . Deferred",
        ". Deferred",
    ];
    assert_eq!(kinds, want);
}

#[test]
fn dots_return_to_the_level_after_deciders_close_together() {
    let tree = sequence([
        priority([sequence([concurrent([cond("ready")])])]),
        act("Shoot"),
    ]);
    let shape = build(&tree);
    let lines = lines(&shape);
    assert_eq!(kind_column(&lines[5]), ". . . . Condition");
    assert_eq!(kind_column(&lines[6]), ". Action");
}

#[test]
fn deciders_show_their_end_and_concurrent_thresholds() {
    let shape = build(&creature());
    let lines = lines(&shape);
    assert!(
        lines[1].contains("PrioritySelector           13  "),
        "{}",
        lines[1]
    );
    assert!(
        lines[10].contains(" 12  succeed_at=2 fail_at=1 "),
        "{}",
        lines[10]
    );
}

#[test]
fn leaves_show_their_name_and_params() {
    let shape = build(&creature());
    let lines = lines(&shape);
    assert!(lines[3].contains("  enemy_visible  "), "{}", lines[3]);
    assert!(lines[7].contains("  hunger_above(50)  "), "{}", lines[7]);
    assert!(lines[11].contains("  Walk(-3)  "), "{}", lines[11]);
    assert!(lines[13].contains("  MoveTo(1, 2)  "), "{}", lines[13]);
}

#[test]
fn large_param_words_print_in_hex() {
    let shape = build(&act("MoveTo").param(1u64 << 40).param(-(1i64 << 31)));
    let payload = shape.disassemble().payload(NodeIdx::ROOT);
    assert_eq!(payload, "MoveTo(0x10000000000, -2147483648)");
}

#[test]
fn persistent_leaves_show_their_slot() {
    let shape = build(&creature());
    let dis = shape.disassemble();
    let counter = shape.find("Counter").unwrap();
    let timer = shape.find("Timer").unwrap();
    assert_eq!(dis.payload(counter), "Counter [persistent 0]");
    let timer_words = format!("Timer({:#x}) [persistent 1]", 2.5f64.to_bits());
    assert_eq!(dis.payload(timer), timer_words);
    assert_eq!(dis.payload(shape.find("Shoot").unwrap()), "Shoot");
    let lines = lines(&shape);
    let marked = lines.iter().filter(|l| l.contains("[persistent")).count();
    assert_eq!(marked, 2);
}

#[test]
fn plain_deciders_have_an_empty_payload() {
    let shape = build(&creature());
    assert_eq!(shape.disassemble().payload(NodeIdx::ROOT), "");
}

#[test]
fn node_column_shows_name_and_id() {
    let shape = build(&sequence([act("Eat").named("dinner").with_id(42)]));
    let lines = lines(&shape);
    assert!(lines[1].ends_with("  Sequence (id 0)"), "{}", lines[1]);
    assert!(lines[2].ends_with("  dinner (id 42)"), "{}", lines[2]);
}

#[test]
fn capacity_line_reports_the_spec() {
    let shape = build(&creature());
    let last = lines(&shape).pop().unwrap();
    assert_eq!(
        last,
        "capacity: guard depth 2, decider states 2, action states 2 (1 deferred), persistent 2"
    );
}

#[test]
fn single_leaf_shape() {
    let shape = build(&cond("ready"));
    let lines = lines(&shape);
    assert_eq!(lines.len(), 3);
    assert_eq!(kind_column(&lines[1]), "Condition");
    assert_eq!(
        lines[2],
        "capacity: guard depth 0, decider states 0, action states 0 (0 deferred), persistent 0"
    );
}
