//! Recordings: every observed agent's node states, tick by tick, for
//! looking back at what agents did (the `treebeard view` page reads them).
//!
//! A [`Recorder`] is an observer (pass it to `Crowd::tick_observed` or
//! [`crate::Interpreter::tick_observed`]): at the end of each observed
//! agent's tick it stores the agent's nodes that are not idle (running,
//! or finished with success or failure, or cancelled this tick) into a
//! ring buffer bounded by a byte budget; the oldest ticks are dropped whole.
//! The application may attach custom debug text to an agent, or to one of
//! its nodes, at the newest tick ([`Recorder::annotate`]). A [`Recording`]
//! is what a recorder held: the shape (with its node names, files and
//! lines) and the ticks; it is written to and read from a file in the
//! format below, every problem in a damaged file reported with its byte
//! offset.
//!
//! # Cost
//!
//! An agent-tick costs **4 bytes plus 2 per node that is not idle** (4 per
//! node for shapes of more than 8192 nodes), and 4 more for the agent's id
//! when a tick's agents are not a consecutive range (a crowd observed
//! whole is one range); each tick adds a 40-byte header. Idle nodes cost
//! nothing, so the cost follows what agents do, not the tree's size.
//! [`Recorder::bytes_per_agent_tick`] measures it on what is held. On the
//! crowd workload (5000 agents, seed 42, 100 ticks; 22 nodes, of which
//! 8.75 on average are not idle at the end of an agent's tick) it is
//! **21.5 bytes per agent-tick**, so a 64 MiB budget holds about 620 ticks
//! of 5000 agents.
//!
//! # The file format
//!
//! A 32-byte header (`TBRECORD`, version, entry width, shape length, tick
//! count, ticks dropped), the shape's own bytes, then the ticks, oldest
//! first; see `docs/recording.md` for every field. All numbers are
//! little-endian and every array starts at a multiple of 4 bytes.
//!
//! # Example
//!
//! ```
//! use treebeard_shape::tree::{act, cond, sequence};
//! use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, NodeState, Recorder, Recording, Status};
//!
//! let mut leaves = Leaves::<u32>::new();
//! leaves.condition("ready", |n, _| *n > 0);
//! leaves.deferred("Walk");
//! let program = leaves.compile(&sequence([cond("ready"), act("Walk")]))?;
//!
//! let mut recorder = Recorder::new(program.shape(), 1 << 20);
//! let mut interpreter = Interpreter::new();
//! let (mut actor, mut requests, mut frame) = (Actor::for_shape(program.shape()), Vec::new(), Frame::default());
//! let mut blackboard = 1;
//! for _ in 0..3 {
//!     interpreter.tick_observed(&program, &frame, AgentId(0), &mut actor.as_mut(), &mut blackboard, &mut requests, &mut recorder);
//!     frame = frame.next(0.1);
//! }
//! recorder.annotate(AgentId(0), None, "waiting for the path finder");
//!
//! let mut file = Vec::new();
//! recorder.write_to(&mut file)?;
//! let recording = Recording::read_from(&file)?;
//! assert_eq!(recording.len(), 3);
//! let walk = program.shape().find("Walk").unwrap();
//! let last = recording.tick(2).unwrap();
//! assert_eq!(last.state(AgentId(0), walk), NodeState::Running);
//! assert_eq!(last.notes().next().unwrap().text, "waiting for the path finder");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod format;
mod recorder;
mod tick;
mod values;

pub use format::{MAGIC, RecordingError, Unreadable, VERSION, assemble};

use format::Names;
pub use recorder::{DEFAULT_BUDGET, Recorder};
pub use values::{ValueColumn, ValueSource};

use crate::blackboard::Value;
use crate::observe::NodeState;
use crate::request::AgentId;
use std::io::{self, Write};
use tick::{NO_NODE, TickData};
use treebeard_shape::{NodeIdx, Shape};

/// Recorded ticks of agents running one shape: what a [`Recorder`] held,
/// or what a recording file holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The format version it was read with (and writes back with), or
    /// this build's.
    version: u32,
    shape: Shape,
    shape_bytes: Vec<u8>,
    width: u8,
    ticks: Vec<TickData>,
    dropped: u64,
    names: Names,
    columns: Vec<ValueColumn>,
}

impl Recording {
    /// Reads a recording file's bytes; a damaged or foreign file is an
    /// error that names the byte where it goes wrong.
    pub fn read_from(bytes: &[u8]) -> Result<Recording, RecordingError> {
        let read = format::read(bytes)?;
        Ok(Recording {
            version: read.version,
            shape: read.shape,
            shape_bytes: read.shape_bytes,
            width: read.width,
            ticks: read.ticks,
            dropped: read.dropped,
            names: read.names,
            columns: read.columns,
        })
    }

    /// Writes the recording in the file format, in the version it was read
    /// with (a recorder's in this build's): it writes back as read.
    pub fn write_to(&self, mut out: impl Write) -> io::Result<()> {
        let head = format::Head {
            version: self.version,
            width: self.width,
            shape: &self.shape_bytes,
            dropped: self.dropped,
            names: &self.names,
            columns: &self.columns,
        };
        format::write(&mut out, &head, self.ticks.iter())
    }

    /// The recording as the bytes of a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing to a vector cannot fail but for a block of over 2^32
        // items, which a recording read or recorded cannot hold.
        let _ = self.write_to(&mut out);
        out
    }

    /// The shape the agents ran.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Bytes per stored node entry: 2, or 4 for shapes over 8192 nodes.
    pub fn entry_width(&self) -> u8 {
        self.width
    }

    /// The number of ticks.
    pub fn len(&self) -> usize {
        self.ticks.len()
    }

    /// Whether there is no tick.
    pub fn is_empty(&self) -> bool {
        self.ticks.is_empty()
    }

    /// The `i`-th tick, oldest first.
    pub fn tick(&self, i: usize) -> Option<RecordedTick<'_>> {
        self.ticks.get(i).map(|tick| RecordedTick {
            tick,
            width: self.width,
            columns: &self.columns,
        })
    }

    /// The ticks, oldest first.
    pub fn ticks(&self) -> impl ExactSizeIterator<Item = RecordedTick<'_>> + '_ {
        let (width, columns) = (self.width, &self.columns[..]);
        self.ticks.iter().map(move |tick| RecordedTick {
            tick,
            width,
            columns,
        })
    }

    /// The value columns: what [`RecordedTick::value`] reads (empty when
    /// no values were recorded; see [`Recorder::record_values`]).
    pub fn columns(&self) -> &[ValueColumn] {
        &self.columns
    }

    /// Ticks the recorder dropped before the first one held.
    pub fn dropped_ticks(&self) -> u64 {
        self.dropped
    }

    /// Agent-ticks recorded.
    pub fn agent_ticks(&self) -> u64 {
        self.ticks.iter().map(|t| u64::from(t.count)).sum()
    }

    /// The measured bytes per agent-tick (see [`Recorder::bytes_per_agent_tick`]).
    pub fn bytes_per_agent_tick(&self) -> f64 {
        recorder::bytes_per_agent_tick(self.ticks.iter())
    }

    /// The name the application gave `agent` ([`Recorder::name`]), if any.
    pub fn name(&self, agent: AgentId) -> Option<&str> {
        name_of(&self.names, agent)
    }

    /// Every named agent with its name, ascending by agent.
    pub fn names(&self) -> impl ExactSizeIterator<Item = (AgentId, &str)> + '_ {
        self.names
            .iter()
            .map(|(agent, name)| (AgentId(*agent), name.as_str()))
    }

    /// Every agent recorded at some tick, ascending.
    pub fn agents(&self) -> Vec<AgentId> {
        let mut all: Vec<u32> = Vec::new();
        for t in &self.ticks {
            if t.listed() {
                all.extend_from_slice(&t.ids);
            } else {
                all.extend(t.first..t.first + t.count);
            }
        }
        all.sort_unstable();
        all.dedup();
        all.into_iter().map(AgentId).collect()
    }
}

/// One recorded tick.
#[derive(Clone, Copy, Debug)]
pub struct RecordedTick<'r> {
    tick: &'r TickData,
    width: u8,
    columns: &'r [ValueColumn],
}

/// Custom debug text the application attached to an agent at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note<'r> {
    /// The agent.
    pub agent: AgentId,
    /// The node it is about, or `None` for the whole agent.
    pub node: Option<NodeIdx>,
    /// The text.
    pub text: &'r str,
}

impl<'r> RecordedTick<'r> {
    /// The frame's index: ticks before this one.
    pub fn index(&self) -> u64 {
        self.tick.index
    }

    /// The frame's time: seconds before this tick.
    pub fn time(&self) -> f64 {
        self.tick.time
    }

    /// The agents observed, ascending.
    pub fn agents(&self) -> impl ExactSizeIterator<Item = AgentId> + 'r {
        let tick = self.tick;
        (0..tick.count as usize).map(move |k| AgentId(tick.agent(k)))
    }

    /// Whether `agent` was observed at this tick.
    pub fn has(&self, agent: AgentId) -> bool {
        self.tick.position(agent.0).is_some()
    }

    /// `agent`'s nodes that are not idle at the end of this tick, in node
    /// order, with their states; none if the agent was not observed.
    pub fn states(&self, agent: AgentId) -> impl Iterator<Item = (NodeIdx, NodeState)> + 'r {
        let (tick, width) = (self.tick, self.width);
        tick.position(agent.0)
            .into_iter()
            .flat_map(move |k| tick.entries(width, k))
            .map(|(node, state)| (node, NodeState::from_u8(state).unwrap_or_default()))
    }

    /// `agent`'s state of `node` at the end of this tick (idle if the agent
    /// was not observed).
    pub fn state(&self, agent: AgentId, node: NodeIdx) -> NodeState {
        self.states(agent)
            .find(|&(n, _)| n == node)
            .map_or(NodeState::Idle, |(_, s)| s)
    }

    /// `agent`'s recorded value of column `column` ([`Recording::columns`])
    /// at the end of this tick: `None` if no values were recorded for it
    /// then, and for a timestamp never set or a stimulus not active.
    pub fn value(&self, agent: AgentId, column: usize) -> Option<Value<'r>> {
        let (tick, columns) = (self.tick, self.columns);
        let row = tick.row(tick.position(agent.0)?, columns.len())?;
        columns.get(column)?.read(row[column], &tick.text)
    }

    /// Whether values were recorded for `agent` at this tick.
    pub fn has_values(&self, agent: AgentId) -> bool {
        let tick = self.tick;
        tick.position(agent.0)
            .and_then(|k| tick.row(k, self.columns.len()))
            .is_some()
    }

    /// The custom debug text attached at this tick.
    pub fn notes(&self) -> impl Iterator<Item = Note<'r>> + 'r {
        let tick = self.tick;
        tick.notes.iter().map(move |n| Note {
            agent: AgentId(n.agent),
            node: (n.node != NO_NODE).then(|| NodeIdx::new(n.node)),
            text: &tick.text[n.start as usize..(n.start + n.len) as usize],
        })
    }
}

/// `agent`'s name in `names`.
fn name_of(names: &Names, agent: AgentId) -> Option<&str> {
    let k = names.binary_search_by_key(&agent.0, |&(a, _)| a).ok()?;
    Some(&names[k].1)
}

#[cfg(test)]
mod tests;
