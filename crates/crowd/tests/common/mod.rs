//! What the crowd's integration tests share: running a game on a thread
//! pool of a given size, and checking that its results do not depend on
//! the number of threads or the chunking.

use rayon::ThreadPoolBuilder;
use treebeard_crowd::PlanConfig;

/// Runs `f` on a pool of `threads` threads.
pub fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(f)
}

/// Runs `run(threads, plan)` at 2, 3 and 8 threads with chunks of each of
/// `chunks` agents (0: the plan's own choice), and checks that each run's
/// results equal `reference`, the run on one thread with the default plan.
pub fn assert_same_at_any_thread_count<T: PartialEq>(
    reference: &T,
    chunks: &[usize],
    run: impl Fn(usize, PlanConfig) -> T,
) {
    for threads in [2, 3, 8] {
        for &chunk_agents in chunks {
            let plan = PlanConfig {
                chunk_agents,
                ..PlanConfig::default()
            };
            assert!(
                run(threads, plan) == *reference,
                "{threads} threads, chunks of {chunk_agents}: results differ"
            );
        }
    }
}
