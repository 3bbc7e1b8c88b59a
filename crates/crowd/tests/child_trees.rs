//! Child trees in a crowd (seed 001, feature A5): a `ChildTree` connector
//! runs, per agent, the tree the game injected into it, as a smart object
//! hands its behaviour to the villager that uses it. Switching trees cancels
//! the old tree's work with its clean-up; a tree offered by two connectors
//! shares its gates; the choice survives hot reload (by the tree's name)
//! and snapshots; and the crowd's results are identical at any thread
//! count. A tree compiled on its own can be offered at run time (the open
//! world): the crowd runs exactly as if it had been written there.
//!
//! The village tree:
//!
//! ```text
//! PrioritySelector
//!   ChildTree "use"            the object the villager uses
//!     door:  Action open       (runs 2 ticks, then succeeds)
//!     bench: Gate(max 2) { Action sit }   (runs 3 ticks)
//!     cart:  Deferred push     (a game system pushes the cart)
//!   Action wander
//! ```

mod common;

use treebeard_crowd::{Crowd, CrowdError, OfferError, PlanConfig};
use treebeard_shape::NodeIdx;
use treebeard_shape::tree::{
    Node, act, child_trees, cond, gate, priority, reactive_sequence, sequence,
};
use treebeard_vm::{AgentId, Call, Leaves, Program, Request, RequestKind, Signal, Status};

/// What a villager did in the last tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Doing {
    #[default]
    Nothing,
    Opening,
    Sitting,
    Wandering,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Villager {
    dice: u64,
    doing: Doing,
    /// Cancel calls its actions got.
    cancelled: u32,
    /// Doors opened and sits finished.
    finished: u32,
    /// Uses the west connector (the shared-gate tree).
    west: bool,
}

impl Villager {
    fn new(seed: u64) -> Villager {
        Villager {
            dice: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            west: seed.is_multiple_of(2),
            ..Villager::default()
        }
    }

    fn roll(&mut self, sides: u64) -> u64 {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        self.dice % sides
    }
}

/// An action that runs `ticks` ticks, then succeeds, counting cancels.
fn timed(v: &mut Villager, call: &mut Call<'_>, doing: Doing, ticks: u32) -> Status {
    if call.signal() == Signal::Cancel {
        v.cancelled += 1;
        return Status::Failure;
    }
    v.doing = doing;
    if call.state() + 1 < ticks {
        *call.state_mut() += 1;
        return Status::Running;
    }
    v.finished += 1;
    Status::Success
}

fn leaves() -> Leaves<Villager> {
    let mut leaves = Leaves::new();
    leaves.action("open", |v, call| timed(v, call, Doing::Opening, 2));
    leaves.action("sit", |v, call| timed(v, call, Doing::Sitting, 3));
    leaves.deferred("push");
    leaves.action("wander", |v: &mut Villager, call| {
        if call.signal() == Signal::Cancel {
            v.cancelled += 1;
            return Status::Failure;
        }
        v.doing = Doing::Wandering;
        Status::Running
    });
    leaves.condition("west", |v: &Villager, _| v.west);
    leaves
}

fn object_trees() -> Vec<(&'static str, Node)> {
    vec![
        ("door", act("open")),
        ("bench", gate(2, act("sit"))),
        ("cart", act("push")),
    ]
}

fn village_tree(trees: Vec<(&'static str, Node)>) -> Node {
    priority([child_trees(trees).named("use"), act("wander")])
}

fn village(tree: &Node) -> Program<Villager> {
    leaves().compile(tree).expect("the village tree compiles")
}

const USE: NodeIdx = NodeIdx::new(1);

fn tick(crowd: &mut Crowd<Villager>) {
    crowd.tick_with(1.0, |_, v| v.doing = Doing::Nothing);
}

fn doing(crowd: &Crowd<Villager>, agent: u32) -> Doing {
    crowd.blackboards()[agent as usize].doing
}

fn requests(crowd: &Crowd<Villager>, agent: u32) -> Vec<(RequestKind, String)> {
    let shape = crowd.program().shape();
    crowd
        .requests()
        .iter()
        .filter(|r| r.agent == AgentId(agent))
        .map(|r| (r.kind, shape.node(r.node).name.to_string()))
        .collect()
}

#[test]
fn an_agent_runs_the_tree_injected_into_it_and_switching_cancels_the_old_one() {
    let program = village(&village_tree(object_trees()));
    let mut crowd = Crowd::with_agents(program, (0..2).map(Villager::new).collect());
    // Nothing injected: the connector fails, and the villagers wander.
    tick(&mut crowd);
    assert_eq!([doing(&crowd, 0), doing(&crowd, 1)], [Doing::Wandering; 2]);
    assert_eq!(crowd.program().injected(crowd.actor(AgentId(0)), USE), None);

    crowd.inject(AgentId(0), USE, Some("door")).unwrap();
    crowd.inject(AgentId(1), USE, Some("cart")).unwrap();
    // Nothing changes until the next tick.
    assert_eq!(doing(&crowd, 0), Doing::Wandering);
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Opening);
    // The child tree is named after its tree: "cart".
    assert_eq!(requests(&crowd, 1), [(RequestKind::Launch, "cart".into())]);
    // Wandering was cancelled by the higher priority.
    assert_eq!(crowd.blackboards()[0].cancelled, 1);
    let program = crowd.program();
    assert_eq!(program.injected(crowd.actor(AgentId(1)), USE), Some("cart"));

    // Agent 0 moves on to the bench while it opens the door: the door's
    // action gets its cancel call in the tick that sits down.
    crowd.inject(AgentId(0), USE, Some("bench")).unwrap();
    // Agent 1's cart is taken away: its deferred push is cancelled.
    crowd.inject(AgentId(1), USE, None).unwrap();
    tick(&mut crowd);
    assert_eq!(crowd.blackboards()[0].cancelled, 2);
    assert_eq!(crowd.blackboards()[0].finished, 0, "the door never opened");
    // It asks at the bench's gate, which fails meanwhile: it wanders.
    assert_eq!(doing(&crowd, 0), Doing::Wandering);
    assert_eq!(requests(&crowd, 0), [(RequestKind::Enter, "bench".into())]);
    assert_eq!(doing(&crowd, 1), Doing::Wandering);
    assert_eq!(requests(&crowd, 1), [(RequestKind::Cancel, "cart".into())]);
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Sitting);

    // Admitted, it sits down, and its wandering is cancelled.
    assert_eq!(crowd.blackboards()[0].cancelled, 3);
    // Injecting the same tree again changes nothing: it keeps sitting.
    crowd.inject(AgentId(0), USE, Some("bench")).unwrap();
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Sitting);
    assert_eq!(crowd.blackboards()[0].cancelled, 3);
}

#[test]
fn a_cancelled_connector_keeps_its_tree_injected_and_starts_it_afresh() {
    fn alarmed(v: &Villager, _: &treebeard_vm::Args<'_>) -> bool {
        v.west
    }
    let tree = priority([
        reactive_sequence([cond("alarm"), act("wander")]),
        child_trees(object_trees()).named("use"),
    ]);
    let mut leaves = leaves();
    leaves.condition("alarm", alarmed);
    let program = leaves.compile(&tree).unwrap();
    let connector = program.shape().find("use").unwrap();
    let mut crowd = Crowd::with_agents(program, vec![Villager::default()]);
    crowd.inject(AgentId(0), connector, Some("door")).unwrap();
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Opening);
    // The alarm pre-empts the connector: the door is cancelled...
    crowd.blackboard_mut(AgentId(0)).unwrap().west = true;
    tick(&mut crowd);
    assert_eq!(crowd.blackboards()[0].cancelled, 1);
    assert_eq!(doing(&crowd, 0), Doing::Wandering);
    // ...but stays injected, and opens from the start when it runs again.
    crowd.blackboard_mut(AgentId(0)).unwrap().west = false;
    let program = crowd.program();
    assert_eq!(
        program.injected(crowd.actor(AgentId(0)), connector),
        Some("door")
    );
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Opening);
    assert_eq!(
        crowd.blackboards()[0].finished,
        0,
        "opening takes two ticks"
    );
    tick(&mut crowd);
    assert_eq!(crowd.blackboards()[0].finished, 1);
}

#[test]
fn inject_errors_say_what_the_connector_offers() {
    let program = village(&village_tree(object_trees()));
    let mut crowd = Crowd::with_agents(program, vec![Villager::default()]);
    let unknown = crowd.inject(AgentId(0), USE, Some("well")).unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "the connector `use` offers no child tree `well`; it offers `door`, `bench`, `cart` \
         (add the tree to the connector's children to offer it)"
    );
    let wrong = crowd
        .inject(AgentId(0), NodeIdx::ROOT, Some("door"))
        .unwrap_err();
    assert!(
        wrong
            .to_string()
            .contains("is a PrioritySelector, not a ChildTree connector"),
        "{wrong}"
    );
    let outside = crowd
        .inject(AgentId(0), NodeIdx::new(99), None)
        .unwrap_err();
    assert_eq!(outside.to_string(), "the shape has no item #99");
    // An agent the crowd no longer has.
    crowd.remove(AgentId(0), &mut Vec::new());
    let gone = crowd.inject(AgentId(0), USE, Some("door")).unwrap_err();
    assert_eq!(gone, CrowdError::NoAgent(AgentId(0)));
}

#[test]
fn two_connectors_offering_one_tree_under_different_names_is_an_error() {
    let tree = priority([
        child_trees([("bench", gate(2, act("sit")))]).named("left"),
        child_trees([("bench", gate(3, act("sit")))]).named("right"),
    ]);
    let err = leaves().compile(&tree).unwrap_err().to_string();
    assert!(
        err.contains("the child tree `bench` differs from the one of that name"),
        "{err}"
    );
    let twice = child_trees([("bench", act("sit")), ("bench", act("open"))]);
    let err = leaves().compile(&twice).unwrap_err().to_string();
    assert!(
        err.contains("offers two child trees named `bench`"),
        "{err}"
    );
}

/// Two connectors, west and east, both offering the bench; villagers go
/// west or east by their `west` flag.
fn two_benches() -> Node {
    let bench = || gate(2, act("sit"));
    priority([
        sequence([
            cond("west"),
            child_trees([("bench", bench())]).named("left"),
        ]),
        child_trees([("bench", bench())]).named("right"),
        act("wander"),
    ])
}

/// The game's smart objects: now and then a villager takes a seat on (or
/// gets up from) the bench, through its side's connector.
fn use_benches(crowd: &mut Crowd<Villager>, west: NodeIdx, east: NodeIdx) {
    for agent in crowd.agents().collect::<Vec<_>>() {
        let v = crowd.blackboard_mut(agent).unwrap();
        let connector = if v.west { west } else { east };
        match v.roll(6) {
            0 => crowd.inject(agent, connector, Some("bench")).unwrap(),
            1 => crowd.inject(agent, connector, None).unwrap(),
            _ => {}
        }
    }
}

type Run = (Vec<Villager>, Vec<Vec<Request>>, Vec<(NodeIdx, u64)>);

fn run_benches(threads: usize, plan: PlanConfig, ticks: usize) -> Run {
    common::on_threads(threads, || {
        let program = village(&two_benches());
        let (west, east) = (
            program.shape().find("left").unwrap(),
            program.shape().find("right").unwrap(),
        );
        assert_eq!(program.globals().iter().count(), 1, "one gate, shared");
        let mut crowd = Crowd::with_agents(program, (0..400).map(Villager::new).collect());
        crowd.set_plan_config(plan);
        let mut requests = Vec::new();
        let mut most = 0;
        for _ in 0..ticks {
            use_benches(&mut crowd, west, east);
            tick(&mut crowd);
            let sitting = crowd
                .blackboards()
                .iter()
                .filter(|v| v.doing == Doing::Sitting)
                .count();
            assert!(sitting <= 2, "{sitting} villagers on a bench for two");
            most = most.max(sitting);
            requests.push(crowd.requests().to_vec());
        }
        assert_eq!(most, 2, "the bench fills up");
        let globals = crowd.program().globals().iter().collect();
        (crowd.blackboards().to_vec(), requests, globals)
    })
}

#[test]
fn a_tree_offered_by_two_connectors_shares_its_gate_identically_at_any_thread_count() {
    let ticks = 80;
    let reference = run_benches(1, PlanConfig::default(), ticks);
    // Both sides sat: the one gate counted agents from both copies.
    let sat = |west: bool| reference.0.iter().any(|v| v.west == west && v.finished > 0);
    assert!(sat(true) && sat(false));
    common::assert_same_at_any_thread_count(&reference, &[0, 64], |threads, plan| {
        run_benches(threads, plan, ticks)
    });
}

#[test]
fn hot_reload_follows_the_injected_tree_by_its_name() {
    let program = village(&village_tree(object_trees()));
    let mut crowd = Crowd::with_agents(program, (0..3).map(Villager::new).collect());
    for (agent, tree) in [(0, "door"), (1, "bench"), (2, "cart")] {
        crowd.inject(AgentId(agent), USE, Some(tree)).unwrap();
    }
    tick(&mut crowd);
    // The new version offers the trees in another order, and no cart.
    let reordered = vec![
        ("bench", gate(2, act("sit"))),
        ("well", act("wander")),
        ("door", act("open")),
    ];
    let report = crowd.reload(village(&village_tree(reordered))).unwrap();
    let injected = |crowd: &Crowd<Villager>, agent| {
        crowd
            .program()
            .injected(crowd.actor(AgentId(agent)), USE)
            .map(str::to_owned)
    };
    assert_eq!(injected(&crowd, 0).as_deref(), Some("door"));
    assert_eq!(injected(&crowd, 1).as_deref(), Some("bench"));
    assert_eq!(injected(&crowd, 2), None, "the cart is gone");
    // The cart's push was cancelled with the vanished tree.
    let cancels: Vec<_> = report
        .requests
        .iter()
        .filter(|r| r.kind == RequestKind::Cancel)
        .map(|r| r.agent)
        .collect();
    assert_eq!(cancels, [AgentId(2)]);
    // The door keeps opening where it was, and finishes on time.
    tick(&mut crowd);
    assert_eq!(crowd.blackboards()[0].finished, 1);
    assert_eq!(doing(&crowd, 2), Doing::Wandering);
}

#[test]
fn a_snapshot_keeps_what_is_injected_and_the_run_goes_on_identically() {
    let tree = two_benches();
    let program = village(&tree);
    let (west, east) = (
        program.shape().find("left").unwrap(),
        program.shape().find("right").unwrap(),
    );
    let mut crowd = Crowd::with_agents(program, (0..40).map(Villager::new).collect());
    for _ in 0..10 {
        use_benches(&mut crowd, west, east);
        tick(&mut crowd);
    }
    let snapshot = crowd.snapshot();
    let mut restored = Crowd::restore(village(&tree), snapshot).unwrap();
    for agent in crowd.agents() {
        assert_eq!(
            crowd.program().injected(crowd.actor(agent), west),
            restored.program().injected(restored.actor(agent), west)
        );
    }
    for _ in 0..20 {
        use_benches(&mut crowd, west, east);
        use_benches(&mut restored, west, east);
        tick(&mut crowd);
        tick(&mut restored);
        assert_eq!(crowd.requests(), restored.requests());
    }
    assert_eq!(crowd.blackboards(), restored.blackboards());
}

// ---------------------------------------------------------------------------
// The open world: child trees compiled on their own, offered at run time
// ---------------------------------------------------------------------------

/// A smart object's tree, compiled on its own against the crowd's leaves.
fn compiled_alone(tree: &Node) -> std::sync::Arc<treebeard_shape::Shape> {
    village(tree).shape().clone()
}

#[test]
fn a_tree_compiled_on_its_own_is_offered_at_run_time_and_running_work_goes_on() {
    let program = village(&village_tree(vec![("door", act("open"))]));
    let mut crowd = Crowd::with_agents(program, (0..3).map(Villager::new).collect());
    crowd.inject(AgentId(0), USE, Some("door")).unwrap();
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Opening);
    assert_eq!(doing(&crowd, 1), Doing::Wandering);
    // A bench appears in the level: its tree, from its own file.
    let bench = compiled_alone(&gate(2, act("sit")));
    let report = crowd.offer_child_tree("bench", &bench, &leaves()).unwrap();
    assert!(report.requests.is_empty(), "{:?}", report.requests);
    assert_eq!(report.nodes.vanished(), 0);
    assert_eq!(crowd.program().shape().child_tree(USE, "bench"), Some(1));
    // The door opening and the wandering go on: nothing was cancelled.
    crowd.inject(AgentId(1), USE, Some("bench")).unwrap();
    tick(&mut crowd);
    assert_eq!(
        crowd.blackboards()[0].finished,
        1,
        "the door opened on time"
    );
    assert_eq!(requests(&crowd, 1), [(RequestKind::Enter, "bench".into())]);
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 1), Doing::Sitting);
    assert_eq!(doing(&crowd, 2), Doing::Wandering);
    // Agent 1's wander was cancelled by its own tree's switch, no other.
    let cancelled: Vec<u32> = crowd.blackboards().iter().map(|v| v.cancelled).collect();
    assert_eq!(cancelled, [0, 1, 0]);
}

#[test]
fn an_update_of_an_offered_tree_keeps_the_running_work_that_still_holds() {
    let program = village(&village_tree(vec![("door", act("open"))]));
    let mut crowd = Crowd::with_agents(program, (0..2).map(Villager::new).collect());
    // Sit, then open the bench's locker.
    let bench = compiled_alone(&sequence([gate(2, act("sit")), act("open")]));
    crowd.offer_child_tree("bench", &bench, &leaves()).unwrap();
    crowd.inject(AgentId(0), USE, Some("bench")).unwrap();
    tick(&mut crowd);
    tick(&mut crowd);
    assert_eq!(doing(&crowd, 0), Doing::Sitting);
    // The bench's file is edited: after sitting, wander off. The sitting
    // keeps its place, its gate ticket and its count of ticks.
    let edited = compiled_alone(&sequence([gate(2, act("sit")), act("wander")]));
    let report = crowd.offer_child_tree("bench", &edited, &leaves()).unwrap();
    assert!(report.requests.is_empty(), "{:?}", report.requests);
    assert_eq!(report.carried.cancelled, 0);
    tick(&mut crowd);
    tick(&mut crowd);
    assert_eq!(crowd.blackboards()[0].finished, 1, "sat its three ticks");
    assert_eq!(doing(&crowd, 0), Doing::Wandering, "the edited tree's");
    // Replaced by a tree without that place: the wandering is cancelled
    // with its clean-up.
    let cancelled = crowd.blackboards()[0].cancelled;
    let report = crowd
        .offer_child_tree("bench", &compiled_alone(&act("open")), &leaves())
        .unwrap();
    assert_eq!(report.carried.cancelled, 1, "{:?}", report.carried);
    assert_eq!(crowd.blackboards()[0].cancelled, cancelled + 1);
}

/// Two connectors offering a stool; the bench (one gate for both sides)
/// is written there too (`open: false`), or offered at tick 10 (`true`).
fn stools_and_benches(open: bool) -> Node {
    let trees = |open: bool| {
        let mut trees = vec![("stool", act("open"))];
        if !open {
            trees.push(("bench", gate(2, act("sit"))));
        }
        child_trees(trees)
    };
    priority([
        sequence([cond("west"), trees(open).named("left")]),
        trees(open).named("right"),
        act("wander"),
    ])
}

fn run_offered(open: bool, threads: usize, plan: PlanConfig, ticks: usize) -> Run {
    common::on_threads(threads, || {
        let leaves = leaves();
        let program = leaves.compile(&stools_and_benches(open)).unwrap();
        let mut crowd = Crowd::with_agents(program, (0..400).map(Villager::new).collect());
        crowd.set_plan_config(plan);
        let bench = compiled_alone(&gate(2, act("sit")));
        let mut requests = Vec::new();
        for t in 0..ticks {
            if open && t == 10 {
                crowd.offer_child_tree("bench", &bench, &leaves).unwrap();
                assert_eq!(crowd.program().globals().iter().count(), 1, "one gate");
            }
            // Stools from the start, benches once they exist; the
            // connectors found by name (the offer moves the right one).
            let shape = crowd.program().shape().clone();
            let (west, east) = (shape.find("left").unwrap(), shape.find("right").unwrap());
            for agent in crowd.agents().collect::<Vec<_>>() {
                let v = crowd.blackboard_mut(agent).unwrap();
                let connector = if v.west { west } else { east };
                let tree = if t >= 10 && v.roll(2) == 0 {
                    "bench"
                } else {
                    "stool"
                };
                match v.roll(6) {
                    0 => crowd.inject(agent, connector, Some(tree)).unwrap(),
                    1 => crowd.inject(agent, connector, None).unwrap(),
                    _ => {}
                }
            }
            tick(&mut crowd);
            let sitting = crowd
                .blackboards()
                .iter()
                .filter(|v| v.doing == Doing::Sitting);
            assert!(sitting.count() <= 2, "a bench for two");
            requests.push(crowd.requests().to_vec());
        }
        let globals = crowd.program().globals().iter().collect();
        (crowd.blackboards().to_vec(), requests, globals)
    })
}

#[test]
fn a_crowd_with_an_offered_tree_runs_as_if_it_were_written_at_any_thread_count() {
    let ticks = 60;
    let written = run_offered(false, 1, PlanConfig::default(), ticks);
    let sat = |west: bool| written.0.iter().any(|v| v.west == west && v.finished > 0);
    assert!(sat(true) && sat(false));
    // Offered at tick 10, the bench's shared gate and every request agree
    // with the tree that had it written from the start...
    let offered = run_offered(true, 1, PlanConfig::default(), ticks);
    assert!(
        offered == written,
        "the open world differs from the closed one"
    );
    // ...at any thread count.
    common::assert_same_at_any_thread_count(&written, &[0, 64], |threads, plan| {
        run_offered(true, threads, plan, ticks)
    });
}

#[test]
fn offering_is_refused_with_the_reason_and_the_crowd_unchanged() {
    let program = village(&village_tree(vec![("door", act("open"))]));
    let mut crowd = Crowd::with_agents(program, (0..2).map(Villager::new).collect());
    let hash = crowd.program().shape().behavior_hash();
    let bench = compiled_alone(&act("sit"));
    let e = crowd.offer_child_tree("", &bench, &leaves()).unwrap_err();
    assert!(matches!(e, OfferError::Link(_)), "{e:?}");
    // Leaves that lack the child's: it does not link.
    let mut fewer = Leaves::new();
    fewer.action("open", |_: &mut Villager, _| Status::Success);
    fewer.action("wander", |_: &mut Villager, _| Status::Running);
    let e = crowd.offer_child_tree("bench", &bench, &fewer).unwrap_err();
    assert!(e.to_string().contains("sit"), "{e}");
    assert_eq!(crowd.program().shape().behavior_hash(), hash);

    // A crowd running generated code keeps it: offering says what to do.
    use treebeard_workload::{compiled, leaves as crowd_leaves, tree};
    let program = crowd_leaves()
        .compile(&tree())
        .unwrap()
        .with_compiled(compiled::tree())
        .unwrap();
    let mut critters = Crowd::with_agents(program, treebeard_workload::spawn(4, 1));
    let idle = crowd_leaves().compile(&act("Walk")).unwrap();
    let e = critters
        .offer_child_tree("idle", idle.shape(), &crowd_leaves())
        .unwrap_err();
    assert_eq!(e, OfferError::Compiled);
    assert!(e.to_string().contains("Engine::Interpreted"), "{e}");
}
