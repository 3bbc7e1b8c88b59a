//! The recorder: an observer that keeps the latest ticks in a ring buffer
//! bounded by a byte budget.

use super::format::{self, Names, entry_width};
use super::tick::{NO_NODE, NoteData, TickData};
use super::values::{self, ValueColumn};
use super::{Recording, name_of};
use crate::actor::ActorRef;
use crate::blackboard::Blackboard;
use crate::frame::Frame;
use crate::logs::log_event;
use crate::observe::{NodeStates, Observer};
use crate::request::AgentId;
use crate::status::Status;
use crate::trace::TraceEvent;
use std::collections::VecDeque;
use std::io::{self, Write};
use treebeard_shape::{NodeIdx, Shape};

/// The default byte budget of [`Recorder::new`]: 64 MiB.
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// Records every observed agent's node states per tick into a ring buffer
/// of at most `budget` bytes (see the [module docs](super) for the cost per
/// agent-tick); the oldest ticks are dropped whole when it is full.
///
/// A tick begins when an observed agent's frame index differs from the
/// current tick's, or when its id is not above the previous agent's (so
/// ticking one agent twice with the same frame records two ticks). Buffers
/// of dropped ticks are reused: once the ring is full, recording allocates
/// nothing.
#[derive(Clone, Debug)]
pub struct Recorder {
    shape: Shape,
    shape_bytes: Vec<u8>,
    width: u8,
    budget: usize,
    /// Closed ticks, oldest first, then the open one if `open`.
    pub(super) ticks: VecDeque<TickData>,
    open: bool,
    /// File bytes of the closed ticks.
    pub(super) closed_bytes: usize,
    dropped: u64,
    pub(super) spare: Vec<TickData>,
    /// The agents recorded, ascending; `None`: all.
    only: Option<Vec<u32>>,
    /// Whether the nodes' log messages are kept as notes.
    logs: bool,
    /// The agent being recorded.
    agent: AgentId,
    /// The agents' names, ascending by agent.
    names: Names,
    /// Ticks begun since the recorder was made: the held ticks'
    /// ordinals end here (see [`Recorder::ordinal`]).
    begun: u64,
    /// Times the held ticks were forgotten (cleared, or a recording begun
    /// anew), and times the names changed: what a live feed follows.
    restarts: u64,
    names_changed: u64,
    /// The value columns, fixed by the first recorded values.
    columns: Vec<ValueColumn>,
}

impl Recorder {
    /// A recorder for agents running `shape`, keeping at most `budget`
    /// bytes of ticks (the newest tick is kept even when it alone is
    /// larger).
    pub fn new(shape: &Shape, budget: usize) -> Recorder {
        Recorder {
            shape: shape.clone(),
            shape_bytes: shape.to_bytes(),
            width: entry_width(shape.len()),
            budget,
            ticks: VecDeque::new(),
            open: false,
            closed_bytes: 0,
            dropped: 0,
            spare: Vec::new(),
            only: None,
            logs: true,
            agent: AgentId(0),
            names: Names::new(),
            begun: 0,
            restarts: 0,
            names_changed: 0,
            columns: Vec::new(),
        }
    }

    /// Whether the messages the tree's nodes log (MBT's `_startLog`,
    /// `_successLog`, `_failureLog`; the native format's `log`) are kept,
    /// as notes at their tick, agent and node, as seed 002's recorder keeps
    /// them (the default), or not. They count against the budget.
    pub fn keep_logs(&mut self, keep: bool) {
        self.logs = keep;
    }

    /// Records only `agents` from now on (all of them again with `None`);
    /// the others tick unobserved, at full speed. A few hundred agents of a
    /// large crowd make a recording a fraction of the size.
    pub fn watch_only(&mut self, agents: Option<impl IntoIterator<Item = AgentId>>) {
        self.only = agents.map(|a| {
            let mut ids: Vec<u32> = a.into_iter().map(|a| a.0).collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        });
    }

    /// The shape the recorded agents run.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The shape's bytes, as a recording file embeds them.
    #[cfg(test)]
    pub(crate) fn shape_bytes(&self) -> &[u8] {
        &self.shape_bytes
    }

    /// The byte budget.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Ticks held.
    pub fn len(&self) -> usize {
        self.ticks.len()
    }

    /// Whether no tick is held.
    pub fn is_empty(&self) -> bool {
        self.ticks.is_empty()
    }

    /// Ticks dropped to stay within the budget.
    pub fn dropped_ticks(&self) -> u64 {
        self.dropped
    }

    /// Bytes the held ticks take in a recording file (their headers and
    /// notes included; the file adds its header, the shape and the
    /// agents' names).
    pub fn bytes(&self) -> usize {
        self.closed_bytes + self.open_tick().map_or(0, TickData::encoded_len)
    }

    /// Agent-ticks held.
    pub fn agent_ticks(&self) -> u64 {
        self.ticks.iter().map(|t| u64::from(t.count)).sum()
    }

    /// The measured cost of the held agent-ticks: their bytes (4 for each
    /// one's entry end, 2 or 4 per node not idle, 4 for its id when a
    /// tick's agents are not consecutive), divided by their number; 0 when
    /// none is held.
    pub fn bytes_per_agent_tick(&self) -> f64 {
        bytes_per_agent_tick(self.ticks.iter())
    }

    /// Starts recording `agent`'s tick in `frame`.
    ///
    /// A recording's frames go forward, so that every recording reads
    /// back: a frame before the newest tick's (a restored snapshot, a run
    /// started again) begins the recording anew, its held ticks counted
    /// as dropped; an agent in a frame whose time is not finite (a frame
    /// made by hand; ticks never make one) is not recorded.
    pub(crate) fn begin_agent(&mut self, agent: AgentId, frame: &Frame) {
        if !frame.time.is_finite() {
            self.close();
            return;
        }
        let back = self
            .ticks
            .back()
            .is_some_and(|t| frame.index < t.index || frame.time < t.time);
        if back {
            self.close();
            self.dropped += self.ticks.len() as u64;
            self.clear();
        }
        let same = self.open
            && self.ticks.back().is_some_and(|t| {
                t.index == frame.index && t.last_agent().is_none_or(|last| last < agent.0)
            });
        if !same {
            self.close();
            let mut tick = self.spare.pop().unwrap_or_default();
            tick.reset(frame.index, frame.time);
            self.ticks.push_back(tick);
            self.begun += 1;
            self.open = true;
        }
        if let Some(tick) = self.ticks.back_mut() {
            tick.push_agent(agent.0);
        }
    }

    /// Records the state numbered `state` (1 to 4) of `node` for the agent
    /// begun last; nodes come in ascending order.
    pub(crate) fn push_state(&mut self, node: NodeIdx, state: u8) {
        let width = self.width;
        if let Some(tick) = self.ticks.back_mut().filter(|_| self.open) {
            tick.push_entry(width, node.get(), state);
        }
    }

    /// Attaches `text` to `agent` (and to `node`, if given) at the newest
    /// tick: custom debug text the viewer shows beside the node's state.
    /// Call it between ticks, after the tick it is about. Returns false,
    /// and keeps nothing, before the first tick or for a node the shape
    /// does not have.
    pub fn annotate(&mut self, agent: AgentId, node: Option<NodeIdx>, text: &str) -> bool {
        if node.is_some_and(|n| n.index() >= self.shape.len()) {
            return false;
        }
        push_note(
            self.ticks.back_mut(),
            self.open,
            &mut self.closed_bytes,
            agent,
            node,
            text,
        )
    }

    /// Names `agent` in the recording (the viewer shows the name beside its
    /// id, and finds the agent by it): a game entity's name, say. An empty
    /// name removes the agent's. An agent has one name for the whole
    /// recording, the last one given: a crowd that reuses a departed
    /// agent's id should give the newcomer's name, which then stands for
    /// the earlier ticks too. Names are few (one per agent) and held
    /// outside the ring's budget.
    pub fn name(&mut self, agent: AgentId, name: &str) {
        if self.name_of(agent).unwrap_or("") == name {
            return;
        }
        self.names_changed += 1;
        match self.names.binary_search_by_key(&agent.0, |&(a, _)| a) {
            Ok(k) if name.is_empty() => {
                self.names.remove(k);
            }
            Ok(k) => name.clone_into(&mut self.names[k].1),
            Err(_) if name.is_empty() => {}
            Err(k) => self.names.insert(k, (agent.0, name.to_owned())),
        }
    }

    /// Records, at the newest tick, the values of each agent it observed:
    /// the blackboard's fields (`B`'s [`Blackboard::fields`]) and the
    /// tree's variables, entries, timestamps and stimuli (the recording's
    /// [columns](Recording::columns)), read from `agent(id)`, the agent's
    /// blackboard and actor (`None` for an agent gone: it has no values at
    /// this tick). Call it once a frame, after the tick (as
    /// `Crowd::record_values` does). The first call fixes the columns: a
    /// recorder records one blackboard type. Values count against the
    /// budget: 8 bytes per column per agent-tick, and strings' bytes.
    pub fn record_values<'b, B: Blackboard + 'b>(
        &mut self,
        mut agent: impl FnMut(AgentId) -> Option<(&'b B, ActorRef<'b>)>,
    ) {
        if self.columns.is_empty() {
            self.columns = values::columns::<B>(&self.shape);
        }
        let c = self.columns.len();
        let Some(tick) = self.ticks.back_mut().filter(|_| c > 0) else {
            return;
        };
        let before = tick.encoded_len();
        let n = tick.count as usize;
        tick.values.clear();
        tick.valued.clear();
        tick.valued.resize(n.div_ceil(32), 0);
        for k in 0..n {
            match agent(AgentId(tick.agent(k))) {
                Some((blackboard, actor)) => {
                    values::push_row(
                        &self.columns,
                        &self.shape,
                        blackboard,
                        &actor,
                        tick.time,
                        &mut tick.text,
                        &mut tick.values,
                    );
                    tick.valued[k / 32] |= 1 << (k % 32);
                }
                None => tick.values.resize(tick.values.len() + c, 0),
            }
        }
        if !self.open {
            self.closed_bytes = self.closed_bytes - before + tick.encoded_len();
        }
    }

    /// The value columns ([`Recorder::record_values`]); empty until values
    /// are first recorded.
    pub fn columns(&self) -> &[ValueColumn] {
        &self.columns
    }

    /// The name given to `agent`, if any ([`Recorder::name`]).
    pub fn name_of(&self, agent: AgentId) -> Option<&str> {
        name_of(&self.names, agent)
    }

    /// Forgets every tick (keeping the buffers).
    pub fn clear(&mut self) {
        self.restarts += 1;
        self.open = false;
        self.closed_bytes = 0;
        self.spare.extend(self.ticks.drain(..));
    }

    /// A copy of what is held, as a recording.
    pub fn recording(&self) -> Recording {
        Recording {
            version: format::VERSION,
            shape: self.shape.clone(),
            shape_bytes: self.shape_bytes.clone(),
            width: self.width,
            ticks: self.ticks.iter().cloned().collect(),
            dropped: self.dropped,
            names: self.names.clone(),
            columns: self.columns.clone(),
        }
    }

    /// What is held, as a recording.
    pub fn into_recording(mut self) -> Recording {
        self.close();
        Recording {
            version: format::VERSION,
            shape: self.shape,
            shape_bytes: self.shape_bytes,
            width: self.width,
            ticks: self.ticks.into(),
            dropped: self.dropped,
            names: self.names,
            columns: self.columns,
        }
    }

    /// Writes what is held as a recording file (see the
    /// [format](super#the-file-format)).
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        format::write(&mut out, &self.head(), self.ticks.iter())
    }

    /// The ordinal of held tick `i` (0 the oldest held): its place among
    /// every tick this recorder began, counting from 0. Ordinals go on
    /// across dropped ticks and [`Recorder::clear`], so a live feed can
    /// ask for the ticks after the last one it sent.
    pub fn ordinal(&self, i: usize) -> u64 {
        self.begun - self.ticks.len() as u64 + i as u64
    }

    /// The ordinal the next tick begun will have.
    pub fn next_ordinal(&self) -> u64 {
        self.begun
    }

    /// How many times the held ticks were forgotten ([`Recorder::clear`],
    /// or frames that went back, which begin the recording anew): a live
    /// feed that sees it change starts over.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// How many times a name was given, changed or removed
    /// ([`Recorder::name`]).
    pub fn names_changed(&self) -> u64 {
        self.names_changed
    }

    /// Ends the newest tick: agents observed after this start a new tick,
    /// even in the same frame. A live feed ends each frame's tick before
    /// sending it, so that what it sent is what the recording holds.
    pub fn end_tick(&mut self) {
        self.close();
    }

    /// Whether the newest tick is still open (agents observed in its frame
    /// may still join it; see [`Recorder::end_tick`]).
    pub fn tick_open(&self) -> bool {
        self.open
    }

    /// Appends held tick `i` (0 the oldest) to `out`, as the file format
    /// lays out a tick; false, and nothing appended, if none is held at
    /// `i`.
    pub fn encode_tick(&self, i: usize, out: &mut Vec<u8>) -> bool {
        let Some(tick) = self.ticks.get(i) else {
            return false;
        };
        format::write_tick(out, tick, self.width).is_ok()
    }

    /// Appends the file's header and shape, for `ticks` ticks after
    /// `dropped` dropped ones, to `out`: with [`Recorder::encode_tick`]'s
    /// ticks and [`Recorder::encode_names`]'s names, a recording file.
    pub fn encode_head(&self, dropped: u64, ticks: usize, out: &mut Vec<u8>) {
        let head = self.head();
        let head = format::Head { dropped, ..head };
        // Writing to a vector fails only for over 2^32 ticks.
        let _ = format::write_head(out, &head, ticks);
    }

    /// Appends the agents' names block to `out`, as the file lays it out.
    pub fn encode_names(&self, out: &mut Vec<u8>) {
        let _ = format::write_names(out, &self.names);
    }

    fn head(&self) -> format::Head<'_> {
        format::Head {
            version: format::VERSION,
            width: self.width,
            shape: &self.shape_bytes,
            dropped: self.dropped,
            names: &self.names,
            columns: &self.columns,
        }
    }

    fn open_tick(&self) -> Option<&TickData> {
        self.ticks.back().filter(|_| self.open)
    }

    /// Closes the open tick and drops the oldest ticks over the budget.
    fn close(&mut self) {
        if let Some(tick) = self.open_tick() {
            self.closed_bytes += tick.encoded_len();
            self.open = false;
        }
        while self.closed_bytes > self.budget && self.ticks.len() > 1 {
            let Some(old) = self.ticks.pop_front() else {
                break;
            };
            self.closed_bytes -= old.encoded_len();
            self.dropped += 1;
            self.spare.push(old);
        }
    }
}

/// A recorder watches every agent; it hears the start and the end of each
/// tick, and stores the states at the end, and the events of the nodes that
/// log messages, which it keeps as notes.
impl Observer for Recorder {
    fn watches(&self, agent: AgentId) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.binary_search(&agent.0).is_ok())
    }

    fn begin(&mut self, agent: AgentId, frame: &Frame) {
        self.agent = agent;
        self.begin_agent(agent, frame);
    }

    fn event(&mut self, node: NodeIdx, event: TraceEvent) {
        if !self.logs || self.shape.logs().is_empty() || !self.open {
            return;
        }
        let Some(log_event) = log_event(event) else {
            return;
        };
        let Recorder {
            shape,
            ticks,
            closed_bytes,
            agent,
            ..
        } = self;
        if let Some(message) = shape.logs_of(node).and_then(|m| m.get(log_event)) {
            push_note(
                ticks.back_mut(),
                true,
                closed_bytes,
                *agent,
                Some(node),
                message,
            );
        }
    }

    fn end(&mut self, _agent: AgentId, _root: Status, states: &NodeStates<'_>) {
        for (node, state) in states.iter() {
            self.push_state(node, state as u8);
        }
    }
}

/// Adds a note to `tick`, the newest (open if `open`; a closed tick's
/// bytes count in `closed_bytes`).
fn push_note(
    tick: Option<&mut TickData>,
    open: bool,
    closed_bytes: &mut usize,
    agent: AgentId,
    node: Option<NodeIdx>,
    text: &str,
) -> bool {
    let Some(tick) = tick else {
        return false;
    };
    let (Ok(start), Ok(len)) = (u32::try_from(tick.text.len()), u32::try_from(text.len())) else {
        return false;
    };
    let before = tick.encoded_len();
    tick.text.push_str(text);
    tick.notes.push(NoteData {
        agent: agent.0,
        node: node.map_or(NO_NODE, NodeIdx::get),
        start,
        len,
    });
    if !open {
        *closed_bytes += tick.encoded_len() - before;
    }
    true
}

/// Agent bytes over agent-ticks of `ticks`.
pub(crate) fn bytes_per_agent_tick<'t>(ticks: impl Iterator<Item = &'t TickData>) -> f64 {
    let (bytes, agents) = ticks.fold((0u64, 0u64), |(b, a), t| {
        (b + t.agent_bytes() as u64, a + u64::from(t.count))
    });
    if agents == 0 {
        0.0
    } else {
        bytes as f64 / agents as f64
    }
}
