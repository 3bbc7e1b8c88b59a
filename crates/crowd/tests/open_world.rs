//! Open-world child trees over random trees: whatever the running tree and
//! the offered one, linking keeps every node of the running tree, offers
//! the child at each of its connectors node for node, and offering it again
//! changes nothing (`treebeard_load::link::offer`; the crowd's behaviour
//! with an offered tree is in `child_trees.rs`).

use treebeard_load::link::{LinkError, offer};
use treebeard_shape::tree::{child_trees, sequence};
use treebeard_shape::{Kind, Limits, NodeIdx, NodeMap, Options, Shape, compile_with};
use treebeard_testkit::{Spec, r#gen::declarations, leaves};

fn compiled(tree: &treebeard_shape::tree::Node) -> Shape {
    let options = Options {
        declarations: declarations(),
        ..Options::default()
    };
    compile_with(tree, &leaves(), &options).expect("a random tree compiles")
}

fn kinds(shape: &Shape, from: NodeIdx) -> Vec<Kind> {
    let end = shape.subtree_end(from).get();
    (from.get()..end)
        .map(|n| shape.kind(NodeIdx::new(n)))
        .collect()
}

fn connectors(shape: &Shape) -> impl Iterator<Item = NodeIdx> + '_ {
    (0..shape.len() as u32)
        .map(NodeIdx::new)
        .filter(|&n| shape.kind(n) == Kind::ChildTree)
}

#[test]
fn random_trees_link_node_for_node_at_every_connector() {
    let mut linked_some = 0;
    let mut nested = 0;
    for seed in 0..300u64 {
        // A running tree with one connector of its own (and those its
        // random parts hold), and a random child tree.
        let main = compiled(&sequence([
            Spec::random(seed, 4, 3).to_tree(),
            child_trees([("stool", Spec::random(seed + 1000, 3, 2).to_tree())]).named("use"),
        ]));
        let child = compiled(&Spec::random(seed + 2000, 4, 3).to_tree());
        let linked = match offer(&main, "offered", &child, &leaves(), &Limits::default()) {
            Ok(linked) => linked,
            // The child's own connectors may offer a tree the running tree
            // offers differently under the same (spec-derived) name.
            Err(LinkError::Invalid(problems)) => {
                assert!(
                    problems.iter().any(|p| p.contains("child tree")),
                    "seed {seed}: {problems:?}"
                );
                continue;
            }
            Err(e) => panic!("seed {seed}: {e}"),
        };
        linked_some += 1;
        if connectors(&main).count() > 1 {
            nested += 1;
        }
        // Every node of the running tree is in the linked one, alike.
        let map = NodeMap::new(&main, &linked);
        assert_eq!(map.vanished(), 0, "seed {seed}");
        // Each of its connectors offers the child, last, node for node.
        let mut offered = 0;
        for connector in connectors(&main) {
            let at = map.new_of(connector).expect("kept");
            let k = linked.child_tree(at, "offered").expect("offered");
            assert_eq!(
                k as usize + 1,
                linked.children(at).count(),
                "seed {seed}: last"
            );
            let root = linked.children(at).nth(k as usize).unwrap();
            assert_eq!(
                kinds(&linked, root),
                kinds(&child, NodeIdx::ROOT),
                "seed {seed}"
            );
            offered += 1;
        }
        assert_eq!(
            linked.len(),
            main.len() + offered * child.len(),
            "seed {seed}"
        );
        // Offering the same tree again is an update that changes nothing.
        let again = offer(&linked, "offered", &child, &leaves(), &Limits::default()).unwrap();
        assert_eq!(again.parts(), linked.parts(), "seed {seed}");
    }
    assert!(linked_some > 250, "only {linked_some} of 300 linked");
    assert!(
        nested > 5,
        "only {nested} running trees with connectors inside"
    );
}
