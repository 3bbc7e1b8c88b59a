//! Target `files`: the file system a load reads, as a hostile mod would lay
//! it out (see `treebeard_load::files`).
//!
//! The tape lays out a folder: a content root with a sub-folder, a secret
//! file beside the root, and up to six tree files in the root whose
//! includes the tape picks among spellings that stay inside (`a/f1.xml`,
//! `../root/f2.xml`, `./f0.xml`, the file itself) and ones that do not
//! (`../secret.json`, its absolute path, `/etc/passwd`, `/dev/zero`, an
//! empty path, the sub-folder, a missing file and, on Unix, links out of
//! the root, to a device and in a loop); files may be padded past the read
//! caps the tape picks, and may use each other's trees. Loading the first
//! must:
//!
//! * answer a tree exactly when it reports no error, every error inside
//!   its file (as [`tree_text`](crate::tree_text) checks), and every
//!   refused include at the include;
//! * read only files inside the root (the main file's folder), each once,
//!   within the per-file and per-load caps;
//! * never print, nor hold, a byte of the secret.

use crate::tape::Tape;
use crate::tree_text::check_load;
use std::path::{Path, PathBuf};
use treebeard_load::files::ReadLimits;
use treebeard_load::{LoadOptions, load_file};
use treebeard_shape::{Catalog, LeafSchema};

/// What the secret file holds: no load may show it.
const SECRET: &str = "SECRET-7f3a-do-not-print";

/// Tree files the tape may write, in the root.
const FILES: usize = 6;

/// The include spellings the tape picks among; `{secret}` is the secret
/// file's absolute path, `{n}` a file's number.
const INCLUDES: [&str; 16] = [
    "f{n}.xml",
    "./f{n}.xml",
    "a/f{n}.xml",
    "../root/f{n}.xml",
    "a/../f{n}.xml",
    "../secret.json",
    "{secret}",
    "/etc/passwd",
    "/dev/zero",
    "",
    "a",
    "missing.xml",
    "out.xml",
    "zero.xml",
    "loop.xml",
    "/proc/self/environ",
];

/// The folder inputs are laid out in (one per process: a fuzzer runs one
/// input at a time).
fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("treebeard-fuzz-files-{}", std::process::id()))
}

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("ok", LeafSchema::condition());
    c
}

/// Checks one input (see the module docs); panics only on a bug.
pub fn run(data: &[u8]) {
    let mut tape = Tape::new(data);
    let dir = scratch();
    let _ = std::fs::remove_dir_all(&dir);
    let root = dir.join("root");
    if std::fs::create_dir_all(root.join("a")).is_err() {
        return;
    }
    let secret = dir.join("secret.json");
    let _ = std::fs::write(&secret, format!("{{\"password\": \"{SECRET}\"}}"));
    links(&root, &secret);
    let files = 1 + tape.below(FILES);
    for n in 0..files {
        let text = file_text(&mut tape, n, files, &secret);
        // Some files live in the sub-folder, as `a/f{n}.xml` names them;
        // the main one, `f0.xml`, in the root.
        let at = if n > 0 && tape.below(4) == 0 {
            root.join("a")
        } else {
            root.clone()
        };
        let _ = std::fs::write(at.join(format!("f{n}.xml")), text);
    }
    let limits = match tape.below(4) {
        0 => ReadLimits {
            file_bytes: 1 + tape.below(2048) as u64,
            load_bytes: 1 + tape.below(8192) as u64,
        },
        _ => ReadLimits::default(),
    };
    let options = LoadOptions {
        read: limits,
        ..LoadOptions::default()
    };
    let main = root.join("f0.xml");
    let load = load_file(&main, &catalog(), &options);
    check_load(&load);
    let rendered = load.diagnostics.render(&load.map, false);
    assert!(
        !rendered.contains(SECRET),
        "the secret is printed:\n{rendered}"
    );
    let real_root = std::fs::canonicalize(&root).unwrap_or(root.clone());
    let mut read = Vec::new();
    let mut total = 0u64;
    for file in load.map.files() {
        assert!(
            !file.text().contains(SECRET),
            "the secret is read: {}",
            file.name()
        );
        let real =
            std::fs::canonicalize(file.name()).unwrap_or_else(|_| PathBuf::from(file.name()));
        assert!(
            real.starts_with(&real_root),
            "{} is outside the root",
            file.name()
        );
        assert!(!read.contains(&real), "{} is read twice", file.name());
        read.push(real);
        let bytes = file.text().len() as u64;
        assert!(
            bytes <= limits.file_bytes,
            "{} is over the file cap",
            file.name()
        );
        total += bytes;
    }
    assert!(
        total <= limits.load_bytes,
        "{total} bytes read, over the load cap"
    );
    for d in load.diagnostics.errors() {
        if d.message.starts_with("included file") || d.message.contains("cannot be included") {
            assert!(d.span.is_some(), "a refused include is located: {d:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The links a mod could ship in its folder (Unix only).
fn links(root: &Path, secret: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        let _ = symlink(secret, root.join("out.xml"));
        let _ = symlink("/dev/zero", root.join("zero.xml"));
        let _ = symlink(root.join("loop.xml"), root.join("loop.xml"));
    }
    #[cfg(not(unix))]
    let _ = (root, secret);
}

/// The text of file `n` of `files`: includes, a tree that may use the
/// others' trees, and padding.
fn file_text(tape: &mut Tape<'_>, n: usize, files: usize, secret: &Path) -> String {
    let mut text = String::from("<root BTCPP_format=\"4\">\n");
    for _ in 0..tape.below(4) {
        let spelling = INCLUDES[tape.below(INCLUDES.len())];
        let path = spelling
            .replace("{n}", &tape.below(files).to_string())
            .replace("{secret}", &secret.display().to_string());
        text.push_str(&format!("  <include path=\"{path}\"/>\n"));
    }
    let used = tape.below(files + 1);
    let body = if used < files && used != n {
        format!("<SubTree ID=\"T{used}\"/>")
    } else {
        "<ok/>".to_owned()
    };
    text.push_str(&format!(
        "  <BehaviorTree ID=\"T{n}\"><Sequence>{body}<ok/></Sequence></BehaviorTree>\n"
    ));
    // Padding: a comment from a few bytes to past the default caps' tests.
    let pad = [0, 16, 600, 5000][tape.below(4)];
    text.push_str(&format!("  <!--{}-->\n", "p".repeat(pad)));
    text.push_str("</root>\n");
    text
}
