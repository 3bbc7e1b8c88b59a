#![doc = include_str!("../README.md")]

mod agent;
mod follow;
mod messages;
mod plugin;
mod recorder;
mod tick;
mod tree_asset;
mod tree_crowd;

pub use agent::{Agent, StartingBlackboard};
pub use follow::{TreeLoadFailed, TreeLoaded};
pub use messages::{ActionReport, ActionRequest};
pub use plugin::{TreebeardPlugin, TreebeardSystems};
pub use recorder::{TreeRecorder, Watched};
pub use tick::{Copies, TickCrowd, column_mut};
pub use tree_asset::{TreeAsset, TreeLoader, TreeLoaderSettings};
pub use tree_crowd::TreeCrowd;
