//! Declarations and the built-in kinds in every dialect, through a whole
//! load: variables, signals, timestamps and stimuli into the shape, MBT's and
//! BehaviorTree.CPP's standard nodes into treebeard's kinds with their
//! parameters, and declarations merged over the files of a load.

use std::path::{Path, PathBuf};
use treebeard_load::{Load, LoadOptions, Loaded, Loader, load_file};
use treebeard_shape::{
    Catalog, FieldDecl, FieldType, Kind, LeafSchema, NodeIdx, ParamType, Shape, Signal, Timestamp,
    Variable,
};

/// Fields, events and leaves the trees here use.
fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Float))
        .field(FieldDecl::new("ammo", FieldType::Int))
        .field(FieldDecl::new("alert", FieldType::Bool))
        .event("OnEnemySeen")
        .event("OnLostSightOfTarget")
        .declare("Shoot", LeafSchema::action())
        .declare("Patrol", LeafSchema::deferred())
        .declare("Move", LeafSchema::action().param("to", ParamType::Str));
    c
}

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/trees/declarations")
        .join(name)
}

fn load(name: &str) -> Load {
    load_file(&path(name), &catalog(), &LoadOptions::default())
}

fn loaded(load: Load) -> Loaded {
    load.into_result()
        .unwrap_or_else(|report| panic!("the tree did not load:\n{report}"))
}

/// `shape` without positions and file names: equal for the same tree
/// written in two dialects.
fn bare(shape: &Shape) -> Shape {
    let mut parts = shape.parts().clone();
    for node in &mut parts.nodes {
        node.source = None;
    }
    parts.files.clear();
    parts.validate().expect("a shape without sources is valid")
}

/// Each node as `Kind payload`, in stream order.
fn listing(shape: &Shape) -> Vec<String> {
    let disassembly = shape.disassemble();
    (0..shape.len() as u32)
        .map(NodeIdx::new)
        .map(|n| format!("{} {}", shape.kind(n), disassembly.payload(n).trim()))
        .map(|line| line.trim_end().to_owned())
        .collect()
}

#[test]
fn declarations_and_built_in_nodes_load_the_same_from_json_ron_and_mbt() {
    let json = loaded(load("guard.json"));
    assert!(json.stubs.is_empty());
    let s = &json.shape;
    assert_eq!(
        s.variables(),
        [
            Variable {
                name: "TargetVisible".into(),
                initial: false
            },
            Variable {
                name: "Armed".into(),
                initial: true
            },
        ]
    );
    assert_eq!(
        s.events(),
        [Box::from("OnEnemySeen"), "OnLostSightOfTarget".into()]
    );
    assert_eq!(
        s.signals(),
        [
            Signal {
                event: 0,
                variable: 0,
                value: true
            },
            Signal {
                event: 1,
                variable: 0,
                value: false
            },
        ]
    );
    assert_eq!(
        s.timestamps(),
        [
            Timestamp {
                name: "TargetSpotted".into(),
                event: 0,
                exclusive: Some(1)
            },
            Timestamp {
                name: "TargetLost".into(),
                event: 1,
                exclusive: Some(0)
            },
        ]
    );
    assert_eq!(
        listing(s),
        [
            "Selector",
            "IfCondition (condition=\"TargetVisible && Armed\")",
            "ScriptWrapper (enter=\"alert = true\", exit=\"alert = false\")",
            "Action Shoot",
            "IfTime (since=TargetLost, seconds=10s, less_than=true, or_never=false)",
            "Action Move(to=\"LastSeen\")",
            "Sequence",
            "Script (script=\"ammo += 1; hunger = hunger * 0.5\")",
            "AssertScript (test=\"ammo > 3\")",
            "ScriptGate (test=\"hunger < 1\")",
            "Deferred Patrol",
            "AssertCondition (condition=\"!alert\")",
            "SendEvent (event=OnEnemySeen, to=-1)",
            "WaitForEvent (event=OnLostSightOfTarget)",
            "WaitUntilTime (since=TargetSpotted, seconds=2.5s, less_than=false, or_never=true)",
        ]
    );
    // The script words are indices into the shape's scripts.
    let gate = s.find("ScriptGate").expect("the gate");
    let script = s.params(gate)[0] as usize;
    assert_eq!(&*s.scripts()[script].source, "hunger < 1");
    for other in ["guard.ron", "guard.xml"] {
        let l = loaded(load(other));
        assert_eq!(bare(&l.shape), bare(s), "{other}");
    }
}

#[test]
fn btcpp_nodes_and_the_declarations_of_an_included_file() {
    let l = loaded(load("main.xml"));
    let s = &l.shape;
    // The included file declares what the main file's scripts use.
    let names: Vec<&str> = s.variables().iter().map(|v| &*v.name).collect();
    assert_eq!(names, ["Armed"]);
    assert_eq!(s.timestamps()[0].name.as_ref(), "Hit");
    assert_eq!(
        listing(s),
        [
            "Sequence",
            "Script (script=\"ammo := ammo + 1\")",
            "AssertScript (test=\"Armed && ammo > 0\")",
            "Loop (count=3, again=true)",
            "Timeout (seconds=1.5s)",
            "IfTime (since=Hit, seconds=1s, less_than=false, or_never=false)",
            "Action Shoot",
            "LoopUntilSuccess (attempts=0, again=true)",
            "Wait (seconds=0.25s)",
        ]
    );
}

#[test]
fn a_name_declared_in_two_files_is_an_error_naming_both() {
    let load = load("twice.xml");
    assert!(load.loaded.is_none());
    let errors: Vec<(String, String, String)> = load
        .diagnostics
        .items()
        .iter()
        .map(|d| {
            let location = d.location(&load.map).unwrap_or_default();
            (
                location,
                d.message.clone(),
                d.help.clone().unwrap_or_default(),
            )
        })
        .collect();
    let armed = path("armed.json").display().to_string();
    let fight = path("fight.json").display().to_string();
    assert_eq!(
        errors,
        [(
            format!("{armed}:2:26"),
            "variable `Armed` is declared twice".into(),
            format!(
                "it is first declared at {fight}:2:26; a load's files share one set of declarations"
            ),
        )]
    );
}

#[test]
fn declarations_merge_in_file_order() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    loader.add_source(
        "a.json",
        r#"{"variables": [{"name": "A"}], "timestamps": [{"name": "T", "event": "OnEnemySeen"}],
            "stimuli": [{"name": "Hit", "seconds": 2}],
            "trees": [{"name": "main", "root": {"type": "Sequence", "children": [
                {"type": "AssertCondition", "params": {"condition": "A || B"}},
                {"type": "PostStimulus", "params": {"stimulus": "Invited", "data": "{ammo}"}}
            ]}}]}"#
            .into(),
        None,
    );
    loader.add_source(
        "b.ron",
        r#"(variables: [(name: "B", initial: true)],
            timestamps: [(name: "U", event: "OnLostSightOfTarget", exclusive_to: "T")],
            stimuli: [(name: "Invited", seconds: 0.5)],
            trees: [(name: "other", root: (type: "Shoot"))])"#
            .into(),
        None,
    );
    let l = loaded(loader.finish());
    let names: Vec<(&str, bool)> = l
        .shape
        .variables()
        .iter()
        .map(|v| (&*v.name, v.initial))
        .collect();
    assert_eq!(names, [("A", false), ("B", true)]);
    let stamps: Vec<(&str, Option<u32>)> = l
        .shape
        .timestamps()
        .iter()
        .map(|t| (&*t.name, t.exclusive))
        .collect();
    assert_eq!(stamps, [("T", Some(1)), ("U", Some(0))]);
    let stimuli: Vec<(&str, f32)> = l
        .shape
        .stimuli()
        .iter()
        .map(|s| (&*s.name, s.seconds))
        .collect();
    assert_eq!(stimuli, [("Hit", 2.0), ("Invited", 0.5)]);
    // The first file's tree names the second file's stimulus.
    let post = l.shape.find("PostStimulus").unwrap();
    assert_eq!(l.shape.kind(post), Kind::PostStimulus);
    assert_eq!(l.shape.params(post)[0], 1);
}

#[test]
fn a_stimulus_declared_in_two_files_is_reported_where_it_is_again() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    loader.add_source(
        "a.json",
        r#"{"stimuli": [{"name": "Hit", "seconds": 2}], "trees": [{"name": "main", "root": {"type": "Shoot"}}]}"#
            .into(),
        None,
    );
    loader.add_source(
        "b.ron",
        r#"(stimuli: [(name: "Hit", seconds: 1)], trees: [(name: "other", root: (type: "Shoot"))])"#
            .into(),
        None,
    );
    let load = loader.finish();
    assert!(load.loaded.is_none());
    let d = &load.diagnostics.items()[0];
    assert_eq!(d.message, "stimulus `Hit` is declared twice");
    assert_eq!(d.location(&load.map).as_deref(), Some("b.ron:1:19"));
}

#[test]
fn the_mbt_seed_trees_load_given_the_events_and_leaves() {
    let mut c = Catalog::new();
    c.event("OnEnemySeen")
        .event("OnLostSightOfTarget")
        .event("OnEnemyDamage")
        .event("GroupMemberDied")
        .declare("Move", LeafSchema::deferred().param("to", ParamType::Str))
        .declare(
            "Animate",
            LeafSchema::action().param("name", ParamType::Str),
        )
        .declare(
            "Communicate",
            LeafSchema::action().param("name", ParamType::Str),
        )
        .declare("MoveCautiouslyTowardsTarget", LeafSchema::deferred())
        .declare("MoveConfidentallyTowardsTarget", LeafSchema::deferred());
    let seed = |name: &str| -> Loaded {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/trees/mbt")
            .join(name);
        let load = load_file(&path, &c, &LoadOptions::default());
        // Only the warning about the typeset quotes.
        assert_eq!(load.diagnostics.items().len(), 1, "{name}");
        loaded(load)
    };
    let variables = seed("variables.xml");
    assert_eq!(
        listing(&variables.shape),
        [
            "Selector",
            "IfCondition (condition=\"TargetVisible\")",
            "Deferred Move(to=\"Target\")",
            "Action Animate(name=\"LookAroundForTarget\")",
        ]
    );
    assert_eq!(variables.shape.variables().len(), 1);
    assert_eq!(variables.shape.signals().len(), 2);

    let timestamps = seed("timestamps.xml");
    let names: Vec<(&str, u32)> = timestamps
        .shape
        .timestamps()
        .iter()
        .map(|t| (&*t.name, t.event))
        .collect();
    assert_eq!(
        names,
        [
            ("TargetSpotted", 0),
            ("ReceivedDamage", 2),
            ("GroupMemberDied", 3)
        ]
    );
    assert_eq!(
        listing(&timestamps.shape),
        [
            "Sequence",
            "WaitUntilTime (since=ReceivedDamage, seconds=5s, less_than=false, or_never=true)",
            "Selector",
            "IfTime (since=GroupMemberDied, seconds=10s, less_than=true, or_never=false)",
            "Deferred MoveCautiouslyTowardsTarget",
            "Deferred MoveConfidentallyTowardsTarget",
        ]
    );

    let events = seed("wait_for_event.xml");
    assert_eq!(
        listing(&events.shape),
        [
            "Sequence",
            "WaitForEvent (event=OnEnemySeen)",
            "Action Communicate(name=\"ThereHeIs\")",
        ]
    );
    assert_eq!(events.shape.kind(NodeIdx::new(1)), Kind::WaitForEvent);
}

#[test]
fn stubs_stand_in_for_events_the_application_lacks() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/trees/mbt/timestamps.xml");
    let options = LoadOptions {
        stub_unknown: true,
        ..LoadOptions::default()
    };
    let load = load_file(&path, &Catalog::new(), &options);
    let warnings: Vec<(String, String)> = load
        .diagnostics
        .items()
        .iter()
        .filter(|d| d.message.contains("events"))
        .map(|d| {
            let location = d.location(&load.map).unwrap_or_default();
            let column = location.rsplit(':').next().unwrap_or("").to_owned();
            (column, d.message.clone())
        })
        .collect();
    assert_eq!(
        warnings,
        [
            (
                "73".into(),
                "`OnEnemySeen` is not one of the application's events: stubbed".into()
            ),
            (
                "134".into(),
                "`OnEnemyDamage` is not one of the application's events: stubbed".into()
            ),
            (
                "198".into(),
                "`GroupMemberDied` is not one of the application's events: stubbed".into()
            ),
        ]
    );
    let l = loaded(load);
    assert_eq!(
        l.stub_events,
        [
            Box::from("OnEnemySeen"),
            "OnEnemyDamage".into(),
            "GroupMemberDied".into()
        ]
    );
    assert_eq!(l.shape.events(), l.stub_events.as_slice());
    // An event parameter is stubbed too, after the application's events.
    let mut c = catalog();
    c.declare("Say", LeafSchema::action());
    let text =
        r#"<Sequence> <WaitForEvent name="OnHeard"/> <SendEvent name="OnEnemySeen"/> </Sequence>"#;
    let load = treebeard_load::load_str("e.xml", text, &c, &options);
    let l = loaded(load);
    assert_eq!(l.stub_events, [Box::from("OnHeard")]);
    assert_eq!(l.shape.events().len(), 3);
    assert_eq!(l.shape.params(NodeIdx::new(1)), [2]);
}

/// The position the compiler itself gives an error in a script: the
/// script parameter's position (one column before the script) plus one
/// plus the offset in the script, which lands on the offending character
/// as written when nothing before it is escaped.
#[test]
fn the_compilers_column_of_a_script_error_is_the_files() {
    use treebeard_load::document::Document;
    use treebeard_load::source::SourceMap;
    use treebeard_load::xml::{self, XmlOptions};
    use treebeard_load::{Diagnostics, native, resolve};
    use treebeard_shape::{Options, compile_with};

    let cases = [
        (
            "t.json",
            r#"{"type": "AssertCondition", "params": {"condition": "alert && hungr"}}"#,
        ),
        (
            "t.ron",
            r#"(type: "AssertCondition", params: {"condition": "alert && hungr"})"#,
        ),
        (
            "t.ron",
            r##"(type: "AssertCondition", params: {"condition": r#"alert && hungr"#})"##,
        ),
        ("t.xml", r#"<AssertCondition condition="alert || hungr"/>"#),
        (
            "t.xml",
            "<AssertCondition condition=\u{201d}alert || hungr\u{201d}/>",
        ),
        (
            "t.xml",
            r#"<root BTCPP_format="4"><BehaviorTree ID="t"><ScriptCondition code="ammo := 1; hungr"/></BehaviorTree></root>"#,
        ),
    ];
    for (name, text) in cases {
        let mut map = SourceMap::new();
        let file = map.add(name, text.into());
        let mut diags = Diagnostics::new();
        let doc: Option<Document> = match name {
            "t.json" => native::read_json(&map, file, &mut diags),
            "t.ron" => native::read_ron(&map, file, &mut diags),
            _ => xml::read(&map, file, &XmlOptions::default(), &mut diags),
        };
        let docs = [doc.expect("a document")];
        let c = catalog();
        let resolved = resolve::resolve(&docs, &map, &c, None, None, &mut diags);
        let options = Options {
            files: map.names(),
            declarations: resolved.declarations.clone(),
            ..Options::default()
        };
        let error = compile_with(&resolved.tree.expect("a tree"), &c, &options).unwrap_err();
        let source = error.problems()[0].source().expect("a place");
        let (line, column) = map.file(file).line_column(text.find("hungr").unwrap());
        assert_eq!((source.line, source.column), (line, column), "{text}");
    }
}
