//! Configured decorators and memory nodes: the loop, the timeout, the
//! cool-down, the scope and the wait, which keep a value while their
//! child runs and take its statuses through a guard.

use super::*;

impl<B, T: Tracer> Batch<'_, B, T> {
    /// Parameter word `i` of the configured item `item`.
    #[inline]
    pub(super) fn param(&self, item: ShapeItem, i: usize) -> u64 {
        self.args.table[item.params().offset as usize + i]
    }

    /// A configured parameter holding seconds.
    #[inline]
    pub(super) fn seconds(&self, item: ShapeItem) -> f64 {
        f64::from_bits(self.param(item, 0))
    }

    /// Executes the configured node at `ip`: a decorator or a gate decides
    /// at once or descends; a wait or another memory node returns.
    #[cold]
    #[inline(never)]
    pub(super) fn configured(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
    ) -> Decision {
        if kind == Kind::Wait {
            Decision::Return(self.wait(a, ip, item))
        } else if kind == Kind::Sync {
            Decision::Return(self.sync(a, ip, item))
        } else if kind.is_dynamic() {
            self.enter_decorator(a, ip, item, kind)
        } else {
            self.memory_node(a, ip, item, kind)
        }
    }

    /// Enters the configured decorator at `ip`: decides at once, or pushes
    /// its guard and moves to its child.
    #[cold]
    pub(super) fn enter_decorator(
        &mut self,
        a: &mut Agent<'_, B>,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
    ) -> Decision {
        // A loop between runs keeps an action state (nothing below it runs);
        // a decorator whose child runs keeps a decider state.
        let value = match kind {
            Kind::Monitor => return self.enter_monitor(ip, item),
            Kind::Group => return self.enter_group(a, ip, item),
            Kind::Gate | Kind::GlobalCooldown | Kind::Team => {
                return self.enter_ticket(a, ip, item, kind);
            }
            Kind::ChildTree => return self.enter_connector(a, ip, item),
            Kind::SequenceWithMemory => return self.enter_with_memory(a, ip, item),
            Kind::AsyncSequence | Kind::AsyncSelector => {
                return self.enter_async(a, ip, item, kind);
            }
            Kind::Loop | Kind::LoopUntilSuccess => self.take_action(a, ip).map(StateEntry::value),
            Kind::Scope | Kind::ScriptWrapper => self.take_action(a, ip).map(|_| 1),
            _ => None,
        };
        let value = value.or_else(|| {
            self.take_decider(a, ip, |tag| tag == decider_tag::VALUE)
                .map(StateEntry::value)
        });
        let mut decided = None;
        match kind {
            Kind::Timeout => {
                let since = value.map_or(0.0, f32::from_bits);
                if f64::from(since) >= self.seconds(item) {
                    decided = Some(Status::Failure);
                }
            }
            Kind::Cooldown => {
                let slot = self.slot(ip).unwrap_or_default();
                let ready = f32::from_bits(self.current_persistent(a, slot));
                if self.args.frame.time < f64::from(ready) {
                    decided = Some(Status::Failure);
                }
            }
            Kind::Scope | Kind::ScriptWrapper => {
                if value.is_none() && !self.open_scope(a, ip, item) {
                    // A wrapper whose enter script faulted never opened.
                    decided = Some(Status::Failure);
                } else {
                    // The scope is open while its child runs; the entry goes
                    // before its children's, in item order.
                    self.b
                        .next
                        .push_action(StateEntry::new(ip, action_tag::RUNNING, 0));
                }
            }
            _ => {}
        }
        if let Some(status) = decided {
            if a.next_action < item.end() {
                self.trace.at(ip);
                self.flush_actions_below(a, item.end());
            }
            return Decision::Return(status);
        }
        self.push_decorator(ip, item, kind, value.unwrap_or(0), None)
    }

    /// Pushes the guard of the decorator at `ip` and moves to its child.
    pub(super) fn push_decorator(
        &mut self,
        ip: u32,
        item: ShapeItem,
        kind: Kind,
        value: u32,
        after: Option<u32>,
    ) -> Decision {
        self.b.guards.push(Guard {
            node: ip,
            end: item.end(),
            kind,
            child: ip + 1,
            successes: value,
            failures: 0,
            running: 0,
            succeed_at: 0,
            fail_at: 0,
            after,
            marks: Marks::default(),
        });
        Decision::Descend(ip + 1)
    }

    /// The top guard's decorator's child returned `status`.
    #[cold]
    pub(super) fn decorator_returned(&mut self, a: &mut Agent<'_, B>, status: Status) -> Decision {
        let Some(g) = self.b.guards.last().copied() else {
            unreachable!("a decorator has a guard")
        };
        let item = self.item(g.node);
        let value = g.successes;
        let keep = |b: &mut Buffers, value: u32| {
            b.next
                .push_decider(StateEntry::new(g.node, decider_tag::VALUE, value));
        };
        let wait_for_next_run = |b: &mut Buffers, count: u32| {
            b.next
                .insert_action(StateEntry::new(g.node, action_tag::RUNNING, count));
            Decision::Return(Status::Running)
        };
        match (g.kind, status) {
            (Kind::Loop | Kind::LoopUntilSuccess, Status::Running) => {
                // Kept at 0 too: a running leaf's path then holds the same
                // decider states on every run, which compiled code checks
                // against a constant table.
                keep(self.b, value);
                Decision::Return(Status::Running)
            }
            (Kind::Loop, Status::Success) | (Kind::LoopUntilSuccess, Status::Failure) => {
                let runs = value.saturating_add(1);
                let limit = self.param(item, 0);
                if limit != 0 && u64::from(runs) >= limit {
                    Decision::Return(status)
                } else {
                    // `again`: the next run starts in the same tick.
                    self.b.again |= self.param(item, 1) != 0;
                    wait_for_next_run(self.b, runs)
                }
            }
            (Kind::Timeout, Status::Running) => {
                let since = f32::from_bits(value) + self.args.frame.dt;
                keep(self.b, since.to_bits());
                Decision::Return(Status::Running)
            }
            (Kind::Cooldown, Status::Success | Status::Failure) => {
                let slot = self.slot(g.node).unwrap_or_default() as u32;
                let ready = self.args.frame.time + self.seconds(item);
                self.b
                    .persistent_changes
                    .push((slot, (ready as f32).to_bits()));
                Decision::Return(status)
            }
            (Kind::Scope | Kind::ScriptWrapper, Status::Success | Status::Failure) => {
                let entry = self.b.next.remove_action(g.node);
                debug_assert!(entry.is_some(), "an open scope has a state");
                let how = if status == Status::Success {
                    Ending::Success
                } else {
                    Ending::Failure
                };
                self.close_scope(a, g.node, how);
                Decision::Return(status)
            }
            (Kind::Repeat, Status::Success | Status::Failure) => self.repeat_returned(a, g, status),
            (Kind::Group, _) => self.group_returned(a, status),
            (Kind::SequenceWithMemory, _) => self.with_memory_returned(a, g, status),
            (Kind::AsyncSequence | Kind::AsyncSelector, _) => self.async_returned(g, status),
            (Kind::Gate | Kind::GlobalCooldown | Kind::Team, Status::Success | Status::Failure) => {
                self.ticket_returned(g.node, g.kind, status)
            }
            (Kind::Monitor, _) => {
                if g.after.is_none() {
                    self.b.monitored.push((g.node, status));
                }
                Decision::Return(status)
            }
            _ => Decision::Return(status),
        }
    }

    /// A wait: running until its seconds have passed since it started.
    #[cold]
    pub(super) fn wait(&mut self, a: &mut Agent<'_, B>, ip: u32, item: ShapeItem) -> Status {
        let since = self
            .take_action(a, ip)
            .map_or(0.0, |e| f32::from_bits(e.value()));
        if f64::from(since) >= self.seconds(item) {
            return Status::Success;
        }
        let since = since + self.args.frame.dt;
        self.b
            .next
            .push_action(StateEntry::new(ip, action_tag::RUNNING, since.to_bits()));
        Status::Running
    }

    /// Calls the hooks of the scope at `node`: its enter (`how` is `None`) or
    /// its exit.
    pub(super) fn scope_hook(&mut self, a: &mut Agent<'_, B>, node: u32, how: Option<Ending>) {
        let (leaf, signal, state) = scope_call(self.args.table, self.item(node), how);
        let Some(&f) = self.actions.get(leaf.import() as usize) else {
            unreachable!("validated scopes name action imports")
        };
        self.aim_args(node, leaf);
        let mut call = Call::new(&self.args, signal, state, None);
        f(a.bb, &mut call);
    }
}
