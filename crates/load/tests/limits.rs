//! The caps of `treebeard_load::limits`: files small enough to write by
//! hand that would otherwise overflow the stack, copy a sub-tree a billion
//! times, or take minutes; each is an error at the place that exceeds it.
//!
//! Loads run on a thread with 2 MiB of stack (Rust's default for spawned
//! threads, and less than a main thread's), in the unoptimised test build,
//! so a pass that recursed per level of untrusted depth would overflow.

use treebeard_load::limits::{
    MAX_COPIED_BYTES, MAX_DIAGNOSTICS, MAX_FILES, MAX_NAME, MAX_NESTING, MAX_NODES, MAX_STRING,
};
use treebeard_load::{Diagnostic, Load, LoadOptions, load_file, load_str};
use treebeard_shape::{Catalog, LeafSchema, MAX_PROBLEMS, ParamType};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("ok", LeafSchema::condition())
        .declare("Say", LeafSchema::action().param("text", ParamType::Str));
    c
}

/// Loads `text` as the file `name` on a thread with a 2 MiB stack.
fn load(name: &str, text: String) -> Load {
    let name = name.to_owned();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || load_str(&name, &text, &catalog(), &LoadOptions::default()))
        .expect("spawns")
        .join()
        .expect("the load does not panic or overflow its stack")
}

/// The load's only error.
fn only_error(load: &Load) -> &Diagnostic {
    let errors: Vec<&Diagnostic> = load.diagnostics.errors().collect();
    assert_eq!(
        errors.len(),
        1,
        "{}",
        load.diagnostics.render(&load.map, false)
    );
    errors[0]
}

/// A JSON file of `trees`, each `(name, root)`.
fn json(trees: &[(String, String)]) -> String {
    let trees: Vec<String> = trees
        .iter()
        .map(|(name, root)| format!(r#"{{"name": "{name}", "root": {root}}}"#))
        .collect();
    format!("{{\"trees\": [\n{}\n]}}", trees.join(",\n"))
}

fn use_tree(tree: &str) -> String {
    format!(r#"{{"type": "SubTree", "tree": "{tree}"}}"#)
}

/// `node` under `levels` sequences.
fn under_sequences(levels: usize, node: &str) -> String {
    let mut text = String::new();
    for _ in 0..levels {
        text.push_str(r#"{"type": "Sequence", "children": ["#);
    }
    text.push_str(node);
    text.push_str(&"]}".repeat(levels));
    text
}

/// Trees `t0` .. `t{levels}`: each uses the next twice, the last is `leaf`.
fn doubling(levels: usize, leaf: &str) -> String {
    let mut trees: Vec<(String, String)> = (0..levels)
        .map(|i| {
            let next = use_tree(&format!("t{}", i + 1));
            let root = format!(r#"{{"type": "Sequence", "children": [{next}, {next}]}}"#);
            (format!("t{i}"), root)
        })
        .collect();
    trees.push((format!("t{levels}"), leaf.to_owned()));
    json(&trees)
}

#[test]
fn sub_trees_that_double_at_each_level_stop_at_the_node_cap() {
    // 2^40 nodes if copied; the file is 3 KB.
    let load = load("doubling.json", doubling(40, r#"{"type": "ok"}"#));
    let d = only_error(&load);
    assert_eq!(
        d.message,
        format!("the tree has more than {MAX_NODES} nodes once its sub-trees are copied in")
    );
    assert_eq!(
        d.help.as_deref(),
        Some("every use of a sub-tree is a copy of it: use fewer or smaller sub-trees")
    );
    // At the node that went over, with its path through the copies.
    assert!(d.span.is_some() && d.path.as_deref().is_some_and(|p| p.starts_with("t0/")));
}

#[test]
fn a_tree_just_under_the_node_cap_loads() {
    // 2^16 leaves and 2^16 - 1 sequences.
    let levels = MAX_NODES.ilog2() as usize - 1;
    let load = load("doubling.json", doubling(levels, r#"{"type": "ok"}"#));
    let report = load.diagnostics.render(&load.map, false);
    let loaded = load
        .loaded
        .unwrap_or_else(|| panic!("{}", &report[..report.len().min(3000)]));
    assert_eq!(loaded.shape.len(), (1 << (levels + 1)) - 1);
}

#[test]
fn copied_text_is_capped_even_when_the_node_count_is_not() {
    // A 60 KiB parameter copied 2^11 times would be 120 MiB.
    let text = "a".repeat(60 << 10);
    let leaf = format!(r#"{{"type": "Say", "params": {{"text": "{text}"}}}}"#);
    let load = load("text.json", doubling(11, &leaf));
    let d = only_error(&load);
    assert_eq!(
        d.message,
        format!(
            "the tree's names, parameters and paths take more than {} MiB once its sub-trees \
             are copied in",
            MAX_COPIED_BYTES >> 20
        )
    );
}

#[test]
fn depth_added_by_sub_trees_is_capped() {
    // 40 trees nested 100 deep, each using the next: 4000 levels in all,
    // which a recursive resolver would follow until its stack overflowed.
    let levels = 40;
    let mut trees: Vec<(String, String)> = (0..levels)
        .map(|i| {
            let root = under_sequences(100, &use_tree(&format!("t{}", i + 1)));
            (format!("t{i}"), root)
        })
        .collect();
    trees.push((format!("t{levels}"), r#"{"type": "ok"}"#.into()));
    let load = load("deep.json", json(&trees));
    let d = only_error(&load);
    assert_eq!(
        d.message,
        format!("nodes nest deeper than {MAX_NESTING} levels once sub-trees are copied in")
    );
    // The first node too deep: in t10 (10 trees of 101 levels above it).
    assert_eq!(d.tree.as_deref(), Some("t10"));
    assert_eq!(
        d.path.as_deref().map(|p| p.matches('/').count()),
        Some(MAX_NESTING)
    );
}

#[test]
fn the_deepest_tree_loads_in_every_dialect() {
    // MAX_NESTING levels below the root, split across sub-trees in JSON.
    let half = under_sequences(MAX_NESTING / 2, &use_tree("lower"));
    let lower = under_sequences(MAX_NESTING / 2, r#"{"type": "ok"}"#);
    let deep_json = json(&[("upper".into(), half), ("lower".into(), lower)]);
    // RON files nest only as deep as the ron crate reads (about 26 levels).
    let ron_levels = 20;
    let deep_ron = format!(
        "(trees: [(name: \"deep\", root: {}(type: \"ok\"){})])",
        "(type: \"Sequence\", children: [".repeat(ron_levels),
        "])".repeat(ron_levels)
    );
    let xml_levels = treebeard_load::xml::MAX_DEPTH - 1;
    let deep_mbt = format!(
        "{}<ok/>{}",
        "<Sequence>".repeat(xml_levels),
        "</Sequence>".repeat(xml_levels)
    );
    let deep_btcpp = format!(
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"deep\">{}<ok/>{}</BehaviorTree></root>",
        "<Sequence>".repeat(xml_levels - 2),
        "</Sequence>".repeat(xml_levels - 2)
    );
    for (name, text) in [
        ("deep.json", deep_json),
        ("deep.ron", deep_ron),
        ("deep.xml", deep_mbt),
        ("deep.btcpp.xml", deep_btcpp),
    ] {
        let load = load(name, text);
        let report = load.diagnostics.render(&load.map, false);
        let loaded = load
            .loaded
            .unwrap_or_else(|| panic!("{name} does not load:\n{report}"));
        assert!(loaded.shape.len() > 20, "{name}: {}", loaded.shape.len());
        // What a debugger does with it: also without overflowing.
        let shape = loaded.shape.clone();
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || shape.disassemble().to_string())
            .expect("spawns")
            .join()
            .expect("disassembles");
    }
}

#[test]
fn names_and_texts_are_capped() {
    let long = "n".repeat(MAX_NAME + 1);
    let cases = [
        (
            json(&[(long.clone(), r#"{"type": "ok"}"#.into())]),
            "the tree name",
        ),
        (
            json(&[("t".into(), format!(r#"{{"type": "ok", "name": "{long}"}}"#))]),
            "the node name",
        ),
        (
            json(&[("t".into(), format!(r#"{{"type": "{long}"}}"#))]),
            "the node type",
        ),
        (
            json(&[("t".into(), use_tree(&long))]),
            "the sub-tree's name",
        ),
        (
            json(&[(
                "t".into(),
                format!(r#"{{"type": "Say", "params": {{"{long}": "x"}}}}"#),
            )]),
            "the parameter name",
        ),
        (
            json(&[(
                "t".into(),
                format!(
                    r#"{{"type": "Say", "params": {{"text": "{}"}}}}"#,
                    "x".repeat(MAX_STRING + 1)
                ),
            )]),
            "the parameter's value",
        ),
    ];
    for (text, what) in cases {
        let load = load("long.json", text);
        let report = load.diagnostics.render(&load.map, false);
        let d = load
            .diagnostics
            .errors()
            .find(|d| d.message.starts_with(what))
            .unwrap_or_else(|| panic!("no error about {what}:\n{report}"));
        assert!(
            d.message.contains("bytes long, over the limit of"),
            "{report}"
        );
        assert!(d.span.is_some(), "{report}");
    }
}

#[test]
fn a_copied_error_is_reported_up_to_the_diagnostics_cap() {
    // An unknown leaf copied 2^12 times: the report keeps the first
    // MAX_DIAGNOSTICS and counts the rest.
    let load = load("errors.json", doubling(12, r#"{"type": "Shoot"}"#));
    assert!(load.loaded.is_none());
    assert_eq!(load.diagnostics.items().len(), MAX_DIAGNOSTICS);
    assert_eq!(load.diagnostics.dropped(), 4096 - MAX_DIAGNOSTICS);
    let report = load.diagnostics.render(&load.map, false);
    assert!(
        report.ends_with(&format!(
            "... and {} more not shown (a load keeps the first {MAX_DIAGNOSTICS})\n\n4096 errors\n",
            4096 - MAX_DIAGNOSTICS
        )),
        "{}",
        &report[report.len() - 200..]
    );
}

#[test]
fn unknown_names_among_many_long_names_do_not_take_quadratic_time() {
    // 2000 trees with long, similar names, and an unknown one used in a
    // tree copied 2^12 times: every use looks for a suggestion.
    let stem = "x".repeat(MAX_NAME - 8);
    let mut trees: Vec<(String, String)> = (0..2000)
        .map(|i| (format!("{stem}{i:08}"), r#"{"type": "ok"}"#.into()))
        .collect();
    let file = doubling(12, &use_tree(&format!("{stem}nothere!")));
    let doubled = file
        .trim_start_matches("{\"trees\": [\n")
        .trim_end_matches("\n]}");
    let text = format!(
        "{{\"trees\": [\n{doubled},\n{}\n]}}",
        trees
            .drain(..)
            .map(|(n, r)| format!(r#"{{"name": "{n}", "root": {r}}}"#))
            .collect::<Vec<_>>()
            .join(",\n")
    );
    let load = load("names.json", text);
    assert!(load.diagnostics.has_errors());
    assert_eq!(load.diagnostics.dropped(), 4096 - MAX_DIAGNOSTICS);
}

#[test]
fn a_script_error_copied_many_times_stops_at_the_compilers_cap() {
    // 200 declared variables with long names, and a script naming an
    // unknown one in a tree copied 2^16 times: each error looks for a
    // suggestion among the variables, so all of them would take minutes.
    let stem = "v".repeat(240);
    let vars: Vec<String> = (0..200)
        .map(|i| format!(r#"{{"name": "{stem}{i:03}"}}"#))
        .collect();
    let leaf = format!(r#"{{"type": "AssertScript", "params": {{"test": "{stem}zzz"}}}}"#);
    let file = doubling(16, &leaf);
    let text = format!("{{\"variables\": [{}], {}", vars.join(","), &file[1..]);
    let load = load("scripts.json", text);
    assert!(load.loaded.is_none());
    assert_eq!(load.diagnostics.errors().count(), MAX_PROBLEMS);
    assert!(load.diagnostics.items()[0].message.contains("unknown"));
}

#[test]
fn a_chain_of_includes_stops_at_the_file_cap() {
    // Each file includes the next: followed without recursion, and capped.
    let tmp = tempfile::Builder::new()
        .prefix("treebeard-load-limits-")
        .tempdir()
        .expect("a temporary directory");
    let dir = tmp.path();
    let files = MAX_FILES + 50;
    for i in 0..files {
        let text = format!(
            "<root BTCPP_format=\"4\"><include path=\"f{}.xml\"/>\
             <BehaviorTree ID=\"T{i}\"><ok/></BehaviorTree></root>",
            i + 1
        );
        std::fs::write(dir.join(format!("f{i}.xml")), text).expect("a temporary file");
    }
    let first = dir.join("f0.xml");
    let load = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || load_file(&first, &catalog(), &LoadOptions::default()))
        .expect("spawns")
        .join()
        .expect("the load does not panic or overflow its stack");
    drop(tmp);
    let d = only_error(&load);
    assert_eq!(d.message, format!("a load reads at most {MAX_FILES} files"));
    // At the include in the last file read.
    let at = d.location(&load.map).expect("a place");
    assert!(at.contains(&format!("f{}.xml:1:", MAX_FILES - 1)), "{at}");
}

/// A tree of 130 003 nodes (two sequences of 65 000 named leaves, about
/// 9 MB), written one node per line or all on one line.
fn wide_tree(one_line: bool) -> String {
    let sep = if one_line { "," } else { ",\n" };
    let leaf = format!(r#"{{"type": "ok", "name": "{}"}}"#, "n".repeat(40));
    let leaves = vec![leaf; 65_000].join(sep);
    let half = format!(r#"{{"type": "Sequence", "children": [{leaves}]}}"#);
    format!(r#"{{"type": "Sequence", "children": [{half}{sep}{half}]}}"#)
}

#[test]
fn a_tree_near_the_node_cap_on_one_line_loads_in_linear_time() {
    // Placing each node once scanned back to its line's start, so a file
    // of one long line took time quadratic in its length (95 s for a tree
    // at the cap; minutes for this one). This bound only catches that: the
    // load takes about a second, as long as the same tree written a node
    // per line.
    let started = std::time::Instant::now();
    let line = load("wide.json", wide_tree(true));
    let elapsed = started.elapsed();
    assert!(
        line.loaded.is_some(),
        "{}",
        line.diagnostics.render(&line.map, false)
    );
    assert_eq!(line.loaded.as_ref().map(|l| l.shape.len()), Some(130_003));
    assert!(elapsed < std::time::Duration::from_secs(30), "{elapsed:?}");
    let end = line
        .map
        .file(treebeard_load::FileId(0))
        .line_column(usize::MAX);
    assert_eq!((end.0, end.1 as usize), (1, wide_tree(true).len() + 1));
    // The same nodes, a node per line, in the same places.
    let lines = load("wide.json", wide_tree(false));
    let shape = |l: &Load| l.loaded.as_ref().map(|l| l.shape.len());
    assert_eq!(shape(&lines), shape(&line));
}

#[test]
fn a_file_of_more_nodes_than_a_tree_may_have_stops_at_the_cap() {
    // Counted as they are read: the nodes past the cap are never built,
    // and the one error is at the first of them.
    let leaves = vec![r#"{"type": "ok"}"#; MAX_NODES].join(",");
    let text = format!(r#"{{"type": "Sequence", "children": [{leaves}]}}"#);
    let json = load("many.json", text.clone());
    let d = only_error(&json);
    assert_eq!(
        d.message,
        format!("the file has more than {MAX_NODES} nodes")
    );
    let at = d.span.expect("a place").start as usize;
    assert_eq!(
        at,
        text.rfind("{\"type\": \"ok\"}").expect("a leaf"),
        "the last leaf"
    );
    // In XML too.
    let leaves = "<ok/>".repeat(MAX_NODES);
    let text = format!(
        r#"<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>{leaves}</Sequence></BehaviorTree></root>"#
    );
    let xml = load("many.xml", text);
    assert_eq!(
        only_error(&xml).message,
        format!("the file has more than {MAX_NODES} nodes")
    );
}

#[test]
fn a_file_of_millions_of_values_or_elements_is_refused_as_it_is_read() {
    use treebeard_load::spanned::MAX_VALUES;
    use treebeard_load::xml::MAX_XML_NODES;
    let text = format!(
        "{{\"type\": \"ok\", \"params\": {{\"text\": [{}]}}}}",
        vec!["1"; MAX_VALUES].join(",")
    );
    let values = load("values.json", text);
    assert_eq!(
        only_error(&values).message,
        format!("the file holds more than {MAX_VALUES} values")
    );
    let text = format!(
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"M\"><ok/>{}</BehaviorTree></root>",
        "<!---->".repeat(MAX_XML_NODES as usize)
    );
    let elements = load("elements.xml", text);
    let message = &only_error(&elements).message;
    assert!(
        message.starts_with(&format!("the file has more than {MAX_XML_NODES} XML nodes")),
        "{message}"
    );
}
