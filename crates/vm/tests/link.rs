//! Linking a stored shape against leaves whose signatures changed (U7): the
//! mismatch is reported precisely, never run.

use treebeard_shape::tree::{act, sequence};
use treebeard_shape::{Catalog, FieldDecl, FieldType, LeafSchema, ParamType, Shape, compile};
use treebeard_vm::{Leaves, LinkError, Program, Status};

/// A shape compiled by an older build, stored as bytes and read back.
fn stored_shape() -> Shape {
    let mut old = Catalog::new();
    old.declare(
        "Walk",
        LeafSchema::action().param("speed", ParamType::Float),
    )
    .declare("Idle", LeafSchema::action());
    let shape = compile(&sequence([act("Walk").param(1.5), act("Idle")]), &old).unwrap();
    Shape::from_bytes(&shape.to_bytes()).unwrap()
}

#[test]
fn a_renamed_parameter_is_reported_with_both_signatures() {
    let mut leaves = Leaves::<()>::new();
    leaves
        .action("Walk", |_, _| Status::Success)
        .param("velocity", ParamType::Float);
    leaves.action("Idle", |_, _| Status::Success);
    let e = Program::link(stored_shape(), &leaves).unwrap_err();
    assert_eq!(
        e,
        LinkError::Params {
            name: "Walk".into(),
            compiled: vec!["speed: float".into()],
            declared: vec!["velocity: float".into()],
        }
    );
    assert_eq!(
        e.to_string(),
        "the shape was compiled with parameters (speed: float) for `Walk`, but the table declares (velocity: float); compile it again"
    );
}

#[test]
fn a_changed_type_a_missing_leaf_and_a_changed_kind_are_reported() {
    let mut leaves = Leaves::<()>::new();
    leaves
        .action("Walk", |_, _| Status::Success)
        .param("speed", ParamType::Int);
    leaves.action("Idle", |_, _| Status::Success);
    let e = Program::link(stored_shape(), &leaves).unwrap_err();
    assert!(
        e.to_string().contains("(speed: float)") && e.to_string().contains("(speed: int)"),
        "{e}"
    );

    let mut leaves = Leaves::<()>::new();
    leaves
        .action("Walk", |_, _| Status::Success)
        .param("speed", ParamType::Float);
    let e = Program::link(stored_shape(), &leaves).unwrap_err();
    assert!(
        matches!(e, LinkError::Missing { ref name, .. } if &**name == "Idle"),
        "{e}"
    );

    let mut leaves = Leaves::<()>::new();
    leaves
        .action("Walk", |_, _| Status::Success)
        .param("speed", ParamType::Float);
    leaves.condition("Idle", |_, _| true);
    let e = Program::link(stored_shape(), &leaves).unwrap_err();
    assert!(matches!(e, LinkError::Kind { .. }), "{e}");
}

#[test]
fn changed_blackboard_fields_are_reported() {
    let mut old = Catalog::new();
    old.declare(
        "Look",
        LeafSchema::action().param("at", ParamType::Input(FieldType::Str)),
    )
    .field(FieldDecl::new("target", FieldType::Str));
    let shape = compile(
        &act("Look").param(treebeard_shape::params::field("target")),
        &old,
    )
    .unwrap();
    let mut leaves = Leaves::<()>::new();
    leaves
        .action("Look", |_, _| Status::Success)
        .param("at", ParamType::Input(FieldType::Str));
    leaves.fields(&[FieldDecl::new("target", FieldType::Int)]);
    let e = Program::link(shape, &leaves).unwrap_err();
    assert_eq!(e, LinkError::Fields { index: 0 });
}
