//! `treebeard run --watch`: the scenario runs, its agents tick on, an edit
//! of the tree file is reloaded into them while they run, a tree that no
//! longer loads is reported while the old one runs on, and the run ends at
//! its tick limit.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

mod common;
use common::TempDir;

/// Replaces the file at `path` at once (a reader never sees half of it).
fn replace(path: &Path, text: &str) {
    let new = path.with_extension("new");
    std::fs::write(&new, text).expect("a temporary file");
    std::fs::rename(&new, path).expect("the file replaced");
}

/// A guard patrolling: `walk` runs for a long time.
const TREE: &str = r#"{"type": "PrioritySelector", "name": "guard", "children": [
  {"type": "Sequence", "name": "patrol", "children": [
    {"type": "Succeed", "name": "look"},
    {"type": "WaitTicks", "name": "walk", "params": {"ticks": 100000}}
  ]}
]}
"#;

/// The patrol with a node inserted before `walk`, which keeps running.
const EDITED: &str = r#"{"type": "PrioritySelector", "name": "guard", "children": [
  {"type": "Sequence", "name": "patrol", "children": [
    {"type": "Succeed", "name": "look"},
    {"type": "Succeed", "name": "listen"},
    {"type": "WaitTicks", "name": "walk", "params": {"ticks": 100000}}
  ]}
]}
"#;

const SCENARIO: &str = r#"(
    tree: "tree.json",
    agents: 2,
    ticks: 3,
    expect: [(tick: 2, status: "running", running: ["patrol/walk"])],
)
"#;

/// Lines of a child's stream, as they come.
fn lines(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// Reads lines until one holds `text`; all read lines go to `seen`.
fn wait_for(lines: &Receiver<String>, text: &str, seen: &mut Vec<String>) {
    loop {
        match lines.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => {
                let found = line.contains(text);
                seen.push(line);
                if found {
                    return;
                }
            }
            Err(e) => panic!("no line with {text:?} ({e}); so far:\n{}", seen.join("\n")),
        }
    }
}

#[test]
fn an_edited_tree_is_reloaded_into_the_running_agents() {
    let dir = TempDir::new("edit");
    std::fs::write(dir.path("tree.json"), TREE).unwrap();
    std::fs::write(dir.path("s.ron"), SCENARIO).unwrap();
    let ticks = 600;
    let mut child = Command::new(env!("CARGO_BIN_EXE_treebeard"))
        .args(["--color", "never", "run", "--watch", "s.ron"])
        .args(["--ticks", &ticks.to_string(), "--interval", "5"])
        .current_dir(dir.root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let out = lines(child.stdout.take().unwrap());
    let err = lines(child.stderr.take().unwrap());
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());

    wait_for(&err, "s.ron: ok, 3 ticks", &mut stderr);
    wait_for(
        &out,
        "tick 5: agent 0 running (guard/patrol/walk)",
        &mut stdout,
    );
    // Broken: reported where it is broken; the old tree runs on.
    replace(
        &dir.path("tree.json"),
        "{\"type\": \"Sequence\", \"children\": [\n",
    );
    wait_for(
        &err,
        "the tree does not load; running on with the old tree",
        &mut stderr,
    );
    assert!(
        stderr.iter().any(|l| l.contains("--> tree.json:2:")),
        "{stderr:#?}"
    );
    let at = stdout.len();
    wait_for(&out, "running (guard/patrol/walk)", &mut stdout);
    assert!(stdout.len() > at);
    // Fixed, with a node inserted before the running one.
    replace(&dir.path("tree.json"), EDITED);
    wait_for(&out, "reloaded tree.json before tick", &mut stdout);
    let reload = stdout.last().unwrap().clone();
    assert!(
        reload.ends_with(
            "3 nodes kept, 1 moved, 0 vanished, 1 added; running work: 2 carried, 0 cancelled, 0 remapped"
        ),
        "{reload}"
    );
    // The agents carry on at `walk`, now item 4.
    wait_for(
        &out,
        &format!("tick {}: agent 0 running (guard/patrol/walk)", ticks - 1),
        &mut stdout,
    );
    let status = child.wait().expect("the run ends");
    assert!(status.success(), "{status}\n{}", stderr.join("\n"));
    let after: Vec<&String> = stdout.iter().skip_while(|l| **l != reload).collect();
    assert!(after.len() > 2, "ticks after the reload: {stdout:#?}");
    assert!(
        out.recv_timeout(Duration::from_secs(10)).is_err(),
        "nothing past the limit"
    );
}

#[test]
fn watch_runs_one_scenario() {
    let dir = TempDir::new("two");
    std::fs::write(dir.path("tree.json"), TREE).unwrap();
    std::fs::write(dir.path("s.ron"), SCENARIO).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_treebeard"))
        .args(["--color", "never", "run", "--watch", "s.ron", "s.ron"])
        .current_dir(dir.root())
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`--watch` runs one scenario, not 2"),
        "{stderr}"
    );
    // `--ticks` belongs to `--watch`.
    let out = Command::new(env!("CARGO_BIN_EXE_treebeard"))
        .args(["run", "s.ron", "--ticks", "5"])
        .current_dir(dir.root())
        .output()
        .expect("the binary runs");
    assert_eq!(out.status.code(), Some(2));
}
