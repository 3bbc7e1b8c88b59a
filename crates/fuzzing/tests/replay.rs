//! Every target on stable: its seeds, and every input a fuzzer once crashed
//! on (`fuzz/regressions/<target>/`, kept after the fix), must run without
//! a panic. The differential target's findings are kept as witnesses
//! (`*.spec`: a tree and a run, see `treebeard_fuzzing::differential`).

use std::path::Path;
use treebeard_fuzzing::{TARGETS, seeds::seeds};

#[test]
fn seeds_run_clean() {
    for (target, run) in TARGETS {
        let seeds = seeds(target);
        assert!(!seeds.is_empty(), "{target} has seeds");
        for seed in &seeds {
            run(seed);
        }
    }
}

#[test]
fn regressions_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    for (target, run) in TARGETS {
        let Ok(entries) = std::fs::read_dir(dir.join(target)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).expect("a regression input");
            eprintln!("{}", path.display());
            if path.extension().is_some_and(|e| e == "spec") {
                assert_eq!(
                    target, "differential",
                    "only the differential target keeps witnesses"
                );
                treebeard_fuzzing::differential::witness(&String::from_utf8_lossy(&bytes));
            } else {
                run(&bytes);
            }
        }
    }
}

#[test]
fn shape_seeds_reach_the_ticks() {
    let ticked = seeds("shape_bytes")
        .iter()
        .filter(|seed| treebeard_fuzzing::shape_bytes::check(seed) > 0)
        .count();
    assert!(ticked >= 20, "{ticked} of 24 shape seeds linked and ticked");
}

#[test]
fn the_recording_seed_is_a_recording_with_notes_and_values() {
    let seed = treebeard_fuzzing::recording::sample();
    let recording = treebeard_vm::Recording::read_from(&seed).expect("the seed reads");
    assert_eq!(recording.len(), 5);
    assert_eq!(recording.agents().len(), 6);
    assert!(recording.ticks().all(|t| t.notes().count() == 1));
    assert_eq!(recording.columns().len(), 2, "alert, ammo");
    let guard = treebeard_vm::AgentId(1);
    assert!(recording.ticks().all(|t| t.value(guard, 1).is_some()));
    assert_eq!(
        recording.name(treebeard_vm::AgentId(1)),
        Some("the door guard")
    );
}
