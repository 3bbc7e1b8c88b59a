//! Teams in a crowd: `Team` and `Sync` nodes (seed 001's group behaviors:
//! "restrict certain behavior branches to only execute when we have exactly
//! 2 agents", roles, sync points, and resetting the partners' trees when one
//! breaks out). Matching follows the order agents asked in, then agent
//! order; members pass a sync point together; a member that succeeds leaves
//! and one that leaves any other way breaks the team, whose partners' branches
//! are cancelled with their clean-up; and the crowd's results are identical
//! at any thread count and chunking.

mod common;

use rayon::ThreadPoolBuilder;
use treebeard_crowd::{Crowd, PlanConfig};
use treebeard_shape::NodeIdx;
use treebeard_shape::tree::{
    Node, act, concurrent, cond, gate, global_cooldown, leaf, priority, sequence, sync, team,
};
use treebeard_vm::{
    ActionState, ActorLayout, Actors, AgentId, Args, Call, Completion, Ending, Frame, Globals,
    Interpreter, Leaves, Outcome, Program, Request, RequestKind, ScopeHooks, Seat, Signal, Status,
};

/// What an agent did in the last tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Doing {
    #[default]
    Nothing,
    Lead,
    Follow,
    Work,
    After,
    Flee,
    Idle,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Mate {
    dice: u64,
    doing: Doing,
    /// How many ticks its work runs (the last one succeeds).
    work: u32,
    /// Whether its work ends at random instead.
    jitter: bool,
    /// Set by the game: a reason to break out.
    alarmed: bool,
    /// Frames in which its `after` ran (it passed its syncs).
    passed: Vec<u64>,
    /// Cancel calls its actions got.
    cancelled: u32,
    /// Its `Huddle` scope's enters and exits.
    enters: u32,
    exits: u32,
}

impl Mate {
    fn new(seed: u64, work: u32) -> Mate {
        Mate {
            dice: (seed + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            work,
            ..Mate::default()
        }
    }

    /// The agent's own dice: results do not depend on the thread.
    fn roll(&mut self, sides: u64) -> u64 {
        self.dice ^= self.dice << 13;
        self.dice ^= self.dice >> 7;
        self.dice ^= self.dice << 17;
        self.dice % sides
    }

    /// One tick of work as `what`: `work` ticks, or at random.
    fn step(&mut self, what: Doing, call: &mut Call<'_>) -> Status {
        if call.signal() == Signal::Cancel {
            self.cancelled += 1;
            return Status::Failure;
        }
        self.doing = what;
        if self.jitter {
            return match self.roll(6) {
                0 => Status::Failure,
                1 | 2 => Status::Success,
                _ => Status::Running,
            };
        }
        if call.state() + 1 >= self.work {
            return Status::Success;
        }
        *call.state_mut() += 1;
        Status::Running
    }
}

fn lead(m: &mut Mate, call: &mut Call<'_>) -> Status {
    m.step(Doing::Lead, call)
}

fn follow(m: &mut Mate, call: &mut Call<'_>) -> Status {
    m.step(Doing::Follow, call)
}

fn work(m: &mut Mate, call: &mut Call<'_>) -> Status {
    m.step(Doing::Work, call)
}

/// Runs until cancelled.
fn hold(m: &mut Mate, call: &mut Call<'_>) -> Status {
    if call.signal() == Signal::Cancel {
        m.cancelled += 1;
        return Status::Failure;
    }
    m.doing = Doing::Work;
    Status::Running
}

fn after(m: &mut Mate, call: &mut Call<'_>) -> Status {
    m.doing = Doing::After;
    m.passed.push(call.frame().index);
    Status::Success
}

fn flee(m: &mut Mate, _: &mut Call<'_>) -> Status {
    m.doing = Doing::Flee;
    Status::Success
}

fn idle(m: &mut Mate, _: &mut Call<'_>) -> Status {
    m.doing = Doing::Idle;
    Status::Success
}

fn alarmed(m: &Mate, _: &Args<'_>) -> bool {
    m.alarmed
}

/// A scope that counts its enters and exits.
struct Huddle;

impl ScopeHooks<Mate> for Huddle {
    fn enter(m: &mut Mate, _: &Args<'_>) {
        m.enters += 1;
    }

    fn exit(m: &mut Mate, _: &Args<'_>, _: Ending) {
        m.exits += 1;
    }
}

fn leaves() -> Leaves<Mate> {
    let mut leaves = Leaves::new();
    leaves.condition("alarmed", alarmed);
    leaves.action("lead", lead);
    leaves.action("follow", follow);
    leaves.action("work", work);
    leaves.action("hold", hold);
    leaves.action("after", after);
    leaves.action("flee", flee);
    leaves.action("idle", idle);
    leaves.deferred("radio");
    leaves.scope::<Huddle>("Huddle");
    leaves
}

fn huddle(child: Node) -> Node {
    let mut scope = leaf("Huddle");
    scope.push(child);
    scope
}

fn crowd(tree: &Node, mates: Vec<Mate>) -> Crowd<Mate> {
    let program = leaves().compile(tree).expect("tree");
    Crowd::with_agents(program, mates)
}

fn tick(crowd: &mut Crowd<Mate>) {
    crowd.tick_with(1.0, |_, m| m.doing = Doing::Nothing);
}

fn doing(crowd: &Crowd<Mate>, what: Doing) -> Vec<u32> {
    (0..crowd.slots() as u32)
        .filter(|&i| crowd.blackboards()[i as usize].doing == what)
        .collect()
}

/// The crowd's teams: index and members by role.
fn teams(crowd: &Crowd<Mate>) -> Vec<(u32, Vec<u32>)> {
    crowd
        .program()
        .globals()
        .teams()
        .map(|(i, t)| (i, t.members().map(|m| m.0).collect()))
        .collect()
}

/// The requests of the last tick of `kind` (compared without data), as
/// (agent, node).
fn requests(crowd: &Crowd<Mate>, kind: fn(&RequestKind) -> bool) -> Vec<(u32, u32)> {
    crowd
        .requests()
        .iter()
        .filter(|r| kind(&r.kind))
        .map(|r| (r.agent.0, r.node.get()))
        .collect()
}

/// The value of a team member's admitted ticket (docs/nodes.md): the seat
/// above the two state bits, the team's index above the 5 role bits.
fn seated(team: u32, role: u32) -> u32 {
    (team << 5 | role) << 2 | 1
}

/// A refused ticket asking since `frame`.
fn refused(frame: u32) -> ActionState {
    ActionState::Running(frame << 2 | 2)
}

/// A ticket whose team broke.
const BROKEN: ActionState = ActionState::Running(3);

#[test]
fn askers_are_matched_in_order_and_roles_run_their_own_children() {
    // 0 PrioritySelector
    // 1   Team(2)
    // 2     Action lead      (role 0)
    // 3     Action follow    (role 1)
    // 4   Action idle
    let tree = priority([team(2, [act("lead"), act("follow")]), act("idle")]);
    let team_node = NodeIdx::new(1);
    // Agents 0 and 1 finish their parts at once; the others take a while.
    let mates = (0..7).map(|i| Mate::new(i, if i < 2 { 1 } else { 5 }));
    let mut crowd = crowd(&tree, mates.collect());
    let shape = crowd.program().shape().clone();

    // Tick 1: everybody asks (the team node fails) and idles meanwhile.
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Idle), [0, 1, 2, 3, 4, 5, 6]);
    let enters = requests(&crowd, |k| *k == RequestKind::Enter);
    assert_eq!(enters, (0..7).map(|a| (a, 1)).collect::<Vec<_>>());
    // Matched in agent order (all asked in the same frame); agent 6 is
    // left over, refused, and keeps asking since frame 1.
    assert_eq!(
        teams(&crowd),
        [(0, vec![0, 1]), (1, vec![2, 3]), (2, vec![4, 5])]
    );
    let globals = crowd.program().globals();
    assert_eq!(globals.teams_at(&shape, team_node), Some(3));
    assert_eq!(
        globals.seat_of(team_node, AgentId(5)),
        Some(Seat { team: 2, role: 1 })
    );
    assert_eq!(globals.seat_of(team_node, AgentId(6)), None);
    assert_eq!(
        crowd.actor(AgentId(5)).action(team_node),
        Some(ActionState::Running(seated(2, 1)))
    );
    // (Asking since the first tick's frame, index 0.)
    assert_eq!(crowd.actor(AgentId(6)).action(team_node), Some(refused(0)));

    // Tick 2: role 0 leads and role 1 follows, each its own child. Agents
    // 0 and 1 finish and leave: their team ends. Agent 6 asks again, alone.
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Lead), [0, 2, 4]);
    assert_eq!(doing(&crowd, Doing::Follow), [1, 3, 5]);
    assert_eq!(doing(&crowd, Doing::Idle), [6]);
    let left = requests(&crowd, |k| matches!(k, RequestKind::LeaveTeam { .. }));
    assert_eq!(left, [(0, 1), (1, 1)]);
    assert!(crowd.requests().contains(&Request {
        agent: AgentId(1),
        node: team_node,
        action: treebeard_shape::ActionId(0),
        kind: RequestKind::LeaveTeam {
            seat: Seat { team: 0, role: 1 }
        },
    }));
    assert_eq!(teams(&crowd), [(1, vec![2, 3]), (2, vec![4, 5])]);
    assert_eq!(crowd.actor(AgentId(6)).action(team_node), Some(refused(0)));

    // Tick 3: agents 0 and 1 ask again, after agent 6, which has asked
    // since frame 0: it goes first. The team takes the lowest free record.
    tick(&mut crowd);
    assert_eq!(teams(&crowd)[0], (0, vec![6, 0]));
    assert_eq!(crowd.actor(AgentId(1)).action(team_node), Some(refused(2)));
    tick(&mut crowd);
    assert!(doing(&crowd, Doing::Lead).contains(&6));
    assert!(doing(&crowd, Doing::Follow).contains(&0));
    assert_eq!(doing(&crowd, Doing::Idle), [1]);
}

#[test]
fn members_arriving_at_different_ticks_pass_a_sync_in_the_same_tick() {
    // 0 PrioritySelector
    // 1   Team(3)
    // 2     Sequence
    // 3       Action work
    // 4       Sync(1)
    // 5       Action after
    // 6   Action idle
    let tree = priority([
        team(3, [sequence([act("work"), sync(1), act("after")])]),
        act("idle"),
    ]);
    let sync_node = NodeIdx::new(4);
    let mates = vec![Mate::new(0, 1), Mate::new(1, 3), Mate::new(2, 5)];
    let mut crowd = crowd(&tree, mates);
    let mut arrivals = Vec::new();
    for t in 1..=7u32 {
        tick(&mut crowd);
        for r in crowd.requests() {
            if let RequestKind::Arrive { seat } = r.kind {
                assert_eq!(r.node, sync_node);
                arrivals.push((t, r.agent.0, seat.role));
            }
        }
        if t == 5 {
            // Agents 0 and 1 wait at the sync; agent 2 still works.
            assert_eq!(doing(&crowd, Doing::Work), [2]);
            for a in [0, 1] {
                assert_eq!(
                    crowd.actor(AgentId(a)).action(sync_node),
                    Some(ActionState::Running(1))
                );
            }
            let (_, team) = crowd.program().globals().teams().next().expect("a team");
            assert_eq!(
                (0..3).map(|r| team.reached(r)).collect::<Vec<_>>(),
                [1, 1, 0]
            );
        }
    }
    // Tick 1 asks; from tick 2 each works for its ticks and arrives once,
    // in the tick its work ends.
    assert_eq!(arrivals, [(2, 0, 0), (4, 1, 1), (6, 2, 2)]);
    // All pass in tick 7, the tick after the last arrived (frame 6).
    for m in crowd.blackboards() {
        assert_eq!(m.passed, [6]);
    }
    // They all left by success: the team ended.
    assert!(teams(&crowd).is_empty());
    let left = requests(&crowd, |k| matches!(k, RequestKind::LeaveTeam { .. }));
    assert_eq!(left.len(), 3);
}

/// A team whose members hold running work inside a scope: an immediate
/// action and a deferred one, beside each other; a reactive guard above
/// lets a member flee.
///
/// ```text
/// 0 PrioritySelector
/// 1   Sequence
/// 2     Condition alarmed
/// 3     Action flee
/// 4   Team(2)
/// 5     Huddle (a scope)
/// 6       Concurrent
/// 7         Action hold
/// 8         Deferred radio
/// 9   Action idle
/// ```
fn huddle_tree() -> Node {
    priority([
        sequence([cond("alarmed"), act("flee")]),
        team(2, [huddle(concurrent([act("hold"), act("radio")]))]),
        act("idle"),
    ])
}

const HUDDLE_TEAM: NodeIdx = NodeIdx::new(4);
const RADIO: NodeIdx = NodeIdx::new(8);

#[test]
fn a_member_cancelled_by_a_higher_priority_breaks_the_team_and_its_partner_cleans_up() {
    let mut crowd = crowd(&huddle_tree(), vec![Mate::new(0, 1), Mate::new(1, 1)]);
    let shape = crowd.program().shape().clone();
    for _ in 0..3 {
        tick(&mut crowd);
    }
    assert_eq!(teams(&crowd), [(0, vec![0, 1])]);
    assert_eq!(doing(&crowd, Doing::Work), [0, 1]);
    for m in crowd.blackboards() {
        assert_eq!((m.enters, m.exits, m.cancelled), (1, 0, 0));
    }

    // Tick 4: the game alarms agent 0, whose guard takes over: its own
    // branch is cancelled, and it breaks out. Agent 1 goes on this tick.
    crowd.blackboards_mut()[0].alarmed = true;
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Flee), [0]);
    assert_eq!(doing(&crowd, Doing::Work), [1]);
    let m0 = &crowd.blackboards()[0];
    assert_eq!((m0.enters, m0.exits, m0.cancelled), (1, 1, 1));
    let broke = requests(&crowd, |k| matches!(k, RequestKind::BreakOut { .. }));
    assert_eq!(broke, [(0, HUDDLE_TEAM.get())]);
    assert_eq!(
        requests(&crowd, |k| *k == RequestKind::Cancel),
        [(0, RADIO.get())]
    );
    // Settled: the team ended, and agent 1's ticket says it broke.
    assert!(teams(&crowd).is_empty());
    let globals = crowd.program().globals();
    assert_eq!(globals.teams_at(&shape, HUDDLE_TEAM), Some(0));
    assert_eq!(crowd.actor(AgentId(1)).action(HUDDLE_TEAM), Some(BROKEN));

    // Tick 5: agent 1's team node fails, cancelling its branch with the
    // usual clean-up (a cancel call, the scope's exit, a cancel request),
    // and it asks again; so does agent 0, calm again.
    crowd.blackboards_mut()[0].alarmed = false;
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Idle), [0, 1]);
    let m1 = &crowd.blackboards()[1];
    assert_eq!((m1.enters, m1.exits, m1.cancelled), (1, 1, 1));
    assert_eq!(
        requests(&crowd, |k| *k == RequestKind::Cancel),
        [(1, RADIO.get())]
    );
    assert_eq!(
        requests(&crowd, |k| *k == RequestKind::Enter),
        [(0, HUDDLE_TEAM.get()), (1, HUDDLE_TEAM.get())]
    );
    assert!(requests(&crowd, |k| matches!(k, RequestKind::BreakOut { .. })).is_empty());
    // A new team, in the freed record.
    assert_eq!(teams(&crowd), [(0, vec![0, 1])]);
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Work), [0, 1]);
    for m in crowd.blackboards() {
        assert_eq!((m.enters, m.exits), (2, 1));
    }
}

#[test]
fn a_member_that_succeeds_leaves_without_breaking_the_team() {
    // 0 PrioritySelector
    // 1   Team(2)
    // 2     Sequence          (role 0)
    // 3       Action work
    // 4       Sync(1)
    // 5       Action after
    // 6     Action work       (role 1: works, and is done)
    // 7   Action idle
    let tree = priority([
        team(
            2,
            [sequence([act("work"), sync(1), act("after")]), act("work")],
        ),
        act("idle"),
    ]);
    let mut crowd = crowd(&tree, vec![Mate::new(0, 1), Mate::new(1, 3)]);
    let mut all = Vec::new();
    for _ in 0..4 {
        tick(&mut crowd);
        all.extend_from_slice(crowd.requests());
    }
    // Agent 0 waits at the sync since tick 2; agent 1 finished in tick 4
    // and left: still one member in the team.
    assert!(crowd.blackboards()[0].passed.is_empty());
    let (_, record) = crowd.program().globals().teams().next().expect("a team");
    assert_eq!(record.alive(), 0b01);
    assert!(!record.is_alive(1));
    // Tick 5 (frame 4): the members still in the team have all reached
    // the point.
    tick(&mut crowd);
    all.extend_from_slice(crowd.requests());
    assert_eq!(crowd.blackboards()[0].passed, [4]);
    assert!(teams(&crowd).is_empty());
    assert!(
        !all.iter()
            .any(|r| matches!(r.kind, RequestKind::BreakOut { .. })),
        "nobody broke out"
    );
    for m in crowd.blackboards() {
        assert_eq!(m.cancelled, 0);
    }
}

#[test]
fn halting_a_member_breaks_its_team() {
    // Ticking agents one by one, as code without a crowd does: settle
    // after each round.
    let mut program: Program<Mate> = leaves().compile(&huddle_tree()).expect("tree");
    let mut actors = Actors::new(ActorLayout::for_shape(program.shape()), 2);
    let mut mates = vec![Mate::new(0, 1), Mate::new(1, 1)];
    let mut interpreter = Interpreter::with_capacity(program.spec());
    let mut frame = Frame::default();
    let mut requests = Vec::new();
    let mut round = |program: &mut Program<Mate>,
                     actors: &mut Actors,
                     mates: &mut [Mate],
                     agents: &[usize],
                     requests: &mut Vec<Request>| {
        frame = frame.next(1.0);
        requests.clear();
        for &i in agents {
            let actor = &mut actors.get_mut(i);
            interpreter.tick(
                program,
                &frame,
                AgentId(i as u32),
                actor,
                &mut mates[i],
                requests,
            );
        }
        program.settle(&frame, requests, actors);
    };
    for _ in 0..3 {
        round(
            &mut program,
            &mut actors,
            &mut mates,
            &[0, 1],
            &mut requests,
        );
    }
    assert_eq!(program.globals().teams().count(), 1);

    // The agent leaves the crowd: it is halted, and its requests settled.
    requests.clear();
    let mut halter = Interpreter::with_capacity(program.spec());
    halter.halt(
        &program,
        &Frame::default(),
        AgentId(0),
        &mut actors.get_mut(0),
        &mut mates[0],
        &mut requests,
    );
    assert!(requests.contains(&Request {
        agent: AgentId(0),
        node: HUDDLE_TEAM,
        action: treebeard_shape::ActionId(0),
        kind: RequestKind::BreakOut {
            seat: Seat { team: 0, role: 0 }
        },
    }));
    assert_eq!(mates[0].cancelled, 1);
    assert_eq!(mates[0].exits, 1);
    program.settle(&Frame::default(), &requests, &mut actors);
    assert_eq!(program.globals().teams().count(), 0);
    assert_eq!(actors.get(1).action(HUDDLE_TEAM), Some(BROKEN));

    // The partner's next tick cancels its branch, and it asks again.
    round(&mut program, &mut actors, &mut mates, &[1], &mut requests);
    assert_eq!(mates[1].doing, Doing::Idle);
    assert_eq!((mates[1].cancelled, mates[1].exits), (1, 1));
    let kinds: Vec<RequestKind> = requests.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RequestKind::Cancel, RequestKind::Enter]);
}

#[test]
fn the_validator_keeps_syncs_in_teams_and_teams_sized() {
    let compile = |tree: Node| {
        leaves()
            .compile(&tree)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let alone = compile(sequence([act("work"), sync(1)])).unwrap_err();
    assert!(
        alone.contains("a Sync stands only inside a Team"),
        "{alone}"
    );
    let deep = team(
        2,
        [priority([sequence([act("work"), sync(2)]), act("idle")])],
    );
    assert_eq!(compile(deep), Ok(()));
    let roles = compile(team(3, [act("lead"), act("follow")])).unwrap_err();
    assert!(roles.contains("`size` children, one per role"), "{roles}");
    let one = compile(team(1, [act("lead")])).unwrap_err();
    assert!(one.contains("1 is not a team size: give 2 to 32"), "{one}");
    let zero = compile(team(2, [sync(0)])).unwrap_err();
    assert!(
        zero.contains("0 is not a sync point: give 1 to 255"),
        "{zero}"
    );
    assert_eq!(compile(team(32, [sync(255)])), Ok(()));
}

/// A crowd forming and breaking teams at random: two team nodes (a team of
/// three with a role each, syncs skipped by one role, a scope and a
/// deferred action; and pairs), a guard that makes members flee at random,
/// and work that ends (or fails) at random.
///
/// ```text
///  0 PrioritySelector
///  1   Sequence
///  2     Condition alarmed
///  3     Action flee
///  4   Team(3)
///  5     Sequence             (role 0)
///  6       Action lead
///  7       Sync(1)
///  8       Action lead
///  9       Sync(2)
/// 10       Action after
/// 11     Sequence             (role 1: no sync 1)
/// 12       Action follow
/// 13       Sync(2)
/// 14       Action after
/// 15     Huddle               (role 2)
/// 16       Sequence
/// 17         Action work
/// 18         Sync(1)
/// 19         Deferred radio
/// 20         Sync(2)
/// 21         Action after
/// 22   Team(2)
/// 23     Action work
/// 24   Action idle
/// ```
fn busy_tree() -> Node {
    priority([
        sequence([cond("alarmed"), act("flee")]),
        team(
            3,
            [
                sequence([act("lead"), sync(1), act("lead"), sync(2), act("after")]),
                sequence([act("follow"), sync(2), act("after")]),
                huddle(sequence([
                    act("work"),
                    sync(1),
                    act("radio"),
                    sync(2),
                    act("after"),
                ])),
            ],
        ),
        team(2, [act("work")]),
        // Gates and a global cool-down beside the teams.
        global_cooldown(1.5, gate(2, act("work"))),
        gate(5, act("radio")),
        act("idle"),
    ])
}

fn busy(n: usize) -> Crowd<Mate> {
    let mates = (0..n as u64)
        .map(|i| Mate {
            jitter: true,
            ..Mate::new(i, 1)
        })
        .collect();
    crowd(&busy_tree(), mates)
}

/// A tick of the busy crowd: the game alarms agents at random (from their
/// own dice) and completes last tick's radio calls.
fn busy_tick(crowd: &mut Crowd<Mate>) {
    busy_game(crowd);
    crowd.tick_with(1.0, |_, m| {
        m.doing = Doing::Nothing;
        m.alarmed = m.roll(25) == 0;
    });
}

/// The busy crowd's game between ticks: it completes last tick's radio
/// calls (failing every fifth agent's).
fn busy_game(crowd: &mut Crowd<Mate>) {
    let launched: Vec<Request> = crowd
        .requests()
        .iter()
        .filter(|r| r.kind == RequestKind::Launch)
        .copied()
        .collect();
    for r in launched {
        let outcome = if r.agent.0 % 5 == 0 {
            Outcome::Failure
        } else {
            Outcome::Success
        };
        crowd.complete(Completion {
            agent: r.agent,
            node: r.node,
            outcome,
        });
    }
}

/// Every member still in a team holds its seat in its ticket, every
/// admitted team ticket is a seat of a team the agent is still in, and
/// each team node's count is its teams.
fn check_tables(crowd: &Crowd<Mate>, t: usize) {
    let globals = crowd.program().globals();
    let shape = crowd.program().shape();
    for (index, team) in globals.teams() {
        for (role, agent) in team.members().enumerate() {
            let role = role as u32;
            let held = crowd.actor(agent).action(team.node());
            if team.is_alive(role) {
                assert_eq!(
                    held,
                    Some(ActionState::Running(seated(index, role))),
                    "tick {t}: {agent} at role {role} of team {index}"
                );
            }
        }
    }
    for node in [NodeIdx::new(4), NodeIdx::new(22)] {
        let count = globals.teams().filter(|(_, t)| t.node() == node).count();
        assert_eq!(
            globals.teams_at(shape, node),
            Some(count as u32),
            "tick {t}"
        );
        for a in 0..crowd.len() as u32 {
            if let Some(ActionState::Running(v)) = crowd.actor(AgentId(a)).action(node)
                && v & 3 == 1
            {
                let seat = globals.seat_of(node, AgentId(a));
                assert_eq!(seat.map(|s| seated(s.team, s.role)), Some(v), "tick {t}");
            }
        }
    }
}

#[test]
fn team_records_always_match_the_members_tickets() {
    let mut crowd = busy(200);
    let mut seen = [0usize; 4];
    for t in 0..150 {
        busy_tick(&mut crowd);
        check_tables(&crowd, t);
        for r in crowd.requests() {
            match r.kind {
                RequestKind::Arrive { .. } => seen[0] += 1,
                RequestKind::LeaveTeam { .. } => seen[1] += 1,
                RequestKind::BreakOut { .. } => seen[2] += 1,
                _ => {}
            }
        }
        seen[3] += crowd
            .blackboards()
            .iter()
            .filter(|m| m.doing == Doing::After)
            .count();
    }
    assert!(
        seen.iter().all(|&n| n > 20),
        "the run exercises it all: {seen:?}"
    );
}

/// Every agent's blackboard and stored states, and the crowd's global state
/// (teams included).
type State = (Vec<Mate>, Vec<Vec<(u32, ActionState)>>, Globals);

fn state(crowd: &Crowd<Mate>) -> State {
    (
        crowd.blackboards().to_vec(),
        common::action_states(crowd),
        crowd.program().globals().clone(),
    )
}

fn run(threads: usize, plan: PlanConfig, ticks: usize) -> (State, Vec<Vec<Request>>) {
    common::on_threads(threads, || {
        let mut crowd = busy(3000);
        crowd.set_plan_config(plan);
        let mut requests = Vec::new();
        for t in 0..ticks {
            // Every other tick an agent leaves (breaking its teams)
            // and a newcomer takes its slot, at a tick rate of 1 to 3.
            if t % 2 == 1 {
                let mut cancels = Vec::new();
                let leaving = AgentId((t * 7919 % crowd.slots()) as u32);
                crowd.remove(leaving, &mut cancels);
                requests.push(cancels);
                let id = crowd.spawn(Mate {
                    jitter: true,
                    ..Mate::new(t as u64 + 5000, 1)
                });
                crowd.set_tick_rate(id, 1 + (t % 3) as u32).unwrap();
            }
            busy_tick(&mut crowd);
            // No removal leaks a record or a seat.
            if let Err(e) = crowd.check_globals() {
                panic!("tick {t}: {e}");
            }
            requests.push(crowd.requests().to_vec());
        }
        (state(&crowd), requests)
    })
}

/// With agents leaving and joining as it runs, at mixed tick rates.
#[test]
fn teams_are_identical_at_any_thread_count_and_chunking() {
    let ticks = 60;
    let reference = run(1, PlanConfig::default(), ticks);
    let all = || reference.1.iter().flatten();
    assert!(all().any(|r| matches!(r.kind, RequestKind::BreakOut { .. })));
    assert!(all().any(|r| matches!(r.kind, RequestKind::Arrive { .. })));
    // The gates and the global cool-down beside the teams were used too.
    assert!(all().any(|r| r.kind == RequestKind::StartCooldown));
    assert!(all().any(|r| r.kind == RequestKind::Leave));
    assert!(reference.0.2.teams().count() > 100, "teams at the end");
    common::assert_same_at_any_thread_count(&reference, &[0, 64, 1000], |threads, plan| {
        run(threads, plan, ticks)
    });
}

#[test]
fn traced_ticks_agree_with_plain_ticks_at_any_thread_count() {
    // The same game on both crowds: alarms from the agents' own dice before
    // the tick, the radio calls of the last tick completed. The plain crowd
    // ticks in parallel; the traces are the same at 1, 2, 3 and 8 threads.
    let mut traces = Vec::new();
    for threads in [1, 2, 3, 8] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        traces.push(pool.install(|| {
            let mut plain = busy(300);
            let mut traced = busy(300);
            let mut events = Vec::new();
            for _ in 0..40 {
                busy_tick(&mut plain);
                busy_game(&mut traced);
                for m in traced.blackboards_mut() {
                    m.doing = Doing::Nothing;
                    m.alarmed = m.roll(25) == 0;
                }
                traced.tick_traced(1.0, &mut |agent, node, event| {
                    events.push((agent, node, event));
                });
                assert_eq!(traced.requests(), plain.requests(), "{threads} threads");
            }
            assert!(state(&traced) == state(&plain), "{threads} threads");
            events
        }));
    }
    assert!(!traces[0].is_empty());
    assert!(traces.iter().all(|t| *t == traces[0]), "traces differ");
}

/// Two pairs huddling: agents 0 and 1, agents 2 and 3.
fn huddling_pairs(tree: &Node) -> Crowd<Mate> {
    let mut crowd = crowd(tree, (0..4).map(|i| Mate::new(i, 1)).collect());
    for _ in 0..3 {
        tick(&mut crowd);
    }
    assert_eq!(teams(&crowd), [(0, vec![0, 1]), (1, vec![2, 3])]);
    assert_eq!(doing(&crowd, Doing::Work), [0, 1, 2, 3]);
    crowd.check_globals().unwrap();
    crowd
}

#[test]
fn removing_a_member_breaks_its_team_and_frees_its_seat() {
    let mut crowd = huddling_pairs(&huddle_tree());
    let mut cancels = Vec::new();
    let gone = crowd.remove(AgentId(1), &mut cancels).expect("agent 1");
    // Its work was cancelled with its clean-up; its break-out settled.
    assert_eq!((gone.cancelled, gone.exits), (1, 1));
    assert!(
        cancels
            .iter()
            .any(|r| r.kind == RequestKind::Cancel && r.node == RADIO)
    );
    assert!(
        cancels
            .iter()
            .any(|r| matches!(r.kind, RequestKind::BreakOut { .. }))
    );
    assert_eq!(teams(&crowd), [(1, vec![2, 3])]);
    assert_eq!(crowd.actor(AgentId(0)).action(HUDDLE_TEAM), Some(BROKEN));
    crowd.check_globals().unwrap();

    // Agent 0's branch fails on its next tick, with its clean-up; the
    // other pair goes on.
    tick(&mut crowd);
    let m0 = &crowd.blackboards()[0];
    assert_eq!((m0.doing, m0.cancelled, m0.exits), (Doing::Idle, 1, 1));
    assert_eq!(
        requests(&crowd, |k| *k == RequestKind::Cancel),
        [(0, RADIO.get())]
    );
    assert_eq!(doing(&crowd, Doing::Work), [2, 3]);
    // A newcomer in the freed slot teams up with agent 0, in the freed
    // record.
    let id = crowd.spawn(Mate::new(9, 1));
    assert_eq!(id, AgentId(1));
    tick(&mut crowd);
    assert_eq!(teams(&crowd), [(0, vec![0, 1]), (1, vec![2, 3])]);
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Work), [0, 1, 2, 3]);
    crowd.check_globals().unwrap();
}

#[test]
fn a_reload_keeps_the_teams_of_a_team_node_that_survives() {
    let mut crowd = huddling_pairs(&huddle_tree());
    // Another branch before the team: the team node moves, and keeps its
    // identity (its path).
    let edited = priority([
        sequence([cond("alarmed"), act("flee")]),
        sequence([cond("alarmed"), act("idle")]),
        team(2, [huddle(concurrent([act("hold"), act("radio")]))]),
        act("idle"),
    ]);
    let report = crowd
        .reload(leaves().compile(&edited).expect("tree"))
        .expect("reload");
    assert_eq!(report.carried.cancelled, 0);
    assert!(!report.requests.iter().any(|r| r.kind.is_for_crowd()));
    let moved = NodeIdx::new(HUDDLE_TEAM.get() + 3);
    let globals = crowd.program().globals();
    assert_eq!(globals.teams_at(crowd.program().shape(), moved), Some(2));
    assert_eq!(
        globals.seat_of(moved, AgentId(3)),
        Some(Seat { team: 1, role: 1 })
    );
    assert_eq!(teams(&crowd), [(0, vec![0, 1]), (1, vec![2, 3])]);
    crowd.check_globals().unwrap();
    // The members work on, and a break-out still reaches the partner.
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Work), [0, 1, 2, 3]);
    crowd.blackboards_mut()[2].alarmed = true;
    tick(&mut crowd);
    assert_eq!(teams(&crowd), [(0, vec![0, 1])]);
    assert_eq!(crowd.actor(AgentId(3)).action(moved), Some(BROKEN));
    crowd.check_globals().unwrap();
    for m in crowd.blackboards() {
        assert_eq!(m.enters, 1);
    }
}

#[test]
fn a_reload_that_changes_a_team_node_breaks_its_teams_cleanly() {
    for edited in [
        // The size changed.
        priority([
            sequence([cond("alarmed"), act("flee")]),
            team(3, [huddle(concurrent([act("hold"), act("radio")]))]),
            act("idle"),
        ]),
        // The team is gone: its branch stands alone.
        priority([
            sequence([cond("alarmed"), act("flee")]),
            huddle(concurrent([act("hold"), act("radio")])),
            act("idle"),
        ]),
    ] {
        let mut crowd = huddling_pairs(&huddle_tree());
        let report = crowd
            .reload(leaves().compile(&edited).expect("tree"))
            .expect("reload");
        // Every member's branch was cancelled, with its clean-up, by the
        // old program; every member broke out; no record is left.
        for (i, m) in crowd.blackboards().iter().enumerate() {
            assert_eq!((m.cancelled, m.exits), (1, 1), "agent {i}");
            let broke = report.requests.iter().any(|r| {
                r.agent == AgentId(i as u32) && matches!(r.kind, RequestKind::BreakOut { .. })
            });
            let radio = report
                .requests
                .iter()
                .any(|r| r.agent == AgentId(i as u32) && r.kind == RequestKind::Cancel);
            assert!(broke && radio, "agent {i}");
        }
        assert!(teams(&crowd).is_empty());
        assert!(crowd.actor(AgentId(0)).actions().next().is_none());
        crowd.check_globals().unwrap();
        tick(&mut crowd);
        crowd.check_globals().unwrap();
    }
}

#[test]
fn a_crowd_with_a_vacant_slot_reloads() {
    // Agent 1 leaves (breaking its team); its slot stays vacant through
    // the reload, which lays out a block for every slot.
    let mut crowd = huddling_pairs(&huddle_tree());
    crowd.remove(AgentId(1), &mut Vec::new());
    assert_eq!((crowd.len(), crowd.slots()), (3, 4));
    let edited = priority([
        sequence([cond("alarmed"), act("flee")]),
        team(2, [huddle(concurrent([act("hold"), act("radio")]))]),
        act("idle"),
        act("idle"),
    ]);
    crowd
        .reload(leaves().compile(&edited).expect("tree"))
        .expect("reload");
    assert_eq!((crowd.len(), crowd.slots()), (3, 4));
    assert_eq!(teams(&crowd), [(1, vec![2, 3])]);
    assert!(!crowd.is_alive(AgentId(1)));
    crowd.check_globals().unwrap();
    tick(&mut crowd);
    assert_eq!(doing(&crowd, Doing::Work), [2, 3]);
    crowd.check_globals().unwrap();
}
