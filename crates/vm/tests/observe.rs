//! The observers over a small guard tree: the decision trace's levels and
//! filter, root reports, and the state print with durations.

use treebeard_shape::Kind;
use treebeard_shape::NodeIdx;
use treebeard_shape::tree::{Node, act, cond, decider_of, priority, sequence};
use treebeard_vm::observe::{
    ActiveSince, Both, DecisionTrace, RootReports, TraceLevel, print_state,
};
use treebeard_vm::{
    Actor, AgentId, Frame, Interpreter, Leaves, Observer, Program, Status, TraceEvent,
};

#[derive(Default)]
struct Guard {
    alarm: bool,
    steps: u32,
}

fn program() -> Program<Guard> {
    let mut leaves = Leaves::<Guard>::new();
    leaves.condition("alarm", |g, _| g.alarm);
    leaves.action("Flee", |_, _| Status::Success);
    leaves.action("Walk", |g, _| {
        g.steps += 1;
        if g.steps < 3 {
            Status::Running
        } else {
            Status::Success
        }
    });
    leaves.action("Idle", |_, _| Status::Running);
    let tree: Node = priority([
        sequence([cond("alarm"), act("Flee")]).named("flee"),
        sequence([act("Walk"), act("Idle")]).named("patrol"),
    ])
    .named("guard");
    leaves.compile(&tree).unwrap()
}

/// Two agents, ticked `ticks` times at 0.1 s with `observer`; the alarm
/// goes off for agent 0 before tick `alarm_at`.
fn run(observer: &mut dyn Observer, ticks: u64, alarm_at: u64) -> (Program<Guard>, Vec<Actor>) {
    let program = program();
    let mut actors = vec![Actor::for_shape(program.shape()); 2];
    let mut guards = [Guard::default(), Guard::default()];
    let mut interpreter = Interpreter::new();
    let mut frame = Frame::default();
    let mut requests = Vec::new();
    for t in 0..ticks {
        frame = frame.next(0.1);
        guards[0].alarm = t >= alarm_at;
        for (i, (actor, guard)) in actors.iter_mut().zip(&mut guards).enumerate() {
            let agent = AgentId(i as u32);
            if observer.watches(agent) {
                interpreter.tick_observed(
                    &program,
                    &frame,
                    agent,
                    &mut actor.as_mut(),
                    guard,
                    &mut requests,
                    observer,
                );
            } else {
                interpreter.tick(
                    &program,
                    &frame,
                    agent,
                    &mut actor.as_mut(),
                    guard,
                    &mut requests,
                );
            }
        }
    }
    (program, actors)
}

fn trace_at(level: u8, agents: Option<&[u32]>) -> String {
    let shape = program().shape().clone();
    let mut trace = DecisionTrace::new(&shape, TraceLevel::new(level).unwrap(), Vec::new());
    if let Some(agents) = agents {
        trace = trace.only(agents.iter().map(|&a| AgentId(a)));
    }
    run(&mut trace, 6, 4);
    assert!(trace.error().is_none());
    String::from_utf8(trace.into_inner()).unwrap()
}

/// The records of a trace: each `BT(n)` line with its continuation lines.
fn records(text: &str) -> Vec<(u8, String)> {
    let mut out: Vec<(u8, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("BT(") {
            out.push((rest.as_bytes()[0] - b'0', line.to_string()));
        } else {
            out.last_mut().expect("a record first").1 += line;
        }
    }
    out
}

#[test]
fn each_level_adds_to_the_one_below() {
    assert_eq!(trace_at(0, None), "", "level 0 says nothing");
    let mut below: Vec<(u8, String)> = Vec::new();
    for level in 1..=5 {
        let now = records(&trace_at(level, None));
        assert!(now.iter().all(|(n, _)| *n <= level), "level {level}");
        assert!(
            now.iter().any(|(n, _)| *n == level),
            "level {level} adds lines"
        );
        let kept: Vec<_> = now.iter().filter(|(n, _)| *n < level).cloned().collect();
        assert_eq!(
            kept,
            below,
            "level {level} keeps level {}'s lines",
            level - 1
        );
        below = now;
    }
}

#[test]
fn level_one_tells_behaviour_transitions_only() {
    let text = trace_at(1, None);
    let expected = [
        "BT(1) agent 0 @ 0.000:     activating behavior `Walk` (Action) in `patrol` (Sequence)",
        "BT(1) agent 1 @ 0.000:     activating behavior `Walk` (Action) in `patrol` (Sequence)",
        "BT(1) agent 0 @ 0.200:     behavior `Walk` (Action) ended: success",
        "BT(1) agent 0 @ 0.200:     activating behavior `Idle` (Action) in `patrol` (Sequence)",
        "BT(1) agent 1 @ 0.200:     behavior `Walk` (Action) ended: success",
        "BT(1) agent 1 @ 0.200:     activating behavior `Idle` (Action) in `patrol` (Sequence)",
        // The alarm: the flight starts and ends at once (an immediate
        // behaviour activates and ends in its tick), then the patrol's
        // running behaviour is cancelled.
        "BT(1) agent 0 @ 0.400:     activating behavior `Flee` (Action) in `flee` (Sequence)",
        "BT(1) agent 0 @ 0.400:     behavior `Flee` (Action) ended: success",
        "BT(1) agent 0 @ 0.400:     behavior `Idle` (Action) ended: cancelled",
        "BT(1) agent 0 @ 0.500:     activating behavior `Flee` (Action) in `flee` (Sequence)",
        "BT(1) agent 0 @ 0.500:     behavior `Flee` (Action) ended: success",
    ];
    assert_eq!(text.lines().collect::<Vec<_>>(), expected, "{text}");
}

#[test]
fn level_two_adds_deciders_and_the_root_report() {
    let text = trace_at(2, Some(&[0]));
    assert!(
        text.lines().all(|l| !l.starts_with("BT(2) agent 1")),
        "{text}"
    );
    assert!(text.contains("BT(2) agent 0 @ 0.000: activating `guard` (PrioritySelector)"));
    assert!(text.contains("BT(2) agent 0 @ 0.400:   node `patrol` (Sequence) ended: cancelled"));
    assert!(
        text.contains(
            "BT(2) agent 0 @ 0.400: the root finished with success; the tree restarts next tick."
        ),
        "{text}"
    );
}

#[test]
fn level_five_says_why_a_test_failed() {
    let text = trace_at(5, Some(&[1]));
    assert!(
        text.contains("BT(5) agent 1 @ 0.100:     `alarm` failed: Condition alarm"),
        "{text}"
    );
    assert!(
        text.contains("BT(4) agent 1 @ 0.000: visiting `guard` (PrioritySelector), 2 children")
    );
    assert!(text.contains(
        "BT(3) agent 1 @ 0.100:     ticking behavior `Walk` (Action), running for 0.100s"
    ));
    assert!(text.contains(
        "BT(3) agent 1 @ 0.500: **** finished tree for agent 1: root running, 3 nodes running ****"
    ));
}

#[test]
fn root_reports_name_the_last_events_and_the_tree_restarts() {
    let mut reports = RootReports::new(8).only([AgentId(0)]);
    let (program, _) = run(&mut reports, 5, 4);
    let got = reports.take();
    assert_eq!(
        got.len(),
        1,
        "the root finished once, at the alarm: {got:?}"
    );
    let report = &got[0];
    assert_eq!((report.agent, report.status), (AgentId(0), Status::Success));
    assert_eq!(report.recent.len(), 8);
    let last = report.recent.last().unwrap();
    assert_eq!(
        (last.node, last.event),
        (NodeIdx::ROOT, TraceEvent::Success)
    );
    assert!(report.recent.iter().any(|v| v.event == TraceEvent::Cancel));
    let text = report.render(program.shape());
    assert!(
        text.starts_with(
            "agent 0 @ 0.400: the root finished with success; the tree restarts next tick"
        ),
        "{text}"
    );
    assert!(text.contains("success  guard/flee/Flee (Action)"), "{text}");

    // The next tick starts the tree again from the root, and its report
    // holds that tick's events only.
    let mut reports = RootReports::new(64).only([AgentId(0)]);
    run(&mut reports, 6, 4);
    let got = reports.take();
    assert_eq!(got.len(), 2);
    let events: Vec<_> = got[1].recent.iter().map(|v| (v.node, v.event)).collect();
    assert_eq!(events[0], (NodeIdx::ROOT, TraceEvent::Start), "{events:?}");
    assert!(got[1].recent.iter().all(|v| v.time == got[1].time));
    assert_eq!(reports.recent(AgentId(0)).count(), 0);
}

#[test]
fn state_print_shows_the_active_path_with_durations() {
    let mut since = ActiveSince::new();
    let (program, actors) = run(&mut since, 4, 99);
    let text = print_state(
        &program,
        AgentId(1),
        actors[1].as_ref(),
        Some(&since),
        false,
    );
    assert_eq!(
        text,
        "*0 guard (PrioritySelector) 0.300s\n  *4 patrol (Sequence) 0.300s\n    *6 Idle (Action) 0.100s\n",
    );
    let whole = print_state(&program, AgentId(1), actors[1].as_ref(), None, true);
    assert_eq!(
        whole,
        "*0 guard (PrioritySelector)\n   1 flee (Sequence)\n     2 alarm (Condition)\n     \
         3 Flee (Action)\n  *4 patrol (Sequence)\n     5 Walk (Action)\n    *6 Idle (Action)\n"
    );
}

#[test]
fn two_observers_hear_only_their_agents() {
    let shape = program().shape().clone();
    let trace = DecisionTrace::new(&shape, TraceLevel::BEHAVIORS, Vec::new()).only([AgentId(1)]);
    let reports = RootReports::new(4).only([AgentId(0)]);
    let mut both = Both::new(trace, reports);
    run(&mut both, 6, 4);
    let text = String::from_utf8(both.first.into_inner()).unwrap();
    assert!(text.lines().all(|l| l.contains("agent 1")), "{text}");
    // The alarm rings from the fifth tick: the root succeeds on the fifth
    // and the sixth.
    assert_eq!(both.second.take().len(), 2);
}

#[test]
fn level_five_tells_a_decider_that_failed_its_own_test() {
    let mut leaves = Leaves::<Guard>::new();
    leaves.action("Flee", |_, _| Status::Success);
    leaves.action("Idle", |_, _| Status::Running);
    let tree = priority([
        decider_of(Kind::Cooldown, [act("Flee")])
            .arg("seconds", 10.0)
            .named("rest"),
        act("Idle"),
    ]);
    let text = level_five(&leaves.compile(&tree).unwrap(), 2, 0.1);
    // The first tick runs the child; the second finds the cool-down closed.
    assert!(
        text.contains(
            "BT(1) agent 0 @ 0.000:     activating behavior `Flee` (Action) in `rest` (Cooldown)\n\
             BT(3) agent 0 @ 0.000:     ticking behavior `Flee` (Action)\n\
             BT(1) agent 0 @ 0.000:     behavior `Flee` (Action) ended: success\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "BT(5) agent 0 @ 0.100:   `rest` failed, its own test, before any child: Cooldown"
        ),
        "{text}"
    );
}

#[test]
fn level_three_activates_a_restarted_behaviour_before_ticking_it() {
    // Flee ran and succeeded at 0.4, and starts again at 0.5: it activates
    // (level 1) before its first tick (level 3), which has run for no time.
    let text = trace_at(3, Some(&[0]));
    let at = |time: &str| -> Vec<&str> {
        text.lines()
            .filter(|l| l.contains(&format!("@ {time}:")) && l.contains("Flee"))
            .collect()
    };
    assert_eq!(
        at("0.500"),
        [
            "BT(1) agent 0 @ 0.500:     activating behavior `Flee` (Action) in `flee` (Sequence)",
            "BT(3) agent 0 @ 0.500:     ticking behavior `Flee` (Action)",
            "BT(1) agent 0 @ 0.500:     behavior `Flee` (Action) ended: success",
        ],
        "{text}"
    );
    // A behaviour that goes on running says for how long.
    assert!(
        text.contains(
            "BT(3) agent 0 @ 0.300:     ticking behavior `Idle` (Action), running for 0.100s"
        ),
        "{text}"
    );
}

/// Seed 000's level 5 over a Spore group: every decider asked, with its
/// answer and why it refused.
fn spore_trace() -> String {
    use treebeard_shape::tree::{decide, decider, decider_with, group};
    let mut leaves = Leaves::<Guard>::new();
    leaves.action("Die", |_, _| Status::Success);
    leaves.action("Eat", |_, _| Status::Success);
    leaves.action("Rest", |_, _| Status::Failure);
    leaves.action("Idle", |_, _| Status::Running);
    leaves.decide("hunger", |_, _| 0.0);
    leaves.decision_flags(|_| 0b10);
    let tree = group(
        "prioritized",
        [
            decider(act("Die")).arg("decision_all", 1).named("DIE"),
            decider_with(decide("hunger"), act("Eat")).named("EAT"),
            decider(act("Rest")).arg("every", 10.0).named("REST"),
            decider(act("Idle")).named("IDLE"),
        ],
    )
    .named("ROOT");
    level_five(&leaves.compile(&tree).unwrap(), 2, 0.5)
}

/// The level-5 trace of one agent's first `ticks` ticks of `program`, each
/// `dt` long.
fn level_five(program: &Program<Guard>, ticks: usize, dt: f32) -> String {
    let mut trace = DecisionTrace::new(program.shape(), TraceLevel::ALL, Vec::new());
    let mut actor = Actor::for_shape(program.shape());
    let mut frame = Frame::default();
    for _ in 0..ticks {
        frame = frame.next(dt);
        Interpreter::new().tick_observed(
            program,
            &frame,
            AgentId(0),
            &mut actor.as_mut(),
            &mut Guard::default(),
            &mut Vec::new(),
            &mut trace,
        );
    }
    String::from_utf8(trace.into_inner()).unwrap()
}

#[test]
fn level_five_names_each_decider_a_group_asks_and_why_it_refused() {
    let text = spore_trace();
    let asked: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("asked `"))
        .map(|l| l.split_once(": ").unwrap().1.trim_start())
        .map(|l| l.split(" (Decider").next().unwrap())
        .collect();
    assert_eq!(
        asked,
        [
            // Tick 0: REST fails at once, is masked, and IDLE runs.
            "asked `DIE`: refused: the decision flags 0x2 fail its precondition",
            "asked `EAT`: refused: its Decide scored 0",
            "asked `REST`: accepts, score 1",
            "asked `DIE`: refused: the decision flags 0x2 fail its precondition",
            "asked `EAT`: refused: its Decide scored 0",
            "asked `REST`: refused: masked (it ended this tick, or its group is past it)",
            "asked `IDLE`: accepts, score 1",
            // Tick 1: the deciders before the active IDLE are asked again;
            // REST's timer holds it off.
            "asked `DIE`: refused: the decision flags 0x2 fail its precondition",
            "asked `EAT`: refused: its Decide scored 0",
            "asked `REST`: refused: its timer holds it until 10.000",
        ],
        "{text}"
    );
    assert!(
        text.contains("asked `DIE`: refused: the decision flags 0x2 fail its precondition (Decider (every=0s, decision_all=1"),
        "the decider's parameters follow: {text}"
    );
}

#[test]
fn level_five_says_a_group_found_no_decider_not_that_it_failed_its_own_test() {
    use treebeard_shape::tree::{decide, decider_with, group};
    let mut leaves = Leaves::<Guard>::new();
    leaves.action("Eat", |_, _| Status::Success);
    leaves.decide("hunger", |_, _| 0.0);
    let tree = group("prioritized", [decider_with(decide("hunger"), act("Eat"))]).named("ROOT");
    let text = level_five(&leaves.compile(&tree).unwrap(), 1, 0.1);
    assert!(
        text.contains("`ROOT` failed, none of its deciders accepts: Group"),
        "{text}"
    );
    assert!(!text.contains("its own test"), "{text}");
}
