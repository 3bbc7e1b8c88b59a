//! What the command-line tests share.

#![allow(dead_code)] // Each test crate uses some of it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A temporary directory for one test, removed when dropped.
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    /// A fresh directory named after the test.
    pub fn new(test: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("treebeard-cli-{test}-"))
            .tempdir()
            .expect("a temporary directory");
        TempDir(dir)
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        self.0.path()
    }

    /// The file `name` in it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
}

/// What a run of the binary did.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Both streams, for failure messages.
    pub fn both(&self) -> String {
        format!(
            "exit code {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    /// Asserts the exit code.
    pub fn code(&self, code: i32) -> &Out {
        assert_eq!(self.code, code, "{}", self.both());
        self
    }

    /// Asserts that stderr holds `text`.
    pub fn err_has(&self, text: &str) -> &Out {
        assert!(
            self.stderr.contains(text),
            "stderr lacks {text:?}:\n{}",
            self.both()
        );
        self
    }

    /// Asserts that stderr does not hold `text`.
    pub fn err_lacks(&self, text: &str) -> &Out {
        assert!(
            !self.stderr.contains(text),
            "stderr holds {text:?}:\n{}",
            self.both()
        );
        self
    }

    /// Asserts that stdout holds `text`.
    pub fn out_has(&self, text: &str) -> &Out {
        assert!(
            self.stdout.contains(text),
            "stdout lacks {text:?}:\n{}",
            self.both()
        );
        self
    }
}

/// Runs `treebeard --color never ARGS` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Out {
    let mut all = vec!["--color", "never"];
    all.extend_from_slice(args);
    raw_in(dir, &all)
}

/// Runs `treebeard ARGS` in `dir`, with no colour flag.
pub fn raw_in(dir: &Path, args: &[&str]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_treebeard"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs");
    Out {
        code: out.status.code().expect("an exit code, not a signal"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    }
}

/// `treebeard --color never ARGS` in `dir`: exit code, stdout, stderr.
pub fn tb_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_treebeard"))
        .args(["--color", "never"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    (
        out.status.code().expect("an exit code, not a signal"),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}
