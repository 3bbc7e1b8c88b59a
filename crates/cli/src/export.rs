//! `treebeard export --btcpp TREE -o OUT.xml`: a tree file of any dialect
//! as BehaviorTree.CPP v4 XML, for Groot2 (see
//! `treebeard_load::xml::export`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use treebeard_load::xml::export;

/// Where the XML goes, and the tree's name in it.
pub struct ExportArgs {
    /// The file to write (`None`: standard output).
    pub output: Option<PathBuf>,
    /// The `<BehaviorTree ID>` [default: the loaded tree's name].
    pub name: Option<String>,
}

/// Loads `file` (see `load`) and writes it as BT.CPP XML. What the XML
/// cannot hold is an error with its path and location; exit codes as
/// `check`'s.
pub fn run(file: &Path, load: &treebeard_load::Load, color: bool, args: &ExportArgs) -> ExitCode {
    let loaded = match crate::loaded(load, color) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let name = args.name.as_deref().unwrap_or(&loaded.main);
    let xml = match export::btcpp(&loaded.shape, name) {
        Ok(xml) => xml,
        Err(nodes) => {
            for n in &nodes {
                eprintln!("error: {n}");
            }
            eprintln!(
                "error: {} cannot be written as BehaviorTree.CPP XML ({} node{})",
                file.display(),
                nodes.len(),
                if nodes.len() == 1 { "" } else { "s" }
            );
            return ExitCode::from(1);
        }
    };
    match &args.output {
        None => crate::out(&xml),
        Some(path) => {
            if let Err(e) = std::fs::write(path, &xml) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
            eprintln!("{}: written to {}", file.display(), path.display());
        }
    }
    ExitCode::SUCCESS
}
