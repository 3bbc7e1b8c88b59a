//! The crowd tree as designers would write it: `examples/trees/crowd.ron`
//! and its JSON twin load into exactly the shape the builder makes.

use treebeard_load::{LoadOptions, load_file, native::TreeFile};
use treebeard_workload::{leaves, tree};

fn path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/trees")
        .join(name)
}

#[test]
fn the_tree_files_compile_to_the_builders_shape() {
    let leaves = leaves();
    let built = leaves.compile(&tree()).unwrap();
    for file in ["crowd.ron", "crowd.json"] {
        let load = load_file(&path(file), &leaves, &LoadOptions::default());
        assert!(
            load.diagnostics.is_empty(),
            "{}",
            load.diagnostics.render(&load.map, false)
        );
        let shape = load.loaded.unwrap().shape;
        assert_eq!(shape.items(), built.shape().items(), "{file}");
        assert_eq!(shape.param_table(), built.shape().param_table(), "{file}");
        let names = |s: &treebeard_shape::Shape| {
            s.nodes().iter().map(|n| n.name.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names(&shape), names(built.shape()), "{file}");
    }
}

#[test]
fn the_json_file_is_what_the_writer_writes() {
    let leaves = leaves();
    let built = leaves.compile(&tree()).unwrap();
    let written = TreeFile::from_shape("crowd", built.shape()).to_json();
    let on_disk = std::fs::read_to_string(path("crowd.json")).unwrap();
    assert_eq!(
        on_disk.trim_end(),
        written.trim_end(),
        "regenerate with TreeFile::to_json"
    );
}
