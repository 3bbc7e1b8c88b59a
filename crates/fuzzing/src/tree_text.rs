//! Target `tree_text`: tree files in every format.
//!
//! The first byte picks the format (JSON, RON, MBT XML, BehaviorTree.CPP
//! XML) and whether unknown leaves are stubbed; the rest is the file's text
//! (invalid UTF-8 is replaced, as a reader of files would). Loading must
//! give a tree exactly when it reports no error, and every error must have
//! a place inside the file; rendering the report must not panic.

use crate::tape::Tape;
use treebeard_load::{Load, LoadOptions, load_str};
use treebeard_shape::{Catalog, FieldDecl, FieldType, LeafSchema, ParamType};

/// The file names that choose the formats.
const NAMES: [&str; 4] = ["t.json", "t.ron", "t.xml", "t.btcpp.xml"];

/// A catalog with a few leaves, fields and events of each sort, so that
/// files using them resolve.
fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Int))
        .field(FieldDecl::new("goal", FieldType::Str))
        .field(FieldDecl::new("pace", FieldType::Float))
        .field(FieldDecl::new("alert", FieldType::Bool))
        .event("OnEnemySeen")
        .declare("enemy_visible", LeafSchema::condition())
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Int),
        )
        .declare("Patrol", LeafSchema::deferred())
        .declare("Shoot", LeafSchema::action());
    c
}

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let mut tape = Tape::new(data);
    let choice = tape.byte();
    let name = NAMES[usize::from(choice) % NAMES.len()];
    let text = String::from_utf8_lossy(tape.rest());
    let options = LoadOptions {
        stub_unknown: choice & 4 != 0,
        ..LoadOptions::default()
    };
    check_load(&load_str(name, &text, &catalog(), &options));
}

/// Checks what a load answered: a tree exactly when no error, every error
/// at a place inside its file (`file:line:column`), reports that render;
/// panics only on a bug (the loader's tests call it too).
pub fn check_load(load: &Load) {
    assert_eq!(
        load.loaded.is_some(),
        !load.diagnostics.has_errors(),
        "a load fails exactly when it explains why:\n{}",
        load.diagnostics.render(&load.map, false)
    );
    for d in load.diagnostics.items() {
        let Some(span) = d.span else { continue };
        let file = &load.map.files()[span.file.0 as usize];
        assert!(
            span.start <= span.end && span.end as usize <= file.text().len(),
            "a span inside its file: {d:?}"
        );
        let (line, column) = file.line_column(span.start as usize);
        assert!(file.offset(line, column).is_some(), "{d:?}");
        assert_eq!(
            d.location(&load.map),
            Some(format!("{}:{line}:{column}", file.name())),
            "a located error: {d:?}"
        );
    }
    let _ = load.diagnostics.render(&load.map, false);
    let _ = load.diagnostics.render(&load.map, true);
}
