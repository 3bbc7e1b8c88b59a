//! Open-world child trees (seed 001): a child tree compiled on its own,
//! offered at every `ChildTree` connector of a running crowd (see
//! `treebeard_load::link`), its agents' state carried by a reload.

use super::{Crowd, ReloadReport};
use std::fmt;
use treebeard_load::link::{LinkError, offer};
use treebeard_shape::{Limits, Shape};
use treebeard_vm::{Engine, Leaves, Program, ReloadError};

/// Why [`Crowd::offer_child_tree`] offered nothing. The crowd is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OfferError {
    /// The crowd runs code generated for its tree (`Engine::Compiled`),
    /// which a linked tree would no longer match.
    Compiled,
    /// The child tree could not be linked into the crowd's tree.
    Link(LinkError),
    /// The linked tree does not link with `leaves`.
    Leaves(treebeard_vm::LinkError),
    /// The agents could not be carried over to the linked tree.
    Reload(ReloadError),
}

impl fmt::Display for OfferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OfferError::Compiled => f.write_str(
                "the crowd runs code generated for its tree, which an offered child tree would change: \
                 switch it to the interpreter first (`Crowd::set_engine(Engine::Interpreted)`), or write \
                 the child tree under the connector and generate the code again",
            ),
            OfferError::Link(e) => e.fmt(f),
            OfferError::Leaves(e) => write!(f, "the linked tree does not link: {e}"),
            OfferError::Reload(e) => write!(f, "the agents cannot be carried to the linked tree: {e}"),
        }
    }
}

impl std::error::Error for OfferError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OfferError::Compiled => None,
            OfferError::Link(e) => Some(e),
            OfferError::Leaves(e) => Some(e),
            OfferError::Reload(e) => Some(e),
        }
    }
}

impl<B> Crowd<B> {
    /// Offers `child`, a tree compiled on its own against `leaves` (a smart
    /// object's, a mod's), as the child tree `name` at every `ChildTree`
    /// connector of the crowd's tree, between ticks: after the trees each
    /// connector offers, or in place of the one each offers under that name
    /// (an update). Agents run it once the game injects it
    /// ([`Crowd::inject`]), like any child tree, and its `Gate` and
    /// `GlobalCooldown` nodes are shared by every connector it runs at.
    ///
    /// The crowd's tree becomes the linked one (`treebeard_load::link::offer`)
    /// through a [`Crowd::reload`]: every agent keeps its state and running
    /// work, and an agent running an updated tree keeps what still holds in
    /// it. The report's requests are the reload's (an update's cancels and
    /// remaps). A snapshot of the crowd restores into a program linked the
    /// same way (the same trees offered in the same order).
    ///
    /// # Errors
    /// See [`OfferError`]; the crowd is unchanged then.
    pub fn offer_child_tree(
        &mut self,
        name: &str,
        child: &Shape,
        leaves: &Leaves<B>,
    ) -> Result<ReloadReport, OfferError> {
        if self.program().engine() == Engine::Compiled {
            return Err(OfferError::Compiled);
        }
        let linked = offer(
            self.program().shape(),
            name,
            child,
            leaves,
            &Limits::default(),
        )
        .map_err(OfferError::Link)?;
        let program = Program::link(linked, leaves).map_err(OfferError::Leaves)?;
        self.reload(program).map_err(OfferError::Reload)
    }
}
