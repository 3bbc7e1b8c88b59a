//! Reading untrusted files: what a load may open, and how much of it.
//!
//! Tree files come from designers, and in some games from mods or
//! downloads, so every file a load reads is checked before it is opened:
//!
//! * **It stays inside the content root.** A file the user names (the
//!   command line's argument, [`Loader::add_file`]'s path) may be anywhere;
//!   a file a tree names (an `<include path=..>`, a scenario's `tree:`) must
//!   resolve, symbolic links followed, to a path inside the
//!   [`ContentRoot`]: by default the named file's folder, or the one
//!   [`LoadOptions::root`] (the command line's `--root`) sets. Absolute
//!   paths, `..` escapes and links out of it are refused at the place the
//!   tree names them, and nothing of a refused file is read.
//! * **It is a regular file.** Directories, FIFOs, sockets and devices
//!   (`/dev/zero`, `/proc` entries report a size of 0 but never end) are
//!   refused before they are opened; the open itself does not block, and
//!   the opened file is checked again.
//! * **It is small enough.** [`ReadLimits`] caps the bytes of one file and
//!   of one load; a file that grows while it is read stops at the cap.
//! * **It is read once.** Files are known by their canonical path, so one
//!   file spelt two ways (`a.xml`, `../dir/a.xml`) is one file.
//!
//! An editor sets the project's folder as the root; a mod loader, the
//! mod's own, with tighter caps (docs/trees.md, "Files from elsewhere"):
//!
//! ```
//! use std::path::PathBuf;
//! use treebeard_load::LoadOptions;
//! use treebeard_load::files::ReadLimits;
//!
//! let editor = LoadOptions {
//!     root: Some(PathBuf::from("assets/trees")),
//!     ..LoadOptions::default()
//! };
//! let mods = LoadOptions {
//!     root: Some(PathBuf::from("mods/goblin-raid")),
//!     read: ReadLimits { file_bytes: 1 << 20, load_bytes: 4 << 20 },
//!     ..LoadOptions::default()
//! };
//! # let _ = (editor, mods);
//! ```
//!
//! [`Loader::add_file`]: crate::Loader::add_file
//! [`LoadOptions::root`]: crate::LoadOptions::root

use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The bytes a load may read (serde, for settings files such as Bevy's
/// asset meta files).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadLimits {
    /// The most bytes of one file (default 32 MiB: a tree at the node cap,
    /// [`MAX_NODES`](crate::limits::MAX_NODES), written out in full, takes
    /// about 16).
    pub file_bytes: u64,
    /// The most bytes of all the files of one load (default 128 MiB).
    pub load_bytes: u64,
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits {
            file_bytes: 32 << 20,
            load_bytes: 128 << 20,
        }
    }
}

/// The folder that the files a tree names must stay inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentRoot {
    /// Canonical: absolute, without links, `.` or `..`.
    dir: PathBuf,
}

impl ContentRoot {
    /// The folder `dir`, which must exist.
    ///
    /// # Errors
    /// If `dir` cannot be resolved, or is not a folder.
    pub fn new(dir: &Path) -> io::Result<ContentRoot> {
        // `Path::new("")`, a bare file name's parent, is the current folder.
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let dir = std::fs::canonicalize(dir)?;
        if !dir.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "the content root is not a folder",
            ));
        }
        Ok(ContentRoot { dir })
    }

    /// The folder of the file at `path`: the default root of a load.
    ///
    /// # Errors
    /// If the folder cannot be resolved.
    pub fn of_file(path: &Path) -> io::Result<ContentRoot> {
        ContentRoot::new(path.parent().unwrap_or(Path::new(".")))
    }

    /// The folder, canonical.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the file at `path` (as a tree names it, already joined to the
    /// naming file's folder) really is, if inside the root: its canonical
    /// path, every link resolved.
    ///
    /// # Errors
    /// [`Refusal::Missing`], [`Refusal::LinkLoop`] or [`Refusal::Unreadable`]
    /// when it cannot be resolved, [`Refusal::OutsideRoot`] when it resolves
    /// elsewhere.
    pub fn confine(&self, path: &Path) -> Result<PathBuf, Refusal> {
        let real = std::fs::canonicalize(path).map_err(Refusal::from_io)?;
        if real.starts_with(&self.dir) {
            Ok(real)
        } else {
            Err(Refusal::OutsideRoot {
                root: self.dir.clone(),
            })
        }
    }
}

/// Why a file was not read.
#[derive(Debug)]
#[non_exhaustive]
pub enum Refusal {
    /// Nothing is there.
    Missing,
    /// Its symbolic links lead back to themselves.
    LinkLoop,
    /// It resolves outside the content root.
    OutsideRoot {
        /// The root, canonical.
        root: PathBuf,
    },
    /// It is not a regular file: what it is ("a folder", "a FIFO", ...).
    NotAFile(&'static str),
    /// It is larger than the cap, or the load's remaining budget.
    TooLarge {
        /// Its size, or at least this many bytes (one past the cap).
        size: u64,
        /// The cap it exceeds.
        limit: u64,
        /// Whether the cap is the load's (all files together) rather than
        /// one file's.
        load: bool,
    },
    /// Reading it failed.
    Unreadable(io::Error),
}

impl Refusal {
    fn from_io(e: io::Error) -> Refusal {
        match e.kind() {
            io::ErrorKind::NotFound => Refusal::Missing,
            // ELOOP has no stable `ErrorKind` of its own.
            #[cfg(unix)]
            _ if e.raw_os_error() == Some(libc::ELOOP) => Refusal::LinkLoop,
            _ => Refusal::Unreadable(e),
        }
    }

    /// What to do about it.
    pub fn help(&self) -> &'static str {
        match self {
            Refusal::Missing => "check the path: it is relative to the file that names it",
            Refusal::LinkLoop => "a symbolic link on the path points back at itself",
            Refusal::OutsideRoot { .. } => {
                "files a tree names must stay inside its content root (the main file's folder \
                 unless `--root` or `LoadOptions::root` sets another): move the file in, or \
                 widen the root"
            }
            Refusal::NotAFile(_) => "name a regular file",
            Refusal::TooLarge { load: false, .. } => {
                "split the file, or raise `ReadLimits::file_bytes` if it is trusted"
            }
            Refusal::TooLarge { load: true, .. } => {
                "include fewer or smaller files, or raise `ReadLimits::load_bytes` if they are \
                 trusted"
            }
            Refusal::Unreadable(_) => "check the file's permissions",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Missing => f.write_str("does not exist"),
            Refusal::LinkLoop => f.write_str("is a loop of symbolic links"),
            Refusal::OutsideRoot { root } => {
                write!(f, "is outside the content root `{}`", root.display())
            }
            Refusal::NotAFile(what) => write!(f, "is {what}, not a regular file"),
            Refusal::TooLarge {
                size,
                limit,
                load: false,
            } => write!(
                f,
                "is {size} bytes, over the limit of {limit} bytes per file"
            ),
            Refusal::TooLarge {
                limit, load: true, ..
            } => write!(f, "would take the load over its limit of {limit} bytes"),
            Refusal::Unreadable(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

/// What a non-regular file is, in words.
fn what_it_is(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    "not a regular file"
}

/// The bytes of the regular file at `path`, at most `limit` of them.
///
/// The file's type and size are checked before it is opened, the open
/// does not block (a FIFO swapped in meanwhile cannot hang it), the opened
/// file is checked again, and reading stops one byte past `limit`.
///
/// # Errors
/// Every [`Refusal`] but [`Refusal::OutsideRoot`].
pub fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let meta = std::fs::metadata(path).map_err(Refusal::from_io)?;
    check(&meta, limit)?;
    let file = open(path).map_err(Refusal::from_io)?;
    let meta = file.metadata().map_err(Refusal::Unreadable)?;
    check(&meta, limit)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refusal::Unreadable)?;
    let size = bytes.len() as u64;
    if size > limit {
        return Err(Refusal::TooLarge {
            size,
            limit,
            load: false,
        });
    }
    Ok(bytes)
}

fn check(meta: &Metadata, limit: u64) -> Result<(), Refusal> {
    if !meta.is_file() {
        return Err(Refusal::NotAFile(what_it_is(meta)));
    }
    if meta.len() > limit {
        return Err(Refusal::TooLarge {
            size: meta.len(),
            limit,
            load: false,
        });
    }
    Ok(())
}

#[cfg(unix)]
fn open(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed when dropped, holding `root/sub`.
    fn scratch(name: &str) -> tempfile::TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("treebeard-files-{name}-"))
            .tempdir()
            .unwrap();
        std::fs::create_dir_all(dir.path().join("root/sub")).unwrap();
        dir
    }

    #[test]
    fn confines_to_the_root_through_links_and_dots() {
        let scratch = scratch("confine");
        let dir = scratch.path();
        std::fs::write(dir.join("secret.txt"), "s").unwrap();
        std::fs::write(dir.join("root/sub/a.xml"), "a").unwrap();
        let root = ContentRoot::new(&dir.join("root")).unwrap();
        let inside = root.confine(&dir.join("root/sub/../sub/a.xml")).unwrap();
        assert!(inside.ends_with("root/sub/a.xml"));
        let out = root.confine(&dir.join("root/../secret.txt"));
        assert!(matches!(out, Err(Refusal::OutsideRoot { .. })), "{out:?}");
        assert!(matches!(
            root.confine(Path::new("/etc/passwd")),
            Err(Refusal::OutsideRoot { .. }) | Err(Refusal::Missing)
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("secret.txt"), dir.join("root/link.xml")).unwrap();
            let linked = root.confine(&dir.join("root/link.xml"));
            assert!(
                matches!(linked, Err(Refusal::OutsideRoot { .. })),
                "{linked:?}"
            );
            std::os::unix::fs::symlink(dir.join("root/loop.xml"), dir.join("root/loop.xml"))
                .unwrap();
            let looped = root.confine(&dir.join("root/loop.xml"));
            assert!(matches!(looped, Err(Refusal::LinkLoop)), "{looped:?}");
        }
        let missing = root.confine(&dir.join("root/none.xml"));
        assert!(matches!(missing, Err(Refusal::Missing)), "{missing:?}");
    }

    #[test]
    fn reads_regular_files_up_to_the_cap() {
        let scratch = scratch("read");
        let dir = scratch.path();
        let file = dir.join("root/a.xml");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_bytes(&file, 10).unwrap(), b"0123456789");
        let big = read_bytes(&file, 9);
        assert!(
            matches!(
                big,
                Err(Refusal::TooLarge {
                    size: 10,
                    limit: 9,
                    load: false
                })
            ),
            "{big:?}"
        );
        let folder = read_bytes(&dir.join("root/sub"), 10);
        assert!(
            matches!(folder, Err(Refusal::NotAFile("a folder"))),
            "{folder:?}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn refuses_devices_and_fifos_without_blocking() {
        let zero = read_bytes(Path::new("/dev/zero"), 1 << 20);
        assert!(
            matches!(zero, Err(Refusal::NotAFile("a device"))),
            "{zero:?}"
        );
        let scratch = scratch("fifo");
        let dir = scratch.path();
        let fifo = dir.join("root/pipe.xml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let read = read_bytes(&fifo, 1 << 20);
            assert!(matches!(read, Err(Refusal::NotAFile("a FIFO"))), "{read:?}");
        }
    }
}
