//! Tree files that are not files on disk: a game engine's assets, an
//! archive, a test's table.
//!
//! A [`TreeStore`] gives a load the text of a file by its path in the
//! store: `/`-separated, relative to the store's root. [`Loader::add_stored`]
//! reads a tree and what it includes from one store, and nothing from disk.
//! An include is resolved against the including file's folder by its
//! words alone ([`include_path`]): `.` and `..` are folded, and a path that
//! is absolute or climbs above the root is refused at the place the tree
//! names it, so a tree cannot name a file outside its store. The load's
//! [`ReadLimits`](crate::files::ReadLimits) cap what a store's files may
//! add up to, as they do for files on disk; a store that reads from a
//! stream should stop at [`ReadLimits::file_bytes`](crate::files::ReadLimits)
//! too, as Bevy's asset loader in `treebeard-bevy` does.
//!
//! An engine that reads files asynchronously fetches them first: the main
//! file, then each path [`includes`] finds in it, until no new path is
//! left; then it loads from what it fetched.
//!
//! ```
//! use std::collections::HashMap;
//! use treebeard_load::files::Refusal;
//! use treebeard_load::store::TreeStore;
//! use treebeard_load::{LoadOptions, Loader};
//! use treebeard_shape::{Catalog, LeafSchema};
//!
//! struct Assets(HashMap<&'static str, &'static str>);
//! impl TreeStore for Assets {
//!     fn root(&self) -> &str {
//!         "assets"
//!     }
//!     fn read(&self, path: &str) -> Result<String, Refusal> {
//!         self.0.get(path).map(|text| text.to_string()).ok_or(Refusal::Missing)
//!     }
//! }
//!
//! let assets = Assets(HashMap::from([
//!     ("ai/guard.xml", r#"<root BTCPP_format="4" main_tree_to_execute="Guard">
//!         <include path="common/patrol.xml"/>
//!         <BehaviorTree ID="Guard"><SubTree ID="Patrol"/></BehaviorTree></root>"#),
//!     ("ai/common/patrol.xml", r#"<root BTCPP_format="4">
//!         <BehaviorTree ID="Patrol"><Walk/></BehaviorTree></root>"#),
//! ]));
//! let mut leaves = Catalog::new();
//! leaves.declare("Walk", LeafSchema::action());
//!
//! let mut loader = Loader::new(&leaves, LoadOptions::default());
//! loader.add_stored("ai/guard.xml", &assets);
//! let load = loader.finish();
//! assert!(load.loaded.is_some(), "{}", load.diagnostics.render(&load.map, false));
//! ```
//!
//! [`Loader::add_stored`]: crate::Loader::add_stored

use crate::diagnostic::Diagnostics;
use crate::files::Refusal;
use crate::loader::{LoadOptions, parse};
use crate::source::SourceMap;

/// Where a load's files come from when they are not on disk.
pub trait TreeStore {
    /// The store's name for its root, for the error that refuses a path
    /// outside it (`assets`, the archive's name).
    fn root(&self) -> &str;

    /// The text of the file at `path` (`/`-separated, relative to the
    /// root, `.` and `..` folded), or why it cannot be read.
    ///
    /// # Errors
    /// The [`Refusal`] that says why, reported at the place the tree names
    /// the file.
    fn read(&self, path: &str) -> Result<String, Refusal>;
}

/// The path in a store of the file `written` (as a tree writes it)
/// included by the file at `from`: relative to `from`'s folder, with `.`
/// and `..` folded and `\` read as `/`. `None` when it leaves the store:
/// an absolute path (`/x`, `C:\x`) or one that climbs above the root.
pub fn include_path(from: &str, written: &str) -> Option<String> {
    let written = written.trim();
    let absolute = written.starts_with(['/', '\\'])
        || written.as_bytes().get(1) == Some(&b':')
        || written.is_empty();
    if absolute {
        return None;
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    // The including file's own name.
    parts.pop();
    parts.retain(|p| !p.is_empty() && *p != ".");
    for part in written.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// The files that `text`, the file `name`, includes, as written (its
/// dialect from its name or its text, as a load reads it). A file that
/// does not read includes nothing: the load reports why.
pub fn includes(name: &str, text: &str) -> Vec<Box<str>> {
    let mut map = SourceMap::new();
    let file = map.add(name, text.to_owned());
    let mut diags = Diagnostics::new();
    parse(&map, file, &LoadOptions::default(), &mut diags)
        .map(|doc| doc.includes.into_iter().map(|(path, _)| path).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Loader;
    use std::collections::HashMap;
    use treebeard_shape::{Catalog, LeafSchema};

    struct Table(HashMap<&'static str, String>);

    impl TreeStore for Table {
        fn root(&self) -> &str {
            "assets"
        }
        fn read(&self, path: &str) -> Result<String, Refusal> {
            self.0.get(path).cloned().ok_or(Refusal::Missing)
        }
    }

    fn catalog() -> Catalog {
        let mut leaves = Catalog::new();
        leaves.declare("Walk", LeafSchema::action());
        leaves
    }

    fn main_including(path: &str) -> String {
        format!(
            r#"<root BTCPP_format="4" main_tree_to_execute="Main">
<include path="{path}"/>
<BehaviorTree ID="Main"><SubTree ID="Patrol"/></BehaviorTree></root>"#
        )
    }

    const PATROL: &str =
        r#"<root BTCPP_format="4"><BehaviorTree ID="Patrol"><Walk/></BehaviorTree></root>"#;

    fn load(table: &Table, main: &str) -> String {
        let catalog = catalog();
        let mut loader = Loader::new(&catalog, LoadOptions::default());
        loader.add_stored(main, table);
        let load = loader.finish();
        assert_eq!(load.loaded.is_some(), !load.diagnostics.has_errors());
        load.diagnostics.render(&load.map, false)
    }

    #[test]
    fn include_paths_are_relative_to_the_including_file_and_stay_in_the_store() {
        assert_eq!(
            include_path("ai/guard.xml", "patrol.xml").as_deref(),
            Some("ai/patrol.xml")
        );
        assert_eq!(
            include_path("guard.xml", "./a/b.xml").as_deref(),
            Some("a/b.xml")
        );
        assert_eq!(
            include_path("ai/x/guard.xml", "..\\common//patrol.xml").as_deref(),
            Some("ai/common/patrol.xml")
        );
        assert_eq!(
            include_path("ai/guard.xml", "../patrol.xml").as_deref(),
            Some("patrol.xml")
        );
        for outside in [
            "../../patrol.xml",
            "/etc/passwd",
            "\\\\server\\x",
            "C:\\x.xml",
            " ",
        ] {
            assert_eq!(include_path("ai/guard.xml", outside), None, "{outside}");
        }
    }

    #[test]
    fn includes_are_found_in_every_dialect_and_a_bad_file_has_none() {
        assert_eq!(
            includes("a.xml", &main_including("b.xml")),
            vec!["b.xml".into()]
        );
        assert!(includes("a.xml", "<root").is_empty());
        assert!(includes("a.txt", "hello").is_empty());
    }

    #[test]
    fn a_stored_tree_loads_with_its_includes_from_the_store() {
        let table = Table(HashMap::from([
            ("ai/main.xml", main_including("common/patrol.xml")),
            ("ai/common/patrol.xml", PATROL.to_owned()),
        ]));
        assert_eq!(load(&table, "ai/main.xml"), "");
    }

    #[test]
    fn an_include_outside_the_store_or_missing_is_an_error_where_the_tree_names_it() {
        let table = Table(HashMap::from([(
            "main.xml",
            main_including("../secret.xml"),
        )]));
        let report = load(&table, "main.xml");
        assert!(report.contains("main.xml:2:"), "{report}");
        assert!(
            report.contains("included file `../secret.xml` is outside the content root `assets`"),
            "{report}"
        );
        let table = Table(HashMap::from([("main.xml", main_including("gone.xml"))]));
        let report = load(&table, "main.xml");
        assert!(
            report.contains("included file `gone.xml` does not exist"),
            "{report}"
        );
        let report = load(&table, "nothing.xml");
        assert!(
            report.contains("cannot read `nothing.xml`: it does not exist"),
            "{report}"
        );
    }

    #[test]
    fn a_stored_file_over_the_read_limits_is_refused_unread() {
        let table = Table(HashMap::from([
            ("main.xml", main_including("patrol.xml")),
            ("patrol.xml", PATROL.to_owned()),
        ]));
        let catalog = catalog();
        let main = table.0["main.xml"].len() as u64;
        let report = |file_bytes: u64, load_bytes: u64| {
            let mut options = LoadOptions::default();
            options.read.file_bytes = file_bytes;
            options.read.load_bytes = load_bytes;
            let mut loader = Loader::new(&catalog, options);
            loader.add_stored("main.xml", &table);
            let load = loader.finish();
            assert!(load.loaded.is_none());
            load.diagnostics.render(&load.map, false)
        };
        let one = report(main - 1, u64::MAX);
        assert!(one.contains("cannot read `main.xml`: it is"), "{one}");
        assert!(one.contains("over the limit"), "{one}");
        let all = report(main, main + PATROL.len() as u64 - 1);
        assert!(
            all.contains("included file `patrol.xml` would take the load over its limit"),
            "{all}"
        );
    }

    #[test]
    fn includes_that_include_each_other_are_read_once() {
        let table = Table(HashMap::from([
            ("main.xml", main_including("patrol.xml")),
            (
                "patrol.xml",
                r#"<root BTCPP_format="4"><include path="main.xml"/>
<BehaviorTree ID="Patrol"><Walk/></BehaviorTree></root>"#
                    .to_owned(),
            ),
        ]));
        assert_eq!(load(&table, "main.xml"), "");
    }
}
