//! `treebeard compile TREE --rust OUT.rs`: a tree file as a compiled tree
//! (docs/engines.md), against the built-in leaves.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treebeard_codegen::Generator;
use treebeard_scenario::builtin_leaves;

/// What to generate, besides the tree.
pub struct CompileArgs {
    /// Where the Rust goes (`None`: standard output).
    pub rust: Option<PathBuf>,
    /// The compiled tree's name.
    pub name: Option<String>,
    /// Fail when a node keeps the tree on the interpreter.
    pub strict: bool,
}

/// Loads `file` (see `load`), generates its code against the built-in
/// leaves and writes it. Nodes that keep the tree on the interpreter are
/// warnings with their paths and locations (errors with `strict`). Exit
/// codes as `check`'s.
pub fn run(file: &Path, load: &treebeard_load::Load, color: bool, args: &CompileArgs) -> ExitCode {
    let loaded = match crate::loaded(load, color) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let name = args.name.clone().unwrap_or_else(|| {
        file.file_stem()
            .map_or("tree".into(), |s| s.to_string_lossy().into_owned())
    });
    let generated = match Generator::new(&loaded.shape, &builtin_leaves())
        .name(&name)
        .blackboard("treebeard_scenario::Agent")
        .leaf_set("treebeard_scenario::leaves::Builtin")
        .runtime("::treebeard_vm")
        .generate()
    {
        Ok(generated) => generated,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let level = if args.strict { "error" } else { "warning" };
    for u in generated.uncompiled() {
        eprintln!("{level}: {u}");
    }
    if args.strict && !generated.is_compiled() {
        eprintln!(
            "error: {} does not compile; without `--strict` its code runs it on the interpreter",
            file.display()
        );
        return ExitCode::from(1);
    }
    match &args.rust {
        None => crate::out(generated.source()),
        Some(path) => {
            if let Err(e) = std::fs::write(path, generated.source()) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
            let how = if generated.is_compiled() {
                "compiled"
            } else {
                "runs on the interpreter"
            };
            eprintln!("{}: {how}, written to {}", file.display(), path.display());
        }
    }
    ExitCode::SUCCESS
}
