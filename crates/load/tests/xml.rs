//! The MBT reader: Lumberyard MBT files, read into documents with spans and
//! diagnostics; and what any XML file that is not well-formed gets.

mod common;
use common::*;
use proptest::prelude::*;

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
        let options = XmlOptions {
            stub_unknown: stub,
            lua: false,
        };
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
