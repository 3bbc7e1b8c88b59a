//! bench-report: turns the benchmarks' criterion results (and the memory
//! results beside them) into the figures section of BENCHMARKS.md and the
//! SVG plots in docs/bench.
//!
//! ```text
//! cargo run -p treebeard-benches --release --bin bench-report \
//!     [-- --criterion target/criterion --out BENCHMARKS.md --plots docs/bench]
//! ```
//!
//! Defaults are relative to the workspace root (found by walking up from the
//! current directory); paths given on the command line are relative to the
//! current directory. Only the text between BENCHMARKS.md's
//! `<!-- bench-report:begin -->` and `<!-- bench-report:end -->` lines is
//! replaced.

mod criterion;
mod error;
mod figures;
mod interleaved;
mod machine;
mod markdown;
mod memory;
mod paths;
mod plots;
mod svg;
mod targets;
#[cfg(test)]
mod testdir;

use clap::Parser;
use error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// BENCHMARKS.md's figures and the SVG plots, from criterion's results.
///
/// Defaults are relative to the workspace root (the nearest directory above
/// with a Cargo.toml holding `[workspace]`); paths given here are relative to
/// the current directory. Only the lines between `<!-- bench-report:begin -->`
/// and `<!-- bench-report:end -->` in the Markdown file are replaced; a
/// missing file is created. Memory results are read from
/// DIR/memory/results.json, instruction counts from DIR/callgrind/kinds.md,
/// when present.
#[derive(Debug, Default, PartialEq, Eq, Parser)]
#[command(name = "bench-report", version)]
struct Options {
    /// Criterion's output directory (default: `<workspace>/target/criterion`).
    #[arg(long, value_name = "DIR", value_parser = non_empty)]
    criterion: Option<PathBuf>,
    /// The Markdown file to update (default: `<workspace>/BENCHMARKS.md`).
    #[arg(long, value_name = "FILE", value_parser = non_empty)]
    out: Option<PathBuf>,
    /// Where the SVG plots go (default: `<workspace>/docs/bench`).
    #[arg(long, value_name = "DIR", value_parser = non_empty)]
    plots: Option<PathBuf>,
}

/// A path argument, which must not be empty.
fn non_empty(text: &str) -> std::result::Result<PathBuf, String> {
    if text.is_empty() {
        return Err("needs a non-empty path".to_owned());
    }
    Ok(PathBuf::from(text))
}

/// The paths the run reads and writes, absolute.
#[derive(Debug)]
struct Paths {
    criterion: PathBuf,
    out: PathBuf,
    plots: PathBuf,
}

impl Paths {
    /// Explicit paths against `cwd`, defaults against the workspace root
    /// above `cwd` (looked for only when a default is needed).
    fn resolve(options: Options, cwd: &Path) -> Result<Self> {
        let needs_root =
            options.criterion.is_none() || options.out.is_none() || options.plots.is_none();
        let root = if needs_root {
            Some(paths::workspace_root(cwd)?)
        } else {
            None
        };
        let pick = |given: Option<PathBuf>, default: &str| match (given, &root) {
            (Some(p), _) => paths::normalise(cwd, &p),
            (None, Some(root)) => paths::normalise(root, Path::new(default)),
            (None, None) => unreachable!("a default is only asked for with a root"),
        };
        Ok(Self {
            criterion: pick(options.criterion, "target/criterion"),
            out: pick(options.out, "BENCHMARKS.md"),
            plots: pick(options.plots, "docs/bench"),
        })
    }
}

/// Writes `text` to `path`, with an error naming it.
fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io("write", path, &e))
}

/// Reads the results, writes the plots and updates the Markdown file;
/// warnings go to `log`.
fn run(paths: &Paths, log: &mut Vec<String>) -> Result<()> {
    let results = criterion::load(&paths.criterion)?;
    let memory = memory::load(&paths.criterion)?;
    let rounds = interleaved::load(&paths.criterion)?;
    if rounds.groups.is_empty() {
        log.push(
            "warning: no interleaved rounds: the targets use criterion's medians, which drift \
             between benchmarks on a busy machine"
                .to_owned(),
        );
    }
    if memory.is_none() {
        log.push(format!(
            "warning: no memory results at {}: the memory table and the behaviour-bytes \
             target say \"not measured\"",
            memory::path(&paths.criterion).display()
        ));
    }
    let instructions_file = paths.criterion.join("callgrind").join("kinds.md");
    let instructions = match std::fs::read_to_string(&instructions_file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            log.push(format!(
                "warning: no instruction counts at {}: run benches/scripts/callgrind.sh \
                 for the \"Where the time goes\" section",
                instructions_file.display()
            ));
            None
        }
        Err(e) => return Err(Error::io("read", &instructions_file, &e)),
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let missing = figures::missing(&results, cores);
    for (family, ids) in &missing {
        if !ids.is_empty() {
            log.push(format!(
                "warning: no results for {family}: {}",
                ids.join(", ")
            ));
        }
    }

    // Check the Markdown file before writing anything, so that a file
    // without markers leaves everything as it was.
    let existing = match std::fs::read_to_string(&paths.out) {
        Ok(text) => {
            markdown::replace_section(&text, "", &paths.out)?;
            Some(text)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = paths.out.parent().unwrap_or(Path::new("/"));
            if !parent.is_dir() {
                return Err(Error::new(format!(
                    "cannot create {}: its directory {} does not exist",
                    paths.out.display(),
                    parent.display()
                )));
            }
            None
        }
        Err(e) => return Err(Error::io("read", &paths.out, &e)),
    };

    let out_dir = paths.out.parent().unwrap_or(Path::new("/"));
    let mut links = Vec::new();
    let plots = plots::all(&results);
    if plots.iter().any(|p| p.plot.is_some()) {
        std::fs::create_dir_all(&paths.plots)
            .map_err(|e| Error::io("create the directory", &paths.plots, &e))?;
    }
    for file in &plots {
        let target = paths.plots.join(file.name);
        let link = match &file.plot {
            Some(plot) => {
                write(&target, &plot.render())?;
                log.push(format!("wrote {}", target.display()));
                Some(paths::relative_link(out_dir, &target))
            }
            None => {
                log.push(format!(
                    "warning: not writing {}: no results to plot",
                    target.display()
                ));
                None
            }
        };
        links.push(markdown::PlotLink {
            name: file.name,
            caption: file.caption,
            link,
        });
    }

    let newest = results
        .newest()
        .into_iter()
        .chain(memory.as_ref().and_then(|m| m.modified))
        .chain(rounds.modified)
        .max();
    let machine = machine::Machine::detect(newest);
    let targets = targets::evaluate(&results, memory.as_ref(), &rounds);
    let generated = markdown::Report {
        machine: &machine,
        results: &results,
        memory: memory.as_ref(),
        targets: &targets,
        plots: &links,
        missing: &missing,
        instructions: instructions.as_deref(),
        rounds: &rounds,
    }
    .render();
    let text = match existing {
        Some(text) => markdown::replace_section(&text, &generated, &paths.out)?,
        None => markdown::new_file(&generated),
    };
    write(&paths.out, &text)?;
    log.push(format!(
        "wrote {} ({} results)",
        paths.out.display(),
        results.measurements.len()
    ));
    for t in &targets {
        let verdict = match t.met() {
            Some(true) => "met",
            Some(false) => "MISSED",
            None => "not measured",
        };
        log.push(format!("target {}: {verdict}", t.what));
    }
    Ok(())
}

fn main() -> ExitCode {
    let options = Options::parse();
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(e) => {
            eprintln!("bench-report: cannot read the current directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut log = Vec::new();
    let outcome = Paths::resolve(options, &cwd).and_then(|paths| run(&paths, &mut log));
    for line in &log {
        eprintln!("bench-report: {line}");
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-report: error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::criterion::tests::write_result;
    use crate::testdir::test_dir;

    fn args(list: &[&str]) -> std::result::Result<Options, clap::Error> {
        Options::try_parse_from(std::iter::once("bench-report").chain(list.iter().copied()))
    }

    #[test]
    fn parses_the_command_line() {
        assert_eq!(args(&[]).unwrap(), Options::default());
        let o = args(&["--criterion", "c", "--out=o.md", "--plots", "p"]).unwrap();
        assert_eq!(o.criterion.as_deref(), Some(Path::new("c")));
        assert_eq!(o.out.as_deref(), Some(Path::new("o.md")));
        assert_eq!(o.plots.as_deref(), Some(Path::new("p")));
        assert!(args(&["--out"]).is_err());
        assert!(
            args(&["--out="])
                .unwrap_err()
                .to_string()
                .contains("non-empty")
        );
        assert!(
            args(&["--bogus"])
                .unwrap_err()
                .to_string()
                .contains("--bogus")
        );
    }

    #[test]
    fn end_to_end_in_a_workspace() {
        let dir = test_dir("end-to-end");
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        std::fs::create_dir_all(root.join("benches")).unwrap();
        let criterion_dir = root.join("target/criterion");
        for (n, ns) in [(1000u64, 8000.0), (10_000, 90_000.0)] {
            let v = n.to_string();
            write_result(
                &criterion_dir,
                "agents",
                Some("treebeard"),
                Some(&v),
                Some(n),
                ns,
            );
        }
        write_result(
            &criterion_dir,
            "gate_5000",
            Some("plain"),
            None,
            Some(5000),
            1e4,
        );
        let before = "# Benchmarks\n\nProse.\n\n";
        let after = "\nMore prose.\n";
        let old = format!(
            "{before}{}\nold\n{}\n{after}",
            markdown::BEGIN,
            markdown::END
        );
        std::fs::write(root.join("BENCHMARKS.md"), &old).unwrap();

        // From benches/, defaults find the root.
        let paths = Paths::resolve(Options::default(), &root.join("benches")).unwrap();
        assert_eq!(paths.out, root.join("BENCHMARKS.md"));
        let mut log = Vec::new();
        run(&paths, &mut log).unwrap();
        let text = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
        assert!(text.starts_with(&format!("{before}{}\n", markdown::BEGIN)));
        assert!(text.ends_with(&format!("{}\n{after}", markdown::END)));
        assert!(text.contains("![ns per agent-tick against agents](docs/bench/agents.svg)"));
        assert!(text.contains("| `gate_5000/plain` |"));
        let svg = std::fs::read_to_string(root.join("docs/bench/agents.svg")).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(!root.join("docs/bench/threads.svg").exists());
        assert!(
            log.iter()
                .any(|l| l.contains("not writing") && l.contains("threads.svg"))
        );
        assert!(log.iter().any(|l| l.contains("no memory results")));
        assert!(log.iter().any(|l| l.contains("workload_5000/bonsai")));

        // The same inputs give the same file.
        run(&paths, &mut Vec::new()).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap(),
            text
        );

        // Without markers: an error, and nothing is written.
        std::fs::write(root.join("BENCHMARKS.md"), "no markers\n").unwrap();
        std::fs::remove_dir_all(root.join("docs")).unwrap();
        let err = run(&paths, &mut Vec::new()).unwrap_err();
        assert!(err.message().contains("BENCHMARKS.md"), "{err}");
        assert!(!root.join("docs").exists());
        assert_eq!(
            std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap(),
            "no markers\n"
        );

        // A missing file is created with the markers around the figures.
        std::fs::remove_file(root.join("BENCHMARKS.md")).unwrap();
        run(&paths, &mut Vec::new()).unwrap();
        let created = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
        assert!(created.starts_with(markdown::BEGIN));
        assert!(created.ends_with(&format!("{}\n", markdown::END)));

        // A malformed result stops the run with its name.
        let bad = criterion_dir.join("gate_5000/plain/new/estimates.json");
        std::fs::write(&bad, "not json").unwrap();
        let err = run(&paths, &mut Vec::new()).unwrap_err();
        assert!(err.message().contains(&bad.display().to_string()), "{err}");
    }
}
