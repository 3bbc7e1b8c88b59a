//! Tree declarations (variables, signals, timestamps, stimuli) and the
//! eleven kinds that
//! use them and scripts: what the compiler makes of them, every problem it
//! reports with its message, the parameters' words and defaults, the
//! capacity they add, their disassembly, and the validator's refusal of
//! hand-made tables that do not hold together.

mod common;

use common::{SCRIPTS, build_declared, declarations, declared_catalog, scripted};
use treebeard_shape::params::{FIELD_REF, Mismatch, field};
use treebeard_shape::script::{self, Names, ScriptType};
use treebeard_shape::tree::{Node, NodeParam, act, cond, decider_of, sequence};
use treebeard_shape::{
    BuildError, Declarations, FieldType, Invalid, Kind, MAX_STIMULI, NodeIdx, Options, ParamType,
    Script, Shape, ShapeParts, Signal, SignalDecl, Source, Stimulus, Timestamp, Unbuildable,
    Variable, VariableDecl, compile_with,
};

// Items of `scripted()`.
const SCRIPT: u32 = 1;
const SCRIPT_GATE: u32 = 2;
const ASSERT_SCRIPT: u32 = 4;
const SCRIPT_WRAPPER: u32 = 5;
const IF_CONDITION: u32 = 7;
const ASSERT_CONDITION: u32 = 9;
const IF_TIME: u32 = 10;
const WAIT_UNTIL_TIME: u32 = 12;
const WAIT_FOR_EVENT: u32 = 13;
const SEND_EVENT: u32 = 14;
const POST_STIMULUS: u32 = 15;

fn compile(tree: &Node, declarations: Declarations) -> Result<Shape, BuildError> {
    let options = Options {
        declarations,
        ..Options::default()
    };
    compile_with(tree, &declared_catalog(), &options)
}

/// Compiles `tree` with `declarations`, expecting failure.
#[track_caller]
fn fail(tree: &Node, declarations: Declarations) -> BuildError {
    match compile(tree, declarations) {
        Ok(shape) => panic!("compiled:\n{}", shape.disassemble()),
        Err(e) => e,
    }
}

/// Compiles `tree` with the common declarations, expecting failure: the
/// first problem's what and message.
#[track_caller]
fn refused(tree: Node) -> (Unbuildable, String) {
    let e = fail(&tree, declarations());
    (e.what().clone(), e.problems()[0].to_string())
}

/// The declarations' problem with a tree that is otherwise fine: its path,
/// what and message.
#[track_caller]
fn declaration_problem(declarations: Declarations) -> (String, Unbuildable, String) {
    let e = fail(&act("Shoot"), declarations);
    assert_eq!(e.problems().len(), 1, "{e}");
    let p = &e.problems()[0];
    (p.path().to_owned(), p.what().clone(), p.to_string())
}

fn words(shape: &Shape, node: u32) -> Vec<u64> {
    shape.params(NodeIdx::new(node)).to_vec()
}

// The tables.

#[test]
fn declarations_compile_into_the_shape_tables() {
    let shape = build_declared(&scripted());
    let events: Vec<&str> = shape.events().iter().map(|e| &**e).collect();
    assert_eq!(events, ["OnEnemySeen", "OnLostSightOfTarget", "Alarm"]);
    assert_eq!(
        shape.variables(),
        [
            Variable {
                name: "TargetVisible".into(),
                initial: false,
            },
            Variable {
                name: "Fleeing".into(),
                initial: true,
            },
        ]
    );
    let signals: Vec<(u32, u32, bool)> = shape
        .signals()
        .iter()
        .map(|s| (s.event, s.variable, s.value))
        .collect();
    assert_eq!(signals, [(0, 0, true), (1, 0, false)]);
    // TargetSpotted names TargetLost, which is declared after it; the
    // exclusion is recorded on both.
    assert_eq!(
        shape.timestamps(),
        [
            Timestamp {
                name: "TargetSpotted".into(),
                event: 0,
                exclusive: Some(1),
            },
            Timestamp {
                name: "TargetLost".into(),
                event: 1,
                exclusive: Some(0),
            },
        ]
    );
    assert_eq!(
        shape.stimuli(),
        [
            Stimulus {
                name: "Hit".into(),
                seconds: 2.0,
            },
            Stimulus {
                name: "Invited".into(),
                seconds: 0.5,
            },
        ]
    );
    let sources: Vec<&str> = shape.scripts().iter().map(|s| &*s.source).collect();
    assert_eq!(sources, SCRIPTS);
    let mut types = vec![ScriptType::Bool; SCRIPTS.len()];
    types[0] = ScriptType::Int;
    assert_eq!(shape.script_types(), types);
}

#[test]
fn a_script_word_is_its_index_in_the_script_table() {
    let shape = build_declared(&scripted());
    assert_eq!(words(&shape, SCRIPT), [0]);
    assert_eq!(words(&shape, SCRIPT_GATE), [1]);
    assert_eq!(words(&shape, ASSERT_SCRIPT), [2]);
    // Its `halted`, not given: no script.
    assert_eq!(
        words(&shape, SCRIPT_WRAPPER),
        [3, 4, treebeard_shape::NO_SCRIPT]
    );
    assert_eq!(words(&shape, IF_CONDITION), [5]);
    assert_eq!(words(&shape, ASSERT_CONDITION), [6]);
    // The code is the script compiled against the fields and variables.
    let fields = declared_catalog_fields();
    let names = Names {
        fields: &fields,
        variables: &["TargetVisible", "Fleeing"],
        ..Names::default()
    };
    let code = script::compile(SCRIPTS[5], &names).unwrap();
    assert_eq!(shape.script(5), &*code.words);
    assert_eq!(&*shape.scripts()[5].words, &*code.words);
}

fn declared_catalog_fields() -> Vec<treebeard_shape::FieldDecl> {
    use treebeard_shape::LeafCatalog;
    declared_catalog().fields().to_vec()
}

#[test]
fn time_and_event_params_are_indices() {
    let shape = build_declared(&scripted());
    // IfTime(since: TargetSpotted, seconds: 2.5, less_than: true).
    assert_eq!(words(&shape, IF_TIME), [0, 2.5f64.to_bits(), 1, 0]);
    // WaitUntilTime(since: TargetLost, seconds: 1, or_never: true).
    assert_eq!(words(&shape, WAIT_UNTIL_TIME), [1, 1.0f64.to_bits(), 0, 1]);
    // WaitForEvent(event: Alarm), SendEvent(event: Alarm, to: {ally}).
    assert_eq!(words(&shape, WAIT_FOR_EVENT), [2]);
    assert_eq!(words(&shape, SEND_EVENT), [2, FIELD_REF | 4]);
    // PostStimulus(stimulus: Invited, data: {ally}).
    assert_eq!(words(&shape, POST_STIMULUS), [1, FIELD_REF | 4]);
}

#[test]
fn declared_but_unused_names_are_kept() {
    let shape = compile(&act("Shoot"), declarations()).unwrap();
    assert_eq!(shape.variables().len(), 2);
    assert_eq!(shape.signals().len(), 2);
    assert_eq!(shape.timestamps().len(), 2);
    assert_eq!(shape.stimuli().len(), 2);
    assert!(shape.scripts().is_empty());
    // The events are the application's, declared or not in the tree.
    assert_eq!(shape.events().len(), 3);
}

#[test]
fn exclusion_may_be_declared_from_both_sides() {
    let declarations = Declarations::new()
        .exclusive_timestamp("a", "Alarm", "b")
        .exclusive_timestamp("b", "OnEnemySeen", "a");
    let shape = compile(&act("Shoot"), declarations).unwrap();
    let exclusive: Vec<Option<u32>> = shape.timestamps().iter().map(|t| t.exclusive).collect();
    assert_eq!(exclusive, [Some(1), Some(0)]);
    let events: Vec<u32> = shape.timestamps().iter().map(|t| t.event).collect();
    assert_eq!(events, [2, 0]);
}

// Problems of the declarations.

#[test]
fn a_signal_naming_a_misspelt_variable_suggests_the_declared_one() {
    let declarations = declarations().signal("Alarm", "TargetVisibel", true);
    let (path, what, message) = declaration_problem(declarations);
    assert_eq!(path, "<declarations>");
    assert_eq!(
        what,
        Unbuildable::Undeclared {
            what: "variable",
            name: "TargetVisibel".into(),
            suggestion: Some("TargetVisible".into()),
        }
    );
    assert_eq!(
        message,
        "<declarations>: no variable is declared as `TargetVisibel`; did you mean `TargetVisible`?"
    );
}

#[test]
fn an_undeclared_variable_far_from_any_says_to_declare_it() {
    let declarations = declarations().signal("Alarm", "Panicking", true);
    let (_, what, message) = declaration_problem(declarations);
    assert!(
        matches!(
            &what,
            Unbuildable::Undeclared {
                what: "variable",
                suggestion: None,
                ..
            }
        ),
        "{what:?}"
    );
    assert_eq!(
        message,
        "<declarations>: no variable is declared as `Panicking`; declare it in the tree's variables"
    );
}

#[test]
fn an_undeclared_event_without_a_suggestion_says_the_application_declares_events() {
    let declarations = declarations().signal("Explosion", "Fleeing", true);
    let (_, what, message) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::Undeclared {
            what: "event",
            name: "Explosion".into(),
            suggestion: None,
        }
    );
    assert_eq!(
        message,
        "<declarations>: no event is declared as `Explosion`; the application declares events (`Leaves::event`)"
    );
}

#[test]
fn a_timestamp_set_by_a_misspelt_event_suggests_the_application_s() {
    let declarations = Declarations::new().timestamp("Seen", "OnEnemySeem");
    let (_, what, message) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::Undeclared {
            what: "event",
            name: "OnEnemySeem".into(),
            suggestion: Some("OnEnemySeen".into()),
        }
    );
    assert!(
        message.ends_with("did you mean `OnEnemySeen`?"),
        "{message}"
    );
}

#[test]
fn a_timestamp_exclusive_to_an_undeclared_one() {
    let declarations = Declarations::new()
        .timestamp("TargetLost", "Alarm")
        .exclusive_timestamp("TargetSpotted", "OnEnemySeen", "TargetLots");
    let (_, what, message) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::Undeclared {
            what: "timestamp",
            name: "TargetLots".into(),
            suggestion: Some("TargetLost".into()),
        }
    );
    assert_eq!(
        message,
        "<declarations>: no timestamp is declared as `TargetLots`; did you mean `TargetLost`?"
    );
}

#[test]
fn a_variable_declared_twice() {
    let declarations = Declarations::new()
        .variable("Fleeing", false)
        .variable("Fleeing", true);
    let (_, what, message) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::DeclaredTwice {
            what: "variable",
            name: "Fleeing".into(),
        }
    );
    assert_eq!(
        message,
        "<declarations>: variable `Fleeing` is declared twice"
    );
}

#[test]
fn a_timestamp_declared_twice() {
    let declarations = Declarations::new()
        .timestamp("Seen", "Alarm")
        .timestamp("Seen", "OnEnemySeen");
    let (_, what, message) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::DeclaredTwice {
            what: "timestamp",
            name: "Seen".into(),
        }
    );
    assert_eq!(
        message,
        "<declarations>: timestamp `Seen` is declared twice"
    );
}

/// Found while writing these tests: `Compiler::declare` indexes its
/// timestamps by name with `map.len()` as each one's index, so a repeated
/// name moves the first one's index past the table, and an exclusion that
/// names it then indexes out of bounds (compile/mod.rs, the exclusion loop).
/// It should report `DeclaredTwice` like the test above.
#[test]
fn a_timestamp_declared_twice_and_named_by_an_exclusion() {
    let declarations = Declarations::new()
        .timestamp("x", "Alarm")
        .timestamp("y", "Alarm")
        .exclusive_timestamp("x", "Alarm", "y");
    let (_, what, _) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::DeclaredTwice {
            what: "timestamp",
            name: "x".into(),
        }
    );
}

#[test]
fn a_timestamp_exclusive_to_itself() {
    let declarations = Declarations::new().exclusive_timestamp("Seen", "Alarm", "Seen");
    let (_, what, message) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::Exclusive {
            name: "Seen".into(),
            other: "Seen".into(),
        }
    );
    assert_eq!(
        message,
        "<declarations>: timestamp `Seen` cannot be exclusive to `Seen`: a timestamp is exclusive to one other, and not to itself"
    );
}

#[test]
fn a_timestamp_exclusive_to_one_exclusive_to_another() {
    let declarations = Declarations::new()
        .exclusive_timestamp("a", "Alarm", "b")
        .timestamp("b", "Alarm")
        .exclusive_timestamp("c", "Alarm", "b");
    let (_, what, _) = declaration_problem(declarations);
    assert_eq!(
        what,
        Unbuildable::Exclusive {
            name: "c".into(),
            other: "b".into(),
        }
    );
}

#[test]
fn a_stimulus_declared_twice() {
    let declarations = Declarations::new()
        .stimulus("Hit", 1.0)
        .stimulus("Hit", 2.0);
    let (path, what, message) = declaration_problem(declarations);
    assert_eq!(path, "<declarations>");
    assert_eq!(
        what,
        Unbuildable::DeclaredTwice {
            what: "stimulus",
            name: "Hit".into(),
        }
    );
    assert_eq!(message, "<declarations>: stimulus `Hit` is declared twice");
}

#[test]
fn at_most_32_stimuli_are_declared() {
    let many = |n: usize| {
        (0..n).fold(Declarations::new(), |d, i| {
            d.stimulus(&format!("s{i}"), 1.0)
        })
    };
    let shape = compile(&act("Shoot"), many(MAX_STIMULI)).unwrap();
    assert_eq!(shape.stimuli().len(), 32);
    assert_eq!(shape.spec().stimuli, 32);
    let e = fail(&act("Shoot"), many(34));
    // Each stimulus past the limit is reported.
    assert_eq!(e.problems().len(), 2, "{e}");
    assert_eq!(
        *e.what(),
        Unbuildable::TooManyStimuli {
            name: "s32".into(),
            max: 32,
        }
    );
    assert_eq!(
        e.problems()[0].to_string(),
        "<declarations>: stimulus `s32` is past the limit: a tree declares at most 32 stimuli (an agent's stimulus flags are 32 bits)"
    );
}

#[test]
fn stimulus_seconds_must_be_finite_and_not_negative() {
    for bad in [-0.5, f64::NAN, f64::INFINITY, 1e300] {
        let declarations = Declarations::new().stimulus("Hit", bad);
        let (_, what, message) = declaration_problem(declarations);
        assert!(
            matches!(&what, Unbuildable::StimulusSeconds { name, seconds }
                if &**name == "Hit" && seconds.to_bits() == bad.to_bits()),
            "{bad}: {what:?}"
        );
        let want = if bad == 1e300 {
            "stimulus `Hit` lasts 1e300 seconds, longer than a stimulus can (at most 3.4028235e38)"
        } else {
            "its seconds must be a finite number, 0 or more"
        };
        assert!(message.ends_with(want), "{message}");
    }
    // Zero is a stimulus that is never active: allowed.
    let shape = compile(&act("Shoot"), Declarations::new().stimulus("Blink", 0.0)).unwrap();
    assert_eq!(shape.stimuli()[0].seconds, 0.0);
}

#[test]
fn stimulus_problems_carry_the_declaration_s_source() {
    let mut declarations = Declarations::new()
        .stimulus("Hit", 1.0)
        .stimulus("Hit", -1.0);
    declarations.stimuli[1].source = Some(Source::new(0, 7, 3));
    let e = fail(&act("Shoot"), declarations);
    let sources: Vec<Option<Source>> = e.problems().iter().map(|p| p.source()).collect();
    assert_eq!(sources, [Some(Source::new(0, 7, 3))]);
}

#[test]
fn declaration_problems_carry_the_declaration_s_source() {
    let at_signal = Source::new(0, 12, 5);
    let at_variable = Source::new(0, 3, 5);
    let mut declarations = Declarations::new();
    declarations.variables.push(VariableDecl {
        name: "Fleeing".into(),
        initial: false,
        source: None,
    });
    declarations.variables.push(VariableDecl {
        name: "Fleeing".into(),
        initial: false,
        source: Some(at_variable),
    });
    declarations.signals.push(SignalDecl {
        event: "Alarm".into(),
        variable: "Panic".into(),
        value: true,
        source: Some(at_signal),
    });
    let e = fail(&act("Shoot"), declarations);
    let found: Vec<(Option<Source>, &str)> = e
        .problems()
        .iter()
        .map(|p| {
            let what = match p.what() {
                Unbuildable::DeclaredTwice { .. } => "twice",
                Unbuildable::Undeclared { .. } => "undeclared",
                _ => "other",
            };
            (p.source(), what)
        })
        .collect();
    assert_eq!(
        found,
        [
            (Some(at_variable), "twice"),
            (Some(at_signal), "undeclared")
        ]
    );
}

#[test]
fn every_declaration_problem_is_reported_with_the_tree_s() {
    let declarations = Declarations::new()
        .variable("Fleeing", false)
        .signal("Explosion", "Fleeing", true)
        .timestamp("Seen", "Boom");
    let e = fail(&act("Teleport"), declarations);
    let found: Vec<(&str, String)> = e
        .problems()
        .iter()
        .map(|p| {
            let name = match p.what() {
                Unbuildable::Undeclared { name, .. } => name.to_string(),
                Unbuildable::UnknownLeaf { name, .. } => name.to_string(),
                other => panic!("{other:?}"),
            };
            (p.path(), name)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("<declarations>", "Explosion".into()),
            ("<declarations>", "Boom".into()),
            ("Teleport", "Teleport".into()),
        ]
    );
}

// Problems of the kinds' parameters.

#[test]
fn a_script_parse_error_points_into_the_script() {
    // The value's source is its opening quote; the script starts one
    // column after it, and its second `>` 9 bytes into it.
    let at = Source::new(0, 3, 10);
    let tree = decider_of(Kind::AssertScript, []).with_param(NodeParam {
        name: Some("test".into()),
        value: "hunger > > 1".into(),
        source: Some(at),
    });
    let e = fail(&tree, declarations());
    let p = &e.problems()[0];
    let Unbuildable::Script { kind, param, error } = p.what() else {
        panic!("{e}");
    };
    assert_eq!((*kind, *param), (Kind::AssertScript, "test"));
    assert_eq!((error.offset, error.len), (9, 1));
    assert_eq!(p.source(), Some(Source::new(0, 3, 20)));
    assert_eq!(
        p.to_string(),
        "AssertScript: parameter `test` of `AssertScript`, column 10: expected an expression, found `>`"
    );
}

#[test]
fn a_script_given_by_position_points_into_the_script_too() {
    let at = Source::new(2, 8, 30);
    let tree = decider_of(Kind::ScriptWrapper, [act("Eat")])
        .with_param(NodeParam {
            name: None,
            value: "Fleeing = true".into(),
            source: Some(Source::new(2, 8, 10)),
        })
        .with_param(NodeParam {
            name: None,
            value: "Fleeing = 1".into(),
            source: Some(at),
        });
    let e = fail(&tree, declarations());
    let p = &e.problems()[0];
    assert!(
        matches!(p.what(), Unbuildable::Script { param: "exit", error, .. } if error.offset == 10),
        "{e}"
    );
    assert_eq!(p.source(), Some(Source::new(2, 8, 41)));
}

#[test]
fn an_unknown_name_in_a_script_suggests_a_variable() {
    let tree = decider_of(Kind::AssertCondition, []).arg("condition", "!Fleeng");
    let (what, message) = refused(tree);
    let Unbuildable::Script { error, .. } = &what else {
        panic!("{what:?}");
    };
    assert_eq!((error.offset, error.len), (1, 6));
    assert_eq!(error.help.as_deref(), Some("did you mean `Fleeing`?"));
    assert_eq!(
        message,
        "AssertCondition: parameter `condition` of `AssertCondition`, column 2: unknown name `Fleeng`; did you mean `Fleeing`?"
    );
}

#[test]
fn a_script_gate_refuses_an_int_script() {
    let tree = decider_of(Kind::ScriptGate, [act("Shoot")]).arg("test", "hunger + 1");
    let (what, message) = refused(tree);
    let Unbuildable::Script { kind, param, error } = &what else {
        panic!("{what:?}");
    };
    assert_eq!((*kind, *param), (Kind::ScriptGate, "test"));
    // The whole script is at fault.
    assert_eq!((error.offset, error.len), (0, "hunger + 1".len()));
    assert_eq!(
        message,
        "ScriptGate: parameter `test` of `ScriptGate`, column 1: the script's value is int, but ScriptGate needs a bool"
    );
}

#[test]
fn bool_scripts_are_refused_a_float_and_the_script_kind_takes_any() {
    for (kind, param) in [
        (Kind::AssertScript, "test"),
        (Kind::AssertCondition, "condition"),
    ] {
        let (what, _) = refused(decider_of(kind, []).arg(param, "speed * 2"));
        assert!(
            matches!(&what, Unbuildable::Script { error, .. }
                if error.message == format!("the script's value is float, but {kind} needs a bool")),
            "{kind}: {what:?}"
        );
    }
    let tree = decider_of(Kind::Script, []).arg("script", "speed * 2");
    let shape = compile(&tree, declarations()).unwrap();
    assert_eq!(shape.script_types(), [ScriptType::Float]);
}

#[test]
fn an_if_condition_that_assigns_is_refused() {
    let tree = decider_of(Kind::IfCondition, [act("Shoot")]).arg("condition", "x = true");
    let declarations = Declarations::new().variable("x", false);
    let e = fail(&tree, declarations);
    let Unbuildable::Script { kind, param, error } = e.what() else {
        panic!("{e}");
    };
    assert_eq!((*kind, *param), (Kind::IfCondition, "condition"));
    assert_eq!(error.message, "a condition cannot assign");
    assert_eq!(
        e.problems()[0].to_string(),
        "IfCondition: parameter `condition` of `IfCondition`, column 1: a condition cannot assign; use `==` to compare, or a ScriptGate to assign"
    );
    // A comparison is a condition; an assignment is a test a gate takes.
    let declarations = Declarations::new().variable("x", false);
    let tree = sequence([
        decider_of(Kind::IfCondition, [act("Shoot")]).arg("condition", "x == true"),
        decider_of(Kind::ScriptGate, [act("Shoot")]).arg("test", "x = true"),
    ]);
    assert!(compile(&tree, declarations).is_ok());
}

#[test]
fn an_assert_condition_that_assigns_a_field_is_refused() {
    let tree = decider_of(Kind::AssertCondition, []).arg("condition", "alert = hunger > 3");
    let (what, _) = refused(tree);
    assert!(
        matches!(&what, Unbuildable::Script { kind: Kind::AssertCondition, error, .. }
            if error.message == "a condition cannot assign"),
        "{what:?}"
    );
}

#[test]
fn a_misspelt_event_param_suggests_the_event() {
    let tree = decider_of(Kind::WaitForEvent, []).arg("event", "Alarn");
    let (what, message) = refused(tree);
    assert_eq!(
        what,
        Unbuildable::BadParam {
            leaf: "WaitForEvent".into(),
            name: "event".into(),
            problem: Mismatch::Variant {
                found: "Alarn".into(),
                suggestion: Some("Alarm".into()),
            },
        }
    );
    assert_eq!(
        message,
        "WaitForEvent: parameter `event` of `WaitForEvent`: `Alarn` is not a valid choice; did you mean `Alarm`?"
    );
}

#[test]
fn a_misspelt_timestamp_param_suggests_the_timestamp() {
    let tree = decider_of(Kind::WaitUntilTime, [])
        .arg("since", "TargetSpoted")
        .arg("seconds", 3);
    let (what, _) = refused(tree);
    assert_eq!(
        what,
        Unbuildable::BadParam {
            leaf: "WaitUntilTime".into(),
            name: "since".into(),
            problem: Mismatch::Variant {
                found: "TargetSpoted".into(),
                suggestion: Some("TargetSpotted".into()),
            },
        }
    );
}

#[test]
fn a_misspelt_stimulus_param_suggests_the_stimulus() {
    let tree = decider_of(Kind::PostStimulus, []).arg("stimulus", "Hti");
    let (what, message) = refused(tree);
    assert_eq!(
        what,
        Unbuildable::BadParam {
            leaf: "PostStimulus".into(),
            name: "stimulus".into(),
            problem: Mismatch::Variant {
                found: "Hti".into(),
                suggestion: Some("Hit".into()),
            },
        }
    );
    assert_eq!(
        message,
        "PostStimulus: parameter `stimulus` of `PostStimulus`: `Hti` is not a valid choice; did you mean `Hit`?"
    );
}

#[test]
fn post_stimulus_data_defaults_to_zero_and_takes_a_literal_or_an_int_field() {
    let tree = sequence([
        decider_of(Kind::PostStimulus, []).arg("stimulus", "Hit"),
        decider_of(Kind::PostStimulus, [])
            .arg("stimulus", "Invited")
            .arg("data", 7),
        decider_of(Kind::PostStimulus, [])
            .arg("stimulus", "Hit")
            .arg("data", "{ally}"),
    ]);
    let shape = compile(&tree, declarations()).unwrap();
    assert_eq!(words(&shape, 1)[0], 0);
    assert_eq!(words(&shape, 1)[1] & FIELD_REF, 0);
    assert_eq!(constant(&shape, 1, 1), 0);
    assert_eq!(words(&shape, 2)[0], 1);
    assert_eq!(constant(&shape, 2, 1), 7);
    assert_eq!(words(&shape, 3), [0, FIELD_REF | 4]);
    // Posting keeps no state: nothing to hold between ticks.
    let spec = *shape.spec();
    assert_eq!((spec.decider_states, spec.action_states), (1, 0));
    // A float field is not an int input.
    let tree = decider_of(Kind::PostStimulus, [])
        .arg("stimulus", "Hit")
        .arg("data", "{speed}");
    let (what, _) = refused(tree);
    assert!(
        matches!(&what, Unbuildable::BadParam { leaf, name, problem: Mismatch::FieldType { .. } }
            if &**leaf == "PostStimulus" && &**name == "data"),
        "{what:?}"
    );
}

#[test]
fn required_params_of_the_new_kinds_are_named() {
    let cases = [
        (decider_of(Kind::Script, []), "script"),
        (decider_of(Kind::ScriptGate, [act("Shoot")]), "test"),
        (decider_of(Kind::AssertScript, []), "test"),
        (
            decider_of(Kind::ScriptWrapper, [act("Shoot")]).arg("enter", "true"),
            "exit",
        ),
        (decider_of(Kind::IfCondition, [act("Shoot")]), "condition"),
        (decider_of(Kind::AssertCondition, []), "condition"),
        (
            decider_of(Kind::IfTime, [act("Shoot")]).arg("seconds", 1),
            "since",
        ),
        (
            decider_of(Kind::WaitUntilTime, []).arg("since", "TargetLost"),
            "seconds",
        ),
        (decider_of(Kind::WaitForEvent, []), "event"),
        (decider_of(Kind::SendEvent, []), "event"),
        (decider_of(Kind::PostStimulus, []), "stimulus"),
    ];
    for (tree, param) in cases {
        let kind = tree.decider_kind().unwrap();
        let (what, _) = refused(tree);
        assert!(
            matches!(&what, Unbuildable::MissingParam { leaf, name, .. }
                if **leaf == *kind.name() && &**name == param),
            "{kind}: {what:?}"
        );
    }
    // An event parameter lists the application's events in its type.
    let (what, message) = refused(decider_of(Kind::WaitForEvent, []));
    let Unbuildable::MissingParam { ty, .. } = &what else {
        panic!("{what:?}");
    };
    assert_eq!(
        ty,
        &ParamType::enumeration(&["OnEnemySeen", "OnLostSightOfTarget", "Alarm"])
    );
    assert!(
        message.starts_with("WaitForEvent: `WaitForEvent` needs parameter `event`"),
        "{message}"
    );
}

// Defaults and inputs.

#[test]
fn flags_default_to_false() {
    let tree = decider_of(Kind::IfTime, [cond("ready")])
        .arg("since", "TargetLost")
        .arg("seconds", 0.5);
    let shape = compile(&tree, declarations()).unwrap();
    assert_eq!(words(&shape, 0), [1, 0.5f64.to_bits(), 0, 0]);
    // Given as text, as tree files write them.
    let tree = decider_of(Kind::WaitUntilTime, [])
        .arg("since", "TargetLost")
        .arg("seconds", "2s")
        .arg("less_than", "true")
        .arg("or_never", "false");
    let shape = compile(&tree, declarations()).unwrap();
    assert_eq!(words(&shape, 0), [1, 2.0f64.to_bits(), 1, 0]);
}

#[test]
fn a_flag_that_is_not_a_bool_is_refused() {
    let tree = decider_of(Kind::IfTime, [cond("ready")])
        .arg("since", "TargetLost")
        .arg("seconds", 1)
        .arg("less_than", 2);
    let (what, _) = refused(tree);
    assert!(
        matches!(&what, Unbuildable::BadParam { leaf, name, problem: Mismatch::Type { expected: ParamType::Bool, .. } }
            if &**leaf == "IfTime" && &**name == "less_than"),
        "{what:?}"
    );
}

/// The constant an input literal's word points at.
fn constant(shape: &Shape, node: u32, param: usize) -> u64 {
    shape.param_table()[words(shape, node)[param] as usize]
}

#[test]
fn send_event_to_defaults_to_the_agent_itself() {
    let tree = decider_of(Kind::SendEvent, []).arg("event", "OnEnemySeen");
    let shape = compile(&tree, declarations()).unwrap();
    let w = words(&shape, 0);
    assert_eq!(w[0], 0);
    // An input literal: the word points at the constant -1.
    assert_eq!(w[1] & FIELD_REF, 0);
    assert_eq!(constant(&shape, 0, 1), -1i64 as u64);
}

#[test]
fn send_event_to_takes_a_literal_or_an_int_field() {
    let tree = sequence([
        decider_of(Kind::SendEvent, [])
            .arg("event", "Alarm")
            .arg("to", 17),
        decider_of(Kind::SendEvent, [])
            .arg("event", "Alarm")
            .arg("to", "{ally}"),
        decider_of(Kind::SendEvent, [])
            .arg("event", "Alarm")
            .arg("to", field("hunger")),
    ]);
    let shape = compile(&tree, declarations()).unwrap();
    assert_eq!(constant(&shape, 1, 1), 17);
    // `ally` is field 4, `hunger` field 0.
    assert_eq!(words(&shape, 2), [2, FIELD_REF | 4]);
    assert_eq!(words(&shape, 3), [2, FIELD_REF]);
}

#[test]
fn send_event_to_refuses_a_field_of_another_type() {
    let tree = decider_of(Kind::SendEvent, [])
        .arg("event", "Alarm")
        .arg("to", "{speed}");
    let (what, message) = refused(tree);
    assert_eq!(
        what,
        Unbuildable::BadParam {
            leaf: "SendEvent".into(),
            name: "to".into(),
            problem: Mismatch::FieldType {
                name: "speed".into(),
                expected: FieldType::Int,
                found: FieldType::Float,
            },
        }
    );
    assert_eq!(
        message,
        "SendEvent: parameter `to` of `SendEvent`: field `speed` holds float values, but int is needed"
    );
}

// Capacity and disassembly.

#[test]
fn the_capacity_spec_counts_variables_timestamps_and_events_sent() {
    let spec = *build_declared(&scripted()).spec();
    assert_eq!(
        (
            spec.variables,
            spec.timestamps,
            spec.events_sent,
            spec.stimuli
        ),
        (2, 2, 1, 2)
    );
    let send = |to: i64| {
        decider_of(Kind::SendEvent, [])
            .arg("event", "Alarm")
            .arg("to", to)
    };
    let tree = sequence([
        send(1),
        send(2),
        decider_of(Kind::ForceSuccess, [send(3)]),
        act("FindFood"),
    ]);
    let declarations = Declarations::new()
        .variable("a", false)
        .variable("b", false)
        .variable("c", true)
        .timestamp("t", "Alarm");
    let spec = *compile(&tree, declarations).unwrap().spec();
    assert_eq!(
        (spec.variables, spec.timestamps, spec.events_sent),
        (3, 1, 3)
    );
    // Each event sent is a request, beside the deferred action's two.
    assert_eq!(spec.requests(), 2 + 3);
    let spec = *compile(&act("Shoot"), Declarations::new()).unwrap().spec();
    assert_eq!(
        (spec.variables, spec.timestamps, spec.events_sent),
        (0, 0, 0)
    );
}

#[test]
fn the_disassembly_shows_script_sources_and_event_and_timestamp_names() {
    let text = build_declared(&scripted()).disassemble().to_string();
    let line = |kind: &str| -> &str {
        text.lines()
            .find(|l| l.contains(&format!(" {kind} ")))
            .unwrap_or_else(|| panic!("no {kind} in\n{text}"))
    };
    let want = [
        ("Script", r#"(script="alert = TargetVisible; hunger += 1")"#),
        ("ScriptGate", r#"(test="hunger > 3 && !alert")"#),
        ("AssertScript", r#"(test="speed < 2.5")"#),
        (
            "ScriptWrapper",
            r#"(enter="Fleeing = true", exit="Fleeing = false")"#,
        ),
        ("IfCondition", r#"(condition="TargetVisible")"#),
        (
            "AssertCondition",
            r#"(condition="!Fleeing || speed >= 1.0")"#,
        ),
        (
            "IfTime",
            "(since=TargetSpotted, seconds=2.5s, less_than=true, or_never=false)",
        ),
        (
            "WaitUntilTime",
            "(since=TargetLost, seconds=1s, less_than=false, or_never=true)",
        ),
        ("WaitForEvent", "(event=Alarm)"),
        ("SendEvent", "(event=Alarm, to={ally})"),
        ("PostStimulus", "(stimulus=Invited, data={ally})"),
    ];
    for (kind, payload) in want {
        assert!(line(kind).contains(payload), "{kind}: {}", line(kind));
    }
    let text = compile(
        &decider_of(Kind::SendEvent, []).arg("event", "OnEnemySeen"),
        declarations(),
    )
    .unwrap()
    .disassemble()
    .to_string();
    assert!(text.contains("(event=OnEnemySeen, to=-1)"), "{text}");
}

// Hand-made tables the validator refuses.

fn parts() -> ShapeParts {
    build_declared(&scripted()).into_parts()
}

#[track_caller]
fn invalid(parts: ShapeParts) -> (Option<u32>, Invalid) {
    match parts.validate() {
        Ok(shape) => panic!("validated:\n{}", shape.disassemble()),
        Err(e) => (e.item(), e.what().clone()),
    }
}

fn declaration(what: &'static str, index: usize, reason: &str) -> (Option<u32>, Invalid) {
    (
        None,
        Invalid::Declaration {
            what,
            index,
            reason: reason.into(),
        },
    )
}

/// Sets word `param` of item `node`'s parameters.
fn set_word(parts: &mut ShapeParts, node: u32, param: usize, word: u64) {
    let at = parts.items[node as usize].params().offset as usize + param;
    parts.params[at] = word;
}

fn param_word(
    node: u32,
    kind: Kind,
    param: &str,
    word: u64,
    reason: &'static str,
) -> (Option<u32>, Invalid) {
    (
        Some(node),
        Invalid::ParamWord {
            leaf: kind.name().into(),
            param: param.into(),
            word,
            reason,
        },
    )
}

#[test]
fn the_compiled_parts_validate() {
    let parts = parts();
    assert_eq!(parts.clone().validate().unwrap().into_parts(), parts);
}

#[test]
fn a_signal_past_the_variables_is_refused() {
    let mut parts = parts();
    parts.signals.push(Signal {
        event: 2,
        variable: 2,
        value: true,
    });
    let want = declaration("signal", 2, "names an event or variable past its table");
    assert_eq!(invalid(parts), want);
}

#[test]
fn a_signal_past_the_events_is_refused() {
    let mut parts = parts();
    parts.signals[0].event = 3;
    let want = declaration("signal", 0, "names an event or variable past its table");
    assert_eq!(invalid(parts), want);
    let e = {
        let mut parts = self::parts();
        parts.signals[0].event = 3;
        parts.validate().unwrap_err()
    };
    assert_eq!(
        e.to_string(),
        "signal 0 names an event or variable past its table"
    );
}

#[test]
fn a_timestamp_exclusive_to_itself_is_refused() {
    let mut parts = parts();
    parts.timestamps[1].exclusive = Some(1);
    parts.timestamps[0].exclusive = None;
    let want = declaration(
        "timestamp",
        1,
        "is exclusive to one that is not exclusive to it",
    );
    assert_eq!(invalid(parts), want);
}

#[test]
fn a_one_sided_exclusion_is_refused() {
    let mut parts = parts();
    parts.timestamps[1].exclusive = None;
    let want = declaration(
        "timestamp",
        0,
        "is exclusive to one that is not exclusive to it",
    );
    assert_eq!(invalid(parts), want);
}

#[test]
fn an_exclusion_past_the_timestamps_is_refused() {
    let mut parts = parts();
    parts.timestamps[0].exclusive = Some(2);
    let want = declaration(
        "timestamp",
        0,
        "is exclusive to one that is not exclusive to it",
    );
    assert_eq!(invalid(parts), want);
}

#[test]
fn a_timestamp_set_by_an_event_past_the_events_is_refused() {
    let mut parts = parts();
    parts.timestamps[1].event = 3;
    let want = declaration("timestamp", 1, "is set by an event past the events");
    assert_eq!(invalid(parts), want);
}

#[test]
fn repeated_and_empty_names_are_refused() {
    let mut p = parts();
    p.variables[1].name = "TargetVisible".into();
    let want = declaration("variable", 1, "has an empty or repeated name");
    assert_eq!(invalid(p), want);
    let mut p = parts();
    p.variables[0].name = "".into();
    let want = declaration("variable", 0, "has an empty or repeated name");
    assert_eq!(invalid(p), want);
    let mut p = parts();
    p.timestamps[1].name = "TargetSpotted".into();
    let want = declaration("timestamp", 1, "has an empty or repeated name");
    assert_eq!(invalid(p), want);
}

#[test]
fn too_many_variables_are_refused() {
    let mut p = parts();
    p.variables = (0..4097)
        .map(|i| Variable {
            name: format!("v{i}").into(),
            initial: false,
        })
        .collect();
    let want = declaration("variable", 4096, "is past the limit of 4096 variables");
    assert_eq!(invalid(p), want);
}

#[test]
fn stimulus_tables_the_validator_refuses() {
    let mut p = parts();
    p.stimuli[1].name = "Hit".into();
    let want = declaration("stimulus", 1, "has an empty or repeated name");
    assert_eq!(invalid(p), want);

    for bad in [-1.0, f32::NAN, f32::INFINITY] {
        let mut p = parts();
        p.stimuli[0].seconds = bad;
        let want = declaration(
            "stimulus",
            0,
            "lasts a number of seconds that is not finite and 0 or more",
        );
        assert_eq!(invalid(p), want, "{bad}");
    }

    let mut p = parts();
    p.stimuli = (0..33)
        .map(|i| Stimulus {
            name: format!("s{i}").into(),
            seconds: 1.0,
        })
        .collect();
    let want = declaration(
        "stimulus",
        32,
        "is past the limit of 32 stimuli (stimulus flags are a u32)",
    );
    assert_eq!(invalid(p), want);
}

#[test]
fn stimulus_and_data_words_are_checked() {
    let mut p = parts();
    set_word(&mut p, POST_STIMULUS, 0, 2);
    let want = param_word(
        POST_STIMULUS,
        Kind::PostStimulus,
        "stimulus",
        2,
        "is not a stimulus",
    );
    assert_eq!(invalid(p), want);

    // Dropping the last stimulus leaves PostStimulus(Invited) past the table.
    let mut p = parts();
    p.stimuli.truncate(1);
    let want = param_word(
        POST_STIMULUS,
        Kind::PostStimulus,
        "stimulus",
        1,
        "is not a stimulus",
    );
    assert_eq!(invalid(p), want);

    let mut p = parts();
    set_word(&mut p, POST_STIMULUS, 1, FIELD_REF | 1);
    let want = param_word(
        POST_STIMULUS,
        Kind::PostStimulus,
        "data",
        FIELD_REF | 1,
        "refers to a field of another type",
    );
    assert_eq!(invalid(p), want);
}

#[test]
fn script_code_that_fails_the_check_is_refused() {
    let mut p = parts();
    // A script reading a variable the shape does not declare.
    p.variables.truncate(1);
    p.signals.clear();
    let (item, what) = invalid(p);
    assert_eq!(item, None);
    let Invalid::Declaration {
        what,
        index,
        reason,
    } = what
    else {
        panic!("{what:?}");
    };
    // Script 3 is the first to name `Fleeing`, variable 1.
    assert_eq!((what, index), ("script", 3));
    let check = script::check(&parts().scripts[3].words, &declared_catalog_fields(), 1);
    assert_eq!(Err(reason.as_str()), check);
}

#[test]
fn a_script_longer_than_the_limit_is_refused() {
    let mut p = parts();
    p.scripts[2].words = vec![0; script::MAX_WORDS + 1].into_boxed_slice();
    let want = declaration("script", 2, "is longer than 1024 words");
    assert_eq!(invalid(p), want);
}

#[test]
fn a_script_word_past_the_script_table_is_refused() {
    let mut p = parts();
    set_word(&mut p, SCRIPT_WRAPPER, 1, 7);
    let want = param_word(
        SCRIPT_WRAPPER,
        Kind::ScriptWrapper,
        "exit",
        7,
        "is not a script",
    );
    assert_eq!(invalid(p), want);
}

#[test]
fn a_test_param_naming_a_float_script_is_refused() {
    let mut p = parts();
    let fields = declared_catalog_fields();
    let names = Names {
        fields: &fields,
        variables: &["TargetVisible", "Fleeing"],
        ..Names::default()
    };
    let code = script::compile("speed * 2", &names).unwrap();
    assert_eq!(code.ty, ScriptType::Float);
    p.scripts.push(Script {
        source: "speed * 2".into(),
        words: code.words.into_boxed_slice(),
    });
    set_word(&mut p, ASSERT_SCRIPT, 0, 7);
    let want = param_word(
        ASSERT_SCRIPT,
        Kind::AssertScript,
        "test",
        7,
        "is a script whose value is not a bool",
    );
    assert_eq!(invalid(p.clone()), want);
    // The script kind takes a script of any type.
    set_word(&mut p, ASSERT_SCRIPT, 0, 2);
    set_word(&mut p, SCRIPT, 0, 7);
    let shape = p.validate().unwrap();
    assert_eq!(shape.script_types()[7], ScriptType::Float);
}

#[test]
fn a_condition_param_naming_a_script_that_assigns_is_refused() {
    let mut p = parts();
    // Script 4 is `Fleeing = false`.
    set_word(&mut p, ASSERT_CONDITION, 0, 4);
    let want = param_word(
        ASSERT_CONDITION,
        Kind::AssertCondition,
        "condition",
        4,
        "is a script that assigns, not a condition",
    );
    assert_eq!(invalid(p), want);
}

#[test]
fn time_event_flag_and_agent_words_are_checked() {
    let mut p = parts();
    set_word(&mut p, IF_TIME, 0, 2);
    let want = param_word(IF_TIME, Kind::IfTime, "since", 2, "is not a timestamp");
    assert_eq!(invalid(p), want);

    let mut p = parts();
    set_word(&mut p, WAIT_UNTIL_TIME, 3, 2);
    let want = param_word(
        WAIT_UNTIL_TIME,
        Kind::WaitUntilTime,
        "or_never",
        2,
        "is not 0 or 1",
    );
    assert_eq!(invalid(p), want);

    let mut p = parts();
    set_word(&mut p, WAIT_FOR_EVENT, 0, 3);
    let want = param_word(
        WAIT_FOR_EVENT,
        Kind::WaitForEvent,
        "event",
        3,
        "is not an event",
    );
    assert_eq!(invalid(p), want);

    // `to` names a field of another type (`speed`, a float).
    let mut p = parts();
    set_word(&mut p, SEND_EVENT, 1, FIELD_REF | 1);
    let want = param_word(
        SEND_EVENT,
        Kind::SendEvent,
        "to",
        FIELD_REF | 1,
        "refers to a field of another type",
    );
    assert_eq!(invalid(p), want);

    // A literal `to` whose word points past the parameter table.
    let mut p = parts();
    let past = p.params.len() as u64;
    set_word(&mut p, SEND_EVENT, 1, past);
    let want = param_word(
        SEND_EVENT,
        Kind::SendEvent,
        "to",
        past,
        "refers past the parameter table",
    );
    assert_eq!(invalid(p), want);
}

#[test]
fn fewer_events_than_a_word_names_are_refused() {
    // Dropping the application's last event leaves WaitForEvent(Alarm) and
    // SendEvent(Alarm) naming event 2, past the table.
    let mut p = parts();
    p.events.truncate(2);
    let want = param_word(
        WAIT_FOR_EVENT,
        Kind::WaitForEvent,
        "event",
        2,
        "is not an event",
    );
    assert_eq!(invalid(p), want);
}
