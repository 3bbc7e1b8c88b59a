//! Disassembly: one line per item between a header and a capacity line,
//! nesting shown by dots, leaves with their names, typed named parameters
//! and slots, nodes with their sources.

mod common;

use common::{build, catalog, creature, decorated, typed};
use treebeard_shape::tree::{act, concurrent, cond, priority, sequence};
use treebeard_shape::{NodeIdx, Options, Shape, Source, compile_with};

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
fn leaves_show_their_name_and_named_params() {
    let shape = build(&creature());
    let lines = lines(&shape);
    assert!(lines[3].contains("  enemy_visible  "), "{}", lines[3]);
    assert!(
        lines[7].contains("  hunger_above(threshold=50)  "),
        "{}",
        lines[7]
    );
    assert!(lines[11].contains("  Walk(speed=-3)  "), "{}", lines[11]);
    assert!(lines[13].contains("  MoveTo(x=1, y=2)  "), "{}", lines[13]);
}

#[test]
fn int_params_print_as_signed_decimals_however_large() {
    let shape = build(&act("MoveTo").param(1i64 << 40).param(i64::MIN));
    let payload = shape.disassemble().payload(NodeIdx::ROOT);
    assert_eq!(payload, "MoveTo(x=1099511627776, y=-9223372036854775808)");
}

#[test]
fn scalar_params_print_as_their_types_read_them() {
    let shape = build(&typed());
    let configure = shape.find("Configure").unwrap();
    assert_eq!(
        shape.disassemble().payload(configure),
        r#"Configure(count=-7, ratio=-1.25, loud=true, wait=1.5s, label="hello", gait=sneak)"#
    );
}

#[test]
fn field_params_print_the_field_name_in_braces() {
    let shape = build(&typed());
    let dis = shape.disassemble();
    let remember = shape.find("Remember").unwrap();
    assert_eq!(
        dis.payload(remember),
        r#"Remember(into={target}, text="note", flag=false)"#
    );
}

#[test]
fn input_literals_print_their_constant_not_its_offset() {
    let shape = build(&typed());
    let dis = shape.disassemble();
    assert_eq!(
        dis.payload(NodeIdx::new(1)),
        "Compare(left={hunger}, right=-0.5)"
    );
    assert_eq!(
        dis.payload(NodeIdx::new(2)),
        "Compare(left=-12, right={speed})"
    );
}

#[test]
fn persistent_leaves_show_their_slot() {
    let shape = build(&creature());
    let dis = shape.disassemble();
    let counter = shape.find("Counter").unwrap();
    let timer = shape.find("Timer").unwrap();
    assert_eq!(dis.payload(counter), "Counter [persistent 0]");
    assert_eq!(dis.payload(timer), "Timer(seconds=2.5) [persistent 1]");
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

#[test]
fn selector_and_decorators_nest_like_other_deciders() {
    let shape = build(&decorated());
    let lines = lines(&shape);
    let kinds: Vec<&str> = lines[1..=shape.len()]
        .iter()
        .map(|l| kind_column(l))
        .collect();
    let want = [
        "Selector",
        ". Inverter",
        ". . Condition",
        ". ForceSuccess",
        ". . Deferred",
        ". ForceFailure",
        ". . Sequence",
        ". . . Action",
        ". . . Action",
        ". Inverter",
        ". . ForceSuccess",
        ". . . Selector",
        ". . . . Action",
    ];
    assert_eq!(kinds, want);
    for i in [0, 1, 3, 5, 9, 10] {
        assert_eq!(shape.disassemble().payload(NodeIdx::new(i)), "", "{i}");
    }
    assert!(
        lines[2].contains(". Inverter                  3  "),
        "{}",
        lines[2]
    );
}

#[test]
fn sources_print_as_file_line_column_after_the_node() {
    let tree = sequence([
        act("Shoot").at(Source::new(0, 3, 5)),
        act("Eat"),
        act("Counter").at(Source::new(1, 10, 2)),
    ])
    .at(Source::new(0, 1, 1));
    let options = Options {
        files: vec!["a.tree".into(), "lib/b.tree".into()],
        ..Options::default()
    };
    let shape = compile_with(&tree, &catalog(), &options).unwrap();
    let lines = lines(&shape);
    assert!(
        lines[1].ends_with("  Sequence (id 0)  a.tree:1:1"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].ends_with("  Shoot (id 1)  a.tree:3:5"),
        "{}",
        lines[2]
    );
    assert!(lines[3].ends_with("  Eat (id 2)"), "{}", lines[3]);
    assert!(
        lines[4].ends_with("  Counter (id 3)  lib/b.tree:10:2"),
        "{}",
        lines[4]
    );
}
