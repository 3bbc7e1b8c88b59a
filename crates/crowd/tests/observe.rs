//! `Crowd::tick_observed` over random trees: observing changes nothing of
//! what happens, tells only the watched agents' ticks, and its final node
//! states agree with the events and with the actors' active paths.

mod common;

use common::{assert_same_at_any_thread_count, on_threads};
use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_shape::NodeIdx;
use treebeard_testkit::{Spec, World, answer_launches};
use treebeard_vm::observe::{Profile, RootReports, active_path};
use treebeard_vm::{
    AgentId, Completion, Frame, NodeState, NodeStates, Observer, Status, TraceEvent,
};
use treebeard_workload::{Checksum, leaves, spawn, tree};

const AGENTS: usize = 6;
const DT: f32 = 0.1;

/// What an observer heard of one agent's tick.
#[derive(Debug, Default)]
struct Heard {
    agent: Option<AgentId>,
    visits: Vec<NodeIdx>,
    events: Vec<(NodeIdx, TraceEvent)>,
    states: Vec<(NodeIdx, NodeState)>,
    root: Option<Status>,
}

/// Watches the even agents, keeping what it heard per tick.
#[derive(Default)]
struct Even {
    ticks: Vec<Heard>,
}

impl Observer for Even {
    fn watches(&self, agent: AgentId) -> bool {
        agent.0.is_multiple_of(2)
    }
    fn begin(&mut self, agent: AgentId, _: &Frame) {
        self.ticks.push(Heard {
            agent: Some(agent),
            ..Heard::default()
        });
    }
    fn visit(&mut self, node: NodeIdx) {
        self.ticks.last_mut().unwrap().visits.push(node);
    }
    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        self.ticks.last_mut().unwrap().events.push((node, event));
    }
    fn end(&mut self, agent: AgentId, root: Status, states: &NodeStates<'_>) {
        let heard = self.ticks.last_mut().unwrap();
        assert_eq!(heard.agent, Some(agent));
        heard.states = states.iter().collect();
        assert_eq!(states.len(), heard.states.len());
        heard.root = Some(root);
    }
}

fn worlds(seed: u64) -> Vec<World> {
    (0..AGENTS as u64)
        .map(|i| World::random(seed.wrapping_mul(31) ^ i))
        .collect()
}

/// A node's final state as its events of the tick say: running if it
/// started or ran before and did not end, else how it ended.
fn state_from_events(events: &[(NodeIdx, TraceEvent)], node: NodeIdx) -> Option<NodeState> {
    events
        .iter()
        .filter(|(n, _)| *n == node)
        .filter_map(|&(_, e)| match e {
            TraceEvent::Start => Some(NodeState::Running),
            TraceEvent::Success => Some(NodeState::Success),
            TraceEvent::Failure => Some(NodeState::Failure),
            TraceEvent::Cancel => Some(NodeState::Cancelled),
            TraceEvent::Launch | TraceEvent::Complete => None,
        })
        .next_back()
}

#[test]
fn observing_changes_nothing_and_node_states_agree_with_events_and_actors() {
    for seed in 0..80 {
        let spec = Spec::random(seed, 5, 4);
        let mut observed = Crowd::with_agents(spec.compile(), worlds(seed));
        let mut plain = Crowd::with_agents(spec.compile(), worlds(seed));
        let mut answers: Vec<Completion> = Vec::new();
        // From seed 40 on, agents at tick rates 1 to 3 and a vacant slot:
        // the crowd's scheduled path, where agents skip frames.
        let scheduled = seed >= 40;
        if scheduled {
            for crowd in [&mut observed, &mut plain] {
                for a in 0..AGENTS as u32 {
                    crowd.set_tick_rate(AgentId(a), 1 + a % 3).unwrap();
                }
                crowd.remove(AgentId(3), &mut Vec::new());
            }
        }
        for t in 0..100u64 {
            let mut even = Even::default();
            observed.tick_observed(DT, |_, w| w.tick = t, &mut even);
            plain.tick_with(DT, |_, w| w.tick = t);
            let context = format!("seed {seed}, tree {spec:?}, tick {t}");
            assert_eq!(observed.requests(), plain.requests(), "{context}: requests");
            let watched: Vec<AgentId> = even.ticks.iter().filter_map(|h| h.agent).collect();
            let even_agents: Vec<AgentId> = (0..AGENTS as u32).step_by(2).map(AgentId).collect();
            if scheduled {
                // The even agents due this frame (agent 0 ticks every one).
                assert_eq!(watched.first(), Some(&AgentId(0)), "{context}");
                assert!(watched.iter().all(|a| even_agents.contains(a)));
            } else {
                assert_eq!(watched, even_agents, "{context}: watched agents");
            }
            for heard in &even.ticks {
                let agent = heard.agent.unwrap();
                let actor = observed.actor(agent);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                actor.canonical_words(&mut a);
                plain.actor(agent).canonical_words(&mut b);
                assert_eq!(a, b, "{context}: agent {agent:?}");
                // Running at the end = the actor's active path.
                let running: Vec<NodeIdx> = heard
                    .states
                    .iter()
                    .filter(|(_, s)| *s == NodeState::Running)
                    .map(|(n, _)| *n)
                    .collect();
                assert_eq!(
                    running,
                    active_path(observed.program(), actor),
                    "{context}: agent {agent:?}: running nodes"
                );
                // Every node with an event has a state, the one its last
                // event gives unless it runs on.
                for &(node, _) in &heard.events {
                    let listed = heard.states.iter().find(|(n, _)| *n == node);
                    let Some(&(_, state)) = listed else {
                        panic!("{context}: {node:?} had events and no state");
                    };
                    if let Some(last) = state_from_events(&heard.events, node)
                        && state != NodeState::Running
                    {
                        assert_eq!(state, last, "{context}: {node:?}");
                    }
                }
                assert!(heard.states.windows(2).all(|w| w[0].0 < w[1].0));
                assert!(heard.states.iter().all(|(_, s)| *s != NodeState::Idle));
                // Every start was a visit.
                for &(node, e) in &heard.events {
                    if e == TraceEvent::Start {
                        assert!(heard.visits.contains(&node), "{context}: {node:?}");
                    }
                }
                assert!(heard.root.is_some());
            }
            answer_launches(observed.requests(), t as usize, &mut answers);
            for &c in &answers {
                observed.complete(c);
                plain.complete(c);
            }
        }
    }
}

#[test]
fn profile_counts_are_the_events_and_the_same_at_any_thread_count() {
    let spec = Spec::random(7, 5, 4);
    let mut counts = Vec::new();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let run = pool.install(|| {
            let mut crowd = Crowd::with_agents(spec.compile(), worlds(7));
            let mut profile = Profile::counts_only(crowd.program().shape());
            let mut starts = vec![0u64; crowd.program().shape().len()];
            for t in 0..60u64 {
                // Plain and observed ticks mixed: the profile counts only
                // the observed ones.
                if t % 3 == 0 {
                    crowd.tick_with(DT, |_, w| w.tick = t);
                    continue;
                }
                let mut both = treebeard_vm::observe::Both::new(&mut profile, Starts(&mut starts));
                crowd.tick_observed(DT, |_, w| w.tick = t, &mut both);
            }
            let table: Vec<_> = (0..starts.len() as u32)
                .map(|n| *profile.node(NodeIdx::new(n)).unwrap())
                .collect();
            for row in &table {
                assert_eq!(row.starts, starts[row.node.index()]);
                assert!(row.self_time.is_zero());
            }
            assert_eq!(profile.agent_ticks(), 40 * AGENTS as u64);
            assert_eq!(
                table[0].visits,
                profile.agent_ticks(),
                "the root, every tick"
            );
            table
        });
        counts.push(run);
    }
    assert_eq!(counts[0], counts[1]);
    assert_eq!(counts[0], counts[2]);
}

/// Counts starts per node.
struct Starts<'a>(&'a mut Vec<u64>);

impl Observer for Starts<'_> {
    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        if event == TraceEvent::Start {
            self.0[node.index()] += 1;
        }
    }
}

/// What a run of the workload crowd watching a few agents gives: the
/// world, every tick's requests, the watched agents' root reports and
/// profile counts.
type Observed = (
    Checksum,
    Vec<Vec<treebeard_vm::Request>>,
    Vec<String>,
    Vec<u64>,
);

fn watch_a_few(threads: usize, plan: PlanConfig) -> Observed {
    on_threads(threads, || {
        let program = leaves().compile(&tree()).unwrap();
        let shape = program.shape().clone();
        let mut crowd = Crowd::with_agents(program, spawn(1500, 42));
        crowd.set_plan_config(plan);
        let mut reports = RootReports::new(4).only([0, 5, 777, 1499].map(AgentId));
        let mut profile = Profile::counts_only(&shape);
        let mut requests = Vec::new();
        for t in 0..120 {
            if t % 2 == 0 {
                crowd.tick_with(1.0, |_, c| c.world_step());
            } else {
                crowd.tick_observed(1.0, |_, c| c.world_step(), &mut reports);
            }
            if t == 60 {
                // From here, a profile of every agent too.
                crowd.tick_observed(1.0, |_, c| c.world_step(), &mut profile);
            }
            requests.push(crowd.requests().to_vec());
        }
        let reports = reports.take().iter().map(|r| r.render(&shape)).collect();
        let visits = (0..shape.len() as u32)
            .map(|n| profile.node(NodeIdx::new(n)).unwrap().visits)
            .collect();
        (Checksum::of(crowd.blackboards()), requests, reports, visits)
    })
}

#[test]
fn watching_a_few_agents_of_a_parallel_crowd_changes_nothing_at_any_thread_count() {
    let reference = watch_a_few(1, PlanConfig::default());
    // The same world as a crowd that observes nothing.
    let plain = on_threads(1, || {
        let mut crowd = Crowd::with_agents(leaves().compile(&tree()).unwrap(), spawn(1500, 42));
        for _ in 0..121 {
            crowd.tick_with(1.0, |_, c| c.world_step());
        }
        Checksum::of(crowd.blackboards())
    });
    assert_eq!(reference.0, plain);
    assert!(!reference.2.is_empty(), "the watched roots finished");
    assert!(
        reference.3[0] == 1500,
        "the profiled tick visited every root"
    );
    assert_same_at_any_thread_count(&reference, &[0, 1, 7, 500], watch_a_few);
}
