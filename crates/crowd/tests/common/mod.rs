//! What the crowd's integration tests share: running a game on a thread
//! pool of a given size, checking that its results do not depend on the
//! number of threads or the chunking, and the agents' action states to
//! compare.

use rayon::ThreadPoolBuilder;
use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_vm::{ActionState, AgentId};

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

/// Every live agent's action states in agent order, as `(item, state)`:
/// what runs, for comparing crowds.
// Not every test crate that includes this module compares states.
#[allow(dead_code)]
pub fn action_states<B>(crowd: &Crowd<B>) -> Vec<Vec<(u32, ActionState)>> {
    (0..crowd.len() as u32)
        .map(|i| {
            crowd
                .actor(AgentId(i))
                .actions()
                .map(|(n, s)| (n.get(), s))
                .collect()
        })
        .collect()
}
