//! Generating from a build script.
//!
//! A game keeps its tree files in its repository and its leaves in a crate
//! its build script can depend on (a `[build-dependencies]` entry): the
//! build script loads each tree against the leaf set's table, generates its
//! code into `OUT_DIR`, and the game includes it:
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     let leaves = my_ai::GuardLeaves::leaves();
//!     let shape = treebeard_load::Loader::new(&leaves).load_path("trees/guard.ron").unwrap().shape;
//!     let generated = treebeard_codegen::Generator::new(&shape, &leaves)
//!         .name("guard")
//!         .blackboard("my_ai::Guard")
//!         .leaf_set("my_ai::GuardLeaves")
//!         .generate()
//!         .unwrap();
//!     treebeard_codegen::build::write("guard.rs", &generated).unwrap();
//!     println!("cargo::rerun-if-changed=trees/guard.ron");
//! }
//!
//! // src/lib.rs
//! mod guard {
//!     include!(concat!(env!("OUT_DIR"), "/guard.rs"));
//! }
//! let program = program.with_compiled(guard::tree())?;
//! ```
//!
//! `docs/engines.md` walks through it; the crowd example (`examples/build.rs`)
//! does it for the main job.

use crate::Generated;
use std::io;
use std::path::PathBuf;

/// Writes `generated` to `OUT_DIR/file` (only when it changed, so that
/// the including crate is not rebuilt for nothing) and tells Cargo, as a
/// build-script warning, about every node that keeps the tree on the
/// interpreter. Returns the file's path.
///
/// # Errors
/// When `OUT_DIR` is not set (not in a build script) or the file cannot be
/// written.
pub fn write(file: &str, generated: &Generated) -> io::Result<PathBuf> {
    let dir = std::env::var_os("OUT_DIR").ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "OUT_DIR is not set: `build::write` runs in a build script",
        )
    })?;
    let path = PathBuf::from(dir).join(file);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.source()) {
        std::fs::write(&path, generated.source())?;
    }
    for u in generated.uncompiled() {
        println!("cargo::warning={file}: runs on the interpreter: {u}");
    }
    Ok(path)
}
