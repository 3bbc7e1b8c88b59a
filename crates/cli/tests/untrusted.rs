//! The command line on hostile files: includes confined to the content
//! root (`--root`), devices and FIFOs refused at once, nothing of a
//! refused file printed, and a closed output pipe ending quietly.

mod common;
use common::{TempDir, run_in};
use std::time::{Duration, Instant};

/// A BT.CPP tree that includes `path`.
fn including(path: &str) -> String {
    format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  \
         <include path=\"{path}\"/>\n  \
         <BehaviorTree ID=\"Main\"><Succeed/></BehaviorTree>\n</root>\n"
    )
}

const PART: &str =
    "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Part\"><Succeed/></BehaviorTree></root>\n";

#[test]
fn an_include_of_etc_passwd_is_refused_at_the_include_and_not_echoed() {
    let dir = TempDir::new("passwd");
    std::fs::write(dir.path("main.xml"), including("/etc/passwd")).expect("writes");
    let out = run_in(dir.root(), &["check", "main.xml"]);
    out.code(1)
        .err_has("error: included file `/etc/passwd` is outside the content root")
        .err_has("--> main.xml:2:18")
        .err_lacks("root:")
        .err_lacks("/bin/");
}

#[test]
fn includes_stay_inside_the_current_folder_or_the_root_given() {
    let dir = TempDir::new("root");
    std::fs::create_dir_all(dir.path("trees")).expect("a folder");
    std::fs::create_dir_all(dir.path("shared")).expect("a folder");
    std::fs::write(dir.path("shared/part.xml"), PART).expect("writes");
    std::fs::write(dir.path("trees/main.xml"), including("../shared/part.xml")).expect("writes");
    // Run from the project's folder: the project is the root.
    run_in(dir.root(), &["check", "trees/main.xml"])
        .code(0)
        .err_has("ok");
    // Run from the tree's folder: the tree's folder is the root.
    run_in(&dir.path("trees"), &["check", "main.xml"])
        .code(1)
        .err_has("is outside the content root");
    // Unless `--root` widens it.
    run_in(&dir.path("trees"), &["check", "--root", "..", "main.xml"])
        .code(0)
        .err_has("ok");
    // Or narrows it.
    run_in(dir.root(), &["check", "--root", "trees", "trees/main.xml"])
        .code(1)
        .err_has("is outside the content root");
}

#[cfg(target_os = "linux")]
#[test]
fn dev_zero_and_a_fifo_are_refused_promptly() {
    let dir = TempDir::new("devices");
    let started = Instant::now();
    run_in(dir.root(), &["check", "/dev/zero"])
        .code(2)
        .err_has("cannot read `/dev/zero`: it is a device, not a regular file");
    run_in(dir.root(), &["run", "/dev/zero"])
        .code(2)
        .err_has("cannot read `/dev/zero`: it is a device, not a regular file");
    let fifo = dir.path("pipe.xml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        run_in(dir.root(), &["check", "pipe.xml"])
            .code(2)
            .err_has("cannot read `pipe.xml`: it is a FIFO, not a regular file");
        run_in(dir.root(), &["svg", "pipe.xml"])
            .code(2)
            .err_has("it is a FIFO, not a regular file");
        std::fs::write(dir.path("main.xml"), including("pipe.xml")).expect("writes");
        run_in(dir.root(), &["check", "main.xml"])
            .code(1)
            .err_has("included file `pipe.xml` is a FIFO, not a regular file");
    }
    assert!(started.elapsed() < Duration::from_secs(20), "prompt");
}

#[test]
fn a_scenarios_tree_stays_inside_its_root() {
    let dir = TempDir::new("scenario");
    std::fs::create_dir_all(dir.path("scenarios")).expect("a folder");
    std::fs::write(dir.path("secret.json"), "{\"password\": \"hunter2\"}").expect("writes");
    let scenario = "(tree: \"../secret.json\", agents: 1, ticks: 1)\n";
    std::fs::write(dir.path("scenarios/s.ron"), scenario).expect("writes");
    run_in(&dir.path("scenarios"), &["run", "s.ron"])
        .code(1)
        .err_has("the tree file `../secret.json` is outside the content root")
        .err_lacks("hunter2")
        .err_lacks("password");
    let scenario = "(tree: \"/etc/passwd\", agents: 1, ticks: 1)\n";
    std::fs::write(dir.path("scenarios/t.ron"), scenario).expect("writes");
    run_in(dir.root(), &["run", "scenarios/t.ron"])
        .code(1)
        .err_has("the tree file `/etc/passwd` is outside the content root")
        .err_lacks("root:");
}

#[cfg(unix)]
#[test]
fn a_closed_output_pipe_ends_the_program_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = TempDir::new("pipe");
    // A tree whose drawing is longer than a pipe's buffer.
    let leaves: Vec<String> = (0..3000)
        .map(|i| format!("<Succeed name=\"leaf{i}\"/>"))
        .collect();
    let tree = format!(
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Main\"><Sequence>{}</Sequence></BehaviorTree></root>",
        leaves.join("")
    );
    std::fs::write(dir.path("big.xml"), tree).expect("writes");
    for command in ["dot", "disasm", "svg"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_treebeard"))
            .args([command, "big.xml"])
            .current_dir(dir.root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        // Read one byte, then close the pipe (as `head -c1` does).
        let mut stdout = child.stdout.take().expect("a pipe");
        let mut byte = [0u8; 1];
        stdout.read_exact(&mut byte).expect("some output");
        drop(stdout);
        let out = child.wait_with_output().expect("ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{command}: {stderr}");
        assert!(!stderr.contains("panicked"), "{command}: {stderr}");
    }
}

#[test]
fn control_characters_in_names_are_escaped_in_every_output() {
    let dir = TempDir::new("escapes");
    // A name that would clear the screen, retitle the terminal and write
    // the clipboard, and an unknown leaf so that it is in an error too.
    let name = r"x\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;Zm9v\u0007\u202e";
    let tree =
        format!(r#"{{"type": "Sequence", "name": "{name}", "children": [{{"type": "Nope"}}]}}"#);
    std::fs::write(dir.path("bad.json"), &tree).expect("writes");
    let good = tree.replace("Nope", "Succeed");
    std::fs::write(dir.path("good.json"), &good).expect("writes");
    let out = run_in(dir.root(), &["check", "bad.json"]);
    out.code(1).err_has("node: x\\u{1b}[2J");
    let printed = |text: &str| {
        assert!(
            !text
                .chars()
                .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
            "{text:?}"
        );
    };
    printed(&out.stderr);
    for command in ["disasm", "dot", "svg"] {
        let out = run_in(dir.root(), &[command, "good.json"]);
        out.code(0);
        printed(&out.stdout);
        assert!(out.stdout.contains("\\u{1b}"), "{command}: {}", out.stdout);
    }
}
