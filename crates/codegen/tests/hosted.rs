//! The hosted form: which trees take it, and its code as rustfmt writes it.

use treebeard_codegen::{Form, Generator};
use treebeard_testkit::{Spec, leaves};

fn generate(spec: &Spec, hosted: bool) -> treebeard_codegen::Generated {
    let program = spec.compile();
    Generator::new(program.shape(), &leaves())
        .name("tree")
        .blackboard("treebeard_testkit::World")
        .leaf_set("treebeard_testkit::TestLeaves")
        .runtime("::treebeard_vm")
        .hosted(hosted)
        .generate()
        .expect("the options are paths")
}

/// Random trees of every kind, and the static ones forced hosted: each
/// hosted file is what rustfmt writes (the differential suite compiles
/// them without warnings, `crates/compiled-tests`).
#[test]
fn hosted_code_is_formatted_as_rustfmt_formats_it() {
    for seed in 0..40 {
        for (spec, forced) in [
            (Spec::random(seed, 6, 4), false),
            (Spec::random_static(seed, 6, 4), true),
        ] {
            let generated = generate(&spec, forced);
            if generated.form() != Form::Hosted {
                continue;
            }
            treebeard_testkit::compiled::assert_rustfmt_clean(generated.source());
        }
    }
}

/// A tree of the kinds that keep to one running leaf compiles straight; a
/// concurrent decider makes it hosted, and the generator names the node the
/// interpreter ticks; so does a leaf the leaf set does not declare.
#[test]
fn the_form_follows_the_kinds_and_the_leaves() {
    let straight = Spec::Sequence(vec![Spec::Cond, Spec::Act]);
    let generated = generate(&straight, false);
    assert_eq!(generated.form(), Form::Straight);
    assert!(generated.interpreted_nodes().is_empty());

    let parallel = Spec::Sequence(vec![
        Spec::Cond,
        Spec::ParallelAll(1, vec![Spec::Act, Spec::Deferred]),
    ]);
    let generated = generate(&parallel, false);
    assert_eq!(generated.form(), Form::Hosted);
    assert!(generated.is_compiled());
    let nodes = generated.interpreted_nodes();
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    assert_eq!(nodes[0].node.get(), 2);
    assert!(
        nodes[0].reason.contains("ParallelAll"),
        "{}",
        nodes[0].reason
    );
    // The interpreter decides the ParallelAll; its children are compiled.
    assert!(generated.source().contains("h.enter_guarded(2)"));
    assert!(generated.source().contains("3 => n3(h),"));
    assert!(generated.source().contains("CompiledTree::hosted("));
}
