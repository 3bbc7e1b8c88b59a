//! `treebeard view`: a recording as one self-contained HTML page.
//!
//! The page holds the tree drawn by the tidy layout of [`crate::svg`] (with
//! each node's `file:line`), a JSON table of the nodes (kind, name, path,
//! where written, parameters), and the recording file itself, base64
//! encoded; its script (`page/view.js`) reads the file format in place as
//! typed arrays, so a page of thousands of agents opens in about the time
//! it takes to decode the base64, and a tick or agent switch touches only
//! what it shows. It loads nothing from the network.
//!
//! The page's address selects what it shows (`#agent=3&frame=5&node=2`, or
//! `tick=K` for the K-th recorded tick) and `bench` makes it time tick and
//! agent switches into `#timings`; every node's `<g>` carries
//! `data-node="index"` and `data-state="running"` (or `idle`, `success`,
//! `failure`, `cancelled`), which the end-to-end test reads.

use crate::{palette, svg};
use serde_json::json;
use treebeard_shape::{NodeIdx, Shape};
use treebeard_vm::Recording;

const PAGE: &str = include_str!("page/page.html");
const CSS: &str = include_str!("page/view.css");
const JS: &str = include_str!("page/view.js");
/// Parts of the script, put where `// @include NAME` stands in it.
const JS_PARTS: [(&str, &str); 2] = [
    ("trees.js", include_str!("page/trees.js")),
    ("live.js", include_str!("page/live.js")),
];

/// The page's script: view.js with its parts in place.
fn script() -> String {
    JS_PARTS.iter().fold(JS.to_owned(), |js, (name, part)| {
        js.replace(&format!("  // @include {name}\n"), part)
    })
}

/// The page for `recording`, titled `title`.
pub fn render(recording: &Recording, title: &str) -> String {
    Page::new(recording.shape(), title).fill(&recording.to_bytes(), None)
}

/// The parts of a viewer page that depend only on the tree: its drawing
/// and its table of nodes, made once and filled with recordings.
#[derive(Clone, Debug)]
pub struct Page {
    title: String,
    drawing: String,
    nodes: String,
}

impl Page {
    /// The page of `shape`'s recordings, titled `title`.
    pub fn new(shape: &Shape, title: &str) -> Page {
        let drawing = svg::draw(shape, title, &svg::layout(shape, true), None);
        let disassembly = shape.disassemble();
        let paths = shape.paths();
        let mut parent = vec![-1i64; shape.len()];
        for i in 0..shape.len() as u32 {
            let node = NodeIdx::new(i);
            if shape.kind(node).is_decider() {
                for c in shape.children(node) {
                    parent[c.index()] = i64::from(i);
                }
            }
        }
        let nodes: Vec<_> = (0..shape.len() as u32)
            .map(|i| {
                let node = NodeIdx::new(i);
                let call = disassembly.payload(node);
                json!({
                    "name": &*shape.node(node).name,
                    "kind": shape.kind(node).name(),
                    "path": paths[i as usize],
                    "at": shape.location(node),
                    "call": call.trim(),
                    "parent": parent[i as usize],
                })
            })
            .collect();
        Page {
            title: title.to_owned(),
            drawing,
            nodes: script_json(&serde_json::Value::Array(nodes)),
        }
    }

    /// The page showing `recording`, a recording file's bytes (of this
    /// page's shape); `live`, when given, is the page's live settings
    /// (a JSON object the script reads: where to follow the run from).
    pub fn fill(&self, recording: &[u8], live: Option<&serde_json::Value>) -> String {
        let live = live.map_or_else(|| "null".to_owned(), script_json);
        fill(PAGE, |name| match name {
            "TITLE" => escape(&self.title),
            "CSS" => palette::css() + CSS,
            "SVG" => self.drawing.clone(),
            "NODES" => self.nodes.clone(),
            "DATA" => base64(recording),
            "LIVE" => live.clone(),
            "JS" => script(),
            _ => String::new(),
        })
    }
}

/// `template` with each `{{NAME}}` replaced by `value(NAME)`, in one pass,
/// so that a value holding braces is never read as a placeholder.
/// `value` as JSON to sit in a `<script>` element: every `<` escaped (a
/// `<` is only ever in a string), so that no name (`</script>`, `<!--`)
/// can end the element or change how the page parses it, and the line
/// separators some JavaScript engines refused in strings too.
fn script_json(value: &serde_json::Value) -> String {
    value
        .to_string()
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn fill(template: &str, value: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        let Some(len) = rest[at + 2..].find("}}") else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str(&value(&rest[at + 2..at + 2 + len]));
        rest = &rest[at + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// `text` for HTML character data.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Standard base64 with padding.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let word = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(word >> (18 - 6 * k) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

    /// The crowd tree from its file (so nodes have file lines), as an
    /// empty recording.
    fn recording() -> Recording {
        let leaves = treebeard_scenario::builtin_leaves();
        let options = treebeard_load::LoadOptions {
            stub_unknown: true,
            ..Default::default()
        };
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/trees/crowd.ron"
        );
        let load = treebeard_load::load_file(std::path::Path::new(path), &leaves, &options);
        let shape = load.loaded.expect("the crowd tree loads").shape;
        treebeard_vm::Recorder::new(&shape, 1 << 20).into_recording()
    }

    #[test]
    fn the_page_holds_every_node_with_its_file_line_and_loads_nothing() {
        let recording = recording();
        let page = render(&recording, "crowd <run>");
        let shape = recording.shape();
        assert!(page.starts_with("<!doctype html>"));
        assert!(page.contains("<title>crowd &lt;run&gt; · treebeard view</title>"));
        for i in 0..shape.len() {
            assert!(page.contains(&format!(r#"data-node="{i}""#)), "node {i}");
        }
        let last = NodeIdx::new(shape.len() as u32 - 1);
        let at = svg::file_line(shape, last).expect("a file line");
        assert!(at.starts_with("crowd.ron:"), "{at}");
        assert!(
            page.contains(&format!(">{at}</text>")),
            "labels carry file:line"
        );
        // The node table parses, the recording decodes from the page.
        let json_at = page
            .find(r#"<script id="nodes" type="application/json">"#)
            .unwrap();
        let json = &page[json_at..];
        let json = &json[json.find('>').unwrap() + 1..json.find("</script>").unwrap()];
        let nodes: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(nodes.as_array().unwrap().len(), shape.len());
        assert_eq!(nodes[0]["parent"], -1);
        assert!(nodes[1]["at"].as_str().unwrap().contains("crowd.ron:"));
        assert!(page.contains(&base64(&recording.to_bytes())));
        for external in ["src=\"http", "href=\"http", "<link", "@import"] {
            assert!(!page.contains(external), "{external}");
        }
        assert!(!page.contains("{{"), "every placeholder is filled");
        assert!(!page.contains("@include"), "every part of the script is in");
        assert!(page.contains("function layoutTree") && page.contains("function startLive"));
    }

    #[test]
    fn no_name_can_end_the_script_element() {
        let names = serde_json::json!([{"name": "<!--<script>", "path": "</script><b>x\u{2028}"}]);
        let json = script_json(&names);
        assert!(!json.contains('<') && !json.contains('\u{2028}'), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, names);
    }

    #[test]
    fn placeholders_are_filled_once() {
        let out = fill("a{{X}}b{{Y}}c", |n| format!("<{{{{{n}}}}}>"));
        assert_eq!(out, "a<{{X}}>b<{{Y}}>c");
    }
}
