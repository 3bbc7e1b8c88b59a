//! `treebeard run --watch`: a scenario that runs on past its script while
//! its tree file is edited.
//!
//! The scenario runs as usual (its expectations checked, its verdict
//! printed). Then its agents tick on, one tick per interval (the scenario's
//! `dt` in real time unless `--interval` says otherwise), each tick printing
//! a status line. Before each tick the scenario file and the files its tree
//! was read from are polled (modification time and length, then contents);
//! when one has changed, the scenario is prepared again and its tree
//! replaces the running one by a hot reload, with a one-line summary. A
//! tree that no longer loads prints its diagnostics, and the agents run on
//! with the old tree. The run ends when interrupted, or once `--ticks`
//! ticks have run in all, the script's included.

use crate::report::{self, trace_error};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};
use treebeard_scenario::{Live, PrepareOptions, Prepared};

/// How to watch.
pub struct Watch<'a> {
    /// The scenario file.
    pub scenario: &'a Path,
    /// Where trace lines go.
    pub trace: Option<&'a mut dyn Write>,
    /// How to prepare the scenario.
    pub options: PrepareOptions,
    /// Colour the diagnostics.
    pub color: bool,
    /// Stop once this many ticks have run, the script's included.
    pub ticks: Option<u64>,
    /// Milliseconds between ticks past the script (default: the scenario's
    /// `dt`).
    pub interval: Option<u64>,
}

/// One watched file as last seen.
struct Seen {
    path: PathBuf,
    stamp: Option<(SystemTime, u64)>,
    text: Option<Vec<u8>>,
}

impl Seen {
    fn new(path: PathBuf) -> Seen {
        let stamp = stamp(&path);
        let text = read(&path);
        Seen { path, stamp, text }
    }

    /// Whether the file's contents changed since last seen (its time or
    /// length first, so an unchanged file is not read); remembers them.
    fn changed(&mut self) -> bool {
        let stamp = stamp(&self.path);
        if stamp == self.stamp {
            return false;
        }
        self.stamp = stamp;
        let text = read(&self.path);
        if text == self.text {
            return false;
        }
        self.text = text;
        true
    }
}

/// A watched file's bytes, read as a load reads it (a regular file, at
/// most the per-file cap): the load reports what is wrong with it.
fn read(path: &Path) -> Option<Vec<u8>> {
    let limit = treebeard_load::files::ReadLimits::default().file_bytes;
    treebeard_load::files::read_bytes(path, limit).ok()
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// The files to poll: the scenario's and its tree's.
fn watched(scenario: &Path, live: &Live) -> Vec<Seen> {
    let mut paths = vec![scenario.to_path_buf()];
    for file in live.tree_files() {
        if !paths.contains(&file) {
            paths.push(file);
        }
    }
    paths.into_iter().map(Seen::new).collect()
}

/// Runs the scenario, then ticks on and reloads (see the module docs).
pub fn run(mut w: Watch<'_>) -> ExitCode {
    let options = w.options.clone();
    let path = w.scenario;
    let prepared = match report::prepare(path, &options, w.color) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let dt = prepared.scenario.dt;
    let (mut live, verdict) = match Live::start(prepared, reborrow(&mut w.trace)) {
        Ok(started) => started,
        Err(e) => return trace_error(&e),
    };
    let code = report::verdict(path, live.prepared(), &verdict, w.color);
    let interval = Duration::from_millis(
        w.interval
            .unwrap_or_else(|| (f64::from(dt.max(0.0)) * 1000.0).round() as u64),
    );
    eprintln!(
        "{}: watching {} for changes, a tick every {} ms{}",
        path.display(),
        live.tree_files()
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        interval.as_millis(),
        match w.ticks {
            Some(n) => format!(", until tick {n}"),
            None => ", until interrupted".into(),
        }
    );
    let mut seen = watched(path, &live);
    let mut stdout = io::stdout().lock();
    let mut deadline = Instant::now();
    while w.ticks.is_none_or(|n| live.next_tick() < n) {
        // Every file is polled, so each change is seen once.
        let changed: Vec<String> = seen
            .iter_mut()
            .filter_map(|s| s.changed().then(|| s.path.display().to_string()))
            .collect();
        if !changed.is_empty() {
            reload(&mut live, path, &changed, &options, w.color, &mut stdout);
            seen = watched(path, &live);
        }
        let tick = match live.tick(reborrow(&mut w.trace)) {
            Ok(tick) => tick,
            Err(e) => return trace_error(&e),
        };
        if writeln!(stdout, "{tick}").is_err() {
            // The reader has gone (a closed pipe): nothing is watching.
            return ExitCode::SUCCESS;
        }
        if let Some(trace) = reborrow(&mut w.trace)
            && let Err(e) = trace.flush()
        {
            return trace_error(&e);
        }
        deadline += interval;
        let now = Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        } else {
            deadline = now;
        }
    }
    code
}

/// Prepares the scenario again and reloads its tree into `live`, printing
/// a summary, or the diagnostics of a tree that does not load.
fn reload(
    live: &mut Live,
    path: &Path,
    changed: &[String],
    options: &PrepareOptions,
    color: bool,
    out: &mut impl Write,
) {
    let tick = live.next_tick();
    let prepared: Prepared = match treebeard_scenario::prepare(path, options) {
        Ok(p) => p,
        Err(report) => {
            eprint!("{}", report.render(color));
            eprintln!(
                "{}: the tree does not load; running on with the old tree",
                path.display()
            );
            return;
        }
    };
    eprint!("{}", prepared.warnings.render(color));
    match live.reload(prepared) {
        Ok(reloaded) => {
            let _ = writeln!(
                out,
                "reloaded {} before tick {tick}: {reloaded}",
                changed.join(", ")
            );
        }
        Err(e) => eprintln!(
            "error: cannot reload {}: {e}; running on with the old tree",
            path.display()
        ),
    }
}

/// The trace writer, for one call.
fn reborrow<'s>(trace: &'s mut Option<&mut dyn Write>) -> Option<&'s mut dyn Write> {
    match trace {
        Some(t) => Some(&mut **t),
        None => None,
    }
}
