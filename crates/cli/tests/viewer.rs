//! End-to-end tests of the viewer: `treebeard run --record` writes a
//! recording, `treebeard view` turns it into a page, and headless Chromium
//! opens the page, moves its time slider over every tick and reports the
//! nodes it highlights, which must be the recorded states.
//!
//! Chromium is looked for as `chromium`, `chromium-browser` and
//! `google-chrome` (or `$TREEBEARD_CHROMIUM`); without it, the tests that
//! need it print why and pass (`.ci/run` installs Debian's `chromium`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use treebeard_vm::{AgentId, NodeState, Recording};

mod common;
use common::TempDir;

fn treebeard(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_treebeard"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("the treebeard binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// A Chromium binary, or `None` after saying why the test skips.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("TREEBEARD_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    eprintln!(
        "skipped: no chromium, chromium-browser or google-chrome on PATH \
         (`apt-get install chromium`, or set TREEBEARD_CHROMIUM)"
    );
    None
}

/// The page's DOM after its script ran, opened at `#hash`.
fn dump_dom(chromium: &Path, page: &Path, hash: &str, profile: &Path) -> String {
    let url = format!("file://{}#{hash}", page.display());
    // The DOM goes to a file: a pipe left unread while waiting would fill
    // and stall Chromium on a large page.
    let dump = profile.with_extension("dom.html");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdout(std::fs::File::create(&dump).expect("the DOM file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("chromium runs").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish with {url} in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    String::from_utf8_lossy(&std::fs::read(&dump).expect("the DOM")).into_owned()
}

/// The text of the element `<tag id="id" ...>...</tag>` in `dom`.
fn element<'d>(dom: &'d str, tag: &str, id: &str) -> &'d str {
    let open = format!("<{tag} id=\"{id}\"");
    let at = dom
        .find(&open)
        .unwrap_or_else(|| panic!("no {open} in the page:\n{dom}"));
    let body = at + dom[at..].find('>').expect("the tag ends") + 1;
    let end = body
        + dom[body..]
            .find(&format!("</{tag}>"))
            .expect("the element ends");
    &dom[body..end]
}

/// The value of attribute `name` in the first tag holding `marker`.
fn attribute<'d>(dom: &'d str, marker: &str, name: &str) -> &'d str {
    let at = dom
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in the page"));
    let tag = &dom[at..at + dom[at..].find('>').expect("the tag ends")];
    let key = format!(" {name}=\"");
    let from = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    &tag[from..from + tag[from..].find('"').expect("the value ends")]
}

/// The nodes each node `<g>` of the drawing shows not idle: `node=state`.
fn highlighted(dom: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(at) = rest.find("<g class=\"node") {
        let tag = &rest[at..at + rest[at..].find('>').expect("the tag ends")];
        let value = |name: &str| {
            let key = format!(" {name}=\"");
            let from = tag.find(&key).map(|f| f + key.len())?;
            Some(&tag[from..from + tag[from..].find('"')?])
        };
        if let (Some(node), Some(state)) = (value("data-node"), value("data-state"))
            && state != "idle"
        {
            out.push(format!("{node}={state}"));
        }
        rest = &rest[at + tag.len()..];
    }
    out
}

/// What the recording says the page must show for `agent` at tick `k`.
fn expected(recording: &Recording, k: usize, agent: u32) -> Vec<String> {
    let tick = recording.tick(k).expect("the tick");
    tick.states(AgentId(agent))
        .filter(|&(_, s)| s != NodeState::Idle)
        .map(|(n, s)| format!("{}={}", n.get(), s.name()))
        .collect()
}

#[test]
fn the_page_highlights_the_recorded_states_at_every_tick() {
    let dir = TempDir::new("viewer-states");
    let rec = dir.path("gate.tbrec");
    let page = dir.path("gate.html");
    let scenario = "tests/scenarios/concurrent_failure_after_reactive_cancel.ron";
    let (code, out) = treebeard(&["run", scenario, "--record", rec.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = treebeard(&["view", rec.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let recording = Recording::read_from(&std::fs::read(&rec).unwrap()).unwrap();
    assert!(recording.len() >= 3, "{} ticks", recording.len());
    let html = std::fs::read_to_string(&page).unwrap();
    for external in [
        "src=\"http",
        "href=\"http",
        "<link",
        "<script src",
        "url(http",
        "@import",
    ] {
        assert!(
            !html.contains(external),
            "the page loads nothing: {external}"
        );
    }
    // Every state of the recording shows somewhere: the test means something.
    let mut seen = std::collections::BTreeSet::new();
    for tick in recording.ticks() {
        for agent in tick.agents() {
            seen.extend(tick.states(agent).map(|(_, s)| s.name()));
        }
    }
    assert!(
        seen.contains("running") && seen.contains("success"),
        "{seen:?}"
    );

    let Some(chromium) = chromium() else { return };
    let profile = dir.root().join("profile");
    for agent in recording.agents() {
        let dom = dump_dom(
            &chromium,
            &page,
            &format!("agent={}&sweep", agent.0),
            &profile,
        );
        assert_eq!(
            attribute(&dom, "<body", "data-ready"),
            "1",
            "the script ran"
        );
        let sweep = element(&dom, "pre", "sweep");
        let lines: Vec<&str> = sweep.lines().collect();
        assert_eq!(lines.len(), recording.len(), "{sweep}");
        for (k, line) in lines.iter().enumerate() {
            let (head, nodes) = line.split_once(':').expect("tick agent: nodes");
            assert_eq!(head, format!("{k} {}", agent.0));
            let shown: Vec<String> = nodes.split_whitespace().map(str::to_owned).collect();
            assert_eq!(
                shown,
                expected(&recording, k, agent.0),
                "agent {} tick {k}",
                agent.0
            );
        }
    }
    // Moving the slider to one tick leaves the drawing at that tick.
    let last = recording.len() - 1;
    let agent = recording.agents()[0].0;
    let dom = dump_dom(
        &chromium,
        &page,
        &format!("agent={agent}&node=1&slide={last}"),
        &profile,
    );
    assert_eq!(
        attribute(&dom, "<output id=\"status\"", "data-tick"),
        last.to_string()
    );
    assert_eq!(highlighted(&dom), expected(&recording, last, agent));
    // The details pane shows the node picked in the address.
    let details = element(&dom, "div", "details");
    let name = &*recording
        .shape()
        .node(treebeard_shape::NodeIdx::new(1))
        .name;
    assert!(
        details.contains(name) && details.contains("History of agent"),
        "{details}"
    );
}

#[test]
fn a_damaged_recording_is_an_error_with_its_byte_offset() {
    let dir = TempDir::new("viewer-damaged");
    let rec = dir.path("r.tbrec");
    let scenario = "tests/scenarios/gate_full_fails_at_once.ron";
    let (code, out) = treebeard(&["run", scenario, "--record", rec.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let mut bytes = std::fs::read(&rec).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&rec, &bytes).unwrap();
    let (code, out) = treebeard(&[
        "view",
        rec.to_str().unwrap(),
        "-o",
        dir.path("p.html").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("r.tbrec: byte ") && out.contains("truncated"),
        "{out}"
    );
    assert!(!dir.path("p.html").exists());
    let (code, out) = treebeard(&["view", dir.path("missing.tbrec").to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("cannot read"), "{out}");
    // Not a recording at all.
    let (code, out) = treebeard(&["view", scenario]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("byte 0: not a treebeard recording"), "{out}");
}

#[test]
fn run_records_one_scenario_and_view_writes_beside_the_recording() {
    let dir = TempDir::new("viewer-usage");
    let rec = dir.path("r.tbrec");
    let scenarios = [
        "tests/scenarios/force_failure.ron",
        "tests/scenarios/force_success.ron",
    ];
    let (code, out) = treebeard(&[
        "run",
        scenarios[0],
        scenarios[1],
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("`--record` records one scenario, not 2"),
        "{out}"
    );
    let (code, out) = treebeard(&["run", scenarios[0], "--record", rec.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = treebeard(&["view", rec.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("bytes per agent-tick"), "{out}");
    let page = std::fs::read_to_string(dir.path("r.html")).expect("the page beside the recording");
    assert!(page.contains("<title>r.tbrec · treebeard view</title>"));
}

#[test]
fn a_recording_of_5000_agents_opens_fast_and_stays_responsive() {
    use treebeard_crowd::Crowd;
    use treebeard_vm::Recorder;
    use treebeard_workload::{leaves, spawn, tree};

    let dir = TempDir::new("viewer-crowd");
    let (rec, page) = (dir.path("crowd.tbrec"), dir.path("crowd.html"));
    let program = leaves().compile(&tree()).expect("the workload tree");
    let mut crowd = Crowd::with_agents(program.clone(), spawn(5000, 42));
    let mut recorder = Recorder::new(program.shape(), 64 << 20);
    for _ in 0..100 {
        crowd.tick_observed(1.0, |_, critter| critter.world_step(), &mut recorder);
    }
    recorder.annotate(
        AgentId(4321),
        program.shape().find("Flee"),
        "a note to search for",
    );
    // Names, as a game gives its entities' (escaped on the page).
    recorder.name(AgentId(4321), "Critter <4321>");
    recorder.name(AgentId(0), "the first critter");
    recorder
        .write_to(std::fs::File::create(&rec).unwrap())
        .unwrap();
    let (code, out) = treebeard(&["view", rec.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let size = std::fs::metadata(&page).unwrap().len();
    eprintln!(
        "5000 agents x 100 ticks: {:.1} bytes per agent-tick, recording {} bytes, page {size} bytes",
        recorder.bytes_per_agent_tick(),
        std::fs::metadata(&rec).unwrap().len()
    );

    let Some(chromium) = chromium() else { return };
    let dom = dump_dom(
        &chromium,
        &page,
        "agent=4321&tick=99&bench",
        &dir.path("profile"),
    );
    assert_eq!(
        attribute(&dom, "<body", "data-ready"),
        "1",
        "the script ran"
    );
    let timings = element(&dom, "div", "timings");
    eprintln!("timings: {timings}");
    let ms = |name: &str| -> f64 {
        attribute(&dom, "<div id=\"timings\"", name)
            .parse()
            .expect(name)
    };
    assert_eq!(
        attribute(&dom, "<div id=\"timings\"", "data-agents"),
        "5000"
    );
    // Generous bounds, for a loaded 2-core CI machine: a page that takes
    // seconds to open or a tenth of a second per tick is broken.
    assert!(ms("data-load-ms") < 5000.0, "{timings}");
    assert!(ms("data-tick-ms") < 100.0, "{timings}");
    assert!(ms("data-agent-ms") < 100.0, "{timings}");
    // The agent's note is there, on the tick it was attached to.
    let recording = Recording::read_from(&std::fs::read(&rec).unwrap()).unwrap();
    let expected = expected(&recording, 99, 4321);
    assert!(!expected.is_empty());
    assert_eq!(highlighted(&dom), expected);
    assert!(element(&dom, "div", "details").contains("a note to search for"));
    // The agents' names: in the details, and in the agent list.
    let details = element(&dom, "div", "details");
    assert!(
        details.contains("Agent 4321 (Critter &lt;4321&gt;)"),
        "{details}"
    );
    assert!(element(&dom, "ul", "agents").contains("0 (the first critter)"));
}
