//! Flow tables: where a status goes next, computed once per shape.
//!
//! What a sequence, a selector or a decorator like an inverter does with a
//! child's success or failure depends only on where the child sits: a
//! sequence goes on to the next child after a success and returns a failure;
//! a (priority) selector goes on after a failure and returns a success; an
//! inverter swaps them; `ForceSuccess` and `ForceFailure` map both to one. Following those rules up
//! the tree from any item ends either at an item to execute next or at a
//! decider whose choice depends on more than the status (a concurrent
//! decider, which counts its children) or at the root. [`Flow`] stores that
//! destination for each item and each finished status, so the interpreter
//! moves between items with one table load instead of pushing and popping a
//! guard for every static decider on the way.
//!
//! A running status climbs instead: every sequence or selector above a
//! running item that is past its first child records where to resume, up to
//! the nearest dynamic decider or the root. Those records depend only on
//! where the item sits too, so [`Flow::resumes`] precomputes the walk: from
//! each item, the first record above it (the decider and its child on the
//! path), from which the walk goes on at that decider; the deciders in
//! between, which record nothing, are never visited.
//!
//! An agent whose previous tick left one leaf running mostly ticks that
//! leaf again: the tick enters every decider above it at the child on the
//! leaf's path, re-testing on the way only the guards of a priority
//! selector's earlier children. That walk depends only on where the leaf
//! sits too: [`Flow::reentries`] lists, per leaf, the guards to re-test,
//! where every decider above it enters in place (see [`Reentry`]). An agent
//! whose tree returned last tick starts again from the root, and where the
//! root's walk is in effect a re-entry too (every decider above the first
//! leaf it reaches enters that leaf's branch first, or re-tests guards
//! before it), [`Flow::idle_entry`] names that leaf.

use crate::actor::{StateEntry, decider_tag};
use treebeard_shape::{Kind, NodeIdx, Shape};

/// No item: the parent of the root, or where a running status goes when it
/// leaves the static deciders (to the nearest dynamic decider's guard, or
/// out of the root).
pub(crate) const UP: u32 = u32::MAX;

/// A success leaves the static deciders: the destination of a status that,
/// after every decorator on the way, is a success when it reaches the
/// nearest dynamic decider's guard or leaves the root.
pub(crate) const LEAVE_SUCCESS: u32 = u32::MAX - 1;

/// A failure leaves the static deciders (see [`LEAVE_SUCCESS`]).
pub(crate) const LEAVE_FAILURE: u32 = u32::MAX - 2;

/// Whether a flow destination is an item (not [`UP`] or a leave marker).
#[inline(always)]
pub(crate) const fn is_item(next: u32) -> bool {
    next < LEAVE_FAILURE
}

/// One item's place in the flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    /// The item's parent, or [`UP`] for the root.
    pub parent: u32,
    /// Where a success of the item goes: the next item to execute, or a
    /// leave marker.
    pub on_success: u32,
    /// Where a failure of the item goes.
    pub on_failure: u32,
    /// The end of the item's sub-stream (24 bits, as items hold it), and
    /// the [`GUARDED`] and [`IMPLIED`] bits.
    bits: u32,
}

/// [`Link::guarded`]'s bit.
const GUARDED: u32 = 1 << 31;
/// [`Link::implied`]'s bit.
const IMPLIED: u32 = 1 << 30;

impl Link {
    /// One past the last item of the item's sub-tree.
    #[inline(always)]
    pub(crate) const fn end(self) -> u32 {
        self.bits & 0xFF_FFFF
    }

    /// Whether the item is a *guarded sequence*: a `Sequence` whose first
    /// child is a condition. A priority selector re-tests its children's
    /// guards every tick; the interpreter tests these without dispatching
    /// the sequence or the condition (see `scan_guards`).
    #[inline(always)]
    pub(crate) const fn guarded(self) -> bool {
        self.bits & GUARDED != 0
    }

    /// Whether the item is a decider whose resume is implied by its
    /// running leaf ([`Shape::resume_implied`]): it keeps no resume point,
    /// and the climb records none for it.
    #[inline(always)]
    pub(crate) const fn implied(self) -> bool {
        self.bits & IMPLIED != 0
    }
}

/// The flow of one shape, one [`Link`] and one resume hop per item.
#[derive(Clone, Debug)]
pub(crate) struct Flow {
    links: Box<[Link]>,
    /// Per item, the first resume point a running status records above it
    /// (see [`Flow::resumes`]).
    resumes: Box<[StateEntry]>,
    /// Per item, its depth: 0 for the root.
    depths: Box<[u32]>,
    /// Per item, its re-entry (see [`Flow::reentries`]).
    reentries: Box<[Reentry]>,
    /// The re-entries' guards, each leaf's in a run.
    retests: Box<[u32]>,
    /// The leaf a tick from the root re-enters (see [`Flow::idle_entry`]),
    /// or [`UP`].
    idle_entry: u32,
}

/// How a tick gets back to a leaf that the previous tick left running, in
/// a tree whose deciders above the leaf all enter in place: the root down
/// to the leaf, each `Sequence`, `Selector` and `IfThenElse` resumes at the
/// child on the leaf's path, implied by its running leaf
/// ([`Link::implied`]); decorators that map a status, and `StoredState`,
/// enter their child; and each `PrioritySelector` re-tests its earlier
/// children, every one of which is a condition, a guarded sequence
/// ([`Link::guarded`], whose guard is re-tested) or `AlwaysFailure`. A
/// tick from the root makes exactly the calls a re-entry makes: the guards
/// in order (a success goes on from that guard, as it would), then the
/// leaf, with the same states, so the interpreter may skip the deciders'
/// dispatch (see the interpreter's `run_plain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reentry {
    /// Where the leaf's guards start in [`Flow::retests`], or `u32::MAX`
    /// for a leaf a tick gets back to only from the root.
    start: u32,
    /// How many guards.
    len: u32,
}

impl Reentry {
    /// No re-entry: the tick starts at the root.
    const NONE: Reentry = Reentry {
        start: u32::MAX,
        len: 0,
    };

    /// Whether the leaf has a re-entry.
    #[inline(always)]
    pub(crate) const fn exists(self) -> bool {
        self.start != u32::MAX
    }

    /// Its guards' place in [`Flow::retests`] (for a re-entry that
    /// [exists](Reentry::exists)).
    #[inline(always)]
    pub(crate) const fn guards(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// At most this many deciders above a re-entered leaf: a leaf deeper down
/// is reached from the root (which keeps building the tables linear in the
/// shape's size).
const REENTRY_DEPTH: usize = 64;

/// At most this many guards in one re-entry.
const REENTRY_GUARDS: usize = 4096;

/// The re-entries' guards of a shape of `items` items take at most this
/// many words: a leaf that would take more is reached from the root. (The
/// leaves of one priority selector's children share their guards, each
/// list the start of the next one's, so a tree needs much less; a tree
/// that nests priority selectors in every branch might need more.)
const fn retests_budget(items: usize) -> usize {
    4 * items + 1024
}

/// No resume point above the item: a running status leaves the static
/// deciders recording nothing more. (A real one's value is a child, never
/// the root.)
pub(crate) const NO_RESUME: StateEntry = StateEntry::new(0, 0, 0);

impl Flow {
    /// Computes the flow of a validated shape, in one pass: parents come
    /// before their children in the stream, so a child whose status leaves
    /// its parent takes the parent's destination, already known.
    pub(crate) fn of(shape: &Shape) -> Flow {
        let n = shape.len();
        let mut links = vec![
            Link {
                parent: UP,
                on_success: LEAVE_SUCCESS,
                on_failure: LEAVE_FAILURE,
                bits: 0,
            };
            n
        ];
        let mut resumes = vec![NO_RESUME; n];
        let mut depths = vec![0; n];
        // The open deciders: (item, end).
        let mut open: Vec<(u32, u32)> = Vec::new();
        for i in 0..n as u32 {
            while open.last().is_some_and(|&(_, end)| end <= i) {
                open.pop();
            }
            let node = NodeIdx::new(i);
            if let Some(&(parent, parent_end)) = open.last() {
                let next_sibling = shape.subtree_end(node).get();
                let has_sibling = next_sibling < parent_end;
                let up = links[parent as usize];
                let kind = shape.kind(NodeIdx::new(parent));
                let (on_success, on_failure) = match kind {
                    Kind::Sequence | Kind::ReactiveSequence if has_sibling => {
                        (next_sibling, up.on_failure)
                    }
                    Kind::Sequence | Kind::ReactiveSequence => (up.on_success, up.on_failure),
                    Kind::PrioritySelector | Kind::Selector if has_sibling => {
                        (up.on_success, next_sibling)
                    }
                    Kind::PrioritySelector | Kind::Selector => (up.on_success, up.on_failure),
                    // The condition goes on to the then branch, or the else
                    // branch (if any); a branch's status is the decider's.
                    Kind::IfThenElse | Kind::WhileDoElse if i == parent + 1 => {
                        let past_then = shape.subtree_end(NodeIdx::new(next_sibling)).get();
                        let on_failure = if past_then < parent_end {
                            past_then
                        } else {
                            up.on_failure
                        };
                        (next_sibling, on_failure)
                    }
                    Kind::IfThenElse | Kind::WhileDoElse => (up.on_success, up.on_failure),
                    Kind::Inverter => (up.on_failure, up.on_success),
                    Kind::ForceSuccess => (up.on_success, up.on_success),
                    Kind::ForceFailure => (up.on_failure, up.on_failure),
                    // A gate tests on entry and passes its child's statuses;
                    // `StoredState` only marks its sub-tree.
                    kind if kind.passes_through() => (up.on_success, up.on_failure),
                    // Dynamic deciders take their children's statuses at
                    // run time.
                    kind if kind.is_dynamic() => (LEAVE_SUCCESS, LEAVE_FAILURE),
                    kind => unreachable!("{kind} is neither a static nor a dynamic decider"),
                };
                links[i as usize] = Link {
                    parent,
                    on_success,
                    on_failure,
                    bits: 0,
                };
                // What the interpreter's status climb records, and where it
                // stops: a sequence past its first child records it; a
                // dynamic decider's guard takes the status; the other
                // static deciders pass it up.
                depths[i as usize] = depths[parent as usize] + 1;
                let implied = shape.resume_implied(NodeIdx::new(parent));
                resumes[i as usize] = match kind {
                    kind if kind.keeps_resume() && !implied && i != parent + 1 => {
                        StateEntry::new(parent, decider_tag::RESUME, i)
                    }
                    kind if kind.keeps_resume() => resumes[parent as usize],
                    kind if kind.is_dynamic() => NO_RESUME,
                    _ => resumes[parent as usize],
                };
            }
            let kind = shape.kind(node);
            if kind.is_decider() {
                open.push((i, shape.subtree_end(node).get()));
            }
            let guarded = kind == Kind::Sequence
                && i as usize + 1 < n
                && shape.kind(NodeIdx::new(i + 1)) == Kind::Condition
                && shape.subtree_end(node).get() > i + 1;
            links[i as usize].bits = shape.subtree_end(node).get()
                | if guarded { GUARDED } else { 0 }
                | if shape.resume_implied(node) {
                    IMPLIED
                } else {
                    0
                };
        }
        let (reentries, retests) = reentries(shape, &links, &resumes);
        let idle_entry = idle_entry(shape, &links, &reentries);
        Flow {
            links: links.into_boxed_slice(),
            resumes: resumes.into_boxed_slice(),
            depths: depths.into_boxed_slice(),
            reentries,
            retests,
            idle_entry,
        }
    }

    /// The links, by item.
    #[inline]
    pub(crate) fn links(&self) -> &[Link] {
        &self.links
    }

    /// The resume hops, by item: the first resume point a running status
    /// records above the item (a decider state tagged `RESUME`: the
    /// decider, and its child on the item's path), from which the status
    /// climbs on at that decider's own hop; [`NO_RESUME`] where it leaves
    /// the static deciders first (at the root, or at a dynamic decider's
    /// guard). The climb from an item is the chain of hops, in the order
    /// a walk up the parents would record them.
    #[inline]
    pub(crate) fn resumes(&self) -> &[StateEntry] {
        &self.resumes
    }

    /// The depths, by item (the root's is 0).
    #[inline]
    pub(crate) fn depths(&self) -> &[u32] {
        &self.depths
    }

    /// The re-entries, by item: a leaf's [`Reentry`] (that of every other
    /// item does not [exist](Reentry::exists)).
    #[inline]
    pub(crate) fn reentries(&self) -> &[Reentry] {
        &self.reentries
    }

    /// The guards of all re-entries (see [`Reentry::guards`]).
    #[inline]
    pub(crate) fn retests(&self) -> &[u32] {
        &self.retests
    }

    /// The leaf that a tick from the root, for an agent holding no state,
    /// reaches first by re-entering it: a leaf with a [`Reentry`] whose
    /// every decider above it that is not a `PrioritySelector` has it in
    /// its first child (a priority selector re-tests the guards before
    /// it). Such a tick makes the calls of the leaf's re-entry, the leaf
    /// starting, so the interpreter may take it as one. [`UP`] where the
    /// root's walk is not a re-entry.
    #[inline]
    pub(crate) fn idle_entry(&self) -> u32 {
        self.idle_entry
    }
}

/// The leaf a tick from the root re-enters, or [`UP`] (see
/// [`Flow::idle_entry`]): the walk from the root that a tick of an agent
/// holding no state takes, into first children and past a priority
/// selector's guards, to a leaf with a re-entry (which also checks that
/// each decider above it enters in place).
fn idle_entry(shape: &Shape, links: &[Link], reentries: &[Reentry]) -> u32 {
    let mut ip = 0;
    for _ in 0..=REENTRY_DEPTH {
        let node = NodeIdx::new(ip);
        match shape.kind(node) {
            Kind::Action | Kind::Deferred if reentries[ip as usize].exists() => return ip,
            Kind::Sequence
            | Kind::Selector
            | Kind::Inverter
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::StoredState => ip += 1,
            Kind::PrioritySelector => {
                let end = shape.subtree_end(node).get();
                ip += 1;
                // The guards the leaf's re-entry re-tests.
                while ip < end && guard_of(shape, links, ip).is_some() {
                    ip = shape.subtree_end(NodeIdx::new(ip)).get();
                }
                if ip >= end {
                    return UP;
                }
            }
            _ => return UP,
        }
    }
    UP
}

/// The re-entry of every action and deferred action, and their guards.
fn reentries(
    shape: &Shape,
    links: &[Link],
    resumes: &[StateEntry],
) -> (Box<[Reentry]>, Box<[u32]>) {
    let mut reentries = vec![Reentry::NONE; shape.len()];
    let mut retests = Vec::new();
    let mut guards = Vec::new();
    let mut last = None;
    for leaf in 0..shape.len() as u32 {
        if !matches!(
            shape.kind(NodeIdx::new(leaf)),
            Kind::Action | Kind::Deferred
        ) {
            continue;
        }
        guards.clear();
        if !guards_above(shape, links, leaf, &mut guards) {
            continue;
        }
        // In place above it, a running leaf records no resume point (the
        // interpreter's re-entry counts on it).
        debug_assert_eq!(resumes[leaf as usize], NO_RESUME);
        guards.reverse();
        let len = guards.len() as u32;
        // The guards of the last list, or its start, then more: the
        // leaves of a priority selector's later children share them.
        let shared = last.filter(|l: &Reentry| {
            let listed = &retests[l.guards()];
            l.guards().end == retests.len()
                && (listed.starts_with(&guards) || guards.starts_with(listed))
        });
        let reentry = match shared {
            Some(l) => Reentry {
                start: l.start,
                len,
            },
            None => Reentry {
                start: retests.len() as u32,
                len,
            },
        };
        let more = &guards[(retests.len() - reentry.start as usize).min(guards.len())..];
        if retests.len() + more.len() > retests_budget(shape.len()) {
            continue;
        }
        retests.extend_from_slice(more);
        reentries[leaf as usize] = reentry;
        if reentry.guards().end == retests.len() {
            last = Some(reentry);
        }
    }
    (reentries.into_boxed_slice(), retests.into_boxed_slice())
}

/// Pushes the guards a tick re-tests on its way to `leaf` onto `guards`,
/// last first; false where some decider above it does not enter in place
/// (see [`Reentry`]), or past [`REENTRY_DEPTH`] or [`REENTRY_GUARDS`].
fn guards_above(shape: &Shape, links: &[Link], leaf: u32, guards: &mut Vec<u32>) -> bool {
    let mut child = leaf;
    for _ in 0..REENTRY_DEPTH {
        let parent = links[child as usize].parent;
        if parent == UP {
            return true;
        }
        let node = NodeIdx::new(parent);
        let in_place = match shape.kind(node) {
            // `a` counts `Repeat` children, which resume through their
            // guards.
            Kind::Sequence | Kind::Selector => {
                links[parent as usize].implied() && shape.item(node).a() == 0
            }
            Kind::IfThenElse => links[parent as usize].implied(),
            Kind::Inverter | Kind::ForceSuccess | Kind::ForceFailure | Kind::StoredState => true,
            Kind::PrioritySelector => {
                let level = guards.len();
                let mut earlier = parent + 1;
                while earlier < child {
                    match guard_of(shape, links, earlier) {
                        Some(guard) => guards.extend(guard),
                        None => return false,
                    }
                    if guards.len() > REENTRY_GUARDS {
                        return false;
                    }
                    earlier = shape.subtree_end(NodeIdx::new(earlier)).get();
                }
                guards[level..].reverse();
                true
            }
            _ => false,
        };
        if !in_place {
            return false;
        }
        child = parent;
    }
    false
}

/// What a tick does with `child`, a priority selector's child before the
/// one it re-enters: `Some(Some(guard))` re-tests the condition `guard` (the
/// child, or the condition leading the guarded sequence it is),
/// `Some(None)` passes it (`AlwaysFailure`), and `None`: the child is no
/// guard (re-testing it may run it), so nothing after it is re-entered.
fn guard_of(shape: &Shape, links: &[Link], child: u32) -> Option<Option<u32>> {
    match shape.kind(NodeIdx::new(child)) {
        Kind::Condition => Some(Some(child)),
        Kind::AlwaysFailure => Some(None),
        _ if links[child as usize].guarded() => Some(Some(child + 1)),
        _ => None,
    }
}

// Safe code computing tables, away from the interpreter's `unsafe`: over a
// minute each for some of these under Miri (CI's Miri step), which is here
// for that `unsafe`; stable runs them.
#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    const S: u32 = LEAVE_SUCCESS;
    const F: u32 = LEAVE_FAILURE;
    use treebeard_shape::tree::{
        act, concurrent, cond, decider_of, force_failure, force_success, inverter, priority,
        reactive_sequence, selector, sequence,
    };
    use treebeard_shape::{Catalog, LeafSchema, compile};

    fn shape(tree: treebeard_shape::tree::Node) -> Shape {
        let mut c = Catalog::new();
        c.declare("c", LeafSchema::condition())
            .declare("a", LeafSchema::action());
        compile(&tree, &c).unwrap()
    }

    /// Where an item's statuses go: its parent, then its success's and its
    /// failure's destinations.
    type Goes = (u32, u32, u32);

    fn link(parent: u32, on_success: u32, on_failure: u32) -> Goes {
        (parent, on_success, on_failure)
    }

    fn goes(flow: &Flow) -> Vec<Goes> {
        flow.links()
            .iter()
            .map(|l| (l.parent, l.on_success, l.on_failure))
            .collect()
    }

    #[test]
    fn only_sequences_led_by_a_condition_are_guarded() {
        // 0 Selector, 1 Sequence, 2 a, 3 c, 4 Priority, 5 c, 6 Sequence, 7 c
        let flow = Flow::of(&shape(selector([
            sequence([act("a"), cond("c")]),
            priority([cond("c"), sequence([cond("c")])]),
        ])));
        let guarded: Vec<u32> = (0..8)
            .filter(|&i| flow.links()[i as usize].guarded())
            .collect();
        assert_eq!(guarded, [6]);
    }

    #[test]
    fn sequence_children_go_on_after_success_and_leave_on_failure() {
        // 0 Sequence, 1 c, 2 a, 3 a
        let flow = Flow::of(&shape(sequence([cond("c"), act("a"), act("a")])));
        assert_eq!(
            goes(&flow),
            &[link(UP, S, F), link(0, 2, F), link(0, 3, F), link(0, S, F)]
        );
    }

    #[test]
    fn priority_children_go_on_after_failure_and_leave_on_success() {
        // 0 Priority, 1 Sequence, 2 c, 3 a, 4 a
        let flow = Flow::of(&shape(priority([
            sequence([cond("c"), act("a")]),
            act("a"),
        ])));
        assert_eq!(
            goes(&flow),
            &[
                link(UP, S, F),
                link(0, S, 4),
                link(1, 3, 4),
                link(1, S, 4),
                link(0, S, F),
            ]
        );
    }

    #[test]
    fn decorators_map_their_child_statuses() {
        // 0 Sequence, 1 Inverter, 2 a, 3 ForceSuccess, 4 a, 5 ForceFailure, 6 a, 7 a
        let tree = sequence([
            inverter(act("a")),
            force_success(act("a")),
            force_failure(act("a")),
            act("a"),
        ]);
        let flow = Flow::of(&shape(tree));
        assert_eq!(goes(&flow)[2], link(1, F, 3));
        assert_eq!(goes(&flow)[4], link(3, 5, 5));
        assert_eq!(goes(&flow)[6], link(5, F, F));
    }

    #[test]
    fn decorators_swap_the_leave_markers_too() {
        // 0 Inverter, 1 ForceSuccess, 2 a
        let flow = Flow::of(&shape(inverter(force_success(act("a")))));
        assert_eq!(goes(&flow)[1], link(0, F, S));
        assert_eq!(goes(&flow)[2], link(1, F, F));
    }

    #[test]
    fn selector_children_go_on_after_failure() {
        // 0 Selector, 1 a, 2 a
        let flow = Flow::of(&shape(selector([act("a"), act("a")])));
        assert_eq!(goes(&flow), &[link(UP, S, F), link(0, S, 2), link(0, S, F)]);
    }

    fn resume(parent: u32, child: u32) -> StateEntry {
        StateEntry::new(parent, decider_tag::RESUME, child)
    }

    #[test]
    fn resume_hops_skip_the_deciders_that_record_nothing() {
        // 0 Sequence, 1 a, 2 Priority, 3 Sequence, 4 c, 5 a, 6 Inverter, 7 a,
        // 8 Selector, 9 a, 10 a, 11 Concurrent, 12 a
        let tree = sequence([
            act("a"),
            priority([
                sequence([cond("c"), act("a")]),
                inverter(act("a")),
                selector([act("a"), act("a")]),
            ]),
            concurrent([act("a")]),
        ]);
        let flow = Flow::of(&shape(tree));
        let n = NO_RESUME;
        assert_eq!(
            flow.resumes(),
            &[
                n,
                // A first child records nothing, and its parent is the root.
                n,
                resume(0, 2),
                // The priority selector records nothing: its children go on
                // at the sequence's record.
                resume(0, 2),
                resume(0, 2),
                // The sequence and the selector hold only plain kinds: their
                // running leaf implies where they resume.
                resume(0, 2),
                resume(0, 2),
                resume(0, 2),
                resume(0, 2),
                resume(0, 2),
                resume(0, 2),
                // The root holds a concurrent decider's marks: it records.
                resume(0, 11),
                n,
            ]
        );
        let implied: Vec<usize> = (0..13).filter(|&i| flow.links()[i].implied()).collect();
        assert_eq!(implied, [3, 8]);
        assert_eq!(flow.links()[2].end(), 11);
        assert_eq!(flow.links()[1].end(), 2);
    }

    #[test]
    fn resume_hops_stop_at_dynamic_deciders() {
        // 0 Sequence, 1 a, 2 Concurrent, 3 Sequence, 4 a, 5 Concurrent, 6 a
        let tree = sequence([
            act("a"),
            concurrent([sequence([act("a"), concurrent([act("a")])])]),
        ]);
        let flow = Flow::of(&shape(tree));
        assert_eq!(flow.resumes()[2], resume(0, 2));
        // The concurrent decider's guard takes a running child's status.
        assert_eq!(flow.resumes()[3], NO_RESUME);
        assert_eq!(flow.resumes()[5], resume(3, 5));
        assert_eq!(flow.resumes()[6], NO_RESUME);
    }

    #[test]
    fn statuses_stop_at_dynamic_deciders() {
        // 0 Sequence, 1 Concurrent, 2 Sequence, 3 a, 4 a, 5 a, 6 a
        let tree = sequence([
            concurrent([sequence([act("a"), act("a")]), act("a")]),
            act("a"),
        ]);
        let flow = Flow::of(&shape(tree));
        assert_eq!(goes(&flow)[1], link(0, 6, F));
        assert_eq!(goes(&flow)[2], link(1, S, F));
        assert_eq!(goes(&flow)[3], link(2, 4, F));
        assert_eq!(goes(&flow)[4], link(2, S, F));
        assert_eq!(goes(&flow)[5], link(1, S, F));
    }

    /// The guards of each item's re-entry, `None` where a tick gets back
    /// to it only from the root.
    fn reentries(flow: &Flow) -> Vec<Option<Vec<u32>>> {
        flow.reentries()
            .iter()
            .map(|r| r.exists().then(|| flow.retests()[r.guards()].to_vec()))
            .collect()
    }

    #[test]
    fn a_leaf_is_reentered_after_the_guards_of_the_priority_selectors_above_it() {
        // 0 Priority, 1 Sequence, 2 c, 3 a, 4 c, 5 AlwaysFailure, 6 Sequence,
        // 7 c, 8 Priority, 9 Sequence, 10 c, 11 a, 12 Inverter, 13 a,
        // 14 Selector, 15 a, 16 ForceFailure, 17 a
        let tree = priority([
            sequence([cond("c"), act("a")]),
            cond("c"),
            decider_of(Kind::AlwaysFailure, []),
            sequence([
                cond("c"),
                priority([sequence([cond("c"), act("a")]), inverter(act("a"))]),
            ]),
            selector([act("a"), force_failure(act("a"))]),
        ]);
        let r = reentries(&Flow::of(&shape(tree)));
        // The first guarded sequence's action: nothing before it to re-test.
        assert_eq!(r[3], Some(vec![]));
        // The guard of the sequence holding the leaf is not re-tested (the
        // sequence resumes past it); the inner selector's earlier guard is,
        // after the outer one's, in the order a tick from the root tests them.
        assert_eq!(r[11], Some(vec![2, 4]));
        assert_eq!(r[13], Some(vec![2, 4, 10]));
        // A selector resumes at its running child; `AlwaysFailure` is skipped.
        assert_eq!(r[15], Some(vec![2, 4, 7]));
        assert_eq!(r[17], Some(vec![2, 4, 7]));
        // Conditions and deciders have none.
        for i in [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16] {
            assert_eq!(r[i], None, "item {i}");
        }
    }

    #[test]
    fn a_leaf_past_a_child_that_is_not_a_guard_is_reached_from_the_root() {
        // 0 Priority, 1 Selector, 2 c, 3 a, 4 a, 5 Sequence, 6 a, 7 c, 8 a
        let tree = priority([
            selector([cond("c"), act("a")]),
            act("a"),
            sequence([act("a"), cond("c"), act("a")]),
        ]);
        let r = reentries(&Flow::of(&shape(tree)));
        assert_eq!(r[3], Some(vec![]));
        // A selector before it is not a guard: re-testing it may run it.
        assert_eq!(r[4], None);
        assert_eq!(r[6], None);
        assert_eq!(r[8], None);
    }

    #[test]
    fn a_leaf_under_a_decider_that_keeps_state_is_reached_from_the_root() {
        // 0 Sequence, 1 a, 2 ReactiveSequence, 3 c, 4 a, 5 Concurrent, 6 a
        let tree = sequence([
            act("a"),
            reactive_sequence([cond("c"), act("a")]),
            concurrent([act("a")]),
        ]);
        let r = reentries(&Flow::of(&shape(tree)));
        // The root keeps a resume point (it holds a concurrent decider's
        // marks): no leaf below it is re-entered.
        assert!(r.iter().all(Option::is_none), "{r:?}");
        // 0 Sequence, 1 a, 2 ReactiveSequence, 3 c, 4 a
        let r = reentries(&Flow::of(&shape(sequence([
            act("a"),
            reactive_sequence([cond("c"), act("a")]),
        ]))));
        assert_eq!(r[1], Some(vec![]));
        // A reactive sequence re-runs its earlier children.
        assert_eq!(r[4], None);
    }

    #[test]
    fn the_leaves_of_a_priority_selector_share_their_guards() {
        // 0 Priority, then 200 guarded sequences of a guard and two
        // actions (items 1 + 4k to 4 + 4k), then an action (801).
        let mut branches: Vec<_> = (0..200)
            .map(|_| sequence([cond("c"), act("a"), act("a")]))
            .collect();
        branches.push(act("a"));
        let flow = Flow::of(&shape(priority(branches)));
        let r = reentries(&flow);
        let guards = |k: u32| (0..k).map(|j| 2 + 4 * j).collect::<Vec<_>>();
        for k in 0..200 {
            assert_eq!(r[3 + 4 * k as usize], Some(guards(k)), "branch {k}");
            assert_eq!(r[4 + 4 * k as usize], Some(guards(k)), "branch {k}");
        }
        assert_eq!(r[801], Some(guards(200)));
        // One list for all: each leaf's guards are the start of the next's.
        assert_eq!(flow.retests(), &guards(200)[..]);
    }

    /// The workload's tree (crates/workload/src/tree.rs) over the test
    /// leaves.
    fn crowd_tree() -> treebeard_shape::tree::Node {
        priority([
            sequence([cond("c"), act("a")]),
            sequence([cond("c"), act("a"), act("a")]),
            sequence([cond("c"), act("a")]),
            sequence([
                cond("c"),
                priority([sequence([cond("c"), act("a")]), act("a")]),
            ]),
            sequence([act("a"), act("a"), act("a")]),
        ])
    }

    #[test]
    fn the_crowd_workloads_leaves_share_two_lists_of_guards() {
        // The workload's tree (crates/workload/src/tree.rs), as
        // ARCHITECTURE.md counts its tables: 0 Priority, 1 Sequence, 2 c,
        // 3 a, 4 Sequence, 5 c, 6 a, 7 a, 8 Sequence, 9 c, 10 a,
        // 11 Sequence, 12 c, 13 Priority, 14 Sequence, 15 c, 16 a, 17 a,
        // 18 Sequence, 19 a, 20 a, 21 a.
        let flow = Flow::of(&shape(crowd_tree()));
        let r = reentries(&flow);
        assert_eq!(r.len(), 22);
        assert_eq!(r[17], Some(vec![2, 5, 9, 15]));
        assert_eq!(r[21], Some(vec![2, 5, 9, 12]));
        assert_eq!(flow.retests(), [2, 5, 9, 15, 2, 5, 9, 12]);
    }

    #[test]
    fn the_idle_entry_is_the_leaf_a_tick_from_the_root_re_enters() {
        let entry = |tree| Flow::of(&shape(tree)).idle_entry();
        // The crowd workload's tree: past the guards of the first four
        // branches, the first action of the last (item 19, as numbered in
        // the test above).
        assert_eq!(entry(crowd_tree()), 19);
        // 0 Sequence, 1 a, 2 a
        assert_eq!(entry(sequence([act("a"), act("a")])), 1);
        // 0 Priority, 1 c, 2 Inverter, 3 a
        assert_eq!(entry(priority([cond("c"), inverter(act("a"))])), 3);
        // 0 Priority, 1 Sequence, 2 a, 3 c, 4 a, 5 a: a branch that is not
        // guarded is entered.
        let tree = priority([sequence([act("a"), cond("c"), act("a")]), act("a")]);
        assert_eq!(entry(tree), 2);
        // None: the first leaf is a condition; every child of the root is a
        // guard; a reactive sequence re-runs its conditions; a selector
        // before the leaf is not a guard.
        assert_eq!(entry(sequence([cond("c"), act("a")])), UP);
        assert_eq!(
            entry(priority([cond("c"), sequence([cond("c"), act("a")])])),
            UP
        );
        assert_eq!(entry(reactive_sequence([act("a"), act("a")])), UP);
        let tree = priority([selector([cond("c"), act("a")]), act("a")]);
        assert_eq!(entry(tree), UP);
    }

    #[test]
    fn the_guards_of_all_re_entries_have_a_bounded_size() {
        // 150 branches, each a guarded sequence holding a priority selector
        // with a guard before its action: no leaf's guards start the next
        // one's, so each leaf's list is new, the k-th 2k + 2 guards long.
        let branches: Vec<_> = (0..150)
            .map(|_| sequence([cond("c"), priority([cond("c"), act("a")])]))
            .collect();
        let shape = shape(priority(branches));
        let flow = Flow::of(&shape);
        let r = reentries(&flow);
        assert!(flow.retests().len() <= retests_budget(shape.len()));
        // The first leaves have theirs, the last ones are reached from the
        // root.
        let leaves: Vec<bool> = (0..150).map(|k| r[5 + 5 * k].is_some()).collect();
        assert!(leaves[..20].iter().all(|&has| has), "{leaves:?}");
        assert!(!leaves[149], "{leaves:?}");
        assert_eq!(r[5 + 5 * 3], Some(vec![2, 7, 12, 19]));
    }

    #[test]
    fn a_re_entry_has_a_bounded_depth() {
        // A leaf below 100 priority selectors, each with a guard before it.
        let mut tree = act("a");
        for _ in 0..100 {
            tree = priority([cond("c"), tree]);
        }
        let flow = Flow::of(&shape(tree));
        let r = reentries(&flow);
        assert_eq!(r.iter().flatten().count(), 0);
        let mut tree = act("a");
        for _ in 0..10 {
            tree = priority([cond("c"), tree]);
        }
        let r = reentries(&Flow::of(&shape(tree)));
        assert_eq!(r[20], Some((0..10).map(|i| 2 * i + 1).collect::<Vec<_>>()));
    }
}
