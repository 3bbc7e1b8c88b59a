//! Injecting child trees: which tree an agent's `ChildTree` connector runs.
//!
//! Seed 001's environment injects contextual behaviour: a smart object
//! hands the agent that uses it the object's own tree. The trees a
//! connector offers are compiled into the shape under it, shared by every
//! agent; an agent's choice is one persistent slot of the connector,
//! written between ticks by [`Program::inject`] (or `Crowd::inject`). The
//! agent's next tick runs the new tree from its start, and cancels the
//! running work of the old one, with its clean-up, as it passes over it
//! (see the interpreter's `connector` module).
//!
//! ```
//! use treebeard_shape::NodeIdx;
//! use treebeard_shape::tree::{act, child_trees};
//! use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, Status};
//!
//! let tree = child_trees([("door", act("Open")), ("bench", act("Sit"))]).named("use");
//! let mut leaves = Leaves::<Vec<String>>::new();
//! leaves.action("Open", |log, _| { log.push("open".into()); Status::Success });
//! leaves.action("Sit", |log, _| { log.push("sit".into()); Status::Success });
//! let program = leaves.compile(&tree)?;
//! let (mut actor, mut log, mut requests) = (Actor::for_shape(program.shape()), vec![], vec![]);
//! let mut vm = Interpreter::with_capacity(program.spec());
//! let mut tick = |actor: &mut Actor, log: &mut Vec<String>| {
//!     vm.tick(&program, &Frame::default(), AgentId(0), &mut actor.as_mut(), log, &mut requests)
//! };
//! // Nothing injected: the connector fails.
//! assert_eq!(tick(&mut actor, &mut log), Status::Failure);
//! program.inject(&mut actor.as_mut(), NodeIdx::ROOT, Some("bench"))?;
//! assert_eq!(tick(&mut actor, &mut log), Status::Success);
//! assert_eq!(log, ["sit"]);
//! assert_eq!(program.injected(actor.as_ref(), NodeIdx::ROOT), Some("bench"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::actor::{ActorMut, ActorRef};
use crate::program::Program;
use std::fmt;
use treebeard_shape::{Kind, NodeIdx};

/// Why a child tree could not be injected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InjectError {
    /// The node is not a `ChildTree` connector of the program's shape.
    NotAConnector {
        /// The node.
        node: NodeIdx,
        /// Its kind, if the shape has such a node.
        kind: Option<Kind>,
    },
    /// The connector offers no child tree of that name.
    UnknownTree {
        /// The connector's name.
        connector: Box<str>,
        /// The name asked for.
        tree: Box<str>,
        /// The names it offers, in order.
        offered: Vec<Box<str>>,
    },
}

impl fmt::Display for InjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InjectError::NotAConnector {
                node,
                kind: Some(kind),
            } => write!(
                f,
                "item {node} is a {kind}, not a ChildTree connector; inject into a connector"
            ),
            InjectError::NotAConnector { node, kind: None } => {
                write!(f, "the shape has no item {node}")
            }
            InjectError::UnknownTree {
                connector,
                tree,
                offered,
            } => {
                write!(
                    f,
                    "the connector `{connector}` offers no child tree `{tree}`; it offers "
                )?;
                for (i, name) in offered.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}`{name}`")?;
                }
                f.write_str(" (add the tree to the connector's children to offer it)")
            }
        }
    }
}

impl std::error::Error for InjectError {}

impl<B> Program<B> {
    /// Injects the child tree named `tree` (`None`: none) into the actor's
    /// `ChildTree` connector at `connector`, between ticks. The agent's
    /// next tick that reaches the connector runs that tree from its start,
    /// and cancels the old one's running work with its clean-up; until
    /// then nothing changes. A connector with nothing injected fails.
    pub fn inject(
        &self,
        actor: &mut ActorMut<'_>,
        connector: NodeIdx,
        tree: Option<&str>,
    ) -> Result<(), InjectError> {
        let slot = self.connector_slot(connector)?;
        let value = match tree {
            None => 0,
            Some(name) => {
                let shape = self.shape();
                let Some(k) = shape.child_tree(connector, name) else {
                    return Err(InjectError::UnknownTree {
                        connector: shape.node(connector).name.clone(),
                        tree: name.into(),
                        offered: shape
                            .children(connector)
                            .map(|root| shape.node(root).name.clone())
                            .collect(),
                    });
                };
                k + 1
            }
        };
        actor.set_persistent(slot, value);
        Ok(())
    }

    /// The name of the child tree injected into the actor's connector at
    /// `connector`; `None` if none is (or `connector` is no connector).
    pub fn injected(&self, actor: ActorRef<'_>, connector: NodeIdx) -> Option<&str> {
        let slot = self.connector_slot(connector).ok()?;
        let k = actor.persistent().get(slot)?.checked_sub(1)?;
        let shape = self.shape();
        let root = shape.children(connector).nth(k as usize)?;
        Some(&shape.node(root).name)
    }

    /// The persistent slot of the connector at `connector`.
    fn connector_slot(&self, connector: NodeIdx) -> Result<usize, InjectError> {
        let kind = self
            .shape()
            .items()
            .get(connector.index())
            .and_then(|item| item.kind());
        match (kind, self.slot(connector.get())) {
            (Some(Kind::ChildTree), Some(slot)) => Ok(slot),
            _ => Err(InjectError::NotAConnector {
                node: connector,
                kind,
            }),
        }
    }
}
