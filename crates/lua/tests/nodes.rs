//! The Lua nodes on an application's blackboard: what each does, what its
//! code may touch, and that a call leaves nothing behind but what it wrote
//! to its agent (the same results on any thread).

use treebeard_lua::{LuaError, LuaHost, LuaValue};
use treebeard_shape::tree::{Node, leaf, priority, sequence};
use treebeard_vm::{Actor, AgentId, Call, FieldId, Interpreter, Leaves, Program, Status, Value};

/// An agent: a counter, a flag, a name, and what its commands did.
#[derive(Clone, Debug, Default, PartialEq)]
struct Bb {
    n: i64,
    green: bool,
    name: String,
    calls: Vec<String>,
}

const FIELDS: [&str; 3] = ["n", "green", "name"];

impl LuaHost for Bb {
    fn field(&self, name: &str) -> Option<FieldId> {
        FIELDS
            .iter()
            .position(|f| *f == name)
            .map(|i| FieldId(i as u32))
    }

    fn get(&self, field: FieldId) -> Value<'_> {
        match field.0 {
            0 => Value::Int(self.n),
            1 => Value::Bool(self.green),
            _ => Value::Str(&self.name),
        }
    }

    fn set(&mut self, field: FieldId, value: Value<'_>) -> bool {
        match (field.0, value) {
            (0, Value::Int(n)) => self.n = n,
            (1, Value::Bool(b)) => self.green = b,
            (2, Value::Str(s)) => self.name = s.to_owned(),
            _ => return false,
        }
        true
    }

    fn has_function(&self, name: &str) -> bool {
        matches!(name, "Twice" | "Shout")
    }

    fn query(&self, name: &str, args: &[LuaValue]) -> Option<Result<LuaValue, String>> {
        match (name, args) {
            ("Twice", [LuaValue::Int(x)]) => Some(Ok(LuaValue::Int(2 * x))),
            ("Twice", _) => Some(Err("Twice takes an integer".into())),
            _ => None,
        }
    }

    fn command(&mut self, name: &str, args: &[LuaValue]) -> Option<Result<LuaValue, String>> {
        if name == "Shout" {
            self.calls.push(format!("Shout{args:?}"));
            return Some(Ok(LuaValue::Nil));
        }
        self.query(name, args)
    }
}

/// An agent that hears its Lua errors itself.
#[derive(Default)]
struct Noted(Bb, std::cell::RefCell<Vec<LuaError>>);

impl LuaHost for Noted {
    fn field(&self, name: &str) -> Option<FieldId> {
        self.0.field(name)
    }

    fn get(&self, field: FieldId) -> Value<'_> {
        self.0.get(field)
    }

    fn set(&mut self, field: FieldId, value: Value<'_>) -> bool {
        self.0.set(field, value)
    }

    fn lua_error(&self, error: LuaError) {
        self.1.borrow_mut().push(error);
    }
}

/// The Lua nodes, for agents that hear their errors themselves.
fn noted_leaves() -> Leaves<Noted> {
    let mut leaves = Leaves::new();
    treebeard_lua::register(&mut leaves);
    leaves
}

/// A leaf that runs until cancelled.
fn walk(_: &mut Bb, _: &mut Call<'_>) -> Status {
    Status::Running
}

fn leaves() -> Leaves<Bb> {
    let mut leaves = Leaves::new();
    treebeard_lua::register(&mut leaves);
    leaves.action("Walk", walk);
    leaves.action("Done", |_, _| Status::Success);
    leaves
}

fn execute(code: &str) -> Node {
    leaf("ExecuteLua").arg("code", code)
}

fn assert_lua(code: &str) -> Node {
    leaf("AssertLua").arg("code", code)
}

fn program(tree: &Node) -> Program<Bb> {
    leaves().compile(tree).unwrap()
}

/// Ticks agent 0 once through `program`: the root's status.
fn tick(program: &Program<Bb>, actor: &mut Actor, bb: &mut Bb) -> Status {
    tick_as(AgentId(0), program, actor, bb)
}

/// Ticks `agent` once through `program`: the root's status.
fn tick_as<H>(agent: AgentId, program: &Program<H>, actor: &mut Actor, bb: &mut H) -> Status {
    Interpreter::new().tick(
        program,
        &Default::default(),
        agent,
        &mut actor.as_mut(),
        bb,
        &mut Vec::new(),
    )
}

/// The MBT tree `text`, loaded with its Lua nodes as Lua and linked to
/// `leaves`.
fn mbt_program<H>(text: &str, leaves: &Leaves<H>) -> Program<H> {
    let options = treebeard_load::LoadOptions {
        lua: true,
        ..Default::default()
    };
    let loaded = treebeard_load::load_str("tree.xml", text, leaves, &options)
        .into_result()
        .unwrap();
    Program::link(loaded.shape, leaves).unwrap()
}

fn run_once(tree: &Node, bb: &mut Bb) -> Status {
    let program = program(tree);
    let mut actor = Actor::for_shape(program.shape());
    tick(&program, &mut actor, bb)
}

#[test]
fn execute_lua_writes_the_agent_calls_commands_and_always_succeeds() {
    let mut bb = Bb::default();
    let tree = sequence([
        execute("entity.n = Twice(21); entity.name = string.upper('ok'); Shout(entity.n, true)"),
        // Errors: a global, an unknown field, a call of no function, a
        // value of the wrong type. Each stops its code; each node succeeds.
        execute("x = 1"),
        execute("entity.nope = 1"),
        execute("Nothing()"),
        execute("entity.green = 3"),
        execute("entity.n = entity.n + 1; error('stop'); entity.n = 0"),
    ]);
    assert_eq!(run_once(&tree, &mut bb), Status::Success);
    assert_eq!((bb.n, &*bb.name, bb.green), (43, "OK", false));
    assert_eq!(bb.calls, ["Shout[Int(42), Bool(true)]"]);
}

#[test]
fn assert_lua_tests_the_code_and_cannot_change_the_agent() {
    let mut bb = Bb {
        n: 75,
        ..Bb::default()
    };
    let holds = |code: &str, bb: &mut Bb| run_once(&assert_lua(code), bb) == Status::Success;
    // A field the agent lacks is an error (false), not nil.
    assert!(!holds("return entity.someCounter == nil", &mut bb));
    assert!(holds("return entity.n == 75", &mut bb));
    assert!(holds(
        "return Twice(entity.n) == 150 and 'a value'",
        &mut bb
    ));
    assert!(!holds("return entity.n ~= 75", &mut bb));
    assert!(!holds("return nil", &mut bb));
    assert!(!holds("return", &mut bb));
    // Writing the agent, or calling a command, is an error: false.
    assert!(!holds("entity.n = 1; return true", &mut bb));
    assert!(!holds("Shout(); return true", &mut bb));
    assert_eq!((bb.n, bb.calls.len()), (75, 0));
    // Lua's libraries are read-only and draw no random numbers.
    assert!(!holds("math.pi = 3; return true", &mut bb));
    assert!(holds(
        "return math.random == nil and math.floor(2.5) == 2",
        &mut bb
    ));
}

#[test]
fn lua_wrapper_runs_on_enter_and_on_exit_however_the_child_ends() {
    let wrapper = |child: Node| {
        let mut scope = leaf("LuaWrapper")
            .arg("onEnter", "entity.n = entity.n + 1")
            .arg("onExit", "entity.n = entity.n + 100");
        scope.push(child);
        scope
    };
    // The child succeeds: enter, then exit, in one tick.
    let mut bb = Bb::default();
    assert_eq!(run_once(&wrapper(leaf("Done")), &mut bb), Status::Success);
    assert_eq!(bb.n, 101);
    // The child runs: entered once; then a branch before it takes over, and
    // the cancel runs the exit.
    let tree = priority([
        sequence([assert_lua("return entity.green"), leaf("Done")]),
        wrapper(leaf("Walk")),
    ]);
    let program = program(&tree);
    let mut actor = Actor::for_shape(program.shape());
    let mut bb = Bb::default();
    assert_eq!(tick(&program, &mut actor, &mut bb), Status::Running);
    assert_eq!(tick(&program, &mut actor, &mut bb), Status::Running);
    assert_eq!(bb.n, 1);
    bb.green = true;
    assert_eq!(tick(&program, &mut actor, &mut bb), Status::Success);
    assert_eq!(bb.n, 101);
}

#[test]
fn a_call_leaves_nothing_behind_so_threads_give_the_same_results() {
    // Code that would keep state between calls, if it could: a global
    // counter (an error), and a library's field (read-only).
    let tree = sequence([
        execute("count = (count or 0) + 1"),
        execute("string.seen = (string.seen or 0) + 1"),
        execute("local t = {} for i = 1, entity.n do t[i] = i * i end entity.n = #t + t[#t]"),
    ]);
    let program = program(&tree);
    let agents: Vec<Bb> = (0..64)
        .map(|i| Bb {
            n: i,
            ..Bb::default()
        })
        .collect();
    let run = |mut agents: Vec<Bb>| {
        let mut actors: Vec<Actor> = agents
            .iter()
            .map(|_| Actor::for_shape(program.shape()))
            .collect();
        for (bb, actor) in agents.iter_mut().zip(&mut actors) {
            assert_eq!(tick(&program, actor, bb), Status::Success);
        }
        agents
    };
    let one = run(agents.clone());
    let split: Vec<Bb> = std::thread::scope(|s| {
        let handles: Vec<_> = agents
            .chunks(16)
            .map(|chunk| s.spawn(|| run(chunk.to_vec())))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(one, split);
    assert_eq!(one[3].n, 3 + 9);
    assert_eq!(one[0].n, 0);
}

#[test]
fn code_that_does_not_compile_is_an_error_at_its_attribute() {
    assert!(treebeard_lua::check("return entity.n == 75").is_ok());
    let error = treebeard_lua::check("return (").unwrap_err();
    assert!(error.starts_with("code:1:"), "{error}");
    // An MBT file read with `lua`: located at the attribute's value.
    let text = "<BehaviorTree>\n  <Root>\n    <Sequence>\n      <ExecuteLua code=\"entity.n = = 1\" />\n    </Sequence>\n  </Root>\n</BehaviorTree>\n";
    let options = treebeard_load::LoadOptions {
        lua: true,
        ..Default::default()
    };
    let load = treebeard_load::load_str("tree.xml", text, &leaves(), &options);
    let rendered = load.diagnostics.render(&load.map, false);
    assert!(load.loaded.is_none(), "{rendered}");
    assert!(
        rendered.contains("the Lua code `code` of `ExecuteLua` does not compile: code:1:")
            && rendered.contains("tree.xml:4:25"),
        "{rendered}"
    );
}

#[test]
fn the_mbt_reader_maps_the_lua_nodes_to_these_leaves() {
    let text = r#"<BehaviorTree>
  <Root>
    <Sequence>
      <LuaWrapper onEnter="entity.n = 1" onExit="entity.name = 'out'">
        <LuaGate code="return entity.n == 1">
          <AssertLua code="return entity.n == 1" />
        </LuaGate>
      </LuaWrapper>
      <ExecuteLua code="entity.green = true" />
    </Sequence>
  </Root>
</BehaviorTree>
"#;
    let program = mbt_program(text, &leaves());
    let mut actor = Actor::for_shape(program.shape());
    let mut bb = Bb::default();
    assert_eq!(tick(&program, &mut actor, &mut bb), Status::Success);
    assert_eq!((bb.n, &*bb.name, bb.green), (1, "out", true));
}

#[test]
fn entity_reads_and_sets_the_tree_variables_a_field_first() {
    // `n` is a field and a variable: the field wins. `Armed` starts true.
    let text = r#"<BehaviorTree>
  <Variables>
    <Variable name="n" />
    <Variable name="Armed" value="true" />
    <Variable name="Seen" />
  </Variables>
  <Root>
    <Sequence>
      <ExecuteLua code="entity.n = 7; entity.green = entity.Armed" />
      <ExecuteLua code="entity.Armed = false; entity.Seen = true" />
      <AssertCondition condition="Seen &amp;&amp; !Armed" />
      <AssertLua code="return entity.Seen" />
      <ExecuteLua code="entity.Seen = 1" />
      <ExecuteLua code="entity.Missing = true" />
      <AssertLua code="entity.Seen = false; return true" />
    </Sequence>
  </Root>
</BehaviorTree>
"#;
    let program = mbt_program(text, &noted_leaves());
    let mut actor = Actor::for_shape(program.shape());
    let mut noted = Noted::default();
    let status = tick_as(AgentId(0), &program, &mut actor, &mut noted);
    // The last AssertLua fails: a condition cannot set a variable either.
    assert_eq!(status, Status::Failure);
    assert_eq!((noted.0.n, noted.0.green), (7, true));
    // The actor holds what Lua set, for the next tick and for scripts.
    let vars: Vec<Option<bool>> = (0..3)
        .map(|i| actor.as_ref().variable(program.shape(), i))
        .collect();
    assert_eq!(vars, [Some(false), Some(false), Some(true)]);
    let messages: Vec<String> = noted
        .1
        .into_inner()
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(
        messages[0].contains("the tree variable `Seen` cannot take Int(1)"),
        "{messages:?}"
    );
    assert!(
        messages[1].contains("no field or tree variable `Missing`"),
        "{messages:?}"
    );
    assert!(
        messages[2].contains("a condition's Lua code cannot change the agent"),
        "{messages:?}"
    );
}

#[test]
fn code_that_fails_at_run_time_is_reported_with_its_node_and_agent() {
    // 0 sequence, 1 ExecuteLua (fails, succeeds), 2 AssertLua (fails)
    let tree = sequence([execute("Launch()"), assert_lua("return entity.speed > 1")]);
    let program = noted_leaves().compile(&tree).unwrap();
    let mut actor = Actor::for_shape(program.shape());
    let mut noted = Noted::default();
    let status = tick_as(AgentId(4), &program, &mut actor, &mut noted);
    assert_eq!(status, Status::Failure);
    let errors = noted.1.into_inner();
    let heard: Vec<(u32, u32, bool)> = errors
        .iter()
        .map(|e| (e.node.get(), e.agent.0, e.message.contains("Launch")))
        .collect();
    assert_eq!(heard, [(1, 4, true), (2, 4, false)]);
    assert!(
        errors[1]
            .message
            .contains("no field or tree variable `speed`"),
        "{:?}",
        errors[1]
    );
    // Where the node was written, when the shape knows it; else its item.
    let line = errors[1].located(program.shape());
    assert!(line.starts_with("item 2: the Lua code of `"), "{line}");
    assert!(
        line.ends_with("no field or tree variable `speed`"),
        "{line}"
    );
}

#[test]
fn the_default_keeps_each_error_once_with_its_lowest_agent_and_count() {
    // The only test here that takes the process's list; the others may
    // add to it meanwhile, never this message.
    let tree = execute("error('kept by the default')");
    let program = program(&tree);
    for agent in [7, 2, 5] {
        let mut actor = Actor::for_shape(program.shape());
        tick_as(AgentId(agent), &program, &mut actor, &mut Bb::default());
    }
    let (errors, _) = treebeard_lua::take_errors();
    let mine: Vec<_> = errors
        .iter()
        .filter(|e| e.error.message.contains("kept by the default"))
        .collect();
    assert_eq!(mine.len(), 1, "{errors:?}");
    assert_eq!((mine[0].error.agent, mine[0].count), (AgentId(2), 3));
}
