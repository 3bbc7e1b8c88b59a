//! The node-state colours of every drawing: `treebeard svg`'s pictures,
//! and the viewer's page (its tree, legend, agent list and history strip,
//! through the CSS this module writes). One list, so that running is the
//! same blue everywhere.

use std::fmt::Write as _;
use treebeard_vm::NodeState;

/// How a node in a state is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StateStyle {
    /// The border, and the state's colour where it stands alone (a pill's
    /// border, a history strip, a crowd count).
    pub line: &'static str,
    /// The fill.
    pub fill: &'static str,
    /// The border's width, px.
    pub width: u8,
    /// The border's dashes (SVG `stroke-dasharray`), if dashed.
    pub dashes: Option<&'static str>,
}

/// How a node in `state` is drawn: running blue with a thick border,
/// succeeded green, failed red, cancelled orange and dashed, idle grey.
pub(crate) const fn style(state: NodeState) -> StateStyle {
    let (line, fill, width, dashes) = match state {
        NodeState::Idle => ("#9aa3b2", "#e4e7ec", 1, None),
        NodeState::Running => ("#2f6fd6", "#d4e4ff", 3, None),
        NodeState::Success => ("#2c8c3f", "#d3f2d9", 2, None),
        NodeState::Failure => ("#c93636", "#ffd9d9", 2, None),
        NodeState::Cancelled => ("#c77700", "#ffe9c7", 2, Some("5 3")),
    };
    StateStyle {
        line,
        fill,
        width,
        dashes,
    }
}

/// The viewer's state styles: a custom property per state and colour
/// (`--running`, `--running-bg`, ...), which its legend, agent list and
/// history strip read, and the tree's node boxes in each state (an idle
/// node keeps its kind's colours).
pub(crate) fn css() -> String {
    let mut out = String::from(":root {\n");
    for state in NodeState::ALL {
        let (name, style) = (state.name(), style(state));
        let _ = writeln!(
            out,
            "  --{name}: {}; --{name}-bg: {};",
            style.line, style.fill
        );
    }
    out.push_str("}\n");
    for state in NodeState::ALL.into_iter().filter(|&s| s != NodeState::Idle) {
        let (name, style) = (state.name(), style(state));
        let _ = write!(
            out,
            "g.node[data-state=\"{name}\"] > rect, g.node[data-state=\"{name}\"] > ellipse \
             {{ fill: var(--{name}-bg); stroke: var(--{name}); stroke-width: {}px;",
            style.width
        );
        if let Some(dashes) = style.dashes {
            let _ = write!(out, " stroke-dasharray: {dashes};");
        }
        out.push_str(" }\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_has_its_own_colours() {
        for (i, a) in NodeState::ALL.into_iter().enumerate() {
            for b in NodeState::ALL.into_iter().skip(i + 1) {
                assert_ne!(style(a).line, style(b).line, "{a:?} and {b:?}");
                assert_ne!(style(a).fill, style(b).fill, "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn the_pages_styles_name_every_state() {
        let css = css();
        for state in NodeState::ALL {
            let style = style(state);
            assert!(
                css.contains(&format!("--{}: {};", state.name(), style.line)),
                "{css}"
            );
        }
        assert!(css.contains(
            "g.node[data-state=\"running\"] > rect, g.node[data-state=\"running\"] > ellipse \
             { fill: var(--running-bg); stroke: var(--running); stroke-width: 3px; }"
        ));
        assert!(css.contains("stroke-dasharray: 5 3;"));
    }
}
