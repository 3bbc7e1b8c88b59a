//! The project's five performance targets, each worked out from the
//! results as a measured value and whether it met its goal.

use crate::criterion::Results;
use crate::figures::{AGENTS, THREADS, WORKLOAD};
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
}

impl Target {
    /// `Some(met)` when measured, `None` when not.
    pub fn met(&self) -> Option<bool> {
        self.measured.map(|v| self.goal.met_by(v))
    }
}

/// The ratio of two results' medians per element (`a ÷ b`).
fn ratio(
    results: &Results,
    a: (&str, &str, Option<&str>),
    b: (&str, &str, Option<&str>),
) -> Option<f64> {
    let a = results.get(a.0, a.1, a.2)?.median_per_element();
    let b = results.get(b.0, b.1, b.2)?.median_per_element();
    (b > 0.0).then(|| a / b)
}

/// The five targets, in the report's order.
pub fn evaluate(results: &Results, memory: Option<&Memory>) -> Vec<Target> {
    vec![
        Target {
            what: "bonsai ÷ treebeard, ns per agent-tick at workload_5000",
            goal: Goal::AtLeast(50.0),
            unit: Unit::Ratio,
            measured: ratio(
                results,
                (WORKLOAD, "bonsai", None),
                (WORKLOAD, "treebeard", None),
            ),
        },
        Target {
            what: "treebeard ÷ handcoded, ns per agent-tick at workload_5000",
            goal: Goal::AtMost(2.0),
            unit: Unit::Ratio,
            measured: ratio(
                results,
                (WORKLOAD, "treebeard", None),
                (WORKLOAD, "handcoded", None),
            ),
        },
        Target {
            what: "treebeard behaviour bytes per agent (largest of the memory cases)",
            goal: Goal::AtMost(32.0),
            unit: Unit::Bytes,
            measured: memory.and_then(|m| m.behaviour_bytes("treebeard")),
        },
        Target {
            what: "agents/treebeard/1000000 ÷ agents/treebeard/1000, ns per agent-tick",
            goal: Goal::AtMost(1.5),
            unit: Unit::Ratio,
            measured: ratio(
                results,
                (AGENTS, "treebeard", Some("1000000")),
                (AGENTS, "treebeard", Some("1000")),
            ),
        },
        Target {
            what: "threads_100k/treebeard/1 ÷ threads_100k/treebeard/2 (speed-up on 2 threads)",
            goal: Goal::AtLeast(1.7),
            unit: Unit::Ratio,
            measured: ratio(
                results,
                (THREADS, "treebeard", Some("1")),
                (THREADS, "treebeard", Some("2")),
            ),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::criterion::{self, tests::write_result};
    use crate::memory::MemoryCase;
    use crate::testdir::TestDir;

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
        let dir = TestDir::new("targets");
        let root = dir.path();
        // 10 ns per agent-tick for treebeard, 600 for bonsai (60×: met),
        // 4 for handcoded (2.5×: missed).
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
        let targets = evaluate(&results, Some(&memory));
        let measured: Vec<Option<f64>> = targets.iter().map(|t| t.measured).collect();
        assert_eq!(
            measured,
            [Some(60.0), Some(2.5), Some(33.0), Some(1.5), None]
        );
        let met: Vec<Option<bool>> = targets.iter().map(Target::met).collect();
        assert_eq!(
            met,
            [Some(true), Some(false), Some(false), Some(true), None]
        );

        let without_memory = evaluate(&results, None);
        assert_eq!(without_memory[2].met(), None);
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
