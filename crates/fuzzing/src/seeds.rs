//! Seed inputs for each target, from the project's own trees, scenarios and
//! random test trees: the fuzzers start from them (`fuzz-seeds` writes them
//! into `fuzz/corpus/<target>/`), and the replay test runs them on stable.

use std::path::{Path, PathBuf};
use treebeard_testkit::{Rng, Spec};

/// The repository's root, where `tests/` and `examples/` are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files under `dir` (recursively) whose names end in one of `exts`,
/// sorted, with their bytes.
fn files(dir: &Path, exts: &[&str]) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if exts
                .iter()
                .any(|e| path.extension().is_some_and(|x| x == *e))
                && let Ok(bytes) = std::fs::read(&path)
            {
                found.push((path, bytes));
            }
        }
    }
    found.sort();
    found
}

/// `head` then `body`.
fn prefixed(head: &[u8], body: &[u8]) -> Vec<u8> {
    let mut v = head.to_vec();
    v.extend_from_slice(body);
    v
}

/// The seeds of `target` (one of [`crate::TARGETS`]' names).
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let root = root();
    match target {
        "shape_bytes" => (0..24u64)
            .map(|seed| {
                let bytes = Spec::random(seed, 5, 4).compile().shape().to_bytes();
                let len = u16::try_from(bytes.len()).unwrap_or(u16::MAX);
                let mut rng = Rng::new(seed);
                let tape: Vec<u8> = (0..64).map(|_| rng.below(256) as u8).collect();
                let mut input = len.to_be_bytes().to_vec();
                input.extend_from_slice(&bytes[..usize::from(len)]);
                input.extend_from_slice(&tape);
                input
            })
            .collect(),
        "differential" => (0..24u64)
            .map(|seed| {
                let mut rng = Rng::new(seed);
                (0..16 + seed as usize * 4)
                    .map(|_| rng.below(256) as u8)
                    .collect()
            })
            .collect(),
        "tree_text" => {
            let mut seeds = Vec::new();
            for (dir, exts) in [
                ("tests/trees", &["json", "ron", "xml"][..]),
                ("examples/trees", &["json", "ron", "xml"][..]),
            ] {
                for (path, bytes) in files(&root.join(dir), exts) {
                    let name = path.to_string_lossy();
                    let format: u8 = if name.ends_with(".json") {
                        0
                    } else if name.ends_with(".ron") {
                        1
                    } else if name.contains("btcpp") {
                        3
                    } else {
                        2
                    };
                    // With unknown leaves stubbed, so that more of it loads.
                    seeds.push(prefixed(&[format | 4], &bytes));
                }
            }
            seeds
        }
        "scenario" => files(&root.join("tests/scenarios"), &["ron", "json"])
            .into_iter()
            .map(|(path, bytes)| {
                let json = path.extension().is_some_and(|x| x == "json");
                prefixed(&[u8::from(json)], &bytes)
            })
            .collect(),
        "script" => [
            "seen and not armed",
            "x = hunger > 70 or alert; pace * 2.5 + 1",
            "goal == 'home' ? 1 : -3",
            "armed = !armed; hunger % 7 - (3 * -hunger)",
            "((((1))))",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect(),
        "snapshot" => vec![crate::snapshot::sample()],
        "recording" => vec![crate::recording::sample()],
        // Tapes of every length up to a few files with includes each.
        "files" => (0..16u64)
            .map(|seed| {
                let mut rng = Rng::new(seed);
                (0..8 + seed as usize * 6)
                    .map(|_| rng.below(256) as u8)
                    .collect()
            })
            .collect(),
        _ => Vec::new(),
    }
}
