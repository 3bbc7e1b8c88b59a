//! Finding the workspace root and writing one path relative to another
//! (for the plot links in BENCHMARKS.md).

use crate::error::{Error, Result};
use std::path::{Component, Path, PathBuf};

/// The nearest directory at or above `start` whose Cargo.toml has a
/// `[workspace]` table.
pub fn workspace_root(start: &Path) -> Result<PathBuf> {
    for dir in start.ancestors() {
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        if text.lines().any(|l| l.trim() == "[workspace]") {
            return Ok(dir.to_path_buf());
        }
    }
    Err(Error::new(format!(
        "no workspace Cargo.toml (one with `[workspace]`) at or above {}: run bench-report \
         inside the treebeard workspace, or pass --criterion, --out and --plots",
        start.display()
    )))
}

/// `path` made absolute against `base` and with `.` and `..` resolved as
/// text (links are not followed).
pub fn normalise(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path of `to` as a Markdown link from a file in directory `from`,
/// `/`-separated; both absolute and normalised.
pub fn relative_link(from: &Path, to: &Path) -> String {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdir::test_dir;

    #[test]
    fn finds_the_workspace_root_from_below() {
        let dir = test_dir("root");
        let root = dir.path();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"benches\"]\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("benches/report")).unwrap();
        std::fs::write(root.join("benches/Cargo.toml"), "[package]\nname = \"b\"\n").unwrap();
        assert_eq!(workspace_root(&root.join("benches/report")).unwrap(), root);
        assert_eq!(workspace_root(root).unwrap(), root);
    }

    #[test]
    fn links_are_relative() {
        let link = |a: &str, b: &str| relative_link(Path::new(a), Path::new(b));
        assert_eq!(
            link("/w", "/w/docs/bench/agents.svg"),
            "docs/bench/agents.svg"
        );
        assert_eq!(link("/w/docs", "/w/docs/bench/a.svg"), "bench/a.svg");
        assert_eq!(link("/w/x/y", "/w/docs/a.svg"), "../../docs/a.svg");
        assert_eq!(
            normalise(Path::new("/w/benches"), Path::new("../docs/./bench")),
            Path::new("/w/docs/bench")
        );
        assert_eq!(
            normalise(Path::new("/w"), Path::new("/abs")),
            Path::new("/abs")
        );
    }
}
