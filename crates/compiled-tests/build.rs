//! Generates the compiled trees of the differential suite, each by
//! `treebeard-codegen` as a build script of a game would: `TREES` random
//! trees of the kinds that compile straight (`Spec::random_static`) and
//! `HOSTED` random trees of every kind the random generator makes
//! (`Spec::random`), in the hosted form, into `OUT_DIR/trees.rs`; and the
//! tree of every scenario of the corpus (`tests/scenarios`), against the
//! scenarios' built-in leaves, into `OUT_DIR/scenarios.rs`.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use treebeard_codegen::{Form, Generator};
use treebeard_scenario::{PrepareOptions, leaves::builtin, prepare, scenario_files};
use treebeard_testkit::{Spec, leaves};

/// How many trees, and their bounds (the suite's `tests` read them from
/// the crate).
const TREES: u64 = 240;
const HOSTED: u64 = 200;
const DEPTH: usize = 6;
const CHILDREN: usize = 4;

fn main() {
    let leaves = leaves();
    let mut all = String::new();
    let mut index = String::from(
        "/// Every tree's compiled tree, by seed.\npub const TREES: &[fn() -> CompiledTree<World>] = &[\n",
    );
    let mut hosted = String::from(
        "/// Every hosted tree's compiled tree, by seed.\npub const HOSTED: &[fn() -> CompiledTree<World>] = &[\n",
    );
    for (seeds, table, spec, prefix, form) in [
        (
            TREES,
            &mut index,
            Spec::random_static as fn(u64, usize, usize) -> Spec,
            "tree",
            Form::Straight,
        ),
        (HOSTED, &mut hosted, Spec::random, "hosted", Form::Hosted),
    ] {
        for seed in 0..seeds {
            let program = spec(seed, DEPTH, CHILDREN).compile();
            let generated = Generator::new(program.shape(), &leaves)
                .name(&format!("{prefix}{seed}"))
                .blackboard("treebeard_testkit::World")
                .leaf_set("treebeard_testkit::TestLeaves")
                .runtime("::treebeard_vm")
                .hosted(form == Form::Hosted)
                .generate()
                .expect("the options are paths");
            assert_eq!(
                generated.form(),
                form,
                "{prefix} {seed}: {:?}",
                generated.uncompiled()
            );
            let doc = format!("The tree of seed {seed}.");
            module(
                &mut all,
                &doc,
                &format!("{prefix}{seed}"),
                generated.source(),
            );
            let _ = writeln!(table, "    {prefix}{seed}::tree,");
        }
        table.push_str("];\n");
    }
    let generated = format!(
        "use treebeard_testkit::World;\nuse treebeard_vm::CompiledTree;\n\n/// The seeds' bounds.\npub const DEPTH: usize = {DEPTH};\n/// The seeds' bounds.\npub const CHILDREN: usize = {CHILDREN};\n\n{index}\n{hosted}\n{all}"
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("a build script"));
    std::fs::write(out.join("trees.rs"), generated).expect("OUT_DIR is writable");
    std::fs::write(out.join("scenarios.rs"), scenarios()).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=../../tests/scenarios");
    println!("cargo::rerun-if-changed=../../tests/trees");
}

/// The generated code of every scenario tree, and the table `SCENARIOS`
/// of them by the scenario's path under `tests/scenarios`; `UNCOMPILED`
/// lists those left to the interpreter, with why (none: the test checks).
fn scenarios() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios");
    let mut all = String::new();
    let mut index = String::from(
        "/// The compiled tree of every scenario whose tree compiles, by its path under\n\
         /// `tests/scenarios`.\n\
         pub const SCENARIOS: &[(&str, fn() -> CompiledTree<Agent>)] = &[\n",
    );
    let mut uncompiled = String::from(
        "/// The scenarios whose trees run on the interpreter, and why.\n\
         pub const UNCOMPILED: &[(&str, &str)] = &[\n",
    );
    let files = scenario_files(&dir).expect("the corpus is readable");
    // The scenarios' trees are in `tests/trees`.
    let options = PrepareOptions {
        root: dir.parent().map(Path::to_path_buf),
        ..PrepareOptions::default()
    };
    for (i, path) in files.iter().enumerate() {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        // A scenario that does not prepare is the corpus test's to report.
        let Ok(prepared) = prepare(path, &options) else {
            continue;
        };
        let s = &prepared.scenario;
        let generated = Generator::new(prepared.program.shape(), &builtin(&s.keys, &s.events))
            .name(&format!("scenario{i}"))
            .blackboard("treebeard_scenario::Agent")
            .leaf_set("treebeard_scenario::leaves::Builtin")
            .runtime("::treebeard_vm")
            .generate()
            .expect("the options are paths");
        if !generated.is_compiled() {
            let why: Vec<String> = generated
                .uncompiled()
                .iter()
                .map(|u| u.to_string())
                .collect();
            let _ = writeln!(uncompiled, "    ({name:?}, {:?}),", why.join("; "));
            continue;
        }
        let doc = format!("The tree of `tests/scenarios/{name}`.");
        module(&mut all, &doc, &format!("scenario{i}"), generated.source());
        let _ = writeln!(index, "    ({name:?}, scenario{i}::tree),");
    }
    index.push_str("];\n");
    uncompiled.push_str("];\n");
    format!(
        "use treebeard_scenario::Agent;\nuse treebeard_vm::CompiledTree;\n\n{index}\n{uncompiled}\n{all}"
    )
}

/// Appends to `all` the module `name`, documented with `doc`, holding
/// `source`.
fn module(all: &mut String, doc: &str, name: &str, source: &str) {
    let _ = writeln!(all, "/// {doc}\npub mod {name} {{");
    for line in source.lines() {
        let _ = writeln!(all, "    {line}");
    }
    all.push_str("}\n");
}
