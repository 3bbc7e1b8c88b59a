//! Helpers shared by the integration tests: a leaf catalog, sample trees,
//! hand-assembled shape parts, and (in [`wire`]) a test-side reading of the
//! byte format.

#![allow(dead_code)]

pub mod wire;

use std::time::Duration;
use treebeard_shape::params::field;
use treebeard_shape::tree::decider_of;
use treebeard_shape::tree::{
    Node, act, concurrent, cond, force_failure, force_success, inverter, priority, selector,
    sequence,
};
use treebeard_shape::{
    Catalog, Declarations, FLAG_PERSISTENT, FieldDecl, FieldType, Import, ImportParam, Kind,
    LeafSchema, NodeId, NodeInfo, Options, ParamRange, ParamType, Shape, ShapeItem, ShapeParts,
    compile, compile_with,
};

/// The leaves every compiled test tree may use, and the blackboard fields
/// `hunger` (int), `speed` (float), `alert` (bool) and `target` (string).
///
/// `Configure`, `Compare` and `Remember` take a parameter of every type:
///
/// | leaf | kind | parameters |
/// | --- | --- | --- |
/// | `Configure` | action | count int, ratio float, loud bool, wait duration, label string, gait walk\|run\|sneak |
/// | `Compare` | condition | left input int, right input float |
/// | `Remember` | deferred | into output string, text input string, flag input bool |
pub fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Int))
        .field(FieldDecl::new("speed", FieldType::Float))
        .field(FieldDecl::new("alert", FieldType::Bool))
        .field(FieldDecl::new("target", FieldType::Str));
    c.declare("ready", LeafSchema::condition())
        .declare("enemy_visible", LeafSchema::condition())
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Int),
        )
        .declare("Shoot", LeafSchema::action())
        .declare("Walk", LeafSchema::action().param("speed", ParamType::Int))
        .declare("Eat", LeafSchema::action())
        .declare("Counter", LeafSchema::action().persistent())
        .declare("Plan", LeafSchema::action().memory(2))
        .declare("Pace", LeafSchema::action().persistent().memory(3))
        .declare("FindFood", LeafSchema::deferred())
        .declare(
            "MoveTo",
            LeafSchema::deferred()
                .param("x", ParamType::Int)
                .param("y", ParamType::Int),
        )
        .declare(
            "Timer",
            LeafSchema::deferred()
                .param("seconds", ParamType::Float)
                .persistent(),
        )
        .declare(
            "Configure",
            LeafSchema::action()
                .param("count", ParamType::Int)
                .param("ratio", ParamType::Float)
                .param("loud", ParamType::Bool)
                .param("wait", ParamType::Duration)
                .param("label", ParamType::Str)
                .param("gait", ParamType::enumeration(&["walk", "run", "sneak"])),
        )
        .declare(
            "Compare",
            LeafSchema::condition()
                .param("left", ParamType::Input(FieldType::Int))
                .param("right", ParamType::Input(FieldType::Float)),
        )
        .declare(
            "Remember",
            LeafSchema::deferred()
                .param("into", ParamType::Output(FieldType::Str))
                .param("text", ParamType::Input(FieldType::Str))
                .param("flag", ParamType::Input(FieldType::Bool)),
        );
    c
}

/// Compiles `tree` against [`catalog`], panicking on errors.
pub fn build(tree: &Node) -> Shape {
    compile(tree, &catalog()).unwrap_or_else(|e| panic!("{e}"))
}

/// A small tree using every kind, parameters and persistent leaves.
pub fn creature() -> Node {
    priority([
        sequence([cond("enemy_visible"), act("Shoot"), act("Counter")]).named("fight"),
        sequence([cond("hunger_above").param(50), act("FindFood"), act("Eat")]).named("eat"),
        concurrent([act("Walk").param(-3), act("Timer").param(2.5f64)]).named("wander"),
        act("MoveTo").param(1).param(2),
    ])
}

/// A tree giving a parameter of every type: literals (negative ones
/// included), strings, an enumeration, a duration, input fields, input
/// literals stored as constants, and an output field.
pub fn typed() -> Node {
    sequence([
        cond("Compare").param(field("hunger")).param(-0.5),
        cond("Compare").param(-12).param(field("speed")),
        act("Configure")
            .param(-7)
            .param(-1.25)
            .param(true)
            .param(Duration::from_millis(1500))
            .param("hello")
            .param("sneak"),
        act("Remember")
            .param(field("target"))
            .param("note")
            .param(false),
    ])
}

/// A tree of the selector and the decorators.
pub fn decorated() -> Node {
    selector([
        inverter(cond("ready")),
        force_success(act("FindFood")),
        force_failure(sequence([act("Shoot"), act("Counter")])),
        inverter(force_success(selector([act("Eat")]))),
    ])
}

/// Sample trees of different structures, for round trips.
pub fn samples() -> Vec<Node> {
    vec![
        act("Shoot"),
        cond("ready"),
        act("Timer").param(9),
        sequence([cond("ready"), act("Shoot")]),
        creature(),
        concurrent([
            sequence([act("Counter"), act("Counter")]),
            priority([cond("ready"), act("FindFood")]),
            act("MoveTo").param(i64::MIN).param(0),
        ]),
        sequence([sequence([sequence([act("Eat").named("deep").with_id(77)])])]),
        decorated(),
        typed(),
        priority([typed(), decorated(), creature()]),
        sequence([act("Plan"), act("Counter"), act("Pace"), act("Plan")]),
    ]
}

/// [`catalog`], the int field `ally` (index 4) and the events
/// `OnEnemySeen` (0), `OnLostSightOfTarget` (1) and `Alarm` (2).
pub fn declared_catalog() -> Catalog {
    let mut c = catalog();
    c.field(FieldDecl::new("ally", FieldType::Int))
        .event("OnEnemySeen")
        .event("OnLostSightOfTarget")
        .event("Alarm");
    c
}

/// The variables `TargetVisible` (0, false) and `Fleeing` (1, true); two
/// signals setting `TargetVisible`; the timestamps `TargetSpotted` (0, set
/// by `OnEnemySeen`) and `TargetLost` (1, set by `OnLostSightOfTarget`),
/// exclusive to each other; the stimuli `Hit` (0, 2 s) and `Invited` (1,
/// 0.5 s).
pub fn declarations() -> Declarations {
    Declarations::new()
        .variable("TargetVisible", false)
        .variable("Fleeing", true)
        .signal("OnEnemySeen", "TargetVisible", true)
        .signal("OnLostSightOfTarget", "TargetVisible", false)
        .exclusive_timestamp("TargetSpotted", "OnEnemySeen", "TargetLost")
        .timestamp("TargetLost", "OnLostSightOfTarget")
        .stimulus("Hit", 2.0)
        .stimulus("Invited", 0.5)
}

/// [`declarations`] as compile options.
pub fn declared_options() -> Options {
    Options {
        declarations: declarations(),
        ..Options::default()
    }
}

/// The scripts of [`scripted`], in the order they are compiled (their
/// indices in the shape's script table). The first is an int; the others
/// are bools, and the fourth and fifth assign.
pub const SCRIPTS: [&str; 7] = [
    "alert = TargetVisible; hunger += 1",
    "hunger > 3 && !alert",
    "speed < 2.5",
    "Fleeing = true",
    "Fleeing = false",
    "TargetVisible",
    "!Fleeing || speed >= 1.0",
];

/// A sequence of the eleven kinds of the declarations and scripts, in tag
/// order (items 1, 2, 4, 5, 7, 9, 10, 12, 13, 14, 15; their children
/// between): Script, ScriptGate { Shoot }, AssertScript, ScriptWrapper {
/// Eat }, IfCondition { Walk(1) }, AssertCondition, IfTime { ready },
/// WaitUntilTime, WaitForEvent(Alarm), SendEvent(Alarm, to: {ally}),
/// PostStimulus(Invited, data: {ally}).
pub fn scripted() -> Node {
    sequence([
        decider_of(Kind::Script, []).arg("script", SCRIPTS[0]),
        decider_of(Kind::ScriptGate, [act("Shoot")]).arg("test", SCRIPTS[1]),
        decider_of(Kind::AssertScript, []).arg("test", SCRIPTS[2]),
        decider_of(Kind::ScriptWrapper, [act("Eat")])
            .arg("enter", SCRIPTS[3])
            .arg("exit", SCRIPTS[4]),
        decider_of(Kind::IfCondition, [act("Walk").param(1)]).arg("condition", SCRIPTS[5]),
        decider_of(Kind::AssertCondition, []).arg("condition", SCRIPTS[6]),
        decider_of(Kind::IfTime, [cond("ready")])
            .arg("since", "TargetSpotted")
            .arg("seconds", 2.5)
            .arg("less_than", true),
        decider_of(Kind::WaitUntilTime, [])
            .arg("since", "TargetLost")
            .arg("seconds", 1)
            .arg("or_never", true),
        decider_of(Kind::WaitForEvent, []).arg("event", "Alarm"),
        decider_of(Kind::SendEvent, [])
            .arg("event", "Alarm")
            .arg("to", field("ally")),
        decider_of(Kind::PostStimulus, [])
            .arg("stimulus", "Invited")
            .arg("data", field("ally")),
    ])
}

/// Compiles `tree` against [`declared_catalog`] with [`declarations`],
/// panicking on errors.
pub fn build_declared(tree: &Node) -> Shape {
    compile_with(tree, &declared_catalog(), &declared_options()).unwrap_or_else(|e| panic!("{e}"))
}

// Hand-assembled parts. The import tables are fixed:
//   Condition: 0 ready/0
//   Action:    0 act/0, 1 walk/1, 2 count/0 persistent
//   Deferred:  0 launch/0, 1 timer/0 persistent
// and the parameter table holds three words.

/// An import with `arity` integer parameters.
pub fn import(name: &str, arity: u8, persistent: bool) -> Import {
    Import {
        name: name.into(),
        params: (0..arity)
            .map(|i| ImportParam {
                name: format!("p{i}").into(),
                ty: ParamType::Int,
                default: None,
            })
            .collect(),
        persistent,
        memory: 0,
        scope: false,
    }
}

/// A sequence whose sub-stream ends at `end`.
pub fn seq(end: u32) -> ShapeItem {
    ShapeItem::decider(Kind::Sequence, end, 0, 0)
}

/// A priority selector whose sub-stream ends at `end`.
pub fn pri(end: u32) -> ShapeItem {
    ShapeItem::decider(Kind::PrioritySelector, end, 0, 0)
}

/// A concurrent decider with raw thresholds.
pub fn conc(end: u32, succeed_at: u16, fail_at: u16) -> ShapeItem {
    ShapeItem::decider(Kind::Concurrent, end, succeed_at, fail_at)
}

fn no_params() -> ParamRange {
    ParamRange::default()
}

/// The condition `ready`.
pub fn ready() -> ShapeItem {
    ShapeItem::leaf(Kind::Condition, 0, 0, no_params())
}

/// The action `act`.
pub fn action() -> ShapeItem {
    ShapeItem::leaf(Kind::Action, 0, 0, no_params())
}

/// The action `walk`, taking the parameter word at `offset`.
pub fn walk(offset: u32) -> ShapeItem {
    ShapeItem::leaf(Kind::Action, 0, 1, ParamRange { offset, len: 1 })
}

/// The persistent action `count`.
pub fn count() -> ShapeItem {
    ShapeItem::leaf(Kind::Action, FLAG_PERSISTENT, 2, no_params())
}

/// The deferred action `launch`.
pub fn launch() -> ShapeItem {
    ShapeItem::leaf(Kind::Deferred, 0, 0, no_params())
}

/// The persistent deferred action `timer`.
pub fn timer() -> ShapeItem {
    ShapeItem::leaf(Kind::Deferred, FLAG_PERSISTENT, 1, no_params())
}

/// Parts holding `items`, the fixed tables, and one node entry per item.
pub fn parts(items: Vec<ShapeItem>) -> ShapeParts {
    let nodes = (0..items.len())
        .map(|i| NodeInfo {
            name: format!("n{i}").into(),
            id: NodeId(i as u32),
            source: None,
        })
        .collect();
    ShapeParts {
        items,
        params: vec![7, 8, 9],
        imports: [
            vec![import("ready", 0, false)],
            vec![
                import("act", 0, false),
                import("walk", 1, false),
                import("count", 0, true),
            ],
            vec![import("launch", 0, false), import("timer", 0, true)],
            vec![],
        ],
        nodes,
        ..ShapeParts::default()
    }
}
