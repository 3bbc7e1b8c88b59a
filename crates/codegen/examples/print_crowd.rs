//! Prints the crowd workload's compiled tree.
fn main() {
    let leaves = treebeard_workload::CrowdLeaves::leaves();
    let shape = treebeard_shape::compile(&treebeard_workload::tree(), &leaves).unwrap();
    let g = treebeard_codegen::Generator::new(&shape, &leaves)
        .name("crowd")
        .blackboard("treebeard_workload::Critter")
        .leaf_set("treebeard_workload::CrowdLeaves")
        .generate()
        .unwrap();
    print!("{}", g.source());
}
