//! The validator: the one gate between untrusted parts and a runnable shape.
//!
//! One forward pass over the stream with an explicit stack of open deciders
//! (no recursion, so no input depth can overflow the call stack). The same
//! pass computes the capacity specification bottom-up: when a decider's
//! sub-stream closes, its children's bounds are combined by the decider's
//! semantics and handed to its parent.

// Validates untrusted parts: a bad input must become an error, never a
// panic.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::capacity::CapacitySpec;
use crate::declare::MAX_STIMULI;
use crate::error::{Invalid, ValidationError};
use crate::ids::NodeIdx;
use crate::item::{
    FLAG_PERSISTENT, KNOWN_FLAGS, MAX_ITEMS, MAX_MEMORY_WORDS, MAX_PARAM_WORDS, ShapeItem,
};
use crate::kinds::{
    Kind, KindParamType, Layout, MAX_SYNC_POINT, MAX_TEAM_SIZE, POLICIES, decider_param,
};
use crate::params::{ENTRY_REF, FIELD_REF, FieldType, ParamType};
use crate::script::{self, ScriptType};
use crate::shape::{Import, Limits, ShapeParts};
use std::collections::{HashMap, HashSet};

/// What validation learns about a shape.
pub(crate) struct Facts {
    pub spec: CapacitySpec,
    pub persistent: Vec<NodeIdx>,
    /// The value type of each script.
    pub script_types: Vec<ScriptType>,
    /// Per item, whether it resumes where its running leaf lies, keeping
    /// no resume point (see [`Kind::implies_resume`]).
    pub implied: Vec<bool>,
}

/// The most variables, timestamps and events a shape may have: each
/// variable or timestamp costs every agent a bit or a word. (Stimuli have
/// their own, smaller limit: [`MAX_STIMULI`].)
pub const MAX_DECLARED: usize = 4096;

/// Bounds on the state one subtree can hold at the end of a tick.
#[derive(Clone, Copy, Default)]
struct Bound {
    deciders: u32,
    actions: u32,
    deferred: u32,
}

/// A decider whose sub-stream is still open.
struct Open {
    index: u32,
    end: u32,
    kind: Kind,
    item: ShapeItem,
    children: u32,
    /// Children's bounds, combined as the kind requires: the maximum for
    /// deciders that run one child at a time, the sum for concurrent ones.
    acc: Bound,
    /// Whether a child is a `Repeat` (what a composite's `repeats` says).
    repeats: bool,
    /// Whether the decider and every item below it are of kinds that
    /// [imply resume points](Kind::implies_resume).
    implied: bool,
    /// The innermost `StoredState` and `Monitor` holding this decider (or
    /// being it), if any.
    stored: Option<u32>,
    monitor: Option<u32>,
    /// A Spore group's or decider's children's kinds, in order (empty for
    /// other kinds).
    kinds: Vec<Kind>,
    /// A Spore decider's `delegate`.
    delegates: bool,
    /// The innermost `Team` holding this decider (or being it), if any.
    team: Option<u32>,
    /// A `Team`'s `size`, a `ParallelAll`'s `max_failures` (0 for other
    /// kinds).
    size: u64,
}

impl Open {
    fn add_child(&mut self, child: Bound, kind: Kind, implied: bool) {
        self.children += 1;
        self.implied &= implied;
        if matches!(self.kind, Kind::Group | Kind::Decider) {
            self.kinds.push(kind);
        }
        let acc = &mut self.acc;
        if self.kind == Kind::Group && self.children == 1 && kind == Kind::Action {
            // A group behavior runs beside the active decider's work.
            acc.actions += child.actions;
            return;
        }
        if self.kind == Kind::Group && self.kinds.first() == Some(&Kind::Action) {
            // The deciders after a group behavior: one runs at a time.
            let behavior = 1;
            acc.deciders = acc.deciders.max(child.deciders);
            acc.actions = acc.actions.max(child.actions + behavior);
            acc.deferred = acc.deferred.max(child.deferred);
            return;
        }
        if matches!(self.kind, Kind::Concurrent | Kind::ParallelAll) {
            // A finished child leaves a completion mark instead of its states.
            acc.deciders += child.deciders.max(1);
            acc.actions += child.actions;
            acc.deferred += child.deferred;
        } else {
            acc.deciders = acc.deciders.max(child.deciders);
            acc.actions = acc.actions.max(child.actions);
            acc.deferred = acc.deferred.max(child.deferred);
        }
    }

    /// The decider's own bound once all children are known.
    fn close(&self) -> Result<Bound, ValidationError> {
        let err = |what| ValidationError::at(self.index, Some(self.kind), what);
        let (min, max) = self.kind.children();
        if self.children < min || self.children > max {
            return Err(err(Invalid::ChildCount {
                kind: self.kind,
                count: self.children,
                min,
                max,
            }));
        }
        let n = self.children;
        let mut bound = self.acc;
        match self.kind {
            // A loop's count or a timeout's elapsed time while the child
            // runs; between runs a loop keeps its count in an action state.
            Kind::Loop | Kind::LoopUntilSuccess => {
                bound.deciders += 1;
                bound.actions = bound.actions.max(1);
            }
            Kind::Timeout => bound.deciders += 1,
            // A running entry: the time waited, or that the scope is open.
            // An action state while running: a wait's start, a scope's or a
            // wrapper's mark, a waiting event's arrival.
            Kind::Wait
            | Kind::Scope
            | Kind::ScriptWrapper
            | Kind::WaitUntilTime
            | Kind::WaitForEvent => bound.actions += 1,
            // The agent's ticket is counted for the whole shape (see
            // `check`): it stays while the branches after a refused node run.
            Kind::Gate | Kind::GlobalCooldown => {}
            // Its ticket likewise; its children are one for every member,
            // or one per role.
            Kind::Team => {
                if n != 1 && u64::from(n) != self.size {
                    let rule = "a Team has one child, which every member runs, or `size` children, one per role";
                    return Err(err(Invalid::Misplaced { rule }));
                }
            }
            // A mark while it waits for the team.
            Kind::Sync => bound.actions += 1,
            // Finish at once, or pass their child's statuses through (the
            // gates test on entry only, and know a child is running by its
            // states).
            Kind::Script
            | Kind::AlwaysSuccess
            | Kind::AlwaysFailure
            | Kind::AssertScript
            | Kind::AssertCondition
            | Kind::SendEvent
            | Kind::PostStimulus
            | Kind::ScriptGate
            | Kind::IfCondition
            | Kind::IfTime => {}
            // Its time is a persistent slot; so is which child tree a
            // connector runs (one at a time: the maximum of theirs), and
            // where a sequence with memory starts.
            Kind::Cooldown | Kind::ChildTree | Kind::SequenceWithMemory => {}
            // The resume point of a sequence or selector stopped past its
            // first child, unless its running leaf implies it.
            Kind::Sequence | Kind::Selector => {
                let expected = u16::from(self.repeats);
                if self.item.b() != 0 {
                    let bits = self.item.bits();
                    return Err(err(Invalid::ReservedBits { bits }));
                }
                if self.item.a() != expected {
                    return Err(err(Invalid::RepeatsField {
                        value: self.item.a(),
                        expected,
                    }));
                }
                bound.deciders += u32::from(!self.implied);
            }
            // The branch it resumes at (its condition, when running, keeps
            // states of its own), unless its running leaf implies it.
            Kind::IfThenElse => bound.deciders += u32::from(!self.implied),
            // Where an async sequence or selector goes on: a decider value
            // while a child runs, an action state once a step yielded.
            Kind::AsyncSequence | Kind::AsyncSelector => {
                bound.deciders += 1;
                bound.actions = bound.actions.max(1);
            }
            // A monitor's registration is counted for the whole shape (see
            // `check`): it outlives its branch.
            Kind::WhileDoElse
            | Kind::PrioritySelector
            | Kind::ReactiveSequence
            | Kind::Inverter
            | Kind::ForceSuccess
            | Kind::ForceFailure
            | Kind::StoredState
            | Kind::Repeat
            | Kind::Monitor => {}
            // Its active decider.
            Kind::Group => {
                if let Some(rule) = self.kind.misplaced_children(&self.kinds) {
                    return Err(err(Invalid::Misplaced { rule }));
                }
                bound.deciders += 1;
            }
            Kind::Decider => {
                if let Some(rule) = self.kind.misplaced_children(&self.kinds) {
                    return Err(err(Invalid::Misplaced { rule }));
                }
                if self.delegates && self.kinds.last() != Some(&Kind::Group) {
                    let rule = "a Decider that delegates its Decide needs a Group to run";
                    return Err(err(Invalid::Misplaced { rule }));
                }
            }
            // As many failures as there are children at most (0: it fails
            // whatever they do).
            Kind::ParallelAll => {
                if self.size > u64::from(n) {
                    return Err(err(Invalid::Threshold {
                        field: "max_failures",
                        value: u16::try_from(self.size).unwrap_or(u16::MAX),
                        min: 0,
                        max: n,
                    }));
                }
            }
            Kind::Concurrent => {
                let succeed = u32::from(self.item.a());
                if !(1..=n).contains(&succeed) {
                    return Err(err(Invalid::Threshold {
                        field: "succeed_at",
                        value: self.item.a(),
                        min: 1,
                        max: n,
                    }));
                }
                // Failing is certain once success is out of reach, so a
                // larger `fail_at` could never be met.
                let fail_max = n - succeed + 1;
                if !(1..=fail_max).contains(&u32::from(self.item.b())) {
                    return Err(err(Invalid::Threshold {
                        field: "fail_at",
                        value: self.item.b(),
                        min: 1,
                        max: fail_max,
                    }));
                }
            }
            Kind::Condition | Kind::Action | Kind::Deferred | Kind::Decide => {
                unreachable!("only deciders are opened")
            }
        }
        Ok(bound)
    }
}

pub(crate) fn check(parts: &ShapeParts, limits: &Limits) -> Result<Facts, ValidationError> {
    let items = &parts.items;
    let n = items.len();
    let max_items = limits.max_items.min(MAX_ITEMS);
    let max_params = limits.max_params.min(MAX_PARAM_WORDS);
    if n == 0 {
        return Err(ValidationError::whole(Invalid::Empty));
    }
    if n > max_items {
        return Err(ValidationError::whole(Invalid::TooManyItems {
            count: n,
            max: max_items,
        }));
    }
    if parts.params.len() > max_params {
        return Err(ValidationError::whole(Invalid::TooManyParams {
            count: parts.params.len(),
            max: max_params,
        }));
    }
    if parts.nodes.len() != n {
        return Err(ValidationError::whole(Invalid::NodeTable {
            nodes: parts.nodes.len(),
            items: n,
        }));
    }
    check_imports(parts)?;
    check_logs(parts)?;
    let script_types = check_declarations(parts)?;
    let mut ids = HashSet::with_capacity(n);
    for (i, (node, item)) in parts.nodes.iter().zip(items).enumerate() {
        if let Some(source) = node.source
            && source.file as usize >= parts.files.len()
        {
            let kind = item.kind();
            return Err(ValidationError::at(
                i as u32,
                kind,
                Invalid::SourceFile {
                    file: source.file,
                    files: parts.files.len(),
                },
            ));
        }
        if !ids.insert(node.id) {
            let kind = item.kind();
            return Err(ValidationError::at(
                i as u32,
                kind,
                Invalid::DuplicateId { id: node.id },
            ));
        }
    }

    let n32 = n as u32;
    let mut stack: Vec<Open> = Vec::new();
    let mut spec = CapacitySpec::default();
    let mut persistent = Vec::new();
    let mut root = Bound::default();
    let mut implied = vec![false; n];

    for (i, &item) in items.iter().enumerate() {
        let i = i as u32;
        while stack.last().is_some_and(|open| open.end == i) {
            close_top(&mut stack, &mut root, &mut implied)?;
        }
        if i > 0 && stack.is_empty() {
            // Only reachable when the root is a leaf in a longer stream.
            return Err(ValidationError::at(
                0,
                items.first().and_then(|root| root.kind()),
                Invalid::RootSpan { end: 1, len: n },
            ));
        }
        let Some(kind) = item.kind() else {
            return Err(ValidationError::at(
                i,
                None,
                Invalid::UnknownKind { tag: item.tag() },
            ));
        };
        let err = |what| ValidationError::at(i, Some(kind), what);
        let parent = stack.last();
        let stored = parent.and_then(|p| p.stored);
        let monitor = parent.and_then(|p| p.monitor);
        if let Some(monitor) = monitor
            && !kind.fits_in_monitor()
        {
            return Err(err(Invalid::RunsInMonitor { monitor }));
        }
        if let Some(stored) = stored
            && kind.stored() != kind
        {
            return Err(err(Invalid::ReactiveInStoredState { stored }));
        }
        if let Some(rule) = kind.misplaced_in(parent.map(|p| p.kind)) {
            return Err(err(Invalid::Misplaced { rule }));
        }
        let team = parent.and_then(|p| p.team);
        if kind == Kind::Sync && team.is_none() {
            let rule =
                "a Sync stands only inside a Team (at any depth): it waits for the team's members";
            return Err(err(Invalid::Misplaced { rule }));
        }
        match kind.layout() {
            Layout::Decider | Layout::Configured => {
                let end = item.end();
                let limit = stack.last().map_or(n32, |parent| parent.end);
                if end <= i {
                    return Err(err(Invalid::EmptySubStream { end }));
                }
                if i == 0 && end != n32 {
                    return Err(err(Invalid::RootSpan { end, len: n }));
                }
                if end > limit {
                    return Err(err(Invalid::EndOutOfBounds { end, limit }));
                }
                // A configured kind's parameter words.
                let words = match kind.layout() {
                    Layout::Configured => check_configured(parts, i, kind, item, &script_types)?,
                    _ if kind.fields() == ("", "") && (item.a() != 0 || item.b() != 0) => {
                        return Err(err(Invalid::ReservedBits { bits: item.bits() }));
                    }
                    _ => &[],
                };
                if kind.layout() == Layout::Configured && kind.owns_slot(words) {
                    persistent.push(NodeIdx::new(i));
                }
                if kind == Kind::SendEvent {
                    spec.events_sent += 1;
                }
                if kind == Kind::Monitor {
                    spec.monitors += 1;
                }
                if kind == Kind::Group {
                    spec.groups += 1;
                }
                if kind.is_global() {
                    spec.globals += 1;
                }
                if kind == Kind::Sync {
                    spec.syncs += 1;
                }
                if kind == Kind::Repeat
                    && let Some(parent) = stack.last_mut()
                {
                    parent.repeats = true;
                }
                if stack.len() as u32 >= limits.max_depth {
                    return Err(err(Invalid::TooDeep {
                        max: limits.max_depth,
                    }));
                }
                stack.push(Open {
                    index: i,
                    end,
                    kind,
                    item,
                    children: 0,
                    acc: Bound::default(),
                    repeats: false,
                    implied: kind.implies_resume(),
                    stored: (kind == Kind::StoredState).then_some(i).or(stored),
                    monitor: (kind == Kind::Monitor).then_some(i).or(monitor),
                    kinds: Vec::new(),
                    delegates: kind == Kind::Decider
                        && words.get(decider_param::DELEGATE).is_some_and(|&w| w != 0),
                    team: (kind == Kind::Team).then_some(i).or(team),
                    size: match (kind, words) {
                        (Kind::Team | Kind::ParallelAll, &[size, ..]) => size,
                        _ => 0,
                    },
                });
                spec.guard_depth = spec.guard_depth.max(stack.len() as u32);
            }
            Layout::Leaf => {
                let bound = check_leaf(parts, i, kind, item)?;
                if item.flags() & FLAG_PERSISTENT != 0 {
                    // Its persistent slot and its memory block's words
                    // (`check_leaf` found the import).
                    let slots = imports(parts, kind)
                        .get(item.import() as usize)
                        .map_or(0, Import::slots);
                    persistent.extend(std::iter::repeat_n(NodeIdx::new(i), slots));
                }
                match stack.last_mut() {
                    Some(parent) => parent.add_child(bound, kind, kind.implies_resume()),
                    None => root = bound,
                }
            }
        }
    }
    while !stack.is_empty() {
        close_top(&mut stack, &mut root, &mut implied)?;
    }
    crate::child_trees::check(parts)?;

    // Each monitor may hold a registration besides its branch's states.
    spec.decider_states = root.deciders + spec.monitors;
    // Each gate, global cool-down or team may hold a ticket besides the
    // running branch's states.
    spec.action_states = root.actions + spec.globals;
    spec.deferred_states = root.deferred;
    spec.persistent_states = persistent.len() as u32;
    spec.variables = parts.variables.len() as u32;
    spec.entries = parts.entries.len() as u32;
    spec.timestamps = parts.timestamps.len() as u32;
    spec.stimuli = parts.stimuli.len() as u32;
    Ok(Facts {
        spec,
        persistent,
        script_types,
        implied,
    })
}

/// Closes the innermost open decider: its bound goes to its parent (or is
/// the root's), and whether its resume is implied to `implied`.
fn close_top(
    stack: &mut Vec<Open>,
    root: &mut Bound,
    implied: &mut [bool],
) -> Result<(), ValidationError> {
    let Some(open) = stack.pop() else {
        return Ok(());
    };
    let bound = open.close()?;
    if let Some(slot) = implied.get_mut(open.index as usize) {
        *slot = open.implied && open.kind.keeps_resume();
    }
    match stack.last_mut() {
        Some(parent) => parent.add_child(bound, open.kind, open.implied),
        None => *root = bound,
    }
    Ok(())
}

fn check_leaf(
    parts: &ShapeParts,
    i: u32,
    kind: Kind,
    item: ShapeItem,
) -> Result<Bound, ValidationError> {
    let err = |what| ValidationError::at(i, Some(kind), what);
    let flags = item.flags();
    if flags & !KNOWN_FLAGS != 0 {
        return Err(err(Invalid::UnknownFlags { flags }));
    }
    let table = imports(parts, kind);
    let Some(import) = table.get(item.import() as usize) else {
        return Err(err(Invalid::ImportOutOfRange {
            kind,
            import: item.import(),
            len: table.len(),
        }));
    };
    let params = item.params();
    let Some(words) = parts.params.get(params.range()) else {
        return Err(err(Invalid::ParamsOutOfRange {
            offset: params.offset,
            len: params.len,
            table: parts.params.len(),
        }));
    };
    if params.len as usize != import.arity() {
        return Err(err(Invalid::Arity {
            leaf: import.name.clone(),
            expected: import.arity(),
            found: params.len,
        }));
    }
    // Conditions and immediate actions are called in the agent's tick: they
    // may read the tree's entries.
    let entries = matches!(kind, Kind::Condition | Kind::Action);
    check_import_words(parts, import, words, entries).map_err(err)?;
    if import.scope {
        return Err(err(Invalid::ScopeHook {
            name: import.name.clone(),
            scope: true,
        }));
    }
    if (flags & FLAG_PERSISTENT != 0) != (import.slots() > 0) {
        return Err(err(Invalid::PersistentFlag {
            leaf: import.name.clone(),
            declared: import.slots() > 0,
        }));
    }
    Ok(match kind {
        // A Decide is only asked by its decider: it never runs.
        Kind::Condition | Kind::Decide => Bound::default(),
        Kind::Action => Bound {
            actions: 1,
            ..Bound::default()
        },
        Kind::Deferred => Bound {
            actions: 1,
            deferred: 1,
            ..Bound::default()
        },
        _ => unreachable!("deciders have the decider layout"),
    })
}

/// Checks the words a use of `import` gives its parameters, by their types;
/// inputs may read tree entries if `entries`.
fn check_import_words(
    parts: &ShapeParts,
    import: &Import,
    words: &[u64],
    entries: bool,
) -> Result<(), Invalid> {
    for (param, &word) in import.params.iter().zip(words) {
        let reason = match &param.ty {
            ParamType::Input(want) if word & ENTRY_REF != 0 && word & FIELD_REF == 0 => {
                bad_entry(*want, word, parts, entries)
            }
            ParamType::Output(FieldType::Str) if word & ENTRY_REF != 0 && word & FIELD_REF == 0 => {
                Some("writes a string into a tree entry, whose strings are the tree's own")
            }
            ParamType::Output(want) if word & ENTRY_REF != 0 && word & FIELD_REF == 0 => {
                bad_entry(*want, word, parts, entries)
            }
            ty => bad_word(ty, word, parts),
        };
        if let Some(reason) = reason {
            return Err(Invalid::ParamWord {
                leaf: import.name.clone(),
                param: param.name.clone(),
                word,
                reason,
            });
        }
    }
    Ok(())
}

/// The import table of a leaf kind (empty for the others).
fn imports(parts: &ShapeParts, kind: Kind) -> &[Import] {
    kind.leaf_slot()
        .and_then(|slot| parts.imports.get(slot))
        .map_or(&[], Vec::as_slice)
}

/// Checks a configured item's parameter words against its kind's schema
/// (and, for a scope, against its hook's); the words.
fn check_configured<'p>(
    parts: &'p ShapeParts,
    i: u32,
    kind: Kind,
    item: ShapeItem,
    script_types: &[ScriptType],
) -> Result<&'p [u64], ValidationError> {
    let err = |what| ValidationError::at(i, Some(kind), what);
    let params = item.params();
    let Some(words) = parts.params.get(params.range()) else {
        return Err(err(Invalid::ParamsOutOfRange {
            offset: params.offset,
            len: params.len,
            table: parts.params.len(),
        }));
    };
    let bad = |param: &str, word: u64, reason| {
        err(Invalid::ParamWord {
            leaf: kind.name().into(),
            param: param.into(),
            word,
            reason,
        })
    };
    if kind == Kind::Scope {
        let Some((&hook, hook_words)) = words.split_first() else {
            return Err(err(Invalid::Arity {
                leaf: kind.name().into(),
                expected: 1,
                found: 0,
            }));
        };
        let actions = imports(parts, Kind::Action);
        let Some(import) = usize::try_from(hook).ok().and_then(|h| actions.get(h)) else {
            return Err(bad("hook", hook, "is not an action import"));
        };
        if !import.scope {
            return Err(err(Invalid::ScopeHook {
                name: import.name.clone(),
                scope: false,
            }));
        }
        if words.len() != 1 + import.arity() {
            return Err(err(Invalid::Arity {
                leaf: import.name.clone(),
                expected: import.arity(),
                found: params.len.saturating_sub(1),
            }));
        }
        check_import_words(parts, import, hook_words, true).map_err(err)?;
        return Ok(words);
    }
    let schema = kind.params();
    if words.len() != schema.len() {
        return Err(err(Invalid::Arity {
            leaf: kind.name().into(),
            expected: schema.len(),
            found: params.len,
        }));
    }
    for (param, &word) in schema.iter().zip(words) {
        let none = param.ty == KindParamType::Script
            && param.default.is_some()
            && word == crate::kinds::NO_SCRIPT;
        if let Some(reason) = (!none)
            .then(|| bad_kind_word(param.ty, word, parts, script_types))
            .flatten()
        {
            return Err(bad(param.name, word, reason));
        }
    }
    // The arity is checked: each of these kinds has a first word.
    match (kind, words) {
        (Kind::Gate, &[0, ..]) => Err(bad("max", 0, "is 0: a gate must admit at least one agent")),
        (Kind::Team, &[size, ..]) if !(2..=u64::from(MAX_TEAM_SIZE)).contains(&size) => {
            Err(bad("size", size, "is not a team size (2 to 32)"))
        }
        (Kind::Sync, &[point, ..]) if !(1..=u64::from(MAX_SYNC_POINT)).contains(&point) => {
            Err(bad("point", point, "is not a sync point (1 to 255)"))
        }
        _ => Ok(words),
    }
}

/// Why `word` cannot be a built-in kind's parameter of type `ty`, if it
/// cannot.
fn bad_kind_word(
    ty: KindParamType,
    word: u64,
    parts: &ShapeParts,
    script_types: &[ScriptType],
) -> Option<&'static str> {
    let index = usize::try_from(word).unwrap_or(usize::MAX);
    match ty {
        KindParamType::Count | KindParamType::Hook => bad_word(&ParamType::Count, word, parts),
        KindParamType::Mask => (word > u64::from(u32::MAX)).then_some("is not a 32-bit mask"),
        KindParamType::Policy => (index >= POLICIES.len()).then_some("is not a policy"),
        KindParamType::Duration => bad_word(&ParamType::Duration, word, parts),
        KindParamType::Flag => bad_word(&ParamType::Bool, word, parts),
        KindParamType::Agent | KindParamType::Int => {
            bad_word(&ParamType::Input(FieldType::Int), word, parts)
        }
        KindParamType::Event if index >= parts.events.len() => Some("is not an event"),
        KindParamType::Timestamp if index >= parts.timestamps.len() => Some("is not a timestamp"),
        KindParamType::Stimulus if index >= parts.stimuli.len() => Some("is not a stimulus"),
        KindParamType::Event | KindParamType::Timestamp | KindParamType::Stimulus => None,
        KindParamType::Script | KindParamType::Test | KindParamType::Condition => {
            match script_types.get(index) {
                None => Some("is not a script"),
                Some(ScriptType::Bool) => None,
                Some(_) if ty != KindParamType::Script => {
                    Some("is a script whose value is not a bool")
                }
                Some(_) => None,
            }
            .or_else(|| {
                (ty == KindParamType::Condition
                    && parts
                        .scripts
                        .get(index)
                        .is_some_and(|s| script::writes(&s.words)))
                .then_some("is a script that assigns, not a condition")
            })
        }
    }
}

/// Checks the declaration and script tables; the scripts' value types.
fn check_declarations(parts: &ShapeParts) -> Result<Vec<ScriptType>, ValidationError> {
    let fail = |what, index, reason: &str| {
        Err(ValidationError::whole(Invalid::Declaration {
            what,
            index,
            reason: reason.into(),
        }))
    };
    let (events, variables) = (parts.events.len(), parts.variables.len());
    if parts.stimuli.len() > MAX_STIMULI {
        let reason =
            format!("is past the limit of {MAX_STIMULI} stimuli (stimulus flags are a u32)");
        return fail("stimulus", MAX_STIMULI, &reason);
    }
    if parts.entries.len() > script::MAX_ENTRIES {
        let reason = format!("is past the limit of {} entries", script::MAX_ENTRIES);
        return fail("entry", script::MAX_ENTRIES, &reason);
    }
    let tables: [(&'static str, Vec<&str>); 5] = [
        ("event", parts.events.iter().map(|e| &**e).collect()),
        (
            "variable",
            parts.variables.iter().map(|v| &*v.name).collect(),
        ),
        ("entry", parts.entries.iter().map(|e| &*e.name).collect()),
        (
            "timestamp",
            parts.timestamps.iter().map(|t| &*t.name).collect(),
        ),
        ("stimulus", parts.stimuli.iter().map(|s| &*s.name).collect()),
    ];
    for (what, names) in tables {
        if names.len() > MAX_DECLARED {
            let reason = format!("is past the limit of {MAX_DECLARED} {what}s");
            return fail(what, MAX_DECLARED, &reason);
        }
        let mut seen = HashSet::with_capacity(names.len());
        if let Some(i) = names.iter().position(|n| n.is_empty() || !seen.insert(n)) {
            return fail(what, i, "has an empty or repeated name");
        }
    }
    for (i, s) in parts.signals.iter().enumerate() {
        if s.event as usize >= events || s.variable as usize >= variables {
            return fail("signal", i, "names an event or variable past its table");
        }
    }
    for (i, t) in parts.timestamps.iter().enumerate() {
        if t.event as usize >= events {
            return fail("timestamp", i, "is set by an event past the events");
        }
        if let Some(other) = t.exclusive {
            let back = parts
                .timestamps
                .get(other as usize)
                .and_then(|o| o.exclusive);
            if other as usize == i || back != Some(i as u32) {
                return fail(
                    "timestamp",
                    i,
                    "is exclusive to one that is not exclusive to it",
                );
            }
        }
    }
    for (i, s) in parts.stimuli.iter().enumerate() {
        if !(s.seconds >= 0.0 && s.seconds.is_finite()) {
            return fail(
                "stimulus",
                i,
                "lasts a number of seconds that is not finite and 0 or more",
            );
        }
    }
    let mut types = Vec::with_capacity(parts.scripts.len());
    let cx = script::Context {
        fields: &parts.fields,
        variables: variables as u32,
        entries: &parts.entries,
        strings: parts.strings.len() as u64,
    };
    // Scripts compare strings by their words, so no two of the strings
    // they name may have one text.
    let mut texts: HashMap<&str, u64> = HashMap::new();
    for (i, s) in parts.scripts.iter().enumerate() {
        if s.words.len() > script::MAX_WORDS {
            return fail("script", i, "is longer than 1024 words");
        }
        match script::check_in(&s.words, &cx) {
            Ok(ty) => types.push(ty),
            Err(reason) => return fail("script", i, reason),
        }
        for word in script::strings(&s.words) {
            let text = word
                .checked_sub(1)
                .and_then(|w| parts.strings.get(w as usize))
                .map_or("", |t| &**t);
            if *texts.entry(text).or_insert(word) != word {
                return fail("script", i, "names a string another string word holds too");
            }
        }
    }
    Ok(types)
}

/// Why `word`, an input's or an output's entry reference, cannot read or
/// write a tree entry of type `want` in `parts` (or any, unless
/// `allowed`), if it cannot.
fn bad_entry(
    want: FieldType,
    word: u64,
    parts: &ShapeParts,
    allowed: bool,
) -> Option<&'static str> {
    let index = word & !ENTRY_REF;
    match parts
        .entries
        .get(usize::try_from(index).unwrap_or(usize::MAX))
    {
        _ if !allowed => Some("names a tree entry, which only conditions, actions and scopes may"),
        _ if index > u64::from(u32::MAX) => Some("is not an entry reference"),
        None => Some("refers past the shape's entries"),
        Some(e) if FieldType::from(e.ty) != want => Some("refers to an entry of another type"),
        Some(_) => None,
    }
}

/// Why `word` cannot be a parameter of type `ty` in `parts`, if it cannot.
fn bad_word(ty: &ParamType, word: u64, parts: &ShapeParts) -> Option<&'static str> {
    let field = |want: FieldType| {
        let index = (word & !FIELD_REF) as usize;
        match parts.fields.get(index) {
            _ if word & !FIELD_REF > u64::from(u32::MAX) => Some("is not a field reference"),
            None => Some("refers past the shape's blackboard fields"),
            Some(f) if f.ty != want => Some("refers to a field of another type"),
            Some(_) => None,
        }
    };
    match ty {
        ParamType::Str if word >= parts.strings.len() as u64 => {
            Some("is past the shape's string table")
        }
        ParamType::Enum(variants) if word >= variants.len() as u64 => {
            Some("is not one of the enumeration's variants")
        }
        ParamType::Bool if word > 1 => Some("is not 0 or 1"),
        ParamType::Count if word > u64::from(u32::MAX) => Some("is not a count (0 to 2^32 - 1)"),
        ParamType::Duration
            if !(f64::from_bits(word) >= 0.0 && f64::from_bits(word).is_finite()) =>
        {
            Some("is not a finite, non-negative number of seconds")
        }
        ParamType::Input(want) if word & FIELD_REF != 0 => field(*want),
        ParamType::Input(want) => match parts.params.get(word as usize) {
            None => Some("refers past the parameter table"),
            Some(&c) if *want == FieldType::Str && c >= parts.strings.len() as u64 => {
                Some("refers to a literal past the shape's string table")
            }
            Some(&c) if *want == FieldType::Bool && c > 1 => {
                Some("refers to a literal that is not 0 or 1")
            }
            Some(_) => None,
        },
        ParamType::Output(_) if word & FIELD_REF == 0 => Some("is not a field reference"),
        ParamType::Output(want) => field(*want),
        _ => None,
    }
}

fn check_imports(parts: &ShapeParts) -> Result<(), ValidationError> {
    for (&kind, table) in Kind::LEAVES.iter().zip(&parts.imports) {
        let mut seen = HashSet::new();
        for (index, import) in table.iter().enumerate() {
            if import.name.is_empty() {
                return Err(ValidationError::whole(Invalid::EmptyImportName {
                    kind,
                    import: index,
                }));
            }
            if !seen.insert(&import.name) {
                return Err(ValidationError::whole(Invalid::DuplicateImport {
                    kind,
                    name: import.name.clone(),
                }));
            }
            // Only what keeps state between calls has a memory block: an
            // immediate action (not a scope's hooks) and a Decide.
            let holds = matches!(kind, Kind::Action | Kind::Decide) && !import.scope;
            if import.memory > 0 && (!holds || usize::from(import.memory) > MAX_MEMORY_WORDS) {
                return Err(ValidationError::whole(Invalid::MemoryBlock {
                    kind,
                    name: import.name.clone(),
                    words: import.memory,
                }));
            }
        }
    }
    Ok(())
}

/// Checks the log table: entries sorted by item, each naming an item of
/// the stream once, with at least one message and no empty one. An entry
/// whose node exists is reported at that node.
fn check_logs(parts: &ShapeParts) -> Result<(), ValidationError> {
    let mut previous = None;
    for (index, entry) in parts.logs.iter().enumerate() {
        let whole = |reason| Err(ValidationError::whole(Invalid::Log { index, reason }));
        let Some(item) = parts.items.get(entry.node as usize) else {
            return whole("names an item past the stream");
        };
        if previous.is_some_and(|p| p >= entry.node) {
            return whole(
                "is not after the entry before it: the table is sorted by item, one entry per node",
            );
        }
        previous = Some(entry.node);
        let at = |reason| {
            Err(ValidationError::at(
                entry.node,
                item.kind(),
                Invalid::Log { index, reason },
            ))
        };
        if entry.messages.is_empty() {
            return at("has no message");
        }
        if entry.messages.iter().any(|(_, m)| m.is_empty()) {
            return at("has an empty message");
        }
    }
    Ok(())
}
