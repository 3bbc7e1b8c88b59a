//! The generator's own tests: every kind reachable, specs that compile.

use super::*;
use crate::reference::Memory;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use std::collections::BTreeSet;
use treebeard_shape::Kind;

/// 0 seq, 1 c, 2 pri, 3 a, 4 d, 5 con, 6 p, 7 d, 8 sel, 9 inv, 10 c,
/// 11 fsucc, 12 a, 13 ffail, 14 d
fn every_kind() -> Spec {
    Spec::Sequence(vec![
        Spec::Cond,
        Spec::Priority(vec![Spec::Act, Spec::Deferred]),
        Spec::Concurrent {
            succeed: Count::All,
            fail: Count::AtLeast(1),
            children: vec![Spec::Persistent, Spec::Deferred],
        },
        Spec::Selector(vec![
            Spec::Inverter(Box::new(Spec::Cond)),
            Spec::ForceSuccess(Box::new(Spec::Act)),
            Spec::ForceFailure(Box::new(Spec::Deferred)),
        ]),
    ])
}

/// The kind the spec node compiles to; `None` for the action leaves,
/// whose kind the catalog decides.
fn kind_of(spec: &Spec) -> Option<Kind> {
    Some(match spec {
        Spec::Sequence(_) => Kind::Sequence,
        Spec::Reactive(_) => Kind::ReactiveSequence,
        Spec::Priority(_) => Kind::PrioritySelector,
        Spec::Selector(_) => Kind::Selector,
        Spec::IfThenElse(_) => Kind::IfThenElse,
        Spec::WhileDoElse(_) => Kind::WhileDoElse,
        Spec::WithMemory(_) => Kind::SequenceWithMemory,
        Spec::Async(false, _) => Kind::AsyncSequence,
        Spec::Async(true, _) => Kind::AsyncSelector,
        Spec::ParallelAll(..) => Kind::ParallelAll,
        Spec::Inverter(_) => Kind::Inverter,
        Spec::ForceSuccess(_) => Kind::ForceSuccess,
        Spec::ForceFailure(_) => Kind::ForceFailure,
        Spec::Concurrent { .. } => Kind::Concurrent,
        Spec::Cond => Kind::Condition,
        Spec::Deferred => Kind::Deferred,
        Spec::Act | Spec::Persistent => Kind::Action,
        Spec::Always(true) => Kind::AlwaysSuccess,
        Spec::Always(false) => Kind::AlwaysFailure,
        Spec::Script(_) => Kind::Script,
        Spec::AssertScript(_) => Kind::AssertScript,
        Spec::AssertCondition(_) => Kind::AssertCondition,
        Spec::ScriptGate(..) => Kind::ScriptGate,
        Spec::IfCondition(..) => Kind::IfCondition,
        Spec::IfTime(..) => Kind::IfTime,
        Spec::ScriptWrapper { .. } => Kind::ScriptWrapper,
        Spec::WaitUntilTime(_) => Kind::WaitUntilTime,
        Spec::WaitForEvent(_) => Kind::WaitForEvent,
        Spec::SendEvent { .. } => Kind::SendEvent,
        Spec::PostStimulus { .. } => Kind::PostStimulus,
        Spec::Loop(..) => Kind::Loop,
        Spec::LoopUntilSuccess(..) => Kind::LoopUntilSuccess,
        Spec::Timeout(..) => Kind::Timeout,
        Spec::Wait(_) => Kind::Wait,
        Spec::Cooldown(..) => Kind::Cooldown,
        Spec::Scope(_) => Kind::Scope,
        Spec::StoredState(_) => Kind::StoredState,
        Spec::Repeat(_) => Kind::Repeat,
        Spec::Monitor(_) => Kind::Monitor,
        Spec::Group { .. } => Kind::Group,
        Spec::Decider { .. } => Kind::Decider,
        Spec::Decide => Kind::Decide,
        Spec::Gate(..) => Kind::Gate,
        Spec::GlobalCooldown { .. } => Kind::GlobalCooldown,
        Spec::Team(..) => Kind::Team,
        Spec::Sync(_) => Kind::Sync,
        Spec::ChildTree(_) => Kind::ChildTree,
    })
}

/// 0 sel, 1 script, 2 gate, 3 assert, 4 wrap, 5 check, 6 if, 7 until,
/// 8 iftime, 9 await, 10 send, 11 send, 12 post, 13 post: every memory
/// kind, with scripts 0 (1), 1 (2), 2 (3), 3 and 4 (4), 5 (5), 6 (6).
fn every_memory_kind() -> Spec {
    let time = |since, halves, less_than, or_never| TimeSpec {
        since,
        halves,
        less_than,
        or_never,
    };
    Spec::Selector(vec![
        Spec::Script(2),
        Spec::ScriptGate(5, Box::new(Spec::AssertScript(4))),
        Spec::ScriptWrapper {
            enter: 4,
            exit: 6,
            child: Box::new(Spec::AssertCondition(4)),
        },
        Spec::IfCondition(3, Box::new(Spec::WaitUntilTime(time(1, 3, true, false)))),
        Spec::IfTime(time(2, 5, false, true), Box::new(Spec::WaitForEvent(2))),
        Spec::SendEvent { event: 1, to: -1 },
        Spec::SendEvent { event: 0, to: -2 },
        Spec::PostStimulus {
            stimulus: 1,
            data: -2,
        },
        Spec::PostStimulus {
            stimulus: 0,
            data: 1 << 32,
        },
    ])
}

#[test]
fn a_tree_of_plain_kinds_compiles_without_variables_as_the_reference_reads_it() {
    let spec = Spec::Priority(vec![
        Spec::Sequence(vec![Spec::Cond, Spec::Act]),
        Spec::Inverter(Box::new(Spec::Deferred)),
    ]);
    assert!(!spec.uses_variables());
    let program = spec.compile();
    let memory = Memory::of(program.shape());
    assert_eq!(memory, memory_with(false));
    assert!(memory.initial.is_empty() && memory.signals.is_empty());
    // The timestamps and stimuli stay declared: they are not leaf cells.
    assert_eq!(memory.timestamps.len(), TIMESTAMPS.len());
    assert!(every_memory_kind().uses_variables());
}

#[test]
fn memory_kinds_compile_as_the_reference_reads_them() {
    let spec = every_memory_kind();
    let program = spec.compile();
    let shape = program.shape();
    assert_eq!(shape.len(), spec.len());
    // The memory the reference keeps is the one the tree declares.
    assert_eq!(memory(), Memory::of(shape));
    assert_eq!(
        shape.events(),
        crate::script::EVENTS.map(Box::<str>::from).as_slice()
    );
    // The shape read back is the reference written from the spec, but
    // for `to` and `data`, which the shape holds as input words.
    let mut from_shape = Reference::from_shape(shape).root().clone();
    let mut from_spec = spec.to_ref_node();
    let mut inputs = Vec::new();
    let mut world = World::new();
    let frame = treebeard_vm::Frame::default();
    let leaves = crate::reference::ProgramLeaves::new(
        &program,
        &mut world,
        treebeard_vm::AgentId(0),
        &frame,
        None,
    );
    for root in [&mut from_shape, &mut from_spec] {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if let RefNode::SendEvent { to: input, .. }
            | RefNode::PostStimulus { data: input, .. } = node
            {
                let value = match *input {
                    IntInput::Literal(v) => Some(v),
                    IntInput::Input(word) => crate::reference::RefLeaves::input_int(&leaves, word),
                };
                inputs.push(value);
                *input = IntInput::Literal(0);
            }
            stack.extend(node.children_mut());
        }
    }
    // Last child first, shape then spec.
    let sides = [Some(1 << 32), Some(-2), Some(-2), Some(-1)];
    assert_eq!(inputs, [sides, sides].concat());
    assert_eq!(from_shape, from_spec);
    // Script indices name the spec's sources; the wrapper at 4 marks
    // its runs.
    let sources: Vec<&str> = shape.scripts().iter().map(|s| &*s.source).collect();
    let (enter, exit) = marked_scripts(4, 4, 6);
    assert_eq!(enter, "v1 = !v1; v0 || 1 / 0 == 0; entered = 4");
    assert_eq!(exit, "exited = 4; v2 || 1 % 0 > 0");
    assert_eq!(
        sources,
        [
            SCRIPTS[2],
            TESTS[5],
            TESTS[4],
            &enter,
            &exit,
            CONDITIONS[4],
            CONDITIONS[3]
        ]
    );
    assert_eq!(
        format!("{spec:?}"),
        "sel(script[v2 = !v2; 6 * 7], gate[v0 || 1 / 0 == 0](assert[v2 = !v2; v2 || v0]), \
         wrap[v1 = !v1; v0 || 1 / 0 == 0 | v2 || 1 % 0 > 0](check[v2 || 2 % 0 == 0]), \
         if[v0 || v2](until[t1 < 1.5]), iftime[t2 > 2.5 or never](await[e2]), \
         send[e1 to -1], send[e0 to -2], post[s1=-2], post[s0=4294967296])"
    );
}

/// 0 con, 1 loop, 2 retry, 3 timeout, 4 wait, 5 cooldown, 6 scope,
/// 7 a, 8 scope, 9 timeout, 10 d: every configured kind, with every
/// duration.
fn every_configured_kind() -> Spec {
    let boxed = Box::new;
    Spec::Concurrent {
        succeed: Count::All,
        fail: Count::AtLeast(1),
        children: vec![
            Spec::Loop(
                3,
                false,
                boxed(Spec::LoopUntilSuccess(
                    0,
                    true,
                    boxed(Spec::Timeout(2, boxed(Spec::Wait(1)))),
                )),
            ),
            Spec::Cooldown(0, boxed(Spec::Scope(boxed(Spec::Act)))),
            Spec::Scope(boxed(Spec::Timeout(0, boxed(Spec::Deferred)))),
        ],
    }
}

#[test]
fn configured_kinds_compile_as_the_reference_reads_them() {
    let spec = every_configured_kind();
    let program = spec.compile();
    let shape = program.shape();
    assert_eq!(shape.len(), spec.len());
    // Counts, durations and scopes as the shape holds them.
    assert_eq!(Reference::from_shape(shape).root(), &spec.to_ref_node());
    // The cool-down owns a persistent slot, ready at once.
    assert_eq!(shape.persistent_map(), &[NodeIdx::new(5)]);
    assert_eq!(spec.to_reference().persistent(), vec![(NodeIdx::new(5), 0)]);
    assert_eq!(shape.action_id("d"), Some(DEFERRED_ACTION));
    assert_eq!(
        format!("{spec:?}"),
        "con[S=all F=1](loop[3](retry[0 again](timeout[1.5](wait[0.5]))), \
         cooldown[0](scope(a)), scope(timeout[0](d)))"
    );
}

/// 0 seq, 1 limit, 2 a, 3 gcooldown, 4 limit, 5 c, 6 gcooldown, 7 d:
/// seed 001's crowd nodes, both modes of the cool-down.
fn every_crowd_kind() -> Spec {
    let boxed = Box::new;
    Spec::Sequence(vec![
        Spec::Gate(2, boxed(Spec::Act)),
        Spec::GlobalCooldown {
            seconds: 2,
            on_enter: true,
            child: boxed(Spec::Gate(MAX_GATE, boxed(Spec::Cond))),
        },
        Spec::GlobalCooldown {
            seconds: 0,
            on_enter: false,
            child: boxed(Spec::Deferred),
        },
    ])
}

#[test]
fn crowd_kinds_compile_as_the_reference_reads_them() {
    let spec = every_crowd_kind();
    let program = spec.compile();
    let shape = program.shape();
    assert_eq!(shape.len(), spec.len());
    assert_eq!(Reference::from_shape(shape).root(), &spec.to_ref_node());
    // One word each in the program's global state, in item order.
    let words: Vec<u32> = program.globals().iter().map(|(n, _)| n.get()).collect();
    assert_eq!(words, [1, 3, 4, 6]);
    let crowd = crate::CrowdState::for_tree(&spec.to_ref_node());
    assert_eq!(crowd.words(), program.globals().iter().collect::<Vec<_>>());
    assert_eq!(
        format!("{spec:?}"),
        "seq(limit[2](a), gcooldown[1.5 on enter](limit[3](c)), gcooldown[0](d))"
    );
}

/// Every node of the spec, in pre-order.
fn pre_order(spec: &Spec) -> Vec<&Spec> {
    let mut out = vec![spec];
    for child in spec.children() {
        out.extend(pre_order(child));
    }
    out
}

#[test]
fn both_forms_number_nodes_alike() {
    let spec = every_kind();
    let program = spec.compile();
    let shape = program.shape();
    assert_eq!(shape.len(), spec.len());
    assert_eq!(
        spec.deferred_nodes(),
        vec![NodeIdx::new(4), NodeIdx::new(7), NodeIdx::new(14)]
    );
    let reference = spec.to_reference();
    let mut ref_nodes = vec![reference.root()];
    let mut i = 0;
    while i < ref_nodes.len() {
        ref_nodes.splice(i + 1..i + 1, ref_nodes[i].children());
        i += 1;
    }
    let nodes = pre_order(&spec);
    assert_eq!(ref_nodes.len(), nodes.len());
    for (i, (node, ref_node)) in nodes.iter().zip(&ref_nodes).enumerate() {
        let idx = NodeIdx::new(i as u32);
        assert_eq!(Some(shape.kind(idx)), kind_of(node), "{idx}");
        assert_eq!(ref_node.index(), idx);
        assert_eq!(ref_node.children().len(), node.children().len(), "{idx}");
    }
    assert_eq!(shape.action_id("d"), Some(DEFERRED_ACTION));
    // `p` owns a persistent slot and a memory block of two words.
    let p = NodeIdx::new(6);
    assert_eq!(shape.persistent_map(), &[p, p, p]);
    assert_eq!(reference.persistent(), vec![(p, 0), (p, 0), (p, 0)]);
    assert_eq!(
        format!("{spec:?}"),
        "seq(c, pri(a, d), con[S=all F=1](p, d), sel(inv(c), fsucc(a), ffail(d)))"
    );
}

/// The deciders a set of specs uses, by kind.
fn decider_kinds<'s>(specs: impl IntoIterator<Item = &'s Spec>) -> BTreeSet<Kind> {
    specs
        .into_iter()
        .flat_map(pre_order)
        .filter(|s| !s.children().is_empty())
        .filter_map(kind_of)
        .collect()
}

/// The deciders a [`Spec`] can be.
fn every_decider() -> BTreeSet<Kind> {
    BTreeSet::from([
        Kind::Sequence,
        Kind::ReactiveSequence,
        Kind::PrioritySelector,
        Kind::Selector,
        Kind::IfThenElse,
        Kind::WhileDoElse,
        Kind::SequenceWithMemory,
        Kind::ParallelAll,
        Kind::Inverter,
        Kind::ForceSuccess,
        Kind::ForceFailure,
        Kind::Concurrent,
        Kind::ScriptGate,
        Kind::IfCondition,
        Kind::IfTime,
        Kind::ScriptWrapper,
        Kind::Loop,
        Kind::LoopUntilSuccess,
        Kind::Timeout,
        Kind::Cooldown,
        Kind::Scope,
        Kind::StoredState,
        Kind::Repeat,
        Kind::Monitor,
        Kind::Group,
        Kind::Decider,
        Kind::Gate,
        Kind::GlobalCooldown,
        Kind::Team,
        Kind::ChildTree,
    ])
}

/// The kinds of the leaves a set of specs uses.
fn leaf_kinds<'s>(specs: impl IntoIterator<Item = &'s Spec>) -> BTreeSet<Kind> {
    specs
        .into_iter()
        .flat_map(pre_order)
        .filter(|s| s.children().is_empty())
        .filter_map(kind_of)
        .collect()
}

/// The leaves a [`Spec`] can be.
fn every_leaf() -> BTreeSet<Kind> {
    BTreeSet::from([
        Kind::Condition,
        Kind::Action,
        Kind::Deferred,
        Kind::AlwaysSuccess,
        Kind::AlwaysFailure,
        Kind::Script,
        Kind::AssertScript,
        Kind::AssertCondition,
        Kind::WaitUntilTime,
        Kind::WaitForEvent,
        Kind::SendEvent,
        Kind::PostStimulus,
        Kind::Wait,
        Kind::Decide,
        Kind::Sync,
    ])
}

#[test]
fn strategy_trees_compile_within_bounds() {
    let mut runner = TestRunner::deterministic();
    let strategy = spec_strategy();
    let specs: Vec<Spec> = (0..300)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the strategy generates")
                .current()
        })
        .collect();
    for spec in &specs {
        // A group and its decider add two levels over their subtree.
        assert!(spec.depth() <= 7, "{spec:?} is too deep");
        spec.compile();
    }
    assert_eq!(decider_kinds(&specs), every_decider());
    assert_eq!(leaf_kinds(&specs), every_leaf());
}

#[test]
fn seeded_trees_are_reproducible_and_compile() {
    let specs: Vec<Spec> = (0..300).map(|seed| Spec::random(seed, 5, 5)).collect();
    for (seed, spec) in specs.iter().enumerate() {
        assert_eq!(*spec, Spec::random(seed as u64, 5, 5));
        assert!(spec.depth() <= 5);
        spec.compile();
    }
    assert_eq!(decider_kinds(&specs), every_decider());
    assert_eq!(leaf_kinds(&specs), every_leaf());
}

#[test]
fn strategy_shrinks_trees_with_decorators() {
    // Shrinking as proptest does for a case that fails whenever the
    // tree holds an inverter: a large tree comes down to a few nodes
    // around an inverter over a leaf.
    let mut runner = TestRunner::deterministic();
    let strategy = spec_strategy();
    let has_inverter = |s: &Spec| pre_order(s).iter().any(|n| matches!(n, Spec::Inverter(_)));
    let mut tree = loop {
        let tree = strategy
            .new_tree(&mut runner)
            .expect("the strategy generates");
        if has_inverter(&tree.current()) && tree.current().len() > 10 {
            break tree;
        }
    };
    let mut smallest = tree.current();
    while tree.simplify() {
        if has_inverter(&tree.current()) {
            smallest = tree.current();
        } else if !tree.complicate() {
            break;
        }
    }
    // An inverter in a monitor's query keeps the monitor and the
    // selector that holds it, `pri(monitor(inv(c)))`, and the selector
    // keeps a first monitor of its own: `sel(monitor(c),
    // monitor(inv(c)))`; a monitor under a concurrent keeps it too,
    // `con(monitor(pri(inv(c))))`.
    assert!(
        smallest.len() <= 6 && smallest.depth() <= 5,
        "shrunk to {smallest:?}"
    );
    let inverters = pre_order(&smallest)
        .into_iter()
        .filter(|n| matches!(n, Spec::Inverter(_)))
        .count();
    assert_eq!(inverters, 1, "shrunk to {smallest:?}");
}
