//! How a crowd splits its agents into chunks: a small cost model.
//!
//! A chunk is a run of consecutive agents that one worker ticks as a batch.
//! Chunks must be large enough that scheduling one (a rayon task, a lock of
//! the worker's interpreter) costs little next to ticking it, and numerous
//! enough that work-stealing can balance threads. A crowd too small to pay
//! for parallelism at all is ticked serially on the calling thread. A task
//! per agent never happens.
//!
//! The model estimates an agent-tick's cost from the shape: a fixed part,
//! plus a part per decider level, since a tick visits a path through the
//! tree (and, in reactive trees, the guards of higher-priority branches).
//! The estimate only steers chunk sizes; results never depend on it.

use treebeard_shape::Shape;

/// Knobs of the cost model; the defaults suit most crowds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanConfig {
    /// Fixed chunk size in agents, overriding the model (0: use the model).
    pub chunk_agents: usize,
    /// Work one chunk should carry, in nanoseconds of estimated agent-ticks.
    pub chunk_ns: u64,
    /// Below this much estimated work per tick, tick serially.
    pub serial_below_ns: u64,
    /// Chunks per thread to aim for, so stealing can even out the work.
    pub chunks_per_thread: usize,
}

impl Default for PlanConfig {
    fn default() -> PlanConfig {
        PlanConfig {
            chunk_agents: 0,
            chunk_ns: 100_000,
            serial_below_ns: 40_000,
            chunks_per_thread: 4,
        }
    }
}

/// The chunking of a crowd's tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    agents: usize,
    chunk_agents: usize,
    threads: usize,
    serial: bool,
}

/// Estimated nanoseconds of one agent-tick of `shape`.
pub fn estimate_ns(shape: &Shape) -> u64 {
    let depth = u64::from(shape.spec().guard_depth);
    let items = shape.len() as u64;
    // A tick walks at most the whole stream; usually a path and its guards.
    20 + 6 * items.min(4 * depth + 4)
}

impl Plan {
    /// The plan for `agents` agents of `shape` on `threads` threads.
    pub fn new(config: &PlanConfig, shape: &Shape, agents: usize, threads: usize) -> Plan {
        let threads = threads.max(1);
        let per_agent = estimate_ns(shape).max(1);
        let total = per_agent.saturating_mul(agents as u64);
        let serial = threads == 1 || total < config.serial_below_ns || agents < 2;
        let chunk_agents = if config.chunk_agents > 0 {
            config.chunk_agents
        } else {
            let by_cost = (config.chunk_ns / per_agent).max(64) as usize;
            let by_balance = agents.div_ceil(threads * config.chunks_per_thread.max(1));
            by_cost.min(by_balance).max(64)
        };
        Plan {
            agents,
            chunk_agents: if serial { agents.max(1) } else { chunk_agents },
            threads,
            serial,
        }
    }

    /// Agents per chunk (the last chunk may hold fewer).
    pub fn chunk_agents(&self) -> usize {
        self.chunk_agents
    }

    /// Number of chunks.
    pub fn chunks(&self) -> usize {
        self.agents.div_ceil(self.chunk_agents.max(1))
    }

    /// Whether the tick runs serially on the calling thread.
    pub fn is_serial(&self) -> bool {
        self.serial
    }

    /// The thread count the plan was made for.
    pub fn threads(&self) -> usize {
        self.threads
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use treebeard_shape::tree::{act, sequence};
    use treebeard_shape::{Catalog, LeafSchema, compile};

    fn shape() -> Shape {
        let mut c = Catalog::new();
        c.declare("a", LeafSchema::action());
        compile(&sequence([act("a"), act("a")]), &c).unwrap()
    }

    #[test]
    fn small_crowds_and_single_threads_tick_serially() {
        let c = PlanConfig::default();
        assert!(Plan::new(&c, &shape(), 10, 8).is_serial());
        assert!(Plan::new(&c, &shape(), 1_000_000, 1).is_serial());
        assert!(!Plan::new(&c, &shape(), 1_000_000, 2).is_serial());
    }

    #[test]
    fn chunks_balance_threads_and_never_hold_one_agent() {
        let c = PlanConfig::default();
        let p = Plan::new(&c, &shape(), 5000, 2);
        assert!(p.chunks() >= 8, "{p:?}");
        assert!(p.chunk_agents() >= 64);
        let p = Plan::new(&c, &shape(), 1_000_000, 16);
        assert!(p.chunk_agents() * p.chunks() >= 1_000_000);
        assert!(p.chunk_agents() <= (c.chunk_ns / estimate_ns(&shape())) as usize);
    }

    #[test]
    fn a_fixed_chunk_size_overrides_the_model() {
        let c = PlanConfig {
            chunk_agents: 100,
            ..PlanConfig::default()
        };
        let p = Plan::new(&c, &shape(), 1_000_000, 4);
        assert_eq!((p.chunk_agents(), p.chunks()), (100, 10_000));
    }
}
