//! The log table: the builder's messages compiled beside the stream, its
//! validation, and that it leaves the runnable shape alone.

mod common;

use common::{build, catalog, creature};
use treebeard_shape::tree::{act, cond, sequence};
use treebeard_shape::{Invalid, LogEvent, LogMessages, NodeIdx, NodeLogs, Unbuildable, compile};

fn messages(pairs: &[(LogEvent, &str)]) -> LogMessages {
    let mut m = LogMessages::default();
    for &(e, text) in pairs {
        m.set(e, text);
    }
    m
}

#[test]
fn builder_messages_compile_into_a_sorted_table() {
    let tree = sequence([
        cond("ready").log(LogEvent::Failure, "not ready"),
        act("Shoot"),
        act("Eat")
            .log(LogEvent::Start, "eating")
            .log(LogEvent::Success, "fed"),
    ])
    .log(LogEvent::Start, "begin");
    let shape = build(&tree);
    let table: Vec<(u32, LogMessages)> = shape
        .logs()
        .iter()
        .map(|l| (l.node, l.messages.clone()))
        .collect();
    assert_eq!(
        table,
        [
            (0, messages(&[(LogEvent::Start, "begin")])),
            (1, messages(&[(LogEvent::Failure, "not ready")])),
            (
                3,
                messages(&[(LogEvent::Start, "eating"), (LogEvent::Success, "fed")])
            ),
        ]
    );
    assert!(shape.logs_of(NodeIdx::new(2)).is_none());
    assert_eq!(
        shape
            .logs_of(NodeIdx::new(3))
            .unwrap()
            .get(LogEvent::Success),
        Some("fed")
    );
}

#[test]
fn messages_change_nothing_a_tick_reads() {
    let plain = build(&creature());
    let mut tree = creature();
    tree = tree.log(LogEvent::Start, "go");
    let logged = build(&tree);
    assert_eq!(logged.items(), plain.items());
    assert_eq!(logged.param_table(), plain.param_table());
    assert_eq!(logged.spec(), plain.spec());
    assert_eq!(logged.nodes(), plain.nodes());
    assert_ne!(logged, plain, "the table is part of the shape");
}

#[test]
fn an_empty_message_is_an_error_at_its_node() {
    let tree = sequence([act("Shoot"), act("Eat").log(LogEvent::Success, "")]);
    let e = compile(&tree, &catalog()).unwrap_err();
    let [problem] = e.problems() else {
        panic!("{e}")
    };
    assert_eq!(problem.path(), "Sequence/Eat[1]");
    let Unbuildable::Invalid(v) = problem.what() else {
        panic!("{e}")
    };
    assert_eq!(v.item(), Some(2));
    let reason = "has an empty message";
    assert_eq!(v.what(), &Invalid::Log { index: 0, reason });
    assert!(
        e.to_string()
            .contains("log table entry 0 has an empty message"),
        "{e}"
    );
}

/// The parts of a three-item shape with `logs` as its log table, validated.
fn validate(logs: Vec<NodeLogs>) -> Result<(), (Option<u32>, Invalid)> {
    let mut parts = build(&sequence([act("Shoot"), act("Eat")])).into_parts();
    parts.logs = logs;
    parts
        .validate()
        .map(|_| ())
        .map_err(|e| (e.item(), e.what().clone()))
}

fn entry(node: u32, pairs: &[(LogEvent, &str)]) -> NodeLogs {
    NodeLogs {
        node,
        messages: messages(pairs),
    }
}

#[test]
fn the_validator_refuses_malformed_tables() {
    let start = [(LogEvent::Start, "s")];
    assert_eq!(validate(vec![entry(0, &start), entry(2, &start)]), Ok(()));
    let past = validate(vec![entry(3, &start)]);
    let reason = "names an item past the stream";
    assert_eq!(past, Err((None, Invalid::Log { index: 0, reason })));
    let twice = validate(vec![entry(1, &start), entry(1, &start)]);
    assert!(
        matches!(twice, Err((None, Invalid::Log { index: 1, .. }))),
        "{twice:?}"
    );
    let unsorted = validate(vec![entry(2, &start), entry(1, &start)]);
    assert!(
        matches!(unsorted, Err((None, Invalid::Log { index: 1, .. }))),
        "{unsorted:?}"
    );
    let none = validate(vec![entry(1, &[])]);
    let reason = "has no message";
    assert_eq!(none, Err((Some(1), Invalid::Log { index: 0, reason })));
}
