//! Random trees of the kinds compiled trees compile, for the differential
//! suite of the two engines (`crates/compiled-tests`).

use crate::r#gen::{
    CONDITIONS, DURATIONS, MAX_LOOPS, Rng, Spec, TESTS, random_memory_leaf, random_time,
};

impl Spec {
    /// A random tree from `seed` of only the kinds that compiled trees
    /// compile (`Kind::compiles`: sequences, selectors, if-then-else and
    /// while-do-else, the status-mapping decorators, `StoredState`,
    /// `Repeat`, `SequenceWithMemory`, the async sequences, `Wait`,
    /// `Timeout`, `Cooldown`, the loops, the gates that test on entry, the childless
    /// nodes of the agent's memory and the constant statuses, and the
    /// leaves `c`, `a`, `p`, `d`), at most
    /// `max_depth` deep with at most `max_children` children per decider.
    pub fn random_static(seed: u64, max_depth: usize, max_children: usize) -> Spec {
        fn spec(rng: &mut Rng, depth: usize, max_children: usize) -> Spec {
            if depth == 1 || rng.below(depth + 1) == 0 {
                return match rng.below(14) {
                    0..=3 => Spec::Cond,
                    4..=6 => Spec::Act,
                    7 => Spec::Persistent,
                    8 => Spec::Wait(rng.below(DURATIONS.len()) as u8),
                    9 | 10 => Spec::Deferred,
                    _ => random_memory_leaf(rng),
                };
            }
            let kids = |rng: &mut Rng| -> Vec<Spec> {
                let n = rng.range(1, max_children);
                (0..n).map(|_| spec(rng, depth - 1, max_children)).collect()
            };
            match rng.below(10) {
                0 | 1 => Spec::Sequence(kids(rng)),
                2 | 3 => Spec::Priority(kids(rng)),
                4 => Spec::Selector(kids(rng)),
                5 => Spec::Reactive(kids(rng)),
                6 => Spec::Inverter(Box::new(spec(rng, depth - 1, max_children))),
                7 => match rng.below(10) {
                    8 | 9 => {
                        let child = Box::new(spec(rng, depth - 1, max_children));
                        match rng.below(3) {
                            0 => Spec::ScriptGate(rng.below(TESTS.len()) as u8, child),
                            1 => Spec::IfCondition(rng.below(CONDITIONS.len()) as u8, child),
                            _ => Spec::IfTime(random_time(rng), child),
                        }
                    }
                    0 => Spec::ForceSuccess(Box::new(spec(rng, depth - 1, max_children))),
                    1 => Spec::ForceFailure(Box::new(spec(rng, depth - 1, max_children))),
                    2 => Spec::Cooldown(
                        rng.below(DURATIONS.len()) as u8,
                        Box::new(spec(rng, depth - 1, max_children)),
                    ),
                    3 => Spec::Timeout(
                        rng.below(DURATIONS.len()) as u8,
                        Box::new(spec(rng, depth - 1, max_children)),
                    ),
                    4 => Spec::Repeat(Box::new(spec(rng, depth - 1, max_children))),
                    5 => Spec::Loop(
                        rng.below(usize::from(MAX_LOOPS) + 1) as u8,
                        rng.below(2) == 0,
                        Box::new(spec(rng, depth - 1, max_children)),
                    ),
                    6 => Spec::LoopUntilSuccess(
                        rng.below(usize::from(MAX_LOOPS) + 1) as u8,
                        rng.below(2) == 0,
                        Box::new(spec(rng, depth - 1, max_children)),
                    ),
                    _ => Spec::StoredState(Box::new(spec(rng, depth - 1, max_children))),
                },
                8 => {
                    let n = rng.range(2, 3);
                    let branches = (0..n).map(|_| spec(rng, depth - 1, max_children)).collect();
                    if rng.below(2) == 0 {
                        Spec::IfThenElse(branches)
                    } else {
                        Spec::WhileDoElse(branches)
                    }
                }
                9 => match rng.below(6) {
                    0 | 1 => Spec::WithMemory(kids(rng)),
                    2 => Spec::Async(rng.below(2) == 0, kids(rng)),
                    _ => Spec::Sequence(kids(rng)),
                },
                _ => Spec::Sequence(kids(rng)),
            }
        }
        spec(&mut Rng::new(seed), max_depth.max(1), max_children.max(1))
    }
}

/// Asserts that rustfmt (edition 2024) would leave `source`, generated
/// code, as it is; prints a note and passes when this machine has no
/// rustfmt. (rustfmt's `--check` on standard input exits 0 even when it
/// shows a diff, so this compares its output with its input.)
///
/// # Panics
/// If rustfmt fails, or would change `source`: with the first lines it
/// would change.
pub fn assert_rustfmt_clean(source: &str) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Ok(mut rustfmt) = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        eprintln!("skipped: no rustfmt on this machine");
        return;
    };
    if let Some(mut stdin) = rustfmt.stdin.take() {
        stdin
            .write_all(source.as_bytes())
            .expect("rustfmt reads its input");
    }
    let out = rustfmt.wait_with_output().expect("rustfmt runs");
    assert!(out.status.success(), "rustfmt failed on the generated code");
    let formatted = String::from_utf8_lossy(&out.stdout);
    if formatted != source {
        let first = formatted
            .lines()
            .zip(source.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "rustfmt would change the generated code from line {}:\n{}",
            first + 1,
            formatted
                .lines()
                .skip(first)
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
