//! Sub-trees: inlined where they are used, with their ports remapped to
//! fields or literals, named after their use, and cycles reported.

use treebeard_load::resolve::MAX_SUBTREE_DEPTH;
use treebeard_load::{Diagnostic, Load, LoadOptions, Loaded, Loader, Severity, load_str};
use treebeard_shape::params::FIELD_REF;
use treebeard_shape::{Catalog, FieldDecl, FieldType, LeafSchema, NodeIdx, ParamType, Shape};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const HUNGER: u64 = 0;
const GOAL: u64 = 1;
const TARGET: u64 = 2;

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    c.field(FieldDecl::new("hunger", FieldType::Int))
        .field(FieldDecl::new("goal", FieldType::Str))
        .field(FieldDecl::new("target", FieldType::Str))
        .declare("enemy_visible", LeafSchema::condition())
        .declare(
            "hunger_above",
            LeafSchema::condition().param("threshold", ParamType::Input(FieldType::Int)),
        )
        .declare(
            "Patrol",
            LeafSchema::deferred().param("speed", ParamType::Float),
        )
        .declare(
            "MoveTo",
            LeafSchema::deferred().param("to", ParamType::Input(FieldType::Str)),
        )
        .declare("Say", LeafSchema::action().param("text", ParamType::Str));
    c
}

fn load(name: &str, text: &str) -> Load {
    load_str(name, text, &catalog(), &LoadOptions::default())
}

fn loaded(load: Load) -> Loaded {
    load.into_result()
        .unwrap_or_else(|report| panic!("the tree did not load:\n{report}"))
}

/// The shape without sources or file table.
fn bare(shape: &Shape) -> Shape {
    let mut parts = shape.parts().clone();
    for node in &mut parts.nodes {
        node.source = None;
    }
    parts.files.clear();
    parts.validate().expect("a shape without sources is valid")
}

/// Each node as `name:Kind` in stream order.
fn outline(shape: &Shape) -> Vec<String> {
    (0..shape.len() as u32)
        .map(|i| {
            let n = NodeIdx::new(i);
            format!("{}:{}", shape.node(n).name, shape.kind(n).name())
        })
        .collect()
}

/// The parameter words of the `nth` node named `name` (pre-order).
fn params_of<'s>(shape: &'s Shape, name: &str, nth: usize) -> &'s [u64] {
    let node = (0..shape.len() as u32)
        .map(NodeIdx::new)
        .filter(|&n| &*shape.node(n).name == name)
        .nth(nth)
        .unwrap_or_else(|| panic!("no node {name} #{nth}"));
    shape.params(node)
}

/// What an input parameter word stands for: a field, or a literal's word.
#[derive(Debug, PartialEq)]
enum Input {
    Field(u64),
    Literal(u64),
}

fn input(shape: &Shape, word: u64) -> Input {
    if word & FIELD_REF != 0 {
        Input::Field(word & !FIELD_REF)
    } else {
        Input::Literal(shape.param_table()[word as usize])
    }
}

fn string(shape: &Shape, word: u64) -> &str {
    &shape.strings()[word as usize]
}

/// The only error of a failed load.
fn only_error(load: &Load) -> &Diagnostic {
    assert!(load.loaded.is_none(), "the load should fail");
    let items = load.diagnostics.items();
    assert_eq!(
        items.len(),
        1,
        "{}",
        load.diagnostics.render(&load.map, false)
    );
    assert_eq!(items[0].severity, Severity::Error);
    &items[0]
}

/// `(location, tree, path, node type)` of a diagnostic.
fn place(load: &Load, d: &Diagnostic) -> (String, String, String, String) {
    (
        d.location(&load.map).unwrap_or_default(),
        d.tree.as_deref().unwrap_or_default().to_owned(),
        d.path.clone().unwrap_or_default(),
        d.node_type.as_deref().unwrap_or_default().to_owned(),
    )
}

fn strings(v: [&str; 4]) -> (String, String, String, String) {
    (v[0].into(), v[1].into(), v[2].into(), v[3].into())
}

// ---------------------------------------------------------------------------
// Inlining
// ---------------------------------------------------------------------------

#[test]
fn a_sub_tree_is_inlined_as_if_written_in_place() {
    let with_sub_tree = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Selector", "children": [
                {"type": "SubTree", "tree": "fight"},
                {"type": "Patrol", "params": {"speed": 1}}
            ]}},
            {"name": "fight", "root": {"type": "Sequence", "children": [
                {"type": "enemy_visible"},
                {"type": "Say", "params": {"text": "halt"}}
            ]}}
        ]}"#,
    ));
    let by_hand = loaded(load(
        "b.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Selector", "children": [
                {"type": "Sequence", "name": "fight", "children": [
                    {"type": "enemy_visible"},
                    {"type": "Say", "params": {"text": "halt"}}
                ]},
                {"type": "Patrol", "params": {"speed": 1}}
            ]}}
        ]}"#,
    ));
    assert_eq!(bare(&with_sub_tree.shape), bare(&by_hand.shape));
    assert_eq!(
        outline(&with_sub_tree.shape),
        [
            "guard:Selector",
            "fight:Sequence",
            "enemy_visible:Condition",
            "Say:Action",
            "Patrol:Deferred"
        ]
    );
}

#[test]
fn inlined_nodes_keep_where_they_were_written() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [{"type": "SubTree", "tree": "look"}]}},
  {"name": "look", "root": {"type": "enemy_visible"}}
]}"#;
    let l = loaded(load("a.json", text));
    let look = l.shape.find("look").expect("the inlined copy");
    assert_eq!(l.shape.location(look).as_deref(), Some("a.json:3:37"));
}

#[test]
fn the_main_tree_may_be_a_sub_tree_of_nothing_and_others_unused() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "enemy_visible"}},
            {"name": "unused", "root": {"type": "Teleport"}}
        ]}"#,
    ));
    // Trees that are not used are not resolved.
    assert_eq!(outline(&l.shape), ["guard:Condition"]);
}

#[test]
fn a_root_that_is_a_sub_tree_takes_the_main_trees_name() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "look"}},
            {"name": "look", "root": {"type": "enemy_visible"}}
        ]}"#,
    ));
    assert_eq!(outline(&l.shape), ["guard:Condition"]);
    assert_eq!(&*l.main, "guard");
}

#[test]
fn a_sub_tree_used_twice_is_inlined_twice() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Sequence", "children": [
                {"type": "SubTree", "tree": "go", "params": {"where": "{goal}"}},
                {"type": "SubTree", "tree": "go", "name": "back", "params": {"where": "home"}}
            ]}},
            {"name": "go", "root": {"type": "MoveTo", "params": {"to": "{where}"}}}
        ]}"#,
    ));
    let s = &l.shape;
    assert_eq!(
        outline(s),
        ["guard:Sequence", "go:Deferred", "back:Deferred"]
    );
    assert_eq!(input(s, params_of(s, "go", 0)[0]), Input::Field(GOAL));
    let Input::Literal(word) = input(s, params_of(s, "back", 0)[0]) else {
        panic!("a literal")
    };
    assert_eq!(string(s, word), "home");
    // Each copy is its own node, with its own identity.
    assert_ne!(s.node(NodeIdx::new(1)).id, s.node(NodeIdx::new(2)).id);
}

#[test]
fn a_use_may_name_and_identify_its_copy() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Sequence", "children": [
                {"type": "SubTree", "tree": "look", "name": "glance", "id": 77}
            ]}},
            {"name": "look", "root": {"type": "enemy_visible", "name": "stare"}}
        ]}"#,
    ));
    assert_eq!(outline(&l.shape), ["guard:Sequence", "glance:Condition"]);
    assert_eq!(l.shape.node(NodeIdx::new(1)).id.0, 77);
}

#[test]
fn a_copy_without_a_use_name_takes_its_roots_name() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Sequence", "children": [
                {"type": "SubTree", "tree": "look"}
            ]}},
            {"name": "look", "root": {"type": "enemy_visible", "name": "stare"}}
        ]}"#,
    ));
    assert_eq!(outline(&l.shape), ["guard:Sequence", "stare:Condition"]);
}

// ---------------------------------------------------------------------------
// Ports
// ---------------------------------------------------------------------------

#[test]
fn a_port_is_remapped_to_a_field() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "go", "params": {"where": "{target}"}}},
            {"name": "go", "params": {"where": null}, "root": {"type": "MoveTo", "params": {"to": "{where}"}}}
        ]}"#,
    ));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(TARGET)
    );
}

#[test]
fn a_port_is_remapped_to_a_literal_of_any_type() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Sequence", "children": [
                {"type": "SubTree", "tree": "eat", "params": {"at": 70, "speed": -2.5, "text": "yum"}}
            ]}},
            {"name": "eat", "root": {"type": "Sequence", "children": [
                {"type": "hunger_above", "params": {"threshold": "{at}"}},
                {"type": "Patrol", "params": {"speed": "{speed}"}},
                {"type": "Say", "params": {"text": "{text}"}}
            ]}}
        ]}"#,
    ));
    let s = &l.shape;
    assert_eq!(
        input(s, params_of(s, "hunger_above", 0)[0]),
        Input::Literal(70)
    );
    assert_eq!(params_of(s, "Patrol", 0), &[(-2.5f64).to_bits()]);
    assert_eq!(string(s, params_of(s, "Say", 0)[0]), "yum");
}

#[test]
fn a_port_a_nested_use_leaves_out_reads_the_enclosing_copys() {
    // BT.CPP's `_autoremap` through two levels: `inner`'s `{where}` is
    // what `outer`'s use passed (without `_autoremap`, the field `where`:
    // see the next test).
    let text = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <SubTree ID="Outer" where="{target}" _autoremap="true"/>
  </BehaviorTree>
  <BehaviorTree ID="Outer">
    <SubTree ID="Inner" _autoremap="true"/>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <MoveTo to="{where}"/>
  </BehaviorTree>
</root>"#;
    let l = loaded(load("a.xml", text));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(TARGET)
    );
    let literal = text.replace("{target}", "bar");
    let l = loaded(load("a.xml", &literal));
    let Input::Literal(bar) = input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]) else {
        panic!("a literal, passed by the outer use");
    };
    assert_eq!(string(&l.shape, bar), "bar");
}

#[test]
fn a_root_blackboard_entry_is_the_blackboards() {
    // BT.CPP's `@key`, the root blackboard's entry, in a port and in a
    // script: an agent has one blackboard.
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <ScriptCondition code="@hunger > 3"/>
      <MoveTo to="{@target}"/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let l = loaded(load("a.xml", text));
    assert_eq!(
        input(&l.shape, params_of(&l.shape, "MoveTo", 0)[0]),
        Input::Field(TARGET)
    );
}

#[test]
fn a_port_left_out_takes_its_default() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "roam"}},
            {"name": "roam", "params": {"speed": 1.5}, "root": {"type": "Patrol", "params": {"speed": "{speed}"}}}
        ]}"#,
    ));
    assert_eq!(l.shape.params(NodeIdx::ROOT), &[1.5f64.to_bits()]);
}

#[test]
fn a_port_given_overrides_its_default() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "roam", "params": {"speed": 4}}},
            {"name": "roam", "params": {"speed": 1.5}, "root": {"type": "Patrol", "params": {"speed": "{speed}"}}}
        ]}"#,
    ));
    assert_eq!(l.shape.params(NodeIdx::ROOT), &[4.0f64.to_bits()]);
}

#[test]
fn a_default_may_be_a_field() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "go"}},
            {"name": "go", "params": {"where": "{goal}"}, "root": {"type": "MoveTo", "params": {"to": "{where}"}}}
        ]}"#,
    ));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(GOAL)
    );
}

#[test]
fn a_required_port_left_out_is_an_error() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "go"}
  ]}},
  {"name": "go", "params": {"where": null}, "root": {"type": "MoveTo", "params": {"to": "{where}"}}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(
        d.message,
        "tree `go` needs parameter `where`, which is not given"
    );
    assert_eq!(
        place(&load, d),
        strings(["a.json:3:14", "guard", "guard/go[0]", "SubTree"])
    );
}

#[test]
fn a_required_port_may_be_written_as_unit_in_ron() {
    let text = r#"(trees: [
    (name: "guard", root: (type: "SubTree", tree: "go")),
    (name: "go", params: {"where": ()}, root: (type: "MoveTo", params: {"to": "{where}"})),
])"#;
    let load = load("a.ron", text);
    let d = only_error(&load);
    assert_eq!(
        d.message,
        "tree `go` needs parameter `where`, which is not given"
    );
    assert_eq!(d.location(&load.map).as_deref(), Some("a.ron:2:34"));
}

#[test]
fn an_unknown_port_suggests_a_declared_one() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "go", "params": {"wher": "{goal}"}}
  ]}},
  {"name": "go", "params": {"where": "{target}"}, "root": {"type": "MoveTo", "params": {"to": "{where}"}}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(d.message, "tree `go` has no parameter `wher`");
    assert_eq!(d.help.as_deref(), Some("did you mean `where`?"));
    let (location, tree, path, node_type) = place(&load, d);
    assert_eq!(
        (tree.as_str(), path.as_str(), node_type.as_str()),
        ("guard", "guard/go[0]", "SubTree")
    );
    // Underlined at the value, like a leaf's unknown parameter.
    assert_eq!(location, "a.json:3:58");
}

#[test]
fn a_tree_that_declares_no_ports_takes_any() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "go", "params": {"anything": "{goal}"}}},
            {"name": "go", "root": {"type": "MoveTo", "params": {"to": "{anything}"}}}
        ]}"#,
    ));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(GOAL)
    );
}

#[test]
fn an_unmapped_port_refers_to_the_field_of_its_name() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "SubTree", "tree": "go"}},
            {"name": "go", "root": {"type": "MoveTo", "params": {"to": "{target}"}}}
        ]}"#,
    ));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(TARGET)
    );
}

#[test]
fn an_unmapped_port_without_a_field_of_its_name_is_an_unknown_field() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "SubTree", "tree": "go"}},
  {"name": "go", "root": {"type": "MoveTo", "params": {"to": "{targt}"}}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(
        d.message,
        "parameter `to` of `MoveTo`: the blackboard has no field `targt`"
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `target`?"));
    assert_eq!(
        place(&load, d),
        strings(["a.json:3:62", "go", "guard", "MoveTo"])
    );
}

#[test]
fn nested_sub_trees_chain_their_remapping() {
    let l = loaded(load(
        "a.json",
        r#"{"trees": [
            {"name": "guard", "root": {"type": "Sequence", "children": [
                {"type": "SubTree", "tree": "hunt", "params": {"prey": "{target}", "limit": "{hunger}"}},
                {"type": "SubTree", "tree": "hunt", "params": {"prey": "rabbit", "limit": 3}}
            ]}},
            {"name": "hunt", "params": {"prey": null, "limit": null}, "root": {"type": "Sequence", "children": [
                {"type": "SubTree", "tree": "chase", "params": {"who": "{prey}", "above": "{limit}"}}
            ]}},
            {"name": "chase", "params": {"who": null, "above": 0}, "root": {"type": "Sequence", "children": [
                {"type": "hunger_above", "params": {"threshold": "{above}"}},
                {"type": "MoveTo", "params": {"to": "{who}"}}
            ]}}
        ]}"#,
    ));
    let s = &l.shape;
    assert_eq!(
        outline(s),
        [
            "guard:Sequence",
            "hunt:Sequence",
            "chase:Sequence",
            "hunger_above:Condition",
            "MoveTo:Deferred",
            "hunt:Sequence",
            "chase:Sequence",
            "hunger_above:Condition",
            "MoveTo:Deferred",
        ]
    );
    assert_eq!(
        input(s, params_of(s, "hunger_above", 0)[0]),
        Input::Field(HUNGER)
    );
    assert_eq!(input(s, params_of(s, "MoveTo", 0)[0]), Input::Field(TARGET));
    assert_eq!(
        input(s, params_of(s, "hunger_above", 1)[0]),
        Input::Literal(3)
    );
    let Input::Literal(word) = input(s, params_of(s, "MoveTo", 1)[0]) else {
        panic!("a literal")
    };
    assert_eq!(string(s, word), "rabbit");
}

#[test]
fn a_port_of_an_outer_tree_does_not_leak_into_an_inner_one() {
    // `inner` names `{where}` without being passed it: it means the field
    // `where`, not the outer tree's port of that name.
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "SubTree", "tree": "outer", "params": {"where": "{goal}"}}},
  {"name": "outer", "root": {"type": "SubTree", "tree": "inner"}},
  {"name": "inner", "root": {"type": "MoveTo", "params": {"to": "{where}"}}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(
        d.message,
        "parameter `to` of `MoveTo`: the blackboard has no field `where`"
    );
    assert_eq!(d.tree.as_deref(), Some("inner"));
}

// ---------------------------------------------------------------------------
// Errors in and about sub-trees
// ---------------------------------------------------------------------------

#[test]
fn a_missing_sub_tree_suggests_one() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [{"type": "SubTree", "tree": "lok"}]}},
  {"name": "look", "root": {"type": "enemy_visible"}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(d.message, "no tree is named `lok`");
    assert_eq!(d.help.as_deref(), Some("did you mean `look`?"));
    assert_eq!(
        place(&load, d),
        strings(["a.json:2:72", "guard", "guard/lok[0]", "SubTree"])
    );
}

#[test]
fn a_tree_that_uses_itself_is_an_error_naming_the_cycle() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "enemy_visible"},
    {"type": "SubTree", "tree": "guard"}
  ]}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(d.message, "sub-tree `guard` uses itself: guard -> guard");
    assert_eq!(
        d.help.as_deref(),
        Some("a tree cannot contain itself; break the cycle")
    );
    assert_eq!(
        place(&load, d),
        strings(["a.json:4:14", "guard", "guard/guard[1]", "SubTree"])
    );
}

#[test]
fn trees_that_use_each_other_are_an_error_naming_the_cycle() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "SubTree", "tree": "a"}},
  {"name": "a", "root": {"type": "Sequence", "children": [{"type": "SubTree", "tree": "b"}]}},
  {"name": "b", "root": {"type": "Selector", "children": [
    {"type": "enemy_visible"},
    {"type": "SubTree", "tree": "a"}
  ]}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(d.message, "sub-tree `a` uses itself: guard -> a -> b -> a");
    assert_eq!(
        place(&load, d),
        strings(["a.json:6:14", "b", "guard/b[0]/a[1]", "SubTree"])
    );
}

#[test]
fn a_cycle_used_twice_is_reported_at_each_use() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "loop"},
    {"type": "SubTree", "tree": "loop"}
  ]}},
  {"name": "loop", "root": {"type": "Inverter", "children": [{"type": "SubTree", "tree": "loop"}]}}
]}"#;
    let load = load("a.json", text);
    assert!(load.loaded.is_none());
    let paths: Vec<&str> = load
        .diagnostics
        .items()
        .iter()
        .map(|d| d.path.as_deref().unwrap_or_default())
        .collect();
    // Both uses reach the same written node.
    assert_eq!(paths, ["guard/loop[0]/loop[0]", "guard/loop[1]/loop[0]"]);
}

/// Trees `t0` .. `t{uses}`, each using the next (one per line, from line 2),
/// the last a leaf: `uses` levels of sub-trees under the main tree `t0`.
fn chain(uses: usize) -> String {
    let mut trees: Vec<String> = (0..uses)
        .map(|i| {
            format!(
                r#"{{"name": "t{i}", "root": {{"type": "Sequence", "children": [{{"type": "SubTree", "tree": "t{}"}}]}}}}"#,
                i + 1
            )
        })
        .collect();
    trees.push(format!(
        r#"{{"name": "t{uses}", "root": {{"type": "enemy_visible"}}}}"#
    ));
    format!("{{\"trees\": [\n{}\n]}}", trees.join(",\n"))
}

#[test]
fn sub_trees_nest_no_deeper_than_the_limit() {
    let load = load("chain.json", &chain(MAX_SUBTREE_DEPTH + 1));
    let d = only_error(&load);
    assert_eq!(
        d.message,
        format!("sub-trees nest deeper than {MAX_SUBTREE_DEPTH} levels")
    );
    // Reported at the use that goes one too deep: `t64` (on line 66) using
    // `t65`.
    let last = MAX_SUBTREE_DEPTH;
    let path: Vec<String> = (1..=MAX_SUBTREE_DEPTH + 1)
        .map(|i| format!("t{i}[0]"))
        .collect();
    assert_eq!(
        place(&load, d),
        (
            format!("chain.json:{}:{}", last + 2, 66 + last.to_string().len()),
            format!("t{last}"),
            format!("t0/{}", path.join("/")),
            "SubTree".to_owned(),
        )
    );
}

#[test]
fn sub_trees_nest_one_less_than_the_limit() {
    let l = loaded(load("chain.json", &chain(MAX_SUBTREE_DEPTH - 1)));
    assert_eq!(l.shape.len(), MAX_SUBTREE_DEPTH);
}

#[test]
fn sub_trees_nest_up_to_the_limit() {
    let l = loaded(load("chain.json", &chain(MAX_SUBTREE_DEPTH)));
    assert_eq!(l.shape.len(), MAX_SUBTREE_DEPTH + 1);
}

#[test]
fn many_uses_of_a_wide_sub_tree_do_not_hang() {
    // Ten levels that each use the next twice: 2^10 copies of the leaf.
    let levels = 10;
    let mut trees: Vec<String> = (0..levels)
        .map(|i| {
            format!(
                r#"{{"name": "t{i}", "root": {{"type": "Sequence", "children": [{{"type": "SubTree", "tree": "t{n}"}}, {{"type": "SubTree", "tree": "t{n}"}}]}}}}"#,
                n = i + 1
            )
        })
        .collect();
    trees.push(format!(
        r#"{{"name": "t{levels}", "root": {{"type": "enemy_visible"}}}}"#
    ));
    let text = format!("{{\"trees\": [{}]}}", trees.join(","));
    let l = loaded(load("wide.json", &text));
    assert_eq!(l.shape.len(), (1 << (levels + 1)) - 1);
}

#[test]
fn an_error_inside_a_sub_tree_names_the_sub_tree_and_the_full_path() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Selector", "children": [
    {"type": "enemy_visible"},
    {"type": "SubTree", "tree": "roam", "name": "wander"}
  ]}},
  {"name": "roam", "root": {"type": "Sequence", "children": [
    {"type": "Say", "params": {"text": "la"}},
    {"type": "Patrol", "params": {"speed": "quick"}}
  ]}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(
        d.message,
        "parameter `speed` of `Patrol`: expected float, found \"quick\""
    );
    assert_eq!(
        place(&load, d),
        strings(["a.json:8:44", "roam", "guard/wander[1]/Patrol[1]", "Patrol"])
    );
}

#[test]
fn an_unknown_node_inside_a_sub_tree_names_the_sub_tree_and_the_full_path() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "roam"}
  ]}},
  {"name": "roam", "root": {"type": "Sequence", "children": [
    {"type": "Patrl", "params": {"speed": 1}}
  ]}}
]}"#;
    let load = load("a.json", text);
    let d = only_error(&load);
    assert_eq!(d.message, "unknown node type `Patrl`");
    assert_eq!(d.help.as_deref(), Some("did you mean `Patrol`?"));
    assert_eq!(
        place(&load, d),
        strings(["a.json:6:14", "roam", "guard/roam[0]/Patrl[0]", "Patrl"])
    );
}

#[test]
fn all_errors_in_a_sub_tree_with_a_named_root_share_its_path() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "roam"}
  ]}},
  {"name": "roam", "root": {"type": "Sequence", "name": "stroll", "children": [
    {"type": "Patrl", "params": {"speed": 1}},
    {"type": "Patrol", "params": {"speed": "quick"}}
  ]}}
]}"#;
    let load = load("a.json", text);
    let paths: Vec<&str> = load
        .diagnostics
        .items()
        .iter()
        .map(|d| d.path.as_deref().unwrap_or_default())
        .collect();
    // The compiled copy is named `stroll` (as its compiler error says); the
    // resolver's error calls it `roam`.
    assert_eq!(
        paths,
        ["guard/stroll[0]/Patrl[0]", "guard/stroll[0]/Patrol[1]"]
    );
}

#[test]
fn an_error_in_a_sub_tree_used_twice_is_reported_for_each_use() {
    let text = r#"{"trees": [
  {"name": "guard", "root": {"type": "Sequence", "children": [
    {"type": "SubTree", "tree": "roam", "name": "first"},
    {"type": "SubTree", "tree": "roam", "name": "second"}
  ]}},
  {"name": "roam", "root": {"type": "Patrol"}}
]}"#;
    let load = load("a.json", text);
    assert!(load.loaded.is_none());
    let seen: Vec<(String, String, String, String)> = load
        .diagnostics
        .items()
        .iter()
        .map(|d| place(&load, d))
        .collect();
    assert_eq!(
        seen,
        [
            strings(["a.json:6:37", "roam", "guard/first[0]", "Patrol"]),
            strings(["a.json:6:37", "roam", "guard/second[1]", "Patrol"]),
        ]
    );
}

// ---------------------------------------------------------------------------
// Several files
// ---------------------------------------------------------------------------

#[test]
fn trees_in_two_files_use_each_other() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    loader.add_source(
        "guard.json",
        r#"{"trees": [{"name": "guard", "root": {"type": "Sequence", "children": [
            {"type": "SubTree", "tree": "go", "params": {"where": "{goal}"}}
        ]}}]}"#
            .into(),
        None,
    );
    loader.add_source(
        "go.ron",
        "(trees: [\n  (name: \"go\", params: {\"where\": ()}, root: (type: \"MoveTo\", params: {\"to\": \"{where}\"})),\n])".into(),
        None,
    );
    let l = loaded(loader.finish());
    assert_eq!(&*l.main, "guard");
    assert_eq!(outline(&l.shape), ["guard:Sequence", "go:Deferred"]);
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::new(1))[0]),
        Input::Field(GOAL)
    );
    // The file table names both files; the copy is placed in the second.
    let files: Vec<&str> = l.shape.files().iter().map(|f| &**f).collect();
    assert_eq!(files, ["guard.json", "go.ron"]);
    assert_eq!(
        l.shape.location(NodeIdx::new(1)).as_deref(),
        Some("go.ron:2:52")
    );
}

#[test]
fn the_first_file_chooses_the_main_tree() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    loader.add_source(
        "first.json",
        r#"{"trees": [{"name": "helper", "root": {"type": "enemy_visible"}}, {"name": "top", "root": {"type": "SubTree", "tree": "other"}}], "main": "top"}"#.into(),
        None,
    );
    loader.add_source(
        "second.json",
        r#"{"main": "other", "trees": [{"name": "other", "root": {"type": "SubTree", "tree": "helper"}}]}"#.into(),
        None,
    );
    let l = loaded(loader.finish());
    assert_eq!(&*l.main, "top");
    // The copy at the root is named after the main tree.
    assert_eq!(outline(&l.shape), ["top:Condition"]);
}

#[test]
fn an_error_in_the_second_file_is_placed_in_it() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    loader.add_source(
        "guard.json",
        r#"{"trees": [{"name": "guard", "root": {"type": "SubTree", "tree": "roam"}}]}"#.into(),
        None,
    );
    loader.add_source(
        "roam.json",
        "{\"trees\": [\n  {\"name\": \"roam\", \"root\": {\"type\": \"Patrol\", \"params\": {\"speed\": true}}}\n]}".into(),
        None,
    );
    let load = loader.finish();
    let d = only_error(&load);
    assert_eq!(
        d.message,
        "parameter `speed` of `Patrol`: expected float, found true"
    );
    assert_eq!(
        place(&load, d),
        strings(["roam.json:2:67", "roam", "guard", "Patrol"])
    );
}

#[test]
fn adding_a_file_twice_reads_it_once() {
    let catalog = catalog();
    let mut loader = Loader::new(&catalog, LoadOptions::default());
    let text = r#"{"trees": [{"name": "guard", "root": {"type": "enemy_visible"}}]}"#;
    loader.add_source("guard.json", text.into(), None);
    loader.add_source("guard.json", text.into(), None);
    let load = loader.finish();
    let report = load.diagnostics.render(&load.map, false);
    assert!(load.loaded.is_some(), "{report}");
}

/// A BT.CPP file whose `Go` sub-tree has a TreeNodesModel: `where`
/// defaults to the blackboard's `{target}`, `speed` has no default.
fn modelled(uses: &str) -> String {
    format!(
        r#"<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    {uses}
  </BehaviorTree>
  <BehaviorTree ID="Go">
    <MoveTo to="{{where}}"/>
  </BehaviorTree>
  <TreeNodesModel>
    <SubTree ID="Go">
      <input_port name="where" default="{{target}}">where to go</input_port>
      <input_port name="speed"/>
      <MetadataFields><Metadata color="blue"/></MetadataFields>
    </SubTree>
    <Action ID="MoveTo"><input_port name="to" type="int"/></Action>
  </TreeNodesModel>
</root>"#
    )
}

#[test]
fn a_sub_tree_model_gives_the_default_of_a_port_a_use_does_not_pass() {
    // BT.CPP: a port the model declares that the use leaves out is
    // remapped to its default; one the use passes keeps the use's value;
    // ports the model does not declare are passed as ever.
    let l = loaded(load(
        "a.xml",
        &modelled(r#"<SubTree ID="Go" speed="2" extra="x"/>"#),
    ));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(TARGET)
    );
    let l = loaded(load(
        "a.xml",
        &modelled(r#"<SubTree ID="Go" where="{goal}" speed="2"/>"#),
    ));
    assert_eq!(
        input(&l.shape, l.shape.params(NodeIdx::ROOT)[0]),
        Input::Field(GOAL)
    );
}

#[test]
fn a_model_port_without_a_default_must_be_passed_unless_the_use_autoremaps() {
    let text = modelled(r#"<SubTree ID="Go"/>"#);
    let loaded = load("a.xml", &text);
    let d = only_error(&loaded);
    assert_eq!(
        d.message,
        "tree `Go` needs port `speed`, which is not given"
    );
    assert_eq!(
        d.help.as_deref(),
        Some(
            "its TreeNodesModel (a.xml:11:8) declares the port without a default: \
             pass it (`speed=\"...\"`), or give the model's port a default"
        )
    );
    assert_eq!(
        place(&loaded, d),
        strings(["a.xml:3:6", "Main", "Main", "SubTree"])
    );
    // With `_autoremap`, BT.CPP checks no model: `where` is the
    // blackboard's own `where`... which this blackboard lacks.
    let text = modelled(r#"<SubTree ID="Go" _autoremap="true"/>"#);
    let loaded = load("a.xml", &text);
    assert!(
        !loaded
            .diagnostics
            .items()
            .iter()
            .any(|d| d.message.contains("needs port")),
        "{}",
        loaded.diagnostics.render(&loaded.map, false)
    );
}

#[test]
fn a_model_is_read_for_form_and_a_second_one_is_ignored_with_a_warning() {
    let text = modelled(r#"<SubTree ID="Go" speed="1"/>"#).replace(
        "</TreeNodesModel>",
        r#"  <SubTree ID="Go"><input_port name="speed" default="9"/></SubTree>
    <Action><input_port/></Action>
    <Widget ID="W"/>
  </TreeNodesModel>"#,
    );
    let loaded = load("a.xml", &text);
    let seen: Vec<String> = loaded
        .diagnostics
        .items()
        .iter()
        .map(|d| format!("{:?} {}", d.severity, d.message))
        .collect();
    assert_eq!(
        seen,
        [
            "Warning a second TreeNodesModel of sub-tree `Go` is ignored",
            "Error the `<Action>` model has no `ID`",
            "Warning `<Widget>` is not a node model: it is ignored",
        ]
    );
}
