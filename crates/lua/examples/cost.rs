//! What a Lua node costs per call, against treebeard's script language
//! doing the same in the same run: one agent ticks a tree of one
//! `ExecuteLua` (or one `Script`) that adds 1 to a field, `CALLS` times.
//!
//! `cargo run --release -p treebeard-lua --example cost`

use std::time::Instant;
use treebeard_lua::LuaHost;
use treebeard_shape::Kind;
use treebeard_shape::tree::{Node, decider_of, leaf};
use treebeard_vm::{Actor, AgentId, FieldId, Interpreter, Leaves, Status, Value};

const CALLS: u32 = 200_000;

#[derive(Default)]
struct Bb {
    n: i64,
}

treebeard_vm::blackboard!(Bb { n });

impl LuaHost for Bb {
    fn field(&self, name: &str) -> Option<FieldId> {
        (name == "n").then_some(FieldId(0))
    }
    fn get(&self, _: FieldId) -> Value<'_> {
        Value::Int(self.n)
    }
    fn set(&mut self, _: FieldId, value: Value<'_>) -> bool {
        match value {
            Value::Int(n) => self.n = n,
            _ => return false,
        }
        true
    }
}

/// Nanoseconds per tick of `tree`.
fn per_tick(tree: &Node, leaves: &Leaves<Bb>) -> f64 {
    let program = leaves.compile(tree).expect("the tree compiles");
    let mut actor = Actor::for_shape(program.shape());
    let mut bb = Bb::default();
    let mut interpreter = Interpreter::new();
    let start = Instant::now();
    for _ in 0..CALLS {
        let status = interpreter.tick(
            &program,
            &Default::default(),
            AgentId(0),
            &mut actor.as_mut(),
            &mut bb,
            &mut Vec::new(),
        );
        assert_eq!(status, Status::Success);
    }
    assert_eq!(bb.n, i64::from(CALLS));
    start.elapsed().as_nanos() as f64 / f64::from(CALLS)
}

fn main() {
    let mut leaves = Leaves::<Bb>::new();
    leaves.blackboard();
    treebeard_lua::register(&mut leaves);
    let script = decider_of(Kind::Script, []).arg("script", "n = n + 1");
    let lua = leaf("ExecuteLua").arg("code", "entity.n = entity.n + 1");
    // Interleaved rounds: the machine's load falls on both alike.
    let (mut s, mut l) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        s.push(per_tick(&script, &leaves));
        l.push(per_tick(&lua, &leaves));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (s, l) = (median(&mut s), median(&mut l));
    println!("script: {s:.0} ns per tick");
    println!("lua:    {l:.0} ns per tick");
    println!("ratio:  {:.1}x", l / s);
}
