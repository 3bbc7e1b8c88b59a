//! SVG drawings of shapes, without Graphviz.
//!
//! A tidy top-down layout: each node's box is as wide as its label, each
//! subtree as wide as its children side by side (or its own box, if that
//! is wider), and a parent is centred over its children. Widths are summed
//! in one backward pass over the stream (children come after their
//! parents, so a backward pass meets every child first) and positions
//! handed down in one forward pass: no recursion, whatever the depth.
//! Each box carries a tooltip (`<title>`) with the node's path, kind and
//! where it was written.

use crate::dot::{Look, label};
use crate::palette;
use std::fmt::Write;
use treebeard_load::xml::export::escape;
use treebeard_shape::{NodeIdx, Shape};
use treebeard_vm::NodeState;

/// Pixels per character of the label font (a monospace font at 12 px).
const CHAR: f64 = 7.3;
/// Height of a label line.
const LINE: f64 = 15.0;
/// Padding inside a box, around its text.
const PAD: f64 = 8.0;
/// Space between sibling subtrees, and between rows.
const GAP_X: f64 = 14.0;
const GAP_Y: f64 = 36.0;
/// Margin around the drawing.
const MARGIN: f64 = 12.0;

/// One node's box: its label, look, size, and where the layout puts it.
struct Boxed {
    lines: Vec<String>,
    look: Look,
    width: f64,
    height: f64,
    /// The width of the node's subtree.
    span: f64,
    /// The left edge of the subtree's span, and the node's row.
    left: f64,
    depth: usize,
}

/// Where a tidy layout puts each node's box.
pub struct Layout {
    boxes: Vec<Boxed>,
    /// The top of each row.
    row_top: Vec<f64>,
    /// The drawing's width.
    pub width: f64,
    /// The drawing's height.
    pub height: f64,
}

/// Lays `shape` out top-down, each box sized for its label (with a last
/// line `file:line` when `lines` is set).
pub fn layout(shape: &Shape, lines: bool) -> Layout {
    let disassembly = shape.disassemble();
    let n = shape.len();
    let mut boxes: Vec<Boxed> = (0..n as u32)
        .map(|i| {
            let node = NodeIdx::new(i);
            let (mut lines_of, look) = label(shape, &disassembly, node);
            if lines && let Some(at) = file_line(shape, node) {
                lines_of.push(at);
            }
            let chars = lines_of
                .iter()
                .map(|l| l.chars().count())
                .max()
                .unwrap_or(1);
            let width = chars as f64 * CHAR + 2.0 * PAD;
            let height = lines_of.len() as f64 * LINE + PAD;
            Boxed {
                lines: lines_of,
                look,
                width,
                height,
                span: width,
                left: 0.0,
                depth: 0,
            }
        })
        .collect();
    // Spans, children first.
    for i in (0..n).rev() {
        let node = NodeIdx::new(i as u32);
        if !shape.kind(node).is_decider() {
            continue;
        }
        let children: f64 = shape
            .children(node)
            .map(|c| boxes[c.index()].span + GAP_X)
            .sum::<f64>()
            - GAP_X;
        boxes[i].span = boxes[i].span.max(children);
    }
    // Positions, parents first.
    for i in 0..n {
        let node = NodeIdx::new(i as u32);
        if !shape.kind(node).is_decider() {
            continue;
        }
        let children: Vec<NodeIdx> = shape.children(node).collect();
        let total: f64 = children
            .iter()
            .map(|c| boxes[c.index()].span + GAP_X)
            .sum::<f64>()
            - GAP_X;
        let mut cursor = boxes[i].left + (boxes[i].span - total) / 2.0;
        let depth = boxes[i].depth + 1;
        for c in children {
            boxes[c.index()].left = cursor;
            boxes[c.index()].depth = depth;
            cursor += boxes[c.index()].span + GAP_X;
        }
    }
    // Rows as tall as their tallest box.
    let rows = boxes.iter().map(|b| b.depth + 1).max().unwrap_or(1);
    let mut row_height = vec![0.0f64; rows];
    for b in &boxes {
        row_height[b.depth] = row_height[b.depth].max(b.height);
    }
    let mut row_top = vec![MARGIN + LINE + 8.0; rows];
    for r in 1..rows {
        row_top[r] = row_top[r - 1] + row_height[r - 1] + GAP_Y;
    }
    let width = boxes[0].span + 2.0 * MARGIN;
    let height = row_top[rows - 1] + row_height[rows - 1] + MARGIN;
    Layout {
        boxes,
        row_top,
        width,
        height,
    }
}

/// Where `node` was written, as `file:line` (the file's last path
/// component).
pub fn file_line(shape: &Shape, node: NodeIdx) -> Option<String> {
    let source = shape.node(node).source?;
    let file = shape
        .files()
        .get(usize::from(source.file))
        .map_or("?", |f| f);
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    Some(format!("{base}:{}", source.line))
}

/// `shape` as a standalone SVG document titled `name`: deciders as rounded
/// boxes, conditions as ellipses, deferred actions dashed, children left to
/// right in order; each box's tooltip gives the node's path, kind and
/// `file:line:column`.
pub fn render(shape: &Shape, name: &str) -> String {
    draw(shape, name, &layout(shape, false), None)
}

/// One agent's node states at one tick of a recording, to draw over a
/// tree: `states[i]` is node `i`'s, and `caption` says whose and when.
pub struct Overlay<'a> {
    /// Per node, its state.
    pub states: &'a [NodeState],
    /// A line under the title.
    pub caption: String,
}

/// `shape` drawn as `layout` puts it, with `overlay`'s states if given:
/// running nodes blue with a thick border, succeeded green, failed red,
/// cancelled orange and dashed, idle grey (the colours of
/// [`crate::palette`], which the viewer's page uses too). Each node is a
/// `<g class="node" id="n{index}" data-node="{index}">` (with
/// `data-state` under an overlay) holding its box and label, so a page
/// can find and style it.
pub fn draw(shape: &Shape, name: &str, layout: &Layout, overlay: Option<&Overlay<'_>>) -> String {
    let Layout {
        boxes,
        row_top,
        width,
        height,
    } = layout;
    let (width, height) = (*width, *height);
    let centre = |b: &Boxed| MARGIN + b.left + b.span / 2.0;

    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="12">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(name));
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{:.1}" font-weight="bold">{}</text>"#,
        MARGIN + LINE - 3.0,
        escape(name)
    );
    if let Some(overlay) = overlay {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            width - MARGIN,
            MARGIN + LINE - 3.0,
            escape(&overlay.caption)
        );
    }
    // Edges under the boxes: parent's bottom centre to child's top centre.
    out.push_str(r##"<g class="edges" fill="none" stroke="#7a869a" stroke-width="1.2">"##);
    out.push('\n');
    for (i, b) in boxes.iter().enumerate() {
        let node = NodeIdx::new(i as u32);
        if !shape.kind(node).is_decider() {
            continue;
        }
        let (x1, y1) = (centre(b), row_top[b.depth] + b.height);
        for c in shape.children(node) {
            let child = &boxes[c.index()];
            let (x2, y2) = (centre(child), row_top[child.depth]);
            let mid = (y1 + y2) / 2.0;
            let _ = writeln!(
                out,
                r#"<path d="M{x1:.1},{y1:.1} C{x1:.1},{mid:.1} {x2:.1},{mid:.1} {x2:.1},{y2:.1}"/>"#
            );
        }
    }
    out.push_str("</g>\n");
    let paths = shape.paths();
    for (i, b) in boxes.iter().enumerate() {
        let node = NodeIdx::new(i as u32);
        let (x, y) = (centre(b) - b.width / 2.0, row_top[b.depth]);
        let (mut fill, mut extra) = match b.look {
            Look::Decider => ("#e8eef7", r#" rx="6""#),
            Look::Condition => ("#fdf3d0", ""),
            Look::Deferred => ("#e3f4e1", r#" stroke-dasharray="4 3""#),
            Look::Action => ("#e3f4e1", ""),
        };
        let mut stroke = String::from(r##"stroke="#5b6577""##);
        match overlay.map(|o| o.states.get(i).copied().unwrap_or_default()) {
            None => {
                let _ = writeln!(out, r#"<g class="node" id="n{i}" data-node="{i}">"#);
            }
            Some(state) => {
                let style = palette::style(state);
                fill = style.fill;
                stroke = format!(r#"stroke="{}" stroke-width="{}""#, style.line, style.width);
                if let Some(dashes) = style.dashes {
                    let _ = write!(stroke, r#" stroke-dasharray="{dashes}""#);
                    if b.look == Look::Deferred {
                        // The state's dashes stand in for the look's.
                        extra = "";
                    }
                }
                let _ = writeln!(
                    out,
                    r#"<g class="node" id="n{i}" data-node="{i}" data-state="{}">"#,
                    state.name()
                );
            }
        }
        let info = shape.node(node);
        let source = info.source.map_or(String::new(), |s| {
            let file = shape.files().get(usize::from(s.file)).map_or("?", |f| f);
            format!("\n{file}:{}:{}", s.line, s.column)
        });
        let _ = writeln!(
            out,
            "<title>{} ({}){}</title>",
            escape(&paths[i]),
            shape.kind(node),
            escape(&source)
        );
        if b.look == Look::Condition {
            let _ = writeln!(
                out,
                r#"<ellipse cx="{:.1}" cy="{:.1}" rx="{:.1}" ry="{:.1}" fill="{fill}" {stroke}/>"#,
                centre(b),
                y + b.height / 2.0,
                b.width / 2.0,
                b.height / 2.0
            );
        } else {
            let _ = writeln!(
                out,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}" {stroke}{extra}/>"#,
                b.width, b.height
            );
        }
        for (k, line) in b.lines.iter().enumerate() {
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                centre(b),
                y + PAD / 2.0 + LINE * (k as f64 + 1.0) - 3.0,
                escape(line)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use treebeard_shape::tree::{act, cond, priority, sequence};
    use treebeard_shape::{Catalog, LeafSchema, ParamType, compile};

    fn shape() -> Shape {
        let mut c = Catalog::new();
        c.declare("ready", LeafSchema::condition())
            .declare("Walk", LeafSchema::action().param("to", ParamType::Str))
            .declare("Idle", LeafSchema::action());
        let tree = priority([
            sequence([cond("ready"), act("Walk").param("<door>")]).named("go"),
            act("Idle"),
        ]);
        compile(&tree, &c).unwrap()
    }

    /// The `(x, y, width, height)` of every `<rect>` and ellipse box.
    fn boxes(svg: &str) -> Vec<(f64, f64, f64, f64)> {
        let attr = |el: &str, name: &str| -> f64 {
            let at = el.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
            el[at..el[at..].find('"').unwrap() + at].parse().unwrap()
        };
        svg.lines()
            .filter_map(|l| {
                if l.starts_with("<rect") {
                    Some((
                        attr(l, "x"),
                        attr(l, "y"),
                        attr(l, "width"),
                        attr(l, "height"),
                    ))
                } else if l.starts_with("<ellipse") {
                    let (rx, ry) = (attr(l, "rx"), attr(l, "ry"));
                    Some((attr(l, "cx") - rx, attr(l, "cy") - ry, 2.0 * rx, 2.0 * ry))
                } else {
                    None
                }
            })
            .collect()
    }

    #[test]
    fn draws_one_box_per_node_and_one_edge_per_child() {
        let svg = render(&shape(), "guard & co");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
        assert_eq!(boxes(&svg).len(), 5);
        assert_eq!(svg.matches("<path d=").count(), 4);
        assert!(svg.contains("<title>guard &amp; co</title>"));
        assert!(svg.contains("go/Walk (Action)"), "{svg}");
        // Labels are escaped.
        assert!(svg.contains("Walk(to=&quot;&lt;door&gt;&quot;)"), "{svg}");
        assert!(svg.contains(r#"<ellipse"#), "the condition");
    }

    #[test]
    fn boxes_do_not_overlap_and_parents_sit_above_their_children() {
        let shape = shape();
        let b = boxes(&render(&shape, "t"));
        for (i, p) in b.iter().enumerate() {
            for q in &b[i + 1..] {
                let apart =
                    p.0 + p.2 <= q.0 || q.0 + q.2 <= p.0 || p.1 + p.3 <= q.1 || q.1 + q.3 <= p.1;
                assert!(apart, "{p:?} overlaps {q:?}");
            }
        }
        for i in 0..shape.len() as u32 {
            let node = NodeIdx::new(i);
            for c in shape.children(node) {
                let (parent, child) = (b[node.index()], b[c.index()]);
                assert!(parent.1 + parent.3 < child.1, "{parent:?} above {child:?}");
            }
        }
        // A parent is centred over its children: over the row from its
        // first child's left edge to its last child's right edge.
        let centre = |r: (f64, f64, f64, f64)| r.0 + r.2 / 2.0;
        let middle = (b[2].0 + b[3].0 + b[3].2) / 2.0;
        assert!((centre(b[1]) - middle).abs() < 0.2, "{b:?}");
    }
}
