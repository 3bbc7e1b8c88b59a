//! Writes every target's seeds into `fuzz/corpus/<target>/` (the fuzzers'
//! corpus folders, which git ignores), so that a fuzzer starts from the
//! project's own trees and scenarios:
//!
//! ```text
//! cargo run -p treebeard-fuzzing --bin fuzz-seeds
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (target, _) in treebeard_fuzzing::TARGETS {
        let dir = corpus.join(target);
        let seeds = treebeard_fuzzing::seeds::seeds(target);
        let written = std::fs::create_dir_all(&dir).and_then(|()| {
            seeds
                .iter()
                .enumerate()
                .try_for_each(|(i, seed)| std::fs::write(dir.join(format!("seed-{i:03}")), seed))
        });
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        println!("{}: {} seeds", dir.display(), seeds.len());
    }
    ExitCode::SUCCESS
}
