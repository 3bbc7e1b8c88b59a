//! `Crowd::tick_traced` against `Interpreter::tick_traced` agent by agent,
//! and against `Crowd::tick`.

use treebeard_crowd::Crowd;
use treebeard_shape::NodeIdx;
use treebeard_testkit::{Spec, World, answer_launches};
use treebeard_vm::{
    ActorLayout, Actors, AgentId, Completion, DeciderState, Frame, Interpreter, Request,
    RequestKind, TraceEvent,
};

const AGENTS: usize = 7;
const DT: f32 = 0.1;

/// An agent's visible state after a tick.
type State = (
    Vec<DeciderState>,
    Vec<(NodeIdx, treebeard_vm::ActionState)>,
    Vec<u32>,
);

fn state(actor: treebeard_vm::ActorRef<'_>) -> State {
    (
        actor.deciders().collect(),
        actor.actions().collect(),
        actor.persistent().to_vec(),
    )
}

fn worlds(seed: u64) -> Vec<World> {
    (0..AGENTS as u64)
        .map(|i| World::random(seed.wrapping_mul(31) ^ i))
        .collect()
}

#[test]
fn crowd_traced_tick_matches_the_interpreter_and_the_plain_tick() {
    for seed in 0..60 {
        let spec = Spec::random(seed, 5, 4);
        let mut traced = Crowd::with_agents(spec.compile(), worlds(seed));
        let mut plain = Crowd::with_agents(spec.compile(), worlds(seed));
        let mut program = spec.compile();
        let mut actors = Actors::new(ActorLayout::for_shape(program.shape()), AGENTS);
        let mut solo = worlds(seed);
        let mut interpreter = Interpreter::new();
        let mut frame = Frame::default();
        let mut answers: Vec<Completion> = Vec::new();
        let mut reported = treebeard_vm::SubsetRuleReports::default();
        for t in 0..120u64 {
            for w in traced.blackboards_mut().iter_mut() {
                w.tick = t;
            }
            for w in plain.blackboards_mut().iter_mut() {
                w.tick = t;
            }
            for w in &mut solo {
                w.tick = t;
            }

            let mut crowd_events: Vec<(AgentId, NodeIdx, TraceEvent)> = Vec::new();
            traced.tick_traced(DT, &mut |agent, node, event| {
                crowd_events.push((agent, node, event))
            });
            plain.tick(DT);

            frame = if t == 0 {
                Frame::first(DT)
            } else {
                frame.next(DT)
            };
            let mut solo_events = Vec::new();
            let mut solo_requests: Vec<Request> = Vec::new();
            for (i, world) in solo.iter_mut().enumerate() {
                let agent = AgentId(i as u32);
                interpreter.tick_traced(
                    &program,
                    &frame,
                    agent,
                    &mut actors.get_mut(i),
                    world,
                    &mut solo_requests,
                    &mut |node, event| solo_events.push((agent, node, event)),
                );
            }

            // The round's requests for the tree's gates and global
            // cool-downs settled, then the events the tick sent delivered
            // in agent order, as a crowd does after a tick; and each broken
            // subset rule reported once per agent and decider.
            program.settle(&frame, &solo_requests, &mut actors);
            reported.keep_first(&mut solo_requests);
            for r in &solo_requests {
                if let RequestKind::Event { event, to } = r.kind
                    && to.index() < AGENTS
                {
                    let (actor, world) = (&mut actors.get_mut(to.index()), &mut solo[to.index()]);
                    interpreter.send_event(&program, &frame, to, actor, world, event);
                }
            }

            let context = format!("seed {seed}, tree {spec:?}, tick {t}");
            assert_eq!(crowd_events, solo_events, "{context}: events");
            assert_eq!(traced.requests(), &solo_requests[..], "{context}: requests");
            assert_eq!(
                traced.requests(),
                plain.requests(),
                "{context}: plain requests"
            );
            for (i, world) in solo.iter_mut().enumerate() {
                let agent = AgentId(i as u32);
                let s = state(traced.actor(agent));
                assert_eq!(s, state(actors.get(i)), "{context}: agent {i}");
                assert_eq!(s, state(plain.actor(agent)), "{context}: plain agent {i}");
                let calls = traced.blackboards_mut()[i].take_log();
                assert_eq!(calls, world.take_log(), "{context}: calls of {i}");
                assert_eq!(
                    calls,
                    plain.blackboards_mut()[i].take_log(),
                    "{context}: plain calls of {i}"
                );
            }
            assert_eq!(traced.frame(), &frame);

            // The same game-system reports to all three.
            answer_launches(&solo_requests, t as usize, &mut answers);
            for c in &answers {
                traced.complete(*c);
                plain.complete(*c);
                let _ = actors.get_mut(c.agent.index()).complete(c.node, c.outcome);
            }
        }
    }
}
