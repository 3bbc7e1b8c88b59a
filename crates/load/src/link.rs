//! Open-world child trees (seed 001): linking a child tree compiled on its
//! own into the `ChildTree` connectors of a running tree.
//!
//! A connector offers the child trees written under it (the closed world,
//! which the validator checks when the tree loads). A game that learns of
//! new behaviour at run time (a smart object placed by a level designer, a
//! mod, a tree edited while the game runs) compiles that tree on its own,
//! with its own file and its own diagnostics, and [`offer`]s it: the result
//! is the running tree with the child tree offered, under its name, at
//! every connector the running tree has, exactly as if it had been written
//! there. Offering a name a connector already offers replaces that tree
//! (an update). Everything that holds for written child trees holds for
//! linked ones: every agent shares the one copy; copies at several
//! connectors are one tree whose `Gate` and `GlobalCooldown` nodes share
//! their state; an agent's state holds only what its own child tree runs.
//!
//! Linking writes both trees back out ([`TreeFile::from_shape`]), grafts
//! the child's nodes under each connector, merges the two trees'
//! declarations by name, and loads the result through the same reader and
//! validator as any file, so a linked tree is exactly the closed-world tree
//! a designer could have written. Each node keeps where it was written:
//! the main tree's nodes their places in the main tree's files, the child's
//! in the child's.
//!
//! Rules a linked tree follows:
//! * The child tree is offered at the connectors of the tree it is linked
//!   into, not at the connectors inside itself (so linking terminates), and
//!   after the trees a connector already offers.
//! * The child's nodes take their identities from their places (their paths
//!   under each connector, see [`treebeard_shape::NodeMap`]): identities
//!   given in the child's file would collide between copies.
//! * Declarations (variables, signals, timestamps, stimuli) merge by name: a
//!   child may use the main tree's variables, and declares its own; one
//!   name declared two ways is an error ([`LinkError::Declaration`]).
//!
//! A crowd links and reloads in one call, carrying every agent's state:
//! `Crowd::offer_child_tree`.
//!
//! ```
//! use treebeard_load::link::offer;
//! use treebeard_shape::tree::{act, child_trees, sequence};
//! use treebeard_shape::{Catalog, LeafSchema, Limits, compile};
//!
//! let mut catalog = Catalog::new();
//! for name in ["Walk", "Open", "Sit"] {
//!     catalog.declare(name, LeafSchema::action());
//! }
//! let main = compile(&sequence([act("Walk"), child_trees([("bench", act("Sit"))]).named("use")]), &catalog)?;
//! // Compiled on its own, as a smart object's file would be.
//! let door = compile(&act("Open"), &catalog)?;
//! let linked = offer(&main, "door", &door, &catalog, &Limits::default())?;
//! let connector = linked.find("use").unwrap();
//! assert_eq!(linked.child_tree(connector, "bench"), Some(0));
//! assert_eq!(linked.child_tree(connector, "door"), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::LoadOptions;
use crate::native::{NodeDef, TreeFile};
use std::fmt;
use treebeard_shape::{Kind, LeafCatalog, Limits, NodeIdx, Shape, Source};

/// Why a child tree could not be linked. The running tree is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkError {
    /// The child tree's name is empty.
    EmptyName,
    /// The tree has no `ChildTree` connector to offer a child tree at.
    NoConnector,
    /// The two trees declare one name differently.
    Declaration {
        /// What is declared: `variable`, `signal`, `timestamp` or `stimulus`.
        what: &'static str,
        /// Its name (a signal's: its event and variable).
        name: String,
        /// The running tree's declaration.
        main: String,
        /// The child tree's.
        child: String,
    },
    /// The linked tree does not load: it would exceed the limits, or break
    /// a rule of child trees (the child offers, inside itself, a tree of a
    /// name the running tree offers differently). Each problem, with the
    /// node's path in the linked tree.
    Invalid(Vec<String>),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::EmptyName => f.write_str("a child tree needs a name: connectors offer trees by name"),
            LinkError::NoConnector => f.write_str(
                "the tree has no ChildTree connector to offer a child tree at; add one where agents may run injected behaviour",
            ),
            LinkError::Declaration {
                what,
                name,
                main,
                child,
            } => write!(
                f,
                "the child tree declares {what} `{name}` as {child}, but the running tree as {main}; \
                 rename one of them, or declare it alike"
            ),
            LinkError::Invalid(problems) => {
                write!(f, "the linked tree does not load: {}", problems.join("; "))
            }
        }
    }
}

impl std::error::Error for LinkError {}

/// Where a node of the linked tree comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Main(NodeIdx),
    Child(NodeIdx),
}

/// `main` with `child` offered as `name` at every `ChildTree` connector of
/// `main`: after the trees each offers, or in place of the tree each offers
/// under that name. `catalog` is the one both trees were compiled against;
/// `limits` caps the linked tree as the loader's do.
///
/// # Errors
/// See [`LinkError`]; `main` and `child` are unchanged.
pub fn offer(
    main: &Shape,
    name: &str,
    child: &Shape,
    catalog: &dyn LeafCatalog,
    limits: &Limits,
) -> Result<Shape, LinkError> {
    if name.is_empty() {
        return Err(LinkError::EmptyName);
    }
    let connectors = (0..main.len() as u32)
        .map(NodeIdx::new)
        .filter(|&n| main.kind(n) == Kind::ChildTree)
        .count();
    if connectors == 0 {
        return Err(LinkError::NoConnector);
    }
    let tree_name = main.node(NodeIdx::ROOT).name.to_string();
    let mut file = TreeFile::from_shape(&tree_name, main);
    let Some(main_tree) = file.trees.first_mut() else {
        unreachable!("a file written from a shape holds its tree")
    };
    let mut grafted = TreeFile::from_shape(name, child);
    let Some(child_tree) = grafted.trees.pop() else {
        unreachable!("a file written from a shape holds its tree")
    };
    let mut child_root = child_tree.root;
    child_root.name = Some(name.to_owned());
    forget_ids(&mut child_root);
    let graft = Graft {
        main,
        name,
        child: &child_root,
        child_len: child.len() as u32,
    };
    let mut origins = Vec::with_capacity(main.len() + connectors * child.len());
    graft.node(&mut main_tree.root, NodeIdx::ROOT, &mut origins);
    merge_declarations(&mut file, &grafted, main, child)?;

    let options = LoadOptions {
        limits: *limits,
        ..LoadOptions::default()
    };
    let load = crate::load_str("linked.json", &file.to_json(), catalog, &options);
    let Some(loaded) = load.loaded else {
        return Err(LinkError::Invalid(
            load.diagnostics
                .errors()
                .map(|d| match &d.path {
                    Some(path) => format!("`{path}`: {}", d.message),
                    None => d.message.clone(),
                })
                .collect(),
        ));
    };
    with_sources(loaded.shape, &origins, main, child, limits)
}

/// Clears the identities given in a child tree's nodes.
fn forget_ids(def: &mut NodeDef) {
    let mut stack = vec![def];
    while let Some(def) = stack.pop() {
        def.id = None;
        stack.extend(def.children.iter_mut());
    }
}

/// Grafts a child tree into the written main tree, recording each linked
/// node's origin in the linked stream's order.
struct Graft<'a> {
    main: &'a Shape,
    name: &'a str,
    child: &'a NodeDef,
    child_len: u32,
}

impl Graft<'_> {
    /// Grafts under `node` (written as `def`), depth first: the written
    /// tree's children are the shape's, one for one.
    fn node(&self, def: &mut NodeDef, node: NodeIdx, origins: &mut Vec<Origin>) {
        origins.push(Origin::Main(node));
        let connector = self.main.kind(node) == Kind::ChildTree;
        let mut offered = false;
        for (child_def, child) in def.children.iter_mut().zip(self.main.children(node)) {
            if connector && *self.main.node(child).name == *self.name {
                *child_def = self.child.clone();
                self.child_origins(origins);
                offered = true;
            } else {
                self.node(child_def, child, origins);
            }
        }
        if connector && !offered {
            def.children.push(self.child.clone());
            self.child_origins(origins);
        }
    }

    fn child_origins(&self, origins: &mut Vec<Origin>) {
        origins.extend((0..self.child_len).map(|i| Origin::Child(NodeIdx::new(i))));
    }
}

/// Adds the child's declarations the main tree lacks to `file`, or says
/// which name the two declare differently.
fn merge_declarations(
    file: &mut TreeFile,
    child_file: &TreeFile,
    main: &Shape,
    child: &Shape,
) -> Result<(), LinkError> {
    let conflict = |what, name: &str, main: String, child: String| LinkError::Declaration {
        what,
        name: name.to_owned(),
        main,
        child,
    };
    for v in &child_file.variables {
        match file.variables.iter().find(|m| m.name == v.name) {
            None => file.variables.push(v.clone()),
            Some(m) if m.initial == v.initial => {}
            Some(m) => {
                let initial = |b: bool| format!("initially {b}");
                return Err(conflict(
                    "variable",
                    &v.name,
                    initial(m.initial),
                    initial(v.initial),
                ));
            }
        }
    }
    for s in &child_file.signals {
        match file
            .signals
            .iter()
            .find(|m| m.event == s.event && m.variable == s.variable)
        {
            None => file.signals.push(s.clone()),
            Some(m) if m.value == s.value => {}
            Some(m) => {
                let sets = |b: bool| format!("setting it to {b}");
                let name = format!("{} -> {}", s.event, s.variable);
                return Err(conflict("signal", &name, sets(m.value), sets(s.value)));
            }
        }
    }
    // A timestamp is its event and the one it excludes, from either side.
    let stamp = |shape: &Shape, name: &str| {
        let stamps = shape.timestamps();
        let t = stamps.iter().find(|t| &*t.name == name)?;
        let event = shape.events().get(t.event as usize).map_or("", |e| &**e);
        let exclusive = t.exclusive.and_then(|x| stamps.get(x as usize));
        Some(match exclusive {
            Some(x) => format!("set on `{event}`, exclusive to `{}`", x.name),
            None => format!("set on `{event}`"),
        })
    };
    for t in &child_file.timestamps {
        match stamp(main, &t.name) {
            None => file.timestamps.push(t.clone()),
            Some(m) => {
                let c = stamp(child, &t.name).unwrap_or_default();
                if m != c {
                    return Err(conflict("timestamp", &t.name, m, c));
                }
            }
        }
    }
    for s in &child_file.stimuli {
        match file.stimuli.iter().find(|m| m.name == s.name) {
            None => file.stimuli.push(s.clone()),
            Some(m) if m.seconds == s.seconds => {}
            Some(m) => {
                let lasts = |s: f64| format!("lasting {s} s");
                return Err(conflict(
                    "stimulus",
                    &s.name,
                    lasts(m.seconds),
                    lasts(s.seconds),
                ));
            }
        }
    }
    Ok(())
}

/// `linked` with each node's place in its own file: the main tree's files
/// then the child's make the file table.
fn with_sources(
    linked: Shape,
    origins: &[Origin],
    main: &Shape,
    child: &Shape,
    limits: &Limits,
) -> Result<Shape, LinkError> {
    let same = origins.len() == linked.len()
        && origins.iter().enumerate().all(|(i, &o)| {
            let kind = match o {
                Origin::Main(n) => main.kind(n),
                Origin::Child(n) => child.kind(n),
            };
            linked.kind(NodeIdx::new(i as u32)) == kind
        });
    if !same {
        return Err(LinkError::Invalid(vec![
            "the linked tree's nodes are not the grafted ones (a bug in treebeard: please report it)"
                .into(),
        ]));
    }
    let offset = main.files().len();
    let mut parts = linked.into_parts();
    parts.files = main.files().iter().chain(child.files()).cloned().collect();
    for (info, &origin) in parts.nodes.iter_mut().zip(origins) {
        info.source = match origin {
            Origin::Main(n) => main.node(n).source,
            Origin::Child(n) => child.node(n).source.and_then(|s| {
                let file = u16::try_from(usize::from(s.file) + offset).ok()?;
                Some(Source { file, ..s })
            }),
        };
    }
    parts
        .validate_with(limits)
        .map_err(|e| LinkError::Invalid(vec![e.to_string()]))
}
