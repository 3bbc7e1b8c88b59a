//! The workload's compiled tree in the repository is what the generator
//! writes today. Run with `TREEBEARD_BLESS=1` to rewrite it.

use treebeard_codegen::Generator;
use treebeard_workload::{CrowdLeaves, tree};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../workload/src/compiled/crowd.rs"
);

/// The workload tree's code, as the workload crate includes it.
pub fn crowd_source() -> String {
    let leaves = CrowdLeaves::leaves();
    let shape = treebeard_shape::compile(&tree(), &leaves).expect("the workload tree compiles");
    let generated = Generator::new(&shape, &leaves)
        .name("crowd")
        .blackboard("crate::Critter")
        .leaf_set("crate::CrowdLeaves")
        .runtime("::treebeard_vm")
        .generate()
        .expect("the generator's options are paths");
    assert!(generated.is_compiled(), "{:?}", generated.uncompiled());
    generated.source().to_owned()
}

#[test]
fn the_workloads_compiled_tree_is_up_to_date() {
    let source = crowd_source();
    if std::env::var_os("TREEBEARD_BLESS").is_some() {
        std::fs::write(FILE, &source).expect("the workload's compiled tree is writable");
        return;
    }
    let kept = std::fs::read_to_string(FILE).unwrap_or_default();
    assert!(
        kept == source,
        "crates/workload/src/compiled/crowd.rs is not what the generator writes today; \
         run `TREEBEARD_BLESS=1 cargo test -p treebeard-codegen --test workload` to rewrite it"
    );
}

#[test]
fn generated_code_is_formatted_as_rustfmt_formats_it() {
    treebeard_testkit::compiled::assert_rustfmt_clean(&crowd_source());
}
