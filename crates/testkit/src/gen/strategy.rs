//! Random specs from proptest strategies, which shrink a failing case to a
//! small tree ([`spec_strategy`], [`random_cases`]).

use super::*;

/// A proptest strategy for specs: up to 5 levels deep (6 where a `Repeat`
/// or a `Monitor` is put first in a composite), up to 5 children
/// per decider (decorators, gates, wrappers and the configured one-child
/// kinds: one), all kinds, weighted towards concurrent deciders and deferred
/// actions (where cancellation and rollback live). The three decorators
/// together weigh half as much as one of the other deciders, so that they
/// do not thin the trees out, and so do the four one-child memory kinds;
/// the five configured one-child kinds (loops, `Timeout`, `Cooldown`, the
/// scope) together weigh as much as one, and seed 001's nodes (stored
/// state, repeats and monitors, mostly first in a composite) as two. The
/// eight memory leaves (`PostStimulus` and the constant statuses among them) together weigh about a
/// quarter of the leaves, `Wait` a twelfth. Spore groups (1 to 3 deciders, each over any subtree, so two
/// levels more: up to 7) weigh one and a half, and seed 001's crowd nodes
/// (gates and global cool-downs) one.
pub fn spec_strategy() -> impl Strategy<Value = Spec> {
    let leaf = prop_oneof![
        4 => Just(Spec::Cond),
        4 => Just(Spec::Act),
        2 => Just(Spec::Persistent),
        6 => Just(Spec::Deferred),
        6 => memory_leaf_strategy(),
        2 => duration_strategy().prop_map(Spec::Wait),
    ];
    // Depth 4 of recursion: deciders over leaves, 5 levels with leaves.
    leaf.prop_recursive(4, 48, 5, |inner| {
        let decorated = prop_oneof![
            inner.clone().prop_map(|c| Spec::Inverter(Box::new(c))),
            inner.clone().prop_map(|c| Spec::ForceSuccess(Box::new(c))),
            inner.clone().prop_map(|c| Spec::ForceFailure(Box::new(c))),
        ];
        let index = |n: usize| 0..n as u8;
        let gated = prop_oneof![
            (index(TESTS.len()), inner.clone()).prop_map(|(i, c)| Spec::ScriptGate(i, Box::new(c))),
            (index(CONDITIONS.len()), inner.clone())
                .prop_map(|(i, c)| Spec::IfCondition(i, Box::new(c))),
            (time_strategy(), inner.clone()).prop_map(|(t, c)| Spec::IfTime(t, Box::new(c))),
            (index(SCRIPTS.len()), index(SCRIPTS.len()), inner.clone()).prop_map(
                |(enter, exit, c)| Spec::ScriptWrapper {
                    enter,
                    exit,
                    child: Box::new(c),
                }
            ),
        ];
        let loops = || 0..=MAX_LOOPS;
        let configured = prop_oneof![
            // Loops that tick again: `Spec::loops_again`.
            (loops(), inner.clone()).prop_map(|(n, c)| Spec::Loop(n, false, Box::new(c))),
            (loops(), inner.clone()).prop_map(|(n, c)| Spec::LoopUntilSuccess(
                n,
                false,
                Box::new(c)
            )),
            (duration_strategy(), inner.clone()).prop_map(|(i, c)| Spec::Timeout(i, Box::new(c))),
            (duration_strategy(), inner.clone()).prop_map(|(i, c)| Spec::Cooldown(i, Box::new(c))),
            inner.clone().prop_map(|c| Spec::Scope(Box::new(c))),
        ];
        // A Repeat matters before a running sibling: most come first in a
        // sequence or selector.
        let repeated = (
            inner.clone(),
            prop::collection::vec(inner.clone(), 1..=3),
            any::<bool>(),
        )
            .prop_map(|(repeated, rest, sequence)| {
                let mut children = vec![Spec::Repeat(Box::new(repeated))];
                children.extend(rest);
                if sequence {
                    Spec::Sequence(children)
                } else {
                    Spec::Selector(children)
                }
            });
        // A monitor matters before a running branch: most come first in a
        // selector.
        let monitored = (
            query_strategy(),
            prop::collection::vec(inner.clone(), 1..=3),
            any::<bool>(),
        )
            .prop_map(|(query, rest, priority)| {
                let mut children = vec![Spec::Monitor(Box::new(query))];
                children.extend(rest);
                if priority {
                    Spec::Priority(children)
                } else {
                    Spec::Selector(children)
                }
            });
        let stored = prop_oneof![
            inner.clone().prop_map(|c| Spec::StoredState(Box::new(c))),
            inner.clone().prop_map(|c| Spec::Repeat(Box::new(c))),
            repeated,
            query_strategy().prop_map(|q| Spec::Monitor(Box::new(q))),
            monitored,
        ];
        // Seed 001's crowd nodes, over any subtree.
        let crowd = prop_oneof![
            (1..=MAX_GATE, any::<bool>(), inner.clone()).prop_map(|(max, wait, c)| {
                Spec::Gate(if wait { max | GATE_WAITS } else { max }, Box::new(c))
            }),
            (duration_strategy(), any::<bool>(), inner.clone()).prop_map(
                |(seconds, on_enter, c)| Spec::GlobalCooldown {
                    seconds,
                    on_enter,
                    child: Box::new(c),
                }
            ),
            (
                2..=3u8,
                any::<bool>(),
                prop::collection::vec((inner.clone(), inner.clone(), 0..4u8), 3)
            )
                .prop_map(|(size, per_role, branches)| team_spec(size, per_role, branches)),
            prop::collection::vec(inner.clone(), 1..=3).prop_map(Spec::ChildTree),
        ];
        // Spore groups of 1 to 3 deciders; a decider over a group may
        // redecide or delegate.
        let decider = (
            inner.clone(),
            any::<bool>(),
            prop_oneof![4 => Just(0u8), 1 => 1..DURATIONS.len() as u8],
            prop_oneof![3 => Just(0u8), 2 => 1..PRECONDITIONS.len() as u8],
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(child, decide, every, flags, redecide, delegate)| {
                decider_spec(child, decide, every, flags, redecide, delegate)
            });
        let grouped = (
            0..POLICIES.len() as u8,
            prop_oneof![4 => Just(8u8), 1 => 0..=1u8],
            prop::bool::weighted(0.3),
            prop::collection::vec(decider, 1..=3),
        )
            .prop_map(|(policy, limit, behavior, deciders)| {
                group_spec(policy, limit, behavior, deciders)
            });
        let branches = prop::collection::vec(inner.clone(), 2..=3);
        let children = prop::collection::vec(inner, 1..=5);
        // BehaviorTree.CPP's controls, together as much as a reactive
        // sequence.
        let btcpp = prop_oneof![
            branches.clone().prop_map(Spec::IfThenElse),
            branches.prop_map(Spec::WhileDoElse),
            children.clone().prop_map(Spec::WithMemory),
            // Failures drawn apart from the children and fitted to them.
            (0..=3u8, children.clone()).prop_map(|(m, children)| {
                Spec::ParallelAll(m.min(children.len() as u8), children)
            }),
        ];
        prop_oneof![
            1 => btcpp,
            2 => children.clone().prop_map(Spec::Sequence),
            1 => children.clone().prop_map(Spec::Reactive),
            2 => children.clone().prop_map(Spec::Priority),
            2 => children.clone().prop_map(Spec::Selector),
            1 => decorated,
            1 => gated,
            2 => configured,
            2 => stored,
            2 => crowd,
            // Counts are drawn independently of the children (a flat map
            // would keep the children from shrinking) and fitted to them.
            4 => (children, count_strategy(), count_strategy()).prop_map(
                |(children, succeed, fail)| Spec::Concurrent {
                    succeed: fit(succeed, children.len()),
                    fail: fit(fail, children.len()),
                    children,
                }
            ),
            // Last, so that shrinking tries the other kinds first.
            3 => grouped,
        ]
    })
}

/// Runs `check` on random cases, as proptest does (shrinking the tree on
/// failure, which panics with the case): a tree from [`spec_strategy`] and
/// a [`crate::Run`] of 1 to 4 agents for 40 ticks with halts, traced for
/// odd seeds. 512 cases, unless `PROPTEST_CASES` asks for another number
/// (for a long bulk run: `PROPTEST_CASES=100000 cargo test --release ...`).
pub fn random_cases(check: impl FnMut(&Spec, &crate::Run) -> Result<(), String>) {
    use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    // The same cases on every run, so that the callers' coverage checks
    // hold or fail for good (with entropy, one run in a dozen missed a rare
    // path); `PROPTEST_RNG_SEED` draws others.
    let mut runner = match std::env::var("PROPTEST_RNG_SEED") {
        Ok(_) => TestRunner::new(config),
        Err(_) => {
            let rng = TestRng::deterministic_rng(config.rng_algorithm);
            TestRunner::new_with_rng(config, rng)
        }
    };
    // The runner takes a `Fn`; the cases run one at a time.
    let check = std::cell::RefCell::new(check);
    let strategy = (spec_strategy(), any::<u64>(), 1u32..=4);
    let result = runner.run(&strategy, |(spec, seed, agents)| {
        let run = crate::Run {
            seed,
            agents,
            ticks: 40,
            halts: true,
            trace: seed % 2 == 1,
        };
        (check.borrow_mut())(&spec, &run).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// A monitor's query: conditions, scripts and assertions, under composites
/// and inverters, two levels deep: nothing that can run. (The seeded
/// queries of [`Spec::random`] post stimuli too.)
pub fn query_strategy() -> impl Strategy<Value = Spec> {
    let index = |n: usize| 0..n as u8;
    let leaf = prop_oneof![
        3 => Just(Spec::Cond),
        1 => index(SCRIPTS.len()).prop_map(Spec::Script),
        1 => index(TESTS.len()).prop_map(Spec::AssertScript),
        1 => index(CONDITIONS.len()).prop_map(Spec::AssertCondition),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        let children = prop::collection::vec(inner.clone(), 1..=3);
        prop_oneof![
            children.clone().prop_map(Spec::Sequence),
            children.clone().prop_map(Spec::Reactive),
            children.clone().prop_map(Spec::Priority),
            children.prop_map(Spec::Selector),
            inner.prop_map(|c| Spec::Inverter(Box::new(c))),
        ]
    })
}

/// The memory leaves, alike: scripts, assertions, waits, sends and
/// stimulus posts.
fn memory_leaf_strategy() -> impl Strategy<Value = Spec> {
    let index = |n: usize| 0..n as u8;
    prop_oneof![
        any::<bool>().prop_map(Spec::Always),
        index(SCRIPTS.len()).prop_map(Spec::Script),
        index(TESTS.len()).prop_map(Spec::AssertScript),
        index(CONDITIONS.len()).prop_map(Spec::AssertCondition),
        time_strategy().prop_map(Spec::WaitUntilTime),
        index(crate::script::EVENTS.len()).prop_map(Spec::WaitForEvent),
        (index(crate::script::EVENTS.len()), index(SEND_TO.len())).prop_map(|(event, to)| {
            Spec::SendEvent {
                event,
                to: SEND_TO[usize::from(to)],
            }
        }),
        (index(STIMULI.len()), index(DATA.len())).prop_map(|(stimulus, data)| {
            Spec::PostStimulus {
                stimulus,
                data: DATA[usize::from(data)],
            }
        }),
    ]
}

/// A duration: an index into [`DURATIONS`], shrinking towards 0 seconds.
fn duration_strategy() -> impl Strategy<Value = u8> {
    0..DURATIONS.len() as u8
}

/// A time test: any timestamp, 0 to 3 seconds by halves.
fn time_strategy() -> impl Strategy<Value = TimeSpec> {
    (
        0..TIMESTAMPS.len() as u8,
        0..=6u8,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(since, halves, less_than, or_never)| TimeSpec {
            since,
            halves,
            less_than,
            or_never,
        })
}

/// A policy count; [`fit`] makes it compile for a number of children.
fn count_strategy() -> impl Strategy<Value = Count> {
    prop_oneof![Just(Count::All), (1..=5u16).prop_map(Count::AtLeast)]
}

/// `count` within `1..=children`.
fn fit(count: Count, children: usize) -> Count {
    match count {
        Count::All => Count::All,
        Count::AtLeast(k) => {
            let n = u16::try_from(children).expect("test trees have few children");
            Count::AtLeast(k.min(n))
        }
    }
}
