//! End-to-end tests of the `treebeard` binary: exit codes, stdout and
//! stderr of `check`, `disasm`, `dot`, `nodes` and `run`.

use std::collections::BTreeSet;
use std::path::PathBuf;

mod common;
use common::{Out, TempDir, raw_in, run_in};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Runs `treebeard --color never ARGS` in `tests/data`.
fn tb(args: &[&str]) -> Out {
    run_in(&data(), args)
}

/// This crate's `tests/data`.
fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// The repository's `tests/trees`.
fn trees() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/trees")
}

/// Runs `treebeard --color never ARGS` in the repository's `tests/trees`.
fn tb_trees(args: &[&str]) -> Out {
    run_in(&trees(), args)
}

/// The MBT examples whose Lua code does not compile as treebeard scripts,
/// with the error `check --stub-unknown` gives.
const MBT_LUA: &[(&str, &str)] = &[
    (
        "mbt/assert_lua.xml",
        "error: script `code` of `AssertLua` uses `return`, which scripts do not have",
    ),
    (
        "mbt/execute_lua.xml",
        "error: script `code` of `ExecuteLua` calls `DoSomething`, but scripts have no function calls",
    ),
    (
        "mbt/lua_gate.xml",
        "error: script `code` of `LuaGate` uses `return`, which scripts do not have",
    ),
    (
        "mbt/lua_wrapper.xml",
        "error: script `onEnter` of `LuaWrapper` calls `StartParticleEffect`, but scripts have no function calls",
    ),
];

#[test]
fn mbt_lua_examples_are_refused_with_their_script_errors() {
    for (file, error) in MBT_LUA {
        tb_trees(&["check", "--stub-unknown", file])
            .code(1)
            .err_has(error)
            .err_has(&format!("--> {file}:1:"));
    }
}

/// The MBT examples that load (all but [`MBT_LUA`]'s), as paths relative
/// to `tests/trees`.
fn mbt_examples() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(trees().join("mbt"))
        .expect("tests/trees/mbt")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".xml"))
        .map(|n| format!("mbt/{n}"))
        .filter(|f| MBT_LUA.iter().all(|(lua, _)| lua != f))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "the MBT examples are there: {files:?}");
    files
}

/// Every `error:` / `warning:` headline of a rendered report, with the
/// `-->` location and the `= node:` line that follow it.
fn headlines(stderr: &str) -> Vec<(String, Option<String>, Option<String>)> {
    let mut out: Vec<(String, Option<String>, Option<String>)> = Vec::new();
    for line in stderr.lines() {
        if line.starts_with("error: ") || line.starts_with("warning: ") {
            out.push((line.to_owned(), None, None));
        } else if let Some(last) = out.last_mut() {
            let t = line.trim_start();
            if let Some(at) = t.strip_prefix("--> ") {
                last.1.get_or_insert_with(|| at.to_owned());
            } else if let Some(node) = t.strip_prefix("= node: ") {
                last.2.get_or_insert_with(|| node.to_owned());
            }
        }
    }
    out
}

/// A headline as expected.
fn headline(title: &str, at: &str, node: &str) -> (String, Option<String>, Option<String>) {
    (
        title.to_owned(),
        (!at.is_empty()).then(|| at.to_owned()),
        (!node.is_empty()).then(|| node.to_owned()),
    )
}

/// One item of a disassembly: offset, depth, kind, the rest of the line.
#[derive(Debug)]
struct Item {
    offset: usize,
    depth: usize,
    kind: String,
    rest: String,
}

/// The items of `treebeard disasm` output, checked to be numbered from 0.
fn items(disasm: &str) -> Vec<Item> {
    let mut lines = disasm.lines();
    let header = lines.next().expect("a header line");
    for column in ["off", "item", "kind", "end", "payload", "node"] {
        assert!(header.contains(column), "header {header:?} lacks {column}");
    }
    let mut out = Vec::new();
    for line in lines {
        if line.starts_with("capacity:") {
            break;
        }
        let mut words = line.split_whitespace();
        let offset: usize = words
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("an offset: {line:?}"));
        let item = words.next().unwrap_or("");
        assert!(
            item.starts_with("0x") && item.len() == 18,
            "a 64-bit item in hex: {line:?}"
        );
        let after = &line[line.find(item).expect("the item") + item.len()..];
        let mut body = after.trim_start();
        let mut depth = 0;
        while let Some(rest) = body.strip_prefix(". ") {
            depth += 1;
            body = rest;
        }
        let kind = body.split_whitespace().next().unwrap_or("").to_owned();
        assert_eq!(offset, out.len(), "items are numbered in order: {line:?}");
        out.push(Item {
            offset,
            depth,
            kind,
            rest: body.to_owned(),
        });
    }
    assert!(
        disasm.lines().any(|l| l.starts_with("capacity:")),
        "a capacity line:\n{disasm}"
    );
    out
}

/// The parent-to-child edges of a disassembly, from its depths.
fn tree_edges(items: &[Item]) -> BTreeSet<(usize, usize)> {
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut edges = BTreeSet::new();
    for item in items {
        while stack.last().is_some_and(|&(_, d)| d >= item.depth) {
            stack.pop();
        }
        if let Some(&(parent, d)) = stack.last() {
            assert_eq!(d + 1, item.depth, "depth grows by one: {item:?}");
            edges.insert((parent, item.offset));
        } else {
            assert_eq!(item.offset, 0, "only the root has no parent");
        }
        stack.push((item.offset, item.depth));
    }
    edges
}

/// The nodes and edges of a Graphviz digraph, checked to be well formed.
fn digraph(dot: &str) -> (BTreeSet<usize>, Vec<(usize, usize)>) {
    let lines: Vec<&str> = dot.lines().collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.starts_with("digraph \"") && l.ends_with("\" {")),
        "a quoted digraph:\n{dot}"
    );
    assert_eq!(lines.last().copied(), Some("}"), "closed:\n{dot}");
    assert!(dot.ends_with("}\n"));
    let mut nodes = BTreeSet::new();
    let mut edges = Vec::new();
    for line in &lines[1..lines.len() - 1] {
        let l = line.trim();
        assert!(l.ends_with(';'), "statements end with `;`: {line:?}");
        if l.starts_with("node [") || l.starts_with("edge [") {
            continue;
        }
        let id = |s: &str| -> usize {
            s.trim()
                .strip_prefix('n')
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("a node id: {s:?} in {line:?}"))
        };
        if let Some((from, to)) = l.trim_end_matches(';').split_once(" -> ") {
            edges.push((id(from), id(to)));
        } else {
            let (name, attrs) = l
                .split_once(" [")
                .unwrap_or_else(|| panic!("a node: {line:?}"));
            assert!(attrs.starts_with("label=\""), "labelled: {line:?}");
            assert!(attrs.ends_with("];"), "attributes closed: {line:?}");
            // Quotes inside labels are escaped: the unescaped ones pair up.
            let unescaped = attrs.replace("\\\\", "").replace("\\\"", "");
            assert_eq!(
                unescaped.matches('"').count() % 2,
                0,
                "quotes pair up: {line:?}"
            );
            assert!(nodes.insert(id(name)), "one statement per node: {line:?}");
        }
    }
    for &(a, b) in &edges {
        assert!(
            nodes.contains(&a) && nodes.contains(&b),
            "edge n{a} -> n{b} joins drawn nodes"
        );
    }
    (nodes, edges)
}

const EXIT_CODES: &str = "Exit codes:
  0  success: the files are valid, the scenarios pass
  1  a tree has errors, or a scenario's expectation is not met
  2  bad usage, or a file cannot be read";

// ---------------------------------------------------------------------------
// Help and usage
// ---------------------------------------------------------------------------

#[test]
fn help_lists_the_commands_and_the_exit_codes() {
    for flag in ["--help", "-h"] {
        let out = tb(&[flag]);
        out.code(0)
            .out_has("Usage: treebeard [OPTIONS] <COMMAND>")
            .out_has(EXIT_CODES);
        for command in ["check", "disasm", "dot", "svg", "compile", "nodes", "run"] {
            out.out_has(&format!("\n  {command} "));
        }
        out.out_has("--color <COLOR>");
    }
    let out = tb(&["help"]);
    out.code(0).out_has(EXIT_CODES);
}

#[test]
fn every_subcommand_has_help_with_the_exit_codes() {
    for (command, usage, options) in [
        (
            "check",
            "Usage: treebeard check [OPTIONS] <FILES>...",
            &["--stub-unknown", "--main <MAIN>"][..],
        ),
        (
            "disasm",
            "Usage: treebeard disasm [OPTIONS] <FILE>",
            &["--stub-unknown", "--main <MAIN>"][..],
        ),
        (
            "dot",
            "Usage: treebeard dot [OPTIONS] <FILE>",
            &["--stub-unknown", "--main <MAIN>"][..],
        ),
        (
            "svg",
            "Usage: treebeard svg [OPTIONS] <FILE>",
            &["--stub-unknown", "--main <MAIN>", "--output <FILE>"][..],
        ),
        (
            "compile",
            "Usage: treebeard compile [OPTIONS] <FILE>",
            &[
                "--stub-unknown",
                "--rust <OUT.rs>",
                "--name <NAME>",
                "--strict",
            ][..],
        ),
        (
            "run",
            "Usage: treebeard run [OPTIONS] <SCENARIOS>...",
            &["--trace <TRACE>", "--stub-unknown"][..],
        ),
    ] {
        for args in [vec![command, "--help"], vec!["help", command]] {
            let out = tb(&args);
            out.code(0)
                .out_has(usage)
                .out_has(EXIT_CODES)
                .out_has("--color <COLOR>");
            for option in options {
                out.out_has(option);
            }
        }
    }
    tb(&["nodes", "--help"])
        .code(0)
        .out_has("Usage: treebeard nodes [OPTIONS]")
        .out_has("--json");
}

#[test]
fn nodes_help_shows_the_exit_codes() {
    tb(&["nodes", "--help"]).code(0).out_has(EXIT_CODES);
}

#[test]
fn the_version_is_printed() {
    let out = tb(&["--version"]);
    out.code(0);
    assert_eq!(
        out.stdout.trim(),
        format!("treebeard {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn bad_usage_exits_2() {
    tb(&[])
        .code(2)
        .err_has("Usage: treebeard [OPTIONS] <COMMAND>");
    tb(&["check"])
        .code(2)
        .err_has("the following required arguments were not provided")
        .err_has("<FILES>...");
    tb(&["run"]).code(2).err_has("<SCENARIOS>...");
    tb(&["disasm"]).code(2).err_has("<FILE>");
    tb(&["frobnicate"])
        .code(2)
        .err_has("unrecognized subcommand 'frobnicate'");
    tb(&["check", "--no-such-flag", "good.json"])
        .code(2)
        .err_has("unexpected argument '--no-such-flag'");
    raw_in(&data(), &["--color", "sometimes", "check", "good.json"])
        .code(2)
        .err_has("invalid value 'sometimes'");
}

#[test]
fn color_is_asked_for_or_refused() {
    let plain = tb(&["check", "broken_btcpp.xml"]);
    plain.code(1);
    assert!(
        !plain.stderr.contains('\x1b'),
        "no colour with --color never"
    );
    let coloured = raw_in(&data(), &["--color", "always", "check", "broken_btcpp.xml"]);
    coloured.code(1).err_has("\x1b[1;31merror\x1b[0m");
    // Not a terminal: no colour by default.
    let auto = raw_in(&data(), &["check", "broken_btcpp.xml"]);
    auto.code(1);
    assert!(!auto.stderr.contains('\x1b'), "no colour into a pipe");
    // The global flag goes after the subcommand too.
    let after = raw_in(&data(), &["check", "--color", "always", "broken_btcpp.xml"]);
    after.code(1).err_has("\x1b[");
}

// ---------------------------------------------------------------------------
// check: every problem of a file at once
// ---------------------------------------------------------------------------

#[test]
fn check_reports_all_four_problems_of_a_json_file() {
    let out = tb(&["check", "broken.json"]);
    out.code(1);
    assert_eq!(out.stdout, "", "diagnostics go to stderr");
    assert_eq!(
        headlines(&out.stderr),
        [
            headline(
                "error: unknown node type `Wiat`",
                "broken.json:6:18",
                "guard/fight[0]/Wiat[0] (Wiat) in tree `guard`"
            ),
            headline(
                "error: no tree is named `atack`",
                "broken.json:7:18",
                "guard/fight[0]/atack[1] (SubTree) in tree `guard`"
            ),
            headline(
                "error: parameter `ticks` of `WaitTicks`: expected input int, found \"long\"",
                "broken.json:9:49",
                "guard/WaitTicks[1] (WaitTicks) in tree `guard`"
            ),
            headline(
                "error: expected `,` or `}`",
                "broken.json:10:26",
                "guard/Succeed[2] (Succeed) in tree `guard`"
            ),
        ]
    );
    out.err_has("= help: did you mean `Wait`?")
        .err_has("= help: did you mean `attack`?")
        .err_has("= help: this is not valid JSON")
        .err_has(
            "\
6 |         {\"type\": \"Wiat\", \"params\": {\"ticks\": 2}},
  |                  ^^^^^^
",
        )
        .err_has(
            "\
10 |       {\"type\": \"Succeed\" \"name\": \"done\"}
   |                          ^^^^^^
",
        );
    assert!(out.stderr.ends_with("4 errors\n"), "{}", out.both());
}

#[test]
fn check_reports_all_four_problems_of_a_ron_file() {
    let out = tb(&["check", "broken.ron"]);
    out.code(1);
    assert_eq!(
        headlines(&out.stderr),
        [
            headline(
                "error: unknown node type `Wiat`",
                "broken.ron:7:24",
                "guard/fight[0]/Wiat[0] (Wiat) in tree `guard`"
            ),
            headline(
                "error: no tree is named `atack`",
                "broken.ron:8:24",
                "guard/fight[0]/atack[1] (SubTree) in tree `guard`"
            ),
            headline(
                "error: parameter `ticks` of `WaitTicks`: expected input int, found \"long\"",
                "broken.ron:10:51",
                "guard/WaitTicks[1] (WaitTicks) in tree `guard`"
            ),
            headline(
                "error: Expected comma",
                "broken.ron:11:30",
                "guard/Succeed[2] (Succeed) in tree `guard`"
            ),
        ]
    );
    out.err_has("= help: this is not valid RON");
    assert!(out.stderr.ends_with("4 errors\n"), "{}", out.both());
}

#[test]
fn check_reports_an_unknown_node_and_bad_attributes_of_an_mbt_file() {
    let out = tb(&["check", "broken_mbt.xml"]);
    out.code(1);
    assert_eq!(
        headlines(&out.stderr),
        [
            headline(
                "error: unknown node type `Succed`",
                "broken_mbt.xml:4:8",
                "broken_mbt/Succed[0] (Succed) in tree `broken_mbt`"
            ),
            headline(
                "error: parameter `percent` of `Chance`: expected int, found \"lots\"",
                "broken_mbt.xml:5:24",
                "broken_mbt/Chance[1] (Chance) in tree `broken_mbt`"
            ),
            headline(
                "error: `Statuses` needs parameter `statuses` (string), which is not given",
                "broken_mbt.xml:6:8",
                "broken_mbt/Statuses[2] (Statuses) in tree `broken_mbt`"
            ),
            headline(
                "error: `Statuses` has no parameter `statuse`",
                "broken_mbt.xml:6:17",
                "broken_mbt/Statuses[2] (Statuses) in tree `broken_mbt`"
            ),
        ]
    );
    out.err_has("= help: did you mean `Succeed`?")
        .err_has("= help: did you mean `statuses`?");
    assert!(out.stderr.ends_with("4 errors\n"), "{}", out.both());
}

#[test]
fn check_reports_an_unknown_node_and_bad_attributes_of_a_btcpp_file() {
    let out = tb(&["check", "broken_btcpp.xml"]);
    out.code(1);
    assert_eq!(
        headlines(&out.stderr),
        [
            headline(
                "error: unknown node type `Wiat`",
                "broken_btcpp.xml:4:8",
                "steps/Wiat[0] (Wiat) in tree `Main`"
            ),
            headline(
                "error: `WaitTicks` needs parameter `ticks` (input int), which is not given",
                "broken_btcpp.xml:5:8",
                "steps/WaitTicks[1] (WaitTicks) in tree `Main`"
            ),
            headline(
                "error: `WaitTicks` has no parameter `tick`",
                "broken_btcpp.xml:5:18",
                "steps/WaitTicks[1] (WaitTicks) in tree `Main`"
            ),
            headline(
                "error: parameter `percent` of `Chance`: expected int, found \"lots\"",
                "broken_btcpp.xml:6:24",
                "steps/Chance[2] (Chance) in tree `Main`"
            ),
        ]
    );
    out.err_has("= help: did you mean `Wait`?")
        .err_has("= help: did you mean `ticks`?");
}

#[test]
fn an_unknown_attribute_is_located_at_its_name() {
    let out = tb(&["check", "broken_btcpp.xml"]);
    let seen = headlines(&out.stderr);
    let unknown = seen
        .iter()
        .find(|h| h.0 == "error: `WaitTicks` has no parameter `tick`")
        .expect("the unknown parameter is reported");
    assert_eq!(unknown.1.as_deref(), Some("broken_btcpp.xml:5:18"));
    out.err_has(
        "\
5 |       <WaitTicks tick=\"2\"/>
  |                  ^^^^
",
    );
}

#[test]
fn check_of_a_good_file_prints_ok() {
    let out = tb(&["check", "good.json"]);
    out.code(0);
    assert_eq!(out.stderr, "good.json: ok, 3 nodes\n");
    assert_eq!(out.stdout, "");
}

#[test]
fn check_of_several_files_reports_each_and_exits_1() {
    let out = tb(&["check", "good.json", "broken.json", "broken_btcpp.xml"]);
    out.code(1)
        .err_has("good.json: ok, 3 nodes\n")
        .err_has(" --> broken.json:6:18\n")
        .err_has(" --> broken_btcpp.xml:4:8\n");
    // In the order given, each file's report with its own summary.
    let good = out.stderr.find("good.json: ok").expect("good");
    let json = out.stderr.find("broken.json:6:18").expect("json");
    let xml = out.stderr.find("broken_btcpp.xml:4:8").expect("xml");
    assert!(good < json && json < xml, "{}", out.both());
    assert_eq!(
        out.stderr.matches("\n4 errors\n").count(),
        2,
        "{}",
        out.both()
    );
    // The order does not change the exit code.
    tb(&["check", "broken.json", "good.json"]).code(1);
}

#[test]
fn check_of_a_missing_file_exits_2() {
    let out = tb(&["check", "missing.json"]);
    out.code(2)
        .err_has("error: cannot read `missing.json`: ")
        .err_lacks("ok,");
    // A missing file among others still exits 2, and the others are checked.
    tb(&["check", "missing.json", "broken.json", "good.json"])
        .code(2)
        .err_has("broken.json:6:18")
        .err_has("good.json: ok, 3 nodes");
    tb(&["check", "broken.json", "missing.json"]).code(2);
}

#[test]
fn check_of_a_file_that_is_no_tree_file_exits_1() {
    tb(&["check", "notes.txt"])
        .code(1)
        .err_has("error: `notes.txt` is not a tree file treebeard reads")
        .err_has("= help: tree files are .json, .ron or .xml (MBT or BehaviorTree.CPP v4)");
}

// ---------------------------------------------------------------------------
// check: the seed's MBT and BehaviorTree.CPP examples
// ---------------------------------------------------------------------------

/// What `check --stub-unknown` warns is stubbed in each MBT example.
const MBT_STUBBED: &[(&str, &[&str])] = &[
    (
        "mbt/limit_concurrent_users.xml",
        &["`ChasePlayer` is not a registered leaf: stubbed, it keeps running"],
    ),
    (
        "mbt/logging.xml",
        &["`QueryTPS` is not a registered leaf: stubbed, it keeps running"],
    ),
];

#[test]
fn check_stub_unknown_accepts_every_mbt_example_with_warnings() {
    for file in mbt_examples() {
        let out = tb_trees(&["check", "--stub-unknown", &file]);
        out.code(0)
            .err_has(&format!("{file}: ok, "))
            .err_lacks("error:");
        if let Some((_, warnings)) = MBT_STUBBED.iter().find(|(f, _)| *f == file) {
            for w in *warnings {
                out.err_has(&format!("warning: {w}"));
            }
            // Each warning is located in the file.
            for (title, at, _) in headlines(&out.stderr) {
                let at = at.unwrap_or_else(|| panic!("{title} has a place"));
                assert!(at.starts_with(&format!("{file}:")), "{at}");
            }
        }
    }
}

#[test]
fn check_stub_unknown_accepts_the_btcpp_herd() {
    let out = tb_trees(&["check", "--stub-unknown", "btcpp/herd.xml"]);
    out.code(0).err_lacks("error:");
    assert!(
        out.stderr.ends_with("btcpp/herd.xml: ok, 21 nodes\n"),
        "{}",
        out.both()
    );
}

#[test]
fn check_stub_unknown_warns_about_every_stubbed_leaf() {
    tb_trees(&["check", "--stub-unknown", "mbt/soldier.xml"])
        .code(0)
        .err_has("warning:")
        .err_has("`IsTargetVisible`")
        .err_has("`Shoot`");
    tb_trees(&["check", "--stub-unknown", "btcpp/herd.xml"])
        .code(0)
        .err_has("`PredatorNear`")
        .err_has("`WatchForPredators`");
}

#[test]
fn check_without_stubs_names_the_unknown_leaves_of_every_mbt_example() {
    for file in mbt_examples() {
        let out = tb_trees(&["check", &file]);
        out.code(1).err_has("error: ").err_lacks(": ok,");
        for (title, at, _) in headlines(&out.stderr) {
            if title.starts_with("error: ") {
                assert!(
                    at.is_some_and(|a| a.starts_with(&file)),
                    "{title} is located in {file}"
                );
            }
        }
    }
    let out = tb_trees(&["check", "mbt/soldier.xml"]);
    out.code(1);
    let seen = headlines(&out.stderr);
    assert_eq!(
        seen,
        [
            headline(
                "error: unknown node type `IsTargetVisible`",
                "mbt/soldier.xml:5:10",
                "soldier/Sequence[0]/IsTargetVisible[0] (IsTargetVisible) in tree `soldier`"
            ),
            headline(
                "error: unknown node type `Shoot`",
                "mbt/soldier.xml:7:12",
                "soldier/Sequence[0]/Concurrent[1]/Shoot[0] (Shoot) in tree `soldier`"
            ),
            headline(
                "error: unknown node type `AdjustCoverStance`",
                "mbt/soldier.xml:8:12",
                "soldier/Sequence[0]/Concurrent[1]/AdjustCoverStance[1] (AdjustCoverStance) in tree `soldier`"
            ),
            headline(
                "error: unknown node type `Move`",
                "mbt/soldier.xml:12:10",
                "soldier/Concurrent[1]/Move[0] (Move) in tree `soldier`"
            ),
            headline(
                "error: unknown node type `Communicate`",
                "mbt/soldier.xml:13:10",
                "soldier/Concurrent[1]/Communicate[1] (Communicate) in tree `soldier`"
            ),
            headline(
                "error: unknown node type `Animate`",
                "mbt/soldier.xml:15:8",
                "soldier/Animate[2] (Animate) in tree `soldier`"
            ),
        ]
    );
    out.err_has("= help: register a leaf named `Shoot`, or pass --stub-unknown to stub it")
        .err_has("6 errors\n");
    // LimitConcurrentUsers is seed 001's Gate: only the game's leaves are
    // unknown.
    tb_trees(&["check", "mbt/limit_concurrent_users.xml"])
        .code(1)
        .err_has("error: unknown node type `ChasePlayer`")
        .err_has("limit_concurrent_users/Gate[0]/ChasePlayer[0] (ChasePlayer)")
        .err_has("error: unknown node type `TauntPlayer`")
        .err_lacks("not supported");
}

#[test]
fn check_without_stubs_names_the_unknown_leaves_of_the_btcpp_herd() {
    let out = tb_trees(&["check", "btcpp/herd.xml"]);
    out.code(1);
    let unknown: Vec<String> = headlines(&out.stderr)
        .into_iter()
        .filter_map(|(t, ..)| {
            t.strip_prefix("error: unknown node type ")
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(
        unknown,
        [
            "`PredatorNear`",
            "`NearHerd`",
            "`RunFrom`",
            "`Bleat`",
            "`FindHerdCenter`",
            "`MoveTo`",
            "`IsHungry`",
            "`FindGrass`",
            "`MoveTo`",
            "`Eat`",
            "`WatchForPredators`",
        ]
    );
    let seen = headlines(&out.stderr);
    // Leaves of sub-trees are named by their path through the use, with
    // the sub-tree they are written in; included files keep their name.
    assert!(seen.contains(&headline(
        "error: unknown node type `RunFrom`",
        "btcpp/herd.xml:26:19",
        "alert/threatened[0]/run_away[1]/RunFrom[0] (RunFrom) in tree `Flee`"
    )));
    assert!(seen.contains(&headline(
        "error: unknown node type `Eat`",
        "btcpp/grazing.xml:9:10",
        "alert/Selector[1]/Graze[1]/Concurrent[3]/Eat[0] (Eat) in tree `Graze`"
    )));
    out.err_has("11 errors\n");
}

// ---------------------------------------------------------------------------
// disasm
// ---------------------------------------------------------------------------

#[test]
fn disasm_of_the_mbt_soldier() {
    let out = tb_trees(&["disasm", "--stub-unknown", "mbt/soldier.xml"]);
    out.code(0);
    // One warning per stubbed game leaf, the disassembly on stdout.
    assert_eq!(
        out.stderr
            .matches("is not a registered leaf: stubbed")
            .count(),
        6
    );
    assert!(out.stderr.ends_with("6 warnings\n"), "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "  off  item                kind                      end  payload                         node"
    );
    for line in [
        "    0  0x0000000000000a06  Selector                   10                                  soldier (id 0)  mbt/soldier.xml:3:6",
        "    1  0x0000000000000600  . Sequence                  6                                  Sequence (id 1)  mbt/soldier.xml:4:8",
        "    2  0x0000000000000004  . . Action                     IsTargetVisible                 IsTargetVisible (id 2)  mbt/soldier.xml:5:10",
        "    3  0x0002000100000602  . . Concurrent              6  succeed_at=1 fail_at=2          Concurrent (id 3)  mbt/soldier.xml:6:10",
        "    4  0x0200000000010004  . . . Action                   Shoot(target=\"Target\", burst=\"3\")  Shoot (id 4)  mbt/soldier.xml:7:12",
        "    6  0x0001000200000902  . Concurrent                9  succeed_at=2 fail_at=1          Concurrent (id 6)  mbt/soldier.xml:11:8",
        "    9  0x0100000600050004  . Action                       Animate(name=\"LookAround\")      Animate (id 9)  mbt/soldier.xml:15:8",
    ] {
        assert!(lines.contains(&line), "no line {line:?} in\n{}", out.stdout);
    }
    let items = items(&out.stdout);
    assert_eq!(items.len(), 10);
    let kinds: Vec<&str> = items.iter().map(|i| i.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "Selector",
            "Sequence",
            "Action",
            "Concurrent",
            "Action",
            "Action",
            "Concurrent",
            "Action",
            "Action",
            "Action"
        ]
    );
    assert!(
        out.stdout.trim_end().ends_with(
            "capacity: guard depth 3, decider states 4, action states 2 (0 deferred), persistent 0"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn disasm_of_every_mbt_example_locates_every_item() {
    for file in mbt_examples() {
        let check = tb_trees(&["check", "--stub-unknown", &file]);
        check.code(0);
        let nodes: usize = check
            .stderr
            .rsplit_once(": ok, ")
            .and_then(|(_, n)| n.trim().strip_suffix(" nodes"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a node count: {}", check.both()));
        let out = tb_trees(&["disasm", "--stub-unknown", &file]);
        out.code(0);
        let items = items(&out.stdout);
        assert_eq!(items.len(), nodes, "{file}: one item per node");
        for item in &items {
            assert!(
                item.rest
                    .contains(&format!(" (id {})  {file}:", item.offset)),
                "{file}: item {} has its id and place: {:?}",
                item.offset,
                item.rest
            );
        }
        // Each decider's sub-stream ends after its last descendant.
        let edges = tree_edges(&items);
        for item in items
            .iter()
            .filter(|i| edges.iter().any(|&(p, _)| p == i.offset))
        {
            let end: usize = item
                .rest
                .split_whitespace()
                .nth(1)
                .and_then(|e| e.parse().ok())
                .unwrap_or_else(|| panic!("{file}: an end: {item:?}"));
            let last = items[item.offset + 1..]
                .iter()
                .take_while(|i| i.depth > item.depth)
                .last()
                .map_or(item.offset, |i| i.offset);
            assert_eq!(end, last + 1, "{file}: the end of {item:?}");
        }
    }
}

#[test]
fn disasm_of_the_btcpp_herd_inlines_the_sub_trees() {
    let out = tb_trees(&["disasm", "--stub-unknown", "btcpp/herd.xml"]);
    out.code(0);
    // An inlined sub-tree's nodes keep where the sub-tree writes them
    // (`run_away` on line 25, its leaves on line 26), in the included file
    // if it is there (grazing.xml).
    for line in [
        "    0  0x0000000000001501  PrioritySelector           21                                  alert (id 0)  btcpp/herd.xml:7:6",
        "    1  0x000000000000060a  . ReactiveSequence          6                                  threatened (id 1)  btcpp/herd.xml:8:8",
        "    3  0x0002000100000602  . . Concurrent              6  succeed_at=1 fail_at=2          run_away (id 3)  btcpp/herd.xml:25:6",
        "    4  0x0200000200010004  . . . Action                   RunFrom(target=\"{predator}\", gait=\"sprint\")  RunFrom (id 4)  btcpp/herd.xml:26:19",
        "    8  0x0000000000000a07  . . . Inverter             10                                  Inverter (id 8)  btcpp/herd.xml:14:12",
        "   13  0x0000000000001500  . . Sequence               21                                  Graze (id 13)  btcpp/grazing.xml:4:6",
        "   20  0x0000001100090004  . . . . . Action               WatchForPredators               WatchForPredators (id 20)  btcpp/grazing.xml:11:12",
    ] {
        assert!(
            out.stdout.lines().any(|l| l == line),
            "no line {line:?} in\n{}",
            out.stdout
        );
    }
    assert_eq!(items(&out.stdout).len(), 21);
}

#[test]
fn disasm_main_picks_a_sub_tree() {
    let out = tb_trees(&[
        "disasm",
        "--stub-unknown",
        "--main",
        "Flee",
        "btcpp/herd.xml",
    ]);
    out.code(0);
    let items = items(&out.stdout);
    assert_eq!(items.len(), 3, "{}", out.stdout);
    for line in [
        "    0  0x0002000100000302  Concurrent                  3  succeed_at=1 fail_at=2          Flee (id 0)  btcpp/herd.xml:25:6",
        "    1  0x0200000000000004  . Action                       RunFrom(target=\"{threat}\", gait=\"{gait}\")  RunFrom (id 1)  btcpp/herd.xml:26:19",
        "    2  0x0100000200010004  . Action                       Bleat(loudness=\"0.9\")           Bleat (id 2)  btcpp/herd.xml:27:8",
    ] {
        assert!(
            out.stdout.lines().any(|l| l == line),
            "no line {line:?} in\n{}",
            out.stdout
        );
    }
    let regroup = tb_trees(&[
        "disasm",
        "--stub-unknown",
        "--main",
        "Regroup",
        "btcpp/herd.xml",
    ]);
    regroup
        .code(0)
        .out_has("Regroup (id 0)  btcpp/herd.xml:32:6");
    assert_eq!(crate::items(&regroup.stdout).len(), 3);
    // A tree of an included file.
    tb_trees(&[
        "disasm",
        "--stub-unknown",
        "--main",
        "Graze",
        "btcpp/herd.xml",
    ])
    .code(0)
    .out_has("Graze (id 0)  btcpp/grazing.xml:4:6");
}

#[test]
fn disasm_main_of_a_tree_that_does_not_exist_exits_1() {
    let out = tb_trees(&[
        "disasm",
        "--stub-unknown",
        "--main",
        "Flea",
        "btcpp/herd.xml",
    ]);
    out.code(1)
        .err_has("error: no tree is named `Flea`")
        .err_has("did you mean `Flee`?");
    assert_eq!(out.stdout, "");
}

#[test]
fn disasm_of_a_native_file() {
    let out = tb(&["disasm", "good.json"]);
    out.code(0);
    assert_eq!(
        out.stdout.lines().skip(1).take(3).collect::<Vec<_>>(),
        [
            "    0  0x0000000000000300  Sequence                    3                                  chores (id 0)  good.json:1:10",
            "    1  0x0100000000000004  . Action                       WaitTicks(ticks=2)              WaitTicks (id 1)  good.json:2:12",
            "    2  0x0200000200010004  . Action                       Set(key=\"done\", value=\"true\")   Set (id 2)  good.json:3:12",
        ]
    );
}

#[test]
fn disasm_output_ends_with_a_newline() {
    let out = tb(&["disasm", "good.json"]);
    out.code(0);
    assert!(out.stdout.ends_with("persistent 0\n"), "{:?}", out.stdout);
}

#[test]
fn disasm_of_a_bad_or_missing_file_fails() {
    let out = tb(&["disasm", "broken.json"]);
    out.code(1).err_has("broken.json:6:18");
    assert_eq!(out.stdout, "", "nothing to disassemble");
    tb(&["disasm", "missing.json"])
        .code(2)
        .err_has("cannot read `missing.json`");
    // Without stubs, the seed's trees do not load.
    tb_trees(&["disasm", "mbt/soldier.xml"])
        .code(1)
        .err_has("unknown node type `IsTargetVisible`");
}

// ---------------------------------------------------------------------------
// dot
// ---------------------------------------------------------------------------

/// Draws every MBT example and the BehaviorTree.CPP herd with `command`
/// (`dot` or `svg`), and hands `check` each file, its items (from
/// `disasm`) and the drawing.
fn draw_each(command: &str, check: impl Fn(&str, &[Item], &str)) {
    let mut files = mbt_examples();
    files.push("btcpp/herd.xml".to_owned());
    for file in &files {
        let disasm = tb_trees(&["disasm", "--stub-unknown", file]);
        disasm.code(0);
        let drawing = tb_trees(&[command, "--stub-unknown", file]);
        drawing.code(0);
        check(file, &items(&disasm.stdout), &drawing.stdout);
    }
}

#[test]
fn dot_draws_one_node_per_item_and_one_edge_per_child() {
    draw_each("dot", |file, items, dot| {
        let (nodes, edges) = digraph(dot);
        assert_eq!(
            nodes,
            (0..items.len()).collect::<BTreeSet<_>>(),
            "{file}: one node per item"
        );
        assert_eq!(edges.len(), items.len() - 1, "{file}: one edge per child");
        let want = tree_edges(items);
        let have: BTreeSet<(usize, usize)> = edges.iter().copied().collect();
        assert_eq!(have.len(), edges.len(), "{file}: no edge twice");
        assert_eq!(have, want, "{file}: edges from parent to child");
        // Children in order: each parent's edges are written left to right.
        for w in edges.windows(2) {
            if w[0].0 == w[1].0 {
                assert!(w[0].1 < w[1].1, "{file}: children in order");
            }
        }
    });
}

#[test]
fn svg_draws_one_box_per_item_and_one_edge_per_child() {
    draw_each("svg", |file, items, out| {
        assert!(
            out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{file}"
        );
        assert!(out.ends_with("</svg>\n"), "{file}");
        let boxes: Vec<usize> = out
            .match_indices("<g class=\"node\" id=\"n")
            .map(|(at, m)| {
                let rest = &out[at + m.len()..];
                rest[..rest.find('"').expect("an id")]
                    .parse()
                    .expect("an item")
            })
            .collect();
        assert_eq!(
            boxes,
            (0..items.len()).collect::<Vec<_>>(),
            "{file}: a box per item"
        );
        let edges = out.matches("<path d=").count();
        assert_eq!(edges, items.len() - 1, "{file}: one edge per child");
        // Well-formed XML, one node group per item.
        let doc = roxmltree::Document::parse(out).unwrap_or_else(|e| panic!("{file}: {e}"));
        let groups = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("node"))
            .count();
        assert_eq!(groups, items.len(), "{file}: parsed");
        // Every box's tooltip says where the node was written (some in the
        // files the tree includes).
        let tooltips = out.matches(".xml:").count();
        assert_eq!(tooltips, items.len(), "{file}: sources in the tooltips");
    });
}

#[test]
fn svg_writes_its_picture_to_a_file() {
    let dir = TempDir::new("svg");
    let path = dir.path("soldier.svg");
    let out = tb_trees(&[
        "svg",
        "--stub-unknown",
        "mbt/soldier.xml",
        "-o",
        path.to_str().unwrap(),
    ]);
    out.code(0);
    assert_eq!(out.stdout, "");
    let svg = std::fs::read_to_string(&path).expect("the picture");
    assert!(svg.contains("<title>soldier</title>"), "{svg}");
    // A file that cannot be written is a usage error, and says which.
    let bad = dir.path("no/such/dir/x.svg");
    let out = tb_trees(&[
        "svg",
        "--stub-unknown",
        "mbt/soldier.xml",
        "-o",
        bad.to_str().unwrap(),
    ]);
    out.code(2).err_has("cannot write");
}

#[test]
fn dot_of_the_soldier() {
    let out = tb_trees(&["dot", "--stub-unknown", "mbt/soldier.xml"]);
    out.code(0);
    assert!(
        out.stdout.starts_with("digraph \"soldier\" {\n"),
        "{}",
        out.stdout
    );
    for line in [
        "  n0 [label=\"? Selector\\nsoldier\", shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef7\"];",
        "  n0 -> n1;",
        "  n0 -> n6;",
        "  n0 -> n9;",
        "  n3 [label=\"⇉ Concurrent\\nsucceed_at=1 fail_at=2\", shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef7\"];",
        "  n4 [label=\"Shoot(target=\\\"Target\\\", burst=\\\"3\\\")\", shape=box, style=filled, fillcolor=\"#e3f4e1\"];",
    ] {
        assert!(
            out.stdout.lines().any(|l| l == line),
            "no line {line:?} in\n{}",
            out.stdout
        );
    }
    let main = tb_trees(&["dot", "--stub-unknown", "--main", "Flee", "btcpp/herd.xml"]);
    main.code(0);
    assert!(
        main.stdout.starts_with("digraph \"Flee\" {\n"),
        "{}",
        main.stdout
    );
    let (nodes, edges) = digraph(&main.stdout);
    assert_eq!((nodes.len(), edges.len()), (3, 2));
}

#[test]
fn dot_of_a_bad_or_missing_file_fails() {
    let out = tb(&["dot", "broken.ron"]);
    out.code(1).err_has("broken.ron:7:24");
    assert_eq!(out.stdout, "");
    tb(&["dot", "missing.ron"]).code(2);
}

// ---------------------------------------------------------------------------
// nodes
// ---------------------------------------------------------------------------

const DECIDERS: &[&str] = &[
    "Sequence",
    "PrioritySelector",
    "Concurrent",
    "Selector",
    "Inverter",
    "ForceSuccess",
    "ForceFailure",
    "ReactiveSequence",
    "Loop",
    "LoopUntilSuccess",
    "Timeout",
    "Wait",
    "Cooldown",
    "Scope",
    "Script",
    "ScriptGate",
    "AssertScript",
    "ScriptWrapper",
    "IfCondition",
    "AssertCondition",
    "IfTime",
    "WaitUntilTime",
    "WaitForEvent",
    "SendEvent",
    "StoredState",
    "Repeat",
    "Monitor",
    "Group",
    "Decider",
    "PostStimulus",
    "Gate",
    "GlobalCooldown",
    "Team",
    "Sync",
    "ChildTree",
    "AlwaysSuccess",
    "AlwaysFailure",
    "IfThenElse",
    "WhileDoElse",
    "SequenceWithMemory",
    "ParallelAll",
    "AsyncSequence",
    "AsyncSelector",
];

const LEAVES: &[(&str, &str)] = &[
    ("Chance", "Condition"),
    ("Condition", "Condition"),
    ("Deferred", "Deferred"),
    ("Fail", "Action"),
    ("Give", "Decide"),
    ("Holding", "Scope"),
    ("Running", "Action"),
    ("Score", "Decide"),
    ("Set", "Action"),
    ("Statuses", "Action"),
    ("Succeed", "Action"),
    ("Tally", "Action"),
    ("WaitEvent", "Action"),
    ("WaitTicks", "Action"),
    ("Write", "Action"),
];

#[test]
fn nodes_lists_every_decider_and_built_in_leaf() {
    let out = tb(&["nodes"]);
    out.code(0);
    assert_eq!(out.stderr, "");
    let text = &out.stdout;
    let (deciders, leaves) = text.split_once("\nLeaves:\n").expect("two sections");
    assert!(
        deciders.starts_with("Built-in nodes (children):\n"),
        "{text}"
    );
    for d in DECIDERS {
        assert!(
            deciders
                .lines()
                .any(|l| l.split_whitespace().next() == Some(d)),
            "decider {d} listed:\n{text}"
        );
    }
    assert_eq!(deciders.lines().count(), 1 + DECIDERS.len(), "{text}");
    for line in [
        "  Inverter           1 ",
        "  Sequence           1.. ",
        "  IfThenElse         2..3 Ticks its first child",
        "  Timeout            1    (seconds: duration) Runs its child",
        "  IfTime             1    (since: timestamp, seconds: duration, less_than: bool = false, or_never: bool = false) ",
        "  SendEvent          0    (event: event, to: input agent = -1) ",
        "  PostStimulus       0    (stimulus: stimulus, data: input int = 0) Posts its stimulus",
    ] {
        assert!(deciders.contains(line), "{line:?} in\n{text}");
    }
    let names: Vec<&str> = leaves
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        names,
        LEAVES.iter().map(|l| l.0).collect::<Vec<_>>(),
        "{text}"
    );
    for line in [
        "  WaitTicks  Action    (ticks: input int)  runs `ticks` ticks, then succeeds",
        "  Statuses   Action    (statuses: string) [persistent]  ",
        "  Deferred   Deferred  (label: string = \"\", ticks: int = -1, outcome: one of success|failure = \"success\")  ",
        "  Condition  Condition (test: string)  ",
    ] {
        assert!(leaves.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn nodes_json_has_the_expected_fields() {
    let out = tb(&["nodes", "--json"]);
    out.code(0);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("nodes --json is JSON");
    let deciders = doc["deciders"].as_array().expect("a list of deciders");
    let names: Vec<&str> = deciders
        .iter()
        .map(|d| d["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, DECIDERS);
    for d in deciders {
        let min = d["min_children"].as_u64().expect("min_children");
        let max = d["max_children"].as_u64().expect("max_children");
        assert!(min <= max, "{d}");
        assert!(!d["doc"].as_str().expect("doc").trim().is_empty(), "{d}");
    }
    let inverter = deciders
        .iter()
        .find(|d| d["name"] == "Inverter")
        .expect("Inverter");
    assert_eq!(
        (
            inverter["min_children"].as_u64(),
            inverter["max_children"].as_u64()
        ),
        (Some(1), Some(1))
    );
    let send = deciders
        .iter()
        .find(|d| d["name"] == "SendEvent")
        .expect("SendEvent");
    assert_eq!(
        send["params"],
        serde_json::json!([
            {"name": "event", "type": "event", "default": null},
            {"name": "to", "type": "input agent", "default": -1},
        ])
    );
    let post = deciders
        .iter()
        .find(|d| d["name"] == "PostStimulus")
        .expect("PostStimulus");
    assert_eq!(
        post["params"],
        serde_json::json!([
            {"name": "stimulus", "type": "stimulus", "default": null},
            {"name": "data", "type": "input int", "default": 0},
        ])
    );
    let leaves = doc["leaves"].as_array().expect("a list of leaves");
    let kinds: Vec<(&str, &str)> = leaves
        .iter()
        .map(|l| {
            (
                l["name"].as_str().expect("name"),
                l["kind"].as_str().expect("kind"),
            )
        })
        .collect();
    assert_eq!(kinds, LEAVES);
    for l in leaves {
        for field in ["persistent", "never_fails"] {
            assert!(l[field].is_boolean(), "{field} of {l}");
        }
        let memory = l["memory_words"].as_u64().expect("memory_words");
        assert_eq!(
            memory > 0,
            ["Give", "Tally"].contains(&l["name"].as_str().unwrap()),
            "{l}"
        );
        assert!(l["description"].is_string(), "{l}");
        for p in l["params"].as_array().expect("params") {
            assert!(p["name"].is_string() && p["type"].is_string(), "{p}");
            assert!(p["default"].is_null() || p["default"].is_string(), "{p}");
        }
    }
    let deferred = leaves
        .iter()
        .find(|l| l["name"] == "Deferred")
        .expect("Deferred");
    assert_eq!(
        deferred["params"],
        serde_json::json!([
            {"name": "label", "type": "string", "default": "\"\""},
            {"name": "ticks", "type": "int", "default": "-1"},
            {"name": "outcome", "type": "one of success|failure", "default": "\"success\""},
        ])
    );
    let script = leaves
        .iter()
        .find(|l| l["name"] == "Statuses")
        .expect("Statuses");
    assert_eq!(script["persistent"], true);
    let running = leaves
        .iter()
        .find(|l| l["name"] == "Running")
        .expect("Running");
    assert_eq!(running["never_fails"], true);
}

#[test]
fn nodes_docs_are_trimmed() {
    let out = tb(&["nodes", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    for d in doc["deciders"].as_array().expect("deciders") {
        let text = d["doc"].as_str().expect("doc");
        assert_eq!(text, text.trim(), "{}", d["name"]);
    }
}

#[test]
fn nodes_describes_the_wait_event_parameter() {
    let out = tb(&["nodes"]);
    assert!(!out.stdout.contains("one of )"), "{}", out.stdout);
    let out = tb(&["nodes", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    let wait_event = doc["leaves"]
        .as_array()
        .and_then(|l| l.iter().find(|l| l["name"] == "WaitEvent"))
        .expect("WaitEvent");
    assert_ne!(wait_event["params"][0]["type"], "one of ");
}

// ---------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------

#[test]
fn run_of_a_passing_scenario_prints_ok() {
    let out = tb(&["run", "pass.ron"]);
    out.code(0);
    assert_eq!(out.stderr, "pass.ron: ok, 3 ticks, 4 checks\n");
    assert_eq!(out.stdout, "");
}

#[test]
fn run_of_a_failing_scenario_prints_the_diff_at_the_expectation() {
    let out = tb(&["run", "fail.ron"]);
    out.code(1);
    assert_eq!(
        out.stderr,
        "\
error: tick 1, agent 0: running leaves is not as expected
  --> fail.ron:11:28
   |
11 |         (tick: 1, running: [\"Condition\"]),
   |                            ^^^^^^^^^^^^^
   expected (-) / actual (+):
   - guard/Condition
   + guard/WaitTicks
fail.ron: FAILED at tick 1
"
    );
}

#[test]
fn run_of_several_scenarios_reports_each() {
    let out = tb(&["run", "pass.ron", "fail.ron", "work.ron"]);
    out.code(1)
        .err_has("pass.ron: ok, 3 ticks, 4 checks\n")
        .err_has("fail.ron: FAILED at tick 1\n")
        .err_has("work.ron: ok, 4 ticks, 9 checks\n")
        .err_has("3 scenarios: 2 passed, 1 failed\n");
    // One that does not load is counted apart.
    let out = tb(&["run", "pass.ron", "nowhere.ron"]);
    out.code(2)
        .err_has("2 scenarios: 1 passed, 0 failed, 1 did not load\n");
}

#[test]
fn run_trace_writes_one_json_object_per_event() {
    let dir = TempDir::new("trace");
    let trace = dir.path("trace.jsonl");
    let out = tb(&[
        "run",
        "work.ron",
        "--trace",
        trace.to_str().expect("a UTF-8 path"),
    ]);
    out.code(0).err_has("work.ron: ok");
    let text = std::fs::read_to_string(&trace).expect("the trace was written");
    assert!(text.ends_with('\n'));
    let mut events = BTreeSet::new();
    let mut last_tick = 0;
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        // Keys in the documented order.
        let keys: Vec<usize> = [
            "\"scenario\":",
            "\"tick\":",
            "\"agent\":",
            "\"node\":",
            "\"event\":",
        ]
        .iter()
        .map(|k| line.find(k).unwrap_or_else(|| panic!("{k} in {line}")))
        .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "key order: {line}");
        assert!(
            line.starts_with("{\"scenario\":\"work\",\"tick\":") && line.ends_with('}'),
            "{line}"
        );
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON object per line");
        let object = v.as_object().expect("an object");
        assert_eq!(object.len(), 5, "{line}");
        let tick = v["tick"].as_u64().expect("tick");
        assert!(tick >= last_tick && tick < 4, "ticks in order: {line}");
        last_tick = tick;
        assert_eq!(v["agent"], 0);
        assert!(
            v["node"].as_str().is_some_and(|n| n.starts_with("guard")),
            "{line}"
        );
        let event = v["event"].as_str().expect("event").to_owned();
        assert!(
            [
                "start", "success", "failure", "cancel", "launch", "complete"
            ]
            .contains(&event.as_str()),
            "{line}"
        );
        events.insert(event);
    }
    // This scenario makes every kind of event.
    assert_eq!(events.len(), 6, "{events:?}");
    for line in [
        r#"{"scenario":"work","tick":0,"agent":0,"node":"guard","event":"start"}"#,
        r#"{"scenario":"work","tick":0,"agent":0,"node":"guard/alarmed","event":"failure"}"#,
        r#"{"scenario":"work","tick":0,"agent":0,"node":"guard/work/dig","event":"launch"}"#,
        r#"{"scenario":"work","tick":1,"agent":0,"node":"guard/work/dig","event":"complete"}"#,
        r#"{"scenario":"work","tick":2,"agent":0,"node":"guard/work/haul","event":"cancel"}"#,
    ] {
        assert!(lines.contains(&line), "no {line} in\n{text}");
    }
    // Every start is matched by one end.
    let starts = lines
        .iter()
        .filter(|l| l.ends_with(r#""event":"start"}"#))
        .count();
    let ends = lines
        .iter()
        .filter(|l| {
            ["success", "failure", "cancel"]
                .iter()
                .any(|e| l.ends_with(&format!(r#""event":"{e}"}}"#)))
        })
        .count();
    assert!(
        ends <= starts && starts - ends <= 3,
        "starts {starts}, ends {ends}"
    );
}

#[test]
fn run_trace_of_several_scenarios_holds_them_all() {
    let dir = TempDir::new("trace-several");
    let trace = dir.path("t.jsonl");
    tb(&[
        "run",
        "--trace",
        trace.to_str().expect("UTF-8"),
        "pass.ron",
        "work.ron",
    ])
    .code(0);
    let text = std::fs::read_to_string(&trace).expect("written");
    assert!(
        text.contains(r#""node":"guard/WaitTicks""#),
        "pass.ron's events"
    );
    assert!(
        text.contains(r#""node":"guard/work/dig""#),
        "work.ron's events"
    );
}

#[test]
fn run_fails_when_the_script_completes_an_action_that_is_not_running() {
    let out = tb(&["run", "stale.ron"]);
    out.code(1)
        .err_has(" --> stale.ron:9:9\n")
        .err_has("`job/dig`")
        .err_has("   - a launched deferred action\n")
        .err_has("   + it is not running\n")
        .err_has("stale.ron: FAILED at tick 0\n");
}

#[test]
fn a_stale_completion_has_a_clear_headline() {
    let out = tb(&["run", "stale.ron"]);
    let headline = out.stderr.lines().next().unwrap_or("");
    assert!(!headline.contains("is not as expected"), "{headline}");
    assert!(
        headline.contains("`job/dig`") && headline.contains("not running"),
        "{headline}"
    );
}

#[test]
fn run_of_a_scenario_with_format_errors_exits_1_with_located_diagnostics() {
    let out = tb(&["run", "mistakes.ron"]);
    out.code(1);
    let seen = headlines(&out.stderr);
    assert!(seen.contains(&headline(
        "error: a scenario has no field `agnets`",
        "mistakes.ron:5:5",
        ""
    )));
    assert!(seen.contains(&headline(
        "error: tick 5 is past the scenario's 3 ticks",
        "mistakes.ron:7:16",
        ""
    )));
    assert!(seen.contains(&headline(
        "error: `status` is \"success\", \"failure\" or \"running\"",
        "mistakes.ron:8:27",
        ""
    )));
    out.err_has("= help: did you mean `agents`?")
        .err_lacks("ok,")
        .err_lacks("FAILED");
    // Tree errors in a scenario are located too.
    let dir = TempDir::new("tree-errors");
    let scenario = dir.path("tree.ron");
    std::fs::write(
        &scenario,
        "(\n    tree: (type: \"Sequence\", children: [(type: \"Wiat\")]),\n    ticks: 1,\n)\n",
    )
    .expect("written");
    let out = run_in(dir.root(), &["run", "tree.ron"]);
    out.code(1)
        .err_has("error: unknown node type `Wiat`")
        .err_has(" --> tree.ron:2:48\n")
        .err_has("= node: tree/Wiat[0] (Wiat) in tree `tree`");
}

#[test]
fn run_of_a_missing_scenario_exits_2() {
    tb(&["run", "missing.ron"])
        .code(2)
        .err_has("error: cannot read `missing.ron`: ");
    // With others that pass or fail, still 2 (a file could not be read).
    tb(&["run", "fail.ron", "missing.ron"]).code(2);
}

#[test]
fn run_with_an_unwritable_trace_path_exits_2() {
    let dir = TempDir::new("unwritable");
    let nowhere = dir.path("no/such/dir/trace.jsonl");
    let out = tb(&[
        "run",
        "pass.ron",
        "--trace",
        nowhere.to_str().expect("UTF-8"),
    ]);
    out.code(2)
        .err_has("error: cannot write the trace to `")
        .err_has("trace.jsonl`: ")
        .err_lacks("pass.ron: ok");
    // A directory is no trace file either.
    let out = tb(&[
        "run",
        "pass.ron",
        "--trace",
        dir.root().to_str().expect("UTF-8"),
    ]);
    out.code(2).err_has("error: cannot write the trace to `");
}

#[test]
fn run_stub_unknown_stubs_leaves_of_a_tree_file() {
    let dir = TempDir::new("stub");
    std::fs::write(
        dir.path("t.json"),
        r#"{"type": "Sequence", "name": "s", "children": [{"type": "Shoot"}, {"type": "Succeed"}]}"#,
    )
    .expect("written");
    std::fs::write(
        dir.path("s.ron"),
        "(tree: \"t.json\", ticks: 1, expect: [(tick: 0, status: \"success\")])",
    )
    .expect("written");
    run_in(dir.root(), &["run", "s.ron"])
        .code(1)
        .err_has("unknown node type `Shoot`");
    // Stubbed, Shoot keeps running (the default), and the sequence waits
    // on it; told to succeed, it lets the sequence through.
    run_in(dir.root(), &["run", "--stub-unknown", "s.ron"])
        .code(1)
        .err_has("`Shoot` is not a registered leaf: stubbed, it keeps running")
        .err_has("root status is not as expected");
    run_in(
        dir.root(),
        &["run", "--stub-unknown", "--stub-status", "success", "s.ron"],
    )
    .code(0)
    .err_has("stubbed, it succeeds at once")
    .err_has("s.ron: ok, 1 ticks, 1 checks");
    // And a status without stubs is a usage error.
    run_in(dir.root(), &["run", "--stub-status", "failure", "s.ron"]).code(2);
}

/// Runs `treebeard --color never ARGS` in the repository's root.
fn tb_root(args: &[&str]) -> Out {
    run_in(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."),
        args,
    )
}

#[test]
fn run_prints_the_decision_trace_of_chosen_agents_at_a_level() {
    let scenario = "tests/scenarios/docs_example.ron";
    let out = tb_root(&["run", scenario, "--level", "1", "--agent", "1"]);
    assert_eq!(out.code, 0, "{}", out.both());
    out.out_has(
        "BT(1) agent 1 @ 0.000:     activating behavior `Walk` (Action) in `patrol` (Sequence)",
    )
    .out_has("BT(1) agent 1 @ 0.200:     activating behavior `MoveTo` (Deferred)");
    assert!(!out.stdout.contains("agent 0"), "{}", out.both());
    assert!(
        out.stdout.lines().all(|l| l.starts_with("BT(1) ")),
        "{}",
        out.both()
    );

    let out = tb_root(&["run", scenario, "--level", "5", "--agent", "0,1"]);
    assert_eq!(out.code, 0, "{}", out.both());
    out.out_has("BT(5) agent 0 @ 0.000:   `alarm` failed: Condition Condition(test=\"alarm\") at ")
        .out_has("BT(4) agent 1 @ 0.100: visiting `guard` (PrioritySelector), 2 children")
        .out_has(
            "BT(2) agent 0 @ 0.200: the root finished with success; the tree restarts next tick.",
        );
}

#[test]
fn run_prints_a_profile_and_the_agents_states() {
    let out = tb_root(&[
        "run",
        "tests/scenarios/docs_example.ron",
        "--profile",
        "--state",
    ]);
    assert_eq!(out.code, 0, "{}", out.both());
    out.out_has("8 agent-ticks")
        .out_has("time%")
        .out_has("guard/alarm (Condition) tests/scenarios/../trees/native/guard.json:5:16");
    // The alarm condition: visited on each of the 8 agent-ticks, failed 6
    // times, succeeded twice.
    let alarm = out
        .stdout
        .lines()
        .find(|l| l.contains("guard/alarm"))
        .expect("the condition's row");
    let columns: Vec<&str> = alarm.split_whitespace().collect();
    assert_eq!(&columns[2..7], ["8", columns[3], "2", "6", "0"], "{alarm}");
    out.out_has("agent 0 @ 0.300: idle")
        .out_has("agent 1 @ 0.300: idle");

    // Work running at the end: the active path, each node with how long
    // it has run (restarted on the third tick) and where it was written.
    let scenario = "tests/scenarios/deferred_cancel_request_when_abandoned.ron";
    let out = tb_root(&["run", scenario, "--state"]);
    assert_eq!(out.code, 0, "{}", out.both());
    out.out_has(&format!(
        "agent 0 @ 0.400:\n*0 root (PrioritySelector) 0.200s {scenario}:11:18\n  \
         *2 errands (Concurrent) 0.200s {scenario}:13:16\n    \
         *3 acked (Deferred) 0.200s {scenario}:14:20\n"
    ));
}

#[test]
fn run_refuses_bad_observing_arguments() {
    let scenario = "tests/scenarios/docs_example.ron";
    let out = tb_root(&["run", scenario, "--level", "6"]);
    assert_eq!(out.code, 2, "{}", out.both());
    out.err_has("6 is not in 0..=5");
    let out = tb_root(&["run", scenario, "--agent", "9", "--level", "1"]);
    assert_eq!(out.code, 2, "{}", out.both());
    out.err_has("error: `--agent 9`: the scenario has 2 agents, numbered 0 to 1");
    let out = tb_root(&["run", scenario, "--watch", "--profile"]);
    assert_eq!(out.code, 2, "{}", out.both());
    out.err_has("cannot be used with");
}

#[test]
fn run_prints_the_nodes_log_messages_as_they_happen() {
    let out = tb_root(&["run", "tests/scenarios/mbt_logging.ron", "--logs"]);
    assert_eq!(out.code, 0, "{}", out.both());
    let at = "tests/scenarios/../trees/mbt/logging.xml";
    let logged: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        logged,
        [
            format!("LOG agent 0 frame 0 logging/QueryTPS start: Finding cover ({at}:1:13)"),
            format!("LOG agent 0 frame 0 logging/Move start: Advancing ({at}:1:110)"),
            format!("LOG agent 0 frame 0 logging/Move success: Advanced ({at}:1:110)"),
        ],
        "{}",
        out.both()
    );
}

#[test]
fn svg_draws_an_agents_states_at_a_tick_of_a_recording() {
    let dir = TempDir::new("svg_recording");
    let rec = dir.path("run.tbrec");
    let rec_arg = rec.to_str().unwrap();
    let scenario = "tests/scenarios/deferred_cancel_request_when_abandoned.ron";
    let out = tb_root(&["run", scenario, "--record", rec_arg]);
    assert_eq!(out.code, 0, "{}", out.both());
    let recording =
        treebeard_vm::Recording::read_from(&std::fs::read(&rec).unwrap()).expect("a recording");
    let agent = treebeard_vm::AgentId(0);
    for tick in recording.ticks() {
        let t = tick.index().to_string();
        let out = tb_root(&["svg", rec_arg, "--agent", "0", "--tick", &t]);
        assert_eq!(out.code, 0, "{}", out.both());
        let doc = roxmltree::Document::parse(&out.stdout).expect("SVG");
        let drawn: Vec<(u32, String)> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("node"))
            .map(|n| {
                let node = n.attribute("data-node").unwrap().parse().unwrap();
                (node, n.attribute("data-state").unwrap().to_owned())
            })
            .filter(|(_, state)| state != "idle")
            .collect();
        let recorded: Vec<(u32, String)> = tick
            .states(agent)
            .map(|(node, state)| (node.get(), state.name().to_owned()))
            .collect();
        assert_eq!(drawn, recorded, "tick {t}");
        assert!(out.stdout.contains(&format!("agent 0 at tick {t} (")));
    }
    // The default: the last tick, the first agent.
    let last = tb_root(&["svg", rec_arg]);
    let four = tb_root(&["svg", rec_arg, "--agent", "0", "--tick", "4"]);
    assert_eq!(last.stdout, four.stdout);

    let out = tb_root(&["svg", rec_arg, "--tick", "99"]);
    assert_eq!(out.code, 2, "{}", out.both());
    out.err_has("`--tick 99`: ").err_has(" holds ticks 0 to 4");
    let out = tb_root(&["svg", rec_arg, "--agent", "3"]);
    assert_eq!(out.code, 2, "{}", out.both());
    out.err_has("`--agent 3`: tick 4 of ")
        .err_has(" holds agents 0 to 0 (1 in all)");
    let out = tb_root(&["svg", "tests/trees/native/guard.json", "--tick", "1"]);
    assert_eq!(out.code, 2, "{}", out.both());
    out.err_has("record one with `treebeard run --record FILE`");
}

#[test]
fn run_reports_lua_code_that_fails_where_it_was_written() {
    let dir = TempDir::new("lua-errors");
    std::fs::write(
        dir.path("bad.xml"),
        "<ExecuteLua code=\"DoSomethingElse()\" />\n",
    )
    .expect("written");
    std::fs::write(
        dir.path("bad.ron"),
        "(\n    tree: \"bad.xml\",\n    lua: true,\n    agents: 3,\n    ticks: 2,\n    \
         blackboard: {\"DoSomething\": 0},\n)\n",
    )
    .expect("written");
    // ExecuteLua succeeds however its code ends; the error is a warning at
    // the node, once per node and message, counting the calls.
    run_in(dir.root(), &["run", "bad.ron"])
        .code(0)
        .err_has(
            "warning: bad.xml:1:2: the Lua code of `bad` failed for agent 0: code:1: \
             attempt to call a nil value (global 'DoSomethingElse') (6 calls)\n",
        )
        .err_lacks("stack traceback");
}
