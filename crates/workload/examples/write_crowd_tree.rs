//! Prints the crowd tree as a JSON tree file (`examples/trees/crowd.json`).
fn main() {
    let leaves = treebeard_workload::leaves();
    let program = leaves
        .compile(&treebeard_workload::tree())
        .expect("the crowd tree compiles");
    println!(
        "{}",
        treebeard_load::native::TreeFile::from_shape("crowd", program.shape()).to_json()
    );
}
