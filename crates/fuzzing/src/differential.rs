//! Target `differential`: structured trees against the reference
//! interpreter.
//!
//! The tape's first bytes choose a run (agents, ticks, halts, tracing and
//! the seed of the leaf scripts and game-system reports); the rest chooses
//! a tree of every kind the test generator knows, decision by decision
//! (`Spec::from_bytes`). The tree must compile and validate, its shape
//! must round-trip through bytes, and the VM must match the plain
//! recursive reference interpreter of docs/nodes.md on every tick.
//!
//! A finding is kept as a **witness** (`fuzz/regressions/differential/
//! *.spec`): the tree's compact form and the run, as the failure report
//! prints them, which [`witness`] replays. A tape would not do: the
//! generator reads a tape decision by decision, so once it learns a kind
//! the same bytes build another tree, and the regression would quietly
//! test something else.
//!
//! ```text
//! # two cool-downs of one child tree, at different depths
//! tree: child(child(gcooldown[0.5](d)), gcooldown[0.5](d))
//! run: seed=42 agents=2 ticks=16 halts trace
//! ```

use crate::tape::Tape;
use treebeard_shape::Shape;
use treebeard_testkit::{Run, Spec, differential};

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let mut tape = Tape::new(data);
    let run = Run {
        agents: 1 + tape.below(3) as u32,
        ticks: 1 + tape.below(48) as u64,
        halts: tape.flag(),
        trace: tape.flag(),
        seed: tape.take(8).iter().fold(0, |x, &b| x << 8 | u64::from(b)),
    };
    check(&Spec::from_bytes(tape.rest(), 6, 4), &run);
}

/// Replays a witness (see the module docs): panics if the VM and the
/// reference differ on it, or if the text is no witness.
pub fn witness(text: &str) {
    let (spec, run) = match read_witness(text) {
        Ok(witness) => witness,
        Err(e) => panic!("not a witness: {e}"),
    };
    check(&spec, &run);
}

/// The tree and the run of a witness's text.
pub fn read_witness(text: &str) -> Result<(Spec, Run), String> {
    let mut spec = None;
    let mut run = Run {
        seed: 0,
        agents: 1,
        ticks: 1,
        halts: false,
        trace: false,
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: &dyn std::fmt::Display| format!("line {}: {e}", n + 1);
        if let Some(tree) = line.strip_prefix("tree:") {
            spec = Some(tree.parse::<Spec>().map_err(|e| at(&e))?);
        } else if let Some(words) = line.strip_prefix("run:") {
            for word in words.split_whitespace() {
                let number = |value: &str| value.parse::<u64>().map_err(|e| at(&e));
                match word.split_once('=') {
                    Some(("seed", v)) => run.seed = number(v)?,
                    Some(("agents", v)) => run.agents = number(v)?.clamp(1, 64) as u32,
                    Some(("ticks", v)) => run.ticks = number(v)?.clamp(1, 10_000),
                    None if word == "halts" => run.halts = true,
                    None if word == "trace" => run.trace = true,
                    _ => return Err(at(&format!("unknown run setting `{word}`"))),
                }
            }
        } else {
            return Err(at(&"expected `tree:`, `run:` or a `#` comment"));
        }
    }
    Ok((spec.ok_or("no `tree:` line")?, run))
}

/// Checks one tree and run (see the module docs).
fn check(spec: &Spec, run: &Run) {
    let shape = spec.compile().shape().clone();
    let decoded = Shape::from_bytes(&shape.to_bytes()).expect("a compiled shape's bytes decode");
    assert_eq!(decoded.to_bytes(), shape.to_bytes(), "bytes round-trip");
    if let Err(mismatch) = differential(spec, run) {
        panic!(
            "the VM and the reference differ; keep the witness as \
             fuzz/regressions/differential/<what-it-shows>.spec:\n{}\n{mismatch}",
            witness_text(spec, run)
        );
    }
}

/// The text of a witness for `spec` and `run`, which [`read_witness`] reads.
pub fn witness_text(spec: &Spec, run: &Run) -> String {
    let mut text = format!(
        "tree: {spec:?}\nrun: seed={} agents={} ticks={}",
        run.seed, run.agents, run.ticks
    );
    for (on, word) in [(run.halts, " halts"), (run.trace, " trace")] {
        if on {
            text.push_str(word);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_witness_reads_back() {
        let spec: Spec = "seq(c, limit[1, wait](d))".parse().expect("a tree");
        let run = Run {
            seed: 7,
            agents: 2,
            ticks: 30,
            halts: true,
            trace: false,
        };
        let text = format!("# a comment\n{}\n", witness_text(&spec, &run));
        let (read, again) = read_witness(&text).expect("a witness");
        assert_eq!(read, spec);
        assert_eq!(format!("{again:?}"), format!("{run:?}"));
        let err = read_witness("tree: seq(c)\nrun: seed=1 fast").unwrap_err();
        assert_eq!(err, "line 2: unknown run setting `fast`");
        assert!(read_witness("run: seed=1").is_err());
    }
}
