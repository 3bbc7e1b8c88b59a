//! One recorded tick in memory, laid out as it is in a recording file.

use treebeard_shape::NodeIdx;

/// The node word of a note that is about the whole agent.
pub(crate) const NO_NODE: u32 = u32::MAX;

/// Bytes of a tick's header in a recording file.
pub(crate) const TICK_HEADER: usize = 40;

/// A note: custom text the application attached to an agent (and maybe a
/// node) at a tick; its text is a range of the tick's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NoteData {
    pub agent: u32,
    pub node: u32,
    pub start: u32,
    pub len: u32,
}

/// One tick: which agents were observed, and each one's non-idle nodes.
///
/// Agent `k` of the tick (in ascending id order) owns the entries
/// `ends[k - 1]..ends[k]` (from 0 for the first). An entry is
/// `node << 3 | state`, `width` bytes little-endian. Agents are stored as a
/// range (`first`, `count`) while their ids are consecutive, the common
/// case of a crowd observed whole, and as a list (`ids`) once they are not.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TickData {
    pub index: u64,
    pub time: f64,
    pub first: u32,
    pub count: u32,
    /// Empty while the ids are `first..first + count`.
    pub ids: Vec<u32>,
    pub ends: Vec<u32>,
    pub entries: Vec<u8>,
    pub notes: Vec<NoteData>,
    pub text: String,
    /// The agents' recorded values, a row of one word per value column
    /// for each agent (in the agents' order), or empty when none were
    /// recorded at this tick (see `values.rs`).
    pub values: Vec<u64>,
    /// Bit `k`: agent `k` has its row of values (an agent gone by the
    /// time values were recorded has a row of zeros).
    pub valued: Vec<u32>,
}

impl TickData {
    /// Empties the tick for reuse, keeping its buffers.
    pub fn reset(&mut self, index: u64, time: f64) {
        self.index = index;
        self.time = time;
        self.first = 0;
        self.count = 0;
        self.ids.clear();
        self.ends.clear();
        self.entries.clear();
        self.notes.clear();
        self.text.clear();
        self.values.clear();
        self.valued.clear();
    }

    /// Whether the agents are listed rather than a range.
    pub fn listed(&self) -> bool {
        !self.ids.is_empty()
    }

    /// The id of the tick's last agent, if any.
    pub fn last_agent(&self) -> Option<u32> {
        if self.count == 0 {
            None
        } else if self.listed() {
            self.ids.last().copied()
        } else {
            Some(self.first + (self.count - 1))
        }
    }

    /// Adds `agent` (greater than every agent so far) with no entries yet.
    pub fn push_agent(&mut self, agent: u32) {
        if self.count == 0 {
            self.first = agent;
        } else if !self.listed() && agent != self.first + self.count {
            self.ids.extend(self.first..self.first + self.count);
            self.first = 0;
        }
        if self.listed() {
            self.ids.push(agent);
        }
        self.count += 1;
        self.ends.push(self.ends.last().copied().unwrap_or(0));
    }

    /// Adds an entry to the last agent.
    pub fn push_entry(&mut self, width: u8, node: u32, state: u8) {
        let word = node << 3 | u32::from(state);
        if width == 2 {
            self.entries.extend_from_slice(&(word as u16).to_le_bytes());
        } else {
            self.entries.extend_from_slice(&word.to_le_bytes());
        }
        if let Some(end) = self.ends.last_mut() {
            *end += 1;
        }
    }

    /// The id of the tick's `k`-th agent.
    pub fn agent(&self, k: usize) -> u32 {
        if self.listed() {
            self.ids[k]
        } else {
            self.first + k as u32
        }
    }

    /// The position of `agent` among the tick's agents.
    pub fn position(&self, agent: u32) -> Option<usize> {
        if self.listed() {
            self.ids.binary_search(&agent).ok()
        } else {
            agent
                .checked_sub(self.first)
                .filter(|&k| k < self.count)
                .map(|k| k as usize)
        }
    }

    /// The entries of the `k`-th agent, as `(node, state)` codes.
    pub fn entries(
        &self,
        width: u8,
        k: usize,
    ) -> impl ExactSizeIterator<Item = (NodeIdx, u8)> + '_ {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        let end = self.ends[k] as usize;
        let w = usize::from(width);
        self.entries[start * w..end * w]
            .chunks_exact(w)
            .map(move |b| {
                let word = if w == 2 {
                    u32::from(u16::from_le_bytes([b[0], b[1]]))
                } else {
                    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
                };
                (NodeIdx::new(word >> 3), (word & 7) as u8)
            })
    }

    /// The number of entries.
    pub fn entry_count(&self, width: u8) -> usize {
        self.entries.len() / usize::from(width)
    }

    /// Bytes of the tick in a recording file.
    pub fn encoded_len(&self) -> usize {
        TICK_HEADER
            + 4 * self.ids.len()
            + 4 * self.ends.len()
            + pad4(self.entries.len())
            + 16 * self.notes.len()
            + pad4(self.text.len())
            + self.values_bytes()
    }

    /// Bytes of the tick's agent-ticks in a recording file: the tick less
    /// its header and notes (its values' strings, in its text, too).
    pub fn agent_bytes(&self) -> usize {
        4 * self.ids.len() + 4 * self.ends.len() + pad4(self.entries.len()) + self.values_bytes()
    }

    /// Bytes of the values block: the bitmap of agents with values, then
    /// the rows.
    fn values_bytes(&self) -> usize {
        4 * self.valued.len() + 8 * self.values.len()
    }

    /// Whether values were recorded at this tick.
    pub fn has_values(&self) -> bool {
        !self.valued.is_empty()
    }

    /// The `k`-th agent's row of values, if it has one.
    pub fn row(&self, k: usize, columns: usize) -> Option<&[u64]> {
        let has = self
            .valued
            .get(k / 32)
            .is_some_and(|w| w >> (k % 32) & 1 != 0);
        has.then(|| &self.values[k * columns..(k + 1) * columns])
    }
}

/// `n` rounded up to a multiple of 4.
pub(crate) fn pad4(n: usize) -> usize {
    n.div_ceil(4) * 4
}
