//! Leaf manifests on the command line (`--leaves FILE`): the crowd
//! example's manifest is what its leaf set declares, its tree checks clean
//! with it, `compile` generates the code the workload keeps, and a manifest
//! with mistakes is refused at their places.
//! `TREEBEARD_BLESS=1 cargo test -p treebeard-cli --test manifest` rewrites
//! the manifest.

mod common;

use common::{TempDir, run_in};
use std::path::{Path, PathBuf};
use treebeard_workload::CrowdLeaves;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const MANIFEST: &str = "examples/trees/crowd.leaves.json";

#[test]
fn the_crowd_manifest_is_what_its_leaf_set_declares() {
    let written = treebeard_load::manifest::to_json(&CrowdLeaves::leaves().manifest());
    let path = repo().join(MANIFEST);
    if std::env::var_os("TREEBEARD_BLESS").is_some() {
        std::fs::write(&path, &written).expect("the manifest is writable");
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == written,
        "{MANIFEST} is not what `CrowdLeaves::leaves().manifest()` declares today; run \
         `TREEBEARD_BLESS=1 cargo test -p treebeard-cli --test manifest` to rewrite it"
    );
}

#[test]
fn the_crowd_tree_checks_clean_with_its_manifest() {
    let out = run_in(
        &repo(),
        &["check", "examples/trees/crowd.ron", "--leaves", MANIFEST],
    );
    out.code(0).err_lacks("warning").err_lacks("error");
    assert!(out.stderr.contains("crowd.ron: ok"), "{}", out.both());
    // Without it, the command line knows only its test leaves.
    run_in(&repo(), &["check", "examples/trees/crowd.ron"])
        .code(1)
        .err_has("unknown node type `threat`");
    // `nodes` lists the manifest's leaves.
    run_in(&repo(), &["nodes", "--leaves", MANIFEST])
        .code(0)
        .out_has("FindFood");
}

/// With the manifest, `compile` writes the code the workload keeps in the
/// repository, but for the runtime's path (the facade's by default).
#[test]
fn compile_with_the_manifest_writes_the_workloads_compiled_tree() {
    let out = run_in(
        &repo(),
        &[
            "compile",
            "examples/trees/crowd.ron",
            "--leaves",
            MANIFEST,
            "--name",
            "crowd",
            "--blackboard",
            "crate::Critter",
            "--leaf-set",
            "crate::CrowdLeaves",
        ],
    );
    out.code(0).err_lacks("warning").err_lacks("note");
    let kept = std::fs::read_to_string(repo().join("crates/workload/src/compiled/crowd.rs"))
        .expect("the workload's compiled tree");
    // The kept code was generated from the builder's tree, which has no
    // file positions to cite.
    let generated = without_positions(&out.stdout).replace("::treebeard::vm", "::treebeard_vm");
    assert_eq!(generated, kept);
    // The application's types are needed.
    run_in(
        &repo(),
        &["compile", "examples/trees/crowd.ron", "--leaves", MANIFEST],
    )
    .code(2)
    .err_has("--blackboard PATH");
}

#[test]
fn a_manifest_with_mistakes_is_refused_where_they_are() {
    let dir = TempDir::new("manifest-mistakes");
    std::fs::write(
        dir.path("leaves.json"),
        "{\"treebeard_leaves\": 1, \"leaves\": [\n  {\"name\": \"Eat\", \"kind\": \"acton\"}\n]}\n",
    )
    .expect("writable");
    std::fs::write(dir.path("t.ron"), r#"(type: "Eat")"#).expect("writable");
    run_in(dir.root(), &["check", "t.ron", "--leaves", "leaves.json"])
        .code(1)
        .err_has("leaves.json:2:")
        .err_has("`acton` is no leaf kind");
    run_in(dir.root(), &["check", "t.ron", "--leaves", "none.json"])
        .code(2)
        .err_has("cannot read the leaf manifest `none.json`");
}

/// `text` without the ` (examples/trees/crowd.ron:L:C)` its doc comments
/// cite.
fn without_positions(text: &str) -> String {
    const AT: &str = " (examples/trees/crowd.ron:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(AT) {
        out.push_str(&rest[..i]);
        let after = &rest[i + AT.len()..];
        rest = after.find(')').map_or("", |j| &after[j + 1..]);
    }
    out.push_str(rest);
    out
}
