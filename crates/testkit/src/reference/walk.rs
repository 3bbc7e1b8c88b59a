//! One tick's walk over the reference's nodes: [`step`] decides each
//! node by its kind, as docs/nodes.md describes it; the bookkeeping of
//! what a tick skips and abandons (what it remembers: `remembered`).

use super::*;

/// Ticks one node, tracing its start and end. Reaching it, the walk has
/// gone past the nodes before it; returning, past its subtree too: the
/// tickets the last tick left there are given up ("Crowd nodes").
pub(super) fn tick(node: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    let i = node.index();
    cx.pass(i.get());
    if !cx.open[i.index()] {
        cx.open[i.index()] = true;
        (cx.trace)(i, TraceEvent::Start);
    }
    let status = step(node, cx);
    if !cx.last.is_empty() {
        cx.pass(node.end());
    }
    if status.is_done() {
        cx.open[i.index()] = false;
        let event = if status == Status::Success {
            TraceEvent::Success
        } else {
            TraceEvent::Failure
        };
        (cx.trace)(i, event);
    }
    status
}

/// One node's tick: the "Deciders" and "Leaves" sections of docs/nodes.md.
pub(super) fn step(node: &mut RefNode, cx: &mut Tick<'_>) -> Status {
    match node {
        RefNode::Async {
            children,
            selector,
            position,
            yielded,
            ..
        } => {
            *yielded = false;
            // On at its place; a step that moves it on yields, and the
            // tick's next pass goes on at the next child.
            let moves_on = if *selector {
                Status::Failure
            } else {
                Status::Success
            };
            let at = *position;
            let status = tick(&mut children[at], cx);
            if status == Status::Running {
                return status;
            }
            if status != moves_on || at + 1 == children.len() {
                *position = 0;
                return status;
            }
            *position = at + 1;
            *yielded = true;
            cx.again = true;
            Status::Running
        }
        RefNode::Sequence {
            children,
            resume_at,
            ..
        } => {
            // Resume at the child that ran last tick, without ticking the
            // children before it again, but for its `Repeat` children.
            let resumed = *resume_at;
            for i in 0..children.len() {
                if skipped(&children[i], i < resumed, cx) {
                    continue;
                }
                let status = tick(&mut children[i], cx);
                if status == Status::Success {
                    continue;
                }
                // A `Repeat` child that does not go on displaces the child
                // it was resuming at (passing over the children between,
                // as the selector below).
                if i < resumed {
                    cx.pass(children[resumed].index().get());
                    abandon(&mut children[resumed], cx);
                }
                *resume_at = if status == Status::Running { i } else { 0 };
                return status;
            }
            *resume_at = 0;
            Status::Success
        }
        RefNode::IfThenElse {
            children,
            resume_at,
            ..
        } => {
            // The branch that ran last tick, or the condition and then the
            // branch it chooses.
            let branch = if *resume_at > 0 {
                *resume_at
            } else {
                match tick(&mut children[0], cx) {
                    Status::Running => return Status::Running,
                    Status::Success => 1,
                    Status::Failure if children.len() == 3 => 2,
                    Status::Failure => return Status::Failure,
                }
            };
            let status = tick(&mut children[branch], cx);
            *resume_at = if status == Status::Running { branch } else { 0 };
            status
        }
        RefNode::SequenceWithMemory {
            children, position, ..
        } => {
            // From the child where it stopped (the first, if its slot names
            // none it has), in order; a child that fails or runs is where it
            // starts next time, and the last one's success starts it anew.
            let mut k = *position as usize;
            if k >= children.len() {
                (k, *position) = (0, 0);
            }
            loop {
                let status = tick(&mut children[k], cx);
                if status != Status::Success {
                    *position = k as u32;
                    return status;
                }
                k += 1;
                if k == children.len() {
                    *position = 0;
                    return Status::Success;
                }
            }
        }
        RefNode::WhileDoElse { children, .. } => {
            // The condition on every tick. A branch not ticked is
            // abandoned: the else branch before the condition's failure
            // goes on to it (in item order), the then branch after it runs.
            let condition = tick(&mut children[0], cx);
            let branch = match condition {
                Status::Running => {
                    for branch in &mut children[1..] {
                        abandon(branch, cx);
                    }
                    return Status::Running;
                }
                Status::Success => 1,
                Status::Failure => {
                    abandon(&mut children[1], cx);
                    if children.len() < 3 {
                        return Status::Failure;
                    }
                    2
                }
            };
            let status = tick(&mut children[branch], cx);
            if branch == 1
                && let Some(other) = children.get_mut(2)
            {
                abandon(other, cx);
            }
            status
        }
        RefNode::ReactiveSequence { children, .. } => {
            // From the first child on every tick; a child that fails or runs
            // ends the tick, and the work of the children after it is
            // cancelled.
            for i in 0..children.len() {
                let status = tick(&mut children[i], cx);
                if status != Status::Success {
                    if children[i + 1..].iter().any(|c| cx.open[c.index().index()]) {
                        cx.coverage.reactive_cancellations += 1;
                    }
                    for later in &mut children[i + 1..] {
                        abandon(later, cx);
                    }
                    return status;
                }
            }
            Status::Success
        }
        RefNode::ChildTree {
            children, injected, ..
        } => {
            // The injected tree, after the work of those before it is
            // cancelled; then the work of those after it.
            let len = children.len();
            let chosen = (*injected as usize).checked_sub(1).filter(|&k| k < len);
            let leave = |tree: &mut RefNode, cx: &mut Tick<'_>| {
                if remembered(tree) != Remembered::default() {
                    cx.coverage.child_trees_cancelled += 1;
                }
                abandon(tree, cx);
            };
            let Some(k) = chosen else {
                cx.coverage.child_trees_missing += 1;
                for tree in children.iter_mut() {
                    leave(tree, cx);
                }
                return Status::Failure;
            };
            for earlier in &mut children[..k] {
                leave(earlier, cx);
            }
            cx.coverage.child_trees_run += 1;
            let status = tick(&mut children[k], cx);
            for later in &mut children[k + 1..] {
                leave(later, cx);
            }
            status
        }
        RefNode::Priority { children, .. } => {
            // From the first child on every tick; the first that succeeds or
            // runs wins, and the work of the children after it is cancelled
            // before anything else runs.
            for i in 0..children.len() {
                let status = tick(&mut children[i], cx);
                if status != Status::Failure {
                    for later in &mut children[i + 1..] {
                        abandon(later, cx);
                    }
                    return status;
                }
            }
            Status::Failure
        }
        RefNode::Selector {
            children,
            resume_at,
            ..
        } => {
            // Resume at the child that ran last tick, without ticking the
            // children before it again.
            let (resumed, last) = (*resume_at, children.len() - 1);
            if resumed > 0 {
                cx.coverage.selector_resumes += 1;
            }
            // Its `Repeat` children before that one are ticked again.
            for i in 0..children.len() {
                if skipped(&children[i], i < resumed, cx) {
                    continue;
                }
                let status = tick(&mut children[i], cx);
                // A failure moves on to the next child in the same tick.
                if status == Status::Failure {
                    if resumed > 0 && i == resumed && i < last {
                        cx.coverage.selector_moves_after_resume += 1;
                    }
                    continue;
                }
                // A `Repeat` child that succeeds or runs displaces the child
                // it was resuming at, passing over the children between
                // them: their tickets are given up first, in stream order
                // (one cancellation range covers them all).
                if i < resumed {
                    cx.pass(children[resumed].index().get());
                    abandon(&mut children[resumed], cx);
                }
                // A success succeeds the selector; running, it resumes here
                // next tick.
                *resume_at = if status == Status::Running { i } else { 0 };
                return status;
            }
            // All failing fails it.
            *resume_at = 0;
            Status::Failure
        }
        // Pass their child's statuses through (a `Repeat` is ticked again by
        // its parent, see above).
        RefNode::StoredState { child, .. } | RefNode::Repeat { child, .. } => tick(child, cx),
        RefNode::Monitor { node, child, .. } => {
            // Tested before the tree this tick: the same result again.
            if let Some(&(_, status)) = cx.tested.iter().find(|(n, _)| n == node) {
                return status;
            }
            let status = tick(child, cx);
            assert!(
                status.is_done(),
                "a monitor's query finishes in the tick it starts"
            );
            cx.tested.push((*node, status));
            status
        }
        RefNode::Inverter { child, .. } => {
            // Success and failure swapped; running passes through.
            let status = match tick(child, cx) {
                Status::Success => Status::Failure,
                Status::Failure => Status::Success,
                Status::Running => return Status::Running,
            };
            cx.coverage.decorator_changes += 1;
            status
        }
        RefNode::ForceSuccess { child, .. } => {
            // A finished child's status becomes success; running passes
            // through.
            match tick(child, cx) {
                Status::Running => Status::Running,
                Status::Success => Status::Success,
                Status::Failure => {
                    cx.coverage.decorator_changes += 1;
                    Status::Success
                }
            }
        }
        RefNode::ForceFailure { child, .. } => {
            // A finished child's status becomes failure; running passes
            // through.
            match tick(child, cx) {
                Status::Running => Status::Running,
                Status::Failure => Status::Failure,
                Status::Success => {
                    cx.coverage.decorator_changes += 1;
                    Status::Failure
                }
            }
        }
        RefNode::Concurrent {
            children,
            succeed_at,
            fail_at,
            finished,
            max_failures,
            ..
        } => {
            // Taken before any child runs, so that a failure can undo what
            // the children changed this tick.
            let persistent_before: Vec<Vec<u32>> =
                children.iter().map(RefNode::persistent_values).collect();
            let (mut successes, mut failures) = (0, 0);
            let mut decision = None;
            for i in 0..children.len() {
                let success = match finished[i] {
                    Some(success) => success,
                    None => match tick(&mut children[i], cx) {
                        Status::Running => continue,
                        status => {
                            finished[i] = Some(status == Status::Success);
                            status == Status::Success
                        }
                    },
                };
                if success {
                    successes += 1;
                } else {
                    failures += 1;
                }
                if max_failures.is_some() {
                    continue;
                }
                if successes >= *succeed_at {
                    decision = Some(Status::Success);
                    break;
                }
                if failures >= *fail_at {
                    decision = Some(Status::Failure);
                    break;
                }
            }
            if let Some(m) = *max_failures {
                if finished.iter().any(Option::is_none) {
                    return Status::Running;
                }
                // Every child finished: nothing runs, nothing is undone.
                for child in children.iter_mut() {
                    abandon(child, cx);
                }
                finished.fill(None);
                return if failures >= m {
                    Status::Failure
                } else {
                    Status::Success
                };
            }
            let Some(status) = decision else {
                assert!(
                    finished.iter().any(Option::is_none),
                    "a concurrent pass ended with every child finished and no threshold met"
                );
                return Status::Running;
            };
            // It finished: roll back what its children did this tick and
            // cancel their running work, in child order.
            if status == Status::Failure {
                let mut undone = false;
                for (child, before) in children.iter_mut().zip(&persistent_before) {
                    undone |= child.persistent_values() != *before;
                    child.restore_persistent_values(before);
                }
                if undone {
                    cx.coverage.persistent_undos += 1;
                }
            }
            let still_running = finished.iter().any(Option::is_none);
            if still_running {
                cx.coverage.concurrent_cancellations += 1;
            }
            for child in children.iter_mut() {
                abandon(child, cx);
            }
            finished.fill(None);
            status
        }
        RefNode::Loop {
            child,
            until_success,
            limit,
            runs,
            between_runs,
            child_running,
            again,
            ..
        } => {
            // One run per tick: a run that repeats ends the tick running,
            // and the next starts afresh on the next tick (or, `again`, in
            // the tick's next pass).
            *between_runs = false;
            let status = tick(child, cx);
            let repeats = if *until_success {
                Status::Failure
            } else {
                Status::Success
            };
            *child_running = status == Status::Running;
            if status == Status::Running {
                return Status::Running;
            }
            if status == repeats {
                *runs = runs.saturating_add(1);
                if *limit == 0 || u64::from(*runs) < *limit {
                    cx.coverage.loop_repeats += 1;
                    *between_runs = true;
                    cx.again |= *again;
                    return Status::Running;
                }
                cx.coverage.loop_limits_reached += 1;
            }
            *runs = 0;
            status
        }
        RefNode::Timeout {
            child,
            seconds,
            since,
            ..
        } => {
            // Checked before the child runs: time is up, cancel and fail.
            let started = since.take();
            let elapsed = started.unwrap_or(0.0);
            if f64::from(elapsed) >= *seconds {
                if started.is_some() {
                    cx.coverage.timeouts_expired += 1;
                }
                abandon(child, cx);
                return Status::Failure;
            }
            let status = tick(child, cx);
            if status == Status::Running {
                *since = Some(elapsed + cx.dt());
            }
            status
        }
        RefNode::Wait { seconds, since, .. } => {
            let started = since.take();
            let elapsed = started.unwrap_or(0.0);
            if f64::from(elapsed) >= *seconds {
                if started.is_some() {
                    cx.coverage.waits_done += 1;
                }
                return Status::Success;
            }
            *since = Some(elapsed + cx.dt());
            Status::Running
        }
        RefNode::Cooldown {
            child,
            seconds,
            ready,
            ..
        } => {
            let now = cx.world.clock().time;
            if now < f64::from(f32::from_bits(*ready)) {
                cx.coverage.cooldowns_blocked += 1;
                return Status::Failure;
            }
            let status = tick(child, cx);
            if status.is_done() {
                *ready = ((now + *seconds) as f32).to_bits();
            }
            status
        }
        RefNode::Scope { node, child, open } => {
            if !*open {
                cx.world.scope(*node, None);
                cx.world.written(cx.vars, cx.entries);
                *open = true;
            }
            let status = tick(child, cx);
            if status.is_done() {
                *open = false;
                let how = if status == Status::Success {
                    Ending::Success
                } else {
                    Ending::Failure
                };
                cx.world.scope(*node, Some(how));
                cx.world.written(cx.vars, cx.entries);
            }
            status
        }
        RefNode::Always { status, .. } => *status,
        RefNode::Script { script, .. } => {
            // Succeeds unless the script faults; its value does not matter.
            if cx.script(*script, false).is_ok() {
                Status::Success
            } else {
                Status::Failure
            }
        }
        RefNode::Assert {
            test, read_only, ..
        } => {
            if cx.holds(*test, *read_only) {
                Status::Success
            } else {
                Status::Failure
            }
        }
        RefNode::Gate {
            test,
            child,
            running,
            ..
        } => {
            // Tested only when the child starts: a child running from an
            // earlier tick goes on without a test.
            if *running {
                cx.coverage.gates_passed_running += 1;
            } else {
                let pass = match test {
                    GateTest::Script(script) => cx.holds(*script, false),
                    GateTest::Condition(script) => cx.holds(*script, true),
                    GateTest::Time(test) => cx.time_holds(test),
                };
                if !pass {
                    cx.coverage.gate_failures += 1;
                    return Status::Failure;
                }
            }
            let status = tick(child, cx);
            *running = status == Status::Running;
            status
        }
        RefNode::ScriptWrapper {
            enter,
            exit,
            child,
            open,
            ..
        } => {
            // Like a scope: the enter script runs when it starts; if it
            // faults, the wrapper fails at once, never opened, and its exit
            // will not run.
            if !*open {
                if cx.script(*enter, false).is_err() {
                    return Status::Failure;
                }
                *open = true;
            }
            let status = tick(child, cx);
            if status.is_done() {
                *open = false;
                // A fault changes nothing: the ending is decided.
                let _ = cx.script(*exit, false);
            }
            status
        }
        RefNode::WaitUntilTime { test, running, .. } => {
            // Tested on every tick, the first included.
            if cx.time_holds(test) {
                if *running {
                    cx.coverage.time_waits_done += 1;
                }
                *running = false;
                Status::Success
            } else {
                *running = true;
                Status::Running
            }
        }
        RefNode::WaitForEvent { waiting, .. } => {
            // Only an event that arrives while it runs counts.
            if waiting.take() == Some(true) {
                cx.coverage.events_awaited += 1;
                Status::Success
            } else {
                *waiting = Some(false);
                Status::Running
            }
        }
        RefNode::SendEvent { node, event, to } => {
            let to = match *to {
                IntInput::Literal(to) => Some(to),
                IntInput::Input(word) => cx.world.input_int(word),
            };
            // -1 is the sender; any other value that is no agent index fails.
            let to = match to {
                Some(SELF_AGENT) => Some(cx.agent),
                Some(to) => u32::try_from(to).ok().map(AgentId),
                None => None,
            };
            let Some(to) = to else {
                return Status::Failure;
            };
            let kind = RequestKind::Event { event: *event, to };
            let sent = cx.request(*node, ActionId(0), kind);
            cx.events.push(sent);
            cx.coverage.events_sent += 1;
            Status::Success
        }
        RefNode::Crowd { node, rule, child } => tick_crowd(*node, *rule, child, cx),
        RefNode::Team { node, children, .. } => tick_team(*node, children, cx),
        RefNode::Sync {
            node,
            point,
            waiting,
        } => tick_sync(*node, *point, waiting, cx),
        RefNode::Group { .. } => tick_group(node, cx),
        RefNode::Decider {
            node,
            params,
            children,
            slot,
        } => {
            // Its child runs; a newly chosen immediate action gets the block.
            let block = std::mem::take(&mut cx.block);
            let decide = decide_leaf(children);
            let decide_block = decide_memory(children);
            let Some(child) = children.last_mut() else {
                unreachable!("a decider has a child")
            };
            if matches!(child, RefNode::Action { .. }) {
                cx.block = block;
                cx.block_memory = decide_block;
            }
            let redecider = params.redecide && matches!(child, RefNode::Group { .. });
            if redecider {
                cx.redeciders.push(Redecider {
                    decider: *node,
                    group: child.index(),
                    params: *params,
                    decide,
                    slot: *slot,
                    memory: decide_block,
                });
            }
            cx.found_nothing = None;
            let child_at = child.index();
            let status = tick(child, cx);
            if redecider && let Some(r) = cx.redeciders.pop() {
                *slot = r.slot;
                restore_decide_memory(children, r.memory);
            }
            // It accepted, and its group found none of its deciders to:
            // Spore's subset rule is broken (docs/nodes.md).
            if cx.found_nothing.take() == Some(child_at) {
                let report = cx.request(*node, ActionId(0), RequestKind::SubsetRule);
                cx.events.push(report);
                cx.violated = true;
                cx.coverage.subset_rule_reports += 1;
            }
            status
        }
        RefNode::Decide { .. } => unreachable!("a Decide leaf is asked, never ticked"),
        RefNode::PostStimulus {
            stimulus,
            seconds,
            data,
            ..
        } => {
            // A datum is 32 bits: from i32::MIN to u32::MAX, kept as its
            // two's complement; any other value posts nothing.
            let datum = match *data {
                IntInput::Literal(d) => Some(d),
                IntInput::Input(word) => cx.world.input_int(word),
            };
            let datum = datum.filter(|d| (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(d));
            let Some(datum) = datum else {
                return Status::Failure;
            };
            // Active until the tick's time plus its seconds, kept as f32.
            let expiry = (cx.world.clock().time + f64::from(*seconds)) as f32;
            cx.stimuli[*stimulus] = Some((expiry, datum as u32));
            cx.coverage.stimuli_posted += 1;
            Status::Success
        }
        RefNode::Condition { node } => {
            let holds = cx.world.condition(*node);
            cx.world.written(cx.vars, cx.entries);
            if holds {
                Status::Success
            } else {
                Status::Failure
            }
        }
        RefNode::Action {
            node,
            running,
            persistent,
            memory,
        } => {
            // A newly chosen decider's immediate action starts with its
            // decider block, and its memory with its decider's Decide's.
            let block = std::mem::take(&mut cx.block);
            let block_memory = cx.block_memory.take();
            let (signal, mut state) = match running.take() {
                Some(state) => (Signal::Tick, state),
                None => {
                    if block != 0 {
                        cx.coverage.decider_blocks += 1;
                    }
                    if let Some(m) = memory.as_mut() {
                        *m = MemoryBlock::zeroed(m.words().len());
                        if let Some(from) = &block_memory {
                            m.copy_from(from);
                        }
                    }
                    (Signal::Start, block)
                }
            };
            let status = cx.world.action(
                *node,
                signal,
                &mut state,
                persistent.as_mut(),
                memory.as_mut(),
            );
            cx.world.written(cx.vars, cx.entries);
            if status == Status::Running {
                *running = Some(state);
            }
            status
        }
        RefNode::Deferred {
            node,
            action,
            state,
            launched_this_tick,
        } => match *state {
            DeferredState::Idle => {
                let launch = cx.request(*node, *action, RequestKind::Launch);
                cx.launches.push(launch);
                cx.coverage.launches += 1;
                *state = DeferredState::Launched;
                *launched_this_tick = true;
                Status::Running
            }
            DeferredState::Launched | DeferredState::Acknowledged => Status::Running,
            DeferredState::Succeeded | DeferredState::Failed => {
                let status = if *state == DeferredState::Succeeded {
                    Status::Success
                } else {
                    Status::Failure
                };
                *state = DeferredState::Idle;
                cx.coverage.completions_consumed += 1;
                (cx.trace)(*node, TraceEvent::Complete);
                status
            }
        },
    }
}

/// Whether a sequence's or selector's child is skipped: one before the
/// resume point completed, unless it is a `Repeat`, which is ticked again.
pub(super) fn skipped(child: &RefNode, before_resume: bool, cx: &mut Tick<'_>) -> bool {
    if !before_resume {
        return false;
    }
    let repeat = matches!(child, RefNode::Repeat { .. });
    if repeat {
        cx.coverage.repeat_reruns += 1;
    }
    !repeat
}

/// Abandons a subtree: cancels its running work in stream order and
/// forgets everything it remembers ("Work that is running ... and that a
/// tick does not reach is abandoned and cancelled"). Children go first, so
/// a trace reports a running decider cancelled after its running leaves.
pub(super) fn abandon(node: &mut RefNode, cx: &mut Tick<'_>) {
    if let RefNode::Group {
        behavior: true,
        children,
        ..
    } = node
    {
        // A group's behavior is cancelled after the work inside the group.
        let (behavior, deciders) = children.split_at_mut(1);
        for child in deciders {
            abandon(child, cx);
        }
        abandon(&mut behavior[0], cx);
    } else {
        for child in node.children_mut() {
            abandon(child, cx);
        }
    }
    let i = node.index();
    let running = cx.open[i.index()];
    if running {
        cx.open[i.index()] = false;
        (cx.trace)(i, TraceEvent::Cancel);
    }
    match node {
        RefNode::Sequence { resume_at, .. } | RefNode::IfThenElse { resume_at, .. } => {
            *resume_at = 0;
        }
        RefNode::Async {
            position, yielded, ..
        } => {
            *position = 0;
            *yielded = false;
        }
        RefNode::Selector { resume_at, .. } => {
            if *resume_at > 0 {
                cx.coverage.selector_resumes_abandoned += 1;
            }
            *resume_at = 0;
        }
        RefNode::Concurrent { finished, .. } => finished.fill(None),
        RefNode::Loop {
            runs,
            between_runs,
            child_running,
            ..
        } => {
            *runs = 0;
            *between_runs = false;
            *child_running = false;
        }
        RefNode::Timeout { since, .. } | RefNode::Wait { since, .. } => *since = None,
        // Its slot outlives cancellation (a connector's too: the tree
        // injected stays injected).
        RefNode::Cooldown { .. }
        | RefNode::ChildTree { .. }
        | RefNode::SequenceWithMemory { .. } => {}
        RefNode::Scope { node, open, .. } => {
            // After the work inside it is cleaned up.
            if *open {
                *open = false;
                cx.coverage.scope_exits_cancelled += 1;
                cx.world.scope(*node, Some(Ending::Cancelled));
                cx.world.written(cx.vars, cx.entries);
            }
        }
        RefNode::ScriptWrapper {
            exit, halted, open, ..
        } => {
            // As a scope's exit: after the work inside it is cleaned up.
            if *open {
                *open = false;
                cx.coverage.wrapper_exits_cancelled += 1;
                if *halted != treebeard_shape::NO_SCRIPT {
                    let _ = cx.script(*halted, false);
                }
                let _ = cx.script(*exit, false);
            }
        }
        RefNode::Gate { running, .. } | RefNode::WaitUntilTime { running, .. } => {
            *running = false;
        }
        RefNode::WaitForEvent { waiting, .. } => *waiting = None,
        RefNode::Sync { waiting, .. } => *waiting = false,
        RefNode::Crowd { node, .. } | RefNode::Team { node, .. } => {
            // Whatever the ticket: this tick's, or the last tick's.
            let ticket = cx.tickets.remove(node).or(cx.last.remove(node));
            if let Some(ticket) = ticket {
                if running {
                    cx.coverage.crowd_cancelled_inside += 1;
                }
                cx.give_up(*node, ticket);
            }
        }
        RefNode::Monitor { registered, .. } => *registered = false,
        // Its slot outlives cancellation; nothing else is kept.
        RefNode::Group { active, .. } => *active = None,
        RefNode::Decider { .. } | RefNode::Decide { .. } => {}
        // Leaves that finish on the tick they start.
        RefNode::Script { .. }
        | RefNode::Always { .. }
        | RefNode::Assert { .. }
        | RefNode::SendEvent { .. }
        | RefNode::PostStimulus { .. } => {}
        // Deciders that remember nothing of their own.
        RefNode::Priority { .. }
        | RefNode::StoredState { .. }
        | RefNode::Repeat { .. }
        | RefNode::ReactiveSequence { .. }
        | RefNode::WhileDoElse { .. }
        | RefNode::Inverter { .. }
        | RefNode::ForceSuccess { .. }
        | RefNode::ForceFailure { .. }
        | RefNode::Condition { .. } => {}
        RefNode::Action {
            node,
            running,
            persistent,
            memory,
        } => {
            if let Some(mut state) = running.take() {
                // The return value of a cancel call is ignored.
                let _ = cx.world.action(
                    *node,
                    Signal::Cancel,
                    &mut state,
                    persistent.as_mut(),
                    memory.as_mut(),
                );
                cx.world.written(cx.vars, cx.entries);
                cx.coverage.cancel_calls += 1;
            }
        }
        RefNode::Deferred {
            node,
            action,
            state,
            launched_this_tick,
        } => {
            match *state {
                DeferredState::Launched | DeferredState::Acknowledged if *launched_this_tick => {
                    // Launched during this tick and rolled back: never
                    // requested, so nothing to cancel either.
                    let before = cx.launches.len();
                    cx.launches.retain(|r| r.node != *node);
                    assert_eq!(
                        cx.launches.len() + 1,
                        before,
                        "a deferred action launched this tick has one launch request"
                    );
                    cx.coverage.launches -= 1;
                    cx.coverage.dropped_launches += 1;
                }
                DeferredState::Launched | DeferredState::Acknowledged => {
                    let cancel = cx.request(*node, *action, RequestKind::Cancel);
                    cx.cancels.push(cancel);
                    cx.coverage.cancel_requests += 1;
                }
                // A completion nobody consumed is simply forgotten.
                DeferredState::Succeeded | DeferredState::Failed | DeferredState::Idle => {}
            }
            *state = DeferredState::Idle;
            *launched_this_tick = false;
        }
    }
}
