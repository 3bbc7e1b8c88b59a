//! What observing a crowd costs: the crowd workload's 5000 agents on one
//! thread, the plain tick (observers off) as the baseline in the same run
//! (criterion's time per element is nanoseconds per agent-tick).
//!
//! * `observe_5000/off`: `Crowd::tick_with`, the plain tick: no observer,
//!   and the interpreter compiled with empty hooks;
//! * `observe_5000/none_watched`: `Crowd::tick_observed` with an observer
//!   that watches no agent: the serial observed loop, every agent ticked
//!   plainly;
//! * `observe_5000/all_silent`: an observer that watches every agent and
//!   keeps nothing: the cost of the hooks and of tracking node states;
//! * `observe_5000/profile_counts` and `profile_timed`: a [`Profile`] of
//!   every agent, counting, and counting and timing;
//! * `observe_5000/recorder`: a [`Recorder`] of every agent into a 64 MiB
//!   ring (full after a few hundred ticks, then dropping the oldest).
//!
//! `cargo bench --bench observe -- --test` runs each once, as a smoke test.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::ThreadPoolBuilder;
use std::hint::black_box;
use std::time::{Duration, Instant};
use treebeard::prelude::*;
use treebeard::vm::Recorder;
use treebeard::vm::observe::Profile;
use treebeard_workload::{Critter, leaves, spawn, tree};

const AGENTS: usize = 5000;

/// Watches every agent, or none, and keeps nothing.
struct Silent(bool);

impl Observer for Silent {
    fn watches(&self, _: AgentId) -> bool {
        self.0
    }
}

fn observe_5000(c: &mut Criterion) {
    let mut group = c.benchmark_group("observe_5000");
    group.throughput(Throughput::Elements(AGENTS as u64));
    let one = ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a rayon pool");
    let program = leaves()
        .compile(&tree())
        .expect("the workload tree compiles");
    let mut crowd = Crowd::with_agents(program, spawn(AGENTS, 42));
    one.install(|| {
        for _ in 0..100 {
            crowd.tick_with(1.0, |_, c| c.world_step());
        }
    });
    let shape = crowd.program().shape().clone();
    let mut bench = |name: &str, observer: Option<&mut (dyn Observer + Send)>| {
        let mut observer = observer;
        group.bench_function(name, |b| {
            b.iter_custom(|iters| -> Duration {
                one.install(|| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        match observer.as_deref_mut() {
                            None => crowd.tick_with(1.0, |_, c: &mut Critter| c.world_step()),
                            Some(o) => crowd.tick_observed(1.0, |_, c| c.world_step(), o),
                        }
                    }
                    start.elapsed()
                })
            });
        });
    };
    bench("off", None);
    bench("none_watched", Some(&mut Silent(false)));
    bench("all_silent", Some(&mut Silent(true)));
    let mut counts = Profile::counts_only(&shape);
    bench("profile_counts", Some(&mut counts));
    let mut timed = Profile::new(&shape);
    bench("profile_timed", Some(&mut timed));
    let mut recorder = Recorder::new(&shape, 64 << 20);
    bench("recorder", Some(&mut recorder));
    group.finish();
    black_box(crowd.blackboards());
}

criterion_group!(benches, observe_5000);
criterion_main!(benches);
