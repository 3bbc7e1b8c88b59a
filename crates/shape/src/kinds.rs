//! The one list of node kinds.
//!
//! Every shape item starts with a one-byte kind tag. This module is the only
//! place that lists the kinds: the [`Kind`] enum, tag decoding, names, item
//! layouts, child-count rules and the documentation that disassembly, the
//! validator and the interpreter's dispatch use are all generated from the
//! [`node_kinds!`] invocation below. Adding a kind means adding a line here and
//! its semantics in the interpreter (the `match` there is exhaustive, so the
//! compiler points at the one place that must change).
//!
//! Tags are dense (0, 1, 2, ...) and never reused: a new kind takes the next
//! free tag, so encoded shapes stay readable and a kind decodes with one
//! range check into a dense jump table. Whether a kind is a leaf is one bit
//! test against [`LEAF_TAGS`].

use crate::params::{FieldType, ParamType};
use std::fmt;

/// How an item's 56 payload bits are used (see [`crate::ShapeItem`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `end: u24 | a: u16 | b: u16`: the end of the decider's sub-stream and
    /// two kind-specific fields, named in [`Kind::fields`].
    Decider,
    /// `flags: u8 | import: u16 | params: u32`: the leaf's entry in the shape's
    /// import table for its kind, and its slice of the parameter table.
    Leaf,
    /// `end: u24 | params: u32`: a built-in node with per-kind parameters
    /// ([`Kind::params`]): the end of its sub-stream (one past itself for
    /// kinds without children) and its slice of the parameter table, in the
    /// same bits and format as a leaf's.
    Configured,
}

/// The type of a built-in kind's parameter (see [`Kind::params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindParamType {
    /// A count: an integer from 0 to `u32::MAX`.
    Count,
    /// A span of time in seconds, as a leaf's `duration` parameter.
    Duration,
    /// A flag (0 or 1).
    Flag,
    /// An immediate action declared as a scope (see `LeafSchema::scope`): the
    /// word is its index in the shape's action imports, and the scope's own
    /// parameters follow this one.
    Hook,
    /// A script of any type, which may assign (see [`crate::script`]):
    /// written as its source, stored as its index in the shape's scripts.
    Script,
    /// A script whose value is a bool, which may assign.
    Test,
    /// A script whose value is a bool and which assigns nothing.
    Condition,
    /// One of the application's events (see `LeafCatalog::events`): the word
    /// is its index.
    Event,
    /// One of the tree's timestamps (see [`crate::Declarations`]): the word
    /// is its index.
    Timestamp,
    /// An agent: an int input (a blackboard field or a literal); the
    /// default, -1, is the agent itself.
    Agent,
    /// A Spore group's policy: one of [`POLICIES`], written by name, stored
    /// as its index.
    Policy,
    /// A bit mask (a `u32`), written as an integer.
    Mask,
    /// One of the tree's stimuli (see [`crate::Declarations`]): the word is
    /// its index.
    Stimulus,
    /// An int input: a blackboard field or a literal.
    Int,
}

/// The policies of a [`Kind::Group`], by name, in the order of their words.
pub const POLICIES: [&str; 5] = ["prioritized", "sequential", "random", "shuffle", "scored"];

/// How a Spore [`Kind::Group`] chooses among its deciders (its `policy`
/// parameter; the word is the discriminant, the name in [`POLICIES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum GroupPolicy {
    /// The first that accepts; earlier deciders may take over every tick.
    Prioritized = 0,
    /// The first that accepts after the one that ended.
    Sequential = 1,
    /// One that accepts, weighted by its score, from the agent's stream.
    Random = 2,
    /// One that accepts and has not been chosen this round.
    Shuffle = 3,
    /// The highest score; ties to the earlier.
    Scored = 4,
}

impl GroupPolicy {
    /// The policy a parameter word holds.
    pub const fn from_word(word: u64) -> Option<GroupPolicy> {
        Some(match word {
            0 => GroupPolicy::Prioritized,
            1 => GroupPolicy::Sequential,
            2 => GroupPolicy::Random,
            3 => GroupPolicy::Shuffle,
            4 => GroupPolicy::Scored,
            _ => return None,
        })
    }

    /// Its name in tree files.
    pub const fn name(self) -> &'static str {
        POLICIES[self as usize]
    }

    /// Whether it draws from the agent's random stream (and so owns a
    /// persistent slot).
    pub const fn draws(self) -> bool {
        matches!(self, GroupPolicy::Random | GroupPolicy::Shuffle)
    }
}

impl KindParamType {
    /// The type of the parameter as trees write it, which the compiler
    /// encodes: `events`, `timestamps` and `stimuli` are the names event,
    /// timestamp and stimulus parameters may take. (A script is written as
    /// its source, a string; the compiler then stores it as a script index.)
    pub fn written_as(
        self,
        events: &[Box<str>],
        timestamps: &[Box<str>],
        stimuli: &[Box<str>],
    ) -> ParamType {
        match self {
            KindParamType::Count | KindParamType::Hook => ParamType::Count,
            KindParamType::Duration => ParamType::Duration,
            KindParamType::Flag => ParamType::Bool,
            KindParamType::Script | KindParamType::Test | KindParamType::Condition => {
                ParamType::Str
            }
            KindParamType::Event => ParamType::Enum(events.into()),
            KindParamType::Timestamp => ParamType::Enum(timestamps.into()),
            KindParamType::Policy => ParamType::enumeration(&POLICIES),
            KindParamType::Mask => ParamType::Int,
            KindParamType::Stimulus => ParamType::Enum(stimuli.into()),
            KindParamType::Agent | KindParamType::Int => ParamType::Input(FieldType::Int),
        }
    }

    /// Whether the parameter is a script, and the compiler stores it in the
    /// shape's script table.
    pub const fn is_script(self) -> bool {
        matches!(
            self,
            KindParamType::Script | KindParamType::Test | KindParamType::Condition
        )
    }

    /// The parameter's type in listings.
    pub const fn name(self) -> &'static str {
        match self {
            KindParamType::Count => "count",
            KindParamType::Duration => "duration",
            KindParamType::Flag => "bool",
            KindParamType::Hook => "hook",
            KindParamType::Script => "script",
            KindParamType::Test => "bool script",
            KindParamType::Condition => "condition",
            KindParamType::Event => "event",
            KindParamType::Timestamp => "timestamp",
            KindParamType::Agent => "input agent",
            KindParamType::Policy => "policy",
            KindParamType::Mask => "mask",
            KindParamType::Stimulus => "stimulus",
            KindParamType::Int => "input int",
        }
    }
}

/// One parameter of a built-in kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindParam {
    /// Its name in tree files and the builder.
    pub name: &'static str,
    /// What its word holds.
    pub ty: KindParamType,
    /// The value when a tree leaves it out (counts, flags, agents, ints);
    /// `None`: required.
    pub default: Option<i64>,
}

const fn param(name: &'static str, ty: KindParamType) -> KindParam {
    KindParam {
        name,
        ty,
        default: None,
    }
}

const fn count(name: &'static str, default: i64) -> KindParam {
    KindParam {
        name,
        ty: KindParamType::Count,
        default: Some(default),
    }
}

const fn flag(name: &'static str) -> KindParam {
    KindParam {
        name,
        ty: KindParamType::Flag,
        default: Some(0),
    }
}

const fn duration(name: &'static str) -> KindParam {
    param(name, KindParamType::Duration)
}

const fn mask(name: &'static str) -> KindParam {
    KindParam {
        name,
        ty: KindParamType::Mask,
        default: Some(0),
    }
}

const HOOK: KindParam = param("hook", KindParamType::Hook);

/// The word of a script parameter that has a default and was not given:
/// no script, which runs nothing.
pub const NO_SCRIPT: u64 = u64::MAX;

/// A ScriptWrapper's script on a cancel: by default none ([`NO_SCRIPT`]).
const HALTED: KindParam = KindParam {
    name: "halted",
    ty: KindParamType::Script,
    default: Some(0),
};

/// The agent a node addresses when it names none: itself.
pub const SELF_AGENT: i64 = -1;

/// The parameters of the time tests: the timestamp, the span, which side of
/// it passes, and whether a timestamp never set passes.
const SINCE: KindParam = param("since", KindParamType::Timestamp);
const LESS_THAN: KindParam = flag("less_than");
/// A loop's run that ends asks for the tree to be ticked again at once.
const AGAIN: KindParam = flag("again");
const OR_NEVER: KindParam = flag("or_never");

macro_rules! node_kinds {
    (
        $(
            $(#[doc = $doc:literal])+
            $tag:literal => $name:ident : $layout:ident
                children($min:expr, $max:expr)
                fields($a:literal, $b:literal)
                params[$($param:expr),*$(,)?];
        )+
    ) => {
        /// The kind of a shape item: which decider or leaf it is.
        ///
        /// The discriminant is the item's tag byte.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Kind {
            $( $(#[doc = $doc])+ $name = $tag, )+
        }

        impl Kind {
            /// Every kind, in tag order.
            pub const ALL: &'static [Kind] = &[ $( Kind::$name, )+ ];

            /// Decodes a tag byte; `None` for tags no kind uses.
            // PERF: tags equal discriminants and are dense, so this is one
            // range check; the interpreter decodes every item it executes
            // (crowd bench).
            #[inline]
            pub const fn from_tag(tag: u8) -> Option<Kind> {
                match tag {
                    $( $tag => Some(Kind::$name), )+
                    _ => None,
                }
            }

            /// The kind's name, as used by the builder, disassembly and tree files.
            pub const fn name(self) -> &'static str {
                match self { $( Kind::$name => stringify!($name), )+ }
            }

            /// How the kind's payload bits are laid out.
            pub const fn layout(self) -> Layout {
                match self { $( Kind::$name => Layout::$layout, )+ }
            }

            /// The allowed number of direct children, inclusive.
            pub const fn children(self) -> (u32, u32) {
                match self { $( Kind::$name => ($min, $max), )+ }
            }

            /// Names of the decider payload fields `a` and `b` (empty when
            /// unused, and for leaves).
            pub const fn fields(self) -> (&'static str, &'static str) {
                match self { $( Kind::$name => ($a, $b), )+ }
            }

            /// The parameters of a [`Layout::Configured`] kind, in word order
            /// (empty for the others: a leaf's parameters are its import's).
            pub const fn params(self) -> &'static [KindParam] {
                match self {
                    $( Kind::$name => {
                        const PARAMS: &[KindParam] = &[$($param),*];
                        PARAMS
                    } )+
                }
            }

            /// One line of documentation: what the kind does.
            pub const fn doc(self) -> &'static str {
                match self { $( Kind::$name => concat!($($doc),+).trim_ascii_start(), )+ }
            }
        }
    };
}

/// The most children one decider may have (the concurrent thresholds are u16).
pub const MAX_CHILDREN: u32 = u16::MAX as u32;

// Tags: dense, in order of introduction, never reused.
node_kinds! {
    /// Ticks its children in order; resumes at the running child on the next
    /// tick (after re-running the `Repeat` children before it); fails on the
    /// first failure; succeeds when all succeed.
    0 => Sequence: Decider children(1, MAX_CHILDREN) fields("repeats", "") params[];
    /// Reactive priority selector: re-tries its children from the first on
    /// every tick; the first child that runs or succeeds ends the tick, and
    /// running work of lower-priority children is cancelled.
    1 => PrioritySelector: Decider children(1, MAX_CHILDREN) fields("", "") params[];
    /// Ticks all children that have not finished; succeeds when `succeed_at`
    /// children have succeeded, fails when `fail_at` have failed, cancelling
    /// running children and rolling back what they buffered this tick.
    2 => Concurrent: Decider children(1, MAX_CHILDREN) fields("succeed_at", "fail_at") params[];
    /// A test of the blackboard through the shape's function table; succeeds
    /// or fails, never runs.
    3 => Condition: Leaf children(0, 0) fields("", "") params[];
    /// An immediate action through the shape's function table: may run over
    /// several ticks, keeps a 32-bit state, and is called once more with a
    /// cancel signal when abandoned.
    4 => Action: Leaf children(0, 0) fields("", "") params[];
    /// A deferred action: a launch request goes to a game system, whose
    /// completion comes back before a later tick; cancel requests follow
    /// when it is abandoned.
    5 => Deferred: Leaf children(0, 0) fields("", "") params[];
    /// Ticks its children in order until one succeeds; resumes at the
    /// running child on the next tick, after re-running the `Repeat`
    /// children before it (BehaviorTree.CPP's Fallback, MBT's Selector);
    /// fails when all fail.
    6 => Selector: Decider children(1, MAX_CHILDREN) fields("repeats", "") params[];
    /// Inverts its child: success fails it and failure succeeds it.
    7 => Inverter: Decider children(1, 1) fields("", "") params[];
    /// Succeeds when its child finishes, whether it succeeded or failed.
    8 => ForceSuccess: Decider children(1, 1) fields("", "") params[];
    /// Fails when its child finishes, whether it succeeded or failed.
    9 => ForceFailure: Decider children(1, 1) fields("", "") params[];
    /// Reactive sequence: ticks its children from the first on every tick
    /// (BehaviorTree.CPP's ReactiveSequence), so a failing earlier child
    /// cancels a running later one; fails on the first failure; succeeds
    /// when all succeed.
    10 => ReactiveSequence: Decider children(1, MAX_CHILDREN) fields("", "") params[];
    /// Ticks its child again after each success, one run per tick; succeeds
    /// after `count` successes (never, for 0); fails when the child fails.
    /// With `again`, a run that ends asks for the agent's tree to be ticked
    /// again at once, in the same tick (BehaviorTree.CPP's wake-up).
    11 => Loop: Configured children(1, 1) fields("", "") params[count("count", 0), AGAIN];
    /// Ticks its child again after each failure, one attempt per tick;
    /// succeeds when the child succeeds; fails after `attempts` failures
    /// (never, for 0). `again` as for `Loop`.
    12 => LoopUntilSuccess: Configured children(1, 1) fields("", "") params[count("attempts", 0), AGAIN];
    /// Runs its child for at most `seconds`: a tick that starts that long
    /// after the child started cancels it and fails.
    13 => Timeout: Configured children(1, 1) fields("", "") params[duration("seconds")];
    /// Runs until `seconds` have passed since it started, then succeeds.
    14 => Wait: Configured children(0, 0) fields("", "") params[duration("seconds")];
    /// Fails without ticking its child for `seconds` after the child last
    /// finished (per agent; the time is kept in a persistent slot).
    15 => Cooldown: Configured children(1, 1) fields("", "") params[duration("seconds")];
    /// Calls its hook's enter before its child starts and its exit exactly
    /// once when the scope ends: the child succeeded or failed, or the scope
    /// was cancelled, reset or halted.
    16 => Scope: Configured children(1, 1) fields("", "") params[HOOK];
    /// Runs its script and succeeds (MBT's ExecuteLua); a script that
    /// faults fails.
    17 => Script: Configured children(0, 0) fields("", "") params[param("script", KindParamType::Script)];
    /// Runs its child if its bool script holds when it starts, else fails
    /// (MBT's LuaGate).
    18 => ScriptGate: Configured children(1, 1) fields("", "") params[param("test", KindParamType::Test)];
    /// Succeeds if its bool script holds, else fails (MBT's AssertLua).
    19 => AssertScript: Configured children(0, 0) fields("", "") params[param("test", KindParamType::Test)];
    /// Runs its `enter` script before its child starts and its `exit` script
    /// exactly once when it ends, however it ends (MBT's LuaWrapper); when
    /// it ends by a cancel, its `halted` script (none unless given) runs
    /// first (BehaviorTree.CPP's `_onHalted`).
    20 => ScriptWrapper: Configured children(1, 1) fields("", "")
        params[param("enter", KindParamType::Script), param("exit", KindParamType::Script), HALTED];
    /// Runs its child if its condition (a script that assigns nothing) holds
    /// when it starts, else fails.
    21 => IfCondition: Configured children(1, 1) fields("", "") params[param("condition", KindParamType::Condition)];
    /// Succeeds if its condition holds, else fails.
    22 => AssertCondition: Configured children(0, 0) fields("", "") params[param("condition", KindParamType::Condition)];
    /// Runs its child if, when it starts, the time since the timestamp was
    /// set is more (or, with `less_than`, less) than `seconds`, else fails.
    23 => IfTime: Configured children(1, 1) fields("", "") params[SINCE, duration("seconds"), LESS_THAN, OR_NEVER];
    /// Runs until the time since the timestamp was set is more (or, with
    /// `less_than`, less) than `seconds`, then succeeds.
    24 => WaitUntilTime: Configured children(0, 0) fields("", "") params[SINCE, duration("seconds"), LESS_THAN, OR_NEVER];
    /// Runs until its event is sent to its agent, then succeeds.
    25 => WaitForEvent: Configured children(0, 0) fields("", "") params[param("event", KindParamType::Event)];
    /// Sends its event to an agent (itself by default), delivered before
    /// that agent's next tick, and succeeds.
    26 => SendEvent: Configured children(0, 0) fields("", "")
        params[param("event", KindParamType::Event), KindParam { name: "to", ty: KindParamType::Agent, default: Some(SELF_AGENT) }];
    /// Stored-state evaluation of its child: a node that has completed is
    /// not ticked again until the child completes (its composites keep their
    /// place, so reactive ones compile to `Sequence` and `Selector`).
    27 => StoredState: Decider children(1, 1) fields("", "") params[];
    /// Re-runs its child on every tick its parent is ticked, even where the
    /// parent resumes at a later child because this one completed.
    28 => Repeat: Decider children(1, 1) fields("", "") params[];
    /// Runs its child, a query that finishes at once, and passes its status;
    /// after a failure it is tested again before the tree on every tick while
    /// a later branch runs, and its success interrupts and resets the tree.
    29 => Monitor: Decider children(1, 1) fields("", "") params[];
    /// A Spore decider's Decide function: asked by its group, it returns a
    /// score (the decider accepts above 0) and may fill the decider block
    /// handed to the behavior. Only the first child of a `Decider`.
    30 => Decide: Leaf children(0, 0) fields("", "") params[];
    /// A Spore group decider: chooses one of its `Decider` children by its
    /// policy and runs it until it ends or (prioritized) an earlier one
    /// accepts; redecides without a child that ended; may start with a
    /// group behavior (an immediate action).
    31 => Group: Configured children(1, MAX_GROUP_CHILDREN) fields("", "")
        params[KindParam { name: "policy", ty: KindParamType::Policy, default: Some(0) }, count("redecide_limit", 8)];
    /// A Spore decider in a group: its preconditions (a timer, decision and
    /// stimuli flags) and optional first child `Decide` say whether it
    /// accepts; its last child is what it runs.
    32 => Decider: Configured children(1, 2) fields("", "")
        params[KindParam { name: "every", ty: KindParamType::Duration, default: Some(0) },
            mask("decision_all"), mask("decision_any"), mask("decision_none"),
            mask("stimuli_all"), mask("stimuli_any"), mask("stimuli_none"),
            flag("redecide"), flag("delegate")];
    /// Posts its stimulus to its own agent with its datum, active for the
    /// stimulus's declared seconds, and succeeds.
    33 => PostStimulus: Configured children(0, 0) fields("", "")
        params[param("stimulus", KindParamType::Stimulus), KindParam { name: "data", ty: KindParamType::Int, default: Some(0) }];
    /// Seed 001's gate (MBT's LimitConcurrentUsers): at most `max` agents of
    /// the crowd run its child at any moment; an agent that finds it full
    /// fails, one that finds room asks the crowd for a slot (and fails, or
    /// with `wait` runs, meanwhile) and enters on its next tick if granted.
    34 => Gate: Configured children(1, 1) fields("", "") params[param("max", KindParamType::Count), flag("wait")];
    /// A cool-down shared by the crowd: fails without ticking its child for
    /// `seconds` after any agent's child succeeded (or, `on_enter`, after
    /// the one agent admitted entered it).
    35 => GlobalCooldown: Configured children(1, 1) fields("", "")
        params[duration("seconds"), flag("on_enter")];
    /// Seed 001's group behavior: its branch runs only with exactly `size`
    /// agents of the crowd. Agents that reach it ask to join; the crowd
    /// matches them into teams of `size` (the agent that has asked longest
    /// first, then in agent order) and gives each a role, and the member of
    /// role r runs child r (or the one child) from its next tick. A member
    /// that leaves the branch other than by success breaks the team, and the
    /// others' `Team` nodes fail on their next tick.
    36 => Team: Configured children(1, MAX_TEAM_SIZE) fields("", "")
        params[param("size", KindParamType::Count)];
    /// A sync point inside a `Team`: runs until every member still in the
    /// team has reached a `Sync` at `point` or a later one, then succeeds;
    /// the members waiting there all pass in the same tick.
    37 => Sync: Configured children(0, 0) fields("", "") params[param("point", KindParamType::Count)];
    /// Seed 001's child-tree connector: its children are the child trees
    /// the environment may inject (each named, as its tree), shared by
    /// every agent; each agent runs the one injected into it (kept in a
    /// persistent slot), passing its statuses through, and fails while none
    /// is. Injecting another one cancels the old one's running work on the
    /// agent's next tick.
    38 => ChildTree: Configured children(1, MAX_CHILD_TREES) fields("", "") params[];
    /// Succeeds at once (BehaviorTree.CPP's AlwaysSuccess): a placeholder
    /// for work not written yet, or the last, catch-all branch of a
    /// selector.
    39 => AlwaysSuccess: Configured children(0, 0) fields("", "") params[];
    /// Fails at once (BehaviorTree.CPP's AlwaysFailure).
    40 => AlwaysFailure: Configured children(0, 0) fields("", "") params[];
    /// Ticks its first child, the condition, and then its second (if the
    /// condition succeeded) or its third (if it failed; with two children,
    /// fails), returning that branch's status (BehaviorTree.CPP's
    /// IfThenElse). A running branch resumes on the next tick without the
    /// condition being ticked again.
    41 => IfThenElse: Decider children(2, 3) fields("", "") params[];
    /// Ticks its first child, the condition, on every tick, then its second
    /// (if the condition succeeded) or its third (if it failed; with two
    /// children, fails), returning that branch's status; when the
    /// condition's status changes, the other branch's running work is
    /// cancelled (BehaviorTree.CPP's WhileDoElse).
    42 => WhileDoElse: Decider children(2, 3) fields("", "") params[];
    /// Ticks its children in order, as a Sequence, but remembers where it
    /// stopped across failures and cancellation: after a child failed, or
    /// its work was cancelled, it starts again at that child; only when
    /// every child has succeeded does it start from the first (per agent,
    /// in a persistent slot; BehaviorTree.CPP's SequenceWithMemory).
    43 => SequenceWithMemory: Configured children(1, MAX_CHILDREN) fields("", "") params[];
    /// Ticks every child that has not finished, on every tick, until all
    /// have: then fails if `max_failures` or more failed, else succeeds
    /// (BehaviorTree.CPP's ParallelAll; no child is cancelled early).
    44 => ParallelAll: Configured children(1, MAX_CHILDREN) fields("", "") params[count("max_failures", 1)];
    /// Its children in order, as a `Sequence`, but a step yields: after a
    /// child succeeds with others after it, it returns running and asks
    /// for the agent's tree to be ticked again at once (a pass of the same
    /// tick), where it goes on at the next child (BehaviorTree.CPP's
    /// AsyncSequence). A failure fails it; its place is a decider state.
    45 => AsyncSequence: Configured children(1, MAX_CHILDREN) fields("", "") params[];
    /// `AsyncSequence` with success and failure swapped: a step that fails
    /// yields, a success succeeds (BehaviorTree.CPP's AsyncFallback).
    46 => AsyncSelector: Configured children(1, MAX_CHILDREN) fields("", "") params[];
}

/// The most members of a [`Kind::Team`] (its `size`): a team's members
/// still in it are a `u32` bit set.
pub const MAX_TEAM_SIZE: u32 = 32;

/// The highest `point` of a [`Kind::Sync`]: a team keeps a byte per member
/// for the highest point it reached.
pub const MAX_SYNC_POINT: u32 = 255;

/// The most child trees one [`Kind::ChildTree`] connector may offer.
pub const MAX_CHILD_TREES: u32 = 255;

/// The most `Decider` children a [`Kind::Group`] may have: a group's masks
/// and shuffle rounds are `u32` bit sets.
pub const MAX_GROUP_DECIDERS: u32 = 32;

/// The most children of a [`Kind::Group`]: its group behavior and its
/// deciders.
pub const MAX_GROUP_CHILDREN: u32 = MAX_GROUP_DECIDERS + 1;

/// The parameter words of a [`Kind::Decider`], by position.
pub mod decider_param {
    /// `every`: seconds (f64 bits).
    pub const EVERY: usize = 0;
    /// `decision_all`, `decision_any`, `decision_none`.
    pub const DECISION: usize = 1;
    /// `stimuli_all`, `stimuli_any`, `stimuli_none`.
    pub const STIMULI: usize = 4;
    /// `redecide`.
    pub const REDECIDE: usize = 7;
    /// `delegate`.
    pub const DELEGATE: usize = 8;
}

/// The number of leaf kinds: imports are kept in one table per leaf kind.
pub const LEAF_KINDS: usize = 4;

/// Bit `t` is set when tag `t` is a leaf kind's; tags of no kind are clear.
pub const LEAF_TAGS: u128 = {
    let mut mask = 0u128;
    let mut i = 0;
    while i < Kind::LEAVES.len() {
        mask |= 1 << Kind::LEAVES[i] as u8;
        i += 1;
    }
    mask
};

/// Whether `tag` is a leaf kind's tag (one bit test).
#[inline]
pub const fn is_leaf_tag(tag: u8) -> bool {
    tag < 128 && LEAF_TAGS & (1 << tag) != 0
}

impl Kind {
    /// The kind's tag byte.
    #[inline]
    pub const fn tag(self) -> u8 {
        self as u8
    }

    /// True for inner nodes.
    #[inline]
    pub const fn is_decider(self) -> bool {
        !self.is_leaf()
    }

    /// True for deciders that take their children's statuses at run time,
    /// through a guard: the concurrent decider, and every configured kind
    /// with a child but the gates and `Decider`. The others decide by the status and the
    /// child's position alone, which the VM's flow table resolves ahead of
    /// time.
    #[inline]
    pub const fn is_dynamic(self) -> bool {
        matches!(
            self,
            Kind::Concurrent | Kind::Repeat | Kind::Monitor | Kind::Group
        ) || (matches!(self.layout(), Layout::Configured)
            && self.children().1 > 0
            && !self.passes_through())
    }

    /// True for the kinds that compiled trees (`treebeard-codegen`) turn
    /// into straight-line code: the deciders whose decisions the flow
    /// table resolves (sequences, selectors, if-then-else and
    /// while-do-else, the decorators that map a status, `StoredState` and
    /// `Repeat`), `SequenceWithMemory`, the async sequences, the constant
    /// statuses, `Wait`, `Timeout`, `Cooldown`, the loops, the leaves
    /// called through the leaf table, and the nodes of the agent's memory
    /// that keep to one running leaf: scripts, assertions and the gates
    /// that test on entry, the time tests, waiting for an event, sending
    /// one and posting a stimulus. A tree of only these kinds compiles
    /// straight; one with any other kind (whose behaviour is data at run
    /// time: concurrent deciders, scopes, monitors, Spore groups, a crowd's
    /// gates and teams, child trees) compiles hosted, on the interpreter's
    /// tick, whose steps decide those nodes, and the generator names them.
    #[inline]
    pub const fn compiles(self) -> bool {
        matches!(
            self,
            Kind::Sequence
                | Kind::PrioritySelector
                | Kind::Selector
                | Kind::ReactiveSequence
                | Kind::Inverter
                | Kind::ForceSuccess
                | Kind::ForceFailure
                | Kind::StoredState
                | Kind::Repeat
                | Kind::SequenceWithMemory
                | Kind::IfThenElse
                | Kind::WhileDoElse
                | Kind::AlwaysSuccess
                | Kind::AlwaysFailure
                | Kind::Wait
                | Kind::Cooldown
                | Kind::Timeout
                | Kind::Loop
                | Kind::LoopUntilSuccess
                | Kind::Condition
                | Kind::Action
                | Kind::Deferred
                | Kind::Script
                | Kind::AssertScript
                | Kind::AssertCondition
                | Kind::ScriptGate
                | Kind::IfCondition
                | Kind::IfTime
                | Kind::WaitUntilTime
                | Kind::WaitForEvent
                | Kind::SendEvent
                | Kind::PostStimulus
                | Kind::AsyncSequence
                | Kind::AsyncSelector
        )
    }

    /// True for the static deciders that record where to resume while a
    /// child past their first runs (a decider state tagged `RESUME` whose
    /// value is that child's item), and on their next tick go straight
    /// back to it: `Sequence`, `Selector` and `IfThenElse`.
    #[inline]
    pub const fn keeps_resume(self) -> bool {
        matches!(self, Kind::Sequence | Kind::Selector | Kind::IfThenElse)
    }

    /// True for the kinds that hold no state of their own but a resume
    /// point, and whose running status always comes from a running leaf:
    /// the static flow deciders and decorators, conditions, actions and
    /// deferred actions. In a sub-tree made only of them, the only states
    /// are the running leaf's action state and the resume points above
    /// it, so the action state says where each `Sequence`, `Selector` and
    /// `IfThenElse` resumes (the child holding it), and those keep no
    /// resume point: their resume is *implied*
    /// ([`Shape::resume_implied`](crate::Shape::resume_implied)). Crowd
    /// trees are mostly made of these kinds, and their agents then hold
    /// the running leaf's state alone.
    #[inline]
    pub const fn implies_resume(self) -> bool {
        matches!(
            self,
            Kind::Sequence
                | Kind::Selector
                | Kind::IfThenElse
                | Kind::PrioritySelector
                | Kind::ReactiveSequence
                | Kind::WhileDoElse
                | Kind::Inverter
                | Kind::ForceSuccess
                | Kind::ForceFailure
                | Kind::StoredState
                | Kind::AlwaysSuccess
                | Kind::AlwaysFailure
                | Kind::Condition
                | Kind::Action
                | Kind::Deferred
        )
    }

    /// True for the kinds that test the agent when they start, fail if the
    /// test does not hold, and otherwise pass their child's statuses through
    /// unchanged (a `ScriptGate` and its kin; not a crowd's [`Kind::Gate`]).
    #[inline]
    pub const fn tests_on_entry(self) -> bool {
        matches!(self, Kind::ScriptGate | Kind::IfCondition | Kind::IfTime)
    }

    /// True for the static deciders that pass their child's statuses
    /// through unchanged and need no state: the gates (which also test on
    /// entry) and `StoredState` (which only marks its sub-tree).
    #[inline]
    pub const fn passes_through(self) -> bool {
        self.tests_on_entry() || matches!(self, Kind::StoredState | Kind::Decider)
    }

    /// True for the kinds a `Monitor`'s query may hold: none whose tick can
    /// end running whatever its children do (leaves that take time, waits,
    /// loops, sync points), and no other monitor. A query of them finishes
    /// in the tick it starts.
    #[inline]
    pub const fn fits_in_monitor(self) -> bool {
        !self.runs_itself() && !matches!(self, Kind::Monitor)
    }

    /// True for the kinds that can end a tick running with an action state
    /// of their own, whatever their children do: the leaves that take
    /// time, the waits, a loop between runs, an async sequence after a
    /// step, a sync point. (Compiled code dispatches on such a node's item,
    /// a "running leaf" with its path's resume table.)
    #[inline]
    pub const fn runs_itself(self) -> bool {
        matches!(
            self,
            Kind::Action
                | Kind::Deferred
                | Kind::Wait
                | Kind::WaitUntilTime
                | Kind::WaitForEvent
                | Kind::Loop
                | Kind::LoopUntilSuccess
                | Kind::Sync
                | Kind::AsyncSequence
                | Kind::AsyncSelector
        )
    }

    /// True for the kinds with state shared by the whole crowd (seed 001's
    /// global tree state): one word each in a program's `Globals` (and, for
    /// a `Team`, the records of its teams), read by every agent during a
    /// tick and changed only between ticks. Each holds an agent's ticket, an
    /// action state, while the agent is in it or asks to be. (A `Sync`
    /// reads its `Team`'s record and holds no ticket.)
    #[inline]
    pub const fn is_global(self) -> bool {
        matches!(self, Kind::Gate | Kind::GlobalCooldown | Kind::Team)
    }

    /// Whether a configured node of this kind with parameter words `words`
    /// owns a persistent slot: a `Cooldown` (its time), a
    /// `SequenceWithMemory` (the position of the child it starts at), a `random` or
    /// `shuffle` `Group` (its random stream or round), a `Decider` with a
    /// timer (when it was last asked), a `ChildTree` (which child tree is
    /// injected: its position plus one, 0 for none).
    pub fn owns_slot(self, words: &[u64]) -> bool {
        match self {
            Kind::Cooldown | Kind::ChildTree | Kind::SequenceWithMemory => true,
            Kind::Group => words
                .first()
                .and_then(|&w| GroupPolicy::from_word(w))
                .is_some_and(GroupPolicy::draws),
            Kind::Decider => words
                .get(decider_param::EVERY)
                .is_some_and(|&w| f64::from_bits(w) > 0.0),
            _ => false,
        }
    }

    /// Why a node of this kind cannot be a child of `parent` (`None` for
    /// the root), if it cannot: Spore's kinds stand only in their places.
    pub const fn misplaced_in(self, parent: Option<Kind>) -> Option<&'static str> {
        match (self, parent) {
            (Kind::Decider, Some(Kind::Group)) | (Kind::Decide, Some(Kind::Decider)) => None,
            (Kind::Decider, _) => Some("a Decider stands only in a Group"),
            (Kind::Decide, _) => Some("a Decide leaf stands only first in a Decider"),
            _ => None,
        }
    }

    /// Why `children`, in order, cannot be the children of a node of this
    /// kind, if they cannot (Spore's structure; counts are checked against
    /// [`Kind::children`] besides).
    pub fn misplaced_children(self, children: &[Kind]) -> Option<&'static str> {
        match self {
            Kind::Group => {
                let deciders = match children {
                    [Kind::Action, rest @ ..] => rest,
                    all => all,
                };
                if deciders.is_empty() {
                    Some("a Group needs at least one Decider")
                } else if deciders.iter().any(|&k| k != Kind::Decider) {
                    Some(
                        "a Group's children are Deciders, after an optional group behavior (an immediate action) first",
                    )
                } else if deciders.len() > MAX_GROUP_DECIDERS as usize {
                    Some("a Group has at most 32 Deciders")
                } else {
                    None
                }
            }
            Kind::Decider => match children {
                [Kind::Decide, run] | [run] if *run != Kind::Decide => None,
                _ => Some("a Decider has one child to run, after an optional Decide leaf first"),
            },
            _ => None,
        }
    }

    /// The memory version of a reactive composite (what it compiles to under
    /// [`Kind::StoredState`]); other kinds are themselves.
    #[inline]
    pub const fn stored(self) -> Kind {
        match self {
            Kind::PrioritySelector => Kind::Selector,
            Kind::ReactiveSequence => Kind::Sequence,
            Kind::WhileDoElse => Kind::IfThenElse,
            kind => kind,
        }
    }

    /// True for leaves (one bit test).
    #[inline]
    pub const fn is_leaf(self) -> bool {
        is_leaf_tag(self as u8)
    }

    /// For leaf kinds, the index of the kind's import table.
    #[inline]
    pub const fn leaf_slot(self) -> Option<usize> {
        let mut slot = 0;
        while slot < LEAF_KINDS {
            if Kind::LEAVES[slot] as u8 == self as u8 {
                return Some(slot);
            }
            slot += 1;
        }
        None
    }

    /// The leaf kinds, by import-table slot.
    pub const LEAVES: [Kind; LEAF_KINDS] =
        [Kind::Condition, Kind::Action, Kind::Deferred, Kind::Decide];

    /// Looks a kind up by its name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_partition() {
        for &k in Kind::ALL {
            assert_eq!(Kind::from_tag(k.tag()), Some(k));
            assert_eq!(k.is_leaf(), is_leaf_tag(k.tag()), "{k}");
            assert_eq!(Kind::from_name(k.name()), Some(k));
            assert_eq!(k.is_decider(), k.layout() != Layout::Leaf, "{k}");
            assert_eq!(k.is_leaf(), k.leaf_slot().is_some());
            assert!(!k.is_dynamic() || k.is_decider(), "{k}");
        }
        let unused = (0..=u8::MAX)
            .filter(|&t| Kind::from_tag(t).is_none())
            .count();
        assert_eq!(unused, 256 - Kind::ALL.len());
        let dynamic: Vec<Kind> = Kind::ALL
            .iter()
            .copied()
            .filter(|k| k.is_dynamic())
            .collect();
        assert_eq!(
            dynamic,
            [
                Kind::Concurrent,
                Kind::Loop,
                Kind::LoopUntilSuccess,
                Kind::Timeout,
                Kind::Cooldown,
                Kind::Scope,
                Kind::ScriptWrapper,
                Kind::Repeat,
                Kind::Monitor,
                Kind::Group,
                Kind::Gate,
                Kind::GlobalCooldown,
                Kind::Team,
                Kind::ChildTree,
                Kind::SequenceWithMemory,
                Kind::ParallelAll,
                Kind::AsyncSequence,
                Kind::AsyncSelector
            ]
        );
        // Dense, and `ALL` in tag order: every tag below the number of kinds
        // is used, by `ALL`'s kind at that index.
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(k.tag() as usize, i, "{k}");
        }
        assert!((0..Kind::ALL.len() as u8).all(|t| Kind::from_tag(t).is_some()));
        assert!(
            (0..=u8::MAX)
                .filter(|&t| is_leaf_tag(t))
                .all(|t| Kind::from_tag(t).is_some())
        );
    }

    /// The node reference documents every kind, under its name.
    #[test]
    fn every_kind_has_a_section_in_the_node_reference() {
        let doc = include_str!("../../../docs/nodes.md");
        for k in Kind::ALL {
            let heading = format!("\n### {}", k.name());
            assert!(doc.contains(&heading), "docs/nodes.md lacks `### {k}`");
            for p in k.params().iter().filter(|p| p.ty != KindParamType::Hook) {
                assert!(doc.contains(&format!("`{}`", p.name)), "{k}'s `{}`", p.name);
            }
        }
    }

    #[test]
    fn leaf_slots_are_dense() {
        for (slot, k) in Kind::LEAVES.iter().enumerate() {
            assert_eq!(k.leaf_slot(), Some(slot));
        }
        let leaves = Kind::ALL.iter().filter(|k| k.is_leaf()).count();
        assert_eq!(leaves, LEAF_KINDS);
    }
}
