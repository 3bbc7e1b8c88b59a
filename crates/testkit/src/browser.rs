//! Driving the viewer's page in headless Chromium, for end-to-end tests:
//! finding the browser, dumping a page's DOM after its script ran, and
//! reading elements, attributes and highlighted nodes out of it.
//!
//! Chromium is looked for as `chromium`, `chromium-browser` and
//! `google-chrome` (or `$TREEBEARD_CHROMIUM`); without it, [`chromium`]
//! says why the test skips (`.ci/run` installs Debian's `chromium`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use treebeard_vm::{AgentId, NodeState, Recording};

/// A Chromium binary, or `None` after saying why the test skips.
pub fn chromium() -> Option<PathBuf> {
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

/// The DOM of the page at `url` after its script ran, in virtual time
/// (timers run at once; it stands still while the page has a request
/// open, such as a live page's event stream), with a fresh profile under
/// `profile`.
pub fn dump_dom(chromium: &Path, url: &str, profile: &Path) -> String {
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
        .arg(url)
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
pub fn element<'d>(dom: &'d str, tag: &str, id: &str) -> &'d str {
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
pub fn attribute<'d>(dom: &'d str, marker: &str, name: &str) -> &'d str {
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
pub fn highlighted(dom: &str) -> Vec<String> {
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
pub fn expected(recording: &Recording, k: usize, agent: u32) -> Vec<String> {
    let tick = recording.tick(k).expect("the tick");
    tick.states(AgentId(agent))
        .filter(|&(_, s)| s != NodeState::Idle)
        .map(|(n, s)| format!("{}={}", n.get(), s.name()))
        .collect()
}
