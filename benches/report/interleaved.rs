//! Reading the interleaved rounds, `<criterion dir>/interleaved/<group>.json`:
//! cases of one group measured in turn, round after round, so that their
//! ratios do not depend on when each was measured (the benches'
//! `support::interleaved` writes them).

use crate::criterion::read_json;
use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::Path;
use std::time::SystemTime;

/// One case of a group: its id (`treebeard/1`) and its time in every round.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RoundsCase {
    /// The case's id within the group, as criterion's function/value.
    pub id: String,
    /// Nanoseconds per agent-tick, one per round.
    pub ns_per_agent_tick: Vec<f64>,
}

impl RoundsCase {
    /// The median over the rounds.
    pub fn median(&self) -> f64 {
        let mut sorted = self.ns_per_agent_tick.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
    }
}

/// One group's rounds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Rounds {
    /// The criterion group it mirrors (`workload_5000`).
    pub group: String,
    /// How many rounds ran.
    pub rounds: usize,
    /// Its cases, in the order each round ran them.
    pub cases: Vec<RoundsCase>,
}

/// Every group's rounds, sorted by group.
#[derive(Debug, Clone, Default)]
pub struct Interleaved {
    /// The groups.
    pub groups: Vec<Rounds>,
    /// When the newest file was written.
    pub modified: Option<SystemTime>,
}

impl Interleaved {
    /// The median of case `id` of `group`, when it was measured.
    pub fn median(&self, group: &str, id: &str) -> Option<f64> {
        self.groups
            .iter()
            .find(|g| g.group == group)?
            .cases
            .iter()
            .find(|c| c.id == id)
            .map(RoundsCase::median)
            .filter(|m| m.is_finite())
    }
}

/// Reads every `interleaved/*.json` under `criterion_dir`; an empty result
/// when there is none, an error naming a malformed file.
pub fn load(criterion_dir: &Path) -> Result<Interleaved> {
    let dir = criterion_dir.join("interleaved");
    let mut found = Interleaved::default();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(e) => return Err(Error::io("read the directory", &dir, &e)),
    };
    for entry in entries {
        let path = entry
            .map_err(|e| Error::io("read the directory", &dir, &e))?
            .path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let rounds: Rounds = read_json(&path)?;
        if rounds.cases.iter().any(|c| c.ns_per_agent_tick.is_empty()) {
            return Err(Error::new(format!(
                "{}: a case without rounds (rerun the benchmark that wrote it)",
                path.display()
            )));
        }
        let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        found.modified = found.modified.max(modified);
        found.groups.push(rounds);
    }
    found.groups.sort_by(|a, b| a.group.cmp(&b.group));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdir::test_dir;

    #[test]
    fn reads_groups_and_takes_medians() {
        let dir = test_dir("interleaved");
        assert!(load(dir.path()).unwrap().groups.is_empty());
        let sub = dir.path().join("interleaved");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join("workload_5000.json"),
            r#"{"group": "workload_5000", "rounds": 3, "cases": [
                {"id": "treebeard", "ns_per_agent_tick": [60.0, 90.0, 50.0]},
                {"id": "handcoded", "ns_per_agent_tick": [25.0, 20.0, 30.0]}]}"#,
        )
        .unwrap();
        let found = load(dir.path()).unwrap();
        assert_eq!(found.median("workload_5000", "treebeard"), Some(60.0));
        assert_eq!(found.median("workload_5000", "handcoded"), Some(25.0));
        assert_eq!(found.median("workload_5000", "bonsai"), None);
        assert_eq!(found.median("agents", "treebeard"), None);
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_it() {
        let dir = test_dir("interleaved-bad");
        let sub = dir.path().join("interleaved");
        std::fs::create_dir_all(&sub).unwrap();
        let file = sub.join("agents.json");
        std::fs::write(&file, r#"{"group": "agents", "cases": []}"#).unwrap();
        let err = load(dir.path()).unwrap_err();
        assert!(err.message().contains(&file.display().to_string()), "{err}");
        std::fs::write(
            &file,
            r#"{"group": "agents", "rounds": 0, "cases": [{"id": "x", "ns_per_agent_tick": []}]}"#,
        )
        .unwrap();
        let err = load(dir.path()).unwrap_err();
        assert!(err.message().contains("without rounds"), "{err}");
    }
}
