//! The reference's tree built from a shape: [`ref_node`].

use super::*;

/// The reference node for the item `at` of `shape`, with its subtree.
pub(super) fn ref_node(shape: &Shape, at: NodeIdx) -> RefNode {
    let children = || {
        shape
            .children(at)
            .map(|c| ref_node(shape, c))
            .collect::<Vec<_>>()
    };
    let only = || ref_node(shape, NodeIdx::new(at.get() + 1));
    // The duration of `Timeout`, `Wait` and `Cooldown`: an `f64`'s bits.
    let seconds = || f64::from_bits(shape.params(at)[0]);
    let item = shape.item(at);
    match shape.kind(at) {
        Kind::Sequence => RefNode::sequence(at, children()),
        Kind::ReactiveSequence => RefNode::reactive_sequence(at, children()),
        Kind::IfThenElse => RefNode::if_then_else(at, children()),
        Kind::SequenceWithMemory => RefNode::SequenceWithMemory {
            node: at,
            children: children(),
            position: 0,
        },
        Kind::AsyncSequence | Kind::AsyncSelector => RefNode::Async {
            node: at,
            children: children(),
            selector: shape.kind(at) == Kind::AsyncSelector,
            position: 0,
            yielded: false,
        },
        Kind::WhileDoElse => RefNode::WhileDoElse {
            node: at,
            children: children(),
        },
        Kind::PrioritySelector => RefNode::priority(at, children()),
        Kind::Selector => RefNode::selector(at, children()),
        Kind::Inverter => RefNode::inverter(at, only()),
        Kind::ForceSuccess => RefNode::force_success(at, only()),
        Kind::ForceFailure => RefNode::force_failure(at, only()),
        Kind::Concurrent => {
            let children = children();
            RefNode::Concurrent {
                node: at,
                finished: vec![None; children.len()],
                children,
                succeed_at: usize::from(item.a()),
                fail_at: usize::from(item.b()),
                max_failures: None,
            }
        }
        Kind::ParallelAll => {
            let children = children();
            let n = children.len();
            RefNode::Concurrent {
                node: at,
                finished: vec![None; n],
                children,
                succeed_at: n + 1,
                fail_at: n + 1,
                max_failures: Some(shape.params(at)[0] as usize),
            }
        }
        Kind::Loop | Kind::LoopUntilSuccess => RefNode::looped(
            at,
            shape.kind(at) == Kind::LoopUntilSuccess,
            shape.params(at)[0],
            only(),
        )
        .again(shape.params(at)[1] != 0),
        Kind::Timeout => RefNode::timeout(at, seconds(), only()),
        Kind::Wait => RefNode::wait(at, seconds()),
        Kind::Cooldown => RefNode::cooldown(at, seconds(), only()),
        Kind::Scope => RefNode::scope(at, only()),
        Kind::Gate => RefNode::Crowd {
            node: at,
            rule: CrowdRule::Gate {
                max: shape.params(at)[0] as u32,
                wait: shape.params(at)[1] != 0,
            },
            child: Box::new(only()),
        },
        Kind::GlobalCooldown => RefNode::Crowd {
            node: at,
            rule: CrowdRule::Cooldown {
                seconds: seconds(),
                on_enter: shape.params(at)[1] != 0,
            },
            child: Box::new(only()),
        },
        Kind::Team => RefNode::Team {
            node: at,
            size: shape.params(at)[0] as u32,
            children: children(),
        },
        Kind::Sync => RefNode::Sync {
            node: at,
            point: shape.params(at)[0] as u32,
            waiting: false,
        },
        Kind::ChildTree => RefNode::ChildTree {
            node: at,
            children: children(),
            names: shape
                .children(at)
                .map(|c| shape.node(c).name.clone())
                .collect(),
            injected: 0,
        },
        Kind::Script => RefNode::Script {
            node: at,
            script: shape.params(at)[0],
        },
        Kind::AlwaysSuccess => RefNode::Always {
            node: at,
            status: Status::Success,
        },
        Kind::AlwaysFailure => RefNode::Always {
            node: at,
            status: Status::Failure,
        },
        Kind::AssertScript | Kind::AssertCondition => RefNode::Assert {
            node: at,
            test: shape.params(at)[0],
            read_only: shape.kind(at) == Kind::AssertCondition,
        },
        Kind::ScriptGate | Kind::IfCondition | Kind::IfTime => {
            let params = shape.params(at);
            let test = match shape.kind(at) {
                Kind::ScriptGate => GateTest::Script(params[0]),
                Kind::IfCondition => GateTest::Condition(params[0]),
                _ => GateTest::Time(time_test(params)),
            };
            RefNode::Gate {
                node: at,
                test,
                child: Box::new(only()),
                running: false,
            }
        }
        Kind::ScriptWrapper => RefNode::ScriptWrapper {
            node: at,
            enter: shape.params(at)[0],
            exit: shape.params(at)[1],
            halted: shape.params(at)[2],
            child: Box::new(only()),
            open: false,
        },
        Kind::WaitUntilTime => RefNode::WaitUntilTime {
            node: at,
            test: time_test(shape.params(at)),
            running: false,
        },
        Kind::WaitForEvent => RefNode::WaitForEvent {
            node: at,
            event: EventId(shape.params(at)[0] as u32),
            waiting: None,
        },
        Kind::SendEvent => RefNode::SendEvent {
            node: at,
            event: EventId(shape.params(at)[0] as u32),
            to: IntInput::Input(shape.params(at)[1]),
        },
        Kind::PostStimulus => {
            let stimulus = shape.params(at)[0] as usize;
            RefNode::PostStimulus {
                node: at,
                stimulus,
                seconds: shape.stimuli()[stimulus].seconds,
                data: IntInput::Input(shape.params(at)[1]),
            }
        }
        Kind::StoredState => RefNode::StoredState {
            node: at,
            child: Box::new(only()),
        },
        Kind::Repeat => RefNode::Repeat {
            node: at,
            child: Box::new(only()),
        },
        Kind::Monitor => RefNode::Monitor {
            node: at,
            child: Box::new(only()),
            registered: false,
        },
        Kind::Condition => RefNode::condition(at),
        Kind::Action => {
            let persistent = shape.import(at).is_some_and(|i| i.persistent);
            RefNode::action(at, persistent).with_memory(memory_words(shape, at))
        }
        Kind::Deferred => RefNode::deferred(at, ActionId(item.import())),
        Kind::Decide => RefNode::Decide {
            node: at,
            memory: None,
        }
        .with_memory(memory_words(shape, at)),
        Kind::Group => {
            let params = shape.params(at);
            let children = children();
            RefNode::Group {
                node: at,
                policy: GroupPolicy::from_word(params[0]).unwrap_or(GroupPolicy::Prioritized),
                limit: params[1],
                behavior: matches!(children.first(), Some(RefNode::Action { .. })),
                children,
                active: None,
                slot: Kind::Group.owns_slot(params).then_some(0),
            }
        }
        Kind::Decider => {
            let params = shape.params(at);
            RefNode::Decider {
                node: at,
                params: DeciderParams::from_words(params),
                children: children(),
                slot: Kind::Decider.owns_slot(params).then_some(0),
            }
        }
    }
}

/// A time test from its parameter words: the timestamp, the seconds (an
/// `f64`'s bits), `less_than` and `or_never`.
pub(super) fn time_test(params: &[u64]) -> TimeTest {
    TimeTest {
        since: params[0] as usize,
        seconds: f64::from_bits(params[1]),
        less_than: params[2] != 0,
        or_never: params[3] != 0,
    }
}
