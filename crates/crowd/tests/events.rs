//! Events between the agents of a crowd: a `SendEvent` node addresses
//! another agent through a blackboard field; the crowd routes its request
//! after the tick, so the event arrives before that agent's next tick, wakes
//! its `WaitForEvent` and sets its variable and timestamp through the tree's
//! declarations. Results are identical at any thread count and chunking,
//! events to agents the crowd does not have are counted, and routing
//! allocates nothing in steady state.
//!
//! The tree, shared by every agent (item indices in pre-order):
//!
//! ```text
//! 0 Concurrent (never finishes: both loops run forever)
//! 1   Loop(0)                        the relay
//! 2     Sequence
//! 3       WaitForEvent(Ping)
//! 4       Script(pings += 1; pinged_at = now)
//! 5       SendEvent(Ping, to: {next})
//! 6       SendEvent(Alarm, to: {watcher})
//! 7   Loop(0)                        the alarm, one test per tick
//! 8     ForceSuccess
//! 9       IfCondition(Alarmed)
//! 10        Script(alarms += 1; alarmed_at = now; Alarmed = false)
//! ```
//!
//! `Alarm` sets the variable `Alarmed` (a signal) and the timestamp
//! `AlarmedAt`. Before each tick the crowd sets every agent's `now` to the
//! tick's number (1, 2, ...).

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_shape::tree::{Node, concurrent, decider_of, force_success, sequence};
use treebeard_shape::{ActionId, Declarations, Kind, NodeIdx, Options, ParamValue, compile_with};
use treebeard_vm::{
    ActionState, AgentId, DeciderState, EventId, Leaves, Program, Request, RequestKind,
};

// ---------------------------------------------------------------------------
// The blackboard, events, declarations and tree
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, Default, PartialEq)]
struct Unit {
    /// The tick's number, set before the tick.
    now: i64,
    /// The agent the relay passes `Ping` on to.
    next: i64,
    /// The agent the relay sends `Alarm` to.
    watcher: i64,
    /// How often this agent relayed, and at which tick last.
    pings: i64,
    pinged_at: i64,
    /// How often this agent saw `Alarmed`, and at which tick last.
    alarms: i64,
    alarmed_at: i64,
}

treebeard_vm::blackboard!(Unit {
    now,
    next,
    watcher,
    pings,
    pinged_at,
    alarms,
    alarmed_at
});

const PING: EventId = EventId(0);
const ALARM: EventId = EventId(1);

fn leaves() -> Leaves<Unit> {
    let mut leaves = Leaves::<Unit>::new();
    leaves.blackboard();
    assert_eq!(leaves.event("Ping"), PING);
    assert_eq!(leaves.event("Alarm"), ALARM);
    leaves
}

fn none() -> [Node; 0] {
    []
}

fn field(name: &str) -> ParamValue {
    ParamValue::Field(name.into())
}

fn script(source: &str) -> Node {
    decider_of(Kind::Script, none()).arg("script", source)
}

fn send_to(event: &str, to: &str) -> Node {
    decider_of(Kind::SendEvent, none())
        .arg("event", event)
        .arg("to", field(to))
}

fn forever(child: Node) -> Node {
    decider_of(Kind::Loop, [child]).arg("count", 0)
}

fn program() -> Program<Unit> {
    let tree = concurrent([
        forever(sequence([
            decider_of(Kind::WaitForEvent, none()).arg("event", "Ping"),
            script("pings += 1; pinged_at = now"),
            send_to("Ping", "next"),
            send_to("Alarm", "watcher"),
        ])),
        forever(force_success(
            decider_of(
                Kind::IfCondition,
                [script("alarms += 1; alarmed_at = now; Alarmed = false")],
            )
            .arg("condition", "Alarmed"),
        )),
    ]);
    let options = Options {
        declarations: Declarations::new()
            .variable("Alarmed", false)
            .signal("Alarm", "Alarmed", true)
            .timestamp("AlarmedAt", "Alarm"),
        ..Options::default()
    };
    let leaves = leaves();
    let shape = compile_with(&tree, &leaves, &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shape.len(), 11);
    Program::link(shape, &leaves).unwrap_or_else(|e| panic!("{e}"))
}

/// Agents that pass `Ping` round a ring (`next` = i + 1) and alarm the
/// agent two ahead; `outside`, if any, alarms an agent the crowd lacks.
fn ring(n: usize, outside: Option<usize>) -> Vec<Unit> {
    (0..n)
        .map(|i| Unit {
            next: ((i + 1) % n) as i64,
            watcher: if outside == Some(i) {
                (n + 1000) as i64
            } else {
                ((i + 2) % n) as i64
            },
            ..Unit::default()
        })
        .collect()
}

/// A running action state at `node`.
fn running(node: u32, value: u32) -> (NodeIdx, ActionState) {
    (NodeIdx::new(node), ActionState::Running(value))
}

/// The request of agent `from`'s `SendEvent` at `node`.
fn sent(from: usize, node: u32, event: EventId, to: usize) -> Request {
    Request {
        agent: AgentId(from as u32),
        node: NodeIdx::new(node),
        action: ActionId(0),
        kind: RequestKind::Event {
            event,
            to: AgentId(to as u32),
        },
    }
}

// ---------------------------------------------------------------------------
// Pools, and what a run records
// ---------------------------------------------------------------------------

/// Each pool's threads carry its number, so the allocation counter can
/// count one pool's threads only (tests run in parallel).
static POOLS: AtomicUsize = AtomicUsize::new(1);

thread_local! {
    static POOL: Cell<usize> = const { Cell::new(0) };
}

/// A pool of `threads` threads whose threads know its number.
fn pool(threads: usize) -> (ThreadPool, usize) {
    let id = POOLS.fetch_add(1, Ordering::Relaxed);
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(move |_| POOL.with(|p| p.set(id)))
        .build()
        .expect("thread pool");
    (pool, id)
}

/// Chunks of `chunk` agents, parallel however small the crowd (0: the
/// cost model's chunks).
fn chunks(chunk: usize) -> PlanConfig {
    PlanConfig {
        chunk_agents: chunk,
        serial_below_ns: 0,
        ..PlanConfig::default()
    }
}

/// One agent after a tick: its blackboard, stored states, variable and
/// timestamp.
type AgentRecord = (
    Unit,
    Vec<DeciderState>,
    Vec<(NodeIdx, ActionState)>,
    bool,
    Option<f32>,
);

/// One tick of a crowd: every agent, the requests, the undelivered events.
type TickRecord = (Vec<AgentRecord>, Vec<Request>, usize);

fn record(crowd: &Crowd<Unit>) -> TickRecord {
    let shape = crowd.program().shape();
    let agents = (0..crowd.len())
        .map(|i| {
            let actor = crowd.actor(AgentId(i as u32));
            (
                crowd.blackboards()[i].clone(),
                actor.deciders().collect(),
                actor.actions().collect(),
                actor.variable(shape, 0).expect("declared"),
                actor.timestamp(0),
            )
        })
        .collect();
    (
        agents,
        crowd.requests().to_vec(),
        crowd.undelivered_events(),
    )
}

/// Runs `units` for `ticks` ticks of `dt` on `threads` threads with
/// `plan`: one tick, then `Ping` to each agent of `starts`, then the rest.
/// Records every tick.
fn run(
    units: Vec<Unit>,
    starts: &[usize],
    ticks: usize,
    dt: f32,
    threads: usize,
    plan: PlanConfig,
) -> Vec<TickRecord> {
    let (pool, _) = pool(threads);
    pool.install(|| {
        let mut crowd = Crowd::with_agents(program(), units);
        crowd.set_plan_config(plan);
        let mut records = Vec::new();
        for t in 0..ticks {
            crowd.tick_with(dt, |_, u| u.now += 1);
            if threads > 1 && crowd.len() > 1 {
                assert!(!crowd.plan().is_serial(), "{threads} threads");
            }
            records.push(record(&crowd));
            if t == 0 {
                for &s in starts {
                    // Every agent waits for `Ping` now: each start reaches
                    // one node.
                    assert_eq!(crowd.send_event(AgentId(s as u32), PING).unwrap(), 1);
                }
            }
        }
        records
    })
}

// ---------------------------------------------------------------------------
// Delivery
// ---------------------------------------------------------------------------

/// Checks a run of [`ring`] started at agent 0 against what the tree must
/// do: on tick t >= 2 agent k = (t - 2) % n relays, and the agents it
/// addresses react before their next tick.
fn check_ring(records: &[TickRecord], n: usize, outside: Option<usize>, dt: f32) {
    for (i, (agents, requests, undelivered)) in records.iter().enumerate() {
        let t = i + 1;
        if t == 1 {
            assert_eq!(*requests, [], "tick 1");
            assert_eq!(*undelivered, 0);
            for (k, a) in agents.iter().enumerate() {
                // Waiting, the alarm loop between its runs; no memory set.
                assert_eq!(a.2, [running(3, 0), running(7, 1)], "agent {k}");
                assert_eq!((a.3, a.4), (false, None));
            }
            continue;
        }
        let k = (t - 2) % n;
        let watcher = if outside == Some(k) {
            n + 1000
        } else {
            (k + 2) % n
        };
        assert_eq!(
            *requests,
            [sent(k, 5, PING, (k + 1) % n), sent(k, 6, ALARM, watcher)],
            "tick {t}"
        );
        assert_eq!(*undelivered, usize::from(outside == Some(k)), "tick {t}");
        let relayed = agents[k].0.clone();
        assert_eq!(relayed.pinged_at, t as i64, "tick {t}");
        // The relay waits anew from the next tick: between runs only its
        // loop holds a state, the count of its runs. The alarm loop has run
        // once per tick.
        let runs = relayed.pings as u32;
        assert_eq!(
            agents[k].2,
            [running(1, runs), running(7, t as u32)],
            "tick {t}"
        );
        // The next agent's wait was woken before its next tick.
        let next = &agents[(k + 1) % n];
        assert_eq!(next.2, [running(3, 1), running(7, t as u32)], "tick {t}");
        // The watcher's signal and timestamp are set: the timestamp is the
        // next tick's time, t * dt.
        if outside != Some(k) {
            let w = &agents[watcher];
            assert!(w.3, "tick {t}: agent {watcher} not alarmed");
            assert_eq!(w.4, Some(t as f32 * dt), "tick {t}");
        }
        // An alarm sent on the tick before was seen on this one, and the
        // script cleared the variable.
        if t >= 3 {
            let before = (t - 3) % n;
            if outside != Some(before) {
                let w = &agents[(before + 2) % n];
                assert_eq!(w.0.alarmed_at, t as i64, "tick {t}");
                if (before + 2) % n != watcher {
                    assert!(!w.3, "tick {t}");
                }
            }
        }
    }
    // Totals: one relay per tick from tick 2; every alarm but the last
    // tick's and those sent outside was seen.
    let (agents, ..) = records.last().expect("ticks");
    let ticks = records.len();
    let pings: i64 = agents.iter().map(|a| a.0.pings).sum();
    assert_eq!(pings, ticks as i64 - 1);
    for (k, a) in agents.iter().enumerate() {
        let relays = (2..=ticks).filter(|t| (t - 2) % n == k).count();
        assert_eq!(a.0.pings, relays as i64, "agent {k}");
    }
    let lost = (2..ticks).filter(|t| outside == Some((t - 2) % n)).count();
    let alarms: i64 = agents.iter().map(|a| a.0.alarms).sum();
    assert_eq!(alarms, (ticks - 2 - lost) as i64);
}

#[test]
fn an_event_sent_through_a_field_arrives_before_the_targets_next_tick() {
    let (n, dt) = (5, 0.5);
    let records = run(ring(n, None), &[0], 23, dt, 1, PlanConfig::default());
    check_ring(&records, n, None, dt);
    // The token went round more than four times, through the agent after
    // the sender (lower indices tick first) and back to agent 0 (the event
    // crosses the end of the crowd's order).
    let (agents, ..) = records.last().expect("ticks");
    assert_eq!(
        agents.iter().map(|a| a.0.pings).collect::<Vec<_>>(),
        [5, 5, 4, 4, 4]
    );
    assert_eq!(
        agents.iter().map(|a| a.0.pinged_at).collect::<Vec<_>>(),
        [22, 23, 19, 20, 21]
    );
}

#[test]
fn a_signal_sets_the_variable_of_the_agent_an_event_is_sent_to() {
    let (n, dt) = (4, 0.25);
    let records = run(ring(n, None), &[0], 4, dt, 1, PlanConfig::default());
    check_ring(&records, n, None, dt);
    // Tick 2: agent 0 alarms agent 2, which sees it on tick 3; tick 3:
    // agent 1 alarms agent 3, which sees it on tick 4.
    let (agents, ..) = &records[1];
    assert_eq!(
        agents.iter().map(|a| a.3).collect::<Vec<_>>(),
        [false, false, true, false]
    );
    assert_eq!(agents[2].4, Some(0.5));
    let (agents, ..) = &records[2];
    assert_eq!((agents[2].0.alarms, agents[2].0.alarmed_at), (1, 3));
    assert_eq!(
        agents.iter().map(|a| a.3).collect::<Vec<_>>(),
        [false, false, false, true]
    );
    // The timestamp stays after the variable is cleared.
    assert_eq!(agents[2].4, Some(0.5));
    assert_eq!(agents[3].4, Some(0.75));
}

#[test]
fn events_to_agents_the_crowd_lacks_are_counted_and_stay_in_the_requests() {
    let (n, dt) = (6, 1.0);
    let records = run(ring(n, Some(3)), &[0], 20, dt, 1, PlanConfig::default());
    check_ring(&records, n, Some(3), dt);
    let undelivered: Vec<usize> = records.iter().map(|r| r.2).collect();
    // Agent 3 relays on ticks 5, 11 and 17.
    let expected: Vec<usize> = (1..=20)
        .map(|t| usize::from(t == 5 || t == 11 || t == 17))
        .collect();
    assert_eq!(undelivered, expected);
    assert_eq!(records[4].1[1], sent(3, 6, ALARM, n + 1000));
}

#[test]
fn events_are_routed_by_traced_ticks_too() {
    let (n, dt) = (5, 1.0);
    let reference = run(ring(n, Some(1)), &[0], 14, dt, 1, PlanConfig::default());
    let mut crowd = Crowd::with_agents(program(), ring(n, Some(1)));
    let mut records = Vec::new();
    for t in 0..14 {
        for u in crowd.blackboards_mut() {
            u.now += 1;
        }
        let mut events = 0;
        crowd.tick_traced(dt, &mut |_, _, _| events += 1);
        assert!(events > 0);
        records.push(record(&crowd));
        if t == 0 {
            assert_eq!(crowd.send_event(AgentId(0), PING).unwrap(), 1);
        }
    }
    assert!(records == reference);
}

#[test]
fn results_are_identical_with_one_two_and_four_threads() {
    // A ring, parallel in chunks of 3 agents.
    let (n, dt) = (12, 0.5);
    let reference = run(ring(n, Some(7)), &[0], 40, dt, 1, chunks(3));
    check_ring(&reference, n, Some(7), dt);
    for threads in [2, 4] {
        for chunk in [1, 3, 5] {
            let other = run(ring(n, Some(7)), &[0], 40, dt, threads, chunks(chunk));
            assert!(other == reference, "{threads} threads, chunks of {chunk}");
        }
    }
}

#[test]
fn many_tokens_on_a_scrambled_graph_are_identical_with_one_two_and_four_threads() {
    // Agent i passes `Ping` to (37 i + 11) mod (n + 3) and alarms
    // (5 i + 2) mod (n + 1): some events go to agents the crowd lacks, and
    // tokens meet and merge.
    let n = 301;
    let units: Vec<Unit> = (0..n)
        .map(|i| Unit {
            next: ((37 * i + 11) % (n + 3)) as i64,
            watcher: ((5 * i + 2) % (n + 1)) as i64,
            ..Unit::default()
        })
        .collect();
    let starts: Vec<usize> = (0..n).step_by(10).collect();
    let reference = run(units.clone(), &starts, 60, 0.1, 1, PlanConfig::default());
    let (agents, ..) = reference.last().expect("ticks");
    let pings: i64 = agents.iter().map(|a| a.0.pings).sum();
    let alarms: i64 = agents.iter().map(|a| a.0.alarms).sum();
    let undelivered: usize = reference.iter().map(|r| r.2).sum();
    assert!(pings > 200, "{pings}");
    assert!(alarms > 200, "{alarms}");
    assert!(undelivered > 0);
    for (threads, chunk) in [(2, 0), (2, 16), (4, 7), (4, 64)] {
        let other = run(units.clone(), &starts, 60, 0.1, threads, chunks(chunk));
        assert!(other == reference, "{threads} threads, chunks of {chunk}");
    }
}

// ---------------------------------------------------------------------------
// No allocation in steady state
// ---------------------------------------------------------------------------

/// Counts the allocations of the threads of the pool whose number is in
/// `COUNTING_POOL` (0: none).
struct Counting;

static COUNTING_POOL: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

fn count_one() {
    let counting = COUNTING_POOL.load(Ordering::Relaxed);
    // `try_with`: a thread being torn down has no thread locals left.
    if counting != 0 && POOL.try_with(Cell::get) == Ok(counting) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to the system allocator unchanged; the
// counters are atomics and a const-initialised thread-local cell, which
// allocate nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn routing_events_allocates_nothing_in_steady_state() {
    for (threads, chunk) in [(1, 0), (2, 8), (4, 5)] {
        let (pool, id) = pool(threads);
        pool.install(|| {
            let n = 64;
            let mut crowd = Crowd::with_agents(program(), ring(n, Some(9)));
            crowd.set_plan_config(chunks(chunk));
            let mut undelivered = 0;
            let mut tick = |crowd: &mut Crowd<Unit>| {
                crowd.tick_with(0.1, |_, u| u.now += 1);
                undelivered += crowd.undelivered_events();
            };
            tick(&mut crowd);
            for s in (0..n).step_by(4) {
                crowd.send_event(AgentId(s as u32), PING).unwrap();
            }
            for _ in 0..50 {
                tick(&mut crowd);
            }
            // Each worker thread allocates once, the first time it looks
            // for work (crossbeam-epoch registers the thread). A thread the
            // system starts late may do that during the counted ticks; a
            // broadcast returns once every worker has looked for work.
            rayon::broadcast(|_| ());
            // The counter sees this pool's threads.
            ALLOCATIONS.store(0, Ordering::SeqCst);
            COUNTING_POOL.store(id, Ordering::SeqCst);
            std::hint::black_box(vec![0u8; 8]);
            COUNTING_POOL.store(0, Ordering::SeqCst);
            assert_eq!(ALLOCATIONS.load(Ordering::SeqCst), 1);

            ALLOCATIONS.store(0, Ordering::SeqCst);
            COUNTING_POOL.store(id, Ordering::SeqCst);
            for _ in 0..200 {
                tick(&mut crowd);
            }
            COUNTING_POOL.store(0, Ordering::SeqCst);
            let allocations = ALLOCATIONS.load(Ordering::SeqCst);
            assert_eq!(allocations, 0, "{threads} threads, chunks of {chunk}");
            // Events were routed all along: 16 tokens, one relay each per
            // tick from tick 2 to 251; agent 9 relays on every fourth tick
            // from tick 3, sending its alarm outside the crowd.
            let pings: i64 = crowd.blackboards().iter().map(|u| u.pings).sum();
            assert_eq!(pings, 16 * 250);
            assert_eq!(undelivered, 63);
        });
    }
}
