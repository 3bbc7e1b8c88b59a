//! Ticking a crowd allocates nothing once it has warmed up: a counting global
//! allocator sees no allocation during the measured ticks, serial or
//! parallel, for the crowd workload (also with rows beside its agents,
//! `Crowd::tick_rows`), for a tree full of deferred actions,
//! and for a crowd forming and breaking teams, also with agents at mixed
//! tick rates, vacant slots, and an agent leaving and one joining before
//! every tick; and an observed crowd (`Crowd::tick_observed`), also one
//! recorded into a full ring buffer.
//!
//! This file holds one test so that nothing else runs (and allocates) while
//! it counts.

use rayon::ThreadPoolBuilder;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use treebeard_crowd::Crowd;
use treebeard_shape::tree::{
    act, child_trees, concurrent, cond, gate, global_cooldown, leaf, monitor, priority, repeat,
    selector, sequence, stored_state, sync, team,
};
use treebeard_testkit::{World, answer_launches, leaves as test_leaves};
use treebeard_vm::Recorder;
use treebeard_vm::observe::Profile;
use treebeard_vm::{AgentId, Args, Call, Completion, Leaves, Request, Signal, Status};
use treebeard_workload::{Critter, leaves, spawn, tree};

/// Counts allocations while `COUNTING` is set.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to the system allocator unchanged; the
// counter is a relaxed atomic and allocates nothing itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made while `f` runs.
fn allocations(f: impl FnOnce()) -> usize {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    f();
    COUNTING.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst)
}

/// The allocations of `ticks` calls of `tick` on `crowd`, after `warm`
/// calls that bring it to its steady state.
fn steady_allocations<B>(
    crowd: &mut Crowd<B>,
    warm: usize,
    ticks: usize,
    mut tick: impl FnMut(&mut Crowd<B>),
) -> usize {
    for _ in 0..warm {
        tick(crowd);
    }
    allocations(|| {
        for _ in 0..ticks {
            tick(crowd);
        }
    })
}

fn workload_crowd(n: usize) -> Crowd<Critter> {
    Crowd::with_agents(
        leaves().compile(&tree()).expect("workload tree"),
        spawn(n, 42),
    )
}

/// A tree with deferred actions under concurrent and priority deciders, so
/// ticks launch, cancel and roll back, and a monitor that interrupts it.
fn deferred_crowd(n: usize) -> Crowd<World> {
    let tree = priority([
        sequence([cond("c"), leaf("d"), act("p")]),
        stored_state(selector([
            monitor(cond("c")),
            repeat(cond("c")),
            concurrent([leaf("d"), sequence([act("a"), leaf("d")]), act("a")]),
        ])),
        leaf("d"),
    ]);
    let program = test_leaves().compile(&tree).expect("deferred tree");
    Crowd::with_agents(program, (0..n).map(|i| World::random(i as u64)).collect())
}

/// A tree with gates and a global cool-down over deferred and immediate
/// work: agents ask, are admitted and refused, and give slots back every
/// tick, so the crowd settles its global tree state after every tick.
fn gated_crowd(n: usize) -> Crowd<World> {
    let tree = priority([
        sequence([cond("c"), global_cooldown(0.3, gate(2, act("a")))]),
        gate(40, leaf("d")),
        sequence([cond("c"), gate(100, act("p")).arg("wait", true)]),
        leaf("d"),
    ]);
    let program = test_leaves().compile(&tree).expect("gated tree");
    Crowd::with_agents(program, (0..n).map(|i| World::random(i as u64)).collect())
}

/// A `ChildTree` connector offering a gated tree, deferred work and
/// immediate work; the test switches agents between them every tick.
fn child_tree_crowd(n: usize) -> Crowd<World> {
    let tree = priority([
        child_trees([
            ("gated", gate(3, leaf("d"))),
            ("guarded", sequence([cond("c"), act("a")])),
            ("deferred", leaf("d")),
        ])
        .named("use"),
        leaf("d"),
    ]);
    let program = test_leaves().compile(&tree).expect("child tree");
    Crowd::with_agents(program, (0..n).map(|i| World::random(i as u64)).collect())
}

/// Ticks `crowd`, a scripted game system answering its launches.
fn run_deferred(crowd: &mut Crowd<World>, answers: &mut Vec<Completion>, ticks: usize) {
    for t in 0..ticks {
        answer_launches(crowd.requests(), t, answers);
        for &answer in answers.iter() {
            crowd.complete(answer);
        }
        crowd.tick_with(0.1, |_, w| {
            w.tick += 1;
            w.clear_log();
        });
    }
}

/// Tick rates 1 to 4 by id, and agent 1 gone: the crowd's scheduled path.
fn mix_rates<B: Default>(crowd: &mut Crowd<B>) {
    for id in crowd.agents().collect::<Vec<_>>() {
        crowd.set_tick_rate(id, 1 + id.0 % 4).unwrap();
    }
    crowd.remove(AgentId(1), &mut Vec::new());
}

/// Before tick `t`: an agent leaves (its cancel requests go to `cancels`,
/// cleared first) and its blackboard, after `reset`, comes back as a new
/// agent's, in the lowest vacant slot, at a tick rate of its own. The slot
/// moves through the crowd, the last one included.
fn churn<B: Default>(
    crowd: &mut Crowd<B>,
    t: usize,
    cancels: &mut Vec<Request>,
    reset: fn(&mut B),
) {
    cancels.clear();
    let leaving = AgentId((t * 7919 % crowd.slots()) as u32);
    if let Some(blackboard) = crowd.blackboard_mut(leaving) {
        reset(blackboard);
    }
    if let Some(blackboard) = crowd.remove(leaving, cancels) {
        let id = crowd.spawn(blackboard);
        crowd.set_tick_rate(id, 1 + (t % 5) as u32).unwrap();
    }
}

/// A team member: it works for a few ticks (by its number), and now and
/// then (by its number and the tick) flees, breaking its team.
#[derive(Clone, Copy, Default)]
struct Mate {
    id: u32,
    tick: u32,
}

fn alarmed(m: &Mate, _: &Args<'_>) -> bool {
    (m.id + m.tick).is_multiple_of(17)
}

fn work(m: &mut Mate, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel || call.state() >= m.id % 3 {
        return Status::Success;
    }
    *call.state_mut() += 1;
    Status::Running
}

fn done(_: &mut Mate, _: &mut Call<'_>) -> Status {
    Status::Success
}

/// Pairs that work, meet twice, and break up when one flees.
fn team_crowd(n: usize) -> Crowd<Mate> {
    let mut leaves = Leaves::new();
    leaves.condition("alarmed", alarmed);
    leaves.action("work", work);
    leaves.action("flee", done);
    leaves.action("idle", done);
    let tree = priority([
        sequence([cond("alarmed"), act("flee")]),
        team(2, [sequence([act("work"), sync(1), act("work"), sync(2)])]),
        act("idle"),
    ]);
    let program = leaves.compile(&tree).expect("team tree");
    let mates = (0..n as u32).map(|id| Mate { id, tick: 0 }).collect();
    Crowd::with_agents(program, mates)
}

#[test]
fn ticking_allocates_nothing_in_steady_state() {
    for threads in [1, 2, 4] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut crowd = workload_crowd(5000);
            let tick = |crowd: &mut Crowd<Critter>| crowd.tick_with(1.0, |_, c| c.world_step());
            let n = steady_allocations(&mut crowd, 50, 200, tick);
            assert_eq!(n, 0, "workload crowd, {threads} threads");

            // With rows beside the agents (`Crowd::tick_rows`): a tick
            // count and the last hunger seen, each agent's.
            let (mut counts, mut hungers) = (vec![0u32; 5000], vec![0u8; 5000]);
            let mut rows = |crowd: &mut Crowd<Critter>| {
                crowd.tick_rows(
                    1.0,
                    (&mut counts[..], &mut hungers[..]),
                    |_, _, (count, _), c| {
                        *count += 1;
                        c.world_step();
                    },
                    |_, (_, hunger), c| *hunger = c.hunger,
                );
            };
            let n = steady_allocations(&mut crowd, 5, 50, &mut rows);
            assert_eq!(n, 0, "workload crowd with rows, {threads} threads");
            assert!(counts.iter().all(|&n| n == 55));
            assert!(
                hungers
                    .iter()
                    .zip(crowd.blackboards())
                    .all(|(h, c)| *h == c.hunger)
            );

            // Observed: every agent's visits, events and node states
            // tracked, and counted by a profile.
            let mut profile = Profile::counts_only(crowd.program().shape());
            let mut observe = |crowd: &mut Crowd<Critter>| {
                crowd.tick_observed(1.0, |_, c| c.world_step(), &mut profile);
            };
            let n = steady_allocations(&mut crowd, 5, 50, &mut observe);
            assert_eq!(n, 0, "observed workload crowd, {threads} threads");
            assert!(profile.agent_ticks() >= 55 * 5000);

            // Recorded, with the ring full: each tick takes the buffers of
            // the tick it drops.
            let mut recorder = Recorder::new(crowd.program().shape(), 2 << 20);
            let mut record = |crowd: &mut Crowd<Critter>| {
                crowd.tick_observed(1.0, |_, c| c.world_step(), &mut recorder);
            };
            let n = steady_allocations(&mut crowd, 60, 50, &mut record);
            assert_eq!(n, 0, "recorded workload crowd, {threads} threads");
            assert!(recorder.dropped_ticks() > 50, "the ring was full");

            let mut crowd = deferred_crowd(3000);
            let mut answers = Vec::new();
            run_deferred(&mut crowd, &mut answers, 50);
            let n = allocations(|| run_deferred(&mut crowd, &mut answers, 200));
            assert_eq!(n, 0, "deferred crowd, {threads} threads");

            // Global tree state: gates and a global cool-down.
            let mut crowd = gated_crowd(3000);
            let mut answers = Vec::new();
            run_deferred(&mut crowd, &mut answers, 50);
            let n = allocations(|| run_deferred(&mut crowd, &mut answers, 200));
            assert_eq!(n, 0, "gated crowd, {threads} threads");
            assert!(
                crowd.program().globals().words().iter().any(|&w| w != 0),
                "the gates were used"
            );

            // Child trees injected and switched between ticks.
            let mut crowd = child_tree_crowd(3000);
            let connector = crowd.program().shape().find("use").expect("connector");
            let trees = [Some("gated"), Some("guarded"), Some("deferred"), None];
            let switch = |crowd: &mut Crowd<World>, answers: &mut Vec<_>, ticks| {
                for t in 0..ticks {
                    for id in (t % 7..crowd.slots()).step_by(7) {
                        let tree = trees[(t + id) % trees.len()];
                        let injected = crowd.inject(AgentId(id as u32), connector, tree);
                        assert!(injected.is_ok());
                    }
                    run_deferred(crowd, answers, 1);
                }
            };
            switch(&mut crowd, &mut answers, 50);
            let n = allocations(|| switch(&mut crowd, &mut answers, 200));
            assert_eq!(n, 0, "child-tree crowd, {threads} threads");

            // Mixed tick rates, vacancies and agents leaving and joining.
            let mut crowd = workload_crowd(5000);
            mix_rates(&mut crowd);
            let mut cancels = Vec::new();
            let mut run = |crowd: &mut Crowd<Critter>, ticks| {
                for t in 0..ticks {
                    churn(crowd, t, &mut cancels, |_| {});
                    crowd.tick_with(1.0, |_, c| c.world_step());
                }
            };
            run(&mut crowd, 50);
            let n = allocations(|| run(&mut crowd, 200));
            assert_eq!(n, 0, "workload crowd at mixed rates, {threads} threads");

            let mut crowd = deferred_crowd(3000);
            // Agents that tick on one frame in four reach their worlds'
            // longest logs of a tick late: make room for them.
            for world in crowd.blackboards_mut() {
                world.reserve_log(64);
            }
            mix_rates(&mut crowd);
            let mut run = |crowd: &mut Crowd<World>, ticks| {
                for t in 0..ticks {
                    // The test world logs the cancels of its leaving: in
                    // the memory its log had for a tick.
                    churn(crowd, t, &mut cancels, World::clear_log);
                    run_deferred(crowd, &mut answers, 1);
                }
            };
            run(&mut crowd, 50);
            let n = allocations(|| run(&mut crowd, 200));
            assert_eq!(n, 0, "deferred crowd at mixed rates, {threads} threads");

            let mut crowd = team_crowd(3000);
            let tick = |crowd: &mut Crowd<Mate>| crowd.tick_with(1.0, |_, m| m.tick += 1);
            let n = steady_allocations(&mut crowd, 5, 200, tick);
            assert_eq!(n, 0, "team crowd, {threads} threads");
            assert!(crowd.program().globals().teams().count() > 100);

            // Teams broken by agents leaving, at mixed rates.
            let mut crowd = team_crowd(3000);
            mix_rates(&mut crowd);
            let mut run = |crowd: &mut Crowd<Mate>, ticks| {
                for t in 0..ticks {
                    churn(crowd, t, &mut cancels, |m| m.tick = 0);
                    tick(crowd);
                }
            };
            run(&mut crowd, 50);
            let n = allocations(|| run(&mut crowd, 200));
            assert_eq!(n, 0, "team crowd at mixed rates, {threads} threads");
            assert!(crowd.program().globals().teams().count() > 50);
        });
    }
}
