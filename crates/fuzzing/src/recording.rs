//! Target `recording`: recording files, which `treebeard view` reads.
//!
//! The input is a recording file's bytes (`Recorder::write_to`). Reading
//! must give a recording or an error that names its byte; a recording must
//! answer everything a viewer asks of it (each tick's agents, their nodes'
//! states, their values and their notes) within its shape, and write back
//! to the bytes it was read from.

use treebeard_crowd::Crowd;
use treebeard_shape::NodeIdx;
use treebeard_vm::{AgentId, Recorder, Recording};

/// A few ticks of the snapshot target's crowd, recorded with a note and
/// the guards' values: the seed recording.
pub fn sample() -> Vec<u8> {
    let guards = crate::snapshot::guards();
    let mut crowd = Crowd::with_agents(crate::snapshot::program(), guards);
    let mut recorder = Recorder::new(crowd.program().shape(), 1 << 20);
    for tick in 0..5 {
        crowd.tick_observed(0.5, |_, _| {}, &mut recorder);
        crowd.record_values(&mut recorder);
        let note = format!("tick {tick}: watching the door");
        recorder.annotate(AgentId(1), Some(NodeIdx::ROOT), &note);
    }
    recorder.name(AgentId(1), "the door guard");
    let mut bytes = Vec::new();
    recorder
        .write_to(&mut bytes)
        .expect("a recording writes to a vector");
    bytes
}

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let Ok(recording) = Recording::read_from(data) else {
        return;
    };
    let nodes = recording.shape().len();
    for tick in recording.ticks() {
        for agent in tick.agents() {
            assert!(tick.has(agent), "a tick has the agents it lists");
            for (node, state) in tick.states(agent) {
                assert!(node.index() < nodes, "states are of the shape's nodes");
                assert_eq!(tick.state(agent, node), state);
            }
            // An agent's values read as their columns' types, or are
            // absent (a timestamp never set, a stimulus not active).
            for (c, column) in recording.columns().iter().enumerate() {
                let value = tick.value(agent, c);
                assert!(value.is_none_or(|v| v.ty() == column.ty));
                assert!(tick.has_values(agent) || value.is_none());
            }
        }
        // A note may be about an agent the tick did not record (one the
        // recorder did not watch), but only about a node of the shape.
        for note in tick.notes() {
            assert!(note.node.is_none_or(|n| n.index() < nodes));
        }
    }
    // Names are of agents in ascending order, each found by its agent.
    let names: Vec<_> = recording.names().collect();
    assert!(names.windows(2).all(|w| w[0].0 < w[1].0));
    for (agent, name) in names {
        assert_eq!(recording.name(agent), Some(name));
    }
    assert_eq!(
        recording.to_bytes(),
        data,
        "a recording writes back as read"
    );
}
