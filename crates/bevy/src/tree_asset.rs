//! [`TreeAsset`]: a tree file and the files it includes, read by Bevy's
//! asset server ([`TreeLoader`]), so that the file watcher reloads it.

use bevy::asset::io::{AssetReaderError, Reader};
use bevy::asset::{AssetLoader, AssetPath, LoadContext};
use bevy::prelude::*;
use bevy::tasks::futures_lite::AsyncReadExt;
use serde::{Deserialize, Serialize};
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use treebeard_load::files::{ReadLimits, Refusal};
use treebeard_load::store::{TreeStore, include_path, includes};

/// A behaviour tree file (any dialect treebeard reads: its JSON and RON,
/// BehaviorTree.CPP and Lumberyard MBT XML) and every file it includes,
/// as the asset server read them. A [`TreeCrowd`](crate::TreeCrowd) made
/// with [`TreeCrowd::from_asset`](crate::TreeCrowd::from_asset) compiles
/// it against its leaves, reporting problems with their file, line and
/// column, and follows it: Bevy's file watcher (its `file_watcher`
/// feature) reloads the asset when the file or a file it includes changes.
///
/// Load one with `AssetServer::load::<TreeAsset>(path)` (any file name),
/// or untyped from a name ending `.tree.json`, `.tree.ron` or `.tree.xml`.
/// Includes are read through the same asset source, relative to the
/// including file; a path that leaves the source, or a file over
/// [`ReadLimits`]' caps, is an error where the tree names it.
#[derive(Asset, TypePath, Debug)]
pub struct TreeAsset {
    /// The main file's path in its asset source.
    path: String,
    /// The root of the asset source, as shown in errors (`assets`).
    root: String,
    /// Every file read, main file first, by path in the source: its text,
    /// or why it was not read.
    files: Vec<(String, Result<String, Unread>)>,
    /// Which load of the process made it: the asset server announces a
    /// load with two messages, which may come in different frames, and a
    /// crowd compiles each load once.
    generation: u64,
}

/// The loads made so far, for [`TreeAsset::generation`].
static LOADS: AtomicU64 = AtomicU64::new(0);

/// Why the loader did not read a file a tree names.
#[derive(Clone, Debug)]
enum Unread {
    Missing,
    TooLarge { size: u64, limit: u64, load: bool },
    Other(String),
}

impl TreeAsset {
    /// Which load made it (a number no other load of the process has).
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The main file's path in its asset source.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The paths of the files read for it: the main file's, then each
    /// file it includes.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|(path, _)| path.as_str())
    }
}

impl TreeStore for TreeAsset {
    fn root(&self) -> &str {
        &self.root
    }

    fn read(&self, path: &str) -> Result<String, Refusal> {
        let Some((_, read)) = self.files.iter().find(|(p, _)| p == path) else {
            return Err(Refusal::Missing);
        };
        match read {
            Ok(text) => Ok(text.clone()),
            Err(Unread::Missing) => Err(Refusal::Missing),
            Err(Unread::TooLarge { size, limit, load }) => Err(Refusal::TooLarge {
                size: *size,
                limit: *limit,
                load: *load,
            }),
            Err(Unread::Other(why)) => Err(Refusal::Unreadable(io::Error::other(why.clone()))),
        }
    }
}

/// How [`TreeLoader`] reads a tree: how many bytes it may read.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TreeLoaderSettings {
    /// Only this file: what it includes is read by the load of the file
    /// that includes it (set by the loader itself for included files).
    pub alone: bool,
    /// Caps on the bytes of one file and of a tree's files together.
    pub limits: ReadLimits,
}

/// Reads [`TreeAsset`]s: the file, then the files it includes, each
/// through the asset source (so that each is a dependency that the file
/// watcher follows), at most [`ReadLimits`]' bytes.
#[derive(Default, TypePath)]
pub struct TreeLoader;

impl AssetLoader for TreeLoader {
    type Asset = TreeAsset;
    type Settings = TreeLoaderSettings;
    type Error = io::Error;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        settings: &TreeLoaderSettings,
        context: &mut LoadContext<'_>,
    ) -> Result<TreeAsset, io::Error> {
        let limits = settings.limits;
        let path = context.path().path().to_string_lossy().replace('\\', "/");
        let root = match context.path().source().as_str() {
            Some(source) => format!("{source}://"),
            None => "assets".to_owned(),
        };
        let main = read_capped(reader, limits.file_bytes, limits.load_bytes).await;
        let mut left = limits.load_bytes;
        if let Ok(text) = &main {
            left = left.saturating_sub(text.len() as u64);
        }
        let mut asset = TreeAsset {
            path: path.clone(),
            root,
            files: vec![(path, main)],
            generation: LOADS.fetch_add(1, Ordering::Relaxed),
        };
        if settings.alone {
            return Ok(asset);
        }
        // Breadth first over the includes, each file once (includes may
        // include each other), within the caps on the number of files and
        // their bytes together; the load reports each refusal where the
        // tree names the file.
        let mut next = 0;
        while let Some((from, read)) = asset.files.get(next) {
            next += 1;
            let Ok(text) = read else { continue };
            let (from, text) = (from.clone(), text.clone());
            for written in includes(&from, &text) {
                let Some(path) = include_path(&from, &written) else {
                    continue;
                };
                if asset.files.iter().any(|(p, _)| *p == path)
                    || asset.files.len() >= treebeard_load::limits::MAX_FILES
                {
                    continue;
                }
                let file = read_included(context, &path, limits.file_bytes, left).await;
                if let Ok(text) = &file {
                    left -= text.len() as u64;
                }
                asset.files.push((path, file));
            }
        }
        Ok(asset)
    }

    fn extensions(&self) -> &[&str] {
        &["tree.json", "tree.ron", "tree.xml"]
    }
}

/// The text of `reader`, at most `file_bytes` bytes, and at most `left`
/// (what the tree's files together may still take).
async fn read_capped(
    reader: &mut dyn Reader,
    file_bytes: u64,
    left: u64,
) -> Result<String, Unread> {
    let limit = file_bytes.min(left);
    let mut bytes = Vec::new();
    let mut capped = reader.take(limit.saturating_add(1));
    if let Err(e) = capped.read_to_end(&mut bytes).await {
        return Err(Unread::Other(e.to_string()));
    }
    let size = bytes.len() as u64;
    if size > limit {
        let load = left < file_bytes;
        return Err(Unread::TooLarge { size, limit, load });
    }
    String::from_utf8(bytes).map_err(|e| {
        Unread::Other(format!(
            "it is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The file at `path` (in the asset source of the file being loaded), read
/// by a nested load of this loader, alone: the file becomes a dependency
/// of the tree, which is loaded again when it changes.
async fn read_included(
    context: &mut LoadContext<'_>,
    path: &str,
    file_bytes: u64,
    left: u64,
) -> Result<String, Unread> {
    let at = match context.path().source().as_str() {
        Some(source) => AssetPath::from(path.to_owned()).with_source(source.to_owned()),
        None => AssetPath::from(path.to_owned()),
    };
    let loaded = context
        .load_builder()
        .with_settings(move |s: &mut TreeLoaderSettings| {
            *s = TreeLoaderSettings {
                alone: true,
                limits: ReadLimits {
                    file_bytes,
                    load_bytes: left,
                },
            };
        })
        .load_value::<TreeAsset>(at)
        .await;
    match loaded {
        Ok(loaded) => {
            let mut included = loaded.take();
            included
                .files
                .pop()
                .map_or(Err(Unread::Missing), |(_, text)| text)
        }
        Err(e) => Err(unread(&e)),
    }
}

/// Why a nested load failed, as the load reports it.
fn unread(e: &bevy::asset::LoadDirectError) -> Unread {
    use bevy::asset::{AssetLoadError, LoadDirectError};
    match e {
        LoadDirectError::LoadError { error, .. } => match error {
            AssetLoadError::AssetReaderError(AssetReaderError::NotFound(_)) => Unread::Missing,
            other => Unread::Other(other.to_string()),
        },
        other => Unread::Other(other.to_string()),
    }
}
