//! A crowd that follows its tree file: each time the [`TreeAsset`] loads
//! (first, then on every change the file watcher sees), the tree is
//! compiled against the crowd's leaves and the crowd reloads it, its
//! agents' running work carried over; a tree that does not compile or link
//! leaves the running one in place and says why.

use crate::messages::ActionRequest;
use crate::tree_asset::TreeAsset;
use crate::tree_crowd::TreeCrowd;
use bevy::asset::{AssetEvent, AssetLoadFailedEvent};
use bevy::prelude::*;
use treebeard_load::{LoadOptions, Loader};
use treebeard_vm::{Carried, Leaves, Program};

/// The crowd runs the tree of its [`TreeAsset`] now: first loaded, or
/// reloaded after the file (or a file it includes) changed.
#[derive(Message, Clone, Debug)]
pub struct TreeLoaded {
    /// The tree file's path in its asset source.
    pub path: String,
    /// Whether this is the tree's first load (no agent had run yet).
    pub first: bool,
    /// The load's warnings, rendered with their file, line and column
    /// (empty if none).
    pub warnings: String,
    /// What carrying the agents to the new tree did to their running
    /// work (kept, cancelled with their clean-up, re-addressed); the
    /// cancels and remaps went out as [`ActionRequest`]s.
    pub carried: Carried,
}

/// The crowd's [`TreeAsset`] did not load, compile or link: the crowd
/// runs the tree it ran before (or, if none has loaded yet, waits).
#[derive(Message, Clone, Debug)]
pub struct TreeLoadFailed {
    /// The tree file's path in its asset source.
    pub path: String,
    /// Why, rendered: each problem with its file, line and column, a code
    /// frame and what to do.
    pub why: String,
}

/// Where a crowd's tree comes from: the asset, and the leaves to compile
/// and link it against.
pub(crate) struct TreeSource<B> {
    pub(crate) tree: Handle<TreeAsset>,
    pub(crate) leaves: Leaves<B>,
    /// Whether a tree has loaded: the crowd ticks from then on.
    pub(crate) loaded: bool,
    /// The generation of the last load compiled (or that failed to).
    pub(crate) compiled: Option<u64>,
}

/// `Join`, first: the crowd's tree asset, loaded or changed, is compiled
/// and reloaded into the crowd; its cancels and remaps are sent.
pub(crate) fn follow<B: Send + Sync + 'static>(
    mut crowd: ResMut<TreeCrowd<B>>,
    trees: Res<Assets<TreeAsset>>,
    mut changed: MessageReader<AssetEvent<TreeAsset>>,
    mut unloadable: MessageReader<AssetLoadFailedEvent<TreeAsset>>,
    mut requests: MessageWriter<ActionRequest>,
    mut loaded: MessageWriter<TreeLoaded>,
    mut failed: MessageWriter<TreeLoadFailed>,
) {
    let TreeCrowd {
        crowd,
        entities,
        source,
        ..
    } = &mut *crowd;
    let Some(source) = source.as_deref_mut() else {
        return;
    };
    let id = source.tree.id();
    // A load sends `Added` (or `Modified`) and `LoadedWithDependencies`,
    // not always in one frame: each load is compiled once.
    let mut load = false;
    for event in changed.read() {
        if let AssetEvent::Added { id: at }
        | AssetEvent::Modified { id: at }
        | AssetEvent::LoadedWithDependencies { id: at } = event
        {
            load |= *at == id;
        }
    }
    for event in unloadable.read().filter(|e| e.id == id) {
        failed.write(TreeLoadFailed {
            path: event.path.path().display().to_string(),
            why: event.error.to_string(),
        });
    }
    let Some(asset) = trees.get(id).filter(|_| load) else {
        return;
    };
    if source.compiled == Some(asset.generation()) {
        return;
    }
    source.compiled = Some(asset.generation());
    let path = asset.path().to_owned();
    let (program, warnings) = match compile(asset, &source.leaves) {
        Ok(compiled) => compiled,
        Err(why) => {
            failed.write(TreeLoadFailed { path, why });
            return;
        }
    };
    match crowd.reload(program) {
        Ok(report) => {
            requests.write_batch(report.requests.iter().filter_map(|&request| {
                let entity = entities.get(request.agent.index()).copied().flatten()?;
                Some(ActionRequest { entity, request })
            }));
            loaded.write(TreeLoaded {
                path,
                first: !source.loaded,
                warnings,
                carried: report.carried,
            });
            source.loaded = true;
        }
        Err(e) => {
            failed.write(TreeLoadFailed {
                path,
                why: format!("the tree cannot replace the running one: {e}"),
            });
        }
    }
}

/// The program of `asset`, linked against `leaves`, with the load's
/// rendered warnings; or every problem, rendered.
fn compile<B>(asset: &TreeAsset, leaves: &Leaves<B>) -> Result<(Program<B>, String), String> {
    let mut loader = Loader::new(leaves, LoadOptions::default());
    loader.add_stored(asset.path(), asset);
    let load = loader.finish();
    let rendered = load.diagnostics.render(&load.map, false);
    let Some(loaded) = load.loaded else {
        return Err(rendered);
    };
    match Program::link(loaded.shape, leaves) {
        Ok(program) => Ok((program, rendered)),
        Err(e) => Err(format!("{rendered}error: {e}")),
    }
}
