//! The one error type of bench-report: a message for the person running it,
//! naming the file at fault and what to do about it.

use std::fmt;
use std::path::Path;

/// Why bench-report could not produce its report: printed on stderr as is,
/// then the tool exits with a non-zero status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    /// An error with this message (already naming the file and the remedy).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// An input/output error while doing `action` ("read", "write", ...) on
    /// `path`.
    pub fn io(action: &str, path: &Path, err: &std::io::Error) -> Self {
        Self::new(format!("cannot {action} {}: {err}", path.display()))
    }

    /// The message, for tests.
    #[cfg(test)]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The result of bench-report's fallible steps.
pub type Result<T> = std::result::Result<T, Error>;
