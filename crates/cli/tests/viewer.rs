//! End-to-end tests of the viewer: `treebeard run --record` writes a
//! recording, `treebeard view` turns it into a page, and headless Chromium
//! opens the page, moves its time slider over every tick and reports the
//! nodes it highlights, which must be the recorded states.
//!
//! Chromium is found by `treebeard_testkit::browser::chromium`; without
//! it, the tests that need it print why and pass (`.ci/run` installs
//! Debian's `chromium`).

use std::path::Path;
use std::process::Command;
use treebeard_testkit::browser::{attribute, chromium, element, expected, highlighted};
use treebeard_vm::{AgentId, Recording};

mod common;
use common::TempDir;

/// The DOM of the page file `page` opened at `#hash`.
fn dump_dom(chromium: &Path, page: &Path, hash: &str, profile: &Path) -> String {
    let url = format!("file://{}#{hash}", page.display());
    treebeard_testkit::browser::dump_dom(chromium, &url, profile)
}

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

    // Picking a node lists the agents in it at the tick, by state, with
    // their number over time.
    let walk = recording.shape().find("Walk").expect("the Walk node");
    let tick = recording.tick(99).unwrap();
    let mut by_state = std::collections::BTreeMap::new();
    for agent in tick.agents() {
        let state = tick.state(agent, walk);
        if state != treebeard_vm::NodeState::Idle {
            by_state
                .entry(state.name())
                .or_insert_with(Vec::new)
                .push(agent.0);
        }
    }
    let here: usize = by_state.values().map(Vec::len).sum();
    assert!(here > 100, "{by_state:?}");
    let dom = dump_dom(
        &chromium,
        &page,
        &format!("agent=4321&tick=99&node={}", walk.get()),
        &dir.path("profile"),
    );
    let summary = element(&dom, "div", "crowd-summary");
    assert!(
        summary.contains(&format!("{here} agents here now")),
        "{summary}"
    );
    let listed = element(&dom, "div", "here");
    for (state, agents) in &by_state {
        assert!(
            listed.contains(&format!(
                r#"data-state="{state}">{state}</span> {}: "#,
                agents.len()
            )),
            "{state}: {listed}"
        );
        // The first agents of each state are links that pick them.
        assert!(listed.contains(&format!(r#"data-goto-agent="{}""#, agents[0])));
    }
}

/// A scenario of 331 nodes: six goals of six plans of eight leaves; one
/// plan (goal 3, plan 2) ends in a running action, every other in a
/// failure, so the root keeps running it.
fn big_scenario() -> String {
    let mut goals = Vec::new();
    for g in 0..6 {
        let plans: Vec<String> = (0..6)
            .map(|p| {
                let mut leaves: Vec<String> = (0..7)
                    .map(|k| format!(r#"(type: "Succeed", name: "check_{g}_{p}_{k}")"#))
                    .collect();
                let last = if (g, p) == (3, 2) { "Running" } else { "Fail" };
                leaves.push(format!(r#"(type: "{last}", name: "act_{g}_{p}")"#));
                format!(
                    r#"(type: "Sequence", name: "plan_{g}_{p}", children: [{}])"#,
                    leaves.join(", ")
                )
            })
            .collect();
        goals.push(format!(
            r#"(type: "Selector", name: "goal_{g}", children: [{}])"#,
            plans.join(",\n")
        ));
    }
    format!(
        "(\n  tree: (type: \"Selector\", name: \"root\", children: [\n{}]),\n  ticks: 3,\n)\n",
        goals.join(",\n")
    )
}

#[test]
fn a_big_tree_opens_collapsed_with_the_root_on_screen() {
    let dir = TempDir::new("viewer-big");
    let (tree, rec, page) = (
        dir.path("big.ron"),
        dir.path("big.tbrec"),
        dir.path("big.html"),
    );
    std::fs::write(&tree, big_scenario()).unwrap();
    let (code, out) = treebeard(&[
        "run",
        tree.to_str().unwrap(),
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = treebeard(&["view", rec.to_str().unwrap(), "-o", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let recording = Recording::read_from(&std::fs::read(&rec).unwrap()).unwrap();
    let shape = recording.shape();
    assert_eq!(shape.len(), 331);
    // Drawn whole, the tree is far too wide to read.
    let html = std::fs::read_to_string(&page).unwrap();
    let drawn: f64 = attribute(&html, "<svg xmlns", "width").parse().unwrap();
    assert!(drawn > 20_000.0, "{drawn}");
    let Some(chromium) = chromium() else { return };
    let profile = dir.root().join("profile");
    let find = |name: &str| shape.find(name).expect(name).index();
    let (plan, act) = (find("plan_3_2"), find("act_3_2"));
    let last = recording.len() - 1;

    // Opened: two levels (goals and plans) and the root on screen; each
    // plan collapsed, showing its eight nodes' most telling state at the
    // first tick, when every plan before the running one failed.
    let dom = dump_dom(&chromium, &page, "agent=0&tick=0", &profile);
    let status = "<output id=\"status\"";
    assert_eq!(attribute(&dom, status, "data-root-on-screen"), "1");
    assert_eq!(attribute(&dom, status, "data-nodes-shown"), "43");
    let width: f64 = attribute(&dom, "<svg xmlns", "width").parse().unwrap();
    assert!(width < drawn / 5.0, "{width} of {drawn}");
    let toggle = |dom: &str, node: usize| -> (String, String) {
        let at = dom
            .find(&format!("data-toggle=\"{node}\""))
            .expect("the node has a toggle");
        let tag_start = dom[..at].rfind('<').unwrap();
        let text = &dom[tag_start..];
        let state = attribute(text, "<text", "data-state").to_owned();
        let body = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
        (body.to_owned(), state)
    };
    assert_eq!(toggle(&dom, plan), ("+8".into(), "running".into()));
    let other = find("plan_0_0");
    assert_eq!(toggle(&dom, other), ("+8".into(), "failure".into()));
    assert!(!element_shown(&dom, act), "inside a collapsed plan");

    // Finding a node inside a collapsed plan opens the plan and picks it.
    let dom = dump_dom(
        &chromium,
        &page,
        &format!("agent=0&tick={last}&find=act_3_2"),
        &profile,
    );
    assert_eq!(attribute(&dom, status, "data-node"), act.to_string());
    assert!(element_shown(&dom, act));
    assert_eq!(toggle(&dom, plan).0, "−");
    assert!(highlighted(&dom).contains(&format!("{act}=running")));

    // Left to right: taller than wide; every level, on request.
    let dom = dump_dom(&chromium, &page, "agent=0&layout=lr&depth=0", &profile);
    let width: f64 = attribute(&dom, "<svg xmlns", "width").parse().unwrap();
    let height: f64 = attribute(&dom, "<svg xmlns", "height").parse().unwrap();
    assert!(height > 5.0 * width, "{width} x {height}");
    assert_eq!(attribute(&dom, status, "data-nodes-shown"), "331");
}

/// Whether node `node`'s `<g>` is displayed (not `display: none`).
fn element_shown(dom: &str, node: usize) -> bool {
    let marker = format!("data-node=\"{node}\"");
    let at = dom.find(&marker).expect("the node's group");
    let tag_start = dom[..at].rfind('<').unwrap();
    let tag = &dom[tag_start..at + dom[at..].find('>').unwrap()];
    !tag.contains("display: none")
}
