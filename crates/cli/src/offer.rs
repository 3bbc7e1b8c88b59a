//! `treebeard check MAIN --offer NAME=FILE`: a child tree from its own file
//! offered at every `ChildTree` connector of the main tree, as a running
//! crowd would take it (`Crowd::offer_child_tree`; see
//! `treebeard_load::link`), so that a smart object's or a mod's tree is
//! checked against the tree it will join before the game runs.

use crate::{TreeArgs, builtin_leaves, load, manifest, unreadable};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treebeard_load::Loaded;
use treebeard_load::link::offer;
use treebeard_shape::LeafCatalog;

/// One `--offer NAME=FILE`.
#[derive(Clone, Debug)]
pub struct Offer {
    /// The child tree's name at the connectors.
    pub name: String,
    /// Its file.
    pub file: PathBuf,
}

/// Parses `NAME=FILE`.
pub fn parse(text: &str) -> Result<Offer, String> {
    match text.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => Ok(Offer {
            name: name.to_owned(),
            file: file.into(),
        }),
        _ => Err(format!(
            "`{text}` is not NAME=FILE: give the child tree's name and its file, as `bench=objects/bench.json`"
        )),
    }
}

/// Offers each of `offers`, in order, into `main` (loaded from `file`),
/// printing their diagnostics and what linking says. Exit codes as
/// `check`'s.
pub fn check(
    file: &Path,
    main: &Loaded,
    offers: &[Offer],
    tree: &TreeArgs,
    color: bool,
) -> ExitCode {
    let link = |catalog: &dyn LeafCatalog| {
        let mut shape = main.shape.clone();
        for o in offers {
            let child = load(&o.file, tree);
            eprint!("{}", child.diagnostics.render(&child.map, color));
            let Some(loaded) = &child.loaded else {
                return ExitCode::from(if unreadable(&child) { 2 } else { 1 });
            };
            match offer(
                &shape,
                &o.name,
                &loaded.shape,
                catalog,
                &tree.options(file).limits,
            ) {
                Ok(linked) => shape = linked,
                Err(e) => {
                    eprintln!(
                        "error: {} cannot be offered as `{}` in {}: {e}",
                        o.file.display(),
                        o.name,
                        file.display()
                    );
                    return ExitCode::from(1);
                }
            }
        }
        let names: Vec<&str> = offers.iter().map(|o| o.name.as_str()).collect();
        eprintln!(
            "{}: ok, {} nodes; {} nodes with {} offered",
            file.display(),
            main.shape.len(),
            shape.len(),
            names.join(", ")
        );
        ExitCode::SUCCESS
    };
    match manifest(tree.leaves.as_deref()) {
        // The main tree loaded with the same manifest.
        Err(_) => ExitCode::from(2),
        Ok(Some(catalog)) => link(&catalog),
        Ok(None) => link(&builtin_leaves()),
    }
}
