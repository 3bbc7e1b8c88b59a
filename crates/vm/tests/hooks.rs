//! Behaviors (initialise / update / terminate / event hooks) and event
//! delivery between ticks.

use treebeard_shape::ParamType;
use treebeard_shape::tree::{Node, act, cond, priority, sequence};
use treebeard_vm::{
    Actor, AgentId, Behavior, Call, Ending, EventId, Frame, Interpreter, Leaves, Program, Status,
};

/// The blackboard: a log of hook calls and a switch for the guard.
#[derive(Default)]
struct Bb {
    log: Vec<String>,
    alarm: bool,
}

/// Runs `ticks` ticks (its parameter), logging every hook.
struct Patrol;

impl Behavior<Bb> for Patrol {
    fn initialise(bb: &mut Bb, call: &mut Call<'_>) {
        bb.log.push(format!("init {}", call.state()));
    }
    fn update(bb: &mut Bb, call: &mut Call<'_>) -> Status {
        *call.state_mut() += 1;
        bb.log.push(format!("update {}", call.state()));
        if i64::from(call.state()) < call.int(0) {
            Status::Running
        } else {
            Status::Success
        }
    }
    fn terminate(bb: &mut Bb, call: &mut Call<'_>, how: Ending) {
        bb.log.push(format!("terminate {how:?} {}", call.state()));
    }
}

/// Runs until an event it listens for arrives, counting the events.
struct Listen;

impl Behavior<Bb> for Listen {
    const HANDLES_EVENTS: bool = true;
    fn update(_: &mut Bb, call: &mut Call<'_>) -> Status {
        if call.state() >= 2 {
            Status::Success
        } else {
            Status::Running
        }
    }
    fn event(bb: &mut Bb, call: &mut Call<'_>, event: EventId) {
        if event == call.event(0) {
            *call.state_mut() += 1;
        }
        if let Some(seen) = call.persistent() {
            *seen += 1;
        }
        bb.log
            .push(format!("event {} state {}", event.0, call.state()));
    }
}

fn leaves() -> (Leaves<Bb>, EventId, EventId) {
    let mut leaves = Leaves::<Bb>::new();
    let noise = leaves.event("noise");
    let alarm = leaves.event("alarm");
    leaves.condition("alarm", |bb, _| bb.alarm);
    leaves
        .behavior::<Patrol>("Patrol")
        .param("ticks", ParamType::Int);
    let event = leaves.event_param();
    leaves
        .behavior::<Listen>("Listen")
        .param("event", event)
        .persistent();
    leaves.action("Idle", |_, _| Status::Running);
    (leaves, noise, alarm)
}

struct Rig {
    program: Program<Bb>,
    actor: Actor,
    bb: Bb,
    interpreter: Interpreter,
}

impl Rig {
    fn new(tree: Node) -> Rig {
        let program = leaves().0.compile(&tree).unwrap();
        Rig {
            actor: Actor::for_shape(program.shape()),
            program,
            bb: Bb::default(),
            interpreter: Interpreter::new(),
        }
    }

    fn tick(&mut self) -> Status {
        let mut requests = Vec::new();
        self.interpreter.tick(
            &self.program,
            &Frame::default(),
            AgentId(0),
            &mut self.actor.as_mut(),
            &mut self.bb,
            &mut requests,
        )
    }

    fn send(&mut self, event: EventId) -> usize {
        self.interpreter.send_event(
            &self.program,
            &Frame::default(),
            AgentId(0),
            &mut self.actor.as_mut(),
            &mut self.bb,
            event,
        )
    }

    fn log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.bb.log)
    }
}

#[test]
fn hooks_run_in_order_once_per_start() {
    let mut rig = Rig::new(act("Patrol").param(2));
    assert_eq!(rig.tick(), Status::Running);
    assert_eq!(rig.log(), ["init 0", "update 1"]);
    assert_eq!(rig.tick(), Status::Success);
    assert_eq!(rig.log(), ["update 2", "terminate Success 2"]);
    // The next start initialises again from a fresh state.
    assert_eq!(rig.tick(), Status::Running);
    assert_eq!(rig.log(), ["init 0", "update 1"]);
}

#[test]
fn a_behavior_finishing_on_its_first_update_initialises_and_terminates() {
    let mut rig = Rig::new(act("Patrol").param(1));
    assert_eq!(rig.tick(), Status::Success);
    assert_eq!(rig.log(), ["init 0", "update 1", "terminate Success 1"]);
}

#[test]
fn cancelling_a_behavior_terminates_it_once() {
    let mut rig = Rig::new(priority([
        sequence([cond("alarm"), act("Idle")]),
        act("Patrol").param(5),
    ]));
    rig.tick();
    rig.tick();
    assert_eq!(rig.log(), ["init 0", "update 1", "update 2"]);
    rig.bb.alarm = true;
    assert_eq!(rig.tick(), Status::Running);
    assert_eq!(rig.log(), ["terminate Cancelled 2"]);
    rig.tick();
    assert!(rig.log().is_empty());
}

#[test]
fn events_reach_running_hooks_and_change_their_state() {
    let (_, noise, alarm) = leaves();
    let mut rig = Rig::new(act("Listen").param("alarm"));
    // Not running yet: nobody hears it.
    assert_eq!(rig.send(alarm), 0);
    assert_eq!(rig.tick(), Status::Running);
    assert_eq!(rig.send(noise), 1);
    assert_eq!(rig.send(alarm), 1);
    assert_eq!(rig.log(), ["event 0 state 0", "event 1 state 1"]);
    assert_eq!(rig.tick(), Status::Running);
    rig.send(alarm);
    assert_eq!(rig.tick(), Status::Success);
    // The persistent slot counted all three deliveries.
    assert_eq!(rig.actor.as_ref().persistent(), [3]);
    // Finished: no longer listening.
    assert_eq!(rig.send(alarm), 0);
}

#[test]
fn actions_without_hooks_do_not_get_events() {
    let (_, _, alarm) = leaves();
    let mut rig = Rig::new(sequence([
        act("Patrol").param(3),
        act("Listen").param("alarm"),
    ]));
    rig.tick();
    // The program has a hook, but only Patrol, which has none, runs.
    assert!(rig.program.handles_events());
    assert_eq!(rig.send(alarm), 0);
    let mut rig = Rig::new(act("Patrol").param(3));
    rig.tick();
    assert!(!rig.program.handles_events());
    assert_eq!(rig.send(alarm), 0);
}

#[test]
fn event_params_name_declared_events_with_suggestions() {
    let (leaves, _, _) = leaves();
    let e = leaves.compile(&act("Listen").param("alarn")).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("did you mean `alarm`"), "{text}");
}
