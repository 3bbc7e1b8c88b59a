//! A fresh directory under the system's temporary directory for one test,
//! removed when the test ends (tempfile's).

/// A temporary directory named after `name`, removed on drop.
pub fn test_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("bench-report-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}
