//! Node log messages on observed ticks: the `Logs` observer emits a node's
//! start, success and failure messages in event order, for the agent that
//! ticks, and nothing for nodes without messages or cancelled work
//! (crates/crowd/tests/logs.rs: nothing on unobserved ticks).

use treebeard_shape::LogEvent::{self, Failure, Start, Success};
use treebeard_shape::tree::{act, cond, priority, sequence};
use treebeard_shape::{Options, Source, compile_with};
use treebeard_vm::{
    Actor, AgentId, Frame, Interpreter, LogHistory, LogRecord, Logs, Outcome, Program, Status,
};

#[derive(Default)]
struct Critter {
    hungry: bool,
    meals: u32,
}

/// ```text
/// 0 PrioritySelector          start "deciding"
/// 1   Sequence "feed"         start "feed?", failure "no food"
/// 2     Condition hungry      failure "not hungry"
/// 3     Action Eat            start "eating", success "ate"
/// 4   Deferred Walk           start "walking", failure "stumbled"
/// 5   Action Idle             (no messages)
/// ```
fn program() -> Program<Critter> {
    let mut leaves = treebeard_vm::Leaves::<Critter>::new();
    leaves.condition("hungry", |c, _| c.hungry);
    leaves.action("Eat", |c, _| {
        c.meals += 1;
        Status::Success
    });
    leaves.deferred("Walk");
    leaves.action("Idle", |_, _| Status::Success);
    let tree = priority([
        sequence([
            cond("hungry").log(Failure, "not hungry"),
            act("Eat").log(Start, "eating").log(Success, "ate"),
        ])
        .named("feed")
        .log(Start, "feed?")
        .log(Failure, "no food")
        .at(Source::new(0, 2, 3)),
        act("Walk").log(Start, "walking").log(Failure, "stumbled"),
        act("Idle"),
    ])
    .named("critter")
    .log(Start, "deciding");
    let options = Options {
        files: vec!["critter.json".into()],
        ..Options::default()
    };
    let shape = compile_with(&tree, &leaves, &options).unwrap();
    Program::link(shape, &leaves).unwrap()
}

/// `(agent, node, event, message)` of each record.
type Said = (u32, u32, LogEvent, String);

fn said(history: &LogHistory, agent: u32) -> Vec<Said> {
    history
        .of(AgentId(agent))
        .map(|r| (agent, r.node.get(), r.event, r.message.to_string()))
        .collect()
}

fn s(agent: u32, node: u32, event: LogEvent, message: &str) -> Said {
    (agent, node, event, message.to_owned())
}

#[test]
fn messages_follow_the_trace_in_order_for_the_ticking_agent() {
    let program = program();
    let mut logs = Logs::new(program.shape(), LogHistory::new(16));
    let mut interpreter = Interpreter::new();
    let mut requests = Vec::new();
    let mut actors = [
        Actor::for_shape(program.shape()),
        Actor::for_shape(program.shape()),
    ];
    let mut critters = [
        Critter::default(),
        Critter {
            hungry: true,
            ..Critter::default()
        },
    ];
    let frame = Frame::default();
    for (i, (actor, critter)) in actors.iter_mut().zip(&mut critters).enumerate() {
        interpreter.tick_observed(
            &program,
            &frame,
            AgentId(i as u32),
            &mut actor.as_mut(),
            critter,
            &mut requests,
            &mut logs,
        );
    }
    // Agent 0 is not hungry: feed fails, Walk launches and runs.
    assert_eq!(
        said(logs.sink(), 0),
        [
            s(0, 0, Start, "deciding"),
            s(0, 1, Start, "feed?"),
            s(0, 2, Failure, "not hungry"),
            s(0, 1, Failure, "no food"),
            s(0, 4, Start, "walking"),
        ]
    );
    // Agent 1 eats; the root's success and the condition's carry no
    // message.
    assert_eq!(
        said(logs.sink(), 1),
        [
            s(1, 0, Start, "deciding"),
            s(1, 1, Start, "feed?"),
            s(1, 3, Start, "eating"),
            s(1, 3, Success, "ate"),
        ]
    );
    // Records carry the node's path, place and the frame.
    let first = logs.sink().of(AgentId(0)).nth(1).unwrap();
    assert_eq!(&*first.path, "critter/feed");
    assert_eq!(first.location.as_deref(), Some("critter.json:2:3"));
    assert_eq!(first.frame, frame);

    // Agent 0's running Walk is not started again; its failure is logged.
    logs.sink_mut().clear();
    let walk = requests[0].node;
    actors[0].as_mut().complete(walk, Outcome::Failure).unwrap();
    let frame = frame.next(0.1);
    interpreter.tick_observed(
        &program,
        &frame,
        AgentId(0),
        &mut actors[0].as_mut(),
        &mut critters[0],
        &mut requests,
        &mut logs,
    );
    // The root was running too: it does not start again.
    assert_eq!(
        said(logs.sink(), 0),
        [
            s(0, 1, Start, "feed?"),
            s(0, 2, Failure, "not hungry"),
            s(0, 1, Failure, "no food"),
            s(0, 4, Failure, "stumbled"),
        ]
    );
    assert!(logs.sink().of(AgentId(0)).all(|r| r.frame.index == 1));
}

#[test]
fn cancelled_work_logs_nothing() {
    let program = program();
    let mut records: Vec<String> = Vec::new();
    let mut interpreter = Interpreter::new();
    let mut requests = Vec::new();
    let mut actor = Actor::for_shape(program.shape());
    let mut critter = Critter::default();
    {
        let sink = |r: &LogRecord<'_>| records.push(format!("{} {}", r.event, r.message));
        let mut logs = Logs::new(program.shape(), sink);
        let frame = Frame::default();
        interpreter.tick_observed(
            &program,
            &frame,
            AgentId(9),
            &mut actor.as_mut(),
            &mut critter,
            &mut requests,
            &mut logs,
        );
        // Hungry now: feed wins and Walk, running, is cancelled.
        critter.hungry = true;
        interpreter.tick_observed(
            &program,
            &frame.next(0.1),
            AgentId(9),
            &mut actor.as_mut(),
            &mut critter,
            &mut requests,
            &mut logs,
        );
    }
    assert_eq!(
        records,
        [
            "start deciding",
            "start feed?",
            "failure not hungry",
            "failure no food",
            "start walking",
            // The second tick: the root and Walk are running, so only feed
            // and Eat start; Walk is cancelled without a message.
            "start feed?",
            "start eating",
            "success ate",
        ]
    );
}

#[test]
fn a_shape_without_messages_is_not_watched() {
    use treebeard_vm::Observer;
    let mut leaves = treebeard_vm::Leaves::<Critter>::new();
    leaves.action("Idle", |_, _| Status::Success);
    let plain = leaves.compile(&sequence([act("Idle")])).unwrap();
    let logs = Logs::new(plain.shape(), LogHistory::new(4));
    assert!(!logs.watches(AgentId(0)));
    let logged = program();
    let mut logs = logs;
    logs.set_shape(logged.shape());
    assert!(logs.watches(AgentId(0)));
    // Back to the plain shape (after a reload): its items log nothing.
    logs.set_shape(plain.shape());
    assert!(!logs.watches(AgentId(0)));
    let mut interpreter = Interpreter::new();
    let mut actor = Actor::for_shape(plain.shape());
    interpreter.tick_observed(
        &plain,
        &Frame::default(),
        AgentId(0),
        &mut actor.as_mut(),
        &mut Critter::default(),
        &mut Vec::new(),
        &mut logs,
    );
    assert!(logs.sink().agents().is_empty());
}
