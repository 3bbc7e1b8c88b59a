//! The facade's cargo features: a build without a dialect's feature refuses
//! its tree files with a located error that names the feature, and a crowd
//! without `parallel` ticks on the calling thread with the same results.
//!
//! `cargo test --workspace` builds every feature; CI runs this file again
//! with `--no-default-features --features json`, where the tests below
//! that need a feature off run.

#[cfg(not(all(feature = "ron", feature = "xml")))]
use treebeard::load::{LoadOptions, load_str};
use treebeard::prelude::*;
#[cfg(not(all(feature = "ron", feature = "xml")))]
use treebeard::shape::Catalog;

#[cfg(not(all(feature = "ron", feature = "xml")))]
fn refused(name: &str, text: &str, feature: &str) {
    let load = load_str(name, text, &Catalog::new(), &LoadOptions::default());
    assert!(load.loaded.is_none(), "{name} loaded");
    let shown = load.diagnostics.render(&load.map, false);
    assert!(
        shown.contains("which this build of treebeard does not read"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("`{feature}` cargo feature")),
        "{shown}"
    );
    assert!(shown.contains(&format!("{name}:1:1")), "located: {shown}");
}

#[cfg(not(feature = "ron"))]
#[test]
fn a_ron_tree_file_needs_the_ron_feature() {
    refused("walk.ron", r#"(type: "AlwaysSuccess")"#, "ron");
}

#[cfg(not(feature = "xml"))]
#[test]
fn an_xml_tree_file_needs_the_xml_feature() {
    refused(
        "walk.xml",
        r#"<root BTCPP_format="4"><BehaviorTree ID="w"><AlwaysSuccess/></BehaviorTree></root>"#,
        "xml",
    );
}

/// With or without `parallel`, a crowd's tick gives the same requests.
#[test]
fn a_crowd_ticks_with_whatever_features_are_on() {
    struct Bee {
        nectar: u32,
    }
    let mut leaves = Leaves::<Bee>::new();
    leaves.condition("full", |b, _| b.nectar >= 3);
    leaves.action("Gather", |b, _| {
        b.nectar += 1;
        Status::Success
    });
    leaves.deferred("FlyHome");
    let program = leaves
        .compile(&priority([
            sequence([cond("full"), act("FlyHome")]),
            act("Gather"),
        ]))
        .expect("the tree compiles");
    let mut hive = Crowd::with_agents(program, (0..1000).map(|_| Bee { nectar: 0 }).collect());
    for _ in 0..4 {
        hive.tick(1.0);
    }
    assert_eq!(hive.requests().len(), 1000);
    assert!(hive.requests().windows(2).all(|w| w[0].agent < w[1].agent));
}
