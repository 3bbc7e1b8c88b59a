//! `treebeard`: check, disassemble and draw tree files, list the nodes it
//! knows, run scenarios, and turn recordings into pages to look through.
//!
//! Trees are checked against the built-in test leaves of
//! `treebeard-scenario` (Succeed, Fail, Running, Wait, Script, Condition,
//! Set, Chance, Deferred, WaitEvent); `--stub-unknown` stubs every other
//! leaf, so trees written for a game (or for another tool) can be checked,
//! disassembled and drawn without the game.

mod compile;
mod export;
mod nodes;
mod observe;
mod offer;
mod recording;
mod report;
mod watch;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treebeard_load::{Load, LoadOptions, Loader, StubStatus};
use treebeard_scenario::{PrepareOptions, builtin_leaves};
use treebeard_shape::{Catalog, LeafCatalog};
use treebeard_view::{dot, page, svg};

const EXIT_CODES: &str = "\
Exit codes:
  0  success: the files are valid, the scenarios pass
  1  a tree has errors, or a scenario's expectation is not met
  2  bad usage, or a file cannot be read";

/// Check, disassemble and draw behaviour trees; run scenarios; look
/// through recordings.
#[derive(Parser)]
#[command(name = "treebeard", version, after_help = EXIT_CODES)]
struct Cli {
    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    color: Color,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    /// When the output is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Check tree files: every error and warning, with file, line, column
    /// and node path.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// Tree files: .json, .ron, or .xml (Lumberyard MBT or
        /// BehaviorTree.CPP v4).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// A child tree from its own file, offered as NAME at every
        /// `ChildTree` connector of each tree, in order, as a running crowd
        /// takes it (`Crowd::offer_child_tree`): checks that it joins the
        /// tree (its declarations agree, the result stays in bounds).
        #[arg(long, value_name = "NAME=FILE", value_parser = offer::parse, conflicts_with = "stub_unknown")]
        offer: Vec<offer::Offer>,
        #[command(flatten)]
        tree: TreeArgs,
    },
    /// Print a tree's shape stream: item, kind, sub-stream end, payload,
    /// node name and where it was written.
    #[command(after_help = EXIT_CODES)]
    Disasm {
        /// The tree file.
        file: PathBuf,
        #[command(flatten)]
        tree: TreeArgs,
    },
    /// Print a tree as a Graphviz graph (`treebeard dot t.json | dot -Tsvg`).
    #[command(after_help = EXIT_CODES)]
    Dot {
        /// The tree file.
        file: PathBuf,
        #[command(flatten)]
        tree: TreeArgs,
    },
    /// Draw a tree as a standalone SVG picture (no Graphviz needed): boxes
    /// by kind, children left to right, a tooltip per node with its path
    /// and where it was written.
    #[command(after_help = EXIT_CODES)]
    Svg {
        /// The tree file, or a recording (`run --record`) to draw its tree
        /// with an agent's node states at a tick over it.
        file: PathBuf,
        #[command(flatten)]
        tree: TreeArgs,
        /// Write the picture to this file instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// With a recording: the agent whose states to draw [default: the
        /// first recorded at the tick].
        #[arg(long, value_name = "A")]
        agent: Option<u32>,
        /// With a recording: the tick (frame index) to draw [default: the
        /// last recorded].
        #[arg(long, value_name = "T")]
        tick: Option<u64>,
    },
    /// Write a recording (`run --record`, `Recorder::write_to`) as one
    /// self-contained HTML page: the tree with file lines, nodes coloured by
    /// an agent's state, a time slider, an agent picker and each node's
    /// parameters, history and notes. It needs no network.
    #[command(after_help = EXIT_CODES)]
    View {
        /// The recording file.
        recording: PathBuf,
        /// The page to write [default: the recording's path with `.html`].
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The page's title [default: the recording's file name].
        #[arg(long)]
        title: Option<String>,
    },
    /// Generate a tree's Rust code, a compiled tree (docs/engines.md),
    /// against the built-in leaves: `include!` it in a crate that depends
    /// on `treebeard-scenario` and `treebeard-vm`, and link it with
    /// `Program::with_compiled`. A tree with nodes whose behaviour is data
    /// at run time compiles hosted on the interpreter's tick, which ticks
    /// those nodes: they are notes, with path and location.
    #[command(after_help = EXIT_CODES)]
    Compile {
        /// The tree file.
        file: PathBuf,
        #[command(flatten)]
        tree: TreeArgs,
        /// Write the Rust source to this file [default: standard output].
        #[arg(long, value_name = "OUT.rs")]
        rust: Option<PathBuf>,
        /// The compiled tree's name [default: the file's stem].
        #[arg(long)]
        name: Option<String>,
        /// Fail (exit 1) unless the tree compiles straight: no node hosted
        /// on the interpreter's tick.
        #[arg(long)]
        strict: bool,
        /// With `--leaves`: the Rust path of the application's blackboard
        /// type, as the crate that includes the code names it.
        #[arg(long, value_name = "PATH", requires = "leaves")]
        blackboard: Option<String>,
        /// With `--leaves`: the Rust path of the application's `leaf_set!`
        /// type, whose functions the manifest names.
        #[arg(long, value_name = "PATH", requires = "leaves")]
        leaf_set: Option<String>,
    },
    /// Write a tree file of any dialect as BehaviorTree.CPP v4 XML, with a
    /// TreeNodesModel of its nodes' ports, for Groot2 and BT.CPP: one
    /// tree, sub-trees inlined, nodes named as they were; loading it back
    /// gives the same tree. treebeard's kinds that BT.CPP lacks are written
    /// as `<treebeard.Kind>` elements (docs/trees.md); what XML cannot
    /// hold (MBT declarations, a scope's hook) is an error, with path and
    /// location.
    #[command(after_help = EXIT_CODES)]
    Export {
        /// The tree file.
        file: PathBuf,
        #[command(flatten)]
        tree: TreeArgs,
        /// As BehaviorTree.CPP v4 XML (the one format there is).
        #[arg(long, required = true)]
        btcpp: bool,
        /// Write the XML to this file [default: standard output].
        #[arg(short, long, value_name = "OUT.xml")]
        output: Option<PathBuf>,
        /// The tree's ID in the XML [default: the loaded tree's name].
        #[arg(long)]
        name: Option<String>,
    },
    /// List the node kinds and the registered leaves with their parameters.
    #[command(after_help = EXIT_CODES)]
    Nodes {
        /// As JSON.
        #[arg(long)]
        json: bool,
        /// The application's leaves from its leaf manifest, instead of the
        /// built-in test leaves.
        #[arg(long, value_name = "FILE")]
        leaves: Option<PathBuf>,
    },
    /// Run scenario files; print a diff of the first unmet expectation.
    ///
    /// With `--watch`, one scenario runs as usual and then its agents tick
    /// on past its script, a status line per tick, while its tree file is
    /// polled: an edit is reloaded into the running agents (running work
    /// keeps its place where it still can; see docs/trees.md, "Node ids and
    /// hot reload"), with a one-line summary, and a tree that no longer
    /// loads prints its errors while the old tree runs on.
    #[command(after_help = EXIT_CODES)]
    Run {
        /// Scenario files (docs/scenarios.md).
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// Write every trace event as a JSON line to this file.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Stub leaves the built-in leaves lack.
        #[arg(long)]
        stub_unknown: bool,
        /// Compatibility mode: a leaf parameter that no longer matches the
        /// leaf is a warning, and the node keeps a fallback value.
        #[arg(long)]
        compat: bool,
        /// With `--stub-unknown`: what stubbed leaves return on every tick,
        /// unless the scenario says (`stub_status`).
        #[arg(long, value_enum, default_value_t = StubArg::Running, requires = "stub_unknown")]
        stub_status: StubArg,
        /// The folder a scenario's tree file (and what it includes) must
        /// stay inside [default: the current folder, or the scenario's own
        /// when it is outside it].
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        #[command(flatten)]
        observe: observe::ObserveArgs,
        /// After the scenario, keep ticking its agents (no world script, no
        /// expectations) and reload the tree whenever its file changes;
        /// runs until interrupted, or until `--ticks`.
        #[arg(long)]
        watch: bool,
        /// With `--watch`: stop once this many ticks have run in all, the
        /// scenario's own included.
        #[arg(long, value_name = "N", requires = "watch")]
        ticks: Option<u64>,
        /// With `--watch`: milliseconds between the ticks past the scenario
        /// [default: the scenario's `dt`, in real time].
        #[arg(long, value_name = "MS", requires = "watch")]
        interval: Option<u64>,
    },
}

#[derive(Args)]
struct TreeArgs {
    /// Stub leaves the built-in leaves lack (each returns `--stub-status`), and
    /// nodes treebeard cannot run yet, with a warning each.
    #[arg(long)]
    stub_unknown: bool,
    /// The tree to use, instead of the file's main tree.
    #[arg(long)]
    main: Option<String>,
    /// The folder the files a tree includes must stay inside [default:
    /// the current folder, or the tree file's own when it is outside it].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// With `--stub-unknown`: what stubbed leaves return on every tick.
    #[arg(long, value_enum, default_value_t = StubArg::Running, requires = "stub_unknown")]
    stub_status: StubArg,
    /// Compatibility mode (seed 003's): a leaf parameter that no longer
    /// matches the leaf (renamed, removed, retyped, newly required) is a
    /// warning, and the node keeps a fallback value; strict by default.
    #[arg(long)]
    compat: bool,
    /// The application's leaves, fields and events from its leaf manifest
    /// (`Leaves::manifest`, docs/trees.md), instead of the built-in test
    /// leaves.
    #[arg(long, value_name = "FILE")]
    leaves: Option<PathBuf>,
}

/// What stubbed leaves return (`--stub-status`).
#[derive(Clone, Copy, ValueEnum)]
enum StubArg {
    /// Keep running: a stubbed branch is visibly pending.
    Running,
    /// Succeed at once.
    Success,
    /// Fail at once.
    Failure,
}

impl From<StubArg> for StubStatus {
    fn from(arg: StubArg) -> StubStatus {
        match arg {
            StubArg::Running => StubStatus::Running,
            StubArg::Success => StubStatus::Success,
            StubArg::Failure => StubStatus::Failure,
        }
    }
}

impl TreeArgs {
    /// How to load `file`.
    fn options(&self, file: &Path) -> LoadOptions {
        LoadOptions {
            stub_unknown: self.stub_unknown,
            main: self.main.clone(),
            root: content_root(file, self.root.as_deref()),
            stub_status: self.stub_status.into(),
            compat: self.compat,
            ..LoadOptions::default()
        }
    }
}

/// The content root of the file `file` the user named (see
/// `treebeard_load::files`): `root` if given, else the current folder when
/// `file` is inside it (a project's trees include one another across its
/// folders), else `None`, the file's own folder.
fn content_root(file: &Path, root: Option<&Path>) -> Option<PathBuf> {
    if let Some(root) = root {
        return Some(root.to_path_buf());
    }
    let here = std::env::current_dir().ok()?.canonicalize().ok()?;
    let file = file.canonicalize().ok()?;
    file.starts_with(&here).then_some(here)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    match cli.command {
        Command::Check { files, offer, tree } => check(&files, &offer, &tree, color),
        Command::Disasm { file, tree } => {
            show(&file, &tree, color, |l| l.shape.disassemble().to_string())
        }
        Command::Dot { file, tree } => {
            show(&file, &tree, color, |l| dot::render(&l.shape, &l.main))
        }
        Command::Svg {
            file,
            tree,
            output,
            agent,
            tick,
        } => {
            if recording::is_recording(&file) {
                return recording::svg(&file, output.as_deref(), agent, tick);
            }
            if agent.is_some() || tick.is_some() {
                eprintln!(
                    "error: `--agent` and `--tick` draw a recording's states, and {} is a tree file; record one with `treebeard run --record FILE`",
                    file.display()
                );
                return ExitCode::from(2);
            }
            match output {
                None => show(&file, &tree, color, |l| svg::render(&l.shape, &l.main)),
                Some(path) => draw_to(&file, &tree, color, &path),
            }
        }
        Command::View {
            recording,
            output,
            title,
        } => view(&recording, output, title),
        Command::Compile {
            file,
            tree,
            rust,
            name,
            strict,
            blackboard,
            leaf_set,
        } => {
            let load = load(&file, &tree);
            let catalog = manifest(tree.leaves.as_deref()).ok().flatten();
            let args = compile::CompileArgs {
                rust,
                name,
                strict,
                blackboard,
                leaf_set,
            };
            compile::run(&file, &load, catalog.as_ref(), color, &args)
        }
        Command::Export {
            file,
            tree,
            btcpp: _,
            output,
            name,
        } => {
            let load = load(&file, &tree);
            let args = export::ExportArgs { output, name };
            export::run(&file, &load, color, &args)
        }
        Command::Nodes { json, leaves } => {
            let list = |catalog: &dyn LeafCatalog| {
                out(if json {
                    nodes::json(catalog)
                } else {
                    nodes::text(catalog)
                });
            };
            match manifest(leaves.as_deref()) {
                Err(failed) => return loaded(&failed, color).err().unwrap_or(ExitCode::FAILURE),
                Ok(Some(catalog)) => list(&catalog),
                Ok(None) => list(&builtin_leaves()),
            }
            ExitCode::SUCCESS
        }
        Command::Run {
            scenarios,
            trace,
            stub_unknown,
            compat,
            stub_status,
            root,
            observe,
            watch,
            ticks,
            interval,
        } => {
            // Each scenario's content root is its own (`content_root`).
            let options = PrepareOptions {
                stub_unknown,
                compat,
                stub_status: stub_status.into(),
                root,
            };
            if watch {
                self::watch(&scenarios, trace, options, color, ticks, interval)
            } else {
                run(&scenarios, trace, &options, &observe, color)
            }
        }
    }
}

/// Writes `text` to standard output. A reader that has gone (`treebeard
/// dot T | head -c1`) ends the program quietly, as a closed pipe ends other
/// command-line tools, rather than with a panic.
///
/// Names from tree files are in what it prints: control characters are
/// escaped (`\u{1b}`), line breaks and tabs kept, so that a name cannot
/// drive the terminal.
pub(crate) fn out(text: impl std::fmt::Display) {
    let text = text.to_string();
    let text = treebeard_load::diagnostic::escaped_lines(&text);
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// Loads one tree file against the built-in leaves.
/// Prints a load's diagnostics; the loaded tree, or the exit code of a
/// load that failed (2 when no file could be read, else 1).
fn loaded(load: &Load, color: bool) -> Result<&treebeard_load::Loaded, ExitCode> {
    eprint!("{}", load.diagnostics.render(&load.map, color));
    match &load.loaded {
        Some(loaded) => Ok(loaded),
        None if load.map.files().is_empty() => Err(ExitCode::from(2)),
        None => Err(ExitCode::from(1)),
    }
}

/// Loads `file` against the leaves `--leaves` names, or the built-in
/// ones. A manifest with mistakes is a failed load of its own, whose
/// diagnostics are the manifest's.
fn load(file: &Path, tree: &TreeArgs) -> Load {
    let load_with = |catalog: &dyn LeafCatalog| {
        let mut loader = Loader::new(catalog, tree.options(file));
        loader.add_file(file);
        loader.finish()
    };
    match manifest(tree.leaves.as_deref()) {
        Err(failed) => *failed,
        Ok(Some(catalog)) => load_with(&catalog),
        Ok(None) => load_with(&builtin_leaves()),
    }
}

/// The leaf manifest at `path`, if one is named: its catalog, or a failed
/// load that holds its mistakes (exit code 2 when it could not be read).
fn manifest(path: Option<&Path>) -> Result<Option<Catalog>, Box<Load>> {
    let Some(path) = path else {
        return Ok(None);
    };
    let read = treebeard_load::manifest::read_path(path);
    match read.catalog {
        Some(catalog) => Ok(Some(catalog)),
        None => Err(Box::new(Load {
            map: read.map,
            diagnostics: read.diagnostics,
            loaded: None,
        })),
    }
}

/// Whether a load failed for want of a readable file (exit code 2).
fn unreadable(load: &Load) -> bool {
    load.map.files().is_empty()
}

fn check(files: &[PathBuf], offers: &[offer::Offer], tree: &TreeArgs, color: bool) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    let mut stderr = std::io::stderr().lock();
    for file in files {
        let load = load(file, tree);
        let _ = write!(stderr, "{}", load.diagnostics.render(&load.map, color));
        if unreadable(&load) {
            code = ExitCode::from(2);
        } else if load.diagnostics.has_errors() {
            if code == ExitCode::SUCCESS {
                code = ExitCode::from(1);
            }
        } else if let (false, Some(main)) = (offers.is_empty(), &load.loaded) {
            let offered = offer::check(file, main, offers, tree, color);
            if offered != ExitCode::SUCCESS && code != ExitCode::from(2) {
                code = offered;
            }
        } else {
            let nodes = load.loaded.as_ref().map_or(0, |l| l.shape.len());
            let _ = writeln!(stderr, "{}: ok, {nodes} nodes", file.display());
        }
    }
    code
}

/// Loads `file` and prints what `render` makes of it.
fn show(
    file: &Path,
    tree: &TreeArgs,
    color: bool,
    render: impl Fn(&treebeard_load::Loaded) -> String,
) -> ExitCode {
    let load = load(file, tree);
    eprint!("{}", load.diagnostics.render(&load.map, color));
    match &load.loaded {
        Some(l) => {
            let text = render(l);
            let end = if text.ends_with('\n') { "" } else { "\n" };
            out(format_args!("{text}{end}"));
            ExitCode::SUCCESS
        }
        None if unreadable(&load) => ExitCode::from(2),
        None => ExitCode::from(1),
    }
}

/// `treebeard svg FILE -o PATH`: the picture into `path`.
fn draw_to(file: &Path, tree: &TreeArgs, color: bool, path: &Path) -> ExitCode {
    let load = load(file, tree);
    eprint!("{}", load.diagnostics.render(&load.map, color));
    match &load.loaded {
        Some(l) => match std::fs::write(path, svg::render(&l.shape, &l.main)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", path.display());
                ExitCode::from(2)
            }
        },
        None if unreadable(&load) => ExitCode::from(2),
        None => ExitCode::from(1),
    }
}

/// `run`: the scenarios, each prepared with `options` and its own content
/// root (`--root`, or as `content_root` finds it).
fn run(
    scenarios: &[PathBuf],
    trace: Option<PathBuf>,
    options: &PrepareOptions,
    observe: &observe::ObserveArgs,
    color: bool,
) -> ExitCode {
    if observe.record.is_some() && scenarios.len() != 1 {
        eprintln!(
            "error: `--record` records one scenario, not {}; give one file",
            scenarios.len()
        );
        return ExitCode::from(2);
    }
    let mut trace_file = match report::open_trace(trace.as_ref()) {
        Ok(file) => file,
        Err(code) => return code,
    };
    let mut code = ExitCode::SUCCESS;
    // Passed, failed, and did not load.
    let mut tally = [0usize; 3];
    for path in scenarios {
        let options = PrepareOptions {
            root: content_root(path, options.root.as_deref()),
            ..options.clone()
        };
        let prepared = match report::prepare(path, &options, color) {
            Ok(p) => p,
            Err(failed) => {
                code = failed;
                tally[2] += 1;
                continue;
            }
        };
        let observers = match observe.observers(&prepared) {
            Ok(o) => o,
            Err(failed) => return failed,
        };
        let mut engine = prepared.vm().observed(observers);
        let sink = trace_file.as_mut().map(|f| f as &mut dyn Write);
        match prepared.run(&mut engine, sink) {
            Ok(verdict) => {
                observe.report(&prepared, &engine);
                #[cfg(feature = "lua")]
                for line in prepared.lua_errors() {
                    eprintln!("warning: {line}");
                }
                if report::verdict(path, &prepared, &verdict, color) == ExitCode::SUCCESS {
                    tally[0] += 1;
                } else {
                    tally[1] += 1;
                    code = ExitCode::from(1);
                }
            }
            Err(e) => return report::trace_error(&e),
        }
        // Written whatever the verdict: a failed scenario is when it helps.
        if let Err(failed) = observe.write_recording(&engine) {
            return failed;
        }
    }
    if let Some(mut f) = trace_file
        && let Err(e) = f.flush()
    {
        return report::trace_error(&e);
    }
    if scenarios.len() > 1 {
        eprintln!("{}", report::summary(tally));
    }
    code
}

/// `run --watch`: one scenario, run on and reloaded (see the `watch`
/// module).
fn watch(
    scenarios: &[PathBuf],
    trace: Option<PathBuf>,
    options: PrepareOptions,
    color: bool,
    ticks: Option<u64>,
    interval: Option<u64>,
) -> ExitCode {
    let [scenario] = scenarios else {
        eprintln!(
            "error: `--watch` runs one scenario, not {}; give one file",
            scenarios.len()
        );
        return ExitCode::from(2);
    };
    let mut trace_file = match report::open_trace(trace.as_ref()) {
        Ok(file) => file,
        Err(code) => return code,
    };
    watch::run(watch::Watch {
        scenario,
        trace: trace_file.as_mut().map(|f| f as &mut dyn Write),
        options: PrepareOptions {
            root: content_root(scenario, options.root.as_deref()),
            ..options
        },
        color,
        ticks,
        interval,
    })
}

/// `treebeard view RECORDING -o PAGE`.
fn view(path: &Path, output: Option<PathBuf>, title: Option<String>) -> ExitCode {
    let read = match recording::read(path) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let output = output.unwrap_or_else(|| path.with_extension("html"));
    let title = title.unwrap_or_else(|| {
        path.file_name().map_or_else(
            || "recording".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        )
    });
    match std::fs::write(&output, page::render(&read, &title)) {
        Ok(()) => {
            eprintln!(
                "{}: {} ticks, {} agents, {:.1} bytes per agent-tick",
                output.display(),
                read.len(),
                read.agents().len(),
                read.bytes_per_agent_tick()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", output.display());
            ExitCode::from(2)
        }
    }
}
