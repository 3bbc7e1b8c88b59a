//! Differential tests: the VM against the reference interpreter of
//! `treebeard-testkit`, a plain recursive walker written straight from
//! docs/nodes.md, tick by tick on random trees.
//!
//! Each case compiles a random tree over the standard test leaves and runs
//! a few agents on both interpreters with the same scripted leaf outcomes,
//! game-system reports, events, stimuli posted from outside and halts,
//! comparing the root status, every leaf call, the requests, the states
//! remembered between ticks, the persistent slots and the tree's memory
//! (variables, timestamps, active stimuli) after every step, and the
//! crowd's state of the tree's gates, global cool-downs and teams (the
//! team table too) after every round's settling (see
//! `treebeard_testkit::harness`).
//! The VM's states are also checked against the shape's capacity
//! specification. A difference fails with the tree, its disassembly, the
//! agent's recent history and both sides' outputs; proptest then shrinks
//! the tree.

use treebeard_testkit::harness::VISITS_PER_ITEM;
use treebeard_testkit::{Run, Spec, Stats, differential, differential_with, random_cases};
use treebeard_vm::{Interpreter, TraceEvent};

/// Random trees from the proptest strategy (shrinking to a small tree on
/// failure): 512 cases of 1 to 4 agents for 40 ticks (see
/// `treebeard_testkit::random_cases`).
#[test]
fn vm_matches_reference_on_random_trees() {
    let mut totals = Stats::default();
    random_cases(|spec, run| {
        let stats = differential(spec, run).map_err(|mismatch| mismatch.to_string())?;
        totals.add(&stats);
        Ok(())
    });
    assert_exercised(&totals);
    assert_spore_exercised(&totals, false);
    assert_crowd_exercised(&totals);
}

/// Seeded trees whose loops tick again (`again`), and every other one's
/// sequences and selectors made async: a tick makes a pass after each run
/// that ends and each step that yields, up to `MAX_PASSES`, and both
/// interpreters make the same passes.
#[test]
fn vm_matches_reference_when_ticks_make_passes() {
    let mut interpreter = Interpreter::new();
    let mut totals = Stats::default();
    let mut trees = 0;
    for seed in 0..200 {
        // Every other tree's sequences and selectors yield too.
        let mut spec = Spec::random(seed, 6, 5).loops_again();
        if seed % 2 == 0 {
            spec = spec.steps_async();
        }
        if !spec.asks_again() {
            continue;
        }
        trees += 1;
        let run = Run {
            seed,
            agents: 3,
            ticks: 100,
            halts: true,
            trace: seed % 2 == 1,
        };
        let stats = differential_with(&spec, &run, &mut interpreter)
            .unwrap_or_else(|mismatch| panic!("seed {seed}: {mismatch}"));
        totals.add(&stats);
    }
    assert!(trees > 20, "{trees} trees with loops");
    assert!(totals.coverage.loop_repeats > 0, "{totals:?}");
}

/// Seeded trees, longer runs: trees that stay running for many ticks reach
/// states a 40-tick case does not. One interpreter serves every tree, as
/// in a crowd running several shapes, so its buffers grow as it goes.
#[test]
fn vm_matches_reference_on_fixed_seeds() {
    let mut interpreter = Interpreter::new();
    let mut totals = Stats::default();
    for seed in 0..200 {
        let spec = Spec::random(seed, 6, 5);
        let run = Run {
            seed,
            agents: 3,
            ticks: 300,
            halts: true,
            trace: seed % 2 == 1,
        };
        let stats = differential_with(&spec, &run, &mut interpreter)
            .unwrap_or_else(|mismatch| panic!("seed {seed}: {mismatch}"));
        totals.add(&stats);
    }
    assert_exercised(&totals);
    assert_spore_exercised(&totals, true);
    assert_crowd_exercised(&totals);
    println!("fixed seeds: {totals:?}");
}

/// Trees of the plain kinds under a priority selector whose earlier
/// children are guards: an untraced tick re-enters its running leaf, or,
/// for an agent whose tree returned, the first leaf of the last branch (the
/// tree's idle entry), and goes on through a sequence's next actions and
/// out of the root in place (the interpreter's `run_plain`). Every other
/// run is traced, which takes the loop through every item instead; both
/// must match the reference.
#[test]
fn vm_matches_reference_on_trees_a_tick_re_enters() {
    let mut interpreter = Interpreter::new();
    let mut totals = Stats::default();
    for seed in 0..300 {
        let mut rng = Mix(seed);
        let spec = re_entered_tree(&mut rng);
        let run = Run {
            seed,
            agents: 3,
            ticks: 60,
            halts: seed % 3 == 0,
            trace: seed % 2 == 1,
        };
        let stats = differential_with(&spec, &run, &mut interpreter)
            .unwrap_or_else(|mismatch| panic!("seed {seed}: {mismatch}"));
        totals.add(&stats);
    }
    // Roots that returned, each followed by a tick from the idle entry.
    assert!(totals.restarts > 5_000, "{totals:?}");
    let c = &totals.coverage;
    assert!(c.cancel_calls > 0 && c.launches > 0, "{totals:?}");
}

/// A small deterministic mix for the generator below (SplitMix64).
struct Mix(u64);

impl Mix {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// A priority selector over guarded sequences (a condition, then plain
/// work), guards, and a last branch that starts with an action: up to six
/// guards before a leaf (the interpreter calls the first three from call
/// sites of their own, the rest in a loop).
fn re_entered_tree(rng: &mut Mix) -> Spec {
    let mut branches = Vec::new();
    for _ in 0..rng.below(7) {
        branches.push(match rng.below(4) {
            0 => Spec::Cond,
            1 => Spec::Always(false),
            _ => {
                let mut children = vec![Spec::Cond];
                children.extend((0..1 + rng.below(3)).map(|_| plain(rng, 2)));
                Spec::Sequence(children)
            }
        });
    }
    let mut last = vec![Spec::Act];
    last.extend((0..rng.below(4)).map(|_| plain(rng, 2)));
    let last = Spec::Sequence(last);
    branches.push(match rng.below(4) {
        0 => Spec::Inverter(Box::new(last)),
        1 => Spec::ForceFailure(Box::new(last)),
        _ => last,
    });
    Spec::Priority(branches)
}

/// A random tree of the kinds a re-entry passes through or ends at.
fn plain(rng: &mut Mix, depth: u32) -> Spec {
    let leaf = depth == 0 || rng.below(3) != 0;
    if leaf {
        return match rng.below(8) {
            0 => Spec::Cond,
            1 => Spec::Persistent,
            2 => Spec::Deferred,
            3 => Spec::Always(rng.below(2) == 0),
            _ => Spec::Act,
        };
    }
    let children = |rng: &mut Mix| {
        (0..1 + rng.below(3))
            .map(|_| plain(rng, depth - 1))
            .collect()
    };
    match rng.below(6) {
        0 => Spec::Selector(children(rng)),
        1 => Spec::Priority(children(rng)),
        2 => Spec::Inverter(Box::new(plain(rng, depth - 1))),
        3 => Spec::ForceSuccess(Box::new(plain(rng, depth - 1))),
        _ => Spec::Sequence(children(rng)),
    }
}

/// A long run of one tree that keeps concurrent deciders, deferred actions,
/// persistent slots, a selector's resume points, decorators, the
/// configured kinds (loops, a timeout, a wait, a cool-down, a scope) and
/// seed 001's nodes (a monitor, a repeat, stored state) busy.
#[test]
fn vm_matches_reference_on_a_busy_tree_for_many_ticks() {
    use treebeard_shape::tree::Count;
    let concurrent = |succeed, fail, children| Spec::Concurrent {
        succeed,
        fail,
        children,
    };
    let boxed = Box::new;
    let spec = Spec::Priority(vec![
        Spec::Sequence(vec![
            Spec::Cond,
            concurrent(
                Count::AtLeast(2),
                Count::AtLeast(2),
                vec![Spec::Deferred, Spec::Persistent, Spec::Deferred, Spec::Act],
            ),
        ]),
        concurrent(
            Count::All,
            Count::AtLeast(1),
            vec![
                // The scope exits after the timeout cancels its work.
                Spec::Scope(boxed(Spec::Timeout(
                    2,
                    boxed(Spec::Sequence(vec![
                        Spec::Persistent,
                        Spec::Deferred,
                        Spec::Act,
                    ])),
                ))),
                Spec::Loop(
                    2,
                    false,
                    boxed(Spec::Priority(vec![Spec::Deferred, Spec::Persistent])),
                ),
            ],
        ),
        // Abandoned whenever a branch above runs or succeeds, often while
        // it resumes past its first child.
        Spec::Selector(vec![
            Spec::ForceFailure(boxed(Spec::Cooldown(1, boxed(Spec::Act)))),
            Spec::Inverter(boxed(Spec::Sequence(vec![Spec::Cond, Spec::Deferred]))),
            // Its condition, re-tested every tick, cancels the work after it.
            Spec::Reactive(vec![Spec::Cond, Spec::Act, Spec::Deferred]),
            // Ticked again while a later child runs, and can take over.
            Spec::Repeat(boxed(Spec::Sequence(vec![Spec::Cond, Spec::Deferred]))),
            // Registered while a later child runs, its success interrupts
            // the tree.
            Spec::Monitor(boxed(Spec::Cond)),
            Spec::LoopUntilSuccess(
                2,
                false,
                boxed(Spec::Sequence(vec![Spec::Wait(1), Spec::Act])),
            ),
            Spec::ForceSuccess(boxed(concurrent(
                Count::AtLeast(1),
                Count::All,
                vec![Spec::Persistent, Spec::Deferred],
            ))),
            // Its priority keeps its place.
            Spec::StoredState(boxed(Spec::Priority(vec![
                Spec::Sequence(vec![Spec::Cond, Spec::Act]),
                Spec::Deferred,
            ]))),
        ]),
    ]);
    let run = Run {
        seed: 2024,
        agents: 3,
        ticks: 5000,
        halts: true,
        trace: true,
    };
    let stats = differential(&spec, &run).unwrap_or_else(|mismatch| panic!("{mismatch}"));
    assert_exercised(&stats);
}

/// A group whose deciders' stimuli preconditions follow what its branches
/// post (and what is posted from outside), with Decides that read the
/// stimuli's data, for many ticks.
#[test]
fn vm_matches_reference_on_a_stimuli_tree_for_many_ticks() {
    use treebeard_testkit::r#gen::{DeciderSpec, PRECONDITIONS};
    let flags = |name: &str, mask: i64| {
        PRECONDITIONS
            .iter()
            .position(|&p| p == (name, mask))
            .expect("a generated precondition") as u8
    };
    let decider = |flags: u8, children: Vec<Spec>| Spec::Decider {
        params: DeciderSpec {
            flags,
            ..DeciderSpec::default()
        },
        children,
    };
    let post = |stimulus: u8, data: i64| Spec::PostStimulus { stimulus, data };
    let spec = Spec::Group {
        policy: 4, // scored
        limit: 8,
        children: vec![
            decider(flags("stimuli_all", 3), vec![Spec::Decide, Spec::Act]),
            decider(
                flags("stimuli_any", 3),
                vec![
                    Spec::Decide,
                    Spec::Sequence(vec![Spec::Cond, post(1, 7), Spec::Deferred]),
                ],
            ),
            decider(
                flags("stimuli_none", 1),
                vec![Spec::Selector(vec![Spec::Cond, post(0, -2), Spec::Act])],
            ),
            decider(
                flags("stimuli_all", 2),
                vec![
                    Spec::Decide,
                    Spec::Sequence(vec![post(0, 1), post(1, 1 << 32), Spec::Persistent]),
                ],
            ),
        ],
    };
    let run = Run {
        seed: 77,
        agents: 3,
        ticks: 2000,
        halts: true,
        trace: true,
    };
    let stats = differential(&spec, &run).unwrap_or_else(|mismatch| panic!("{mismatch}"));
    let c = &stats.coverage;
    for (what, count) in [
        ("stimuli posted by PostStimulus", c.stimuli_posted),
        ("stimuli posted from outside", stats.stimuli_posted),
        ("stimuli preconditions passing", c.stimuli_passed),
        ("stimuli preconditions refusing", c.stimuli_refused),
        (
            "Decides asked with an active stimulus",
            c.decides_with_stimuli,
        ),
    ] {
        assert!(count > 0, "the run never produced {what}: {stats:?}");
    }
}

/// Trees on which the VM and the reference once disagreed about seed 001's
/// crowd nodes, each with the run that showed it.
#[test]
fn vm_matches_reference_on_crowd_regressions() {
    use treebeard_testkit::r#gen::{DeciderSpec, PRECONDITIONS};
    let boxed = Box::new;
    let decider = |flags: u8, children| Spec::Decider {
        params: DeciderSpec {
            flags,
            ..DeciderSpec::default()
        },
        children,
    };
    let decision_any = PRECONDITIONS
        .iter()
        .position(|&p| p == ("decision_any", 1))
        .expect("a generated precondition") as u8;
    let group = |policy, limit, children| Spec::Group {
        policy,
        limit,
        children,
    };
    let cases = [
        // A gate's trace: a node that failed last tick starts again.
        (
            group(
                0,
                8,
                vec![decider(0, vec![Spec::Gate(1, boxed(Spec::Cond))])],
            ),
            1,
        ),
        // A cool-down's ticket ends after the work inside it.
        (
            Spec::Priority(vec![
                Spec::Cond,
                Spec::GlobalCooldown {
                    seconds: 0,
                    on_enter: false,
                    child: boxed(Spec::Act),
                },
            ]),
            1,
        ),
        // A cool-down that does not enter gives up the tickets inside it
        // before it asks.
        (
            Spec::GlobalCooldown {
                seconds: 0,
                on_enter: true,
                child: boxed(Spec::Gate(1, boxed(Spec::Cond))),
            },
            0,
        ),
        // A group that chooses an earlier decider after one that asked
        // keeps the actor's states in item order.
        (
            group(
                2,
                8,
                vec![
                    decider(0, vec![Spec::Act]),
                    decider(0, vec![Spec::Gate(1, boxed(Spec::Cond))]),
                ],
            ),
            0,
        ),
        // A take-over keeps the admitted ticket of the decider taking over.
        (
            group(
                0,
                8,
                vec![
                    decider(0, vec![Spec::Gate(1, boxed(Spec::Cond))]),
                    decider(0, vec![Spec::Act]),
                ],
            ),
            0,
        ),
        // A redecide limit inside a root gate: the root fails, uncancelled.
        // (The first decider accepts; its group's only decider refuses
        // when the agent's flags fail it: the subset rule is broken, past
        // a limit of 0.)
        (
            Spec::Gate(
                2,
                boxed(Spec::Reactive(vec![
                    group(
                        0,
                        0,
                        vec![
                            decider(
                                0,
                                vec![group(0, 8, vec![decider(decision_any, vec![Spec::Cond])])],
                            ),
                            decider(decision_any, vec![Spec::Cond]),
                        ],
                    ),
                    Spec::Act,
                ])),
            ),
            13_070_252_640_269_236_489,
        ),
    ];
    let mut totals = Stats::default();
    for (spec, seed) in cases {
        for agents in 1..=4 {
            let run = Run {
                seed,
                agents,
                ticks: 200,
                halts: true,
                trace: true,
            };
            let stats = differential(&spec, &run)
                .unwrap_or_else(|mismatch| panic!("{spec:?}, {agents} agents: {mismatch}"));
            totals.add(&stats);
        }
    }
    assert!(totals.coverage.redecide_limits > 0 && totals.coverage.group_take_overs > 0);
}

/// The random trees must reach the rare paths, or agreeing proves little.
fn assert_exercised(totals: &Stats) {
    // The traced ticks counted their visits, within the bound (the harness
    // fails a run that passes it).
    assert!(
        (1..=VISITS_PER_ITEM).contains(&totals.max_visits_per_item),
        "{totals:?}"
    );
    let c = &totals.coverage;
    let reached = [
        ("launch requests", c.launches),
        ("cancel requests", c.cancel_requests),
        ("cancel calls", c.cancel_calls),
        ("dropped launches", c.dropped_launches),
        ("persistent undos", c.persistent_undos),
        ("concurrent cancellations", c.concurrent_cancellations),
        ("consumed completions", c.completions_consumed),
        ("selector resumes", c.selector_resumes),
        (
            "selector moves after a resume",
            c.selector_moves_after_resume,
        ),
        (
            "selectors abandoned while resuming",
            c.selector_resumes_abandoned,
        ),
        ("decorator changes", c.decorator_changes),
        ("reactive sequence cancellations", c.reactive_cancellations),
        ("loop repeats", c.loop_repeats),
        ("loops finished on their count", c.loop_limits_reached),
        ("timeouts expired", c.timeouts_expired),
        ("waits done", c.waits_done),
        ("cooldowns blocking", c.cooldowns_blocked),
        ("scope exits on cancellation", c.scope_exits_cancelled),
        ("repeats ticked before a resume point", c.repeat_reruns),
        ("monitors tested before the tree", c.monitors_tested),
        ("monitor interrupts", c.monitor_interrupts),
        ("applied reports", totals.completions_applied),
        ("stale reports", totals.completions_stale),
        ("halts", totals.halts),
        ("restarts", totals.restarts),
    ];
    for (what, count) in reached {
        assert!(
            count > 0,
            "the random runs never produced {what}: {totals:?}"
        );
    }
    for (event, count) in TraceEvent::ALL.iter().zip(totals.trace_events) {
        assert!(
            count > 0,
            "the traced runs never compared a {event} event: {totals:?}"
        );
    }
}

/// The random trees must reach the rarer paths of Spore's groups too, and
/// its stimuli: posted by `PostStimulus` nodes and from outside, passing
/// and refusing deciders' stimuli preconditions, read by Decides. A
/// group's own `redecide` decider refusing, a decider breaking the subset
/// rule and a redecide limit reached need a group in a group, which the
/// seeded trees make often and the strategy's 512 cases seldom: only the
/// seeded runs check them (`nested`).
fn assert_spore_exercised(totals: &Stats, nested: bool) {
    let c = &totals.coverage;
    // Groups in groups, which proptest's trees seldom nest, refuse
    // redecides and break the subset rule (and so reach the limit).
    let nested_only = |count: u64| if nested { count } else { 1 };
    let reached = [
        ("group take-overs", c.group_take_overs),
        ("masked redecides", c.masked_redecides),
        ("groups popping up", c.group_pop_ups),
        ("redecides refused", nested_only(c.redecides_refused)),
        ("redecide limits", nested_only(c.redecide_limits)),
        ("subset-rule reports", nested_only(c.subset_rule_reports)),
        ("groups ended by their behavior", c.group_behaviors_ended),
        ("delegations", c.delegations),
        ("timers blocking", c.timers_blocked),
        ("flags refusing", c.flags_refused),
        ("stimuli posted by PostStimulus", c.stimuli_posted),
        ("stimuli posted from outside", totals.stimuli_posted),
        ("stimuli preconditions passing", c.stimuli_passed),
        ("stimuli preconditions refusing", c.stimuli_refused),
        (
            "Decides asked with an active stimulus",
            c.decides_with_stimuli,
        ),
        ("decider blocks", c.decider_blocks),
        ("random draws", c.random_draws),
    ];
    for (what, count) in reached {
        assert!(
            count > 0,
            "the random runs never produced {what}: {totals:?}"
        );
    }
}

/// The random trees must reach seed 001's crowd nodes in every way: gates
/// admitting and refusing (the crowd settling after every round of the
/// run's agents), full gates and cooling cool-downs failing at once,
/// agents keeping their place, slots given back when the child ends and
/// when the ticket is abandoned (while the child runs, or admitted and
/// passed over), cool-downs started by a success; team members leaving,
/// breaking out and finding their team broken, sync points passed; and
/// child trees injected, run, missing, and switched away from while they
/// had work.
fn assert_crowd_exercised(totals: &Stats) {
    let c = &totals.coverage;
    let reached = [
        ("settlings", totals.settles),
        ("requests to enter", c.crowd_asks),
        ("admissions", totals.crowd_admitted),
        ("refusals", totals.crowd_refused),
        ("places kept", c.crowd_places_kept),
        ("admitted entries", c.crowd_entries),
        ("full gates", c.gates_full),
        ("cool-downs holding off", c.global_cooldowns_blocked),
        ("cool-downs started", c.global_cooldowns_started),
        ("slots given back by the child", c.slots_given_back),
        (
            "slots given back by abandonment",
            c.slots_given_back_abandoned,
        ),
        (
            "crowd nodes cancelled while inside",
            c.crowd_cancelled_inside,
        ),
        ("admissions passed over", c.admissions_passed_over),
        ("team members leaving by success", c.teams_left),
        ("team members breaking out", c.teams_broken_out),
        ("team members finding their team broken", c.teams_broken),
        ("sync points passed", c.syncs_passed),
        ("child trees injected", totals.injections),
        ("injected child trees run", c.child_trees_run),
        ("connectors with nothing injected", c.child_trees_missing),
        (
            "child trees switched away from with work",
            c.child_trees_cancelled,
        ),
    ];
    for (what, count) in reached {
        assert!(
            count > 0,
            "the random runs never produced {what}: {totals:?}"
        );
    }
}

/// A case the random trees found: a waiting gate under a group's decider,
/// after a gate of one and `Repeat`s in a selector that repeats, two
/// agents.
#[test]
fn vm_matches_reference_on_a_waiting_gate_in_a_group() {
    use treebeard_testkit::r#gen::{DeciderSpec, GATE_WAITS};
    let boxed = Box::new;
    let spec = Spec::Selector(vec![
        Spec::Repeat(boxed(Spec::Cond)),
        Spec::Gate(1, boxed(Spec::Cond)),
        Spec::Repeat(boxed(Spec::Cond)),
        Spec::Group {
            policy: 0,
            limit: 8,
            children: vec![Spec::Decider {
                params: DeciderSpec::default(),
                children: vec![Spec::Gate(1 | GATE_WAITS, boxed(Spec::Cond))],
            }],
        },
    ]);
    let run = Run {
        seed: 7815813,
        agents: 2,
        ticks: 40,
        halts: true,
        trace: true,
    };
    differential(&spec, &run).unwrap_or_else(|mismatch| panic!("{mismatch}"));
}
