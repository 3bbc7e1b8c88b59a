//! What `treebeard run` prints and exits with, the same with `--watch` or
//! without: the trace file, a scenario that does not prepare, a verdict.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treebeard_scenario::{PrepareOptions, Prepared, Verdict};

/// Creates the trace file, if one is asked for; an error is exit status 2.
pub(crate) fn open_trace(path: Option<&PathBuf>) -> Result<Option<BufWriter<File>>, ExitCode> {
    let Some(path) = path else {
        return Ok(None);
    };
    match File::create(path) {
        Ok(f) => Ok(Some(BufWriter::new(f))),
        Err(e) => {
            eprintln!("error: cannot write the trace to `{}`: {e}", path.display());
            Err(ExitCode::from(2))
        }
    }
}

/// Prepares the scenario at `path`, printing its warnings; a scenario that
/// does not prepare prints its diagnostics and is exit status 2 when no
/// file could be read, 1 otherwise.
pub(crate) fn prepare(
    path: &Path,
    options: &PrepareOptions,
    color: bool,
) -> Result<Prepared, ExitCode> {
    match treebeard_scenario::prepare(path, options) {
        Ok(prepared) => {
            eprint!("{}", prepared.warnings.render(color));
            Ok(prepared)
        }
        Err(report) => {
            eprint!("{}", report.render(color));
            let unreadable = report.parts.iter().all(|(m, _)| m.files().is_empty());
            Err(ExitCode::from(if unreadable { 2 } else { 1 }))
        }
    }
}

/// Prints the verdict of the scenario at `path`: exit status 1 when an
/// expectation failed.
pub(crate) fn verdict(
    path: &Path,
    prepared: &Prepared,
    verdict: &Verdict,
    color: bool,
) -> ExitCode {
    match &verdict.failure {
        None => {
            eprintln!(
                "{}: ok, {} ticks, {} checks",
                path.display(),
                verdict.ticks,
                verdict.checks
            );
            ExitCode::SUCCESS
        }
        Some(f) => {
            eprint!("{}", prepared.render_failure(f, color));
            eprintln!("{}: FAILED at tick {}", path.display(), f.tick);
            ExitCode::from(1)
        }
    }
}

/// The line that ends a run of several scenarios: `89 scenarios: 88
/// passed, 1 failed` (and how many did not load, if any).
pub(crate) fn summary([passed, failed, unloaded]: [usize; 3]) -> String {
    let total = passed + failed + unloaded;
    let mut line = format!("{total} scenarios: {passed} passed, {failed} failed");
    if unloaded > 0 {
        line.push_str(&format!(", {unloaded} did not load"));
    }
    line
}

/// A trace that could not be written: exit status 2.
pub(crate) fn trace_error(e: &io::Error) -> ExitCode {
    eprintln!("error: cannot write the trace: {e}");
    ExitCode::from(2)
}
