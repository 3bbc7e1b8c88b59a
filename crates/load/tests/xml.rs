//! The XML readers: Lumberyard MBT and BehaviorTree.CPP v4 files, read into
//! documents with spans and diagnostics.

use proptest::prelude::*;
use std::fmt::Write;
use treebeard_load::diagnostic::Diagnostics;
use treebeard_load::document::{Dialect, Document, NodeDecl, PolicyDecl, TreeDecl, What};
use treebeard_load::source::{SourceMap, Span};
use treebeard_load::xml::{self, MAX_DEPTH, XmlOptions};
use treebeard_shape::ParamValue;
use treebeard_shape::tree::Count;

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
            What::Unsupported(_) => format!("!{}", node.written),
        };
        if let Some(name) = &node.name {
            write!(out, "#{name}").unwrap();
        }
        if !node.attrs.is_empty() {
            let attrs: Vec<String> = node
                .attrs
                .iter()
                .map(|a| {
                    let ParamValue::Str(value) = &a.value else {
                        panic!("{:?} is not text", a.value)
                    };
                    let written = self.map.text(a.span);
                    assert!(
                        written == &**value
                            || written == "{=}" && **value == format!("{{{}}}", a.name),
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
        "Selector(!LimitConcurrentUsers[max=1](ChasePlayer), TauntPlayer)"
    );
    let tree = l.tree("limit_concurrent_users");
    assert_eq!(l.map.text(tree.span), "BehaviorTree");
    let limit = &tree.root.children[0];
    assert_eq!(
        limit.what,
        What::Unsupported("MBT's LimitConcurrentUsers decorator")
    );
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
        "Sequence(Communicate[name=Hello], Animate[name=LookAround], !Wait[duration=2.0], \
         Communicate[name=WeShouldGetSomeFood])"
    );
    let tree = l.tree("configuration_data");
    assert_eq!(l.map.text(tree.span), "Sequence");
    // `name` is a parameter in MBT, not the node's name.
    assert_eq!(tree.root.children[0].name, None);
    assert_eq!(
        tree.root.children[2].what,
        What::Unsupported("MBT's Wait action")
    );
}

#[test]
fn mbt_variables_are_not_supported_yet() {
    let strict = mbt("mbt/variables.xml", STRICT);
    assert_eq!(
        strict.diags(),
        [
            quotes("1:298"),
            "error 1:17 MBT's `<Variables>` section is not supported yet".into(),
            "error 1:76 MBT's `<SignalVariables>` section is not supported yet".into(),
        ]
    );
    assert!(
        strict.diags.items()[1]
            .help
            .as_deref()
            .unwrap()
            .contains("remove it")
    );
    let stub = mbt("mbt/variables.xml", STUB);
    assert_eq!(
        stub.diags(),
        [
            quotes("1:298"),
            "warning 1:17 MBT's `<Variables>` section is not supported yet and is ignored".into(),
            "warning 1:76 MBT's `<SignalVariables>` section is not supported yet and is ignored"
                .into(),
        ]
    );
    for l in [&strict, &stub] {
        assert_eq!(
            l.outline_of("variables"),
            "Selector(!IfCondition[condition=TargetVisible](Move[to=Target]), \
             Animate[name=LookAroundForTarget])"
        );
    }
}

#[test]
fn mbt_lua_nodes() {
    for (file, at, outline, reason) in [
        (
            "execute_lua",
            "1:18",
            "!ExecuteLua[code=DoSomething()]",
            "ExecuteLua action",
        ),
        (
            "lua_wrapper",
            "1:21",
            "!LuaWrapper[onEnter=StartParticleEffect(), onExit=StopParticleEffect()](Move[to=Cover])",
            "LuaWrapper decorator",
        ),
        (
            "lua_gate",
            "1:15",
            "!LuaGate[code=return IsAppleGreen()](EatApple)",
            "LuaGate decorator",
        ),
        (
            "assert_lua",
            "1:28",
            "Sequence(!AssertLua[code=return entity.someCounter == 75], \
             !AssertCondition[condition=TargetVisible], Move[to=Target])",
            "AssertLua condition",
        ),
    ] {
        let l = mbt(&format!("mbt/{file}.xml"), STRICT);
        assert_eq!(l.diags(), [quotes(at)], "{file}");
        assert_eq!(l.outline_of(file), outline);
        let root = &l.tree(file).root;
        let lua = if root.children.len() == 3 {
            &root.children[0]
        } else {
            root
        };
        let What::Unsupported(written) = lua.what else {
            panic!("{file}: {:?}", lua.what)
        };
        assert_eq!(written, format!("MBT's {reason}"));
    }
}

#[test]
fn mbt_timestamps_are_not_supported_yet() {
    let l = mbt("mbt/timestamps.xml", STRICT);
    assert_eq!(
        l.diags(),
        [
            quotes("1:271"),
            "error 1:17 MBT's `<Timestamps>` section is not supported yet".into()
        ]
    );
    assert_eq!(
        l.outline_of("timestamps"),
        "Sequence(!WaitUntilTime[since=ReceivedDamage, isMoreThan=5, orNeverBeenSet=1], \
         Selector(!IfTime[since=GroupMemberDied, isLessThan=10](MoveCautiouslyTowardsTarget), \
         MoveConfidentallyTowardsTarget))"
    );
}

#[test]
fn mbt_wait_for_event() {
    let l = mbt("mbt/wait_for_event.xml", STRICT);
    assert_eq!(l.diags(), [quotes("1:31")]);
    assert_eq!(
        l.outline_of("wait_for_event"),
        "Sequence(!WaitForEvent[name=OnEnemySeen], Communicate[name=ThereHeIs])"
    );
}

#[test]
fn mbt_log_attributes_are_not_supported_yet() {
    let strict = mbt("mbt/logging.xml", STRICT);
    let expected = [
        ("1:56", "_startLog"),
        ("1:84", "_failureLog"),
        ("1:137", "_startLog"),
        ("1:161", "_failureLog"),
        ("1:193", "_successLog"),
    ];
    let messages = |severity: &str, suffix: &str| -> Vec<String> {
        expected
            .iter()
            .map(|(at, a)| {
                format!("{severity} {at} MBT's log attribute `{a}` is not supported yet{suffix}")
            })
            .collect()
    };
    assert_eq!(strict.diags(), messages("error", ""));
    let stub = mbt("mbt/logging.xml", STUB);
    assert_eq!(stub.diags(), messages("warning", " and is ignored"));
    for l in [&strict, &stub] {
        assert_eq!(
            l.outline_of("logging"),
            "Sequence(QueryTPS[name=CoverFromTarget], Move[to=Cover])"
        );
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
        "<BehaviorTree><Variables/></BehaviorTree>",
        STUB,
    );
    assert_eq!(
        l.diags(),
        [
            "warning 1:16 MBT's `<Variables>` section is not supported yet and is ignored",
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
fn btcpp_unsupported_nodes_keep_children_and_ports() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Repeat num_cycles="3">
      <Decorator ID="Timeout" msec="200">
        <Sleep msec="100"/>
      </Decorator>
    </Repeat>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "!Repeat[num_cycles=3](!Timeout[msec=200](Sleep[msec=100]))"
    );
    let root = &l.tree("T").root;
    assert_eq!(
        root.what,
        What::Unsupported("BehaviorTree.CPP's Repeat decorator")
    );
    assert_eq!(
        root.children[0].what,
        What::Unsupported("BehaviorTree.CPP's Timeout decorator")
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
    let stub = read("t.xml", text, STUB);
    assert!(
        stub.diags()
            .iter()
            .all(|d| d.starts_with("warning") && d.ends_with("is ignored"))
    );
    assert_eq!(stub.diags.items().len(), 3);
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
            "error 3:2 `<BehaviorTree>` without an `ID`",
            "error 4:2 tree `Empty` holds no node",
            "error 5:29 `<BehaviorTree>` holds more than one node",
            "error 7:28 `success_count` must be -1 (all children) or a positive count",
            "error 7:46 `failure_count` must be -1 (all children) or a positive count",
            "error 8:6 `<Action>` without an `ID`",
            "error 9:6 `<SubTree>` without an `ID`",
            "error 10:30 `success_count` must be -1 (all children) or a positive count",
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
