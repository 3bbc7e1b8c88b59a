//! `treebeard nodes`: the node kinds and the registered leaves.

use std::fmt::Write;
use treebeard_shape::{Kind, KindParam, KindParamType, LeafCatalog, ParamValue};

/// What a registered name is: its leaf kind, or `Scope` for a scope's hooks.
fn kind_name(schema: &treebeard_shape::LeafSchema) -> &'static str {
    if schema.scope {
        Kind::Scope.name()
    } else {
        schema.kind.name()
    }
}

/// A decider kind's children as text: `1`, `1..`.
fn children(kind: Kind) -> String {
    let (min, max) = kind.children();
    if min == max {
        min.to_string()
    } else if max >= u32::from(u16::MAX) {
        format!("{min}..")
    } else {
        format!("{min}..{max}")
    }
}

/// A built-in kind's parameter as the listing shows it: `name: type`, and
/// its default.
fn kind_param(p: &KindParam) -> String {
    match (p.default, p.ty) {
        (Some(d), KindParamType::Flag) => format!("{}: {} = {}", p.name, p.ty.name(), d != 0),
        (Some(d), _) => format!("{}: {} = {d}", p.name, p.ty.name()),
        (None, _) => format!("{}: {}", p.name, p.ty.name()),
    }
}

fn default_text(v: &Option<ParamValue>) -> Option<String> {
    v.as_ref().map(ToString::to_string)
}

/// The listing as text.
pub fn text(leaves: &dyn LeafCatalog) -> String {
    let mut out = String::from("Built-in nodes (children):\n");
    for &kind in Kind::ALL.iter().filter(|k| k.is_decider()) {
        let params: Vec<String> = kind.params().iter().map(kind_param).collect();
        let params = if params.is_empty() {
            String::new()
        } else {
            format!("({}) ", params.join(", "))
        };
        let _ = writeln!(
            out,
            "  {:<18} {:<4} {params}{}",
            kind.name(),
            children(kind),
            kind.doc()
        );
    }
    out.push_str("\nLeaves:\n");
    for name in leaves.names() {
        let Some(schema) = leaves.leaf(name) else {
            continue;
        };
        let params: Vec<String> = schema
            .params
            .iter()
            .map(|p| match default_text(&p.default) {
                Some(d) => format!("{}: {} = {d}", p.name, p.ty),
                None => format!("{}: {}", p.name, p.ty),
            })
            .collect();
        let _ = writeln!(
            out,
            "  {:<10} {:<9} ({}){}  {}",
            name,
            kind_name(schema),
            params.join(", "),
            if schema.persistent {
                " [persistent]"
            } else {
                ""
            },
            schema.description
        );
    }
    out
}

/// The listing as JSON: `{"deciders": [...], "leaves": [...]}`.
pub fn json(leaves: &dyn LeafCatalog) -> String {
    let deciders: Vec<serde_json::Value> = Kind::ALL
        .iter()
        .filter(|k| k.is_decider())
        .map(|&k| {
            let (min, max) = k.children();
            let params: Vec<serde_json::Value> = k
                .params()
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "name": p.name,
                        "type": p.ty.name(),
                        "default": p.default,
                    })
                })
                .collect();
            serde_json::json!({
                "name": k.name(),
                "min_children": min,
                "max_children": max,
                "params": params,
                "doc": k.doc(),
            })
        })
        .collect();
    let leaf_list: Vec<serde_json::Value> = leaves
        .names()
        .into_iter()
        .filter_map(|name| {
            let schema = leaves.leaf(name)?;
            let params: Vec<serde_json::Value> = schema
                .params
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "name": &*p.name,
                        "type": p.ty.to_string(),
                        "default": default_text(&p.default),
                    })
                })
                .collect();
            Some(serde_json::json!({
                "name": name,
                "kind": kind_name(schema),
                "params": params,
                "persistent": schema.persistent,
                "memory_words": schema.memory,
                "never_fails": schema.never_fails,
                "description": &*schema.description,
            }))
        })
        .collect();
    let doc = serde_json::json!({ "deciders": deciders, "leaves": leaf_list });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
