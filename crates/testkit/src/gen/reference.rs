//! A spec as the reference interpreter's tree ([`RefNode`]), numbered in
//! the same pre-order as the compiled shape.

use super::*;

impl Spec {
    /// The reference interpreter's tree, numbered in pre-order like the
    /// compiled shape.
    ///
    /// Scripts are numbered as the compiler fills the shape's script table:
    /// one entry per script parameter, in pre-order, a wrapper's enter
    /// before its exit.
    pub fn to_ref_node(&self) -> RefNode {
        /// The next node and script indices, and whether the node is
        /// under a `StoredState` (whose reactive composites are memory ones).
        struct Next {
            node: u32,
            script: u64,
            stored: bool,
        }
        impl Next {
            fn script(&mut self) -> u64 {
                self.script += 1;
                self.script - 1
            }
        }
        fn go(spec: &Spec, next: &mut Next) -> RefNode {
            let node = NodeIdx::new(next.node);
            next.node += 1;
            let stored = next.stored;
            let mut kids = |children: &[Spec]| children.iter().map(|c| go(c, next)).collect();
            match spec {
                Spec::Sequence(children) => RefNode::sequence(node, kids(children)),
                Spec::Reactive(children) if stored => RefNode::sequence(node, kids(children)),
                Spec::Priority(children) if stored => RefNode::selector(node, kids(children)),
                Spec::Reactive(children) => RefNode::reactive_sequence(node, kids(children)),
                Spec::Priority(children) => RefNode::priority(node, kids(children)),
                Spec::Selector(children) => RefNode::selector(node, kids(children)),
                Spec::IfThenElse(children) => RefNode::if_then_else(node, kids(children)),
                Spec::WhileDoElse(children) if stored => {
                    RefNode::if_then_else(node, kids(children))
                }
                Spec::WhileDoElse(children) => RefNode::WhileDoElse {
                    node,
                    children: kids(children),
                },
                Spec::ParallelAll(m, children) => {
                    let children: Vec<RefNode> = kids(children);
                    let n = children.len();
                    RefNode::Concurrent {
                        node,
                        finished: vec![None; n],
                        children,
                        succeed_at: n + 1,
                        fail_at: n + 1,
                        max_failures: Some(usize::from(*m)),
                    }
                }
                Spec::WithMemory(children) => RefNode::SequenceWithMemory {
                    node,
                    children: kids(children),
                    position: 0,
                },
                Spec::Async(selector, children) => RefNode::Async {
                    node,
                    children: kids(children),
                    selector: *selector,
                    position: 0,
                    yielded: false,
                },
                Spec::Inverter(child) => RefNode::inverter(node, go(child, next)),
                Spec::ForceSuccess(child) => RefNode::force_success(node, go(child, next)),
                Spec::ForceFailure(child) => RefNode::force_failure(node, go(child, next)),
                Spec::Concurrent {
                    succeed,
                    fail,
                    children,
                } => {
                    let policy = Policy {
                        succeed: *succeed,
                        fail: *fail,
                    };
                    RefNode::concurrent(node, policy, kids(children))
                }
                Spec::Cond => RefNode::condition(node),
                Spec::Act => RefNode::action(node, false),
                // The test leaf `p` has a memory block of two words, and
                // `score` one of one.
                Spec::Persistent => RefNode::action(node, true).with_memory(2),
                Spec::Deferred => RefNode::deferred(node, DEFERRED_ACTION),
                Spec::Always(succeeds) => RefNode::Always {
                    node,
                    status: if *succeeds {
                        Status::Success
                    } else {
                        Status::Failure
                    },
                },
                Spec::Script(_) => RefNode::Script {
                    node,
                    script: next.script(),
                },
                Spec::AssertScript(_) | Spec::AssertCondition(_) => RefNode::Assert {
                    node,
                    test: next.script(),
                    read_only: matches!(spec, Spec::AssertCondition(_)),
                },
                Spec::ScriptGate(_, child) => {
                    let test = GateTest::Script(next.script());
                    gate(node, test, go(child, next))
                }
                Spec::IfCondition(_, child) => {
                    let test = GateTest::Condition(next.script());
                    gate(node, test, go(child, next))
                }
                Spec::IfTime(test, child) => {
                    gate(node, GateTest::Time(test.to_test()), go(child, next))
                }
                Spec::ScriptWrapper { child, .. } => {
                    let (enter, exit) = (next.script(), next.script());
                    RefNode::ScriptWrapper {
                        node,
                        enter,
                        exit,
                        // Not given: none.
                        halted: treebeard_shape::NO_SCRIPT,
                        child: Box::new(go(child, next)),
                        open: false,
                    }
                }
                Spec::WaitUntilTime(test) => RefNode::WaitUntilTime {
                    node,
                    test: test.to_test(),
                    running: false,
                },
                Spec::WaitForEvent(event) => RefNode::WaitForEvent {
                    node,
                    event: EventId(u32::from(*event)),
                    waiting: None,
                },
                Spec::SendEvent { event, to } => RefNode::SendEvent {
                    node,
                    event: EventId(u32::from(*event)),
                    to: IntInput::Literal(i64::from(*to)),
                },
                Spec::PostStimulus { stimulus, data } => RefNode::PostStimulus {
                    node,
                    stimulus: usize::from(*stimulus),
                    seconds: STIMULI[usize::from(*stimulus)].1 as f32,
                    data: IntInput::Literal(*data),
                },
                Spec::Loop(count, again, child) => {
                    let looped = RefNode::looped(node, false, u64::from(*count), go(child, next));
                    looped.again(*again)
                }
                Spec::LoopUntilSuccess(attempts, again, child) => {
                    let looped = RefNode::looped(node, true, u64::from(*attempts), go(child, next));
                    looped.again(*again)
                }
                Spec::Timeout(i, child) => RefNode::timeout(node, seconds(*i), go(child, next)),
                Spec::Wait(i) => RefNode::wait(node, seconds(*i)),
                Spec::Cooldown(i, child) => RefNode::cooldown(node, seconds(*i), go(child, next)),
                Spec::Scope(child) => RefNode::scope(node, go(child, next)),
                Spec::StoredState(child) => {
                    let outer = std::mem::replace(&mut next.stored, true);
                    let child = Box::new(go(child, next));
                    next.stored = outer;
                    RefNode::StoredState { node, child }
                }
                Spec::Repeat(child) => RefNode::Repeat {
                    node,
                    child: Box::new(go(child, next)),
                },
                Spec::Monitor(child) => RefNode::Monitor {
                    node,
                    child: Box::new(go(child, next)),
                    registered: false,
                },
                Spec::Group {
                    policy,
                    limit,
                    children,
                } => {
                    let policy = GroupPolicy::from_word(u64::from(*policy))
                        .expect("spec policies index POLICIES");
                    RefNode::Group {
                        node,
                        policy,
                        limit: u64::from(*limit),
                        behavior: matches!(children.first(), Some(Spec::Act)),
                        children: kids(children),
                        active: None,
                        slot: policy.draws().then_some(0),
                    }
                }
                Spec::Decider { params, children } => RefNode::Decider {
                    node,
                    params: params.to_params(),
                    children: kids(children),
                    slot: (params.every > 0).then_some(0),
                },
                Spec::Decide => RefNode::Decide { node, memory: None }.with_memory(1),
                Spec::Gate(max, child) => RefNode::Crowd {
                    node,
                    rule: CrowdRule::Gate {
                        max: u32::from(*max & !GATE_WAITS),
                        wait: *max & GATE_WAITS != 0,
                    },
                    child: Box::new(go(child, next)),
                },
                Spec::GlobalCooldown {
                    seconds: i,
                    on_enter,
                    child,
                } => RefNode::Crowd {
                    node,
                    rule: CrowdRule::Cooldown {
                        seconds: seconds(*i),
                        on_enter: *on_enter,
                    },
                    child: Box::new(go(child, next)),
                },
                Spec::Team(size, children) => RefNode::Team {
                    node,
                    size: u32::from(*size),
                    children: kids(children),
                },
                Spec::Sync(point) => RefNode::Sync {
                    node,
                    point: u32::from(*point),
                    waiting: false,
                },
                Spec::ChildTree(children) => RefNode::ChildTree {
                    node,
                    names: child_tree_names(children)
                        .into_iter()
                        .map(String::into_boxed_str)
                        .collect(),
                    children: kids(children),
                    injected: 0,
                },
            }
        }
        fn gate(node: NodeIdx, test: GateTest, child: RefNode) -> RefNode {
            RefNode::Gate {
                node,
                test,
                child: Box::new(child),
                running: false,
            }
        }
        let mut next = Next {
            node: 0,
            script: 0,
            stored: false,
        };
        go(self, &mut next)
    }
}
