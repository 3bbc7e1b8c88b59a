//! The reference's crowd state: what the `Gate`, `GlobalCooldown` and
//! `Team` nodes of a tree share across the agents of a crowd (docs/nodes.md,
//! "Crowd nodes"), and how the crowd settles its agents' requests after a
//! round of ticks. Written as plainly as the [`Reference`] itself: a map
//! from node to its count of agents admitted, its ready time or its count
//! of teams, a map from team index to team, and the rules of settling in
//! the order the docs give them.
//!
//! During a round every agent reads the state through
//! [`RefLeaves::crowd`](crate::reference::RefLeaves::crowd); after the
//! round, [`CrowdState::settle`] applies the round's requests and answers
//! the agents' waiting tickets ([`Reference::answer`]).

use crate::reference::{CrowdRule, RefNode, Reference, Ticket};
use std::collections::BTreeMap;
use treebeard_shape::NodeIdx;
use treebeard_vm::{AgentId, Frame, Request, RequestKind, Seat};

/// The shared state of a tree's crowd nodes in one crowd.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrowdState {
    nodes: BTreeMap<NodeIdx, Shared>,
    /// The tree's `Sync` nodes and their points.
    points: BTreeMap<NodeIdx, u32>,
    /// The teams formed, by their index in the team table.
    teams: BTreeMap<u32, RefTeam>,
    /// A crowd node in a copy of a child tree (one offered by several
    /// connectors): the node at the same place in the copy first in
    /// pre-order, whose state it shares (docs/nodes.md, `ChildTree`).
    copies: BTreeMap<NodeIdx, NodeIdx>,
}

/// A team of a `Team` node (docs/nodes.md, "Team").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefTeam {
    /// The `Team` node.
    pub node: NodeIdx,
    /// The members, by role.
    pub members: Vec<AgentId>,
    /// Per role: the member is still in the team.
    pub alive: Vec<bool>,
    /// Per role: the highest `Sync` point the member reached (0: none).
    pub reached: Vec<u32>,
    /// A member broke out in the requests being settled.
    broken: bool,
}

impl RefTeam {
    /// The highest point the member of `role` reached.
    pub fn reached(&self, role: u32) -> u32 {
        self.reached.get(role as usize).copied().unwrap_or(0)
    }

    /// Whether every member still in the team reached `point` or a later
    /// one.
    pub fn all_reached(&self, point: u32) -> bool {
        self.alive
            .iter()
            .zip(&self.reached)
            .all(|(&alive, &at)| !alive || at >= point)
    }

    /// Whether `agent` sits at `role`, still in the team.
    fn seats(&self, agent: AgentId, role: u32) -> bool {
        let role = role as usize;
        self.members.get(role) == Some(&agent) && self.alive[role]
    }
}

/// One crowd node: its rule and what the crowd shares of it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shared {
    rule: CrowdRule,
    /// A gate's agents admitted (holding an admitted ticket).
    admitted: u32,
    /// A cool-down's frame time from which agents may enter.
    ready: f64,
}

/// The crowd's answer to one agent's request to enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The agent that asked.
    pub agent: AgentId,
    /// The node it asked to enter.
    pub node: NodeIdx,
    /// Whether it may enter on its next tick.
    pub admitted: bool,
    /// At a `Team`: the seat it was admitted to, or (not admitted) the seat
    /// of the team that broke under it.
    pub seat: Option<Seat>,
}

impl CrowdState {
    /// The state of a crowd that has not run the tree under `root` yet:
    /// every gate empty, every cool-down ready.
    pub fn for_tree(root: &RefNode) -> CrowdState {
        // Copies of a child tree are one tree, node by node, and so are the
        // copies nested in them: the crowd nodes of one place, across all
        // copies, share the state of the first of them in pre-order.
        let mut first: BTreeMap<&str, &RefNode> = BTreeMap::new();
        let mut places: BTreeMap<NodeIdx, NodeIdx> = BTreeMap::new();
        let place = |places: &BTreeMap<NodeIdx, NodeIdx>, mut n: NodeIdx| {
            while let Some(&m) = places.get(&n) {
                n = m;
            }
            n
        };
        for n in pre_order(root) {
            let RefNode::ChildTree {
                children, names, ..
            } = n
            else {
                continue;
            };
            for (tree, name) in children.iter().zip(names) {
                let Some(&original) = first.get(&**name) else {
                    first.insert(name, tree);
                    continue;
                };
                for (copy, same) in pre_order(tree).into_iter().zip(pre_order(original)) {
                    let (a, b) = (place(&places, copy.index()), place(&places, same.index()));
                    if a != b {
                        places.insert(a.max(b), a.min(b));
                    }
                }
            }
        }
        let mut nodes = BTreeMap::new();
        let mut points = BTreeMap::new();
        let mut copies = BTreeMap::new();
        for n in pre_order(root) {
            let rule = match n {
                RefNode::Crowd { rule, .. } => Some(*rule),
                RefNode::Team { size, .. } => Some(CrowdRule::Team { size: *size }),
                RefNode::Sync { node, point, .. } => {
                    points.insert(*node, *point);
                    None
                }
                _ => None,
            };
            let Some(rule) = rule else { continue };
            let first = place(&places, n.index());
            if first != n.index() && matches!(n, RefNode::Crowd { .. }) {
                copies.insert(n.index(), first);
                continue;
            }
            let shared = Shared {
                rule,
                admitted: 0,
                ready: 0.0,
            };
            nodes.insert(n.index(), shared);
        }
        CrowdState {
            nodes,
            points,
            teams: BTreeMap::new(),
            copies,
        }
    }

    /// The teams, by their index in the team table.
    pub fn teams(&self) -> &BTreeMap<u32, RefTeam> {
        &self.teams
    }

    /// The team `agent` sits in at `seat`, if it is still in it.
    pub fn seated(&self, agent: AgentId, seat: Seat) -> Option<&RefTeam> {
        self.teams
            .get(&seat.team)
            .filter(|t| t.seats(agent, seat.role))
    }

    /// The node whose state the crowd node at `node` shares: itself, or
    /// the first copy's.
    fn shared(&self, node: NodeIdx) -> NodeIdx {
        self.copies.get(&node).copied().unwrap_or(node)
    }

    /// How many agents the gate at `node` admits now; `None` if it is no
    /// gate.
    pub fn admitted(&self, node: NodeIdx) -> Option<u32> {
        let shared = self.nodes.get(&self.shared(node))?;
        matches!(shared.rule, CrowdRule::Gate { .. }).then_some(shared.admitted)
    }

    /// The frame time from which the cool-down at `node` lets agents in;
    /// `None` if it is no `GlobalCooldown`.
    pub fn ready_at(&self, node: NodeIdx) -> Option<f64> {
        let shared = self.nodes.get(&self.shared(node))?;
        matches!(shared.rule, CrowdRule::Cooldown { .. }).then_some(shared.ready)
    }

    /// Whether the node at `node` is open at time `now`: a gate with a free
    /// slot, a cool-down that is ready. A node the crowd does not know is
    /// open.
    pub fn is_open(&self, node: NodeIdx, now: f64) -> bool {
        match self.nodes.get(&self.shared(node)) {
            Some(Shared {
                rule: CrowdRule::Gate { max, .. },
                admitted,
                ..
            }) => admitted < max,
            Some(Shared {
                rule: CrowdRule::Team { .. },
                ..
            }) => true,
            Some(Shared { ready, .. }) => now >= *ready,
            None => true,
        }
    }

    /// The nodes and their words as the VM keeps them (its
    /// `Globals::iter`): a gate's count, a cool-down's ready time as `f64`
    /// bits, in pre-order.
    pub fn words(&self) -> Vec<(NodeIdx, u64)> {
        self.nodes
            .iter()
            .map(|(&node, shared)| {
                let word = match shared.rule {
                    CrowdRule::Gate { .. } => u64::from(shared.admitted),
                    CrowdRule::Cooldown { .. } => shared.ready.to_bits(),
                    CrowdRule::Team { .. } => {
                        self.teams.values().filter(|t| t.node == node).count() as u64
                    }
                };
                (node, word)
            })
            .collect()
    }

    /// Settles the requests of a round of ticks at `frame` (`requests`, in
    /// agent order; the others than the crowd's are ignored), as
    /// docs/nodes.md says:
    ///
    /// 1. every slot given back (`Leave`) and every cool-down started
    ///    (`StartCooldown`, at the frame's time plus its seconds; the later
    ///    time if several start it);
    ///    With them, the teams': arrivals at sync points (a member's highest
    ///    point), places given back (`LeaveTeam`) and break-outs
    ///    (`BreakOut`, which breaks the team);
    /// 2. the teams broken or emptied end: every member still in a broken
    ///    one gets a broken ticket (an answer with its seat, not admitted);
    /// 3. then the requests to enter whose agents still wait at the node
    ///    (`waits` gives the frame an agent has asked since, if its ticket
    ///    at the node waits), the agent that has asked longest first, then
    ///    in agent order: each is admitted if the node is open in the state
    ///    as settled so far (a gate with a free slot, which it takes; a
    ///    cool-down that is ready, which it starts), else refused. At a
    ///    `Team`, the askers in that order are cut into teams of its size,
    ///    each in the lowest free index of the table, a member's role its
    ///    place in its team; fewer than the size left over are refused.
    ///
    /// Returns the answers in the order they were given; the caller writes
    /// each into its agent ([`Reference::answer`]).
    pub fn settle(
        &mut self,
        frame: &Frame,
        requests: &[Request],
        waits: impl Fn(AgentId, NodeIdx) -> Option<u64>,
    ) -> Vec<Answer> {
        for r in requests {
            if let RequestKind::Arrive { seat } = r.kind
                && let Some(&point) = self.points.get(&r.node)
                && let Some(team) = self.teams.get_mut(&seat.team)
                && team.seats(r.agent, seat.role)
            {
                let at = &mut team.reached[seat.role as usize];
                *at = (*at).max(point);
            }
            let at = self.shared(r.node);
            let Some(shared) = self.nodes.get_mut(&at) else {
                continue;
            };
            match (r.kind, shared.rule) {
                (RequestKind::Leave, CrowdRule::Gate { .. }) => {
                    assert!(shared.admitted > 0, "a gate slot given back twice");
                    shared.admitted -= 1;
                }
                (RequestKind::StartCooldown, CrowdRule::Cooldown { seconds, .. }) => {
                    shared.ready = shared.ready.max(frame.time + seconds);
                }
                (
                    RequestKind::LeaveTeam { seat } | RequestKind::BreakOut { seat },
                    CrowdRule::Team { .. },
                ) => {
                    if let Some(team) = self.teams.get_mut(&seat.team)
                        && team.node == r.node
                        && team.seats(r.agent, seat.role)
                    {
                        team.alive[seat.role as usize] = false;
                        team.broken |= matches!(r.kind, RequestKind::BreakOut { .. });
                    }
                }
                _ => {}
            }
        }
        let mut answers = Vec::new();
        let ended: Vec<u32> = self
            .teams
            .iter()
            .filter(|(_, t)| t.broken || !t.alive.contains(&true))
            .map(|(&i, _)| i)
            .collect();
        for index in ended {
            let team = self.teams.remove(&index).expect("an ended team");
            if team.broken {
                for (role, &member) in team.members.iter().enumerate() {
                    if team.alive[role] {
                        answers.push(Answer {
                            agent: member,
                            node: team.node,
                            admitted: false,
                            seat: Some(Seat {
                                team: index,
                                role: role as u32,
                            }),
                        });
                    }
                }
            }
        }
        let mut asks: Vec<(u64, AgentId, NodeIdx)> = requests
            .iter()
            .filter(|r| r.kind == RequestKind::Enter)
            .filter_map(|r| Some((waits(r.agent, r.node)?, r.agent, r.node)))
            .collect();
        asks.sort_by_key(|&(since, agent, node)| (since, agent.0, node));
        // An agent that asked twice at a node in one round asks once.
        let mut seen = std::collections::BTreeSet::new();
        asks.retain(|&(_, agent, node)| seen.insert((agent, node)));
        // Teams, node by node.
        let mut team_asks: BTreeMap<NodeIdx, Vec<AgentId>> = BTreeMap::new();
        for &(_, agent, node) in &asks {
            if let Some(Shared {
                rule: CrowdRule::Team { .. },
                ..
            }) = self.nodes.get(&node)
            {
                team_asks.entry(node).or_default().push(agent);
            }
        }
        for (node, agents) in team_asks {
            let Some(CrowdRule::Team { size }) = self.nodes.get(&node).map(|s| s.rule) else {
                continue;
            };
            let mut teams = agents.chunks_exact(size as usize);
            for members in teams.by_ref() {
                let index = (0..)
                    .find(|i| !self.teams.contains_key(i))
                    .expect("a free index");
                for (role, &agent) in members.iter().enumerate() {
                    answers.push(Answer {
                        agent,
                        node,
                        admitted: true,
                        seat: Some(Seat {
                            team: index,
                            role: role as u32,
                        }),
                    });
                }
                self.teams.insert(
                    index,
                    RefTeam {
                        node,
                        members: members.to_vec(),
                        alive: vec![true; members.len()],
                        reached: vec![0; members.len()],
                        broken: false,
                    },
                );
            }
            for &agent in teams.remainder() {
                answers.push(Answer {
                    agent,
                    node,
                    admitted: false,
                    seat: None,
                });
            }
        }
        for (_, agent, node) in asks {
            let at = self.shared(node);
            let Some(shared) = self.nodes.get_mut(&at) else {
                continue;
            };
            if matches!(shared.rule, CrowdRule::Team { .. }) {
                continue;
            }
            let admitted = match shared.rule {
                CrowdRule::Gate { max, .. } => shared.admitted < max,
                CrowdRule::Cooldown { .. } => frame.time >= shared.ready,
                CrowdRule::Team { .. } => false,
            };
            if admitted {
                match shared.rule {
                    CrowdRule::Gate { .. } => shared.admitted += 1,
                    CrowdRule::Cooldown { seconds, .. } => shared.ready = frame.time + seconds,
                    CrowdRule::Team { .. } => {}
                }
            }
            answers.push(Answer {
                agent,
                node,
                admitted,
                seat: None,
            });
        }
        answers
    }

    /// [`CrowdState::settle`] for the crowd of `agents` (agent `i` is
    /// `agents[i]`), writing the answers into their tickets.
    pub fn settle_agents(
        &mut self,
        frame: &Frame,
        requests: &[Request],
        agents: &mut [Reference],
    ) -> Vec<Answer> {
        let answers = self.settle(frame, requests, |agent, node| {
            waiting_since(agents.get(agent.index())?, node)
        });
        for a in &answers {
            if let Some(agent) = agents.get_mut(a.agent.index()) {
                agent.answer_with(a);
            }
        }
        answers
    }
}

/// The nodes of the tree under `root`, in pre-order.
fn pre_order(root: &RefNode) -> Vec<&RefNode> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        out.push(n);
        stack.extend(n.children().iter().rev());
    }
    out
}

/// The frame `agent` has asked at `node` since, if its ticket there waits
/// for an answer.
pub fn waiting_since(agent: &Reference, node: NodeIdx) -> Option<u64> {
    match agent.ticket(node) {
        Some(Ticket::Waiting { since }) => Some(since),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! The reference's crowd checked by hand against docs/nodes.md,
    //! independently of the VM.

    use super::*;
    use crate::reference::RefLeaves;
    use crate::script::World;
    use treebeard_shape::ActionId;
    use treebeard_vm::{ActionState, Signal, Status};

    fn n(i: u32) -> NodeIdx {
        NodeIdx::new(i)
    }

    fn request(agent: u32, node: u32, kind: RequestKind) -> Request {
        Request {
            agent: AgentId(agent),
            node: n(node),
            action: ActionId(0),
            kind,
        }
    }

    /// 0 pri(1 gate[max](2 a), 3 a)
    fn gated(max: u32) -> RefNode {
        RefNode::priority(
            n(0),
            vec![
                RefNode::Crowd {
                    node: n(1),
                    rule: CrowdRule::Gate { max, wait: false },
                    child: Box::new(RefNode::action(n(2), false)),
                },
                RefNode::action(n(3), false),
            ],
        )
    }

    /// A world whose actions all run, at `frame`, in `crowd`.
    struct Leaves<'a> {
        world: &'a mut World,
        frame: Frame,
        crowd: &'a CrowdState,
    }

    impl RefLeaves for Leaves<'_> {
        fn condition(&mut self, node: NodeIdx) -> bool {
            self.world.condition(node)
        }

        fn action(
            &mut self,
            node: NodeIdx,
            signal: Signal,
            state: &mut u32,
            persistent: Option<&mut u32>,
            memory: Option<&mut treebeard_vm::MemoryBlock>,
        ) -> Status {
            self.world.action(node, signal, state, persistent, memory)
        }

        fn clock(&self) -> Frame {
            self.frame
        }

        fn crowd(&self) -> Option<&CrowdState> {
            Some(self.crowd)
        }
    }

    /// Ticks every agent at frame `index`, then settles: the round's
    /// requests.
    fn round(agents: &mut [Reference], crowd: &mut CrowdState, index: u64) -> Vec<Request> {
        let frame = Frame {
            index,
            time: index as f64,
            dt: 1.0,
        };
        let mut world = World::new();
        world.set(2, Status::Running).set(3, Status::Running);
        let mut requests = Vec::new();
        for (i, agent) in agents.iter_mut().enumerate() {
            let mut leaves = Leaves {
                world: &mut world,
                frame,
                crowd,
            };
            requests.extend(agent.tick(&mut leaves, AgentId(i as u32)).requests);
        }
        crowd.settle_agents(&frame, &requests, agents);
        requests
    }

    #[test]
    fn a_gate_admits_in_agent_order_a_tick_later_and_refused_agents_keep_their_place() {
        let mut agents = vec![Reference::new(gated(1)); 3];
        let mut crowd = CrowdState::for_tree(agents[0].root());
        assert_eq!(crowd.words(), [(n(1), 0)]);
        // Round 0: everybody asks and fails the gate; agent 0 is admitted.
        let asked = round(&mut agents, &mut crowd, 0);
        let enter = |a| request(a, 1, RequestKind::Enter);
        assert_eq!(asked, [enter(0), enter(1), enter(2)]);
        assert_eq!(crowd.admitted(n(1)), Some(1));
        assert_eq!(agents[0].ticket(n(1)), Some(Ticket::Admitted));
        assert_eq!(agents[1].ticket(n(1)), Some(Ticket::Refused { since: 0 }));
        // Round 1: agent 0 enters; the others find the gate full and keep
        // their place without asking.
        assert!(round(&mut agents, &mut crowd, 1).is_empty());
        assert_eq!(
            agents[0].remembered().actions,
            [
                (n(1), ActionState::Running(1)),
                (n(2), ActionState::Running(1))
            ]
        );
        assert_eq!(
            agents[2].remembered().actions,
            [
                (
                    n(1),
                    ActionState::Running(Ticket::Refused { since: 0 }.value())
                ),
                (n(3), ActionState::Running(2))
            ]
        );
        // Agent 0 leaves (halted): its slot comes back at the next
        // settling, where nobody asked (the gate was full); in round 3
        // agent 0 asks anew and agent 1, asking since round 0, goes first.
        let left = agents[0].halt(&mut World::new(), AgentId(0));
        assert_eq!(left, [request(0, 1, RequestKind::Leave)]);
        let frame = Frame {
            index: 2,
            time: 2.0,
            dt: 1.0,
        };
        let answers = crowd.settle_agents(&frame, &left, &mut agents);
        assert!(answers.is_empty());
        assert_eq!(crowd.admitted(n(1)), Some(0));
        let asked = round(&mut agents, &mut crowd, 3);
        assert_eq!(asked, [enter(0), enter(1), enter(2)]);
        assert_eq!(agents[1].ticket(n(1)), Some(Ticket::Admitted));
        assert_eq!(agents[0].ticket(n(1)), Some(Ticket::Refused { since: 3 }));
        assert_eq!(agents[2].ticket(n(1)), Some(Ticket::Refused { since: 0 }));
        assert_eq!(agents[0].coverage().crowd_places_kept, 0);
        assert!(agents[2].coverage().crowd_places_kept > 0);
    }

    #[test]
    fn slots_come_back_before_requests_are_answered() {
        let shared = RefNode::Crowd {
            node: n(0),
            rule: CrowdRule::Gate {
                max: 1,
                wait: false,
            },
            child: Box::new(RefNode::condition(n(1))),
        };
        let mut crowd = CrowdState::for_tree(&shared);
        let frame = Frame::default();
        let admitted = crowd.settle(&frame, &[request(0, 0, RequestKind::Enter)], |_, _| Some(0));
        assert!(admitted[0].admitted);
        // Agent 0 gives its slot back and agent 1 asks in the same round.
        let requests = [
            request(1, 0, RequestKind::Enter),
            request(0, 0, RequestKind::Leave),
        ];
        let answers = crowd.settle(&frame, &requests, |_, _| Some(0));
        assert_eq!(
            answers,
            [Answer {
                agent: AgentId(1),
                node: n(0),
                admitted: true,
                seat: None,
            }]
        );
        // A request whose agent no longer waits is dropped.
        let answers = crowd.settle(&frame, &[request(2, 0, RequestKind::Enter)], |_, _| None);
        assert!(answers.is_empty());
    }

    #[test]
    fn a_cooldown_starts_at_the_latest_and_on_entry_admits_one() {
        let tree = RefNode::sequence(
            n(0),
            vec![
                RefNode::Crowd {
                    node: n(1),
                    rule: CrowdRule::Cooldown {
                        seconds: 2.0,
                        on_enter: false,
                    },
                    child: Box::new(RefNode::condition(n(2))),
                },
                RefNode::Crowd {
                    node: n(3),
                    rule: CrowdRule::Cooldown {
                        seconds: 1.5,
                        on_enter: true,
                    },
                    child: Box::new(RefNode::condition(n(4))),
                },
            ],
        );
        let mut crowd = CrowdState::for_tree(&tree);
        let at = |time: f64| Frame {
            index: 0,
            time,
            dt: 0.5,
        };
        let start = |a| request(a, 1, RequestKind::StartCooldown);
        crowd.settle(&at(1.0), &[start(0), start(1)], |_, _| None);
        assert_eq!(crowd.ready_at(n(1)), Some(3.0));
        assert!(!crowd.is_open(n(1), 2.5) && crowd.is_open(n(1), 3.0));
        // An earlier start does not move it back.
        crowd.settle(&at(0.5), &[start(2)], |_, _| None);
        assert_eq!(crowd.ready_at(n(1)), Some(3.0));
        // On entry: the first admitted starts it; the others are refused.
        let enter = |a| request(a, 3, RequestKind::Enter);
        let answers = crowd.settle(&at(1.0), &[enter(0), enter(1)], |a, _| {
            Some(5 - u64::from(a.0))
        });
        assert_eq!(
            answers
                .iter()
                .map(|a| (a.agent.0, a.admitted))
                .collect::<Vec<_>>(),
            [(1, true), (0, false)]
        );
        assert_eq!(crowd.ready_at(n(3)), Some(2.5));
        assert_eq!(
            crowd.words(),
            [(n(1), 3.0f64.to_bits()), (n(3), 2.5f64.to_bits())]
        );
    }
}
