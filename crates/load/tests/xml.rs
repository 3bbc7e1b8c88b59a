//! The XML readers: Lumberyard MBT and BehaviorTree.CPP v4 files, read into
//! documents with spans and diagnostics.

use proptest::prelude::*;
use std::fmt::Write;
use treebeard_load::diagnostic::Diagnostics;
use treebeard_load::document::{Dialect, Document, NodeDecl, PolicyDecl, TreeDecl, What};
use treebeard_load::source::{SourceMap, Span};
use treebeard_load::xml::{self, MAX_DEPTH, XmlOptions};
use treebeard_shape::tree::Count;
use treebeard_shape::{Kind, LogEvent, ParamValue};

const STRICT: XmlOptions = XmlOptions {
    stub_unknown: false,
};
const STUB: XmlOptions = XmlOptions { stub_unknown: true };

/// One file read.
struct Loaded {
    map: SourceMap,
    doc: Option<Document>,
    diags: Diagnostics,
}

fn read(name: &str, text: &str, options: XmlOptions) -> Loaded {
    let mut map = SourceMap::new();
    let file = map.add(name, text.into());
    let mut diags = Diagnostics::new();
    let doc = xml::read(&map, file, &options, &mut diags);
    Loaded { map, doc, diags }
}

/// Reads `tests/trees/<path>` of the repository (shared with the scenario corpus).
fn load(path: &str, options: XmlOptions) -> Loaded {
    let full = format!("{}/../../tests/trees/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    read(path, &text, options)
}

impl Loaded {
    fn doc(&self) -> &Document {
        self.doc.as_ref().expect("a document")
    }

    fn tree(&self, name: &str) -> &TreeDecl {
        let doc = self.doc();
        doc.trees
            .iter()
            .find(|t| &*t.name == name)
            .unwrap_or_else(|| panic!("no tree {name} in {:?}", tree_names(doc)))
    }

    /// `line:column` of the start of `span`.
    fn at(&self, span: Span) -> String {
        let (line, column) = self.map.file(span.file).line_column(span.start as usize);
        format!("{line}:{column}")
    }

    /// Each diagnostic as `severity line:column message`.
    fn diags(&self) -> Vec<String> {
        self.diags
            .items()
            .iter()
            .map(|d| {
                let at = d.span.map_or("-".into(), |s| self.at(s));
                format!("{} {at} {}", d.severity, d.message)
            })
            .collect()
    }

    /// The tree under `node` in one line: `Kind`, `leaf`, `>subtree`,
    /// `!unsupported`, then `#name`, `[attr=value, ...]` and `(children)`.
    /// Checks on the way that every span covers what it stands for.
    fn outline(&self, node: &NodeDecl) -> String {
        assert_eq!(
            self.map.text(node.span),
            &*node.written,
            "span of {}",
            node.written
        );
        let mut out = match &node.what {
            What::Decider(kind, None) => kind.name().to_owned(),
            What::Decider(kind, Some(policy)) => format!("{}{}", kind.name(), self.policy(policy)),
            What::Leaf(name) => {
                assert_eq!(name, &node.written);
                name.to_string()
            }
            What::SubTree(name) => format!(">{name}"),
            What::Unsupported(_) | What::BuiltIn(_) => format!("!{}", node.written),
        };
        if let Some(name) = &node.name {
            write!(out, "#{name}").unwrap();
        }
        if !node.attrs.is_empty() {
            let attrs: Vec<String> = node
                .attrs
                .iter()
                .map(|a| {
                    let value = match &a.value {
                        ParamValue::Str(value) => value.to_string(),
                        // `isLessThan` sets `less_than`.
                        ParamValue::Bool(true) if &*a.name == "less_than" => "true".into(),
                        // LimitConcurrentUsers is a gate that waits.
                        ParamValue::Bool(true) if &*a.name == "wait" => "true".into(),
                        other => panic!("{other:?} is not text"),
                    };
                    let written = self.map.text(a.span);
                    assert!(
                        written == value
                            || written == "{=}" && value == format!("{{{}}}", a.name)
                            || written == "isLessThan" && &*a.name == "less_than"
                            // Converted: milliseconds, BT.CPP's forever,
                            // BT.CPP's `:=`; a missing LuaWrapper script.
                            || value == format!("{written}ms")
                            || written == "-1" && value == "0"
                            || value == written.replace(":=", " =")
                            || value == written.replace("&gt;", ">").replace("&amp;", "&")
                            || written == "LuaWrapper" && value == "true"
                            || written == "LimitConcurrentUsers" && &*a.name == "wait",
                        "span of {}: {written}",
                        a.name
                    );
                    format!("{}={value}", a.name)
                })
                .collect();
            write!(out, "[{}]", attrs.join(", ")).unwrap();
        }
        if !node.children.is_empty() {
            let children: Vec<String> = node.children.iter().map(|c| self.outline(c)).collect();
            write!(out, "({})", children.join(", ")).unwrap();
        }
        out
    }

    fn policy(&self, p: &PolicyDecl) -> String {
        let count = |c: Option<(Count, Span)>| match c {
            None => "-".to_owned(),
            Some((count, span)) => format!("{count:?}@{}", self.map.text(span)),
        };
        format!("{{{} {}}}", count(p.succeed), count(p.fail))
    }

    fn outline_of(&self, tree: &str) -> String {
        self.outline(&self.tree(tree).root)
    }
}

fn tree_names(doc: &Document) -> Vec<&str> {
    doc.trees.iter().map(|t| &*t.name).collect()
}

/// The typographic-quote warning at `at`.
fn quotes(at: &str) -> String {
    format!("warning {at} typographic quotes read as straight quotes")
}

/// Checks an MBT file of one tree, named after the file, and returns it.
fn mbt(path: &str, options: XmlOptions) -> Loaded {
    let loaded = load(path, options);
    let doc = loaded.doc();
    let stem = path.trim_start_matches("mbt/").trim_end_matches(".xml");
    assert_eq!(doc.dialect, Dialect::Mbt);
    assert_eq!(tree_names(doc), [stem]);
    assert_eq!(doc.main.as_ref().map(|m| &*m.0), Some(stem));
    assert!(doc.includes.is_empty());
    loaded
}

// --- MBT: the seed document's examples, as typeset ---

#[test]
fn mbt_limit_concurrent_users() {
    let l = mbt("mbt/limit_concurrent_users.xml", STRICT);
    assert_eq!(l.diags(), [quotes("1:60")]);
    assert_eq!(
        l.outline_of("limit_concurrent_users"),
        "Selector(Gate[max=1, wait=true](ChasePlayer), TauntPlayer)"
    );
    let tree = l.tree("limit_concurrent_users");
    assert_eq!(l.map.text(tree.span), "BehaviorTree");
    // Seed 001's gate, with MBT's attribute.
    let limit = &tree.root.children[0];
    assert_eq!(limit.what, What::Decider(Kind::Gate, None));
    assert_eq!(l.at(limit.span), "1:35");
    assert_eq!(l.at(limit.attrs[0].span), "1:61");
    assert_eq!(l.at(limit.children[0].span), "1:66");
}

#[test]
fn mbt_fragment_names_the_tree_after_the_file() {
    let l = mbt("mbt/configuration_data.xml", STRICT);
    assert_eq!(l.diags(), [quotes("1:30")]);
    assert_eq!(
        l.outline_of("configuration_data"),
        "Sequence(Communicate[name=Hello], Animate[name=LookAround], Wait[seconds=2.0], \
         Communicate[name=WeShouldGetSomeFood])"
    );
    let tree = l.tree("configuration_data");
    assert_eq!(l.map.text(tree.span), "Sequence");
    // `name` is a parameter in MBT, not the node's name.
    assert_eq!(tree.root.children[0].name, None);
    // MBT's Wait is the built-in Wait; its `duration` is `seconds`.
    let wait = &tree.root.children[2];
    assert_eq!(wait.what, What::Decider(Kind::Wait, None));
    assert_eq!(l.map.text(wait.attrs[0].name_span), "duration");
}

#[test]
fn mbt_variables_and_signals() {
    let l = mbt("mbt/variables.xml", STRICT);
    assert_eq!(l.diags(), [quotes("1:298")]);
    assert_eq!(
        l.outline_of("variables"),
        "Selector(IfCondition[condition=TargetVisible](Move[to=Target]), \
         Animate[name=LookAroundForTarget])"
    );
    let declared = &l.doc().declarations;
    let variables: Vec<(&str, bool, String, String)> = declared
        .variables
        .iter()
        .map(|v| (&*v.name.0, v.initial, l.at(v.span), l.at(v.name.1)))
        .collect();
    assert_eq!(
        variables,
        [("TargetVisible", false, "1:29".into(), "1:44".into())]
    );
    let signals: Vec<(&str, &str, bool, String, String)> = declared
        .signals
        .iter()
        .map(|s| {
            let at = l.at(s.span);
            (&*s.event.0, &*s.variable.0, s.value, at, l.at(s.event.1))
        })
        .collect();
    assert_eq!(
        signals,
        [
            (
                "OnEnemySeen",
                "TargetVisible",
                true,
                "1:94".into(),
                "1:107".into()
            ),
            (
                "OnLostSightOfTarget",
                "TargetVisible",
                false,
                "1:162".into(),
                "1:175".into()
            ),
        ]
    );
    assert!(declared.timestamps.is_empty());
}

#[test]
fn mbt_declaration_sections() {
    let text = r#"<BehaviorTree>
  <Variables>
    <Variable name="Alert" value="1"/> <Variable name="Calm" value="0"/>
    <Variable name="Idle" value="false"/> <Variable name="Busy" value="true"/>
  </Variables>
  <Timestamps>
    <Timestamp name="TargetSpotted" setOnEvent="OnEnemySeen" exclusiveTo="TargetLost"/>
    <Timestamp name="TargetLost" setOnEvent="OnLostSightOfTarget"/>
  </Timestamps>
  <Root> <Move/> </Root>
</BehaviorTree>"#;
    let l = read("d.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    let declared = &l.doc().declarations;
    let variables: Vec<(&str, bool)> = declared
        .variables
        .iter()
        .map(|v| (&*v.name.0, v.initial))
        .collect();
    assert_eq!(
        variables,
        [
            ("Alert", true),
            ("Calm", false),
            ("Idle", false),
            ("Busy", true)
        ]
    );
    let stamps: Vec<(&str, &str, Option<&str>)> = declared
        .timestamps
        .iter()
        .map(|t| {
            let exclusive = t.exclusive_to.as_ref().map(|e| &*e.0);
            (&*t.name.0, &*t.event.0, exclusive)
        })
        .collect();
    assert_eq!(
        stamps,
        [
            ("TargetSpotted", "OnEnemySeen", Some("TargetLost")),
            ("TargetLost", "OnLostSightOfTarget", None)
        ]
    );
    let spotted = &declared.timestamps[0];
    assert_eq!(l.at(spotted.exclusive_to.as_ref().unwrap().1), "7:75");
}

#[test]
fn mbt_declaration_errors() {
    let text = r#"<BehaviorTree>
  <Variables x="1">
    <Variable nam="A"/> <Variable name="B" value="yes"/> <Signal name="E"/>
  </Variables>
  <SignalVariables>
    <Signal name="E" variable="B"/> <Signal name="E" variable="B" value="true" to="C"/>
  </SignalVariables>
  <Timestamps> <Timestamp name="T"/> </Timestamps>
  <Root> <Move/> </Root>
</BehaviorTree>"#;
    let l = read("d.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 2:17 attribute `x` of `<Variables>` is not supported yet",
            "error 3:15 `<Variable>` has no attribute `nam`",
            // Each section's elements are checked before their attributes.
            "error 3:59 `<Signal>` in `<Variables>`",
            "error 3:6 `<Variable>` needs `name`",
            "error 3:51 `value` must be true or false, not `yes`",
            "error 6:80 `<Signal>` has no attribute `to`",
            "error 6:6 `<Signal>` needs `value`",
            "error 8:17 `<Timestamp>` needs `setOnEvent`",
        ]
    );
    assert_eq!(
        l.diags.items()[1].help.as_deref(),
        Some("did you mean `name`?")
    );
    // What could be read is kept.
    let declared = &l.doc().declarations;
    assert_eq!(declared.variables.len(), 1);
    assert_eq!(declared.signals.len(), 1);
    assert!(declared.timestamps.is_empty());
}

#[test]
fn mbt_lua_nodes() {
    for (file, at, outline, kind) in [
        (
            "execute_lua",
            "1:18",
            "Script[script=DoSomething()]",
            Kind::Script,
        ),
        (
            "lua_wrapper",
            "1:21",
            "ScriptWrapper[enter=StartParticleEffect(), exit=StopParticleEffect()](Move[to=Cover])",
            Kind::ScriptWrapper,
        ),
        (
            "lua_gate",
            "1:15",
            "ScriptGate[test=return IsAppleGreen()](EatApple)",
            Kind::ScriptGate,
        ),
        (
            "assert_lua",
            "1:28",
            "Sequence(AssertScript[test=return entity.someCounter == 75], \
             AssertCondition[condition=TargetVisible], Move[to=Target])",
            Kind::AssertScript,
        ),
    ] {
        // The reader maps the nodes; their Lua code fails to compile when
        // the tree loads (see `errors.rs`).
        let l = mbt(&format!("mbt/{file}.xml"), STRICT);
        assert_eq!(l.diags(), [quotes(at)], "{file}");
        assert_eq!(l.outline_of(file), outline);
        let root = &l.tree(file).root;
        let lua = if root.children.len() == 3 {
            &root.children[0]
        } else {
            root
        };
        assert_eq!(lua.what, What::Decider(kind, None), "{file}");
        assert_eq!(
            l.map.text(lua.attrs[0].name_span),
            if kind == Kind::ScriptWrapper {
                "onEnter"
            } else {
                "code"
            }
        );
    }
}

#[test]
fn mbt_built_in_nodes_and_their_attributes() {
    let text = r#"<Sequence>
  <Loop count="3"> <LoopUntilSuccess attemptCount="2"> <Timeout duration="1.5"> <Move/> </Timeout> </LoopUntilSuccess> </Loop>
  <Wait duration="2"/>
  <IfCondition condition="Alert"> <Move/> </IfCondition>
  <AssertCondition condition="!Alert"/>
  <SendEvent name="OnEnemySeen"/> <WaitForEvent name="OnEnemySeen"/>
  <LuaWrapper onExit="hunger = 0"> <Move/> </LuaWrapper>
  <LuaWrapper onEnter="hunger = 1"> <Move/> </LuaWrapper>
  <SuppressFailure> <Move/> </SuppressFailure> <Inverter> <Move/> </Inverter>
  <ForceSuccess> <Move/> </ForceSuccess> <ForceFailure> <Move/> </ForceFailure>
</Sequence>"#;
    let l = read("b.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("b"),
        "Sequence(Loop[count=3](LoopUntilSuccess[attempts=2](Timeout[seconds=1.5](Move))), \
         Wait[seconds=2], IfCondition[condition=Alert](Move), AssertCondition[condition=!Alert], \
         SendEvent[event=OnEnemySeen], WaitForEvent[event=OnEnemySeen], \
         ScriptWrapper[exit=hunger = 0, enter=true](Move), \
         ScriptWrapper[enter=hunger = 1, exit=true](Move), \
         ForceSuccess(Move), Inverter(Move), ForceSuccess(Move), ForceFailure(Move))"
    );
}

#[test]
fn mbt_built_in_attribute_errors() {
    let text = r#"<Sequence>
  <IfTime since="T"> <Move/> </IfTime>
  <WaitUntilTime since="T" isMoreThan="1" isLessThan="2"/>
  <Timeout durration="1"> <Move/> </Timeout>
  <Wait duration="1" variation="0.5"/>
  <WaitForEvent/>
</Sequence>"#;
    let strict = read("b.xml", text, STRICT);
    assert_eq!(
        strict.diags(),
        [
            "error 2:4 `<IfTime>` needs `isMoreThan` or `isLessThan`",
            "error 3:43 `<WaitUntilTime>` takes `isMoreThan` or `isLessThan`, not both",
            "error 4:12 `<Timeout>` has no attribute `durration`",
            "error 4:4 `<Timeout>` needs `duration`",
            "error 5:33 attribute `variation` of `<Wait>` is not supported yet",
            "error 6:4 `<WaitForEvent>` needs `name`",
        ]
    );
    let help = |i: usize| strict.diags.items()[i].help.clone().unwrap_or_default();
    assert!(help(0).starts_with("write isMoreThan=\"5\""), "{}", help(0));
    assert_eq!(help(2), "did you mean `duration`?");
    let stub = read("b.xml", text, STUB);
    assert!(
        stub.diags()[4].starts_with("warning 5:33"),
        "{:?}",
        stub.diags()
    );
}

#[test]
fn mbt_timestamps() {
    let l = mbt("mbt/timestamps.xml", STRICT);
    assert_eq!(l.diags(), [quotes("1:271")]);
    assert_eq!(
        l.outline_of("timestamps"),
        "Sequence(WaitUntilTime[since=ReceivedDamage, seconds=5, or_never=1], \
         Selector(IfTime[since=GroupMemberDied, seconds=10, less_than=true](MoveCautiouslyTowardsTarget), \
         MoveConfidentallyTowardsTarget))"
    );
    let stamps: Vec<(&str, &str, String)> = l
        .doc()
        .declarations
        .timestamps
        .iter()
        .map(|t| (&*t.name.0, &*t.event.0, l.at(t.event.1)))
        .collect();
    assert_eq!(
        stamps,
        [
            ("TargetSpotted", "OnEnemySeen", "1:73".into()),
            ("ReceivedDamage", "OnEnemyDamage", "1:134".into()),
            ("GroupMemberDied", "GroupMemberDied", "1:198".into()),
        ]
    );
}

#[test]
fn mbt_wait_for_event() {
    let l = mbt("mbt/wait_for_event.xml", STRICT);
    assert_eq!(l.diags(), [quotes("1:31")]);
    assert_eq!(
        l.outline_of("wait_for_event"),
        "Sequence(WaitForEvent[event=OnEnemySeen], Communicate[name=ThereHeIs])"
    );
}

#[test]
fn mbt_log_attributes_are_read_as_the_nodes_messages() {
    // Seed 002's example: the log attributes are no parameters.
    for options in [STRICT, STUB] {
        let l = mbt("mbt/logging.xml", options);
        assert!(l.diags.is_empty(), "{:?}", l.diags());
        assert_eq!(
            l.outline_of("logging"),
            "Sequence(QueryTPS[name=CoverFromTarget], Move[to=Cover])"
        );
        let root = &l.tree("logging").root;
        let logs: Vec<Vec<(LogEvent, &str)>> = root
            .children
            .iter()
            .map(|c| c.logs.iter().collect())
            .collect();
        assert_eq!(
            logs,
            [
                vec![
                    (LogEvent::Start, "Finding cover"),
                    (LogEvent::Failure, "Failed to find cover")
                ],
                vec![
                    (LogEvent::Start, "Advancing"),
                    (LogEvent::Success, "Advanced"),
                    (LogEvent::Failure, "Failed to advance")
                ],
            ]
        );
        assert!(root.logs.is_empty());
    }
}

#[test]
fn mbt_hand_written_tree() {
    let l = mbt("mbt/soldier.xml", STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("soldier"),
        "Selector(Sequence(IsTargetVisible, Concurrent{AtLeast(1)@any All@all}(\
         Shoot[target=Target, burst=3], AdjustCoverStance[stance=crouch])), \
         Concurrent{- -}(Move[to=Cover, speed=Run], Communicate[name=MovingToCover]), \
         Animate[name=LookAround])"
    );
    let root = &l.tree("soldier").root;
    assert_eq!(l.at(root.span), "3:6");
    assert!(
        root.children[0].children[1].attrs.is_empty(),
        "modes are the policy"
    );
    let What::Decider(_, Some(policy)) = root.children[0].children[1].what else {
        panic!("a policy")
    };
    assert_eq!(l.at(policy.succeed.unwrap().1), "6:32");
    assert_eq!(l.at(policy.fail.unwrap().1), "6:50");
}

#[test]
fn mbt_structure_errors() {
    let l = read(
        "bad.xml",
        "<BehaviorTree version=\"1\">\n<Root>\n<Parallel successMode=\"most\">\
         <A/><B/></Parallel>\n<C/>\n</Root>\n<Root><D/></Root>\n</BehaviorTree>",
        STRICT,
    );
    assert_eq!(
        l.diags(),
        [
            "error 1:24 attribute `version` of `<BehaviorTree>` is not supported yet",
            "error 3:24 unknown parallel mode `most`",
            "error 4:2 `<Root>` holds more than one node",
            "error 6:2 a second `<Root>` section",
        ]
    );
    assert_eq!(l.outline_of("bad"), "Concurrent{- -}(A, B)");

    let l = read(
        "empty_root.xml",
        "<BehaviorTree><Root> </Root></BehaviorTree>",
        STRICT,
    );
    assert_eq!(l.diags(), ["error 1:16 `<Root>` holds no node"]);
    assert!(l.doc.is_none());

    let l = read(
        "no_root.xml",
        "<BehaviorTree><Metadata/></BehaviorTree>",
        STUB,
    );
    assert_eq!(
        l.diags(),
        [
            "warning 1:16 MBT's `<Metadata>` section is not supported yet and is ignored",
            "error 1:2 no `<Root>` section: the file holds no tree",
        ]
    );
    assert!(l.doc.is_none());
}

#[test]
fn text_inside_nodes_is_reported() {
    let l = read(
        "text.xml",
        "<Sequence>\n  <Move/> move to cover\n</Sequence>",
        STRICT,
    );
    assert_eq!(
        l.diags(),
        ["warning 2:11 text inside `<Sequence>` is ignored"]
    );
    assert_eq!(
        l.map.text(l.diags.items()[0].span.unwrap()),
        "move to cover"
    );
    assert_eq!(l.outline_of("text"), "Sequence(Move)");
}

// --- BehaviorTree.CPP v4 ---

#[test]
fn btcpp_main_file() {
    let l = load("btcpp/herd.xml", STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    let doc = l.doc();
    assert_eq!(doc.dialect, Dialect::BtCpp);
    assert_eq!(tree_names(doc), ["Herd", "Flee", "Regroup"]);
    let (main, span) = doc.main.as_ref().unwrap();
    assert_eq!((&**main, l.at(*span)), ("Herd", "3:46".into()));
    let includes: Vec<_> = doc.includes.iter().map(|(p, s)| (&**p, l.at(*s))).collect();
    assert_eq!(includes, [("grazing.xml", "4:18".into())]);
    assert_eq!(
        l.outline_of("Herd"),
        "PrioritySelector#alert(ReactiveSequence#threatened(\
         PredatorNear[radius=12.5, predator={predator}], \
         >Flee#run_away[threat={predator}, gait=sprint]), \
         Selector(Sequence#stay_close(Inverter(NearHerd[max_distance=8]), \
         >Regroup[herd_center={herd_center}]), >Graze[hunger={hunger}]))"
    );
    assert_eq!(
        l.outline_of("Flee"),
        "Concurrent{AtLeast(1)@1 All@-1}(RunFrom[target={threat}, gait={gait}], Bleat[loudness=0.9])"
    );
    assert_eq!(
        l.outline_of("Regroup"),
        "Sequence(FindHerdCenter[center={herd_center}], MoveTo[goal={herd_center}, gait=trot])"
    );
    let herd = l.tree("Herd");
    assert_eq!(
        (l.map.text(herd.span), l.at(herd.span)),
        ("Herd", "6:21".into())
    );
    assert_eq!(l.at(herd.root.span), "7:6");
    let flee = &herd.root.children[0].children[1];
    assert_eq!(l.at(flee.span), "10:10");
    assert_eq!(flee.what, What::SubTree("Flee".into()));
    let regroup = &herd.root.children[1].children[0].children[1];
    assert_eq!(l.map.text(regroup.attrs[0].span), "{=}");
    // The explicit form is written where its ID is.
    let run_from = &l.tree("Flee").root.children[0];
    assert_eq!(run_from.what, What::Leaf("RunFrom".into()));
    assert_eq!(l.at(run_from.span), "26:19");
}

#[test]
fn btcpp_included_file() {
    let l = load("btcpp/grazing.xml", STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    let doc = l.doc();
    assert_eq!((doc.main.clone(), doc.includes.len()), (None, 0));
    assert_eq!(
        l.outline_of("Graze"),
        "Sequence(IsHungry[hunger={hunger}, above=0.3], FindGrass[radius=20, patch={patch}], \
         MoveTo[goal={patch}, gait=walk], \
         Concurrent{- -}(Eat[patch={patch}, bites=5], ForceSuccess(WatchForPredators)))"
    );
}

#[test]
fn btcpp_built_in_decorators_and_actions() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <Repeat num_cycles="3">
        <Decorator ID="Timeout" msec="200">
          <RetryUntilSuccessful num_attempts="-1"> <Sleep msec="100"/> </RetryUntilSuccessful>
        </Decorator>
      </Repeat>
      <Script code="n := n + 1"/>
      <ScriptCondition code="n &gt; 3 &amp;&amp; ready"/>
      <RetryUntilSuccesful num_attempts="2"> <Sleep msec="0.5"/> </RetryUntilSuccesful>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "Sequence(Loop[count=3](Timeout[seconds=200ms](LoopUntilSuccess[attempts=0](\
         Wait[seconds=100ms]))), Script[script=n  = n + 1], AssertScript[test=n > 3 && ready], \
         LoopUntilSuccess[attempts=2](Wait[seconds=0.5ms]))"
    );
}

#[test]
fn btcpp_built_ins_treebeard_lacks_keep_children_and_ports() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Delay delay_msec="50">
      <Decorator ID="RunOnce"> <Sleep msec="100"/> </Decorator>
    </Delay>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "!Delay[delay_msec=50](!RunOnce(Wait[seconds=100ms]))"
    );
    let root = &l.tree("T").root;
    // Built-ins: never stubbed (see the resolver's tests).
    assert_eq!(
        root.what,
        What::BuiltIn("BehaviorTree.CPP's Delay decorator")
    );
    assert_eq!(
        root.children[0].what,
        What::BuiltIn("BehaviorTree.CPP's RunOnce decorator")
    );
}

#[test]
fn btcpp_built_in_port_errors() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <Repeat num_cycles="0"> <A/> </Repeat>
      <Timeout msec="{limit}"> <A/> </Timeout>
      <Sleep mesc="10"/>
      <Script/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 4:27 `num_cycles=\"0\"` of `Repeat` never runs the child, which treebeard cannot express",
            "error 5:22 `msec` of `Timeout` must be a number of milliseconds, not `{limit}`",
            "error 6:14 `Sleep` has no port `mesc`",
            "error 6:8 `Sleep` needs port `msec`",
            "error 7:8 `Script` needs port `code`",
        ]
    );
    assert_eq!(
        l.diags.items()[2].help.as_deref(),
        Some("did you mean `msec`?")
    );
}

#[test]
fn btcpp_scripts_and_reserved_attributes() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence _skipIf="hungry" _autoremap="true">
      <Eat _onSuccess="fed := true" name="eat" amount="{=}"/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let strict = read("t.xml", text, STRICT);
    assert_eq!(
        strict.diags(),
        [
            "error 3:24 BehaviorTree.CPP's pre-condition `_skipIf` is not supported yet",
            "error 3:44 BehaviorTree.CPP's reserved attribute `_autoremap` is not supported yet",
            "error 4:24 BehaviorTree.CPP's post-condition `_onSuccess` is not supported yet",
        ]
    );
    // With stubs, the unknown reserved attribute is ignored; the pre- and
    // post-conditions, BT.CPP's own behaviour, are errors still.
    let stub = read("t.xml", text, STUB);
    assert_eq!(
        stub.diags(),
        [
            "error 3:24 BehaviorTree.CPP's pre-condition `_skipIf` is not supported yet",
            "warning 3:44 BehaviorTree.CPP's reserved attribute `_autoremap` is not supported yet and is ignored",
            "error 4:24 BehaviorTree.CPP's post-condition `_onSuccess` is not supported yet",
        ]
    );
    assert_eq!(stub.outline_of("T"), "Sequence(Eat#eat[amount={amount}])");
}

#[test]
fn btcpp_format_versions() {
    let l = read(
        "v3.xml",
        r#"<root BTCPP_format="3"><BehaviorTree ID="T"><A/></BehaviorTree></root>"#,
        STRICT,
    );
    assert_eq!(
        l.diags(),
        ["error 1:21 BehaviorTree.CPP format `3` is not supported"]
    );
    let l = read(
        "v.xml",
        "<root>\n<BehaviorTree ID=\"T\"><A/></BehaviorTree></root>",
        STRICT,
    );
    assert_eq!(
        l.diags(),
        ["warning 1:2 no BTCPP_format: BehaviorTree.CPP v4 assumed"]
    );
    assert_eq!(l.outline_of("T"), "A");
}

#[test]
fn btcpp_structure_errors() {
    let text = r#"<root BTCPP_format="4" colour="green">
<include ros_pkg="herd"/>
<BehaviorTree><A/></BehaviorTree>
<BehaviorTree ID="Empty"></BehaviorTree>
<BehaviorTree ID="Two"><A/><B/></BehaviorTree>
<BehaviorTree ID="P">
  <Parallel success_count="0" failure_count="{n}">
    <Action/>
    <SubTree name="x"/>
    <Parallel success_count="70000"><C/></Parallel>
  </Parallel>
</BehaviorTree>
<Blackboard/>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 1:32 attribute `colour` of `<root>` is not supported yet",
            "error 2:19 attribute `ros_pkg` of `<include>` is not supported yet",
            "error 2:2 `<include>` without a `path`",
            "error 3:2 `<BehaviorTree>` without an `ID`, beside other trees",
            "error 4:2 tree `Empty` holds no node",
            "error 5:29 `<BehaviorTree>` holds more than one node",
            "error 7:28 `success_count` must be a positive count, or -k for all children but k - 1",
            "error 7:46 `failure_count` must be a positive count, or -k for all children but k - 1",
            "error 8:6 `<Action>` without an `ID`",
            "error 9:6 `<SubTree>` without an `ID`",
            "error 10:30 `success_count` must be a positive count, or -k for all children but k - 1",
            "error 13:2 BehaviorTree.CPP's `<Blackboard>` section is not supported yet",
        ]
    );
    assert_eq!(tree_names(l.doc()), ["Two", "P"]);
    assert_eq!(l.outline_of("Two"), "A");
    assert_eq!(
        l.outline_of("P"),
        "Concurrent{- -}(Action, SubTree#x, Concurrent{- -}(C))"
    );
}

#[test]
fn files_without_trees() {
    let l = read(
        "none.xml",
        r#"<root BTCPP_format="4"><TreeNodesModel/></root>"#,
        STRICT,
    );
    assert_eq!(l.diags(), ["error 1:2 the file holds no tree"]);
    assert!(l.doc.is_none());
    // A file of includes only is a document.
    let l = read(
        "inc.xml",
        r#"<root BTCPP_format="4"><include path="a.xml"/></root>"#,
        STRICT,
    );
    assert!(l.diags.is_empty());
    assert_eq!(l.doc().includes.len(), 1);
    let l = read("mbt.xml", "<BehaviorTree/>", STRICT);
    assert_eq!(
        l.diags(),
        ["error 1:2 no `<Root>` section: the file holds no tree"]
    );
    assert!(l.doc.is_none());
}

// --- malformed input ---

#[test]
fn an_unclosed_tag_is_one_error_where_it_shows() {
    let text = "<BehaviorTree>\n  <Root>\n    <Sequence>\n      <Move to=\"Cover\">\n    </Sequence>\n  </Root>\n</BehaviorTree>\n";
    let l = read("unclosed.xml", text, STRICT);
    assert!(l.doc.is_none());
    assert_eq!(
        l.diags(),
        ["error 5:5 malformed XML: expected 'Move' tag, not 'Sequence'"]
    );
    let help = l.diags.items()[0].help.clone().unwrap();
    assert!(help.contains("not well-formed XML"), "{help}");
    assert!(help.contains("`<Move>`"), "{help}");
}

#[test]
fn syntax_errors_after_typographic_quotes_are_placed_in_the_file() {
    // Straightening changes columns in the parsed text, not in the file.
    let text = "<Sequence> <Wait duration=\u{201D}2\u{201D}/> <A b=c/> </Sequence>";
    let l = read("t.xml", text, STRICT);
    let diags = l.diags();
    assert_eq!(diags[0], quotes("1:27"));
    assert_eq!(diags.len(), 2);
    let error = l.diags.items()[1].span.unwrap();
    assert_eq!(l.map.text(error), "c", "{diags:?}");
}

#[test]
fn an_empty_file_is_an_error() {
    for text in ["", "  \n", "<?xml version=\"1.0\"?>"] {
        let l = read("empty.xml", text, STRICT);
        assert!(l.doc.is_none());
        let diags = l.diags();
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].starts_with("error 1:1 malformed XML"), "{diags:?}");
    }
    let l = read("eof.xml", "<Sequence>\n<A/>", STRICT);
    assert_eq!(l.diags().len(), 1);
    assert_eq!(l.at(l.diags.items()[0].span.unwrap()), "2:5");
}

fn nested(depth: usize) -> String {
    let mut text = "<Sequence>".repeat(depth - 1);
    text.push_str("<Leaf/>");
    text.push_str(&"</Sequence>".repeat(depth - 1));
    text
}

#[test]
fn nesting_is_limited_without_recursion() {
    let l = read("deep.xml", &nested(MAX_DEPTH), STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    let mut node = &l.tree("deep").root;
    let mut depth = 1;
    while let Some(child) = node.children.first() {
        (node, depth) = (child, depth + 1);
    }
    assert_eq!((depth, &*node.written), (MAX_DEPTH, "Leaf"));

    let l = read("deeper.xml", &nested(MAX_DEPTH + 1), STRICT);
    let at = format!("1:{}", MAX_DEPTH * 10 + 2);
    assert_eq!(
        l.diags(),
        [format!(
            "error {at} nodes are nested deeper than 1024 levels"
        )]
    );
}

#[test]
fn a_hundred_thousand_levels_are_an_error_not_a_crash() {
    let l = read("abyss.xml", &nested(100_000), STUB);
    assert_eq!(
        l.diags(),
        [format!(
            "error 1:{} nodes are nested deeper than 1024 levels",
            MAX_DEPTH * 10 + 2
        )]
    );
    assert_eq!(l.doc().trees.len(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        read("any.xml", &text, STRICT);
    }

    #[test]
    fn xml_like_text_never_panics(
        body in "[<>/=\"' \u{201C}\u{201D}a-zA-Z_{}!?-]{0,120}",
        stub in any::<bool>(),
    ) {
        let options = XmlOptions { stub_unknown: stub };
        for text in [
            body.clone(),
            format!("<root BTCPP_format=\"4\"><BehaviorTree ID=\"T\">{body}</BehaviorTree></root>"),
            format!("<BehaviorTree><Root>{body}</Root></BehaviorTree>"),
            format!("<Sequence a=\u{201D}{body}\u{201D}>{body}</Sequence>"),
        ] {
            let l = read("any.xml", &text, options);
            if l.doc.is_none() {
                prop_assert!(l.diags.has_errors());
            }
        }
    }
}
