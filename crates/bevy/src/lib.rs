#![doc = include_str!("../README.md")]

mod agent;
mod messages;
mod plugin;
mod tree_crowd;

pub use agent::{Agent, StartingBlackboard};
pub use messages::{ActionReport, ActionRequest};
pub use plugin::{TreebeardPlugin, TreebeardSystems};
pub use tree_crowd::TreeCrowd;
