//! Snapshots of a whole crowd: a run restored at any tick goes on
//! bit-identically to the uninterrupted one (actors, blackboards, global
//! tree state, queued completions, requests), and damaged or mismatched
//! snapshots are errors, never panics.
//!
//! The tree mixes what a snapshot must carry: a gate and a global cool-down
//! (global tree state and tickets), a deferred action (launches, queued
//! completions), a `random` Spore group (each agent's random stream, in a
//! persistent slot) and a per-agent cool-down.

use serde::{Deserialize, Serialize};
use treebeard_crowd::{Crowd, Snapshot, fingerprint};
use treebeard_shape::Kind;
use treebeard_shape::tree::{
    Node, act, cond, decider, decider_of, gate, global_cooldown, group, leaf, priority, sequence,
    sync, team,
};
use treebeard_vm::{
    AgentId, Args, Call, Completion, Leaves, Outcome, Program, RequestKind, Status,
};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Trooper {
    dice: u64,
    grenades: u32,
    log: Vec<(u64, u8)>,
    energy: f64,
}

impl Trooper {
    fn roll(&mut self) -> u64 {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        self.dice
    }
}

fn has_grenade(t: &Trooper, _: &Args<'_>) -> bool {
    t.grenades > 0
}

fn throw(t: &mut Trooper, call: &mut Call<'_>) -> Status {
    t.log.push((call.frame().index, 1));
    if call.state() == 0 {
        *call.state_mut() = 1;
        return Status::Running;
    }
    t.grenades = t.grenades.saturating_sub(1);
    Status::Success
}

fn step(t: &mut Trooper, call: &mut Call<'_>) -> Status {
    t.log.push((call.frame().index, 2));
    t.energy += 0.1 * f64::from(call.frame().dt);
    match t.roll() % 3 {
        0 => Status::Success,
        1 => Status::Failure,
        _ => Status::Running,
    }
}

fn rest(t: &mut Trooper, _: &mut Call<'_>) -> Status {
    t.energy *= 0.5;
    Status::Success
}

fn leaves() -> Leaves<Trooper> {
    let mut leaves = Leaves::new();
    leaves.condition("has_grenade", has_grenade);
    leaves.action("throw", throw);
    leaves.action("step", step);
    leaves.action("rest", rest);
    leaves.deferred("move");
    leaves
}

fn tree() -> Node {
    priority([
        sequence([
            cond("has_grenade"),
            global_cooldown(2.0, gate(1, act("throw"))),
        ]),
        gate(3, leaf("move")),
        // Pairs that step until they meet, then one throws (a grenade it
        // may not have) and the other rests; a step that fails breaks the
        // pair.
        team(
            2,
            [
                sequence([act("step"), sync(1), act("throw")]),
                sequence([act("step"), sync(1), act("rest")]),
            ],
        ),
        decider_of(Kind::Cooldown, [act("rest")]).arg("seconds", 1.5),
        group("random", [decider(act("step")), decider(act("rest"))]),
    ])
}

fn program() -> Program<Trooper> {
    leaves().compile(&tree()).expect("the tree compiles")
}

fn crowd(n: u64) -> Crowd<Trooper> {
    Crowd::with_agents(program(), troopers(n))
}

/// `n` troopers, each with its own dice and some grenades.
fn troopers(n: u64) -> Vec<Trooper> {
    (0..n)
        .map(|i| Trooper {
            dice: (i + 7).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            grenades: (i % 3) as u32,
            ..Trooper::default()
        })
        .collect()
}

/// One frame of the game: the movement system completes every launch two
/// ticks after it saw it (failing every fifth), then the crowd ticks.
fn frame(crowd: &mut Crowd<Trooper>, launched: &mut Vec<(u64, AgentId, treebeard_shape::NodeIdx)>) {
    let now = crowd.frame().index;
    let mut i = 0;
    while i < launched.len() {
        let (at, agent, node) = launched[i];
        if at + 2 <= now {
            let outcome = if agent.0 % 5 == 0 {
                Outcome::Failure
            } else {
                Outcome::Success
            };
            crowd.complete(Completion {
                agent,
                node,
                outcome,
            });
            launched.remove(i);
        } else {
            i += 1;
        }
    }
    crowd.tick(0.5);
    for r in crowd.requests() {
        match r.kind {
            RequestKind::Launch => launched.push((crowd.frame().index, r.agent, r.node)),
            RequestKind::Cancel => launched.retain(|&(_, a, n)| (a, n) != (r.agent, r.node)),
            _ => {}
        }
    }
}

/// Asserts two snapshots are equal, naming the first part that differs
/// (a whole snapshot is too long to print).
fn same(a: &Snapshot<Trooper>, b: &Snapshot<Trooper>, when: &str) {
    assert_eq!(a.frame, b.frame, "{when}: frame");
    for (i, (x, y)) in a
        .actors
        .chunks(a.actor_words)
        .zip(b.actors.chunks(b.actor_words))
        .enumerate()
    {
        assert_eq!(x, y, "{when}: agent {i}'s actor");
    }
    for (i, (x, y)) in a.blackboards.iter().zip(&b.blackboards).enumerate() {
        assert_eq!(x, y, "{when}: agent {i}'s blackboard");
    }
    assert_eq!(a.globals, b.globals, "{when}: globals");
    assert_eq!(a.completions, b.completions, "{when}: completions");
    assert!(a.requests == b.requests, "{when}: requests");
    assert!(a == b, "{when}");
}

#[test]
fn a_restored_crowd_goes_on_bit_identically() {
    let ticks = 40;
    for cut in [0, 1, 5, 17, 33] {
        let mut original = crowd(300);
        let mut launched = Vec::new();
        for _ in 0..cut {
            frame(&mut original, &mut launched);
        }
        // Queue some completions before saving: the snapshot carries them.
        let now = original.frame().index + 2;
        for &(at, agent, node) in launched.iter().take(3) {
            if at + 2 <= now {
                original.complete(Completion {
                    agent,
                    node,
                    outcome: Outcome::Success,
                });
            }
        }
        let bytes = original.save().expect("saves");
        let mut restored = Crowd::load(program(), &bytes).expect("loads");
        same(
            &restored.snapshot(),
            &original.snapshot(),
            &format!("cut at {cut}"),
        );
        let mut launched_again = launched.clone();
        for t in cut..ticks {
            frame(&mut original, &mut launched);
            frame(&mut restored, &mut launched_again);
            assert_eq!(
                restored.requests(),
                original.requests(),
                "cut {cut}, tick {t}"
            );
            same(
                &restored.snapshot(),
                &original.snapshot(),
                &format!("cut {cut}, tick {t}"),
            );
        }
    }
    // The run exercised what the snapshot must carry.
    let mut c = crowd(300);
    let mut launched = Vec::new();
    let mut saw = (false, false, false, false);
    for _ in 0..20 {
        frame(&mut c, &mut launched);
        saw.0 |= c.requests().iter().any(|r| r.kind == RequestKind::Enter);
        saw.1 |= c.requests().iter().any(|r| r.kind == RequestKind::Launch);
        saw.2 |= c
            .requests()
            .iter()
            .any(|r| matches!(r.kind, RequestKind::Arrive { .. }));
        saw.3 |= c.program().globals().teams().count() > 3;
    }
    assert!(
        saw.0 && saw.1 && saw.2 && saw.3,
        "gates, deferred actions, syncs and teams ran: {saw:?}"
    );
    assert!(c.program().globals().words().iter().any(|&w| w != 0));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Saved and loaded at a random tick of a random crowd, it goes on as
    /// the uninterrupted one.
    #[test]
    fn snapshot_round_trips_at_random_ticks(agents in 1u64..120, cut in 0usize..30, more in 1usize..12) {
        let mut original = crowd(agents);
        let mut launched = Vec::new();
        for _ in 0..cut {
            frame(&mut original, &mut launched);
        }
        let mut restored = Crowd::load(program(), &original.save().expect("saves")).expect("loads");
        let mut launched_again = launched.clone();
        for _ in 0..more {
            frame(&mut original, &mut launched);
            frame(&mut restored, &mut launched_again);
        }
        proptest::prop_assert!(restored.snapshot() == original.snapshot());
        proptest::prop_assert_eq!(restored.requests(), original.requests());
    }
}

#[test]
fn a_snapshot_of_another_tree_or_format_is_refused() {
    let c = crowd(10);
    let snapshot = c.snapshot();
    let other = leaves().compile(&priority([act("rest")])).expect("tree");
    let e = Crowd::restore(other, snapshot.clone()).expect_err("another tree");
    assert!(e.to_string().contains("another tree"), "{e}");
    let mut old = snapshot.clone();
    old.format = 99;
    assert!(Crowd::restore(program(), old).is_err());
    assert_eq!(snapshot.shape, fingerprint(program().shape()));
}

#[test]
fn damaged_snapshots_are_errors_never_panics() {
    let mut c = crowd(40);
    let mut launched = Vec::new();
    for _ in 0..9 {
        frame(&mut c, &mut launched);
    }
    let good = c.snapshot();
    let damaged: Vec<(&str, Snapshot<Trooper>)> = vec![
        (
            "actor words",
            Snapshot {
                actors: good.actors[1..].to_vec(),
                ..good.clone()
            },
        ),
        (
            "layout",
            Snapshot {
                actor_words: good.actor_words + 1,
                ..good.clone()
            },
        ),
        (
            "globals",
            Snapshot {
                globals: vec![],
                ..good.clone()
            },
        ),
        (
            "gate count",
            Snapshot {
                globals: good.globals.iter().map(|w| w + 1).collect(),
                ..good.clone()
            },
        ),
        (
            "completion agent",
            Snapshot {
                completions: vec![(4000, 1, 1)],
                ..good.clone()
            },
        ),
        (
            "completion node",
            Snapshot {
                completions: vec![(1, 4000, 1)],
                ..good.clone()
            },
        ),
        (
            "outcome",
            Snapshot {
                completions: vec![(1, 1, 9)],
                ..good.clone()
            },
        ),
        (
            "request kind",
            Snapshot {
                requests: vec![(1, 1, 0, 200, 0, 0)],
                ..good.clone()
            },
        ),
        (
            "frame",
            Snapshot {
                frame: (1, f64::NAN, 0.5),
                ..good.clone()
            },
        ),
    ];
    // The team table, damaged one way at a time.
    assert!(!good.teams.is_empty(), "the snapshot holds teams");
    type Damage = fn(&mut Snapshot<Trooper>);
    let team_damage: [(&str, Damage); 9] = [
        ("team dropped", |s| {
            s.teams.pop();
        }),
        ("team duplicated", |s| {
            let t = s.teams[0].clone();
            s.teams.push(t);
        }),
        ("team index", |s| s.teams[0].0 = 1 << 26),
        ("team node", |s| s.teams[0].1 = 0),
        ("team node past the shape", |s| s.teams[0].1 = 4000),
        ("team members", |s| s.teams[0].3.swap(0, 1)),
        ("team size", |s| s.teams[0].3.push(0)),
        ("team alive", |s| s.teams[0].2 = 0),
        ("team points", |s| s.teams[0].4.clear()),
    ];
    for (what, damage) in team_damage {
        let mut s = good.clone();
        damage(&mut s);
        let e = Crowd::restore(program(), s).expect_err(what);
        assert!(!e.to_string().is_empty());
    }
    // A member agent's ticket no longer for its seat.
    let mut s = good.clone();
    s.teams[0].3[0] = s.teams[0].3[1];
    assert!(Crowd::restore(program(), s).is_err(), "a member twice");
    for (what, s) in damaged {
        assert!(Crowd::restore(program(), s).is_err(), "{what} accepted");
    }
    // An actor whose header claims more states than its layout holds.
    let mut s = good.clone();
    s.actors[0] = u32::MAX;
    let e = Crowd::restore(program(), s).expect_err("header");
    assert!(e.to_string().contains("agent 0"), "{e}");

    // Any bytes: an error or a crowd that ticks, never a panic.
    let bytes = c.save().expect("saves");
    assert!(Crowd::<Trooper>::load(program(), &bytes[..bytes.len() / 2]).is_err());
    let mut dice = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..300 {
        let mut b = bytes.clone();
        for _ in 0..3 {
            dice ^= dice << 13;
            dice ^= dice >> 7;
            dice ^= dice << 17;
            let i = (dice % b.len() as u64) as usize;
            b[i] = b"0123456789,[]{}\"-e."[(dice >> 32) as usize % 19];
        }
        if let Ok(mut restored) = Crowd::<Trooper>::load(program(), &b) {
            for _ in 0..3 {
                frame(&mut restored, &mut Vec::new());
            }
        }
    }
}

#[test]
fn vacancies_and_tick_rates_round_trip() {
    let mut original = crowd(60);
    let mut launched = Vec::new();
    for t in 0..12 {
        frame(&mut original, &mut launched);
        if t == 3 {
            for id in [5, 17, 59] {
                let mut requests = Vec::new();
                original.remove(AgentId(id), &mut requests);
                launched.retain(|&(_, a, _)| a != AgentId(id));
            }
            original.set_tick_rate(AgentId(2), 3).unwrap();
            original.set_tick_rate(AgentId(8), 2).unwrap();
        }
    }
    assert!(!original.is_alive(AgentId(17)));
    let mut restored = Crowd::load(program(), &original.save().expect("saves")).expect("loads");
    assert_eq!(restored.tick_rate(AgentId(2)).unwrap(), 3);
    assert!(!restored.is_alive(AgentId(17)));
    let mut launched_again = launched.clone();
    for t in 0..15 {
        frame(&mut original, &mut launched);
        frame(&mut restored, &mut launched_again);
        same(
            &restored.snapshot(),
            &original.snapshot(),
            &format!("tick {t}"),
        );
    }
    // A gate slot held by a removed agent came back at once.
    let program = original.program();
    let mut held = 0;
    for id in original.agents() {
        held += original
            .actor(id)
            .actions()
            .filter(|&(n, s)| n.index() == 6 && s == treebeard_vm::ActionState::Running(1))
            .count();
    }
    assert_eq!(
        program
            .globals()
            .admitted(program.shape(), treebeard_shape::NodeIdx::new(6)),
        Some(held as u32)
    );
}

#[test]
fn a_non_finite_float_is_refused_at_save_naming_the_agent_and_field() {
    let mut c = crowd(5);
    let mut launched = Vec::new();
    frame(&mut c, &mut launched);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        c.blackboards_mut()[3].energy = bad;
        let e = c.save().expect_err("a save that would not load");
        let e = e.to_string();
        assert!(e.contains("agent 3's blackboard field `energy`"), "{e}");
        assert!(e.contains("NaN or infinite float"), "{e}");
    }
    // A finite value saves, and what saves loads.
    c.blackboards_mut()[3].energy = f64::MAX;
    let bytes = c.save().expect("saves");
    let restored = Crowd::<Trooper>::load(program(), &bytes).expect("loads");
    assert_eq!(restored.blackboards()[3].energy, f64::MAX);
}

#[test]
#[should_panic(expected = "a tick's dt must be a finite number of seconds, 0 or more, not NaN")]
fn a_nan_dt_is_refused() {
    crowd(2).tick(f32::NAN);
}

#[test]
#[should_panic(expected = "a tick's dt must be a finite number of seconds, 0 or more, not -0.5")]
fn a_negative_dt_is_refused() {
    crowd(2).tick(-0.5);
}

#[test]
fn a_request_with_an_action_the_shape_lacks_is_refused() {
    let mut c = crowd(40);
    let mut launched = Vec::new();
    for _ in 0..4 {
        frame(&mut c, &mut launched);
    }
    let good = c.snapshot();
    let at = good
        .requests
        .iter()
        .position(|r| r.3 == 1)
        .expect("a launch request");
    let mut s = good.clone();
    s.requests[at].2 = u16::MAX;
    let e = Crowd::restore(program(), s).expect_err("an action the shape lacks");
    assert!(
        e.to_string()
            .contains(&format!("request {at} names action 65535; item")),
        "{e}"
    );
    // A launch of an item that is no deferred action.
    let mut s = good.clone();
    s.requests[at].1 = 0;
    let e = Crowd::restore(program(), s).expect_err("not a deferred action");
    assert!(e.to_string().contains("is no deferred action"), "{e}");
    // A completion for an item that is no deferred action.
    let mut s = good.clone();
    s.completions.insert(0, (0, 0, 1));
    let e = Crowd::restore(program(), s).expect_err("not a deferred action");
    assert!(
        e.to_string().contains("queued completion 0 is for item 0"),
        "{e}"
    );
    // A negative dt in the frame.
    let mut s = good.clone();
    s.frame.2 = -1.0;
    assert!(Crowd::restore(program(), s).is_err());
    assert!(Crowd::restore(program(), good).is_ok());
}

/// Issue 23 (defect 5): a crowd's first tick is frame 0, as the scenario
/// runner's; a format 2 snapshot, which numbered it 1, reads as the same
/// crowd.
#[test]
fn the_first_frame_is_0_and_older_snapshots_are_renumbered() {
    let mut c = crowd(12);
    assert!(!c.has_ticked());
    assert_eq!(c.frame(), &treebeard_vm::Frame::default());
    let unticked = c.snapshot();
    assert!(!unticked.ticked);
    let mut launched = Vec::new();
    frame(&mut c, &mut launched);
    assert_eq!((c.frame().index, c.frame().time), (0, 0.0));
    assert!(c.has_ticked());
    c.set_tick_rate(AgentId(4), 3).unwrap();
    for _ in 0..4 {
        frame(&mut c, &mut launched);
    }
    assert_eq!(c.frame().index, 4);
    let now = c.snapshot();

    // The same crowd as format 2 wrote it: every frame index one higher.
    let mut old = now.clone();
    old.format = 2;
    old.ticked = false;
    old.subset_rule_reports.clear();
    old.frame.0 += 1;
    for lane in old.lanes.iter_mut().filter(|l| l.0 != u64::MAX) {
        lane.0 += 1;
    }
    let mut restored = Crowd::restore(program(), old).expect("a format 2 snapshot");
    same(&restored.snapshot(), &now, "restored from format 2");
    let mut launched_again = launched.clone();
    for t in 0..6 {
        frame(&mut c, &mut launched);
        frame(&mut restored, &mut launched_again);
        same(&restored.snapshot(), &c.snapshot(), &format!("tick {t}"));
    }

    // An unticked crowd restores unticked, in either format; a frame that
    // says otherwise is refused.
    let mut again = Crowd::restore(program(), unticked.clone()).expect("unticked");
    assert!(!again.has_ticked());
    frame(&mut again, &mut Vec::new());
    assert_eq!(again.frame().index, 0);
    let mut old = unticked.clone();
    old.format = 2;
    for lane in &mut old.lanes {
        lane.0 += 1;
    }
    assert!(
        !Crowd::restore(program(), old)
            .expect("format 2")
            .has_ticked()
    );
    let mut bad = unticked;
    bad.frame = (3, 1.5, 0.5);
    let e = Crowd::restore(program(), bad).expect_err("an unticked crowd with a frame");
    assert!(e.to_string().contains("had not ticked"), "{e}");
}

/// A snapshot written before resume points were implied by running leaves
/// (formats 1 to 3) holds actors with room for a resume point per
/// sequence, and the resume points themselves: it restores into today's
/// smaller actors, and the crowd goes on as the one it was taken of.
#[test]
fn a_format_3_snapshot_restores_without_the_resume_points_now_implied() {
    // 0 priority, 1 sequence, 2 has_grenade, 3 throw, 4 sequence, 5 rest,
    // 6 step: plain kinds only.
    let tree = priority([
        sequence([cond("has_grenade"), act("throw")]),
        sequence([act("rest"), act("step")]),
    ]);
    let program = || leaves().compile(&tree).expect("the tree compiles");
    let mut c = Crowd::with_agents(program(), troopers(40));
    let mut launched = Vec::new();
    for _ in 0..5 {
        frame(&mut c, &mut launched);
    }
    let now = c.snapshot();
    assert_eq!(now.actor_words, 3, "a header and one action state");

    // The same actors as format 3 laid them out: a decider slot before the
    // action state, holding the sequence's resume point past its first
    // child (a decider state's first word is its item shifted by 8, tag 0
    // for a resume point; the second is the child).
    let mut old = now.clone();
    old.format = 3;
    old.actor_words = now.actor_words + 2;
    old.actors.clear();
    let mut resumed = 0;
    for block in now.actors.chunks(now.actor_words) {
        let (deciders, actions) = (block[0] & 0xFFFF, block[0] >> 16);
        assert_eq!(deciders, 0);
        let running = (actions > 0).then(|| block[1] >> 8);
        let resume = match running {
            Some(3) => Some((1, 3)),
            Some(6) => Some((4, 6)),
            _ => None,
        };
        resumed += usize::from(resume.is_some());
        let (node, child) = resume.unwrap_or((0, 0));
        old.actors.push(u32::from(resume.is_some()) | actions << 16);
        old.actors.extend([node << 8, child]);
        old.actors.extend(&block[1..]);
    }
    assert!(
        resumed > 0,
        "some agents run a leaf past a sequence's first child"
    );
    let mut restored = Crowd::restore(program(), old.clone()).expect("a format 3 snapshot");
    same(&restored.snapshot(), &now, "restored from format 3");
    let mut launched_again = launched.clone();
    for t in 0..6 {
        frame(&mut c, &mut launched);
        frame(&mut restored, &mut launched_again);
        same(&restored.snapshot(), &c.snapshot(), &format!("tick {t}"));
    }

    // A size that is no such layout's is refused.
    let mut odd = old;
    odd.actor_words += 1;
    odd.actors.extend(std::iter::repeat_n(0, 40));
    let e = Crowd::restore(program(), odd).expect_err("an odd size");
    assert!(e.to_string().contains("actor words"), "{e}");
}
