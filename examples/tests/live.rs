//! The crowd example serving the viewer live (`--live`), followed by
//! headless Chromium: the page loads the ticks so far, follows new ones,
//! pauses while the game runs on, rewinds to the oldest tick it kept and
//! catches up; what it then shows is what the game recorded.
//!
//! Without Chromium the test says why and passes (`.ci/run` installs it).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use treebeard::vm::{AgentId, Recording};
use treebeard_testkit::browser::{attribute, chromium, dump_dom, element, expected, highlighted};

/// The crowd example's binary, built now if `cargo test` did not build
/// it or built it before a change (`cargo test --test live` builds no
/// examples): cargo finds it up to date in a second otherwise.
fn crowd_example() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "treebeard-examples",
            "--example",
            "crowd",
        ])
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the crowd example builds");
    let exe = std::env::current_exe().expect("the test's path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    profile.join("examples").join("crowd")
}

/// The example, killed when the test ends however it ends.
struct Game(Child);

impl Drop for Game {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `GET path` on `addr` (host:port): the response's body.
fn get(addr: &str, path: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let body = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers end")
        + 4;
    assert!(
        response.starts_with(b"HTTP/1.0 200") || response.starts_with(b"HTTP/1.1 200"),
        "GET {path}: {}",
        String::from_utf8_lossy(&response[..body])
    );
    response[body..].to_vec()
}

#[test]
fn the_page_follows_a_running_crowd_pauses_rewinds_and_catches_up() {
    let Some(chromium) = chromium() else { return };
    let mut child = Command::new(crowd_example())
        .args([
            "--live",
            "127.0.0.1:0",
            "--agents",
            "300",
            "--ticks",
            "100000",
        ])
        .args(["--fps", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the crowd example starts");
    let stdout = child.stdout.take().expect("its output");
    let _game = Game(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .strip_prefix("live: ")
        .expect("the example says where it serves")
        .trim()
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let addr = url["http://".len()..].trim_end_matches('/').to_owned();

    let profile = std::env::temp_dir().join(format!("treebeard-live-{}", std::process::id()));
    let agent = 7;
    let dom = dump_dom(
        &chromium,
        &format!("{url}#agent={agent}&plot=1&depth=1&livecheck=5"),
        &profile,
    );
    let _ = std::fs::remove_dir_all(&profile);
    let check = element(&dom, "pre", "livecheck");
    let lines: Vec<Vec<u64>> = check
        .lines()
        .map(|l| {
            l.split(' ')
                .skip(1)
                .map(|n| n.parse().expect(check))
                .collect()
        })
        .collect();
    assert_eq!(lines.len(), 4, "{check}");
    let [followed, paused, rewound, caught_up] = [&lines[0], &lines[1], &lines[2], &lines[3]];
    // Following: five ticks came live, the page shows the newest.
    assert!(
        followed[0] >= 5 && followed[1] == followed[2] && followed[3] == 1,
        "{check}"
    );
    // Paused: the game ran on (newer frames came), the page stayed.
    assert!(
        paused[1] == paused[0] && paused[2] > paused[0] && paused[3] == 0,
        "{check}"
    );
    // Rewound to the oldest tick kept, still paused.
    assert!(rewound[0] == rewound[1] && rewound[2] == 0, "{check}");
    // Caught up: the newest again, following.
    assert!(
        caught_up[0] == caught_up[1] && caught_up[1] >= paused[2] && caught_up[2] == 1,
        "{check}"
    );

    // What the page shows at the end is what the game recorded then.
    let recording = Recording::read_from(&get(&addr, "/recording.tbrec")).expect("a recording");
    let frame = caught_up[0];
    let k = recording
        .ticks()
        .position(|t| t.index() == frame)
        .expect("the game still holds the page's last frame");
    let shown = highlighted(&dom);
    assert!(!shown.is_empty(), "the agent is doing something");
    assert_eq!(shown, expected(&recording, k, agent));
    assert_eq!(
        attribute(&dom, "<output id=\"status\"", "data-frame"),
        frame.to_string()
    );

    // Beside the tree, the agent's blackboard at that frame, as recorded;
    // `hunger` (column 1) plotted over the ticks kept.
    let columns: Vec<&str> = recording
        .columns()
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(columns, ["threat", "hunger", "fatigue", "friend_near"]);
    let tick = recording.tick(k).unwrap();
    for (c, name) in columns.iter().enumerate() {
        let value = tick
            .value(AgentId(agent), c)
            .expect("the agent's values are recorded");
        let open = format!("<tr data-column=\"{c}\">");
        let row = &dom[dom.find(&open).expect("the value's row")..];
        let row = &row[..row.find("</tr>").expect("the row ends")];
        assert!(
            row.contains(name) && row.contains(&format!("<td>{value}</td>")),
            "{name} = {value}: {row}"
        );
    }
    assert!(dom.contains("<canvas id=\"plot\""));

    // Collapsed to the root's children (`depth=1`): each shows how many
    // nodes it holds, coloured by the most telling state among them.
    let shape = recording.shape();
    let wander = shape.find("wander").expect("the wander sequence");
    let toggle = dom
        .find(&format!("data-toggle=\"{}\"", wander.get()))
        .map(|at| &dom[dom[..at].rfind('<').unwrap()..])
        .expect("wander has a toggle");
    let toggle = &toggle[..toggle.find("</text>").unwrap()];
    assert!(toggle.ends_with(">+3"), "{toggle}");
    let under = shape
        .children(wander)
        .map(|c| tick.state(AgentId(agent), c));
    let telling = under
        .max_by_key(|s| [0, 4, 1, 3, 2][*s as usize])
        .expect("wander has children");
    assert!(
        toggle.contains(&format!("data-state=\"{}\"", telling.name())),
        "{telling:?}: {toggle}"
    );
    let summary = element(&dom, "div", "plot-summary");
    let hunger = tick.value(AgentId(agent), 1).unwrap();
    assert!(
        summary.contains(&format!("now {hunger}, from ")),
        "{summary}"
    );
}
