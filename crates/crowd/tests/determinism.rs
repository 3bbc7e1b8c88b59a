//! Same inputs give bit-identical results at any thread count and any
//! chunking: blackboards, actors and the request stream, tick by tick,
//! also while agents join, leave and tick at different rates.

use rayon::ThreadPoolBuilder;
use treebeard_crowd::{Crowd, NoAfter, PlanConfig, Row, Rows, TickJob, TickJobs};
use treebeard_shape::tree::{act, concurrent, cond, leaf, priority, sequence};
use treebeard_testkit::script::mix;
use treebeard_testkit::{World, answer_launches, leaves as test_leaves};
use treebeard_vm::{ActionState, AgentId, DeciderState, Frame, Request};
use treebeard_workload::{Checksum, Critter, Machine, leaves, run_handcoded, spawn, tree};

/// Every live agent's stored state: decider states, action states,
/// persistent slots.
type Actors = Vec<(Vec<DeciderState>, Vec<(u32, ActionState)>, Vec<u32>)>;

fn actors<B>(crowd: &Crowd<B>) -> Actors {
    crowd
        .agents()
        .map(|agent| {
            let a = crowd.actor(agent);
            (
                a.deciders().collect(),
                a.actions().map(|(n, s)| (n.get(), s)).collect(),
                a.persistent().to_vec(),
            )
        })
        .collect()
}

/// Runs `f` on a pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(f)
}

fn workload(
    n: usize,
    ticks: usize,
    seed: u64,
    plan: PlanConfig,
) -> (Checksum, Vec<Critter>, Actors) {
    let mut crowd = Crowd::with_agents(
        leaves().compile(&tree()).expect("workload tree"),
        spawn(n, seed),
    );
    crowd.set_plan_config(plan);
    for _ in 0..ticks {
        crowd.tick_with(1.0, |_, c| c.world_step());
        assert!(crowd.requests().is_empty());
    }
    (
        Checksum::of(crowd.blackboards()),
        crowd.blackboards().to_vec(),
        actors(&crowd),
    )
}

fn handcoded(n: usize, ticks: usize, seed: u64) -> Checksum {
    let mut critters = spawn(n, seed);
    run_handcoded(&mut critters, &mut vec![Machine::default(); n], ticks);
    Checksum::of(&critters)
}

#[test]
fn the_page_checksum_at_one_two_and_three_threads() {
    for threads in [1, 2, 3] {
        let (checksum, ..) =
            on_threads(threads, || workload(5000, 1000, 42, PlanConfig::default()));
        assert_eq!(checksum, Checksum::PAGE, "{threads} threads");
    }
}

#[test]
fn the_workload_is_identical_at_any_thread_count_and_chunking() {
    let (n, ticks, seed) = (3000, 300, 7);
    let reference = on_threads(1, || workload(n, ticks, seed, PlanConfig::default()));
    assert_eq!(reference.0, handcoded(n, ticks, seed));
    for threads in [2, 3, 8] {
        for chunk_agents in [0, 64, 1000] {
            let plan = PlanConfig {
                chunk_agents,
                ..PlanConfig::default()
            };
            let run = on_threads(threads, || workload(n, ticks, seed, plan));
            assert!(
                run == reference,
                "{threads} threads, chunks of {chunk_agents}"
            );
        }
    }
}

/// A request-heavy crowd: deferred actions under priority and concurrent
/// deciders, completions answered by a deterministic "game system".
fn deferred(n: usize, ticks: usize, threads: usize) -> (Vec<Vec<Request>>, Vec<u64>, Actors) {
    let tree = priority([
        sequence([cond("c"), leaf("d"), act("p")]),
        concurrent([leaf("d"), sequence([act("a"), leaf("d")]), act("a")]),
        leaf("d"),
    ]);
    let program = test_leaves().compile(&tree).expect("test tree");
    on_threads(threads, || {
        let mut crowd =
            Crowd::with_agents(program, (0..n).map(|i| World::random(i as u64)).collect());
        crowd.set_plan_config(PlanConfig {
            chunk_agents: 37,
            ..PlanConfig::default()
        });
        let mut stream = Vec::new();
        let mut answers = Vec::new();
        for t in 0..ticks {
            answer_launches(crowd.requests(), t, &mut answers);
            for &answer in &answers {
                crowd.complete(answer);
            }
            crowd.tick_with(0.1, |_, w| {
                w.tick += 1;
                w.clear_log();
            });
            stream.push(crowd.requests().to_vec());
        }
        // The worlds are not `Clone`; their tick counts stand in for them.
        let ticks_seen = crowd.blackboards().iter().map(|w| w.tick).collect();
        (stream, ticks_seen, actors(&crowd))
    })
}

#[test]
fn requests_are_identical_at_any_thread_count() {
    let reference = deferred(500, 120, 1);
    let requests: usize = reference.0.iter().map(Vec::len).sum();
    assert!(requests > 1000, "the tree should request a lot: {requests}");
    for threads in [2, 3, 8] {
        assert!(
            deferred(500, 120, threads) == reference,
            "{threads} threads"
        );
    }
}

/// The tick rates agents get, by a hash.
const RATES: [u32; 6] = [1, 1, 2, 3, 4, 7];

/// The request-heavy crowd of `deferred`, with membership and tick rates
/// changing between ticks (from hashes of the tick): agents leave (their
/// cancel requests join the stream), others join in the vacant slots or at
/// the end, and rates change. Every agent's world sees its frame's index
/// and `dt`, so its outcomes depend on when it ticks and what it is told.
fn churn(
    n: usize,
    ticks: usize,
    threads: usize,
    chunk_agents: usize,
) -> (Vec<Vec<Request>>, Vec<Option<u64>>, Actors) {
    churn_on(n, ticks, threads, chunk_agents, Pool::Rayon)
}

/// Which threads tick a crowd.
#[derive(Clone, Copy, PartialEq)]
enum Pool {
    /// Rayon's pool (`Crowd::tick_with_frame`).
    Rayon,
    /// The caller's (`Crowd::tick_on`): the jobs on scoped threads, last
    /// first, every third dropped unrun (it runs as it drops).
    Jobs,
    /// Rayon's pool, with rows beside the agents (`Crowd::tick_rows`).
    Rows,
    /// The caller's, with rows.
    JobsRows,
}

/// Runs a tick's jobs on scoped threads, last first, every third dropped
/// unrun (it runs as it drops).
fn scatter<R: Rows, F, A>(jobs: TickJobs<'_, World, R, F, A>)
where
    F: Fn(AgentId, &Frame, Row<'_, R>, &mut World) + Sync,
    A: Fn(AgentId, Row<'_, R>, &World) + Sync,
{
    let mut jobs: Vec<_> = jobs.collect();
    jobs.reverse();
    std::thread::scope(|s| {
        for (i, job) in jobs.into_iter().enumerate() {
            if i % 3 != 2 {
                s.spawn(move || job.run());
            }
        }
    });
}

fn churn_on(
    n: usize,
    ticks: usize,
    threads: usize,
    chunk_agents: usize,
    pool: Pool,
) -> (Vec<Vec<Request>>, Vec<Option<u64>>, Actors) {
    let tree = priority([
        sequence([cond("c"), leaf("d"), act("p")]),
        concurrent([leaf("d"), sequence([act("a"), leaf("d")]), act("a")]),
        leaf("d"),
    ]);
    let program = test_leaves().compile(&tree).expect("test tree");
    on_threads(threads, || {
        let mut crowd =
            Crowd::with_agents(program, (0..n).map(|i| World::random(i as u64)).collect());
        crowd.set_plan_config(PlanConfig {
            chunk_agents,
            ..PlanConfig::default()
        });
        let rate = |h: u64| RATES[(h % RATES.len() as u64) as usize];
        for i in 0..n as u32 {
            crowd
                .set_tick_rate(AgentId(i), rate(mix(u64::from(i))))
                .unwrap();
        }
        let mut stream = Vec::new();
        let mut answers = Vec::new();
        // Rows beside the agents: each agent's stamp, and its `before`s
        // less its `after`s.
        let (mut stamps, mut open) = (Vec::<u64>::new(), Vec::<u32>::new());
        for t in 0..ticks {
            answer_launches(crowd.requests(), t, &mut answers);
            for &answer in &answers {
                crowd.complete(answer);
            }
            let mut cancels = Vec::new();
            for k in 0..6u64 {
                let h = mix((t as u64) << 8 | k);
                let slot = AgentId((h % crowd.slots() as u64) as u32);
                match (h >> 32) % 4 {
                    0 => {
                        crowd.remove(slot, &mut cancels);
                    }
                    1 => {
                        let id = crowd.spawn(World::random(h));
                        crowd.set_tick_rate(id, rate(h >> 40)).unwrap();
                    }
                    2 if crowd.is_alive(slot) => crowd.set_tick_rate(slot, rate(h >> 40)).unwrap(),
                    _ => {}
                }
            }
            stream.push(cancels);
            let dt = 0.1 + 0.01 * (t % 4) as f32;
            let before = |_, frame: &Frame, w: &mut World| {
                w.tick = frame.index ^ u64::from(frame.dt.to_bits()) << 32;
                w.clear_log();
            };
            // Through the rows: the stamp goes to the row first, and the
            // `after` finds it in the world.
            let slots = crowd.slots();
            stamps.resize(slots, 0);
            open.resize(slots, 0);
            let rows = (&mut stamps[..], &mut open[..]);
            let before_row =
                |agent, frame: &Frame, (stamp, open): (&mut u64, &mut u32), w: &mut World| {
                    *stamp = 0;
                    before(agent, frame, w);
                    *stamp = w.tick;
                    *open += 1;
                };
            let after = |_, (stamp, open): (&mut u64, &mut u32), w: &World| {
                assert_eq!(*stamp, w.tick, "the row of the agent that ticked");
                *open -= 1;
            };
            match pool {
                Pool::Rayon => crowd.tick_with_frame(dt, before),
                Pool::Jobs => {
                    let before = |agent, frame: &Frame, (), w: &mut World| before(agent, frame, w);
                    crowd.tick_on(dt, threads, (), before, None::<NoAfter<World>>, scatter);
                }
                Pool::Rows => crowd.tick_rows(dt, rows, before_row, after),
                Pool::JobsRows => {
                    crowd.tick_on(dt, threads, rows, before_row, Some(after), scatter)
                }
            }
            assert!(open.iter().all(|&n| n == 0), "an `after` for each `before`");
            stream.push(crowd.requests().to_vec());
        }
        let seen = (0..crowd.slots() as u32)
            .map(|i| crowd.blackboard(AgentId(i)).map(|w| w.tick))
            .collect();
        (stream, seen, actors(&crowd))
    })
}

#[test]
fn joins_leaves_and_tick_rates_are_identical_at_any_thread_count_and_chunking() {
    let reference = churn(600, 150, 1, 0);
    let requests: usize = reference.0.iter().map(Vec::len).sum();
    assert!(requests > 1000, "the tree should request a lot: {requests}");
    let cancels: usize = reference.0.iter().step_by(2).map(Vec::len).sum();
    assert!(cancels > 20, "leaving agents should cancel work: {cancels}");
    let vacant = reference.1.iter().filter(|w| w.is_none()).count();
    assert!(vacant > 0, "some slots should be vacant at the end");
    for threads in [1, 2, 3, 8] {
        for chunk_agents in [0, 7, 64, 1000] {
            assert!(
                churn(600, 150, threads, chunk_agents) == reference,
                "{threads} threads, chunks of {chunk_agents}"
            );
        }
    }
}

#[test]
fn a_tick_on_the_callers_threads_is_identical_to_rayons() {
    let reference = churn(600, 150, 1, 0);
    for threads in [1, 2, 3] {
        for chunk_agents in [0, 7, 1000] {
            assert!(
                churn_on(600, 150, threads, chunk_agents, Pool::Jobs) == reference,
                "{threads} threads, chunks of {chunk_agents}"
            );
            assert!(
                churn_on(600, 150, threads, chunk_agents, Pool::JobsRows) == reference,
                "{threads} threads, chunks of {chunk_agents}, with rows"
            );
        }
    }
}

#[test]
fn a_tick_with_rows_is_identical_to_one_without() {
    let reference = churn(600, 150, 1, 0);
    for threads in [1, 2, 3] {
        for chunk_agents in [0, 7, 64, 1000] {
            assert!(
                churn_on(600, 150, threads, chunk_agents, Pool::Rows) == reference,
                "{threads} threads, chunks of {chunk_agents}"
            );
        }
    }
}

#[test]
#[should_panic(expected = "a tick's rows must hold one row per slot (10) in every part")]
fn a_tick_on_the_callers_threads_checks_its_rows_without_an_after_too() {
    let program = test_leaves()
        .compile(&act("a"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut crowd = Crowd::with_agents(program, (0..10).map(|_| World::new()).collect());
    let mut short = [0u8; 9];
    let before = |_: AgentId, _: &Frame, _: &mut u8, _: &mut World| {};
    crowd.tick_on(
        0.1,
        2,
        &mut short[..],
        before,
        None::<fn(AgentId, &mut u8, &World)>,
        |jobs| {
            jobs.for_each(TickJob::run);
        },
    );
}
