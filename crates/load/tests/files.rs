//! Files a tree names are untrusted (`treebeard_load::files`): includes stay
//! inside the content root, only regular files are opened, reads are
//! capped, one file is read once however it is spelt, and a refusal is an
//! error at the include that prints nothing of the refused file.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use treebeard_load::files::ReadLimits;
use treebeard_load::{Diagnostic, Load, LoadOptions, load_file, load_str};
use treebeard_shape::{Catalog, LeafSchema};

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.declare("ok", LeafSchema::condition());
    c
}

/// A fresh folder for one test: `dir/root` is where the trees are.
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("treebeard-files-{name}-"))
            .tempdir()
            .expect("a temporary folder");
        std::fs::create_dir_all(dir.path().join("root/sub")).expect("a temporary folder");
        Scratch(dir)
    }

    fn write(&self, path: &str, text: &str) -> PathBuf {
        let path = self.0.path().join(path);
        std::fs::write(&path, text).expect("a temporary file");
        path
    }

    fn root(&self) -> PathBuf {
        self.0.path().join("root")
    }
}

/// A BT.CPP file that includes `path` and has a tree of its own.
fn including(path: &str) -> String {
    format!(
        "<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  \
         <include path=\"{path}\"/>\n  \
         <BehaviorTree ID=\"Main\"><ok/></BehaviorTree>\n</root>\n"
    )
}

const SECRET: &str = "{\"password\": \"hunter2-do-not-print\"}";

/// The load's only error, which must be at the include's path (line 2 of the
/// main file) and must not print the secret.
fn refused_include(load: &Load, main: &str) -> Diagnostic {
    let rendered = load.diagnostics.render(&load.map, false);
    assert!(!rendered.contains("hunter2"), "{rendered}");
    assert!(!rendered.contains("root:x:0"), "{rendered}");
    let errors: Vec<&Diagnostic> = load.diagnostics.errors().collect();
    assert_eq!(errors.len(), 1, "{rendered}");
    let at = errors[0].location(&load.map).expect("a place");
    assert!(at.ends_with(&format!("{main}:2:18")), "{at}\n{rendered}");
    assert!(load.loaded.is_none());
    errors[0].clone()
}

fn load(path: &Path) -> Load {
    load_file(path, &catalog(), &LoadOptions::default())
}

#[test]
fn includes_inside_the_folder_load() {
    let s = Scratch::new("inside");
    s.write(
        "root/sub/part.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Part\"><ok/></BehaviorTree></root>",
    );
    let main = s.write("root/main.xml", &including("sub/part.xml"));
    let l = load(&main);
    assert!(
        l.loaded.is_some(),
        "{}",
        l.diagnostics.render(&l.map, false)
    );
    assert_eq!(l.map.files().len(), 2);
}

#[test]
fn an_absolute_include_outside_the_root_is_refused() {
    let s = Scratch::new("absolute");
    let main = s.write("root/main.xml", &including("/etc/passwd"));
    let d = refused_include(&load(&main), "main.xml");
    assert!(
        d.message.contains("outside the content root"),
        "{}",
        d.message
    );
}

#[test]
fn a_dot_dot_escape_is_refused_and_its_content_not_printed() {
    let s = Scratch::new("escape");
    s.write("secret.json", SECRET);
    let main = s.write("root/main.xml", &including("../secret.json"));
    let d = refused_include(&load(&main), "main.xml");
    assert_eq!(
        d.message,
        "included file `../secret.json` is outside the content root `".to_owned()
            + &std::fs::canonicalize(s.root())
                .expect("exists")
                .display()
                .to_string()
            + "`"
    );
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_root_is_refused_and_a_link_loop_named() {
    let s = Scratch::new("links");
    let secret = s.write("secret.json", SECRET);
    std::os::unix::fs::symlink(&secret, s.0.path().join("root/inner.json")).expect("a link");
    let main = s.write("root/main.xml", &including("inner.json"));
    let d = refused_include(&load(&main), "main.xml");
    assert!(
        d.message.contains("outside the content root"),
        "{}",
        d.message
    );

    let looped = s.0.path().join("root/loop.xml");
    std::os::unix::fs::symlink(&looped, &looped).expect("a link");
    let main = s.write("root/main2.xml", &including("loop.xml"));
    let d = refused_include(&load(&main), "main2.xml");
    assert_eq!(
        d.message,
        "included file `loop.xml` is a loop of symbolic links"
    );
}

#[test]
fn an_empty_path_or_a_folder_is_an_error_at_the_include() {
    let s = Scratch::new("folder");
    let main = s.write("root/main.xml", &including(""));
    let d = refused_include(&load(&main), "main.xml");
    assert_eq!(d.message, "included file `` is an empty path");
    let main = s.write("root/main2.xml", &including("sub"));
    let d = refused_include(&load(&main), "main2.xml");
    assert_eq!(
        d.message,
        "included file `sub` is a folder, not a regular file"
    );
}

#[test]
fn a_missing_include_says_where_it_looked() {
    let s = Scratch::new("missing");
    let main = s.write("root/main.xml", &including("nowhere.xml"));
    let d = refused_include(&load(&main), "main.xml");
    assert_eq!(d.message, "included file `nowhere.xml` does not exist");
    assert!(
        d.help.as_deref().is_some_and(|h| h.contains("nowhere.xml")),
        "{d:?}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn devices_and_fifos_are_refused_at_once() {
    let s = Scratch::new("devices");
    std::os::unix::fs::symlink("/dev/zero", s.0.path().join("root/zero.xml")).expect("a link");
    let fifo = s.0.path().join("root/pipe.xml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let started = Instant::now();
    // As the main file: named by the user, so not confined, but still
    // only a regular file is read.
    let d = only(&load(Path::new("/dev/zero")));
    assert_eq!(
        d.message,
        "cannot read `/dev/zero`: it is a device, not a regular file"
    );
    // As an include, through a link inside the root.
    let main = s.write("root/main.xml", &including("zero.xml"));
    let d = refused_include(&load(&main), "main.xml");
    assert!(
        d.message.contains("outside the content root"),
        "{}",
        d.message
    );
    let options = LoadOptions {
        root: Some(PathBuf::from("/dev")),
        ..LoadOptions::default()
    };
    let l = load_str("main.xml", &including("zero"), &catalog(), &options);
    let d = refused_include(&l, "main.xml");
    assert_eq!(
        d.message,
        "included file `zero` is a device, not a regular file"
    );
    if made.is_ok_and(|m| m.success()) {
        let d = only(&load(&fifo));
        assert!(
            d.message.ends_with("is a FIFO, not a regular file"),
            "{}",
            d.message
        );
        let main = s.write("root/main2.xml", &including("pipe.xml"));
        let d = refused_include(&load(&main), "main2.xml");
        assert_eq!(
            d.message,
            "included file `pipe.xml` is a FIFO, not a regular file"
        );
    }
    assert!(started.elapsed() < Duration::from_secs(10), "prompt");
}

fn only(load: &Load) -> Diagnostic {
    let errors: Vec<&Diagnostic> = load.diagnostics.errors().collect();
    assert_eq!(
        errors.len(),
        1,
        "{}",
        load.diagnostics.render(&load.map, false)
    );
    errors[0].clone()
}

#[test]
fn a_file_spelt_two_ways_is_read_once() {
    let s = Scratch::new("spelling");
    // `a.xml` includes itself through its folder's name: once read, the
    // second spelling is the same file.
    let a = s.write("root/sub/a.xml", &including("../sub/./a.xml"));
    let l = load(&a);
    assert_eq!(
        l.map.files().len(),
        1,
        "{}",
        l.diagnostics.render(&l.map, false)
    );
    assert!(
        l.loaded.is_some(),
        "{}",
        l.diagnostics.render(&l.map, false)
    );
}

#[test]
fn reads_are_capped_per_file_and_per_load() {
    let s = Scratch::new("caps");
    let part = "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Part\"><ok/></BehaviorTree></root>";
    s.write("root/part.xml", part);
    let main = s.write("root/main.xml", &including("part.xml"));
    let main_len = std::fs::metadata(&main).expect("exists").len();
    let small = |file_bytes, load_bytes| LoadOptions {
        read: ReadLimits {
            file_bytes,
            load_bytes,
        },
        ..LoadOptions::default()
    };
    // The main file over the per-file cap.
    let l = load_file(&main, &catalog(), &small(main_len - 1, 1 << 20));
    let d = only(&l);
    assert!(
        d.message.contains(&format!(
            "over the limit of {} bytes per file",
            main_len - 1
        )),
        "{}",
        d.message
    );
    // The include over what the load has left.
    let l = load_file(&main, &catalog(), &small(1 << 20, main_len + 10));
    let d = refused_include(&l, "main.xml");
    assert_eq!(
        d.message,
        format!(
            "included file `part.xml` would take the load over its limit of {} bytes",
            main_len + 10
        )
    );
    // Both fit.
    let l = load_file(
        &main,
        &catalog(),
        &small(1 << 20, main_len + part.len() as u64),
    );
    assert!(
        l.loaded.is_some(),
        "{}",
        l.diagnostics.render(&l.map, false)
    );
}

#[test]
fn a_tree_from_text_includes_only_from_a_root_it_is_given() {
    let s = Scratch::new("text");
    s.write(
        "root/part.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Part\"><ok/></BehaviorTree></root>",
    );
    let text = including("part.xml");
    let l = load_str("main.xml", &text, &catalog(), &LoadOptions::default());
    let d = refused_include(&l, "main.xml");
    assert_eq!(
        d.message,
        "`part.xml` cannot be included: a tree read from text has no folder to include from"
    );
    let options = LoadOptions {
        root: Some(s.root()),
        ..LoadOptions::default()
    };
    // Relative to the root, not to the working directory.
    let l = load_str("main.xml", &text, &catalog(), &options);
    assert!(
        l.loaded.is_some(),
        "{}",
        l.diagnostics.render(&l.map, false)
    );
    // Or to the folder the text is said to be in.
    let leaves = catalog();
    let mut loader = treebeard_load::Loader::new(&leaves, options);
    loader.add_source("main.xml", text, Some(&s.root()));
    let l = loader.finish();
    assert!(
        l.loaded.is_some(),
        "{}",
        l.diagnostics.render(&l.map, false)
    );
}

#[test]
fn a_wider_root_admits_a_sibling_folder() {
    let s = Scratch::new("wider");
    std::fs::create_dir_all(s.0.path().join("shared")).expect("a folder");
    s.write(
        "shared/part.xml",
        "<root BTCPP_format=\"4\"><BehaviorTree ID=\"Part\"><ok/></BehaviorTree></root>",
    );
    let main = s.write("root/main.xml", &including("../shared/part.xml"));
    assert!(load(&main).loaded.is_none());
    let options = LoadOptions {
        root: Some(s.0.path().to_path_buf()),
        ..LoadOptions::default()
    };
    let l = load_file(&main, &catalog(), &options);
    assert!(
        l.loaded.is_some(),
        "{}",
        l.diagnostics.render(&l.map, false)
    );
    // A root that is not a folder is an error of its own.
    let options = LoadOptions {
        root: Some(s.0.path().join("nope")),
        ..LoadOptions::default()
    };
    let d = only(&load_file(&main, &catalog(), &options));
    assert!(d.message.starts_with("the content root `"), "{}", d.message);
}
