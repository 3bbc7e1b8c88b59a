//! Snapshots: a whole crowd between two ticks, saved and restored.
//!
//! A [`Snapshot`] holds everything the next tick reads: the frame, each
//! slot's schedule (vacant, or its tick rate and phase), every actor block (decider, action and persistent states, with the random
//! streams of `random` and `shuffle` groups, and the agents' memory), the
//! blackboards (through serde: `B: Serialize`), the global tree state, the
//! completions queued for the next tick, and the last tick's requests and
//! counters. A crowd restored from it goes on bit-identically to one that
//! was never stopped. It does not hold the program: restoring takes the
//! program again, and refuses a shape other than the one saved (by a
//! fingerprint of its bytes).
//!
//! [`Crowd::save`] and [`Crowd::load`] write and read it as JSON (exact for
//! every float: the blackboards' and the frame's). Restoring checks
//! everything it reads (sizes, states, items, agents, the gates' counts
//! against the agents' tickets) and answers any damage with a
//! [`SnapshotError`], never a panic.

use crate::crowd::{Crowd, Restored};
#[cfg(feature = "json")]
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt;
use treebeard_shape::{ActionId, Kind, NodeIdx, Shape};
use treebeard_vm::{
    ActorLayout, ActorRef, Actors, AgentId, Completion, EventId, Frame, Outcome, Program, Request,
    RequestKind, Seat, SubsetRuleReports, Team,
};

/// The format version [`Crowd::snapshot`] writes: 4 since actors keep no
/// resume point that their running leaf implies (`Shape::resume_implied`),
/// 3 since snapshots hold the subset-rule reports made, 2 since they hold
/// the team table. Older formats still restore: the actors of formats 1 to
/// 3 laid out again without those resume points, a format 2 snapshot with
/// no report made, a format 1 snapshot (of a crowd without teams) with
/// neither.
pub const SNAPSHOT_FORMAT: u32 = 4;

/// A crowd between two ticks (see the module docs). Its fields are plain
/// data, for any serde format.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot<B> {
    /// [`SNAPSHOT_FORMAT`] when written.
    pub format: u32,
    /// The fingerprint of the shape the crowd ran (see [`fingerprint`]).
    pub shape: u64,
    /// The last tick's frame: index, time, dt (the first tick's index is
    /// 0; before it, the frame is all zeros and `ticked` is false).
    pub frame: (u64, f64, f32),
    /// Whether the crowd had ticked. (Formats 1 and 2 numbered the first
    /// tick's frame 1, and read as such.)
    #[serde(default)]
    pub ticked: bool,
    /// Words per actor block.
    pub actor_words: usize,
    /// Every actor block, agent by agent, with unused state slots zeroed
    /// (see `ActorRef::canonical_words`).
    pub actors: Vec<u32>,
    /// Every blackboard, agent by agent (a vacant slot's is the default).
    pub blackboards: Vec<B>,
    /// Each slot's schedule: the frame index of its next tick
    /// (`u64::MAX`: the slot is vacant), the time its ticks have covered up
    /// to, and its tick rate.
    pub lanes: Vec<(u64, f64, u32)>,
    /// The global tree state's words (see `Globals::words`).
    pub globals: Vec<u64>,
    /// The team table (see `Globals::teams`), team by team.
    #[serde(default)]
    pub teams: Vec<SavedTeam>,
    /// Completions queued for the next tick: agent, node, outcome (0
    /// running, 1 success, 2 failure).
    pub completions: Vec<(u32, u32, u8)>,
    /// The last tick's requests: agent, node, action, kind (see
    /// [`request_code`]), and the kind's two data words.
    pub requests: Vec<(u32, u32, u16, u8, u32, u32)>,
    /// The last tick's stale completions and undelivered events.
    pub stale: usize,
    /// Events of the last tick addressed to no agent.
    pub undelivered: usize,
    /// The deciders each agent was reported for breaking Spore's subset
    /// rule, as (agent, decider item), in order: reported once, never
    /// again (see `Crowd::subset_rule_reports`).
    #[serde(default)]
    pub subset_rule_reports: Vec<(u32, u32)>,
}

/// A team of the crowd's team table in a [`Snapshot`]: its index in the
/// table, its `Team` node, which members are still in it (bit `r` for role
/// `r`), its members by role and the highest `Sync` point each reached.
pub type SavedTeam = (u32, u32, u32, Vec<u32>, Vec<u8>);

/// Why a snapshot cannot be restored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotError {
    message: String,
}

impl SnapshotError {
    fn new(message: impl Into<String>) -> SnapshotError {
        SnapshotError {
            message: message.into(),
        }
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot restore the snapshot: {}", self.message)
    }
}

impl std::error::Error for SnapshotError {}

/// A shape's fingerprint: the 64-bit FNV-1a hash of its bytes
/// (`Shape::to_bytes`), so a snapshot names the shape it was taken with.
pub fn fingerprint(shape: &Shape) -> u64 {
    shape
        .to_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// A request kind's code in a snapshot, with its two data words.
pub fn request_code(kind: RequestKind) -> (u8, u32, u32) {
    match kind {
        RequestKind::Cancel => (0, 0, 0),
        RequestKind::Launch => (1, 0, 0),
        RequestKind::Event { event, to } => (2, event.0, to.0),
        RequestKind::RedecideLimit => (3, 0, 0),
        RequestKind::Enter => (4, 0, 0),
        RequestKind::Leave => (5, 0, 0),
        RequestKind::StartCooldown => (6, 0, 0),
        RequestKind::Remap { from } => (7, from.get(), 0),
        RequestKind::Arrive { seat } => (8, seat.team, seat.role),
        RequestKind::LeaveTeam { seat } => (9, seat.team, seat.role),
        RequestKind::BreakOut { seat } => (10, seat.team, seat.role),
        RequestKind::SubsetRule => (11, 0, 0),
    }
}

fn request_kind(code: u8, a: u32, b: u32) -> Option<RequestKind> {
    Some(match code {
        0 => RequestKind::Cancel,
        1 => RequestKind::Launch,
        2 => RequestKind::Event {
            event: EventId(a),
            to: AgentId(b),
        },
        3 => RequestKind::RedecideLimit,
        4 => RequestKind::Enter,
        5 => RequestKind::Leave,
        6 => RequestKind::StartCooldown,
        7 => RequestKind::Remap {
            from: NodeIdx::new(a),
        },
        8 => RequestKind::Arrive {
            seat: Seat { team: a, role: b },
        },
        9 => RequestKind::LeaveTeam {
            seat: Seat { team: a, role: b },
        },
        10 => RequestKind::BreakOut {
            seat: Seat { team: a, role: b },
        },
        11 => RequestKind::SubsetRule,
        _ => return None,
    })
}

fn outcome_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Running => 0,
        Outcome::Success => 1,
        Outcome::Failure => 2,
    }
}

impl<B: Clone> Crowd<B> {
    /// The crowd now, between ticks (see the module docs).
    pub fn snapshot(&self) -> Snapshot<B> {
        let (actors, blackboards, frame) = self.parts();
        let (completions, requests, stale, undelivered) = self.queues();
        Snapshot {
            format: SNAPSHOT_FORMAT,
            shape: fingerprint(self.program().shape()),
            frame: (frame.index, frame.time, frame.dt),
            ticked: self.has_ticked(),
            actor_words: actors.layout().words(),
            actors: {
                let mut words = Vec::with_capacity(actors.words().len());
                for i in 0..actors.len() {
                    actors.get(i).canonical_words(&mut words);
                }
                words
            },
            blackboards: blackboards.to_vec(),
            lanes: self.lanes(),
            globals: self.program().globals().words().to_vec(),
            teams: self
                .program()
                .globals()
                .teams()
                .map(|(index, t)| {
                    let members = t.members().map(|m| m.0).collect();
                    let reached = (0..t.size()).map(|r| t.reached(r) as u8).collect();
                    (index, t.node().get(), t.alive(), members, reached)
                })
                .collect(),
            completions: completions
                .iter()
                .map(|c| (c.agent.0, c.node.get(), outcome_code(c.outcome)))
                .collect(),
            requests: requests
                .iter()
                .map(|r| {
                    let (kind, a, b) = request_code(r.kind);
                    (r.agent.0, r.node.get(), r.action.0, kind, a, b)
                })
                .collect(),
            stale,
            undelivered,
            subset_rule_reports: self
                .subset_rule_reports()
                .map(|(a, n)| (a.0, n.get()))
                .collect(),
        }
    }

    /// Writes [`Crowd::snapshot`] as JSON, and reads it back before
    /// returning it: a save that [`Crowd::load`] would refuse is refused
    /// now, while the game still holds the crowd, rather than found when
    /// it is needed.
    ///
    /// # Errors
    /// If a blackboard's `Serialize` fails, or what it writes does not
    /// read back: a `NaN` or infinite float (JSON has no number for them)
    /// or a type whose `Serialize` and `Deserialize` disagree. The error
    /// names the agent and the field (`blackboards[12].hunger`).
    #[cfg(feature = "json")]
    pub fn save(&self) -> Result<Vec<u8>, SnapshotError>
    where
        B: Serialize + DeserializeOwned,
    {
        let bytes = serde_json::to_vec(&self.snapshot())
            .map_err(|e| SnapshotError::new(format!("a blackboard did not serialise: {e}")))?;
        let mut reader = serde_json::Deserializer::from_slice(&bytes);
        if let Err(e) = serde_path_to_error::deserialize::<_, Snapshot<B>>(&mut reader) {
            let path = e.path().to_string();
            let field = match path.strip_prefix("blackboards[") {
                Some(rest) => {
                    let (agent, field) = rest.split_once(']').unwrap_or((rest, ""));
                    let field = field.trim_start_matches('.');
                    format!("agent {agent}'s blackboard field `{field}`")
                }
                None => format!("`{path}`"),
            };
            return Err(SnapshotError::new(format!(
                "{field} would not load ({}); a NaN or infinite float is saved as null: keep \
                 such a value out of the blackboard, or give its field a serde encoding",
                e.into_inner()
            )));
        }
        Ok(bytes)
    }
}

impl<B> Crowd<B> {
    /// The crowd `snapshot` was taken of, running `program` (which must be
    /// linked from the same shape). It goes on as the original would have.
    ///
    /// # Errors
    /// If the snapshot is of another format or shape, or anything in it is
    /// inconsistent: sizes, actor states, agents or items named by queued
    /// completions and requests, or the gates' counts against the agents'
    /// tickets.
    pub fn restore(
        mut program: Program<B>,
        snapshot: Snapshot<B>,
    ) -> Result<Crowd<B>, SnapshotError> {
        let s = snapshot;
        if !(1..=SNAPSHOT_FORMAT).contains(&s.format) {
            return Err(SnapshotError::new(format!(
                "it is of format {}, this version reads format {SNAPSHOT_FORMAT}",
                s.format
            )));
        }
        let shape = program.shape().clone();
        if s.shape != fingerprint(&shape) {
            return Err(SnapshotError::new(
                "it was taken of another tree (its shape's fingerprint differs); restore it with the program it ran",
            ));
        }
        let layout = ActorLayout::for_shape(&shape);
        let agents = s.blackboards.len();
        let size_error = |words: usize, each: usize| {
            SnapshotError::new(format!(
                "{words} actor words of {each} each for {agents} agents, but the shape's actors take {} words each",
                layout.words()
            ))
        };
        let actor_words = if s.format >= 4 {
            s.actors
        } else {
            relaid(&shape, layout, s.actor_words, agents, &s.actors)
                .ok_or_else(|| size_error(s.actors.len(), s.actor_words))??
        };
        if (s.format >= 4 && s.actor_words != layout.words())
            || actor_words.len() != agents * layout.words()
        {
            return Err(size_error(actor_words.len(), s.actor_words));
        }
        if u32::try_from(agents).is_err() {
            return Err(SnapshotError::new("more agents than a crowd numbers"));
        }
        let mut actors = Actors::new(layout, agents);
        actors.words_mut().copy_from_slice(&actor_words);
        for i in 0..agents {
            actors
                .get(i)
                .check(&shape)
                .map_err(|e| SnapshotError::new(format!("agent {i}'s actor: {e}")))?;
        }
        let node = |n: u32, what: &str| {
            if (n as usize) < shape.len() {
                Ok(NodeIdx::new(n))
            } else {
                Err(SnapshotError::new(format!(
                    "{what} names item {n}, past the shape's {}",
                    shape.len()
                )))
            }
        };
        let agent = |a: u32, what: &str| {
            if (a as usize) < agents {
                Ok(AgentId(a))
            } else {
                Err(SnapshotError::new(format!(
                    "{what} names agent {a} of {agents}"
                )))
            }
        };
        program
            .globals_mut()
            .restore_words(&s.globals)
            .map_err(SnapshotError::new)?;
        let mut teams = Vec::with_capacity(s.teams.len());
        for (index, at, alive, members, reached) in &s.teams {
            let members: Vec<AgentId> = members.iter().map(|&m| AgentId(m)).collect();
            let team = Team::new(node(*at, "a team")?, &members, *alive, reached)
                .map_err(|e| SnapshotError::new(format!("team {index}: {e}")))?;
            teams.push((*index, team));
        }
        program
            .globals_mut()
            .restore_teams(&shape, &teams)
            .map_err(SnapshotError::new)?;
        program.check_globals(&actors).map_err(SnapshotError::new)?;
        let (mut index, time, dt) = s.frame;
        if !time.is_finite() || !dt.is_finite() || dt < 0.0 {
            return Err(SnapshotError::new(format!(
                "the frame's time ({time}) or dt ({dt}) is not a finite number of seconds, 0 or more"
            )));
        }
        let mut lanes = s.lanes;
        let ticked = if s.format >= 3 {
            s.ticked
        } else {
            // Formats 1 and 2 numbered frames from 1: a crowd that had
            // ticked had an index above 0, and every frame index moves
            // down by one.
            for lane in lanes.iter_mut().filter(|l| l.0 != u64::MAX) {
                lane.0 = lane.0.saturating_sub(1);
            }
            let ticked = index > 0;
            index = index.saturating_sub(1);
            ticked
        };
        if !ticked && (index, time, dt) != (0, 0.0, 0.0) {
            return Err(SnapshotError::new(format!(
                "the crowd had not ticked, but its frame is ({index}, {time}, {dt}), not zeros"
            )));
        }
        let frame = Frame { index, time, dt };
        let mut completions = Vec::with_capacity(s.completions.len());
        for (i, &(a, n, outcome)) in s.completions.iter().enumerate() {
            let what = format!("queued completion {i}");
            let outcome = match outcome {
                0 => Outcome::Running,
                1 => Outcome::Success,
                2 => Outcome::Failure,
                _ => {
                    return Err(SnapshotError::new(format!(
                        "{what} has the outcome code {outcome}"
                    )));
                }
            };
            let node = node(n, &what)?;
            if shape.kind(node) != Kind::Deferred {
                return Err(SnapshotError::new(format!(
                    "{what} is for item {n}, which is no deferred action"
                )));
            }
            completions.push(Completion {
                agent: agent(a, &what)?,
                node,
                outcome,
            });
        }
        let mut requests = Vec::with_capacity(s.requests.len());
        for (i, &(a, n, action, kind, x, y)) in s.requests.iter().enumerate() {
            let what = format!("request {i}");
            let Some(kind) = request_kind(kind, x, y) else {
                return Err(SnapshotError::new(format!(
                    "{what} has the kind code {kind}"
                )));
            };
            let node = node(n, &what)?;
            // A deferred action's requests name its import; the others, 0.
            let expected = match kind {
                RequestKind::Launch | RequestKind::Cancel | RequestKind::Remap { .. } => {
                    (shape.kind(node) == Kind::Deferred).then(|| shape.item(node).import())
                }
                _ => Some(0),
            };
            if expected != Some(action) {
                return Err(SnapshotError::new(match expected {
                    Some(want) => format!("{what} names action {action}; item {n}'s is {want}"),
                    None => {
                        format!("{what} is a deferred action's, but item {n} is no deferred action")
                    }
                }));
            }
            requests.push(Request {
                agent: agent(a, &what)?,
                node,
                action: ActionId(action),
                kind,
            });
        }
        let mut reported = SubsetRuleReports::default();
        for (i, &(a, n)) in s.subset_rule_reports.iter().enumerate() {
            let what = format!("subset-rule report {i}");
            agent(a, &what)?;
            if shape.kind(node(n, &what)?) != Kind::Decider {
                return Err(SnapshotError::new(format!(
                    "{what} is for item {n}, which is no Decider"
                )));
            }
            if !reported.insert(AgentId(a), NodeIdx::new(n)) {
                return Err(SnapshotError::new(format!("{what} is there twice")));
            }
        }
        let mut crowd = Crowd::with_agents(program, s.blackboards);
        crowd
            .restore_parts(Restored {
                actors,
                frame,
                ticked,
                lanes,
                completions,
                requests,
                stale: s.stale,
                undelivered: s.undelivered,
                reported,
            })
            .map_err(SnapshotError::new)?;
        Ok(crowd)
    }

    /// Reads a crowd [`Crowd::save`] wrote, running `program`.
    ///
    /// # Errors
    /// As [`Crowd::restore`], and for bytes that are not such a snapshot
    /// (with the line and column where reading stopped).
    #[cfg(feature = "json")]
    pub fn load(program: Program<B>, bytes: &[u8]) -> Result<Crowd<B>, SnapshotError>
    where
        B: DeserializeOwned,
    {
        let snapshot: Snapshot<B> = serde_json::from_slice(bytes)
            .map_err(|e| SnapshotError::new(format!("the bytes are not a snapshot ({e})")))?;
        Crowd::restore(program, snapshot)
    }
}

/// The actors of a snapshot of formats 1 to 3, `each` words apiece, laid
/// out before resume points were implied by running leaves: laid out again
/// for `shape` (see `ActorRef::relay_without_implied`). `None` when their
/// size is no such layout's.
fn relaid(
    shape: &Shape,
    layout: ActorLayout,
    each: usize,
    agents: usize,
    actors: &[u32],
) -> Option<Result<Vec<u32>, SnapshotError>> {
    let extra = each.checked_sub(layout.words())?;
    if extra % 2 != 0 || actors.len() != agents * each || each == 0 {
        return None;
    }
    let mut counts = layout.counts();
    counts[0] = counts[0].checked_add(u32::try_from(extra / 2).ok()?)?;
    let old = ActorLayout::from_counts(counts);
    let mut out = Vec::with_capacity(agents * layout.words());
    for (i, block) in actors.chunks_exact(each).enumerate() {
        if let Err(e) = ActorRef::new(block, old).relay_without_implied(shape, &mut out) {
            return Some(Err(SnapshotError::new(format!("agent {i}'s actor: {e}"))));
        }
    }
    Some(Ok(out))
}
