//! Global tree state in a crowd: `Gate` and `GlobalCooldown` nodes (seed
//! 001). A gate never admits more than its `max`, admission follows agent
//! order, slots come back on every way out of the branch, a global
//! cool-down holds every agent off, and the crowd's results are identical at
//! any thread count and chunking.
//!
//! The squad tree of the tests (item indices in pre-order):
//!
//! ```text
//! 0 PrioritySelector
//! 1   Sequence
//! 2     Condition has_grenade
//! 3     GlobalCooldown(3 s)
//! 4       Gate(max 1)
//! 5         Action throw        (runs 2 ticks, then succeeds)
//! 6   Gate(max 3)
//! 7     Action shoot            (runs a few ticks from the agent's dice)
//! 8   Action charge             (succeeds at once)
//! ```

mod common;

use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_shape::NodeIdx;
use treebeard_shape::tree::{
    Node, act, cond, gate, global_cooldown, priority, reactive_sequence, sequence,
};
use treebeard_vm::{
    ActionState, AgentId, Args, Call, Leaves, Program, Request, RequestKind, Signal, Status,
};

const COOLDOWN: NodeIdx = NodeIdx::new(3);
const GRENADE_GATE: NodeIdx = NodeIdx::new(4);
const THROW: NodeIdx = NodeIdx::new(5);
const SHOOT_GATE: NodeIdx = NodeIdx::new(6);

/// What an agent did in the last tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Doing {
    #[default]
    Nothing,
    Throwing,
    Shooting,
    Charging,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Soldier {
    dice: u64,
    grenades: u32,
    doing: Doing,
    /// Frame times at which this soldier's throws finished.
    thrown_at: Vec<f64>,
    shots: u32,
    charges: u32,
    /// Cancel calls its actions got.
    cancelled: u32,
    /// Whether its shooting ends at random (else after three ticks).
    jitter: bool,
    /// Set by the game: a reason to stop what it does.
    alarmed: bool,
}

impl Soldier {
    fn new(seed: u64) -> Soldier {
        Soldier {
            dice: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            grenades: 2,
            ..Soldier::default()
        }
    }

    fn roll(&mut self, sides: u64) -> u64 {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        self.dice % sides
    }
}

fn has_grenade(s: &Soldier, _: &Args<'_>) -> bool {
    s.grenades > 0
}

fn throw(s: &mut Soldier, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        s.cancelled += 1;
        return Status::Failure;
    }
    s.doing = Doing::Throwing;
    if call.state() < 1 {
        *call.state_mut() += 1;
        return Status::Running;
    }
    s.grenades -= 1;
    s.thrown_at.push(call.frame().time);
    Status::Success
}

fn shoot(s: &mut Soldier, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        s.cancelled += 1;
        return Status::Failure;
    }
    s.doing = Doing::Shooting;
    s.shots += 1;
    if s.jitter {
        return match s.roll(4) {
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        };
    }
    if call.state() < 2 {
        *call.state_mut() += 1;
        return Status::Running;
    }
    Status::Success
}

fn charge(s: &mut Soldier, _: &mut Call<'_>) -> Status {
    s.doing = Doing::Charging;
    s.charges += 1;
    Status::Success
}

fn leaves() -> Leaves<Soldier> {
    let mut leaves = Leaves::new();
    leaves.condition("has_grenade", has_grenade);
    leaves.action("throw", throw);
    leaves.action("shoot", shoot);
    leaves.action("charge", charge);
    leaves
}

fn squad_tree() -> Node {
    priority([
        sequence([
            cond("has_grenade"),
            global_cooldown(3.0, gate(1, act("throw"))),
        ]),
        gate(3, act("shoot")),
        act("charge"),
    ])
}

fn squad(n: usize) -> Crowd<Soldier> {
    let program = leaves().compile(&squad_tree()).expect("squad tree");
    Crowd::with_agents(program, (0..n as u64).map(Soldier::new).collect())
}

/// The agents holding an admitted ticket at the gate `node`.
fn holders(crowd: &Crowd<Soldier>, node: NodeIdx) -> Vec<u32> {
    crowd
        .agents()
        .filter(|&id| crowd.actor(id).action(node) == Some(ActionState::Running(1)))
        .map(|id| id.0)
        .collect()
}

fn tick(crowd: &mut Crowd<Soldier>) {
    crowd.tick_with(1.0, |_, s| s.doing = Doing::Nothing);
}

fn doing(crowd: &Crowd<Soldier>, what: Doing) -> Vec<u32> {
    (0..crowd.len() as u32)
        .filter(|&i| crowd.blackboards()[i as usize].doing == what)
        .collect()
}

#[test]
fn admission_takes_a_tick_and_follows_agent_order() {
    let mut crowd = squad(6);
    // Tick 1: everybody finds both gates open, asks at each (a gate that
    // asks fails in that tick) and charges meanwhile.
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Charging), [0, 1, 2, 3, 4, 5]);
    let enters: Vec<(u32, NodeIdx)> = crowd
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::Enter)
        .map(|r| (r.agent.0, r.node))
        .collect();
    let asked: Vec<(u32, NodeIdx)> = (0..6)
        .flat_map(|a| [(a, GRENADE_GATE), (a, SHOOT_GATE)])
        .collect();
    assert_eq!(enters, asked);
    // Settled in agent order: agent 0 may take the grenade, agents 0 to 2
    // may shoot; the others were refused.
    assert_eq!(holders(&crowd, GRENADE_GATE), [0]);
    assert_eq!(holders(&crowd, SHOOT_GATE), [0, 1, 2]);
    let shape = crowd.program().shape().clone();
    assert_eq!(
        crowd.program().globals().admitted(&shape, GRENADE_GATE),
        Some(1)
    );
    assert_eq!(
        crowd.program().globals().admitted(&shape, SHOOT_GATE),
        Some(3)
    );
    for i in 3..6 {
        // Refused (state 2), asking since frame 0, the first tick's (above
        // the state bits).
        assert_eq!(
            crowd.actor(AgentId(i)).action(SHOOT_GATE),
            Some(ActionState::Running(2)),
            "agent {i} refused"
        );
    }
    // Tick 2: agent 0 throws, so its shooting slot, unused, comes back;
    // agents 1 and 2 shoot; the others charge.
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Throwing), [0]);
    assert_eq!(doing(&crowd, Doing::Shooting), [1, 2]);
    assert_eq!(doing(&crowd, Doing::Charging), [3, 4, 5]);
    assert!(crowd.requests().contains(&Request {
        agent: AgentId(0),
        node: SHOOT_GATE,
        action: treebeard_shape::ActionId(0),
        kind: RequestKind::Leave,
    }));
    assert!(!holders(&crowd, SHOOT_GATE).contains(&0));
}

#[test]
fn a_full_gate_fails_at_once_and_a_closed_cooldown_holds_everyone_off() {
    let mut crowd = squad(5);
    for _ in 0..3 {
        tick(&mut crowd);
    }
    // Agent 0 threw at the frame of tick 3 (time 2.0): the cool-down holds
    // everyone off until time 5.0.
    assert_eq!(crowd.blackboards()[0].thrown_at, [2.0]);
    let shape = crowd.program().shape().clone();
    assert_eq!(
        crowd.program().globals().ready_at(&shape, COOLDOWN),
        Some(5.0)
    );
    // The gate's slot came back with the throw's success.
    assert!(holders(&crowd, GRENADE_GATE).is_empty());
    for _ in 0..2 {
        let shape = crowd.program().shape().clone();
        let full = crowd.program().globals().admitted(&shape, SHOOT_GATE) == Some(3);
        tick(&mut crowd);
        // Nobody asks for the grenade while it cools down.
        assert!(doing(&crowd, Doing::Throwing).is_empty());
        assert!(
            !crowd
                .requests()
                .iter()
                .any(|r| r.kind == RequestKind::Enter && r.node == GRENADE_GATE)
        );
        // A shooting gate full when the tick starts fails at once: nobody
        // asks there.
        let asked = crowd
            .requests()
            .iter()
            .any(|r| r.kind == RequestKind::Enter && r.node == SHOOT_GATE);
        assert!(!(full && asked));
        assert!(holders(&crowd, SHOOT_GATE).len() <= 3);
    }
    // From time 5.0 a grenade flies again.
    let mut ticks = 0;
    let throws = |crowd: &Crowd<Soldier>| -> usize {
        crowd.blackboards().iter().map(|s| s.thrown_at.len()).sum()
    };
    while throws(&crowd) < 2 {
        tick(&mut crowd);
        ticks += 1;
        assert!(ticks < 10, "no second throw");
    }
    let mut throws: Vec<f64> = crowd
        .blackboards()
        .iter()
        .flat_map(|s| s.thrown_at.iter().copied())
        .collect();
    throws.sort_by(f64::total_cmp);
    assert_eq!(throws.len(), 2);
    assert!(throws[1] - throws[0] >= 3.0, "{throws:?}");
}

#[test]
fn a_gate_never_admits_more_than_its_max_and_its_count_matches_the_tickets() {
    let mut crowd = squad(40);
    for s in crowd.blackboards_mut() {
        s.jitter = true;
    }
    let grenade_max = 1;
    let shoot_max = 3;
    for t in 0..200 {
        tick(&mut crowd);
        let program = crowd.program();
        let shape = program.shape();
        for (gate, max) in [(GRENADE_GATE, grenade_max), (SHOOT_GATE, shoot_max)] {
            let held = holders(&crowd, gate);
            assert!(held.len() <= max, "tick {t}: {held:?} in {gate}");
            assert_eq!(
                program.globals().admitted(shape, gate),
                Some(held.len() as u32),
                "tick {t}: the count of {gate} and the actors' tickets"
            );
        }
        assert!(doing(&crowd, Doing::Throwing).len() <= 1);
        assert!(doing(&crowd, Doing::Shooting).len() <= 3);
    }
    // Every agent shot at some point: slots circulate.
    assert!(crowd.blackboards().iter().filter(|s| s.shots > 0).count() > 10);
}

#[test]
fn a_throw_cancelled_by_a_higher_priority_gives_its_slot_back() {
    // The grenade sits below a reactive guard: when the guard fails the
    // running throw is cancelled and the gate's slot must come back.
    fn calm(s: &Soldier, _: &Args<'_>) -> bool {
        !s.alarmed
    }
    let mut leaves = leaves();
    leaves.condition("calm", calm);
    let tree = priority([
        reactive_sequence([cond("calm"), gate(1, act("throw"))]),
        act("charge"),
    ]);
    let program = leaves.compile(&tree).expect("tree");
    let mut crowd = Crowd::with_agents(program, vec![Soldier::new(1), Soldier::new(2)]);
    let gate_node = NodeIdx::new(3);
    tick(&mut crowd);
    tick(&mut crowd);
    assert_eq!(holders(&crowd, gate_node), [0]);
    // The game makes agent 0 lose its calm: the throw is cancelled.
    crowd.blackboards_mut()[0].alarmed = true;
    tick(&mut crowd);
    assert_eq!(crowd.blackboards()[0].cancelled, 1);
    assert!(holders(&crowd, gate_node).is_empty());
    let shape = crowd.program().shape().clone();
    assert_eq!(
        crowd.program().globals().admitted(&shape, gate_node),
        Some(0)
    );
    // Agent 1, refused in tick 1 and charging since, asks again (the gate
    // is open when this tick starts) and gets in.
    tick(&mut crowd);
    tick(&mut crowd);
    assert_eq!(holders(&crowd, gate_node), [1]);
}

/// Every agent's stored states and the crowd's global words.
type State = (
    Vec<Soldier>,
    Vec<Vec<(u32, ActionState)>>,
    Vec<(NodeIdx, u64)>,
);

fn state(crowd: &Crowd<Soldier>) -> State {
    (
        crowd.blackboards().to_vec(),
        common::action_states(crowd),
        crowd.program().globals().iter().collect(),
    )
}

fn run(threads: usize, plan: PlanConfig, ticks: usize) -> (State, Vec<Vec<Request>>) {
    common::on_threads(threads, || {
        let mut crowd = squad(3000);
        for s in crowd.blackboards_mut() {
            s.jitter = true;
        }
        crowd.set_plan_config(plan);
        let mut requests = Vec::new();
        for _ in 0..ticks {
            tick(&mut crowd);
            requests.push(crowd.requests().to_vec());
        }
        (state(&crowd), requests)
    })
}

#[test]
fn gates_and_cooldowns_are_identical_at_any_thread_count_and_chunking() {
    let ticks = 60;
    let reference = run(1, PlanConfig::default(), ticks);
    assert!(
        reference
            .1
            .iter()
            .flatten()
            .any(|r| r.kind == RequestKind::Enter),
        "the run exercises admission"
    );
    common::assert_same_at_any_thread_count(&reference, &[0, 64, 1000], |threads, plan| {
        run(threads, plan, ticks)
    });
}

#[test]
fn global_state_is_part_of_the_program_and_unused_without_global_nodes() {
    let program: Program<Soldier> = leaves().compile(&priority([act("charge")])).expect("tree");
    assert!(program.globals().is_empty());
    let squad = leaves().compile(&squad_tree()).expect("tree");
    let shape = squad.shape().clone();
    let nodes: Vec<NodeIdx> = squad.globals().iter().map(|(n, _)| n).collect();
    assert_eq!(nodes, [COOLDOWN, GRENADE_GATE, SHOOT_GATE]);
    assert_eq!(squad.globals().admitted(&shape, THROW), None);
    assert_eq!(squad.globals().ready_at(&shape, COOLDOWN), Some(0.0));
}

#[test]
fn a_waiting_gate_runs_while_it_asks_so_a_memory_selector_comes_back_to_it() {
    // Seed 002's monsters: one sounds the alarm, the others chase. The
    // memory selector resumes its running child, so the gate must run
    // while it asks.
    fn alarm(s: &mut Soldier, _: &mut Call<'_>) -> Status {
        s.doing = Doing::Throwing;
        Status::Running
    }
    fn chase(s: &mut Soldier, _: &mut Call<'_>) -> Status {
        s.doing = Doing::Charging;
        Status::Running
    }
    let mut leaves = leaves();
    leaves.action("alarm", alarm);
    leaves.action("chase", chase);
    let tree =
        treebeard_shape::tree::selector([gate(1, act("alarm")).arg("wait", true), act("chase")]);
    let program = leaves.compile(&tree).expect("tree");
    let mut crowd = Crowd::with_agents(program, (0..3).map(Soldier::new).collect());
    tick(&mut crowd);
    assert_eq!(
        doing(&crowd, Doing::Nothing),
        [0, 1, 2],
        "all wait at the gate"
    );
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Throwing), [0]);
    assert_eq!(doing(&crowd, Doing::Charging), [1, 2]);
    for _ in 0..5 {
        tick(&mut crowd);
        assert_eq!(doing(&crowd, Doing::Throwing), [0]);
        assert_eq!(doing(&crowd, Doing::Charging), [1, 2]);
    }
}

#[test]
fn removing_an_agent_gives_its_slot_back_at_once() {
    let mut crowd = squad(5);
    tick(&mut crowd);
    tick(&mut crowd);
    let holders_before = holders(&crowd, SHOOT_GATE);
    assert!(!holders_before.is_empty());
    let leaving = AgentId(holders_before[0]);
    let mut requests = Vec::new();
    crowd.remove(leaving, &mut requests).expect("a live agent");
    assert!(
        requests
            .iter()
            .any(|r| r.kind == RequestKind::Leave && r.node == SHOOT_GATE)
    );
    let shape = crowd.program().shape().clone();
    assert_eq!(
        crowd.program().globals().admitted(&shape, SHOOT_GATE),
        Some(holders_before.len() as u32 - 1),
        "the slot came back with the removal, before any tick"
    );
    for _ in 0..10 {
        tick(&mut crowd);
        let program = crowd.program();
        assert_eq!(
            program.globals().admitted(program.shape(), SHOOT_GATE),
            Some(holders(&crowd, SHOOT_GATE).len() as u32)
        );
    }
}
