//! The BehaviorTree.CPP v4 reader: files read into documents with spans
//! and diagnostics (docs/trees.md's table of what each element maps to).

mod common;
use common::*;

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
        "Sequence(Loop[count=3, again=true](Timeout[seconds=200ms](\
         LoopUntilSuccess[attempts=0, again=true](Wait[seconds=100ms]))), \
         Script[script=n := n + 1], AssertScript[test=n > 3 && ready], \
         LoopUntilSuccess[attempts=2, again=true](Wait[seconds=0.5ms]))"
    );
}

#[test]
fn btcpp_built_ins_treebeard_lacks_keep_children_and_ports() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <ManualSelector repeat_last_selection="true">
      <Decorator ID="ConsumeQueue" queue="{q}"> <Sleep msec="100"/> </Decorator>
    </ManualSelector>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "!ManualSelector[repeat_last_selection=true](!ConsumeQueue[queue={q}](Wait[seconds=100ms]))"
    );
    let root = &l.tree("T").root;
    // Built-ins: never stubbed (see the resolver's tests).
    assert_eq!(
        root.what,
        What::BuiltIn("BehaviorTree.CPP's ManualSelector control")
    );
    assert_eq!(
        root.children[0].what,
        What::BuiltIn("BehaviorTree.CPP's ConsumeQueue decorator")
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
fn btcpp_precondition_is_a_script_gate_and_its_else_a_branch_or_a_skip() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <Precondition if="ready" else="FAILURE"> <A/> </Precondition>
      <Precondition if="ready"> <A/> </Precondition>
      <Precondition if="ready" else="SUCCESS"> <A/> </Precondition>
      <Precondition if="ready" else="RUNNING"> <A/> </Precondition>
      <Precondition> <A/> </Precondition>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 7:38 `else=\"RUNNING\"` of `Precondition` is not supported",
            "error 8:8 `Precondition` needs port `if`",
        ]
    );
    assert!(
        l.outline_of("T").starts_with(
            "Sequence(ScriptGate[test=ready](A), ScriptGate[test=ready](A), \
             IfThenElse(AssertScript[test=ready], A, AlwaysSuccess)"
        ),
        "{}",
        l.outline_of("T")
    );
    // SKIPPED: the node is skipped where `if` does not hold, as with a
    // `_skipIf` of its negation (after its own).
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <Precondition if="ready" else="SKIPPED"> <A/> </Precondition>
      <Precondition if="ready" else="SKIPPED" _skipIf="tired"> <A/> </Precondition>
      <B/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(l.diags(), Vec::<String>::new());
    let outline = l.outline_of("T");
    assert!(
        outline.starts_with(
            "Sequence(IfThenElse#else(AssertScript[test=!(ready)], AlwaysSuccess#SKIPPED, \
             ScriptGate[test=ready](A)), IfThenElse#_skipIf(AssertScript[test=tired], \
             AlwaysSuccess#SKIPPED, IfThenElse#else(AssertScript[test=!(ready)], \
             AlwaysSuccess#SKIPPED, ScriptGate[test=ready](A))), B)"
        ),
        "{outline}"
    );
}

#[test]
fn btcpp_controls_that_are_treebeard_kinds() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <SequenceWithMemory>
      <IfThenElse name="ite"> <C/> <A/> <B/> </IfThenElse>
      <WhileDoElse> <C/> <A/> </WhileDoElse>
      <ParallelAll max_failures="-1"> <A/> <B/> <C/> </ParallelAll>
      <ParallelAll> <A/> </ParallelAll>
      <SequenceStar> <A/> </SequenceStar>
    </SequenceWithMemory>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "SequenceWithMemory(IfThenElse#ite(C, A, B), WhileDoElse(C, A), \
         ParallelAll[max_failures=3](A, B, C), ParallelAll(A), SequenceWithMemory(A))"
    );
    let bad = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <ParallelAll max_failures="3"> <A/> <B/> </ParallelAll>
      <ParallelAll max_failures="-4"> <A/> <B/> </ParallelAll>
    </Sequence>
  </BehaviorTree>
</root>"#;
    assert_eq!(
        read("t.xml", bad, STRICT).diags(),
        [
            "error 4:34 `max_failures=\"3\"` of `ParallelAll` is not a number of its 2 children",
            "error 5:34 `max_failures=\"-4\"` of `ParallelAll` is not a number of its 2 children",
        ]
    );
}

#[test]
fn btcpp_delay_is_a_wait_before_its_child() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <Delay name="d" delay_msec="250"> <A/> </Delay>
      <Delay delay_msec="10"> <A/> <B/> </Delay>
      <Delay> <A/> </Delay>
      <Delay delay_msec="{ms}"> <A/> </Delay>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            // The reader's, then the expansion's.
            "error 6:8 `Delay` needs port `delay_msec`",
            "error 7:26 `delay_msec` of `Delay` must be a number of milliseconds, not `{ms}`",
            "error 5:8 `Delay` has 2 children; it takes one",
        ]
    );
    let first = &l.tree("T").root.children[0];
    assert_eq!(l.outline(first), "Sequence#d(Wait[seconds=250ms], A)");
}

#[test]
fn btcpp_try_catch_is_a_selector_of_the_try_sequence_and_the_failing_catch() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <TryCatch name="t"> <A/> <B/> <C/> </TryCatch>
      <TryCatch catch_on_halt="false"> <A/> <C/> </TryCatch>
      <TryCatch> <A/> </TryCatch>
      <TryCatch catch_on_halt="true"> <A/> <C/> </TryCatch>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            // The reader's, then the expansion's.
            "error 7:32 `catch_on_halt=\"true\"` of `TryCatch` is not supported yet",
            "error 6:8 `TryCatch` has 1 child; it takes two or more",
        ]
    );
    let root = &l.tree("T").root;
    assert_eq!(
        l.outline(&root.children[0]),
        "Selector#t(Sequence(A, B), ForceFailure(C))"
    );
    assert_eq!(
        l.outline(&root.children[1]),
        "Selector(Sequence(A), ForceFailure(C))"
    );
}

#[test]
fn btcpp_set_blackboard_is_a_script() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <SetBlackboard value="{a}" output_key="b"/>
      <SetBlackboard value="hello" output_key="b"/>
      <SetBlackboard value="1"/>
      <SetBlackboard output_key="b"/>
      <UnsetBlackboard key="b"/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            // The reader's, then the expansion's.
            "error 7:8 `SetBlackboard` needs port `value`",
            "error 6:8 `SetBlackboard` needs port `output_key`",
        ]
    );
    let first = &l.tree("T").root.children[0];
    assert_eq!(first.what, What::Decider(Kind::Script, None));
    assert_eq!(first.attrs.len(), 1);
    // `:=`: the entry is created if the tree has none.
    assert_eq!(first.attrs[0].value, ParamValue::Str("b := a".into()));
    // Text is a string.
    let text = &l.tree("T").root.children[1];
    assert_eq!(text.attrs[0].value, ParamValue::Str("b := 'hello'".into()));
    let unset = &l.tree("T").root.children[4];
    assert_eq!(
        unset.what,
        What::BuiltIn("BehaviorTree.CPP's UnsetBlackboard action")
    );
}

#[test]
fn btcpp_switch_is_a_chain_of_while_do_else() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <Switch2 name="s" variable="{mode}" case_1="1" case_2="{other}"> <A/> <B/> <C/> </Switch2>
      <Switch2 variable="{mode}" case_1="1"> <A/> <B/> <C/> </Switch2>
      <Switch3 variable="{mode}"> <A/> <B/> </Switch3>
      <Switch2 variable="{mode}" case_1="IDLE" case_2="2"> <A/> <B/> <C/> </Switch2>
      <Switch2 variable="{mode}" case_3="1"> <A/> <B/> <C/> </Switch2>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            // The reader's, then the expansion's.
            "error 8:34 `Switch2` has no port `case_3`",
            "error 6:8 `Switch3` has 2 children; it takes 4 (one per case, then the default)",
        ]
    );
    let outline = l.outline_of("T");
    assert!(
        outline.starts_with(
            "Sequence(WhileDoElse#s(AssertScript#case_1[test=mode == 1], A, \
             WhileDoElse#after_case_1(AssertScript#case_2[test=mode == other], B, C)), \
             WhileDoElse(AssertScript#case_1[test=mode == 1], A, \
             WhileDoElse#after_case_1(AssertScript#case_2[test=false], B, C)), \
             WhileDoElse(A, B), \
             WhileDoElse(AssertScript#case_1[test=mode == 'IDLE'], A, \
             WhileDoElse#after_case_1(AssertScript#case_2[test=mode == 2], B, C)), "
        ),
        "{outline}"
    );
}

#[test]
fn btcpp_scripts_and_reserved_attributes() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence _autoremap="true">
      <Eat _onHalted="fed := true" name="eat" amount="{=}"/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let strict = read("t.xml", text, STRICT);
    assert_eq!(
        strict.diags(),
        ["error 3:27 BehaviorTree.CPP's reserved attribute `_autoremap` is not supported yet"]
    );
    // With stubs, the unknown reserved attribute is ignored.
    let stub = read("t.xml", text, STUB);
    assert_eq!(
        stub.diags(),
        [
            "warning 3:27 BehaviorTree.CPP's reserved attribute `_autoremap` is not supported yet and is ignored"
        ]
    );
    // `_onHalted` is the halted script of a wrapper around the node.
    assert_eq!(
        stub.outline_of("T"),
        "Sequence(ScriptWrapper#_onHalted[halted=fed := true, enter=true, exit=true](\
         Eat#eat[amount={amount}]))"
    );
}

#[test]
fn btcpp_pre_and_post_conditions_wrap_their_node() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <A name="a" _successIf="done" _failureIf="broken" _onSuccess="n := n + 1" _post="m = 1"/>
      <B _onFailure="failed := true"/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "Sequence(\
         IfThenElse#_onSuccess(\
         IfThenElse#_failureIf(AssertScript[test=broken], AlwaysFailure, \
         IfThenElse#_successIf(AssertScript[test=done], AlwaysSuccess, A#a)), \
         ForceSuccess(Sequence(Script[script=n := n + 1], Script[script=m = 1])), \
         ForceFailure(Script[script=m = 1])), \
         IfThenElse#_onFailure(B, AlwaysSuccess, ForceFailure(Script[script=failed := true]))\
         )"
    );
    // Each added node is written where its attribute's name is.
    let outer = &l.tree("T").root.children[0];
    assert_eq!(
        (&*outer.written, l.at(outer.span)),
        ("_onSuccess", "4:57".into())
    );
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

#[test]
fn btcpp_treebeard_elements_are_treebeard_s_own_kinds_with_their_parameters() {
    // As `treebeard export --btcpp` writes the kinds BT.CPP lacks: the
    // attributes are the kind's parameters, as written.
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <treebeard.Cooldown name="breather" seconds="2000ms"> <A/> </treebeard.Cooldown>
      <treebeard.Loop count="2" again="false"> <A/> </treebeard.Loop>
      <treebeard.Nope/>
      <treebeard.Condition/>
      <treebeard.Coldown seconds="1s"> <A/> </treebeard.Coldown>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 6:8 `treebeard.Nope` is not one of treebeard's node kinds",
            "error 7:8 `treebeard.Condition` is not one of treebeard's node kinds",
            "error 8:8 `treebeard.Coldown` is not one of treebeard's node kinds",
        ]
    );
    assert_eq!(
        l.diags.items()[2].help.as_deref(),
        Some("did you mean `treebeard.Cooldown`?")
    );
    let root = &l.tree("T").root;
    assert_eq!(
        l.outline(&root.children[0]),
        "Cooldown#breather[seconds=2000ms](A)"
    );
    assert_eq!(
        l.outline(&root.children[1]),
        "Loop[count=2, again=false](A)"
    );
}

#[test]
fn btcpp_skipped_nodes_go_on_as_their_parent_goes_on() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Fallback>
      <Sequence name="s">
        <A _skipIf="k"/>
        <Inverter><B _while="w"/></Inverter>
      </Sequence>
      <C _failureIf="f" _skipIf="k"/>
      <D/>
    </Fallback>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "Selector(\
         IfThenElse#SKIPPED(\
         Sequence#SKIPPED(Script#SKIPPED[script=_skipped_0_70 := 0], Sequence#s(\
         IfThenElse#_skipIf(AssertScript[test=k], \
         Script#SKIPPED[script=_skipped_0_70 = _skipped_0_70 + 1], A), \
         WhileDoElse#_while(AssertScript[test=w], Inverter(B), \
         Script#SKIPPED[script=_skipped_0_70 = _skipped_0_70 + 1]))), \
         IfThenElse#SKIPPED(AssertScript#SKIPPED[test=_skipped_0_70 == 2], \
         AlwaysFailure#SKIPPED, AlwaysSuccess#SKIPPED), \
         AlwaysFailure#SKIPPED), \
         IfThenElse#_skipIf(Sequence(Inverter(AssertScript[test=f]), AssertScript[test=k]), \
         AlwaysFailure#SKIPPED, \
         IfThenElse#_failureIf(AssertScript[test=f], AlwaysFailure, C)), \
         D)"
    );
}

#[test]
fn btcpp_a_skip_no_parent_goes_on_past_is_an_error() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Parallel>
      <A _skipIf="k"/>
      <Sequence><B _while="w"/></Sequence>
      <RunOnce><Inverter><C _skipIf="k"/></Inverter></RunOnce>
      <IfThenElse><D _skipIf="k"/><E/></IfThenElse>
    </Parallel>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 4:10 BehaviorTree.CPP would skip this node under `Parallel`, which treebeard does not run skipped children under yet",
            "error 5:8 BehaviorTree.CPP would skip this node under `Parallel`, which treebeard does not run skipped children under yet",
            "error 6:29 BehaviorTree.CPP would skip this node under `RunOnce`, which treebeard does not run skipped children under yet",
            // The RunOnce itself, once it has run.
            "error 6:8 BehaviorTree.CPP would skip this node under `Parallel`, which treebeard does not run skipped children under yet",
            "error 7:22 BehaviorTree.CPP would skip this node under `IfThenElse`, which treebeard does not run skipped children under yet",
        ]
    );
}

#[test]
fn btcpp_a_root_bt_cpp_would_skip_is_a_warning() {
    // BT.CPP's tree returns SKIPPED; treebeard's succeeds (its own
    // `_skipIf`) or returns what the root returns with its children
    // skipped (a fallback's failure).
    let text = r#"<root BTCPP_format="4" main_tree_to_execute="A">
  <BehaviorTree ID="A">
    <Sequence _skipIf="k"><Work/></Sequence>
  </BehaviorTree>
  <BehaviorTree ID="B">
    <Fallback><Work _skipIf="k"/><Work _while="w"/></Fallback>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "warning 3:6 where BehaviorTree.CPP's tree would return SKIPPED, treebeard's succeeds",
            "warning 6:6 where BehaviorTree.CPP's tree would return SKIPPED, treebeard's fails",
        ]
    );
    assert_eq!(
        l.outline_of("A"),
        "IfThenElse#_skipIf(AssertScript[test=k], AlwaysSuccess#SKIPPED, Sequence(Work))"
    );
    assert_eq!(
        l.outline_of("B"),
        "Selector(\
         IfThenElse#_skipIf(AssertScript[test=k], AlwaysFailure#SKIPPED, Work), \
         WhileDoElse#_while(AssertScript[test=w], Work, AlwaysFailure#SKIPPED))"
    );
}

#[test]
fn btcpp_run_once_records_its_run_in_an_entry() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <RunOnce><Init/></RunOnce>
      <RunOnce name="probe" then_skip="false"><Probe/></RunOnce>
      <RunOnce then_skip="{skip}"><Init/></RunOnce>
      <RunOnce><Init/><Init/></RunOnce>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 6:27 `then_skip` of `RunOnce` is `true` or `false`",
            "error 7:8 `RunOnce` has 2 children; it takes one",
        ]
    );
    let outline = l.outline_of("T");
    let first = outline.split("), IfThenElse#probe").next().unwrap();
    assert_eq!(
        first,
        "Sequence(\
         IfThenElse#RunOnce(AssertScript#SKIPPED[test=_once_0_70 != 0], AlwaysSuccess#SKIPPED, \
         IfThenElse#RunOnce(Init, Script#SKIPPED[script=_once_0_70 := 1], \
         ForceFailure#SKIPPED(Script#SKIPPED[script=_once_0_70 := 2]))"
    );
    assert!(
        outline.contains(
            "IfThenElse#probe(AssertScript#SKIPPED[test=_once_0_103 == 0], \
             IfThenElse#probe(Probe, Script#SKIPPED[script=_once_0_103 := 1], \
             ForceFailure#SKIPPED(Script#SKIPPED[script=_once_0_103 := 2])), \
             AssertScript#SKIPPED[test=_once_0_103 == 1])"
        ),
        "{outline}"
    );
}

#[test]
fn btcpp_entry_update_nodes_keep_the_value_they_saw() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <WasEntryUpdated entry="{goal}"/>
      <SkipUnlessUpdated entry="@goal"><Go/></SkipUnlessUpdated>
      <WaitValueUpdate entry="goal"><Go/></WaitValueUpdate>
      <WasEntryUpdated entry="{not a key}"/>
      <WaitValueUpdate/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 7:31 `entry` of `WasEntryUpdated` is not a blackboard key",
            "error 8:8 `WaitValueUpdate` needs port `entry`",
        ]
    );
    let outline = l.outline_of("T");
    assert!(
        outline.starts_with(
            "Sequence(Sequence(AssertScript[test=!_looked_0_70 || goal != _seen_0_70], \
             Script[script=_looked_0_70 := true; _seen_0_70 := goal]), \
             IfThenElse#SkipUnlessUpdated(AssertScript[test=_looked_0_110 && goal == _seen_0_110], \
             AlwaysSuccess#SKIPPED, \
             Sequence(Script[script=_looked_0_110 := true; _seen_0_110 := goal], Go)), \
             Sequence(ForceSuccess(Loop(AssertScript[test=_looked_0_175 && goal == _seen_0_175])), \
             Script[script=_looked_0_175 := true; _seen_0_175 := goal], Go), "
        ),
        "{outline}"
    );
}

#[test]
fn btcpp_queue_loops_take_their_queue_as_literals() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Sequence>
      <LoopDouble queue="0.5;2" value="{x}"><Go/></LoopDouble>
      <LoopString queue="a;it's" value="{s}" if_empty="FAILURE"><Go/></LoopString>
      <LoopBool queue="1;false"><Go/></LoopBool>
      <LoopInt queue="{q}" value="{i}"><Go/></LoopInt>
      <LoopInt queue="1;two" value="{i}"><Go/></LoopInt>
      <LoopInt queue="1" if_empty="SKIPPED"><Go/></LoopInt>
      <LoopBool queue="LONG"><Go/></LoopBool>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let long = vec!["true"; 1025].join(";");
    let text = text.replace("LONG", &long);
    let l = read("t.xml", &text, STRICT);
    assert_eq!(
        l.diags(),
        [
            "error 7:23 the `queue` of `LoopInt` is a blackboard key",
            "error 8:23 `two` in the `queue` of `LoopInt` is not its type's",
            "error 9:36 `if_empty=\"SKIPPED\"` of `LoopInt` is not supported",
            "error 10:24 the `queue` of `LoopBool` holds more than 1024 values",
        ]
    );
    let outline = l.outline_of("T");
    assert!(
        outline.starts_with(
            "Sequence(Sequence(Script[script=_at_0_70 := 0], Loop[count=3](\
             IfThenElse(AssertScript[test=_at_0_70 < 2], Sequence(\
             Selector(Sequence(AssertScript[test=_at_0_70 == 0], Script[script=x := 0.5]), \
             Sequence(AssertScript[test=_at_0_70 == 1], Script[script=x := 2.0])), \
             Script[script=_at_0_70 = _at_0_70 + 1], Go), AlwaysSuccess))), "
        ),
        "{outline}"
    );
    assert!(
        outline.contains("Script[script=s := 'a']")
            && outline.contains("Script[script=s := \"it's\"]")
            && outline.contains("AlwaysFailure)))"),
        "{outline}"
    );
    // Without `value`, the values go nowhere.
    assert!(
        outline.contains("Sequence(AlwaysSuccess, Script[script=_at_0_"),
        "{outline}"
    );
}

#[test]
fn btcpp_files_read_treebeard_declaration_sections() {
    let text = r#"<root BTCPP_format="4">
  <treebeard.Variables> <Variable name="Seen" value="true"/> </treebeard.Variables>
  <treebeard.SignalVariables> <Signal name="OnSight" variable="Seen" value="true"/> </treebeard.SignalVariables>
  <treebeard.Timestamps> <Timestamp name="Spotted" setOnEvent="OnSight"/> </treebeard.Timestamps>
  <treebeard.Stimuli> <Stimulus name="noise" seconds="2.5"/> <Stimulus name="bad" seconds="-1"/> </treebeard.Stimuli>
  <BehaviorTree ID="T"> <Work port.name="x"/> </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert_eq!(
        l.diags(),
        ["error 5:92 `seconds` must be a number of seconds, not `-1`"]
    );
    let d = &l.doc().declarations;
    assert_eq!(
        (d.variables.len(), d.signals.len(), d.timestamps.len()),
        (1, 1, 1)
    );
    assert!(d.variables[0].initial);
    assert_eq!(&*d.stimuli[0].name.0, "noise");
    assert_eq!(d.stimuli[0].seconds.0, 2.5);
    assert_eq!(d.stimuli.len(), 1);
    // A port named as BT.CPP's own attribute.
    assert_eq!(l.outline_of("T"), "Work[name=x]");
}

#[test]
fn btcpp_keep_running_until_failure_runs_on_past_a_skip() {
    // BT.CPP's returns running for a skipped child, as for a success, and
    // is never skipped itself.
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="T">
    <Fallback>
      <KeepRunningUntilFailure><Work _skipIf="k"/></KeepRunningUntilFailure>
      <Other/>
    </Fallback>
  </BehaviorTree>
</root>"#;
    let l = read("t.xml", text, STRICT);
    assert!(l.diags.is_empty(), "{:?}", l.diags());
    assert_eq!(
        l.outline_of("T"),
        "Selector(Loop(IfThenElse#_skipIf(AssertScript[test=k], AlwaysSuccess#SKIPPED, Work)), Other)"
    );
}
