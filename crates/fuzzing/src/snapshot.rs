//! Target `snapshot`: saved crowds.
//!
//! The input is the bytes of a crowd snapshot (`Crowd::save`'s JSON) for a
//! small program with a gate, a deferred action and a persistent slot.
//! Loading must give a crowd or an error; a loaded crowd must tick, take
//! completions and save again, and its save must load back to the same
//! bytes.

use serde::{Deserialize, Serialize};
use treebeard_crowd::Crowd;
use treebeard_shape::tree::{act, cond, gate, priority, sequence};
use treebeard_vm::{Call, Completion, Leaves, Outcome, Program, RequestKind, Status};

/// The saved agents' blackboard.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Guard {
    /// Whether the guard saw an enemy.
    pub alert: bool,
    /// Rounds left.
    pub ammo: u32,
}

// Its fields by name, for recordings of its values (the recording target).
treebeard_vm::blackboard!(Guard { alert, ammo });

fn shoot(g: &mut Guard, call: &mut Call<'_>) -> Status {
    if let Some(shots) = call.persistent() {
        *shots = shots.wrapping_add(1);
    }
    g.ammo = g.ammo.saturating_sub(1);
    if g.ammo.is_multiple_of(3) {
        Status::Success
    } else {
        Status::Running
    }
}

/// The program every snapshot of this target runs.
pub fn program() -> Program<Guard> {
    let mut leaves = Leaves::<Guard>::new();
    leaves.condition("alert", |g, _| g.alert);
    leaves.action("Shoot", shoot).persistent();
    leaves.deferred("Patrol");
    leaves
        .compile(&priority([
            sequence([cond("alert"), gate(2, act("Shoot"))]),
            act("Patrol"),
        ]))
        .expect("the snapshot target's tree compiles")
}

/// Six guards, half of them alert.
pub fn guards() -> Vec<Guard> {
    (0..6)
        .map(|i| Guard {
            alert: i % 2 == 0,
            ammo: 10 + i,
        })
        .collect()
}

/// A crowd of this target's program, ticked a little: the seed snapshot.
pub fn sample() -> Vec<u8> {
    let mut crowd = Crowd::with_agents(program(), guards());
    for _ in 0..4 {
        crowd.tick(0.5);
    }
    crowd.save().expect("guards serialise")
}

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let Ok(mut crowd) = Crowd::load(program(), data) else {
        return;
    };
    for round in 0..3 {
        crowd.tick(0.25);
        let launches: Vec<_> = crowd
            .requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Launch)
            .copied()
            .collect();
        for r in launches {
            crowd.complete(Completion {
                agent: r.agent,
                node: r.node,
                outcome: if round % 2 == 0 {
                    Outcome::Success
                } else {
                    Outcome::Failure
                },
            });
        }
    }
    let saved = crowd.save().expect("guards serialise");
    let again = Crowd::load(program(), &saved).expect("a crowd's save loads");
    assert_eq!(
        again.save().expect("guards serialise"),
        saved,
        "save round-trips"
    );
}
