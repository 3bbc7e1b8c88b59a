//! The project's six performance targets, each worked out from the
//! results as a measured value and whether it met its goal.

use crate::criterion::Results;
use crate::figures::{AGENTS, THREADS, WORKLOAD};
use crate::interleaved::Interleaved;
use crate::memory::Memory;

/// Which way a target's value must lie from its bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Goal {
    /// The value must be at least this.
    AtLeast(f64),
    /// The value must be at most this.
    AtMost(f64),
}

impl Goal {
    /// The goal as written in the table (`≥ 50`).
    pub fn describe(self) -> String {
        match self {
            Goal::AtLeast(b) => format!("≥ {}", crate::markdown::plain_number(b)),
            Goal::AtMost(b) => format!("≤ {}", crate::markdown::plain_number(b)),
        }
    }

    /// Whether `value` meets the goal.
    pub fn met_by(self, value: f64) -> bool {
        match self {
            Goal::AtLeast(b) => value >= b,
            Goal::AtMost(b) => value <= b,
        }
    }
}

/// What a target's value is, for formatting it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A ratio of two times (2 decimals, `×`).
    Ratio,
    /// Bytes (1 decimal, ` B`).
    Bytes,
}

/// One target and what was measured of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// What is compared, in words.
    pub what: &'static str,
    /// The bound to meet.
    pub goal: Goal,
    /// How the value is written.
    pub unit: Unit,
    /// The measured value, when its inputs were measured.
    pub measured: Option<f64>,
    /// Where the value comes from: the interleaved rounds, criterion's
    /// medians, or the memory results.
    pub source: &'static str,
}

impl Target {
    /// `Some(met)` when measured, `None` when not.
    pub fn met(&self) -> Option<bool> {
        self.measured.map(|v| self.goal.met_by(v))
    }
}

/// A benchmark: criterion group, function and value.
type Id<'a> = (&'a str, &'a str, Option<&'a str>);

/// The ratio `a ÷ b` of two benchmarks' nanoseconds per agent-tick, and
/// where it comes from: the medians of the interleaved rounds when both
/// were measured there (drift between criterion's benchmarks does not
/// bias them), else criterion's medians per element.
fn ratio(
    results: &Results,
    interleaved: &Interleaved,
    a: Id<'_>,
    b: Id<'_>,
) -> (Option<f64>, &'static str) {
    let id = |(_, function, value): Id<'_>| match value {
        Some(value) => format!("{function}/{value}"),
        None => function.to_owned(),
    };
    let rounds = (
        interleaved.median(a.0, &id(a)),
        interleaved.median(b.0, &id(b)),
    );
    if let (Some(a), Some(b)) = rounds {
        return ((b > 0.0).then(|| a / b), "interleaved rounds");
    }
    let median = |(group, function, value): Id<'_>| {
        results
            .get(group, function, value)
            .map(|m| m.median_per_element())
    };
    let value = match (median(a), median(b)) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    (value, "criterion medians")
}

/// The six targets, in the report's order.
pub fn evaluate(
    results: &Results,
    memory: Option<&Memory>,
    interleaved: &Interleaved,
) -> Vec<Target> {
    let timed = |what, goal, a, b| {
        let (measured, source) = ratio(results, interleaved, a, b);
        Target {
            what,
            goal,
            unit: Unit::Ratio,
            measured,
            source,
        }
    };
    vec![
        timed(
            "bonsai ÷ treebeard, ns per agent-tick at workload_5000",
            Goal::AtLeast(50.0),
            (WORKLOAD, "bonsai", None),
            (WORKLOAD, "treebeard", None),
        ),
        timed(
            "treebeard ÷ handcoded, ns per agent-tick at workload_5000",
            Goal::AtMost(2.0),
            (WORKLOAD, "treebeard", None),
            (WORKLOAD, "handcoded", None),
        ),
        timed(
            "compiled ÷ handcoded, ns per agent-tick at workload_5000",
            Goal::AtMost(1.3),
            (WORKLOAD, "compiled", None),
            (WORKLOAD, "handcoded", None),
        ),
        Target {
            what: "treebeard behaviour bytes per agent (largest of the memory cases)",
            goal: Goal::AtMost(32.0),
            unit: Unit::Bytes,
            measured: memory.and_then(|m| m.behaviour_bytes("treebeard")),
            source: "memory results",
        },
        timed(
            "agents/treebeard/1000000 ÷ agents/treebeard/1000, ns per agent-tick",
            Goal::AtMost(1.5),
            (AGENTS, "treebeard", Some("1000000")),
            (AGENTS, "treebeard", Some("1000")),
        ),
        timed(
            "threads_100k/treebeard/1 ÷ threads_100k/treebeard/2 (speed-up on 2 threads)",
            Goal::AtLeast(1.7),
            (THREADS, "treebeard", Some("1")),
            (THREADS, "treebeard", Some("2")),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::criterion::{self, tests::write_result};
    use crate::memory::MemoryCase;
    use crate::testdir::test_dir;

    fn case(implementation: &str, agents: u64, bytes: f64) -> MemoryCase {
        MemoryCase {
            implementation: implementation.into(),
            agents,
            ticks: None,
            behaviour_bytes_per_agent: Some(bytes),
            blackboard_bytes_per_agent: None,
            baseline_rss_bytes: None,
            peak_rss_bytes: None,
            peak_rss_bytes_per_agent: None,
        }
    }

    #[test]
    fn targets_met_missed_and_not_measured() {
        let dir = test_dir("targets");
        let root = dir.path();
        // 10 ns per agent-tick for treebeard, 600 for bonsai (60×: met),
        // 4 for handcoded (2.5×: missed), 6 for compiled (1.5×: missed).
        write_result(
            root,
            WORKLOAD,
            Some("treebeard"),
            None,
            Some(5000),
            50_000.0,
        );
        write_result(
            root,
            WORKLOAD,
            Some("bonsai"),
            None,
            Some(5000),
            3_000_000.0,
        );
        write_result(
            root,
            WORKLOAD,
            Some("handcoded"),
            None,
            Some(5000),
            20_000.0,
        );
        write_result(root, WORKLOAD, Some("compiled"), None, Some(5000), 30_000.0);
        // 8 ns per agent-tick at 1000 agents, 12 at 1 000 000 (1.5×: met, at
        // the bound).
        write_result(
            root,
            AGENTS,
            Some("treebeard"),
            Some("1000"),
            Some(1000),
            8000.0,
        );
        write_result(
            root,
            AGENTS,
            Some("treebeard"),
            Some("1000000"),
            Some(1_000_000),
            12e6,
        );
        // Thread results absent: not measured.
        let results = criterion::load(root).unwrap();
        let memory = Memory {
            cases: vec![
                case("treebeard", 1000, 28.0),
                case("treebeard", 1_000_000, 33.0),
                case("bonsai", 1000, 900.0),
            ],
            modified: None,
        };
        let none = Interleaved::default();
        let targets = evaluate(&results, Some(&memory), &none);
        let measured: Vec<Option<f64>> = targets.iter().map(|t| t.measured).collect();
        assert_eq!(
            measured,
            [
                Some(60.0),
                Some(2.5),
                Some(1.5),
                Some(33.0),
                Some(1.5),
                None
            ]
        );
        let met: Vec<Option<bool>> = targets.iter().map(Target::met).collect();
        assert_eq!(
            met,
            [
                Some(true),
                Some(false),
                Some(false),
                Some(false),
                Some(true),
                None
            ]
        );

        assert!(targets[0].source.contains("criterion"));

        let without_memory = evaluate(&results, None, &none);
        assert_eq!(without_memory[3].met(), None);

        // Interleaved rounds of both sides win over criterion's medians:
        // 15 ÷ 10 = 1.5 at workload_5000 instead of 2.5.
        let rounds = Interleaved {
            groups: vec![crate::interleaved::Rounds {
                group: WORKLOAD.into(),
                rounds: 1,
                cases: ["treebeard", "handcoded"]
                    .iter()
                    .zip([15.0, 10.0])
                    .map(|(id, ns)| crate::interleaved::RoundsCase {
                        id: (*id).into(),
                        ns_per_agent_tick: vec![ns],
                    })
                    .collect(),
            }],
            modified: None,
        };
        let targets = evaluate(&results, Some(&memory), &rounds);
        assert_eq!(targets[1].measured, Some(1.5));
        assert_eq!(targets[1].source, "interleaved rounds");
        // Only one side in the rounds: criterion's medians.
        assert_eq!(targets[0].measured, Some(60.0));
    }

    #[test]
    fn goals_compare_the_right_way() {
        assert!(Goal::AtLeast(1.7).met_by(1.7));
        assert!(!Goal::AtLeast(1.7).met_by(1.69));
        assert!(Goal::AtMost(32.0).met_by(32.0));
        assert!(!Goal::AtMost(32.0).met_by(32.5));
        assert_eq!(Goal::AtLeast(50.0).describe(), "≥ 50");
        assert_eq!(Goal::AtMost(1.5).describe(), "≤ 1.5");
    }
}
