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
//!   ring (full after a few hundred ticks, then dropping the oldest);
//! * `observe_5000/live_no_page` and `live_one_page`: the recorder and a
//!   [`LiveView`] publishing each tick, with no page watching, and with
//!   one page (a thread reading the event stream as a browser would, on
//!   the other core where there is one).
//!
//! `cargo bench --bench observe -- --test` runs each once, as a smoke test.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rayon::ThreadPoolBuilder;
use std::hint::black_box;
use std::time::{Duration, Instant};
use treebeard::prelude::*;
use treebeard::vm::Recorder;
use treebeard::vm::observe::Profile;
use treebeard_view::live::{LiveOptions, LiveView};
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
    for pages in [0, 1] {
        let mut recorder = Recorder::new(&shape, 64 << 20);
        let mut live = LiveView::bind("127.0.0.1:0", &recorder, "bench", LiveOptions::default())
            .expect("a loopback port");
        let page = (pages == 1).then(|| watch(&live));
        let name = if pages == 0 {
            "live_no_page"
        } else {
            "live_one_page"
        };
        group.bench_function(name, |b| {
            b.iter_custom(|iters| -> Duration {
                one.install(|| {
                    let start = Instant::now();
                    for _ in 0..iters {
                        crowd.tick_observed(1.0, |_, c| c.world_step(), &mut recorder);
                        live.publish(&mut recorder);
                    }
                    start.elapsed()
                })
            });
        });
        assert_eq!(live.pages(), pages, "the page kept up");
        drop(live);
        if let Some(page) = page {
            let bytes = page.join().expect("the page's thread");
            assert!(bytes > 0, "the page read the stream");
        }
    }
    group.finish();
    black_box(crowd.blackboards());
}

/// A page watching `live`: a thread reading its event stream until the
/// server ends it; returns the bytes it read.
fn watch(live: &LiveView) -> std::thread::JoinHandle<u64> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(live.local_addr()).expect("the server accepts");
    stream
        .write_all(b"GET /events HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        .expect("the request goes");
    let page = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    while live.pages() == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    page
}

criterion_group!(benches, observe_5000);
criterion_main!(benches);
