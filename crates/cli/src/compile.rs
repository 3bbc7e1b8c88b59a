//! `treebeard compile TREE --rust OUT.rs`: a tree file as a compiled tree
//! (docs/engines.md), against the built-in leaves, or an application's
//! leaf set from its manifest (`--leaves`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treebeard_codegen::{Form, Generator};
use treebeard_scenario::builtin_leaves;
use treebeard_shape::Catalog;

/// What to generate, besides the tree.
pub struct CompileArgs {
    /// Where the Rust goes (`None`: standard output).
    pub rust: Option<PathBuf>,
    /// The compiled tree's name.
    pub name: Option<String>,
    /// Fail unless the tree compiles straight (no node hosted on the
    /// interpreter).
    pub strict: bool,
    /// With a manifest: the application's blackboard type's path.
    pub blackboard: Option<String>,
    /// With a manifest: the application's leaf set's path.
    pub leaf_set: Option<String>,
}

/// Loads `file` (see `load`), generates its code against the built-in
/// leaves and writes it. The nodes the interpreter ticks for a hosted tree
/// (or that keep a tree on the interpreter) are notes (warnings) with their
/// paths and locations; with `strict`, errors, unless the tree compiles
/// straight. Exit codes as `check`'s.
pub fn run(
    file: &Path,
    load: &treebeard_load::Load,
    manifest: Option<&Catalog>,
    color: bool,
    args: &CompileArgs,
) -> ExitCode {
    let loaded = match crate::loaded(load, color) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let name = args.name.clone().unwrap_or_else(|| {
        file.file_stem()
            .map_or("tree".into(), |s| s.to_string_lossy().into_owned())
    });
    let generator = match (manifest, &args.blackboard, &args.leaf_set) {
        (None, ..) => Generator::new(&loaded.shape, &builtin_leaves())
            .blackboard("treebeard_scenario::Agent")
            .leaf_set("treebeard_scenario::leaves::Builtin")
            .runtime("::treebeard_vm"),
        (Some(catalog), Some(blackboard), Some(leaf_set)) => {
            Generator::with_catalog(&loaded.shape, catalog)
                .blackboard(blackboard)
                .leaf_set(leaf_set)
        }
        (Some(_), ..) => {
            eprintln!(
                "error: code for the leaves of a manifest names the application's types: \
                 give `--blackboard PATH` and `--leaf-set PATH` (e.g. `crate::Guard`, `crate::GuardLeaves`)"
            );
            return ExitCode::from(2);
        }
    };
    let generated = match generator.name(&name).generate() {
        Ok(generated) => generated,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let straight = generated.form() == Form::Straight;
    let (hosted, uncompiled) = if args.strict {
        ("error", "error")
    } else {
        ("note", "warning")
    };
    for u in generated.interpreted_nodes() {
        eprintln!("{hosted}: {u}");
    }
    for u in generated.uncompiled() {
        eprintln!("{uncompiled}: {u}");
    }
    if args.strict && !straight {
        eprintln!(
            "error: {} does not compile straight; without `--strict` its code runs {}",
            file.display(),
            if generated.is_compiled() {
                "hosted on the interpreter's tick, which ticks the nodes above"
            } else {
                "it on the interpreter"
            }
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
            let how = match generated.form() {
                Form::Straight => "compiled",
                Form::Hosted => "compiled, hosted on the interpreter's tick",
                _ => "runs on the interpreter",
            };
            eprintln!("{}: {how}, written to {}", file.display(), path.display());
        }
    }
    ExitCode::SUCCESS
}
