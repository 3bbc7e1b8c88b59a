//! Reading the memory results, `<criterion dir>/memory/results.json`: per
//! implementation and agent count, the bytes of behaviour and blackboard
//! state per agent and the process's peak resident memory.

use crate::criterion::read_json;
use crate::error::Result;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One measured case of the memory results.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MemoryCase {
    /// `treebeard`, `handcoded` or `bonsai`.
    pub implementation: String,
    /// How many agents the case ran.
    pub agents: u64,
    /// How many ticks it ran.
    #[serde(default)]
    pub ticks: Option<u64>,
    /// Bytes of behaviour (tree) state per agent.
    #[serde(default)]
    pub behaviour_bytes_per_agent: Option<f64>,
    /// Bytes of blackboard per agent.
    #[serde(default)]
    pub blackboard_bytes_per_agent: Option<f64>,
    /// The process's resident memory before the agents were made.
    #[serde(default)]
    pub baseline_rss_bytes: Option<f64>,
    /// The process's peak resident memory.
    #[serde(default)]
    pub peak_rss_bytes: Option<f64>,
    /// (peak − baseline) resident memory per agent.
    #[serde(default)]
    pub peak_rss_bytes_per_agent: Option<f64>,
}

#[derive(Deserialize)]
struct MemoryFile {
    cases: Vec<MemoryCase>,
}

/// The memory results: the cases sorted by implementation (treebeard,
/// handcoded, bonsai, then others by name) and agent count.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// The cases, sorted.
    pub cases: Vec<MemoryCase>,
    /// When the file was written.
    pub modified: Option<SystemTime>,
}

impl Memory {
    /// The largest behaviour bytes per agent that `implementation` showed
    /// in any case.
    pub fn behaviour_bytes(&self, implementation: &str) -> Option<f64> {
        self.cases
            .iter()
            .filter(|c| c.implementation == implementation)
            .filter_map(|c| c.behaviour_bytes_per_agent)
            .reduce(f64::max)
    }
}

/// Where the memory results live under a criterion directory.
pub fn path(criterion_dir: &Path) -> PathBuf {
    criterion_dir.join("memory").join("results.json")
}

/// The rank of an implementation in tables and plots.
pub fn implementation_rank(name: &str) -> usize {
    match name {
        "treebeard" => 0,
        "handcoded" => 1,
        "bonsai" => 2,
        _ => 3,
    }
}

/// Reads the memory results under `criterion_dir`: `Ok(None)` when the file
/// does not exist, an error naming it when it is malformed.
pub fn load(criterion_dir: &Path) -> Result<Option<Memory>> {
    let file = path(criterion_dir);
    if !file.exists() {
        return Ok(None);
    }
    let parsed: MemoryFile = read_json(&file)?;
    let mut cases = parsed.cases;
    cases.sort_by(|a, b| {
        implementation_rank(&a.implementation)
            .cmp(&implementation_rank(&b.implementation))
            .then_with(|| a.implementation.cmp(&b.implementation))
            .then_with(|| a.agents.cmp(&b.agents))
    });
    let modified = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
    Ok(Some(Memory { cases, modified }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdir::test_dir;

    #[test]
    fn reads_and_sorts_the_cases() {
        let dir = test_dir("memory");
        assert!(load(dir.path()).unwrap().is_none());
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        std::fs::write(
            path(dir.path()),
            r#"{"cases": [
              {"implementation": "bonsai", "agents": 1000, "ticks": 100,
               "behaviour_bytes_per_agent": 900.0, "blackboard_bytes_per_agent": 48,
               "baseline_rss_bytes": 4000000, "peak_rss_bytes": 9000000,
               "peak_rss_bytes_per_agent": 5000.0},
              {"implementation": "treebeard", "agents": 1000000, "ticks": 100,
               "behaviour_bytes_per_agent": 28.0, "blackboard_bytes_per_agent": 48,
               "baseline_rss_bytes": 4000000, "peak_rss_bytes": 90000000,
               "peak_rss_bytes_per_agent": 86.0},
              {"implementation": "treebeard", "agents": 1000,
               "behaviour_bytes_per_agent": 30.0}
            ]}"#,
        )
        .unwrap();
        let memory = load(dir.path()).unwrap().unwrap();
        let order: Vec<(&str, u64)> = memory
            .cases
            .iter()
            .map(|c| (c.implementation.as_str(), c.agents))
            .collect();
        assert_eq!(
            order,
            [
                ("treebeard", 1000),
                ("treebeard", 1_000_000),
                ("bonsai", 1000)
            ]
        );
        assert_eq!(memory.behaviour_bytes("treebeard"), Some(30.0));
        assert_eq!(memory.behaviour_bytes("handcoded"), None);
        assert_eq!(memory.cases[1].blackboard_bytes_per_agent, Some(48.0));
        assert_eq!(memory.cases[0].peak_rss_bytes, None);
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_it() {
        let dir = test_dir("memory-bad");
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        std::fs::write(path(dir.path()), r#"{"cases": [{"agents": "many"}]}"#).unwrap();
        let err = load(dir.path()).unwrap_err();
        assert!(
            err.message()
                .contains(&path(dir.path()).display().to_string()),
            "{err}"
        );
    }
}
