//! What the examples share: loading their tree (the file given on the
//! command line, else the one built in) and their thread pool.

// Each example uses what it needs of this module.
#![allow(dead_code)]

use rayon::ThreadPool;
use std::path::Path;
use treebeard::prelude::*;

/// The program of the tree in `file`, else of `text` (the example's own
/// tree, written at `name`), linked to `leaves`; the load's diagnostics go
/// to standard error.
pub fn program<B>(
    file: Option<&Path>,
    name: &str,
    text: &str,
    leaves: &Leaves<B>,
) -> Result<Program<B>, String> {
    let options = Default::default();
    let load = match file {
        Some(path) => treebeard::load::load_file(path, leaves, &options),
        None => treebeard::load::load_str(name, text, leaves, &options),
    };
    eprint!("{}", load.diagnostics.render(&load.map, false));
    let loaded = load.loaded.ok_or("the tree did not load")?;
    Program::link(loaded.shape, leaves).map_err(|e| e.to_string())
}

/// A rayon pool of `threads` workers (default: rayon's choice, all cores).
pub fn pool(threads: Option<u16>) -> Result<ThreadPool, String> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        builder = builder.num_threads(usize::from(threads));
    }
    builder.build().map_err(|e| format!("no thread pool: {e}"))
}
