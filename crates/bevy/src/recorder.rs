//! [`TreeRecorder`]: recording a Bevy crowd's watched entities, for
//! `treebeard view`.

use crate::agent::Agent;
use crate::tree_crowd::TreeCrowd;
use bevy::prelude::*;
use std::fmt::Write as _;
use std::io;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;
use treebeard_shape::{NodeIdx, Shape};
use treebeard_vm::{AgentId, Recorder};

/// Marks an entity whose agent a [`TreeRecorder`] records (in every crowd
/// the entity is an agent of). Add and remove it at any time; the recorder
/// follows from the next tick.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Watched;

/// Records the agents of the [`TreeCrowd<B>`] whose entities are
/// [`Watched`] (or all of them: [`TreeRecorder::watching_all`]) into a
/// [`Recorder`]: their node states tick by tick, in a ring bounded by a
/// byte budget, each agent named after its entity (its `Name` and id, such
/// as `Guard 12v0`). Save it with [`TreeRecorder::save`] and open it with
/// `treebeard view`, which shows the names beside the agents' ids and
/// finds agents by them.
///
/// Insert it beside the crowd to start recording; remove it to stop.
/// While it is present, the crowd ticks as `Crowd::tick_observed` does,
/// with the same results: the watched agents one after another on the
/// tick system's thread, the others in parallel on rayon (the crowd's own
/// pool, or rayon's global pool for a crowd that ticks on Bevy's task
/// pool).
///
/// A recording holds one tree. When the crowd's tree reloads (a tree
/// asset edited), the recorder starts a new recording of the new tree and
/// keeps the one before as [`TreeRecorder::previous`], until the next
/// reload.
///
/// An agent's name stands for its whole recording: a departed agent keeps
/// its name for the ticks recorded, unless a newcomer takes over its
/// agent slot and is watched too.
#[derive(Resource)]
pub struct TreeRecorder<B> {
    budget: usize,
    all: bool,
    /// The recorder of the crowd's tree, once the crowd has one.
    recorder: Option<Recorder>,
    /// The shape the recorder records (compared by address: a reload
    /// brings a new one).
    shape: Option<Arc<Shape>>,
    previous: Option<Recorder>,
    /// The agents recorded and their entities, by agent; and the next
    /// frame's, to compare.
    watched: Vec<(AgentId, Entity)>,
    next: Vec<(AgentId, Entity)>,
    blackboard: PhantomData<fn() -> B>,
}

impl<B> TreeRecorder<B> {
    /// A recorder of the [`Watched`] entities, keeping at most `budget`
    /// bytes of ticks (`treebeard_vm::recording::DEFAULT_BUDGET` is 64
    /// MiB; the crowd workload's agents take about 21.5 bytes each per
    /// tick).
    pub fn new(budget: usize) -> TreeRecorder<B> {
        TreeRecorder {
            budget,
            all: false,
            recorder: None,
            shape: None,
            previous: None,
            watched: Vec::new(),
            next: Vec::new(),
            blackboard: PhantomData,
        }
    }

    /// Records every agent of the crowd, [`Watched`] or not (observed
    /// ticks are slower: watch a few agents of a large crowd).
    pub fn watching_all(mut self) -> TreeRecorder<B> {
        self.all = true;
        self
    }

    /// The recorder, once the crowd has a tree: what it holds, its notes
    /// ([`Recorder::annotate`]), its agents' names.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.recorder.as_ref()
    }

    /// Whether it records: once the crowd has a tree.
    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// The recorder, to annotate ticks or rename agents.
    pub fn recorder_mut(&mut self) -> Option<&mut Recorder> {
        self.recorder.as_mut()
    }

    /// The recording of the crowd's tree before its last reload, if it
    /// reloaded while recording.
    pub fn previous(&self) -> Option<&Recorder> {
        self.previous.as_ref()
    }

    /// Attaches `text` to `agent` (and to `node`, if given) at the newest
    /// tick recorded: custom debug text the viewer shows beside the node's
    /// state. Returns false, and keeps nothing, for an agent that has not
    /// joined, before the first tick, or for a node the tree does not have.
    pub fn annotate(&mut self, agent: &Agent<B>, node: Option<NodeIdx>, text: &str) -> bool
    where
        B: Send + Sync + 'static,
    {
        match (agent.id(), self.recorder.as_mut()) {
            (Some(id), Some(recorder)) => recorder.annotate(id, node, text),
            _ => false,
        }
    }

    /// Writes what is recorded as a recording file at `path`, for
    /// `treebeard view`.
    ///
    /// # Errors
    /// If the file cannot be written, or the crowd has no tree yet (a tree
    /// asset not loaded: nothing to record).
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let Some(recorder) = &self.recorder else {
            return Err(io::Error::other(
                "nothing is recorded yet: the crowd's tree has not loaded",
            ));
        };
        let file = std::fs::File::create(path)?;
        let mut out = io::BufWriter::new(file);
        recorder.write_to(&mut out)?;
        io::Write::flush(&mut out)
    }

    /// Follows the crowd's tree: a recorder for its first tree, a new one
    /// for each reloaded tree.
    fn follow_tree(&mut self, shape: &Arc<Shape>) {
        if self.shape.as_ref().is_some_and(|s| Arc::ptr_eq(s, shape)) {
            return;
        }
        let fresh = Recorder::new(shape, self.budget);
        self.previous = self.recorder.replace(fresh);
        self.shape = Some(Arc::clone(shape));
        // The new recorder watches and names no one yet.
        self.watched.clear();
    }
}

/// The agents and their entities' names, for [`watch`].
type WatchedAgents<B> = (Entity, &'static Agent<B>, Option<Ref<'static, Name>>);

/// `Join`, after the agents joined and left: the recorder follows the
/// crowd's tree and the watched entities, and names their agents.
pub(crate) fn watch<B: Send + Sync + 'static>(
    recorder: Option<ResMut<TreeRecorder<B>>>,
    crowd: Res<TreeCrowd<B>>,
    agents: Query<WatchedAgents<B>>,
    watched: Query<WatchedAgents<B>, With<Watched>>,
) {
    let Some(mut recorder) = recorder else {
        return;
    };
    if !crowd.is_ready() {
        return;
    }
    let recorder = &mut *recorder;
    recorder.follow_tree(crowd.crowd().program().shape());
    let all = recorder.all;
    let mut renamed = false;
    recorder.next.clear();
    let mut add = |(entity, agent, name): (Entity, &Agent<B>, Option<Ref<Name>>)| {
        if let Some(id) = agent.id() {
            renamed |= name.is_some_and(|n| n.is_changed());
            recorder.next.push((id, entity));
        }
    };
    if all {
        agents.iter().for_each(&mut add);
    } else {
        watched.iter().for_each(&mut add);
    }
    recorder.next.sort_unstable();
    if recorder.next == recorder.watched && !renamed {
        return;
    }
    std::mem::swap(&mut recorder.next, &mut recorder.watched);
    let Some(rec) = recorder.recorder.as_mut() else {
        return;
    };
    let ids = recorder.watched.iter().map(|&(id, _)| id);
    rec.watch_only(if all { None } else { Some(ids) });
    let mut label = String::new();
    for &(id, entity) in &recorder.watched {
        label.clear();
        if let Ok((_, _, Some(name))) = agents.get(entity) {
            let _ = write!(label, "{} · ", name.as_str());
        }
        let _ = write!(label, "{entity}");
        rec.name(id, &label);
    }
}
