//! Hot reload of one agent: `Remap` carries an actor from a program to its
//! replacement. Running work keeps its place when the tree is edited around
//! it, work whose place vanished is cancelled with its clean-up by the old
//! program, moved deferred actions are re-addressed, and slots and memory
//! follow their nodes and names (the rules are in `crates/vm/src/remap.rs`).

use treebeard_shape::tree::{
    Node, act, concurrent, decide, decider, decider_of, decider_with, gate, group, inverter, leaf,
    priority, sequence,
};
use treebeard_shape::{Declarations, Kind, NodeIdx, Options, compile_with};
use treebeard_vm::{
    ActionState, Actor, ActorLayout, ActorMut, ActorRef, Actors, AgentId, Args, Call, Carried,
    DeciderState, Ending, EventId, Frame, Interpreter, Leaves, Outcome, Program, ReloadError,
    Remap, Request, RequestKind, ScopeHooks, Signal, Stale, Status,
};

/// The blackboard: a log of leaf calls, by item and name.
#[derive(Default)]
struct Log {
    calls: Vec<String>,
}

impl Log {
    fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.calls)
    }
}

fn note(log: &mut Log, call: &Call<'_>, name: &str) {
    let signal = match call.signal() {
        Signal::Start => "start",
        Signal::Tick => "tick",
        Signal::Cancel => "cancel",
    };
    log.calls.push(format!(
        "{name}#{} {signal} {}",
        call.node().get(),
        call.state()
    ));
}

/// Runs forever, counting its ticks in its state.
fn walk(log: &mut Log, call: &mut Call<'_>) -> Status {
    note(log, call, "Walk");
    *call.state_mut() += 1;
    Status::Running
}

fn look(log: &mut Log, call: &mut Call<'_>) -> Status {
    note(log, call, "Look");
    Status::Success
}

fn aim(log: &mut Log, call: &mut Call<'_>) -> Status {
    note(log, call, "Aim");
    Status::Success
}

/// Adds one to its persistent slot on every call, and runs.
fn count(log: &mut Log, call: &mut Call<'_>) -> Status {
    note(log, call, "Count");
    if let Some(slot) = call.persistent() {
        *slot += 1;
    }
    Status::Running
}

struct Haste;

impl ScopeHooks<Log> for Haste {
    fn enter(log: &mut Log, args: &Args<'_>) {
        log.calls.push(format!("Haste#{} enter", args.node().get()));
    }

    fn exit(log: &mut Log, args: &Args<'_>, how: Ending) {
        log.calls
            .push(format!("Haste#{} exit {how:?}", args.node().get()));
    }
}

fn leaves() -> Leaves<Log> {
    let mut leaves = Leaves::new();
    leaves.action("Walk", walk);
    leaves.action("Look", look);
    leaves.action("Aim", aim);
    leaves.action("Count", count).persistent();
    leaves.deferred("Go");
    leaves.deferred("Fly");
    leaves.scope::<Haste>("Haste");
    leaves.decide("never", |_, _| 0.0);
    leaves.event("Seen");
    leaves
}

fn program(tree: &Node) -> Program<Log> {
    program_with(tree, Declarations::new())
}

fn program_with(tree: &Node, declarations: Declarations) -> Program<Log> {
    let leaves = leaves();
    let options = Options {
        declarations,
        ..Options::default()
    };
    let shape = compile_with(tree, &leaves, &options).unwrap();
    Program::link(shape, &leaves).unwrap()
}

/// One agent ticked alone, whose program can be replaced.
struct Agent {
    program: Program<Log>,
    /// The one agent's actor, in an arena so that a program can settle its
    /// crowd requests.
    actors: Actors,
    log: Log,
    frame: Frame,
    interpreter: Interpreter,
    requests: Vec<Request>,
}

impl Agent {
    fn new(program: Program<Log>) -> Agent {
        Agent {
            actors: Actors::new(ActorLayout::for_shape(program.shape()), 1),
            program,
            log: Log::default(),
            frame: Frame::default(),
            interpreter: Interpreter::new(),
            requests: Vec::new(),
        }
    }

    fn tick(&mut self) -> Status {
        self.frame = self.frame.next(1.0);
        self.requests.clear();
        self.interpreter.tick(
            &self.program,
            &self.frame,
            AgentId(0),
            &mut self.actors.get_mut(0),
            &mut self.log,
            &mut self.requests,
        )
    }

    /// Settles the last tick's crowd requests, as a crowd does.
    fn settle(&mut self) {
        self.program
            .settle(&self.frame, &self.requests, &mut self.actors);
    }

    fn actor(&self) -> ActorRef<'_> {
        self.actors.get(0)
    }

    fn actor_mut(&mut self) -> ActorMut<'_> {
        self.actors.get_mut(0)
    }

    /// Replaces the program; returns what carrying did and the requests.
    fn reload(&mut self, program: Program<Log>) -> (Carried, Vec<Request>) {
        let mut remap = Remap::new(&self.program, program).unwrap();
        let mut requests = Vec::new();
        let mut actors = remap.actors(
            &self.frame,
            &self.actors,
            std::slice::from_mut(&mut self.log),
            &mut requests,
        );
        let carried = remap.carried();
        self.program = remap.finish(&mut actors);
        self.actors = actors;
        (carried, requests)
    }

    fn running(&self) -> Vec<(u32, ActionState)> {
        self.actor().actions().map(|(n, s)| (n.get(), s)).collect()
    }
}

fn carried(kept: usize, cancelled: usize, remapped: usize) -> Carried {
    Carried {
        kept,
        cancelled,
        remapped,
    }
}

#[test]
fn a_running_sequence_keeps_its_place_when_a_node_is_inserted_before_it() {
    // 0 Sequence, 1 Look, 2 Walk (running: the sequence resumes at 2).
    let mut agent = Agent::new(program(&sequence([act("Look"), act("Walk")])));
    agent.tick();
    assert_eq!(agent.log.take(), ["Look#1 start 0", "Walk#2 start 0"]);
    // Aim inserted before Walk: Walk is item 3, and the sequence resumes
    // there without running Look or Aim.
    let (c, requests) = agent.reload(program(&sequence([act("Look"), act("Aim"), act("Walk")])));
    assert_eq!((c, requests), (carried(1, 0, 0), vec![]));
    assert!(agent.log.take().is_empty(), "carrying calls nothing");
    assert_eq!(agent.running(), [(3, ActionState::Running(1))]);
    assert_eq!(agent.tick(), Status::Running);
    assert_eq!(agent.log.take(), ["Walk#3 tick 1"]);
}

#[test]
fn a_sequence_at_its_first_child_keeps_its_place_past_a_new_first_child() {
    // Walk is the first child: no resume point is stored. (The concurrent
    // decider's completion marks make the sequence keep resume points: its
    // running leaf alone would not say where it is.)
    let tree = |first: &[&str]| {
        let mut children: Vec<Node> = first.iter().map(|&a| act(a)).collect();
        children.push(concurrent([act("Look")]));
        sequence(children)
    };
    let mut agent = Agent::new(program(&tree(&["Walk"])));
    agent.tick();
    assert!(agent.actor().deciders().next().is_none());
    agent.log.take();
    agent.reload(program(&tree(&["Aim", "Walk"])));
    // A resume point now keeps the sequence at Walk.
    assert_eq!(
        agent.actor().deciders().collect::<Vec<_>>(),
        [DeciderState::Resume {
            node: NodeIdx::new(0),
            child: NodeIdx::new(2)
        }]
    );
    agent.tick();
    assert_eq!(agent.log.take(), ["Walk#2 tick 1"]);
    // And back: Walk first again needs no resume point.
    agent.reload(program(&tree(&["Walk"])));
    assert!(agent.actor().deciders().next().is_none());
    agent.tick();
    assert_eq!(agent.log.take(), ["Walk#1 tick 2"]);
}

#[test]
fn a_plain_sequence_keeps_its_place_by_its_running_leaf_alone() {
    // Only plain kinds: the running action says where the sequence is,
    // before and after a node is inserted before it, with no resume point.
    let mut agent = Agent::new(program(&sequence([act("Walk"), act("Look")])));
    agent.tick();
    agent.log.take();
    let (c, requests) = agent.reload(program(&sequence([act("Aim"), act("Walk"), act("Look")])));
    assert_eq!((c, requests), (carried(1, 0, 0), vec![]));
    assert!(agent.actor().deciders().next().is_none());
    agent.tick();
    assert_eq!(agent.log.take(), ["Walk#2 tick 1"]);
    // Moved behind its sibling, it no longer holds its place: its sequence
    // would run Look first.
    let (c, _) = agent.reload(program(&sequence([act("Look"), act("Walk")])));
    assert_eq!(c, carried(0, 1, 0));
}

#[test]
fn a_running_action_whose_node_vanished_gets_cancel() {
    let mut agent = Agent::new(program(&priority([act("Walk"), act("Look")])));
    agent.tick();
    agent.log.take();
    let (c, requests) = agent.reload(program(&priority([act("Look")])));
    assert_eq!((c, requests), (carried(0, 1, 0), vec![]));
    // Cancelled by the old program: at its old item, with its state.
    assert_eq!(agent.log.take(), ["Walk#1 cancel 1"]);
    assert!(agent.actor().is_idle());
    assert_eq!(agent.tick(), Status::Success);
    assert_eq!(agent.log.take(), ["Look#1 start 0"]);
}

#[test]
fn a_scope_inside_a_vanished_branch_exits_after_its_work() {
    // 0 Priority, 1 Sequence "flee", 2 Haste scope, 3 Walk; 4 Look.
    let mut haste = leaf("Haste");
    haste.push(act("Walk"));
    let flee = sequence([haste]).named("flee");
    let mut agent = Agent::new(program(&priority([flee, act("Look")])));
    agent.tick();
    assert_eq!(agent.log.take(), ["Haste#2 enter", "Walk#3 start 0"]);
    let (c, _) = agent.reload(program(&priority([act("Look")])));
    assert_eq!(c, carried(0, 2, 0));
    assert_eq!(
        agent.log.take(),
        ["Walk#3 cancel 1", "Haste#2 exit Cancelled"]
    );
    assert!(agent.actor().is_idle());
}

#[test]
fn a_scope_whose_path_holds_stays_open() {
    let mut haste = leaf("Haste");
    haste.push(act("Walk"));
    let mut agent = Agent::new(program(&priority([haste.clone(), act("Look")])));
    agent.tick();
    agent.log.take();
    let (c, _) = agent.reload(program(&priority([act("Aim").named("first"), haste])));
    assert_eq!(c, carried(2, 0, 0));
    agent.tick();
    // Aim succeeds first now: the priority abandons the scope, which exits
    // once, after its work.
    assert_eq!(
        agent.log.take(),
        ["Aim#1 start 0", "Walk#3 cancel 1", "Haste#2 exit Cancelled"]
    );
}

#[test]
fn a_deferred_action_that_moved_is_remapped_and_completes_at_its_new_item() {
    let mut agent = Agent::new(program(&sequence([act("Look"), act("Go")])));
    agent.tick();
    assert_eq!(agent.requests[0].kind, RequestKind::Launch);
    assert_eq!(agent.requests[0].node, NodeIdx::new(2));
    // Fly comes first in the deferred imports of the new tree: Go's action
    // index changes too.
    let new = program(&sequence([act("Look"), act("Fly").named("hop"), act("Go")]));
    let go = new.shape().action_id("Go").unwrap();
    let (c, requests) = agent.reload(new);
    assert_eq!(c, carried(1, 0, 1));
    assert_eq!(
        requests,
        [Request {
            agent: AgentId(0),
            node: NodeIdx::new(3),
            action: go,
            kind: RequestKind::Remap {
                from: NodeIdx::new(2)
            },
        }]
    );
    assert!(
        RequestKind::Remap {
            from: NodeIdx::ROOT
        }
        .is_for_game()
    );
    // The game system reports to the new item; the old one is stale.
    let mut actor = agent.actor_mut();
    assert_eq!(
        actor.complete(NodeIdx::new(2), Outcome::Success),
        Err(Stale::NotRunning)
    );
    assert_eq!(actor.complete(NodeIdx::new(3), Outcome::Success), Ok(()));
    assert_eq!(agent.tick(), Status::Success);
    assert_eq!(agent.log.take(), ["Look#1 start 0"]);
    assert!(agent.requests.is_empty());
}

#[test]
fn a_deferred_action_that_kept_its_address_needs_no_remap() {
    let mut agent = Agent::new(program(&sequence([act("Look"), act("Go")])));
    agent.tick();
    let (c, requests) = agent.reload(program(&sequence([act("Look"), act("Go"), act("Aim")])));
    assert_eq!((c, requests), (carried(1, 0, 0), vec![]));
}

#[test]
fn a_deferred_action_that_vanished_is_cancelled_at_its_old_address() {
    let old = program(&priority([act("Fly"), act("Go")]));
    let mut agent = Agent::new(old);
    agent.tick();
    assert_eq!(agent.requests[0].node, NodeIdx::new(1));
    let old_fly = agent.requests[0].action;
    let (c, requests) = agent.reload(program(&priority([act("Go")])));
    assert_eq!(c, carried(0, 1, 0));
    assert_eq!(
        requests,
        [Request {
            agent: AgentId(0),
            node: NodeIdx::new(1),
            action: old_fly,
            kind: RequestKind::Cancel,
        }]
    );
}

#[test]
fn a_completed_deferred_action_carries_without_a_remap() {
    let mut agent = Agent::new(program(&sequence([act("Look"), act("Go")])));
    agent.tick();
    agent
        .actor_mut()
        .complete(NodeIdx::new(2), Outcome::Failure)
        .unwrap();
    // The game system is done with it: nothing to re-address.
    let (c, requests) = agent.reload(program(&sequence([act("Aim"), act("Look"), act("Go")])));
    assert_eq!((c, requests), (carried(1, 0, 0), vec![]));
    assert_eq!(agent.running(), [(3, ActionState::Failed)]);
    assert_eq!(agent.tick(), Status::Failure);
}

#[test]
fn a_running_child_that_a_later_sibling_moved_before_is_cancelled() {
    // Walk runs at 2; Aim (3) has not run yet.
    let mut agent = Agent::new(program(&sequence([act("Look"), act("Walk"), act("Aim")])));
    agent.tick();
    agent.log.take();
    // Aim now comes first: resuming at Walk would skip it.
    let (c, _) = agent.reload(program(&sequence([act("Aim"), act("Walk"), act("Look")])));
    assert_eq!(c, carried(0, 1, 0));
    assert_eq!(agent.log.take(), ["Walk#2 cancel 1"]);
    assert!(agent.actor().is_idle());
    agent.tick();
    assert_eq!(
        agent.log.take(),
        ["Aim#1 start 0", "Walk#2 start 0"],
        "the sequence starts again"
    );
}

#[test]
fn an_action_whose_parent_vanished_is_cancelled_even_when_it_maps() {
    // The inverter above Walk goes; Walk keeps its id, so it maps, but the
    // sequence's place (the inverter) is gone.
    let old = sequence([act("Look"), inverter(act("Walk").with_id(100))]);
    let new = sequence([act("Look"), act("Walk").with_id(100)]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.log.take();
    let mut remap = Remap::new(&agent.program, program(&new)).unwrap();
    assert_eq!(
        remap.nodes().new_of(NodeIdx::new(3)),
        Some(NodeIdx::new(2)),
        "Walk maps by its id"
    );
    let mut actor = Actor::new(remap.layout());
    let mut requests = Vec::new();
    let c = remap.actor(
        &agent.frame,
        AgentId(0),
        agent.actors.get(0),
        &mut actor.as_mut(),
        &mut agent.log,
        &mut requests,
    );
    assert_eq!(c, carried(0, 1, 0));
    assert_eq!(agent.log.take(), ["Walk#3 cancel 1"]);
    assert!(actor.as_ref().is_idle());
}

#[test]
fn given_ids_carry_running_work_to_a_renamed_place() {
    let old = priority([
        sequence([act("Look"), act("Walk").with_id(7)])
            .named("patrol")
            .with_id(5),
        act("Aim"),
    ]);
    let new = priority([
        act("Aim").named("first"),
        sequence([act("Look"), act("Walk").with_id(7)])
            .named("rounds")
            .with_id(5),
    ]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.log.take();
    let (c, _) = agent.reload(program(&new));
    assert_eq!(c, carried(1, 0, 0));
    assert_eq!(agent.running(), [(4, ActionState::Running(1))]);
}

#[test]
fn concurrent_done_marks_follow_their_children() {
    // Look (1) succeeded, Walk (2) runs; the concurrent waits for both.
    let mut agent = Agent::new(program(&concurrent([act("Look"), act("Walk")])));
    agent.tick();
    agent.log.take();
    agent.reload(program(&concurrent([act("Aim"), act("Look"), act("Walk")])));
    assert_eq!(
        agent.actor().deciders().collect::<Vec<_>>(),
        [DeciderState::Done {
            node: NodeIdx::new(2),
            success: true
        }]
    );
    agent.tick();
    // Aim is new and runs; Look finished before the reload and does not.
    assert_eq!(agent.log.take(), ["Aim#1 start 0", "Walk#3 tick 1"]);
}

#[test]
fn persistent_slots_follow_their_node() {
    let old = priority([act("Count").named("a"), act("Count").named("b")]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.tick();
    assert_eq!(agent.actor().persistent(), [2, 0]);
    // `b` first, `a` second, and a third new one.
    let new = priority([
        act("Count").named("b"),
        act("Count").named("c"),
        act("Count").named("a"),
    ]);
    let (c, _) = agent.reload(program(&new));
    // `a` ran at item 1 of a priority; now it is behind `b`, which is
    // fine for a priority (it re-tests from the first child every tick).
    assert_eq!(c, carried(1, 0, 0));
    assert_eq!(agent.actor().persistent(), [0, 0, 2]);
}

#[test]
fn a_cancel_call_s_slot_change_carries() {
    fn counted_cancel(log: &mut Log, call: &mut Call<'_>) -> Status {
        note(log, call, "Count");
        if let Some(slot) = call.persistent() {
            *slot += 10;
        }
        Status::Running
    }
    let mut leaves = leaves();
    leaves.action("Tally", counted_cancel).persistent();
    let link = |tree: &Node| {
        let shape = compile_with(tree, &leaves, &Options::default()).unwrap();
        Program::link(shape, &leaves).unwrap()
    };
    let old = priority([sequence([act("Tally")]).named("x"), act("Look")]);
    let new = priority([act("Look"), act("Tally")]);
    let mut agent = Agent::new(link(&old));
    agent.tick();
    assert_eq!(agent.actor().persistent(), [10]);
    // Tally's path changed: it is cancelled (adding 10), and its slot does
    // not follow (another path: another node).
    let (c, _) = agent.reload(link(&new));
    assert_eq!(c.cancelled, 1);
    assert_eq!(agent.actor().persistent(), [0]);
    // With an id it is the same node: cancelled (its place changed), and
    // its slot, cancel call included, carries.
    let old = priority([sequence([act("Tally").with_id(50)]).named("x"), act("Look")]);
    let new = priority([act("Look"), act("Tally").with_id(50)]);
    let mut agent = Agent::new(link(&old));
    agent.tick();
    let (c, _) = agent.reload(link(&new));
    assert_eq!(c.cancelled, 1);
    assert_eq!(agent.actor().persistent(), [20]);
}

#[test]
fn variables_timestamps_and_stimuli_carry_by_name() {
    let old_decls = Declarations::new()
        .variable("armed", false)
        .variable("calm", true)
        .timestamp("spotted", "Seen")
        .stimulus("hit", 5.0);
    let set = decider_of(Kind::Script, []).arg("script", "armed = true; calm = false");
    let mut agent = Agent::new(program_with(&sequence([set, act("Walk")]), old_decls));
    agent.tick();
    agent.interpreter.send_event(
        &agent.program,
        &agent.frame,
        AgentId(0),
        &mut agent.actors.get_mut(0),
        &mut agent.log,
        EventId(0),
    );
    agent.actor_mut().post_stimulus(0, 42, 1.0, 5.0);
    let spotted = agent.actor().timestamp(0);
    assert_eq!(spotted, Some(1.0));
    // Reordered, one new of each, and `armed` now starts true.
    let new_decls = Declarations::new()
        .variable("fresh", true)
        .variable("calm", true)
        .variable("armed", true)
        .timestamp("lost", "Seen")
        .timestamp("spotted", "Seen")
        .stimulus("fear", 1.0)
        .stimulus("hit", 5.0);
    let set = decider_of(Kind::Script, []).arg("script", "armed = true; calm = false");
    agent.reload(program_with(&sequence([set, act("Walk")]), new_decls));
    let (actor, shape) = (agent.actor(), agent.program.shape());
    assert_eq!(
        actor.variable(shape, 0),
        Some(true),
        "fresh: its initial value"
    );
    assert_eq!(actor.variable(shape, 1), Some(false), "calm: carried");
    assert_eq!(actor.variable(shape, 2), Some(true), "armed: carried");
    assert_eq!(actor.timestamp(0), None, "lost: never set");
    assert_eq!(actor.timestamp(1), spotted);
    assert_eq!(actor.stimulus(0, 2.0), None);
    assert_eq!(actor.stimulus(1, 2.0), Some(42));
}

#[test]
fn a_vanished_gate_gives_its_slots_back() {
    let old = priority([gate(1, act("Walk")), act("Look")]);
    let mut agent = Agent::new(program(&old));
    // Ask, get admitted, enter.
    agent.tick();
    agent.settle();
    agent.tick();
    agent.log.take();
    let g = NodeIdx::new(1);
    assert_eq!(
        agent.program.globals().admitted(agent.program.shape(), g),
        Some(1)
    );
    // Moved: the ticket and the count follow.
    let moved = priority([act("Aim").named("x"), gate(1, act("Walk")), act("Look")]);
    let (c, requests) = agent.reload(program(&moved));
    assert_eq!((c, requests), (carried(2, 0, 0), vec![]));
    let g = NodeIdx::new(2);
    assert_eq!(
        agent.program.globals().admitted(agent.program.shape(), g),
        Some(1)
    );
    // Gone: the ticket is cancelled with a Leave, and the count goes too.
    let (c, requests) = agent.reload(program(&priority([act("Walk"), act("Look")])));
    assert_eq!(c, carried(0, 2, 0));
    assert_eq!(
        requests
            .iter()
            .map(|r| (r.kind, r.node.get()))
            .collect::<Vec<_>>(),
        [(RequestKind::Leave, 2)]
    );
    assert_eq!(agent.log.take(), ["Walk#3 cancel 1"]);
    assert!(agent.program.globals().is_empty());
}

#[test]
fn a_gate_that_stays_counts_only_the_tickets_that_stay() {
    // Walk's branch moves under a new sequence: the ticket is cancelled
    // (its path changed), and the gate, which maps by its id, carries a
    // count of 0.
    let old = priority([gate(2, act("Walk")).with_id(40), act("Look")]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.settle();
    agent.tick();
    let new = priority([sequence([gate(2, act("Walk")).with_id(40)]), act("Look")]);
    let (c, requests) = agent.reload(program(&new));
    assert_eq!(c.cancelled, 2);
    assert_eq!(requests[0].kind, RequestKind::Leave);
    let g = NodeIdx::new(2);
    assert_eq!(
        agent.program.globals().admitted(agent.program.shape(), g),
        Some(0)
    );
}

#[test]
fn a_gate_whose_max_changed_cancels_its_tickets() {
    // The gate keeps its path but admits fewer: carrying the count and the
    // ticket could leave more agents admitted than its new `max`. It does
    // not survive: the ticket and the work inside are cancelled, and the
    // new gate starts empty.
    let old = priority([gate(2, act("Walk")), act("Look")]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.settle();
    agent.tick();
    agent.log.take();
    let (c, requests) = agent.reload(program(&priority([gate(1, act("Walk")), act("Look")])));
    assert_eq!(c, carried(0, 2, 0));
    assert_eq!(
        requests
            .iter()
            .map(|r| (r.kind, r.node.get()))
            .collect::<Vec<_>>(),
        [(RequestKind::Leave, 1)]
    );
    assert_eq!(agent.log.take(), ["Walk#2 cancel 1"]);
    let g = NodeIdx::new(1);
    assert_eq!(
        agent.program.globals().admitted(agent.program.shape(), g),
        Some(0)
    );
    assert!(agent.program.check_globals(&agent.actors).is_ok());
}

#[test]
fn a_program_for_other_events_is_refused() {
    let old = program(&act("Walk"));
    let mut leaves = Leaves::<Log>::new();
    leaves.action("Walk", walk);
    leaves.event("Heard");
    let new = leaves.compile(&act("Walk")).unwrap();
    let e = Remap::new(&old, new).unwrap_err();
    assert_eq!(e, ReloadError::Events { index: 0 });
    assert!(e.to_string().contains("event 0"), "{e}");
}

#[test]
fn a_group_keeps_its_active_decider_when_one_is_inserted_before_it() {
    // Named deciders: unnamed ones are `Decider[i]`, which an insertion
    // shifts.
    let old = group("prioritized", [decider(act("Walk")).named("walking")]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.log.take();
    let new = group(
        "prioritized",
        [
            decider_with(decide("never"), act("Aim")).named("aiming"),
            decider(act("Walk")).named("walking"),
        ],
    );
    let (c, _) = agent.reload(program(&new));
    assert_eq!(c, carried(1, 0, 0));
    assert_eq!(
        agent.actor().deciders().collect::<Vec<_>>(),
        [DeciderState::Value {
            node: NodeIdx::new(0),
            value: 4
        }]
    );
    // The earlier decider is asked and declines; Walk runs on.
    agent.tick();
    assert_eq!(agent.log.take(), ["Walk#5 tick 1"]);
}

#[test]
fn a_node_moved_under_another_parent_keeps_its_slot_but_not_its_running_work() {
    // Count (id 50) runs in `left`; the new version moves it into `right`.
    // It maps by its id, so its persistent slot follows it, but its path
    // does not hold (its parent is another node), so its running work is
    // cancelled with its clean-up and starts afresh where it now is
    // (docs/trees.md, "Hot reload").
    let old = sequence([
        sequence([act("Look"), act("Count").with_id(50)])
            .named("left")
            .with_id(10),
        sequence([act("Aim")]).named("right").with_id(20),
    ]);
    let new = sequence([
        sequence([act("Look")]).named("left").with_id(10),
        sequence([act("Aim"), act("Count").with_id(50)])
            .named("right")
            .with_id(20),
    ]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    agent.tick();
    assert_eq!(agent.actor().persistent(), &[2]);
    agent.log.take();
    let (c, requests) = agent.reload(program(&new));
    assert_eq!((c, requests), (carried(0, 1, 0), vec![]));
    assert_eq!(agent.log.take(), ["Count#3 cancel 0"]);
    assert!(agent.actor().is_idle());
    // The cancel call counted too: the slot follows the id with it.
    assert_eq!(agent.actor().persistent(), &[3], "the slot follows the id");
    agent.tick();
    assert_eq!(
        agent.log.take(),
        ["Look#2 start 0", "Aim#4 start 0", "Count#5 start 0"]
    );
    assert_eq!(agent.actor().persistent(), &[4]);
}

#[test]
fn entries_carry_by_name_and_type_and_strings_by_text() {
    let script = |source: &str| decider_of(Kind::Script, []).arg("script", source);
    let old = sequence([
        script("mood := 'calm'; hits := 2; gone := 'away'; speed := 1.5"),
        act("Walk"),
    ]);
    let mut agent = Agent::new(program(&old));
    agent.tick();
    let (actor, shape) = (agent.actor(), agent.program.shape());
    assert_eq!(
        actor.entry(shape, 0),
        Some(treebeard_vm::Value::Str("calm"))
    );
    // The new tree: a new entry first, `hits` kept, `speed` now an int,
    // `mood` a string it writes too (at another string word: its literals
    // come in another order), `gone` a string it never writes.
    let new = sequence([
        script("fresh := true; other := 'x'; mood := 'calm'; hits := 0; speed := 0"),
        script("gone := ''"),
        act("Walk"),
    ]);
    agent.reload(program(&new));
    let (actor, shape) = (agent.actor(), agent.program.shape());
    let value = |name: &str| {
        let i = shape.entries().iter().position(|e| &*e.name == name);
        actor.entry(shape, i.expect("an entry"))
    };
    use treebeard_vm::Value;
    assert_eq!(value("fresh"), Some(Value::Bool(false)), "new: its zero");
    assert_eq!(value("mood"), Some(Value::Str("calm")), "the same text");
    assert_eq!(value("hits"), Some(Value::Int(2)), "carried");
    assert_eq!(
        value("speed"),
        Some(Value::Int(0)),
        "another type: its zero"
    );
    assert_eq!(
        value("gone"),
        Some(Value::Str("")),
        "a text no script writes"
    );
}

/// Runs forever, counting its calls in its memory block (and by hundreds
/// in its persistent slot).
fn pace(log: &mut Log, call: &mut Call<'_>) -> Status {
    note(log, call, "Pace");
    if call.signal() != Signal::Cancel {
        let memory = call.memory::<[u32; 2]>();
        memory[0] += 1;
        memory[1] += 10;
        if let Some(slot) = call.persistent() {
            *slot += 100;
        }
    }
    Status::Running
}

#[test]
fn memory_blocks_follow_their_node() {
    let mut leaves = leaves();
    leaves
        .action("Pace", pace)
        .persistent()
        .memory::<[u32; 2]>();
    let link = |tree: &Node| {
        let shape = compile_with(tree, &leaves, &Options::default()).unwrap();
        Program::link(shape, &leaves).unwrap()
    };
    let old = sequence([act("Pace").named("p")]).named("s");
    let mut agent = Agent::new(link(&old));
    agent.tick();
    agent.tick();
    // Its persistent slot, then its memory block's two words.
    assert_eq!(agent.actor().persistent(), [200, 2, 20]);
    // A new leaf with a slot before it: its slots move by one, and its
    // persistent slot and memory words keep their places among them.
    let new = sequence([act("Count").named("c"), act("Pace").named("p")]).named("s");
    let (c, _) = agent.reload(link(&new));
    assert_eq!(c.cancelled, 0, "{c:?}");
    assert_eq!(agent.actor().persistent(), [0, 200, 2, 20]);
    agent.tick();
    assert_eq!(agent.actor().persistent(), [0, 300, 3, 30]);
}
