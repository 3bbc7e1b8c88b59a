//! Tree entries: the values a tree's scripts create with `name := value`
//! (BehaviorTree.CPP's blackboard entries that a tree creates), kept per
//! agent in its actor after the variables' bits.
//!
//! Each test compiles a small tree of script nodes and one action, ticks
//! one agent and reads its entries back through `ActorRef::entry`.

use treebeard_shape::tree::{Node, act, decider_of, leaf, priority, sequence};
use treebeard_shape::{BuildError, FieldType, Kind, ParamType, Unbuildable, compile};
use treebeard_vm::Status::{Failure, Running, Success};
use treebeard_vm::{Args, Call, Leaves, Output, Signal, Status, Value};

mod common;
use common::Agent;

/// The blackboard: how often the action ran, and what the leaves that
/// read inputs saw.
#[derive(Default)]
struct Bb {
    walks: i64,
    said: Vec<String>,
}

treebeard_vm::blackboard!(Bb { walks });

fn walk(bb: &mut Bb, _: &mut Call<'_>) -> Status {
    bb.walks += 1;
    Running
}

/// `Say message`: notes its input (a string), succeeds.
fn say(bb: &mut Bb, call: &mut Call<'_>) -> Status {
    if let Value::Str(said) = call.input(0).read(bb, FieldType::Str) {
        bb.said.push(said.to_owned());
    }
    Status::Success
}

/// `Above limit`: whether the int input is above 2.
fn above(bb: &Bb, args: &Args<'_>) -> bool {
    matches!(args.input(0).read(bb, FieldType::Int), Value::Int(n) if n > 2)
}

/// `Count into`: counts its calls in `walks`, writes the count into its
/// output, succeeds.
fn count(bb: &mut Bb, call: &mut Call<'_>) -> Status {
    bb.walks += 1;
    call.leaf_args().output(0).write(bb, Value::Int(bb.walks));
    Status::Success
}

/// `Tally into`: runs, writing the ticks it has run into its output; a
/// cancel writes -1.
fn tally(bb: &mut Bb, call: &mut Call<'_>) -> Status {
    let out = call.leaf_args().output(0);
    if call.signal() == Signal::Cancel {
        out.write(bb, Value::Int(-1));
        return Failure;
    }
    *call.state_mut() += 1;
    out.write(bb, Value::Int(i64::from(call.state())));
    Running
}

/// `Mark flag`: a condition that writes true into its output, which must
/// be an entry (a condition cannot change the blackboard), and holds.
fn mark(_: &Bb, args: &Args<'_>) -> bool {
    match args.output(0) {
        Output::Entry(entry) => entry.set(Value::Bool(true)),
        Output::Field(_) => false,
    }
}

fn leaves() -> Leaves<Bb> {
    let mut leaves = Leaves::new();
    leaves.action("Walk", walk);
    leaves
        .action("Say", say)
        .param("message", ParamType::Input(FieldType::Str));
    leaves
        .condition("Above", above)
        .param("limit", ParamType::Input(FieldType::Int));
    leaves
        .deferred("Go")
        .param("to", ParamType::Input(FieldType::Str));
    leaves
        .action("Count", count)
        .param("into", ParamType::Output(FieldType::Int));
    leaves
        .action("Tally", tally)
        .param("into", ParamType::Output(FieldType::Int));
    leaves
        .condition("Mark", mark)
        .param("flag", ParamType::Output(FieldType::Bool));
    leaves
        .action("Name", walk)
        .param("into", ParamType::Output(FieldType::Str));
    leaves
        .deferred("Find")
        .param("found", ParamType::Output(FieldType::Int));
    leaves.blackboard();
    leaves
}

fn script(source: &str) -> Node {
    decider_of(Kind::Script, []).arg("script", source)
}

fn assert_script(test: &str) -> Node {
    decider_of(Kind::AssertScript, []).arg("test", test)
}

/// The tree's entries, as `type name`, in their order.
fn entry_types(agent: &Agent<Bb>) -> Vec<String> {
    let shape = agent.program.shape();
    shape
        .entries()
        .iter()
        .map(|e| format!("{} {}", e.ty, e.name))
        .collect()
}

/// The agent's entry `name`.
fn entry<'a>(agent: &'a Agent<Bb>, name: &str) -> Value<'a> {
    let shape = agent.program.shape();
    let i = shape.entries().iter().position(|e| &*e.name == name);
    let i = i.unwrap_or_else(|| panic!("no entry {name}"));
    agent.actor.as_ref().entry(shape, i).expect("an entry")
}

#[test]
fn an_entry_takes_the_type_of_its_first_value_and_keeps_it_between_ticks() {
    let tree = sequence([
        script("n := 0; name := 'idle'; speed := 0.5; seen := true"),
        script("n += 1; speed = speed * 3"),
        assert_script("n == 1 && name == 'idle' && name != 'x' && speed == 1.5 && seen"),
        act("Walk"),
    ]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(
        entry_types(&agent),
        ["int n", "string name", "float speed", "bool seen"]
    );
    assert_eq!(agent.tick(), Running);
    assert_eq!(agent.bb.walks, 1);
    assert_eq!(entry(&agent, "n"), Value::Int(1));
    assert_eq!(entry(&agent, "name"), Value::Str("idle"));
    assert_eq!(entry(&agent, "speed"), Value::Float(1.5));
    assert_eq!(entry(&agent, "seen"), Value::Bool(true));
}

#[test]
fn an_entry_holds_its_types_zero_until_a_script_writes_it() {
    // The first branch fails before the script that writes `x`; the second
    // reads it: 0, an agent's entries are zeroed with its actor.
    let tree = priority([
        sequence([assert_script("false"), script("x := 5; s := 'five'")]),
        sequence([assert_script("x == 0 && s == ''"), act("Walk")]),
    ]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(agent.tick(), Running);
    assert_eq!(agent.bb.walks, 1);
    assert_eq!(entry(&agent, "x"), Value::Int(0));
    assert_eq!(entry(&agent, "s"), Value::Str(""));
}

#[test]
fn define_on_an_entry_the_tree_has_assigns_it() {
    let tree = sequence([
        script("n := 1"),
        script("n := n + 1"),
        assert_script("n == 2"),
    ]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(agent.program.shape().entries().len(), 1);
    assert_eq!(agent.tick(), Success);
    // The root starts again: `n := 1` runs again.
    assert_eq!(agent.tick(), Success);
    assert_eq!(entry(&agent, "n"), Value::Int(2));
}

#[test]
fn a_condition_reads_entries_and_cannot_create_one() {
    let tree = sequence([script("mood := 'calm'"), assert_script("mood == 'angry'")]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(agent.tick(), Failure);
    // A condition that would create an entry writes: refused at compile.
    let leaves = leaves();
    let condition = decider_of(Kind::AssertCondition, []).arg("condition", "fresh := true");
    let error = compile(&condition, &leaves).unwrap_err();
    assert!(
        error.to_string().contains("a condition cannot assign"),
        "{error}"
    );
}

#[test]
fn an_entry_read_before_the_script_that_creates_it_reads_its_zero() {
    // Entries are found before the scripts compile: a read before the
    // creating script knows the entry, and reads the empty string until
    // that script runs.
    let leaves = leaves();
    let tree = sequence([
        assert_script("door == ''"),
        script("door := 'open'"),
        assert_script("door == 'open'"),
    ]);
    let mut agent = Agent::new(&tree, &leaves);
    assert_eq!(agent.tick(), Success);
    // Open now: the first test fails.
    assert_eq!(agent.tick(), Failure);
    // A name no script creates is unknown still.
    let error: BuildError = compile(&assert_script("window == ''"), &leaves).unwrap_err();
    let Unbuildable::Script { error: e, .. } = error.problems()[0].what() else {
        panic!("{error}");
    };
    assert_eq!(e.message, "unknown name `window`");
    // `=` never creates; the help says how.
    let error = compile(&script("door = 'open'"), &leaves).unwrap_err();
    let Unbuildable::Script { error: e, .. } = error.problems()[0].what() else {
        panic!("{error}");
    };
    assert_eq!(
        e.help.as_deref(),
        Some("write `door := ...` to create a tree entry of that name")
    );
}

#[test]
fn a_later_value_of_another_type_is_an_error() {
    let leaves = leaves();
    let tree = sequence([script("n := 1"), script("n := 'one'")]);
    let error = compile(&tree, &leaves).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the int entry `n` cannot take a string"),
        "{error}"
    );
}

#[test]
fn a_shape_with_entries_round_trips_through_bytes() {
    let leaves = leaves();
    let tree = sequence([
        script("mood := 'calm'; n := 2"),
        assert_script("mood == 'calm'"),
    ]);
    let shape = compile(&tree, &leaves).unwrap();
    let back = treebeard_shape::Shape::from_bytes(&shape.to_bytes()).unwrap();
    assert_eq!(back.entries(), shape.entries());
    assert_eq!(back.behavior_hash(), shape.behavior_hash());
    let text = shape.disassemble().to_string();
    assert!(text.contains("entries 2 (string mood, int n)"), "{text}");
}

#[test]
fn a_leafs_input_reads_an_entry_as_the_agent_holds_it() {
    let tree = sequence([
        script("msg := 'hello'; n := 3"),
        leaf("Say").arg("message", "{msg}"),
        leaf("Above").arg("limit", "{n}"),
        script("msg = 'bye'; n = 1"),
        leaf("Say").arg("message", "{msg}"),
        decider_of(Kind::Inverter, [leaf("Above").arg("limit", "{n}")]),
        leaf("Say").arg("message", "literal"),
    ]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(agent.tick(), Success);
    assert_eq!(agent.bb.said, ["hello", "bye", "literal"]);
    let text = agent.program.shape().disassemble().to_string();
    assert!(text.contains("message={msg}"), "{text}");
}

#[test]
fn leaves_called_outside_the_tick_cannot_name_an_entry() {
    let leaves = leaves();
    let error = |tree: &Node| compile(tree, &leaves).unwrap_err().to_string();
    let made = script("place := 'home'; n := 1; speed := 0.5");
    let go = sequence([made.clone(), leaf("Go").arg("to", "{place}")]);
    assert!(
        error(&go).contains(
            "`place` is a tree entry: a deferred action's game system reads its parameters outside the agent's tick"
        ),
        "{}",
        error(&go)
    );
    let find = sequence([made.clone(), leaf("Find").arg("found", "{n}")]);
    assert!(
        error(&find).contains("`n` is a tree entry: a deferred action's game system"),
        "{}",
        error(&find)
    );
    let wrong = sequence([made.clone(), leaf("Above").arg("limit", "{place}")]);
    assert!(
        error(&wrong).contains("tree entry `place` holds string values, but int is needed"),
        "{}",
        error(&wrong)
    );
    // An output writes the entry's type: an int output into a float entry
    // is an error, as a string output into any entry is.
    let float = sequence([made.clone(), leaf("Count").arg("into", "{speed}")]);
    assert!(
        error(&float).contains("tree entry `speed` holds float values, but int is needed"),
        "{}",
        error(&float)
    );
    let name = sequence([made, leaf("Name").arg("into", "{place}")]);
    assert!(
        error(&name)
            .contains("`place` is a tree entry: a leaf cannot write a string into a tree entry"),
        "{}",
        error(&name)
    );
}

#[test]
fn an_output_naming_no_field_creates_the_entry_it_writes() {
    // BT.CPP's output ports create their entries: `{seen}` is no field and
    // no script creates it; the script before the leaf reads it already.
    let tree = sequence([
        assert_script("seen == 0"),
        leaf("Count").arg("into", "{seen}"),
        assert_script("seen == 1"),
        leaf("Count").arg("into", "{seen}"),
        leaf("Above").arg("limit", "{seen}"),
        leaf("Count").arg("into", "{seen}"),
        leaf("Above").arg("limit", "{seen}"),
        leaf("Mark").arg("flag", "{marked}"),
        assert_script("marked && seen == 3"),
    ]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(entry_types(&agent), ["int seen", "bool marked"]);
    // `Above` reads 2 after the second count: the sequence fails there.
    assert_eq!(agent.tick(), Failure);
    assert_eq!(entry(&agent, "seen"), Value::Int(2));
    assert_eq!(entry(&agent, "marked"), Value::Bool(false));
    let text = agent.program.shape().disassemble().to_string();
    assert!(text.contains("into={seen}"), "{text}");
    // A field of that name is written instead, and no entry is made.
    let tree = sequence([leaf("Count").arg("into", "{walks}")]);
    let mut agent = Agent::new(&tree, &leaves());
    assert!(agent.program.shape().entries().is_empty());
    assert_eq!(agent.tick(), Success);
    assert_eq!(agent.bb.walks, 1);
}

#[test]
fn an_output_writes_a_scripts_entry_while_running_and_when_cancelled() {
    let tree = priority([
        sequence([assert_script("t >= 2"), act("Walk")]),
        sequence([script("t := 0"), act("Tally").arg("into", "{t}")]),
    ]);
    let mut agent = Agent::new(&tree, &leaves());
    assert_eq!(agent.program.shape().entries().len(), 1);
    assert_eq!(agent.tick(), Running);
    assert_eq!(entry(&agent, "t"), Value::Int(1));
    assert_eq!(agent.tick(), Running);
    assert_eq!(entry(&agent, "t"), Value::Int(2));
    // The first branch holds now: Tally is cancelled, and writes -1.
    assert_eq!(agent.tick(), Running);
    assert_eq!(agent.bb.walks, 1);
    assert_eq!(entry(&agent, "t"), Value::Int(-1));
}
