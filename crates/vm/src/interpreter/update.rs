//! The update loop (see the interpreter's module docs): one agent's tick,
//! its passes, and steps 1 to 4 over the stream, with the guard stack's
//! entries and returns and the status climb.

use super::*;

impl<'r, B, T: Tracer> Batch<'r, B, T> {
    /// The item at `ip`, which the caller got by following the stream's
    /// structure: the root, a decider's first child, a resume point inside a
    /// decider's sub-stream, or a destination of the flow table.
    #[inline(always)]
    pub(super) fn item(&self, ip: u32) -> ShapeItem {
        debug_assert!((ip as usize) < self.items.len());
        // SAFETY: the validator guarantees that deciders have children and
        // that sub-streams nest within the stream, so every index the loop
        // derives from the structure as described above is below
        // `items.len()`: flow destinations are next siblings inside a
        // parent's sub-stream, and resume points read from actors are
        // checked to lie inside their sequence before they are followed.
        // PERF: unchecked, the loop keeps the stream's length out of its
        // registers (crowd bench: 56.5 -> 52 ns per agent-tick).
        unsafe { *self.items.get_unchecked(ip as usize) }
    }

    /// The flow links of the item at `ip` (same bounds as [`Batch::item`]).
    #[inline(always)]
    pub(super) fn link(&self, ip: u32) -> Link {
        debug_assert_eq!(self.links.len(), self.items.len());
        // SAFETY: the flow has one link per item, and `ip` is an item index
        // as for `Batch::item`.
        // PERF: unchecked (crowd bench: 53 -> 49 ns per agent-tick, with the
        // dense tags).
        unsafe { *self.links.get_unchecked(ip as usize) }
    }

    /// The resume hop of the item at `ip` (see `Flow::resumes`; same
    /// bounds as [`Batch::item`]).
    #[inline(always)]
    fn resume_hop(&self, ip: u32) -> StateEntry {
        debug_assert_eq!(self.resumes.len(), self.items.len());
        // SAFETY: the flow has one hop per item; `ip` is an item index as
        // for `Batch::item`, or a hop's decider, an item's ancestor.
        // PERF: unchecked (crowd workload, instructions per agent-tick:
        // 549.8 checked, 540.1 unchecked).
        unsafe { *self.resumes.get_unchecked(ip as usize) }
    }

    /// One agent's tick: steps 1 to 4 of the update loop, and again while a
    /// node asks for it (see [`MAX_PASSES`]).
    #[inline]
    pub(super) fn tick(
        &mut self,
        words: &mut [u32],
        layout: ActorLayout,
        bb: &mut B,
        agent: AgentId,
        requests: &mut Vec<Request>,
    ) -> Status {
        self.tick_inlined(words, layout, bb, agent, requests)
    }

    /// [`Batch::tick`], inlined into its caller: a batch's loop, where the
    /// call and its arguments would cost an agent-tick about 12
    /// instructions (crowd workload, callgrind).
    #[inline(always)]
    pub(super) fn tick_inlined(
        &mut self,
        words: &mut [u32],
        layout: ActorLayout,
        bb: &mut B,
        agent: AgentId,
        requests: &mut Vec<Request>,
    ) -> Status {
        let status = match self.pass(words, layout, bb, agent, requests) {
            // PERF: a pass stored in place asked for nothing (crowd workload,
            // instructions per agent-tick: 270.9 testing `again`).
            Pass::Stored(status) => return status,
            Pass::Returned(status) => status,
        };
        if self.b.again {
            return self.tick_again(status, words, layout, bb, agent, requests);
        }
        status
    }

    /// The passes after the first of a tick in which a node asked for the
    /// agent's tree to be ticked again at once (a BehaviorTree.CPP loop's
    /// wake-up): at the tick's time, covering no time, until a pass ends
    /// without asking, the root finishes, or the tick has made
    /// [`MAX_PASSES`] passes.
    #[cold]
    #[inline(never)]
    pub(super) fn tick_again(
        &mut self,
        mut status: Status,
        words: &mut [u32],
        layout: ActorLayout,
        bb: &mut B,
        agent: AgentId,
        requests: &mut Vec<Request>,
    ) -> Status {
        let dt = self.args.frame.dt;
        self.args.frame.dt = 0.0;
        let mut passes = 1;
        while status == Status::Running && self.b.again && passes < MAX_PASSES {
            self.b.again = false;
            status = match self.pass(words, layout, bb, agent, requests) {
                Pass::Stored(status) | Pass::Returned(status) => status,
            };
            passes += 1;
        }
        self.b.again = false;
        self.args.frame.dt = dt;
        status
    }

    /// One pass of an agent's tick: steps 1 to 4 of the update loop.
    #[inline(always)]
    pub(super) fn pass(
        &mut self,
        words: &mut [u32],
        layout: ActorLayout,
        bb: &mut B,
        agent: AgentId,
        requests: &mut Vec<Request>,
    ) -> Pass {
        self.args.agent = agent;
        let status = if self.plain {
            match self.run_plain(words, layout, bb) {
                Pass::Stored(status) => return Pass::Stored(status),
                Pass::Returned(status) => status,
            }
        } else {
            let mut a = Agent::new(words, layout, bb);
            if self.cell_words != 0 {
                self.tell_cells(a.memory);
            }
            let status = if let Some(root) = self.hosted
                && let Some(batch) = T::untraced(self)
            {
                batch.run_hosted(&mut a, root)
            } else if self.monitors {
                self.run_monitored(&mut a)
            } else {
                self.run(&mut a, 0)
            };
            if self.cell_words != 0 {
                self.keep_cells(a.memory);
            }
            status
        };
        self.complete(words, layout, agent, requests);
        Pass::Returned(status)
    }

    /// Step 4 of the update loop: hand the tick's results to the actor and
    /// the caller, and clear the scratch for the next agent.
    #[inline(always)]
    pub(super) fn complete(
        &mut self,
        words: &mut [u32],
        layout: ActorLayout,
        agent: AgentId,
        requests: &mut Vec<Request>,
    ) {
        let b = &mut *self.b;
        debug_assert!(b.guards.is_empty());
        let next = &mut b.next;
        sort_by_item(&mut next.entries[..next.deciders]);
        if !self.globals.is_empty() {
            // A crowd node's ticket outlives its node's failure, so a group
            // that chooses an earlier decider after it records states out
            // of item order.
            let actions = next.deciders_cap..next.deciders_cap + next.actions;
            sort_by_item(&mut next.entries[actions]);
        }
        let region = &next.entries[..next.deciders_cap + next.actions];
        ActorMut::block(words, layout).store(
            region,
            next.deciders,
            next.actions,
            &b.persistent_changes,
        );
        next.deciders = 0;
        next.actions = 0;
        b.persistent_changes.clear();
        // PERF: one test for the three (crowd workload, instructions per
        // agent-tick: 384.6 with three, 382.6).
        if b.cancels.len() | b.launches.len() | b.sent.len() != 0 {
            // A launch is traced as its request leaves: one that a
            // concurrent rolled back, or a redecide limit dropped, never
            // was.
            for p in &b.launches {
                self.trace.launch(p.node);
            }
            b.emit_requests(agent, requests);
        }
    }

    /// A plain pass (see [`Batch::plain`]) of the agent whose actor block
    /// is `words`: from the root, or, for an agent whose previous tick left
    /// one leaf running under deciders that enter in place, from that leaf
    /// after re-testing the guards of its re-entry ([`Reentry`]): the
    /// calls, states and cancellations of a tick from the root, without
    /// executing the deciders on the way. An agent holding no state whose
    /// tree has an idle entry (`Flow::idle_entry`) re-enters that leaf,
    /// starting it.
    // PERF: crowd workload, instructions per agent-tick: 498.1 from the
    // root, 408.0 re-entered; 382.6 with the running action ticked in
    // place, and 378.0 with the agent's cursors (`Agent`) laid out only
    // for a tick that goes on past the leaf.
    #[inline(always)]
    fn run_plain(&mut self, words: &mut [u32], layout: ActorLayout, bb: &mut B) -> Pass {
        // Traced ticks report every item they enter; the re-entry enters
        // none above the leaf. A resume point kept by a decider is not
        // the leaf's to imply.
        if T::ON {
            return Pass::Returned(self.run(&mut Agent::new(words, layout, bb), 0));
        }
        let (leaf, state, more) = match ActorRef::lone_leaf_state(words, layout) {
            Some((state, more)) => (state.node(), Some(state), more),
            None if ActorRef::holds_no_state(words) => (self.idle_entry, None, false),
            None => (UP, None, false),
        };
        let Some(entry) = self
            .reentries
            .get(leaf as usize)
            .filter(|r| r.reentry.exists())
        else {
            return Pass::Returned(self.run(&mut Agent::new(words, layout, bb), 0));
        };
        let retests = self.retests;
        // PERF: each guard resolved at link time (crowd workload,
        // instructions per agent-tick: 321.5 looking up its item and
        // function here).
        let guards = &retests[entry.reentry.guards()];
        // The guard that succeeds, if one does.
        let mut test = |guard: &Retest<B>| {
            (self.condition_with(bb, guard.ip, guard.item, guard.f) == Status::Success)
                .then_some(guard.ip)
        };
        // PERF: the first guards each from a call site of its own. The
        // leaves under one priority selector re-test its earlier
        // children's guards in the same order, so the k-th guard is
        // mostly the same function from agent to agent, and its call
        // site predicts it; one call site in a loop saw each agent's
        // guards in turn. Nested, so that every length shares the same
        // three sites (one arm per length measured 2.22 against 2.11).
        let won = match guards {
            [] => None,
            [a, rest @ ..] => test(a).or_else(|| match rest {
                [] => None,
                [b, rest @ ..] => test(b).or_else(|| match rest {
                    [] => None,
                    [c, rest @ ..] => test(c).or_else(|| rest.iter().find_map(&mut test)),
                }),
            }),
        };
        // A guard's success preempts the running leaf.
        if let Some(ip) = won {
            let mut a = self.agent(words, bb);
            return Pass::Returned(self.run_returned(&mut a, Status::Success, ip));
        }
        // PERF: the leaf's item and function resolved at link time too.
        let (item, Some(f)) = (entry.item, entry.action) else {
            return Pass::Returned(self.run(&mut self.agent(words, bb), leaf));
        };
        // PERF: the leaf's dispatch and the loop's step 2 for a running
        // action, in place (crowd workload, instructions per agent-tick:
        // 408.0 through `run`, 384.6 here).
        // The leaf takes its state, as `take_action` would.
        let (signal, value) = state.map_or((Signal::Start, 0), |s| (Signal::Tick, s.value()));
        let mut at = leaf;
        let (mut status, mut value) = self.call_blackboard_only(bb, at, item, signal, value, f);
        // PERF: while only this leaf's state is left (`!more`), the tick's
        // states are at most its, stored in place without step 4 (crowd
        // workload, instructions per agent-tick: 350.8 through `complete`;
        // 315.1 with a running leaf alone).
        if !more {
            loop {
                match status {
                    // A running leaf with a re-entry records no resume point
                    // on its way out of the root (`Flow::reentries` checks it).
                    Status::Running => {
                        let state = StateEntry::new(at, action_tag::RUNNING, value);
                        ActorMut::keep_lone_leaf(words, layout, state);
                        return Pass::Stored(Status::Running);
                    }
                    Status::Success => {
                        let next = self.link(at).on_success;
                        if !is_item(next) {
                            // Out of the root, mapped by the decorators on
                            // the way.
                            ActorMut::keep_no_state(words);
                            let status = if next == LEAVE_FAILURE {
                                Status::Failure
                            } else {
                                Status::Success
                            };
                            return Pass::Stored(status);
                        }
                        // The next action of a sequence starts in the same
                        // tick.
                        let next_entry = &self.reentries[next as usize];
                        let (item, Some(f)) = (next_entry.item, next_entry.action) else {
                            break;
                        };
                        at = next;
                        (status, value) =
                            self.call_blackboard_only(bb, at, item, Signal::Start, 0, f);
                    }
                    Status::Failure => break,
                }
            }
        }
        let signal = if at == leaf { signal } else { Signal::Start };
        self.keep_running(at, signal, status, value);
        let mut a = self.agent(words, bb);
        if state.is_some() {
            a.pass_first_action();
        }
        Pass::Returned(self.run_returned(&mut a, status, at))
    }

    /// The agent of the actor block `words`, for a plain pass that goes on
    /// past its leaf.
    // PERF: out of line, reading the layout from the batch: passed by
    // value, the layout was copied for the call on every agent-tick (crowd
    // workload, instructions per agent-tick: 284.0).
    #[inline(never)]
    fn agent<'a>(&self, words: &'a mut [u32], bb: &'a mut B) -> Agent<'a, B> {
        Agent::new(words, self.layout, bb)
    }

    /// Steps 1 to 3 of the update loop from the item at `ip`, until the root
    /// returns (or, for a monitor's query tested before the tree, the
    /// monitor).
    #[inline(always)]
    pub(super) fn run(&mut self, a: &mut Agent<'_, B>, mut ip: u32) -> Status {
        loop {
            let (status, at) = self.execute(a, ip);
            match self.go_on(a, status, at) {
                Next::Execute(next) => ip = next,
                Next::Return(status) => return status,
            }
        }
    }

    /// Steps 2 and 3, then 1 to 3 until the root returns, after the item at
    /// `at` returned `status`: a guard that a re-entry tested and that
    /// preempts the running leaf, or the re-entered leaf, finished (see
    /// [`Batch::run_plain`]).
    // PERF: out of line, and cold: a re-entered leaf mostly runs on (crowd
    // workload, instructions per agent-tick: 385.4 without `cold`, 384.6
    // with it).
    #[cold]
    #[inline(never)]
    pub(super) fn run_returned(&mut self, a: &mut Agent<'_, B>, status: Status, at: u32) -> Status {
        match self.go_on(a, status, at) {
            Next::Execute(ip) => self.run(a, ip),
            Next::Return(status) => status,
        }
    }

    /// Step 1 of the update loop: executes items from `ip` until a leaf,
    /// or a concurrent decider that decides on entry, returns a status;
    /// that status, and the item that returned it.
    #[inline(always)]
    fn execute(&mut self, a: &mut Agent<'_, B>, mut ip: u32) -> (Status, u32) {
        loop {
            let item = self.item(ip);
            self.trace.enter(ip);
            let Some(kind) = item.kind() else {
                debug_assert!(false, "validated shapes hold only known kinds");
                // SAFETY: only a validated shape reaches the
                // interpreter (`Program::link` takes a `Shape`, whose
                // constructors validate every item's tag), and the
                // validator rejects tags no kind uses.
                // PERF: the dispatch's jump table then needs no range
                // check (crowd workload, instructions per agent-tick).
                unsafe { std::hint::unreachable_unchecked() }
            };
            match kind {
                Kind::Sequence => match self.resume_point(a, ip, item.end()) {
                    Some(child) if child > ip && child < item.end() => {
                        ip = if item.a() == 0 {
                            child
                        } else {
                            self.resume_through_repeats(a, ip + 1, child)
                        }
                    }
                    _ => {
                        ip += 1;
                        // PERF: a sequence entered at its first child
                        // tests a leading condition in the same step, so
                        // a guard condition costs one dispatch, not two
                        // (crowd bench).
                        let first = self.item(ip);
                        if first.kind() == Some(Kind::Condition) {
                            self.trace.enter(ip);
                            break (self.condition(a.bb, ip, first), ip);
                        }
                    }
                },
                Kind::Selector => match self.resume_point(a, ip, item.end()) {
                    Some(child) if child > ip && child < item.end() => {
                        ip = if item.a() == 0 {
                            child
                        } else {
                            self.resume_through_repeats(a, ip + 1, child)
                        }
                    }
                    _ => ip += 1,
                },
                // Its condition, or the branch that ran last tick.
                Kind::IfThenElse => match self.resume_point(a, ip, item.end()) {
                    Some(child) if child > ip && child < item.end() => ip = child,
                    _ => ip += 1,
                },
                // Their decisions are all in the flow table.
                Kind::PrioritySelector
                | Kind::ReactiveSequence
                | Kind::WhileDoElse
                | Kind::Inverter
                | Kind::ForceSuccess
                | Kind::ForceFailure
                | Kind::StoredState => ip += 1,
                Kind::Concurrent | Kind::ParallelAll => match self.enter_concurrent(a, ip, item) {
                    Decision::Descend(child) => ip = child,
                    Decision::Return(status) => break (status, ip),
                },
                // PERF: every configured node behind one cold call keeps
                // the loop small (crowd bench: 585 -> 576 instructions
                // per agent-tick).
                Kind::Wait
                | Kind::Loop
                | Kind::LoopUntilSuccess
                | Kind::Timeout
                | Kind::Cooldown
                | Kind::Scope
                | Kind::ScriptWrapper
                | Kind::ScriptGate
                | Kind::IfCondition
                | Kind::IfTime
                | Kind::Script
                | Kind::AssertScript
                | Kind::AssertCondition
                | Kind::WaitUntilTime
                | Kind::WaitForEvent
                | Kind::SendEvent
                | Kind::PostStimulus
                | Kind::Repeat
                | Kind::Monitor
                | Kind::Group
                | Kind::Gate
                | Kind::GlobalCooldown
                | Kind::Team
                | Kind::Sync
                | Kind::ChildTree
                | Kind::SequenceWithMemory
                | Kind::AsyncSequence
                | Kind::AsyncSelector => match self.configured(a, ip, item, kind) {
                    Decision::Descend(child) => ip = child,
                    Decision::Return(status) => break (status, ip),
                },
                Kind::Condition => break (self.condition(a.bb, ip, item), ip),
                Kind::AlwaysSuccess => break (Status::Success, ip),
                Kind::AlwaysFailure => break (Status::Failure, ip),
                Kind::Action => break (self.action(a, ip, item), ip),
                Kind::Deferred => break (self.deferred(a, ip, item), ip),
                Kind::Decider => match self.enter_decider(a, ip) {
                    Decision::Descend(child) => ip = child,
                    Decision::Return(status) => break (status, ip),
                },
                Kind::Decide => unreachable!("a Decide leaf is asked by its group, never run"),
            }
        }
    }

    /// Steps 2 and 3 of the update loop: the item at `at` returned
    /// `status`; the next item to execute, or the status the root (or the
    /// loop's floor) returns.
    #[inline(always)]
    fn go_on(&mut self, a: &mut Agent<'_, B>, mut status: Status, mut at: u32) -> Next {
        loop {
            let next = match status {
                Status::Success => self.link(at).on_success,
                Status::Failure => {
                    if T::ON {
                        // The guards scanned below report their own exits.
                        self.trace_exits(a, at, status, self.link(at).on_failure);
                    }
                    match self.scan_guards(a, self.link(at).on_failure) {
                        Scan::Execute(next) => next,
                        Scan::Decided(decided, guard) => {
                            (status, at) = (decided, guard);
                            continue;
                        }
                    }
                }
                Status::Running => self.climb(at),
            };
            if T::ON && status == Status::Success {
                self.trace_exits(a, at, status, next);
            }
            if is_item(next) {
                // Step 3: cancel what this tick passed over.
                if a.next_action < next {
                    self.trace.at(next);
                    self.flush_actions_below(a, next);
                }
                return Next::Execute(next);
            }
            // The status left the static deciders, changed by any
            // decorators on the way: to the top guard, or out of the root.
            if next != UP {
                status = if next == LEAVE_SUCCESS {
                    Status::Success
                } else {
                    Status::Failure
                };
            }
            let Some(g) = self.b.guards.last().copied() else {
                if a.next_action != u32::MAX {
                    self.trace.at(0);
                    self.flush_actions_below(a, u32::MAX);
                }
                return Next::Return(status);
            };
            match self.child_returned(a, g, status) {
                Decision::Descend(child) => return Next::Execute(child),
                Decision::Return(left) => {
                    if self.b.aborted {
                        // A hosted tree's nodes above see it, and
                        // return too (see `hosted`).
                        if self.floor == 0 {
                            self.b.aborted = false;
                        }
                        self.b.guards.clear();
                        return Next::Return(Status::Failure);
                    }
                    self.leave_guard(a, g);
                    if g.after == Some(UP) || self.b.guards.len() < self.floor {
                        return Next::Return(left);
                    }
                    status = left;
                    at = g.node;
                }
            }
        }
    }

    /// The child of the top guard `g` returned `status`: the work left
    /// below the child ends, and the guard's decider decides (another
    /// child, or its own status).
    // PERF: out of the loop, as the deciders that guard are (crowd bench,
    // instructions per agent-tick: 570.5 inlined, 569.3 out of line; 568.4
    // with the steps written in the loop, which hosted code cannot share).
    #[cold]
    #[inline(never)]
    pub(super) fn child_returned(
        &mut self,
        a: &mut Agent<'_, B>,
        g: Guard,
        status: Status,
    ) -> Decision {
        let child_end = self.subtree_end(g.child);
        if a.next_action < child_end {
            self.trace.at(g.child);
            self.flush_actions_below(a, child_end);
        }
        if matches!(g.kind, Kind::Concurrent | Kind::ParallelAll) {
            self.concurrent_returned(a, status, child_end)
        } else {
            self.decorator_returned(a, status)
        }
    }

    /// The top guard `g` returned: it goes, and the work left in its
    /// sub-tree ends.
    #[inline]
    pub(super) fn leave_guard(&mut self, a: &mut Agent<'_, B>, g: Guard) {
        self.b.guards.pop();
        if a.next_action < g.end {
            self.trace.at(g.node);
            self.flush_actions_below(a, g.end);
        }
    }

    /// After a failure whose flow goes on at `next`: while `next` is a
    /// sequence entered afresh whose first child is a condition, tests that
    /// condition here, and on failure goes on to where it fails to. Returns
    /// the item to execute, or the condition that decided.
    // PERF: a reactive selector re-tests the guards of its higher-priority
    // children on every tick; testing them in this loop, without a dispatch
    // per sequence and per condition, is the largest saving of the crowd
    // bench. The order of calls and cancellations is unchanged.
    #[inline(always)]
    pub(super) fn scan_guards(&mut self, a: &mut Agent<'_, B>, mut next: u32) -> Scan {
        while is_item(next) {
            let sequence = self.link(next);
            if !sequence.guarded() {
                break;
            }
            // A sequence stopped past its guard resumes without testing it.
            let stopped = if sequence.implied() {
                self.held_in(a, next, sequence.end()).is_some()
            } else {
                self.resumes(a, next)
            };
            if stopped {
                break;
            }
            let guard = next + 1;
            if a.next_action < guard {
                self.trace.at(guard);
                self.flush_actions_below(a, guard);
            }
            self.trace.enter(next);
            self.trace.enter(guard);
            if self.condition(a.bb, guard, self.item(guard)) == Status::Success {
                return Scan::Decided(Status::Success, guard);
            }
            // The guard's failure is its sequence's.
            next = sequence.on_failure;
            if !is_item(next) {
                return Scan::Decided(Status::Failure, guard);
            }
            if T::ON {
                self.trace_exits(a, guard, Status::Failure, next);
            }
        }
        Scan::Execute(next)
    }

    /// Whether the sequence at `node` stopped at a child last tick (without
    /// consuming the state, which its execution will).
    #[inline]
    pub(super) fn resumes(&mut self, a: &mut Agent<'_, B>, node: u32) -> bool {
        if a.next_decider > node {
            return false;
        }
        while a.next_decider < node {
            a.dcur += 1;
            a.next_decider = head(a.prev_deciders, a.dcur);
        }
        a.next_decider == node && a.prev_deciders[a.dcur].tag() == decider_tag::RESUME
    }

    /// A running status climbs from `at` through the static deciders above
    /// it: each sequence past its first child records where to resume. The
    /// status then leaves them ([`UP`]): running never moves sideways. The
    /// flow's resume hops hold the records, so the climb visits only the
    /// deciders that record one.
    #[inline]
    pub(super) fn climb(&mut self, at: u32) -> u32 {
        let mut resume = self.resume_hop(at);
        while resume != NO_RESUME {
            self.b.next.push_decider(resume);
            resume = self.resume_hop(resume.node());
        }
        UP
    }

    /// Tracing only: the item at `at` finished with `status` and the flow
    /// goes on at `next`. Reports its end and that of every static decider
    /// above it that the status leaves (those not holding `next`), each after
    /// cancelling the abandoned work inside it, as its decision does.
    #[cold]
    pub(super) fn trace_exits(&mut self, a: &mut Agent<'_, B>, at: u32, status: Status, next: u32) {
        self.trace.end(at, status);
        let (mut child, mut status) = (at, status);
        loop {
            let parent = self.link(child).parent;
            if parent == UP {
                return;
            }
            let end = self.subtree_end(parent);
            if is_item(next) && parent < next && next < end {
                return;
            }
            status = match self.item(parent).kind() {
                Some(Kind::Inverter) => match status {
                    Status::Success => Status::Failure,
                    _ => Status::Success,
                },
                Some(Kind::ForceSuccess) => Status::Success,
                Some(Kind::ForceFailure) => Status::Failure,
                // A dynamic decider takes the status through its guard.
                Some(kind) if kind.is_dynamic() => return,
                _ => status,
            };
            if a.next_action < end {
                self.trace.at(parent);
                self.flush_actions_below(a, end);
            }
            self.trace.end(parent, status);
            child = parent;
        }
    }

    /// The item of the child at `position` (from 0) of the decider at `ip`
    /// that ends at `end`; `None` past its last child.
    /// Pushes the guard of the decider `kind` at `ip`, which goes on at its
    /// child at `position` (the first, for a position past its children:
    /// state from another shape), abandoning the work of the children
    /// before it; the descent, and the position taken.
    pub(super) fn descend_at_position(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
        position: u32,
    ) -> (Decision, u32) {
        let (child, position) = match self.child_at(ip, item.end(), position) {
            Some(child) => (child, position),
            None => (ip + 1, 0),
        };
        if a.next_action < child {
            self.trace.at(ip);
            self.flush_actions_below(a, child);
        }
        let descend = self.push_decorator(ip, item, kind, position, None);
        if let Some(guard) = self.b.guards.last_mut() {
            guard.child = child;
        }
        debug_assert!(matches!(descend, Decision::Descend(_)));
        (Decision::Descend(child), position)
    }

    pub(super) fn child_at(&self, ip: u32, end: u32, position: u32) -> Option<u32> {
        let mut child = ip + 1;
        for _ in 0..position {
            child = self.subtree_end(child);
            if child >= end {
                return None;
            }
        }
        Some(child)
    }

    #[inline]
    pub(super) fn subtree_end(&self, node: u32) -> u32 {
        let item = self.item(node);
        if is_leaf_tag(item.tag()) {
            node + 1
        } else {
            item.end()
        }
    }
}
