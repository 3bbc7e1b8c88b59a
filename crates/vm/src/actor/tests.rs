//! The actor block's unit tests: layouts, stores, reads and completions.

use super::*;
use treebeard_shape::CapacitySpec;

fn layout(d: u32, a: u32, p: u32) -> ActorLayout {
    ActorLayout::for_spec(&CapacitySpec {
        guard_depth: 1,
        decider_states: d,
        action_states: a,
        deferred_states: a,
        persistent_states: p,
        ..CapacitySpec::default()
    })
}

#[test]
fn layout_counts_header_entries_and_slots() {
    assert_eq!(layout(2, 1, 0).bytes(), 4 + 16 + 8);
    assert_eq!(layout(0, 0, 3).words(), 4);
}

#[test]
fn entries_sort_by_item_then_tag() {
    let a = StateEntry::new(3, 5, 0);
    let b = StateEntry::new(4, 0, 0);
    assert!(a.key() < b.key());
    assert_eq!(a.node(), 3);
    assert_eq!(a.tag(), 5);
}

#[test]
fn store_then_read_back() {
    let mut actor = Actor::new(layout(2, 2, 2));
    let mut m = actor.as_mut();
    let region = [
        StateEntry::new(1, decider_tag::RESUME, 3),
        StateEntry::new(0, 0, 0),
        StateEntry::new(4, action_tag::RUNNING, 7),
        StateEntry::new(9, action_tag::LAUNCHED, 0),
    ];
    m.store(&region, 1, 2, &[(1, 42)]);
    let r = actor.as_ref();
    assert_eq!(
        r.deciders().collect::<Vec<_>>(),
        vec![DeciderState::Resume {
            node: NodeIdx::new(1),
            child: NodeIdx::new(3)
        }]
    );
    assert_eq!(r.action(NodeIdx::new(4)), Some(ActionState::Running(7)));
    assert_eq!(r.action(NodeIdx::new(9)), Some(ActionState::Launched));
    assert_eq!(r.action(NodeIdx::new(5)), None);
    assert_eq!(r.persistent(), &[0, 42]);
    assert!(!r.is_idle());
}

#[test]
fn completions_follow_the_deferred_life_cycle() {
    let mut actor = Actor::new(layout(0, 2, 0));
    let mut m = actor.as_mut();
    let region = [
        StateEntry::new(2, action_tag::RUNNING, 0),
        StateEntry::new(5, action_tag::LAUNCHED, 0),
    ];
    m.store(&region, 0, 2, &[]);
    let n5 = NodeIdx::new(5);
    assert_eq!(
        m.complete(NodeIdx::new(2), Outcome::Success),
        Err(Stale::NotRunning)
    );
    assert_eq!(
        m.complete(NodeIdx::new(7), Outcome::Success),
        Err(Stale::NotRunning)
    );
    assert_eq!(m.complete(n5, Outcome::Running), Ok(()));
    assert_eq!(m.as_ref().action(n5), Some(ActionState::Acknowledged));
    assert_eq!(m.complete(n5, Outcome::Failure), Ok(()));
    assert_eq!(m.as_ref().action(n5), Some(ActionState::Failed));
    assert_eq!(m.complete(n5, Outcome::Success), Err(Stale::AlreadyDone));
}

#[test]
fn stimuli_follow_the_timestamps_two_words_each() {
    let spec = CapacitySpec {
        persistent_states: 1,
        variables: 33,
        timestamps: 2,
        stimuli: 3,
        ..CapacitySpec::default()
    };
    let l = ActorLayout::for_spec(&spec);
    // Header, a slot, 2 words of variables, 2 timestamps, 3 x 2 words.
    assert_eq!(l.words(), 1 + 1 + 2 + 2 + 6);
    assert_eq!(l.stimuli(), 3);
    assert_eq!(l.stimuli_in_memory(), 4);
    assert!(l.covers(&spec));
    assert!(!layout(0, 0, 1).covers(&spec));
    let more = CapacitySpec { stimuli: 4, ..spec };
    assert!(!l.covers(&more));
}

#[test]
fn a_stimulus_is_active_until_its_expiry() {
    let spec = CapacitySpec {
        timestamps: 1,
        stimuli: 2,
        ..CapacitySpec::default()
    };
    let mut actor = Actor::new(ActorLayout::for_spec(&spec));
    // A zeroed actor has none, whatever the time.
    for now in [0.0, 1.0, -1.0] {
        assert_eq!(actor.as_ref().stimuli_flags(now), 0);
        assert_eq!(actor.as_ref().stimulus(0, now), None);
    }
    let mut m = actor.as_mut();
    m.post_stimulus(1, 42, 1.0, 2.0);
    let r = m.as_ref();
    assert_eq!(r.stimulus(1, 1.0), Some(42));
    assert_eq!(r.stimulus(1, 2.75), Some(42));
    assert_eq!(r.stimulus(1, 3.0), None, "expired at 1 + 2");
    assert_eq!(r.stimulus(0, 1.0), None);
    assert_eq!(r.stimulus(2, 1.0), None, "past the layout");
    assert_eq!(r.stimuli_flags(1.0), 0b10);
    assert_eq!(r.stimuli_flags(3.0), 0);
    // The timestamps are untouched.
    assert_eq!(r.timestamp(0), None);
    // Posting again restarts it and replaces the datum.
    m.post_stimulus(1, 7, 2.5, 2.0);
    m.post_stimulus(0, 0, 2.5, 0.25);
    let r = m.as_ref();
    assert_eq!(r.stimulus(1, 4.0), Some(7));
    assert_eq!(r.stimulus(0, 2.5), Some(0));
    assert_eq!(r.stimuli_flags(2.5), 0b11);
    assert_eq!(r.stimuli_flags(2.75), 0b10);
    m.clear_stimulus(1);
    assert_eq!(m.as_ref().stimulus(1, 2.5), None);
    assert_eq!(m.as_ref().stimuli_flags(2.5), 0b01);
    m.clear();
    assert_eq!(actor.as_ref().stimuli_flags(2.5), 0);
}

#[test]
#[should_panic(expected = "no stimulus 2")]
fn posting_past_the_layout_s_stimuli_panics() {
    let spec = CapacitySpec {
        stimuli: 2,
        ..CapacitySpec::default()
    };
    Actor::new(ActorLayout::for_spec(&spec))
        .as_mut()
        .post_stimulus(2, 0, 0.0, 1.0);
}

#[test]
fn all_32_stimuli_have_a_flag() {
    let spec = CapacitySpec {
        stimuli: 32,
        ..CapacitySpec::default()
    };
    let mut actor = Actor::new(ActorLayout::for_spec(&spec));
    for i in 0..32 {
        actor.as_mut().post_stimulus(i, i as u32, 0.0, 1.0);
    }
    assert_eq!(actor.as_ref().stimuli_flags(0.5), u32::MAX);
    assert_eq!(actor.as_ref().stimulus(31, 0.5), Some(31));
}

#[test]
fn arena_swap_remove_moves_last_block() {
    let mut actors = Actors::new(layout(0, 0, 1), 3);
    for i in 0..3 {
        actors.get_mut(i).set_persistent(0, i as u32 + 10);
    }
    actors.swap_remove(0);
    assert_eq!(actors.len(), 2);
    assert_eq!(actors.get(0).persistent(), &[12]);
    assert_eq!(actors.get(1).persistent(), &[11]);
    actors.push();
    assert_eq!(actors.get(2).persistent(), &[0]);
}
