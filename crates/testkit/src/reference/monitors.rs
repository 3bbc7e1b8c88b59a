//! Monitors in the reference (seed 001's "Monitors"): the registered
//! monitors tested before the tree, before the running branch
//! ([`running_position`]), and those registered after it.

use super::*;

/// Where the running branch starts: the first node with running work that
/// is not a scope's or wrapper's (they hold their running child). A gate
/// with `wait` runs while its ticket in `tickets` asks (waiting or
/// refused); an admitted ticket holds the gate's running child, which is
/// the branch (an action, or another gate asking inside it). Other tickets
/// are no running work.
pub(super) fn running_position(root: &RefNode, tickets: &BTreeMap<NodeIdx, Ticket>) -> u32 {
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    let actions: Vec<NodeIdx> = remembered(root)
        .actions
        .iter()
        .map(|&(n, _)| n)
        .filter(|n| {
            !matches!(
                nodes[n.index()],
                RefNode::Scope { .. } | RefNode::ScriptWrapper { .. }
            )
        })
        .collect();
    let waiting = tickets.iter().filter_map(|(&n, &ticket)| {
        let asks = matches!(ticket, Ticket::Waiting { .. } | Ticket::Refused { .. });
        let gate = matches!(
            nodes[n.index()],
            RefNode::Crowd {
                rule: CrowdRule::Gate { wait: true, .. },
                ..
            }
        );
        (gate && asks).then_some(n)
    });
    actions
        .iter()
        .copied()
        .chain(waiting)
        .min()
        .map_or(u32::MAX, NodeIdx::get)
}

/// Before the tree: tests the registered monitors before the running
/// branch, in pre-order; the first whose query succeeds interrupts the
/// tree, abandoning everything it remembers.
pub(super) fn test_monitors(root: &mut RefNode, cx: &mut Tick<'_>) {
    let running = running_position(root, &cx.last);
    let mut nodes = Vec::new();
    root.walk(&mut nodes);
    let registered: Vec<NodeIdx> = nodes
        .iter()
        .filter(|n| {
            matches!(
                n,
                RefNode::Monitor {
                    registered: true,
                    ..
                }
            ) && n.end() <= running
        })
        .map(|n| n.index())
        .collect();
    for monitor in registered {
        cx.coverage.monitors_tested += 1;
        let Some(node) = find_mut(root, monitor) else {
            unreachable!("registered monitors are in the tree")
        };
        if tick(node, cx) == Status::Success {
            cx.coverage.monitor_interrupts += 1;
            abandon(root, cx);
            return;
        }
    }
}

/// After the tree returned `status`: the monitors tested this tick whose
/// queries failed and that lie before the running branch are registered;
/// no others are.
pub(super) fn register_monitors(
    root: &mut RefNode,
    tickets: &BTreeMap<NodeIdx, Ticket>,
    status: Status,
    tested: &[(NodeIdx, Status)],
) {
    let running = if status == Status::Running {
        running_position(root, tickets)
    } else {
        0
    };
    root.walk_mut(&mut |n| {
        let before = matches!(n, RefNode::Monitor { .. }) && n.end() <= running;
        if let RefNode::Monitor {
            node, registered, ..
        } = n
        {
            *registered = before
                && tested
                    .iter()
                    .any(|&(m, s)| m == *node && s == Status::Failure);
        }
    });
}
