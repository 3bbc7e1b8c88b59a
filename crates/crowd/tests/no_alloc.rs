//! Ticking a crowd allocates nothing once it has warmed up: a counting global
//! allocator sees no allocation during the measured ticks, serial or
//! parallel, for the crowd workload, for a tree full of deferred actions,
//! and for a crowd forming and breaking teams.
//!
//! This file holds one test so that nothing else runs (and allocates) while
//! it counts.

use rayon::ThreadPoolBuilder;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use treebeard_crowd::Crowd;
use treebeard_shape::tree::{
    act, concurrent, cond, leaf, monitor, priority, repeat, selector, sequence, stored_state, sync,
    team,
};
use treebeard_testkit::{World, answer_launches, leaves as test_leaves};
use treebeard_vm::{Args, Call, Completion, Leaves, Signal, Status};
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
            for _ in 0..50 {
                tick(&mut crowd);
            }
            let n = allocations(|| {
                for _ in 0..200 {
                    tick(&mut crowd);
                }
            });
            assert_eq!(n, 0, "workload crowd, {threads} threads");

            let mut crowd = deferred_crowd(3000);
            let mut answers = Vec::new();
            run_deferred(&mut crowd, &mut answers, 50);
            let n = allocations(|| run_deferred(&mut crowd, &mut answers, 200));
            assert_eq!(n, 0, "deferred crowd, {threads} threads");

            let mut crowd = team_crowd(3000);
            let tick = |crowd: &mut Crowd<Mate>| crowd.tick_with(1.0, |_, m| m.tick += 1);
            for _ in 0..5 {
                tick(&mut crowd);
            }
            let n = allocations(|| {
                for _ in 0..200 {
                    tick(&mut crowd);
                }
            });
            assert_eq!(n, 0, "team crowd, {threads} threads");
            assert!(crowd.program().globals().teams().count() > 100);
        });
    }
}
