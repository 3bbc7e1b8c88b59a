//! What a tick of the reference leaves for the next one, in the VM's
//! actor form ([`remembered`]): the states the differential tests compare
//! with the VM's actors, and the resume points of the reference's own
//! walk ([`resume_points`]), implied by a running leaf or not.

use super::*;

/// Whether the sub-tree of `n` is made only of the kinds that hold no
/// state but their running leaf's (flow deciders and decorators, `Always`,
/// conditions, actions, deferred actions): a sequence, selector or
/// if-then-else of them resumes where its running leaf lies, which the VM
/// reads from that leaf's action state instead of a resume point of its own
/// (`Kind::implies_resume`).
fn plain(n: &RefNode) -> bool {
    let kind = matches!(
        n,
        RefNode::Sequence { .. }
            | RefNode::Selector { .. }
            | RefNode::IfThenElse { .. }
            | RefNode::ReactiveSequence { .. }
            | RefNode::WhileDoElse { .. }
            | RefNode::Priority { .. }
            | RefNode::Inverter { .. }
            | RefNode::ForceSuccess { .. }
            | RefNode::ForceFailure { .. }
            | RefNode::StoredState { .. }
            | RefNode::Always { .. }
            | RefNode::Condition { .. }
            | RefNode::Action { .. }
            | RefNode::Deferred { .. }
    );
    kind && n.children().iter().all(plain)
}

/// Where each sequence, selector and if-then-else under `root` resumes,
/// when past its first child: the reference's own state, implied or not.
pub(super) fn resume_points(root: &RefNode) -> Vec<DeciderState> {
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    nodes.into_iter().filter_map(resume_point).collect()
}

/// Where the sequence, selector or if-then-else `n` resumes, when past its
/// first child.
fn resume_point(n: &RefNode) -> Option<DeciderState> {
    match n {
        RefNode::Sequence {
            node,
            children,
            resume_at,
        }
        | RefNode::Selector {
            node,
            children,
            resume_at,
        }
        | RefNode::IfThenElse {
            node,
            children,
            resume_at,
        } if *resume_at > 0 => Some(DeciderState::Resume {
            node: *node,
            child: children[*resume_at].index(),
        }),
        _ => None,
    }
}

/// Everything the tree under `root` remembers for the next tick.
pub(super) fn remembered(root: &RefNode) -> Remembered {
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    let mut out = Remembered::default();
    for n in nodes {
        if let Some(point) = resume_point(n) {
            if !plain(n) {
                out.deciders.push(point);
            }
            continue;
        }
        match n {
            RefNode::Async {
                node,
                position,
                yielded,
                ..
            } if *position > 0 => {
                if *yielded {
                    out.actions
                        .push((*node, ActionState::Running(*position as u32)));
                } else {
                    out.deciders.push(DeciderState::Value {
                        node: *node,
                        value: *position as u32,
                    });
                }
            }
            RefNode::Concurrent {
                children, finished, ..
            } => {
                for (child, done) in children.iter().zip(finished) {
                    if let Some(success) = *done {
                        out.deciders.push(DeciderState::Done {
                            node: child.index(),
                            success,
                        });
                    }
                }
            }
            RefNode::Action {
                node,
                running: Some(state),
                ..
            } => out.actions.push((*node, ActionState::Running(*state))),
            RefNode::Loop {
                node,
                runs,
                between_runs,
                child_running,
                ..
            } => {
                if *between_runs {
                    out.actions.push((*node, ActionState::Running(*runs)));
                } else if *child_running {
                    out.deciders.push(DeciderState::Value {
                        node: *node,
                        value: *runs,
                    });
                }
            }
            RefNode::Timeout {
                node,
                since: Some(since),
                ..
            } => out.deciders.push(DeciderState::Value {
                node: *node,
                value: since.to_bits(),
            }),
            RefNode::Wait {
                node,
                since: Some(since),
                ..
            } => out
                .actions
                .push((*node, ActionState::Running(since.to_bits()))),
            RefNode::Scope {
                node, open: true, ..
            }
            | RefNode::ScriptWrapper {
                node, open: true, ..
            }
            | RefNode::WaitUntilTime {
                node,
                running: true,
                ..
            } => out.actions.push((*node, ActionState::Running(0))),
            RefNode::Sync {
                node,
                point,
                waiting: true,
            } => out.actions.push((*node, ActionState::Running(*point))),
            RefNode::WaitForEvent {
                node,
                waiting: Some(arrived),
                ..
            } => out
                .actions
                .push((*node, ActionState::Running(u32::from(*arrived)))),
            RefNode::Monitor {
                node,
                registered: true,
                ..
            } => out.deciders.push(DeciderState::Monitor { node: *node }),
            RefNode::Group {
                node,
                behavior,
                children,
                active: Some(k),
                ..
            } => out.deciders.push(DeciderState::Value {
                node: *node,
                value: children[usize::from(*behavior) + k].index().get(),
            }),
            RefNode::Deferred { node, state, .. } => {
                let state = match state {
                    DeferredState::Idle => continue,
                    DeferredState::Launched => ActionState::Launched,
                    DeferredState::Acknowledged => ActionState::Acknowledged,
                    DeferredState::Succeeded => ActionState::Succeeded,
                    DeferredState::Failed => ActionState::Failed,
                };
                out.actions.push((*node, state));
            }
            _ => {}
        }
    }
    out.deciders.sort_by_key(|d| match d {
        DeciderState::Resume { node, .. }
        | DeciderState::Done { node, .. }
        | DeciderState::Value { node, .. }
        | DeciderState::Monitor { node } => *node,
    });
    out
}
