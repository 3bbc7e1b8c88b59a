//! What the command-line tests share.

use std::path::PathBuf;

/// A temporary directory for one test, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh directory named after the test and this process.
    pub fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("treebeard-cli-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }

    /// The directory.
    pub fn root(&self) -> &std::path::Path {
        &self.0
    }

    /// The file `name` in it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
