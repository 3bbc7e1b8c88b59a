//! Logging what an engine does, to compare engines: the stream
//! interpreter with the reference interpreter (`tests/corpus.rs`), the
//! compiled engine with the interpreter (`crates/compiled-tests`).

use crate::leaves::Agent;
use crate::run::Engine;
use treebeard_shape::NodeIdx;
use treebeard_vm::{EventId, Frame, Outcome, Request, Stale, Status, TraceEvent};

/// One thing an engine did, as a comparison of engines sees it.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Observed {
    /// A tick of an agent: the frame, the root's status, the requests, the
    /// trace, the leaves left running and the stimuli active.
    Tick {
        tick: u64,
        agent: u32,
        status: Status,
        requests: Vec<Request>,
        trace: Vec<(NodeIdx, TraceEvent)>,
        running: Vec<NodeIdx>,
        stimuli: u32,
    },
    /// A completion the script or a `Deferred` leaf reported, and whether
    /// it was applied.
    Complete {
        agent: u32,
        node: NodeIdx,
        outcome: Outcome,
        result: Result<(), Stale>,
    },
    /// An event sent to an agent, and how many hooks ran.
    Event {
        agent: u32,
        event: EventId,
        delivered: usize,
    },
    /// The crowd settled a round: its state after.
    Settle {
        tick: u64,
        globals: Vec<(NodeIdx, u64)>,
    },
}

/// An engine that logs what the engine it wraps does: run a scenario on
/// two engines wrapped so, and compare the logs.
pub struct Logged<E> {
    inner: E,
    /// What the engine did, in order.
    pub log: Vec<Observed>,
}

impl<E: Engine> Logged<E> {
    /// `inner`, logged.
    pub fn new(inner: E) -> Logged<E> {
        Logged {
            inner,
            log: Vec::new(),
        }
    }
}

impl<E: Engine> Engine for Logged<E> {
    fn tick(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        requests: &mut Vec<Request>,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> Status {
        let mut events = Vec::new();
        let before = requests.len();
        let status = self
            .inner
            .tick(agent, blackboard, frame, requests, &mut |n, e| {
                events.push((n, e));
                trace(n, e);
            });
        self.log.push(Observed::Tick {
            tick: frame.index,
            agent,
            status,
            requests: requests[before..].to_vec(),
            trace: events,
            running: self.inner.running(agent),
            stimuli: self.inner.stimuli(agent, frame.time),
        });
        status
    }

    fn complete(&mut self, agent: u32, node: NodeIdx, outcome: Outcome) -> Result<(), Stale> {
        let result = self.inner.complete(agent, node, outcome);
        self.log.push(Observed::Complete {
            agent,
            node,
            outcome,
            result,
        });
        result
    }

    fn send_event(
        &mut self,
        agent: u32,
        blackboard: &mut Agent,
        frame: &Frame,
        event: EventId,
    ) -> usize {
        let delivered = self.inner.send_event(agent, blackboard, frame, event);
        self.log.push(Observed::Event {
            agent,
            event,
            delivered,
        });
        delivered
    }

    fn running(&self, agent: u32) -> Vec<NodeIdx> {
        self.inner.running(agent)
    }

    fn post_stimulus(&mut self, agent: u32, stimulus: usize, data: u32, now: f64, seconds: f64) {
        self.inner
            .post_stimulus(agent, stimulus, data, now, seconds);
    }

    fn stimuli(&self, agent: u32, now: f64) -> u32 {
        self.inner.stimuli(agent, now)
    }

    fn entries(&self, agent: u32) -> Vec<u64> {
        self.inner.entries(agent)
    }

    fn settle(&mut self, frame: &Frame, requests: &[Request]) {
        self.inner.settle(frame, requests);
        self.log.push(Observed::Settle {
            tick: frame.index,
            globals: self.inner.globals(),
        });
    }

    fn globals(&self) -> Vec<(NodeIdx, u64)> {
        self.inner.globals()
    }

    fn inject(&mut self, agent: u32, connector: NodeIdx, tree: u32) {
        self.inner.inject(agent, connector, tree);
    }

    fn traces(&self) -> bool {
        self.inner.traces()
    }
}

impl Observed {
    /// The observation without its trace events (for an engine that
    /// reports none, such as a compiled tree's).
    pub fn without_trace(&self) -> Observed {
        let mut o = self.clone();
        if let Observed::Tick { trace, .. } = &mut o {
            trace.clear();
        }
        o
    }

    /// The observation with node paths (`paths`, by item), for messages.
    pub fn describe(&self, paths: &[String]) -> String {
        describe(self, paths)
    }
}

fn describe(o: &Observed, paths: &[String]) -> String {
    let node = |n: &NodeIdx| {
        paths
            .get(n.index())
            .cloned()
            .unwrap_or_else(|| format!("#{}", n.index()))
    };
    match o {
        Observed::Tick {
            tick,
            agent,
            status,
            requests,
            trace,
            running,
            stimuli,
        } => {
            let requests: Vec<String> = requests
                .iter()
                .map(|r| format!("{:?} {}", r.kind, node(&r.node)))
                .collect();
            let trace: Vec<String> = trace
                .iter()
                .map(|(n, e)| format!("{} {}", e.name(), node(n)))
                .collect();
            let running: Vec<String> = running.iter().map(node).collect();
            format!(
                "tick {tick}, agent {agent}: {status:?}; requests {requests:?}; trace {trace:?}; running {running:?}; stimuli {stimuli:#b}"
            )
        }
        Observed::Complete {
            agent,
            node: n,
            outcome,
            result,
        } => format!(
            "agent {agent}: complete {} {outcome:?} -> {result:?}",
            node(n)
        ),
        Observed::Event {
            agent,
            event,
            delivered,
        } => format!("agent {agent}: event {event:?} -> {delivered} hooks"),
        Observed::Settle { tick, globals } => {
            let globals: Vec<String> = globals
                .iter()
                .map(|(n, w)| format!("{} {w:#x}", node(n)))
                .collect();
            format!("tick {tick}: settled, globals {globals:?}")
        }
    }
}
