//! A reference interpreter: docs/nodes.md, written as plainly as possible.
//!
//! The VM walks a flat stream with a guard stack, sparse sorted states and
//! rollback marks, all for speed. This interpreter is the opposite: a
//! recursive walk over a tree of [`RefNode`] objects, each holding its own
//! runtime state in plain fields, so that every rule of the node reference
//! can be read off the code next to the sentence it implements. The
//! differential tests (`crates/vm/tests/differential.rs`) tick both on the
//! same random trees and compare everything a game can observe.
//!
//! Leaves behave through the scripted [`World`](crate::World) (the same
//! calls the VM's standard test [`leaves`](crate::leaves) make), so when
//! the two interpreters agree they also produce the same
//! [`Event`](crate::Event) log. Nodes are numbered in pre-order, like the
//! shape stream's items.
//!
//! Each agent also keeps the tree's memory (seed 002's MBT nodes, seed
//! 000's stimuli): its variables, timestamps and stimuli, which scripts,
//! time tests, delivered events and `PostStimulus` nodes read and change.
//! The reference holds them in plain vectors beside the tree
//! ([`Reference::variables`], [`Reference::timestamps`],
//! [`Reference::stimulus`]); scripts run through [`RefLeaves::script`].
//!
//! Seed 001's crowd nodes (`Gate`, `GlobalCooldown`) read the crowd's state
//! through [`RefLeaves::crowd`] and ask for changes with requests, which
//! the crowd settles after every round ([`crate::crowd`]). The agent's
//! [`Ticket`]s are kept beside the tree too, by node: the tick gives up a
//! ticket of the last tick by where the walk goes in the whole tree (it
//! reaches a later node, or a node holding it returns), not by what a
//! single node does.
//!
//! Nothing here is fast: a tick allocates, abandoning a subtree walks it
//! whole, and a concurrent decider snapshots the persistent slots below it
//! on every entry.

use crate::crowd::CrowdState;
use std::collections::BTreeMap;
use treebeard_shape::tree::{Count, Policy};
use treebeard_shape::{
    ActionId, GroupPolicy, Kind, NodeIdx, SELF_AGENT, Shape, Signal as SignalDecl, Timestamp,
    decider_param,
};
use treebeard_vm::script::{Fault, Memory as TreeMemory, ScriptValue};
use treebeard_vm::{
    ActionState, AgentId, DeciderState, Ending, EventId, Frame, MemoryBlock, Outcome, Request,
    RequestKind, Seat, Signal, Stale, Status, TraceEvent,
};

mod build;
mod leaves;
mod monitors;
mod node;
mod remembered;
mod spore;
#[cfg(test)]
mod tests;
mod walk;

use build::ref_node;
pub use leaves::{ProgramLeaves, RefLeaves};
use monitors::*;
pub use node::{
    CrowdRule, DeciderParams, DeferredState, GateTest, IntInput, Memory, RefNode, Ticket, TimeTest,
};
use remembered::*;
use spore::*;
use walk::*;

/// What one tick of one agent produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TickOutput {
    /// The root's status.
    pub status: Status,
    /// Cancel requests, then launch requests, then events sent (and a
    /// redecide limit's report), then the crowd's requests, each in order
    /// of occurrence.
    pub requests: Vec<Request>,
}

/// The states a tree remembers between ticks, in the VM's inspection types
/// (`ActorRef::deciders` and `ActorRef::actions`), so the two interpreters'
/// memories can be compared. Both lists are sorted by item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Remembered {
    /// Sequence and selector resume points and concurrent children's
    /// completion marks.
    pub deciders: Vec<DeciderState>,
    /// Running immediate actions, launched deferred actions, and the other
    /// nodes that keep an action state (loops between runs, waits, open
    /// scopes and wrappers).
    pub actions: Vec<(NodeIdx, ActionState)>,
}

/// Counts of the rarer things the reference did, so tests can check that
/// random trees reach them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Launch requests emitted (and not dropped).
    pub launches: u64,
    /// Cancel requests emitted.
    pub cancel_requests: u64,
    /// Immediate actions called with [`Signal::Cancel`].
    pub cancel_calls: u64,
    /// Launch requests dropped by a concurrent decider's rollback.
    pub dropped_launches: u64,
    /// Concurrent failures that undid a persistent change.
    pub persistent_undos: u64,
    /// Concurrent decisions taken while some child still ran.
    pub concurrent_cancellations: u64,
    /// Completions (success or failure) returned by deferred actions.
    pub completions_consumed: u64,
    /// Selector ticks that resumed at a running child past the first.
    pub selector_resumes: u64,
    /// Resumed selector children that failed, the selector moving on to
    /// the next child in the same tick.
    pub selector_moves_after_resume: u64,
    /// Selectors abandoned while they held a resume point.
    pub selector_resumes_abandoned: u64,
    /// Finished statuses a decorator changed (an inverter swapping, a
    /// `ForceSuccess` turning a failure into success, a `ForceFailure` a
    /// success into failure).
    pub decorator_changes: u64,
    /// Reactive sequences whose earlier child failed or ran while a later
    /// child was running, cancelling it.
    pub reactive_cancellations: u64,
    /// Scripts that faulted (a `Script` failing, a wrapper's enter script
    /// failing it, a test or condition counting as false, an exit script).
    pub script_faults: u64,
    /// Gates whose test failed them without ticking their child.
    pub gate_failures: u64,
    /// Gates that passed without a test because their child ran from an
    /// earlier tick.
    pub gates_passed_running: u64,
    /// `ScriptWrapper` exit scripts run because the wrapper was cancelled.
    pub wrapper_exits_cancelled: u64,
    /// `WaitUntilTime` nodes that succeeded after running.
    pub time_waits_done: u64,
    /// `WaitForEvent` nodes that succeeded on an event.
    pub events_awaited: u64,
    /// Events `SendEvent` nodes sent.
    pub events_sent: u64,
    /// Runs that `Loop` and `LoopUntilSuccess` nodes repeated, ending the
    /// tick running to start their child afresh on the next.
    pub loop_repeats: u64,
    /// Loops that finished on their count (`Loop`) or attempts
    /// (`LoopUntilSuccess`).
    pub loop_limits_reached: u64,
    /// Timeouts that expired while their child ran, cancelling its work.
    pub timeouts_expired: u64,
    /// `Wait` nodes that succeeded after running.
    pub waits_done: u64,
    /// `Cooldown` nodes that failed without ticking their child.
    pub cooldowns_blocked: u64,
    /// Scope exit hooks run because the scope was cancelled.
    pub scope_exits_cancelled: u64,
    /// `Repeat` children ticked again before their parent's resume point.
    pub repeat_reruns: u64,
    /// Registered monitors tested before the tree.
    pub monitors_tested: u64,
    /// Trees a monitor interrupted.
    pub monitor_interrupts: u64,
    /// Prioritized groups where an earlier decider took over from the
    /// active one.
    pub group_take_overs: u64,
    /// Groups that chose again in the same tick, the decider whose child
    /// ended masked.
    pub masked_redecides: u64,
    /// Groups that ended after a child ended, choosing nothing more
    /// (popping up a level).
    pub group_pop_ups: u64,
    /// Groups ended because their own `redecide` decider no longer
    /// accepted.
    pub redecides_refused: u64,
    /// Ticks stopped by a group's redecide limit.
    pub redecide_limits: u64,
    /// Deciders reported for breaking the subset rule.
    pub subset_rule_reports: u64,
    /// Groups ended by their group behavior's success or failure.
    pub group_behaviors_ended: u64,
    /// Delegating deciders that accepted through their group's deciders.
    pub delegations: u64,
    /// Deciders skipped because their `every` timer had not run out.
    pub timers_blocked: u64,
    /// Deciders skipped by their decision or stimuli flags.
    pub flags_refused: u64,
    /// Deciders whose stimuli flags passed them (they have stimuli masks).
    pub stimuli_passed: u64,
    /// Deciders skipped by their stimuli flags (counted in
    /// `flags_refused` too).
    pub stimuli_refused: u64,
    /// Stimuli that `PostStimulus` nodes posted.
    pub stimuli_posted: u64,
    /// Decide leaves asked while one of the agent's stimuli was active
    /// (so that they could read its datum).
    pub decides_with_stimuli: u64,
    /// Immediate actions started with a non-zero decider block.
    pub decider_blocks: u64,
    /// `random` and `shuffle` groups' draws.
    pub random_draws: u64,
    /// Requests to enter a `Gate` or an entering `GlobalCooldown`.
    pub crowd_asks: u64,
    /// Agents that asked again keeping their place (a refused ticket, or
    /// a waiting one nobody answered).
    pub crowd_places_kept: u64,
    /// Admitted tickets used: the agent entered the child.
    pub crowd_entries: u64,
    /// Full gates that failed at once, without asking.
    pub gates_full: u64,
    /// Cooling `GlobalCooldown`s that failed at once.
    pub global_cooldowns_blocked: u64,
    /// `GlobalCooldown`s started by a child's success.
    pub global_cooldowns_started: u64,
    /// Gate slots given back because the child finished.
    pub slots_given_back: u64,
    /// Gate slots given back because the ticket was abandoned: cancelled,
    /// halted, rolled back, or admitted and passed over.
    pub slots_given_back_abandoned: u64,
    /// Admitted tickets the tick passed over without entering.
    pub admissions_passed_over: u64,
    /// Team members whose child succeeded: they left their teams.
    pub teams_left: u64,
    /// Team members that broke out of their teams (their child failed, or
    /// their admitted ticket was given up).
    pub teams_broken_out: u64,
    /// Team members that found their team broken.
    pub teams_broken: u64,
    /// Sync points passed.
    pub syncs_passed: u64,
    /// Crowd nodes abandoned while their child ran (cancelled by a higher
    /// priority, a finishing or failing concurrent decider, a timeout, a
    /// monitor, a take-over, a redecide limit or a halt).
    pub crowd_cancelled_inside: u64,
    /// Ticks of a connector that ran its injected child tree.
    pub child_trees_run: u64,
    /// Connectors that failed with no child tree injected.
    pub child_trees_missing: u64,
    /// Child trees other than the injected one whose remembered work a
    /// connector cancelled (the agent was switched to another tree, or to
    /// none).
    pub child_trees_cancelled: u64,
}

impl Coverage {
    /// Adds another count.
    pub fn add(&mut self, other: &Coverage) {
        self.launches += other.launches;
        self.cancel_requests += other.cancel_requests;
        self.cancel_calls += other.cancel_calls;
        self.dropped_launches += other.dropped_launches;
        self.persistent_undos += other.persistent_undos;
        self.concurrent_cancellations += other.concurrent_cancellations;
        self.completions_consumed += other.completions_consumed;
        self.selector_resumes += other.selector_resumes;
        self.selector_moves_after_resume += other.selector_moves_after_resume;
        self.selector_resumes_abandoned += other.selector_resumes_abandoned;
        self.decorator_changes += other.decorator_changes;
        self.reactive_cancellations += other.reactive_cancellations;
        self.script_faults += other.script_faults;
        self.gate_failures += other.gate_failures;
        self.gates_passed_running += other.gates_passed_running;
        self.wrapper_exits_cancelled += other.wrapper_exits_cancelled;
        self.time_waits_done += other.time_waits_done;
        self.events_awaited += other.events_awaited;
        self.events_sent += other.events_sent;
        self.loop_repeats += other.loop_repeats;
        self.loop_limits_reached += other.loop_limits_reached;
        self.timeouts_expired += other.timeouts_expired;
        self.waits_done += other.waits_done;
        self.cooldowns_blocked += other.cooldowns_blocked;
        self.scope_exits_cancelled += other.scope_exits_cancelled;
        self.repeat_reruns += other.repeat_reruns;
        self.monitors_tested += other.monitors_tested;
        self.monitor_interrupts += other.monitor_interrupts;
        self.group_take_overs += other.group_take_overs;
        self.masked_redecides += other.masked_redecides;
        self.group_pop_ups += other.group_pop_ups;
        self.redecides_refused += other.redecides_refused;
        self.redecide_limits += other.redecide_limits;
        self.subset_rule_reports += other.subset_rule_reports;
        self.group_behaviors_ended += other.group_behaviors_ended;
        self.delegations += other.delegations;
        self.timers_blocked += other.timers_blocked;
        self.flags_refused += other.flags_refused;
        self.stimuli_passed += other.stimuli_passed;
        self.stimuli_refused += other.stimuli_refused;
        self.stimuli_posted += other.stimuli_posted;
        self.decides_with_stimuli += other.decides_with_stimuli;
        self.decider_blocks += other.decider_blocks;
        self.random_draws += other.random_draws;
        self.crowd_asks += other.crowd_asks;
        self.crowd_places_kept += other.crowd_places_kept;
        self.crowd_entries += other.crowd_entries;
        self.gates_full += other.gates_full;
        self.global_cooldowns_blocked += other.global_cooldowns_blocked;
        self.global_cooldowns_started += other.global_cooldowns_started;
        self.slots_given_back += other.slots_given_back;
        self.slots_given_back_abandoned += other.slots_given_back_abandoned;
        self.admissions_passed_over += other.admissions_passed_over;
        self.crowd_cancelled_inside += other.crowd_cancelled_inside;
        self.teams_left += other.teams_left;
        self.teams_broken_out += other.teams_broken_out;
        self.teams_broken += other.teams_broken;
        self.syncs_passed += other.syncs_passed;
        self.child_trees_run += other.child_trees_run;
        self.child_trees_missing += other.child_trees_missing;
        self.child_trees_cancelled += other.child_trees_cancelled;
    }
}

/// The reference interpreter for one agent: a tree of [`RefNode`]s.
#[derive(Clone, Debug)]
pub struct Reference {
    root: RefNode,
    coverage: Coverage,
    /// Per node: started and not finished or cancelled (for traces).
    open: Vec<bool>,
    /// What the tree declares for the agent's memory.
    memory: Memory,
    /// The variables' values: variable `i` is bit `i % 32` of word `i / 32`.
    vars: Vec<u32>,
    /// The entries' values, two words each (low first).
    entries: Vec<u32>,
    /// Per timestamp, the time it was last set.
    stamps: Vec<Option<f32>>,
    /// Per stimulus, once posted: its expiry time and its datum.
    stimuli: Vec<Option<(f32, u32)>>,
    /// The tree's `Gate` and `GlobalCooldown` nodes and their rules.
    rules: BTreeMap<NodeIdx, CrowdRule>,
    /// The agent's tickets at them.
    tickets: BTreeMap<NodeIdx, Ticket>,
}

/// What a tick collects while it walks.
struct Tick<'w> {
    world: &'w mut dyn RefLeaves,
    agent: AgentId,
    cancels: Vec<Request>,
    launches: Vec<Request>,
    /// Events sent (never rolled back).
    events: Vec<Request>,
    coverage: &'w mut Coverage,
    open: &'w mut [bool],
    trace: &'w mut dyn FnMut(NodeIdx, TraceEvent),
    /// The agent's variables, which scripts change in place.
    vars: &'w mut [u32],
    /// The agent's entries, which scripts change in place.
    entries: &'w mut [u32],
    /// The agent's timestamps (only events between ticks set them).
    stamps: &'w [Option<f32>],
    /// The agent's stimuli, which `PostStimulus` nodes post.
    stimuli: &'w mut [Option<(f32, u32)>],
    /// The monitors tested this tick, with their queries' statuses.
    tested: Vec<(NodeIdx, Status)>,
    /// The decider block an immediate action started next by a newly
    /// chosen decider gets as its state (0 otherwise).
    block: u32,
    /// The decider block (of its decider's Decide) that an immediate
    /// action with a memory block started next starts its memory from.
    block_memory: Option<MemoryBlock>,
    /// The `redecide` deciders whose group children are running, innermost
    /// last.
    redeciders: Vec<Redecider>,
    /// A group that started this tick and found no decider to accept (its
    /// decider, if it has one, broke the subset rule).
    found_nothing: Option<NodeIdx>,
    /// A decider broke the subset rule: the group that chose it counts it
    /// against its redecide limit.
    violated: bool,
    /// The group whose redecide limit stopped the tick.
    aborted: Option<NodeIdx>,
    /// The crowd's requests (enter, leave, start a cool-down), in order.
    crowd: Vec<Request>,
    /// The tree's crowd nodes and their rules.
    rules: &'w BTreeMap<NodeIdx, CrowdRule>,
    /// The tickets the last tick left that this tick has not reached yet.
    last: BTreeMap<NodeIdx, Ticket>,
    /// The tickets this tick keeps.
    tickets: &'w mut BTreeMap<NodeIdx, Ticket>,
    /// Whether reaching a node gives up the tickets before it (not while
    /// monitors are tested before the tree).
    passing: bool,
    /// A loop asked for the tree to be ticked again at once.
    again: bool,
    /// This pass is not the tick's first: it covers no time.
    later_pass: bool,
    /// The seats of the teams whose branches the walk is in, innermost
    /// last: a `Sync`'s team is the last.
    seats: Vec<Seat>,
}

/// A `redecide` decider whose group child runs: the group asks it again
/// before choosing again. Its timer slot is kept here while the group runs.
struct Redecider {
    decider: NodeIdx,
    group: NodeIdx,
    params: DeciderParams,
    decide: Option<NodeIdx>,
    slot: Option<u32>,
    /// Its Decide's decider block, as asking it again leaves it.
    memory: Option<MemoryBlock>,
}

/// The unwinding payload that stops a tick at a group's redecide limit.
struct RedecideLimit;

impl Reference {
    /// An idle agent running `root`, which declares no memory. Its nodes
    /// must be numbered in pre-order from 0, as [`crate::Spec::to_reference`]
    /// does.
    pub fn new(root: RefNode) -> Reference {
        Reference::with_memory(root, Memory::default())
    }

    /// An idle agent running `root`, with the variables, signals and
    /// timestamps of `memory`: variables at their initial values, no
    /// timestamp set.
    pub fn with_memory(root: RefNode, memory: Memory) -> Reference {
        let mut nodes = Vec::new();
        root.walk(&mut nodes);
        for (i, n) in nodes.iter().enumerate() {
            assert_eq!(
                n.index().index(),
                i,
                "reference nodes must be numbered in pre-order"
            );
        }
        let mut vars = vec![0u32; memory.initial.len().div_ceil(32)];
        for (i, &initial) in memory.initial.iter().enumerate() {
            vars[i / 32] |= u32::from(initial) << (i % 32);
        }
        let rules = nodes
            .iter()
            .filter_map(|n| match n {
                RefNode::Crowd { node, rule, .. } => Some((*node, *rule)),
                RefNode::Team { node, size, .. } => Some((*node, CrowdRule::Team { size: *size })),
                _ => None,
            })
            .collect();
        Reference {
            open: vec![false; nodes.len()],
            rules,
            tickets: BTreeMap::new(),
            root,
            coverage: Coverage::default(),
            stamps: vec![None; memory.timestamps.len()],
            stimuli: vec![None; memory.stimuli],
            entries: vec![0; 2 * memory.entries],
            vars,
            memory,
        }
    }

    /// An idle agent running `shape`, with the leaves its items import and
    /// the memory it declares.
    pub fn from_shape(shape: &Shape) -> Reference {
        Reference::with_memory(ref_node(shape, NodeIdx::ROOT), Memory::of(shape))
    }

    /// The agent's variables, by index.
    pub fn variables(&self) -> Vec<bool> {
        (0..self.memory.initial.len())
            .map(|i| self.vars[i / 32] >> (i % 32) & 1 != 0)
            .collect()
    }

    /// The words of the agent's entries, by index.
    pub fn entries(&self) -> Vec<u64> {
        self.entries
            .chunks_exact(2)
            .map(|w| u64::from(w[0]) | u64::from(w[1]) << 32)
            .collect()
    }

    /// The agent's timestamps, by index: when each was last set, `None` if
    /// never.
    pub fn timestamps(&self) -> &[Option<f32>] {
        &self.stamps
    }

    /// The datum of the agent's stimulus `index` while it is active at
    /// `now`: posted, and `now` before its expiry.
    pub fn stimulus(&self, index: usize, now: f64) -> Option<u32> {
        match self.stimuli.get(index) {
            Some(&Some((expiry, datum))) if now < f64::from(expiry) => Some(datum),
            _ => None,
        }
    }

    /// The agent's stimuli active at `now`: bit `i` for stimulus `i`.
    pub fn stimuli_flags(&self, now: f64) -> u32 {
        active_stimuli(&self.stimuli, now)
    }

    /// Posts the agent's stimulus `index` with `datum` from outside the
    /// tree (as `ActorMut::post_stimulus` does): active from `now` until
    /// `now + seconds`, kept as `f32`; a stimulus still active restarts.
    ///
    /// # Panics
    /// If the tree declares no stimulus `index`.
    pub fn post_stimulus(&mut self, index: usize, datum: u32, now: f64, seconds: f64) {
        self.stimuli[index] = Some(((now + seconds) as f32, datum));
    }

    /// The tree, with its current states.
    pub fn root(&self) -> &RefNode {
        &self.root
    }

    /// What this agent's ticks have done so far.
    pub fn coverage(&self) -> Coverage {
        self.coverage
    }

    /// Ticks the tree once for `agent`, calling leaves on `world`.
    pub fn tick(&mut self, world: &mut dyn RefLeaves, agent: AgentId) -> TickOutput {
        self.tick_traced(world, agent, &mut |_, _| {})
    }

    /// Ticks like [`Reference::tick`], reporting what happens to which node
    /// to `trace` by the rules of `treebeard_vm::TraceEvent`, here as the
    /// plain recursion that defines them.
    pub fn tick_traced(
        &mut self,
        world: &mut dyn RefLeaves,
        agent: AgentId,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
    ) -> TickOutput {
        // While a loop asks for it, the tree is ticked again at once: at the
        // tick's time, covering no time (the VM's `MAX_PASSES`).
        let (mut out, mut again) = self.pass(world, agent, trace, false);
        let mut passes = 1;
        while out.status == Status::Running && again && passes < treebeard_vm::MAX_PASSES {
            let (next, asked) = self.pass(world, agent, trace, true);
            out.requests.extend(next.requests);
            out.status = next.status;
            again = asked;
            passes += 1;
        }
        world.again(false);
        out
    }

    /// One pass of a tick (see [`Reference::tick_traced`]): its output, and
    /// whether a loop asked for another pass.
    fn pass(
        &mut self,
        world: &mut dyn RefLeaves,
        agent: AgentId,
        trace: &mut dyn FnMut(NodeIdx, TraceEvent),
        later_pass: bool,
    ) -> (TickOutput, bool) {
        // The tickets the last tick left are kept only at the nodes this
        // tick reaches again.
        let last = std::mem::take(&mut self.tickets);
        world.tell(&self.vars, &self.entries);
        world.again(later_pass);
        let mut cx = Tick {
            world,
            agent,
            cancels: Vec::new(),
            launches: Vec::new(),
            events: Vec::new(),
            coverage: &mut self.coverage,
            open: &mut self.open,
            trace,
            vars: &mut self.vars,
            entries: &mut self.entries,
            stamps: &self.stamps,
            stimuli: &mut self.stimuli,
            tested: Vec::new(),
            block: 0,
            block_memory: None,
            redeciders: Vec::new(),
            found_nothing: None,
            violated: false,
            aborted: None,
            crowd: Vec::new(),
            rules: &self.rules,
            last,
            tickets: &mut self.tickets,
            passing: false,
            again: false,
            later_pass,
            seats: Vec::new(),
        };
        test_monitors(&mut self.root, &mut cx);
        cx.passing = true;
        // A group past its redecide limit stops the tick where it is (it
        // unwinds with `RedecideLimit`): every running work is then
        // cancelled as by a halt, and the tick fails.
        let ticked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tick(&mut self.root, &mut cx)
        }));
        let status = match ticked {
            Ok(status) => status,
            Err(payload) => {
                if !payload.is::<RedecideLimit>() {
                    std::panic::resume_unwind(payload);
                }
                // The timers of the deciders the groups held stay as asked.
                for r in std::mem::take(&mut cx.redeciders) {
                    if let Some(RefNode::Decider { slot, children, .. }) =
                        find_mut(&mut self.root, r.decider)
                    {
                        *slot = r.slot;
                        restore_decide_memory(children, r.memory);
                    }
                }
                // The root fails (the tick's status); the rest is cancelled.
                let root = self.root.index().index();
                cx.open[root] = false;
                abandon(&mut self.root, &mut cx);
                (cx.trace)(self.root.index(), TraceEvent::Failure);
                Status::Failure
            }
        };
        // Tickets of the last tick that the tick did not reach are given up.
        cx.pass(u32::MAX);
        let tested = std::mem::take(&mut cx.tested);
        // A launch is traced as its request leaves, after the tick: the
        // rolled-back ones never do.
        for launch in &cx.launches {
            (cx.trace)(launch.node, TraceEvent::Launch);
        }
        let again = cx.again;
        let requests = cx.finish();
        register_monitors(&mut self.root, &self.tickets, status, &tested);
        // "Launched during this tick" ends with the tick.
        self.root.walk_mut(&mut |n| {
            if let RefNode::Deferred {
                launched_this_tick, ..
            } = n
            {
                *launched_this_tick = false;
            }
        });
        if status.is_done() {
            // Only tickets may stay: an agent asks at a node and fails it,
            // whatever the root then returns.
            let mut left = self.remembered();
            left.actions.retain(|(n, _)| !self.rules.contains_key(n));
            assert!(
                left == Remembered::default(),
                "reference bug: the root returned {status:?} but the tree still remembers {left:?}"
            );
        }
        (TickOutput { status, requests }, again)
    }

    /// Cancels all running work, as if the root had been abandoned (the
    /// VM's `Interpreter::halt`), and gives up every ticket. Returns the
    /// cancel requests and the gate slots given back.
    pub fn halt(&mut self, world: &mut dyn RefLeaves, agent: AgentId) -> Vec<Request> {
        world.tell(&self.vars, &self.entries);
        let mut cx = Tick {
            world,
            agent,
            cancels: Vec::new(),
            launches: Vec::new(),
            events: Vec::new(),
            coverage: &mut self.coverage,
            open: &mut self.open,
            trace: &mut |_, _| {},
            vars: &mut self.vars,
            entries: &mut self.entries,
            stamps: &self.stamps,
            stimuli: &mut self.stimuli,
            tested: Vec::new(),
            block: 0,
            block_memory: None,
            redeciders: Vec::new(),
            found_nothing: None,
            violated: false,
            aborted: None,
            crowd: Vec::new(),
            rules: &self.rules,
            last: BTreeMap::new(),
            tickets: &mut self.tickets,
            passing: true,
            again: false,
            later_pass: false,
            seats: Vec::new(),
        };
        abandon(&mut self.root, &mut cx);
        cx.finish()
    }

    /// Applies a game system's report on the deferred action at `node`
    /// (between ticks). Like `ActorMut::complete`, a report for an action
    /// that is not launched is stale and not applied.
    pub fn complete(&mut self, node: NodeIdx, outcome: Outcome) -> Result<(), Stale> {
        let target = find_mut(&mut self.root, node).ok_or(Stale::NotRunning)?;
        let RefNode::Deferred { state, .. } = target else {
            return Err(Stale::NotRunning);
        };
        match *state {
            DeferredState::Idle => Err(Stale::NotRunning),
            DeferredState::Succeeded | DeferredState::Failed => Err(Stale::AlreadyDone),
            DeferredState::Launched | DeferredState::Acknowledged => {
                *state = match outcome {
                    Outcome::Running => DeferredState::Acknowledged,
                    Outcome::Success => DeferredState::Succeeded,
                    Outcome::Failure => DeferredState::Failed,
                };
                Ok(())
            }
        }
    }

    /// Injects child tree `tree` (its position plus one; 0: none) into
    /// the `ChildTree` connector at `node`, between ticks. Returns whether
    /// there is such a connector.
    pub fn inject(&mut self, node: NodeIdx, tree: u32) -> bool {
        let mut found = false;
        self.root.walk_mut(&mut |n| {
            if let RefNode::ChildTree {
                node: at, injected, ..
            } = n
                && *at == node
            {
                *injected = tree;
                found = true;
            }
        });
        found
    }

    /// The persistent slots of the `p` leaves, by item, each node's
    /// persistent slot before its memory block's words (as the VM lays
    /// them out).
    pub fn persistent(&self) -> Vec<(NodeIdx, u32)> {
        let mut nodes = Vec::new();
        self.root.walk(&mut nodes);
        nodes
            .iter()
            .flat_map(|n| {
                let memory = match n {
                    RefNode::Action {
                        node,
                        memory: Some(m),
                        ..
                    }
                    | RefNode::Decide {
                        node,
                        memory: Some(m),
                    } => m.words().iter().map(|&w| (*node, w)).collect(),
                    _ => Vec::new(),
                };
                Self::slot_of(n).into_iter().chain(memory)
            })
            .collect()
    }

    /// A node's persistent slot (its memory block aside), with its item.
    fn slot_of(n: &RefNode) -> Option<(NodeIdx, u32)> {
        match n {
            RefNode::Action {
                node,
                persistent: Some(v),
                ..
            }
            | RefNode::Group {
                node,
                slot: Some(v),
                ..
            }
            | RefNode::Decider {
                node,
                slot: Some(v),
                ..
            }
            | RefNode::Cooldown { node, ready: v, .. }
            | RefNode::SequenceWithMemory {
                node, position: v, ..
            }
            | RefNode::ChildTree {
                node, injected: v, ..
            } => Some((*node, *v)),
            _ => None,
        }
    }

    /// Where each sequence, selector and if-then-else resumes, when past
    /// its first child, including those whose resume the running leaf
    /// implies (which [`Reference::remembered`], the actor's form, leaves
    /// out).
    pub fn resume_points(&self) -> Vec<DeciderState> {
        remembered::resume_points(&self.root)
    }

    /// Everything the tree remembers for the next tick, the agent's tickets
    /// among the action states, in the actor's form: no resume point where
    /// the running leaf implies it (`Shape::resume_implied`).
    pub fn remembered(&self) -> Remembered {
        let mut out = remembered(&self.root);
        out.actions.extend(
            self.tickets
                .iter()
                .map(|(&n, t)| (n, ActionState::Running(t.value()))),
        );
        out.actions.sort_by_key(|&(n, _)| n);
        out
    }

    /// The agent's ticket at the `Gate` or `GlobalCooldown` at `node`, if
    /// it has one.
    pub fn ticket(&self, node: NodeIdx) -> Option<Ticket> {
        self.tickets.get(&node).copied()
    }

    /// The crowd's answer to the agent's waiting ticket at `node`:
    /// admitted, or refused (keeping the frame it asks since). Anything
    /// but a waiting ticket is left as it is.
    pub fn answer(&mut self, node: NodeIdx, admitted: bool) {
        if let Some(ticket) = self.tickets.get_mut(&node)
            && let Ticket::Waiting { since } = *ticket
        {
            *ticket = if admitted {
                Ticket::Admitted
            } else {
                Ticket::Refused { since }
            };
        }
    }

    /// The crowd's answer `answer` (see [`crate::crowd::Answer`]): to a
    /// waiting ticket, admitted (at a `Team`, with a seat) or refused; to a
    /// team member's ticket for the seat of a team that broke, broken.
    pub fn answer_with(&mut self, answer: &crate::crowd::Answer) {
        match answer.seat {
            Some(seat) if !answer.admitted => {
                if let Some(ticket) = self.tickets.get_mut(&answer.node)
                    && *ticket == Ticket::Seated(seat)
                {
                    *ticket = Ticket::Broken;
                }
            }
            Some(seat) => {
                if let Some(ticket) = self.tickets.get_mut(&answer.node)
                    && let Ticket::Waiting { .. } = *ticket
                {
                    *ticket = Ticket::Seated(seat);
                }
            }
            None => self.answer(answer.node, answer.admitted),
        }
    }

    /// Delivers `event` to the agent between ticks (the VM's
    /// `Interpreter::send_event`), at the time of `world.clock()`, the last
    /// tick's frame:
    ///
    /// 1. the signals for the event set their variables, in order;
    /// 2. the timestamps it sets record `time + dt` (the next tick's time)
    ///    as an `f32`, each clearing its exclusive partner;
    /// 3. running `WaitForEvent` nodes waiting for it will succeed on the
    ///    next tick;
    /// 4. running immediate actions with an event hook get it, in pre-order.
    ///
    /// Returns how many running nodes it reached (waits and hooks).
    pub fn send_event(&mut self, world: &mut dyn RefLeaves, event: EventId) -> usize {
        for signal in self.memory.signals.iter().filter(|s| s.event == event.0) {
            let (word, bit) = (signal.variable as usize / 32, signal.variable % 32);
            if signal.value {
                self.vars[word] |= 1 << bit;
            } else {
                self.vars[word] &= !(1 << bit);
            }
        }
        // The hooks see the variables the signals set.
        world.tell(&self.vars, &self.entries);
        let frame = world.clock();
        let now = (frame.time + f64::from(frame.dt)) as f32;
        for (i, stamp) in self.memory.timestamps.iter().enumerate() {
            if stamp.event == event.0 {
                self.stamps[i] = Some(now);
                if let Some(other) = stamp.exclusive {
                    self.stamps[other as usize] = None;
                }
            }
        }
        let mut delivered = 0;
        self.root.walk_mut(&mut |n| {
            if let RefNode::WaitForEvent {
                event: wanted,
                waiting: Some(arrived),
                ..
            } = n
                && *wanted == event
            {
                *arrived = true;
                delivered += 1;
            } else if let RefNode::Action {
                node,
                running: Some(state),
                persistent,
                memory,
            } = n
                && world.event(*node, event, state, persistent.as_mut(), memory.as_mut())
            {
                delivered += 1;
            }
        });
        world.written(&mut self.vars, &mut self.entries);
        delivered
    }

    /// The leaves with running work: running immediate actions and
    /// launched deferred actions, in pre-order (and the other nodes with an
    /// action state, but for tickets).
    pub fn running_leaves(&self) -> Vec<NodeIdx> {
        remembered(&self.root)
            .actions
            .iter()
            .map(|&(n, _)| n)
            .collect()
    }

    /// True when the tree remembers nothing (persistent slots aside), and
    /// the agent holds no ticket.
    pub fn is_idle(&self) -> bool {
        self.remembered() == Remembered::default()
    }
}

impl Tick<'_> {
    /// The tick's requests: cancels first, then launches, then events,
    /// then a redecide limit's report, then the crowd's requests.
    fn finish(self) -> Vec<Request> {
        let mut requests = self.cancels;
        requests.extend(self.launches);
        requests.extend(self.events);
        if let Some(group) = self.aborted {
            requests.push(Request {
                agent: self.agent,
                node: group,
                action: ActionId(0),
                kind: RequestKind::RedecideLimit,
            });
        }
        requests.extend(self.crowd);
        requests
    }

    /// The walk has gone past every node before `upto` (in pre-order): the
    /// tickets the last tick left there that it did not reach are given
    /// up, in pre-order. An admitted gate ticket gives its slot back.
    fn pass(&mut self, upto: u32) {
        if !self.passing {
            return;
        }
        while let Some(entry) = self.last.first_entry() {
            if entry.key().get() >= upto {
                return;
            }
            let (node, ticket) = entry.remove_entry();
            if matches!(ticket, Ticket::Admitted | Ticket::Seated(_)) {
                self.coverage.admissions_passed_over += 1;
            }
            self.give_up(node, ticket);
        }
    }

    /// The agent's `ticket` at `node` ends without the child finishing: a
    /// gate's admitted ticket gives its slot back.
    fn give_up(&mut self, node: NodeIdx, ticket: Ticket) {
        if let Ticket::Seated(seat) = ticket {
            self.coverage.teams_broken_out += 1;
            self.crowd
                .push(self.request(node, ActionId(0), RequestKind::BreakOut { seat }));
            return;
        }
        if ticket == Ticket::Admitted
            && matches!(self.rules.get(&node), Some(CrowdRule::Gate { .. }))
        {
            self.coverage.slots_given_back_abandoned += 1;
            self.crowd
                .push(self.request(node, ActionId(0), RequestKind::Leave));
        }
    }

    /// Whether the node at `node` with `rule` is open in the crowd's state
    /// as the last settling left it: a gate with a free slot, a cool-down
    /// that is ready at this tick's time. Without a crowd, every gate is
    /// empty and every cool-down ready.
    fn is_open(&self, node: NodeIdx, rule: CrowdRule) -> bool {
        let now = self.world.clock().time;
        match (rule, self.world.crowd()) {
            (_, Some(crowd)) => crowd.is_open(node, now),
            (CrowdRule::Gate { max, .. }, None) => max > 0,
            (CrowdRule::Cooldown { .. }, None) => now >= 0.0,
            (CrowdRule::Team { .. }, None) => true,
        }
    }

    /// The seconds this pass covers: the tick's, or none after its first
    /// pass.
    fn dt(&self) -> f32 {
        if self.later_pass {
            0.0
        } else {
            self.world.clock().dt
        }
    }

    /// Runs a script over the agent's variables.
    fn script(&mut self, script: u64, read_only: bool) -> Result<ScriptValue, Fault> {
        let memory = TreeMemory {
            variables: self.vars,
            entries: self.entries,
        };
        let result = self.world.script(script, memory, read_only);
        self.world.tell(self.vars, self.entries);
        if result.is_err() {
            self.coverage.script_faults += 1;
        }
        result
    }

    /// Whether a bool script holds: a fault does not.
    fn holds(&mut self, script: u64, read_only: bool) -> bool {
        self.script(script, read_only) == Ok(ScriptValue::Bool(true))
    }

    /// A time test at this tick's clock.
    fn time_holds(&self, test: &TimeTest) -> bool {
        test.holds(self.stamps, &self.world.clock())
    }

    fn request(&self, node: NodeIdx, action: ActionId, kind: RequestKind) -> Request {
        Request {
            agent: self.agent,
            node,
            action,
            kind,
        }
    }
}

fn find_mut(node: &mut RefNode, index: NodeIdx) -> Option<&mut RefNode> {
    if node.index() == index {
        return Some(node);
    }
    node.children_mut()
        .iter_mut()
        .find_map(|child| find_mut(child, index))
}
