//! `treebeard export --btcpp` over the corpus: every scenario's tree is
//! written as BT.CPP XML (treebeard's own kinds and declarations in its
//! extension elements), and loading that file back (against the same
//! leaves, with the same options) gives the same shape, behaviour hash for
//! behaviour hash, with the same node names.

use std::path::Path;
use treebeard_load::xml::export;
use treebeard_load::{LoadOptions, load_str};
use treebeard_scenario::{PrepareOptions, leaves, prepare, scenario_files};

#[test]
fn every_tree_round_trips_through_its_xml() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios");
    let options = PrepareOptions {
        root: dir.parent().map(Path::to_path_buf),
        ..PrepareOptions::default()
    };
    let (mut written, mut btcpp) = (0, 0);
    for path in scenario_files(&dir).expect("the corpus is readable") {
        let Ok(prepared) = prepare(&path, &options) else {
            continue;
        };
        let name = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let s = &prepared.scenario;
        let shape = prepared.program.shape();
        let from_btcpp = std::fs::read_to_string(&path)
            .is_ok_and(|text| text.contains(".xml\"") && text.contains("btcpp"));
        btcpp += usize::from(from_btcpp);
        let xml = export::btcpp(shape, "Main")
            .unwrap_or_else(|nodes| panic!("{name}: a tree that cannot be written: {}", nodes[0]));
        #[allow(unused_mut)]
        let mut catalog = leaves::builtin(&s.keys, &s.events);
        // The Lua nodes are the leaves of that name in BT.CPP XML.
        #[cfg(feature = "lua")]
        if s.lua {
            treebeard_lua::register(&mut catalog);
        }
        let load_options = LoadOptions {
            stub_unknown: s.stub_unknown,
            compat: s.compat,
            stub_status: s.stub_status.unwrap_or_default(),
            ..LoadOptions::default()
        };
        let load = load_str("export.xml", &xml, &catalog, &load_options);
        let loaded = load.loaded.unwrap_or_else(|| {
            panic!(
                "{name}: the export does not load:\n{}\n{xml}",
                load.diagnostics.render(&load.map, false)
            )
        });
        assert_eq!(
            loaded.shape.behavior_hash(),
            shape.behavior_hash(),
            "{name}: the export loads as another shape:\n{xml}"
        );
        // Names too, which the hash leaves out (the root's is its tree's).
        for i in 1..shape.len() as u32 {
            let node = treebeard_shape::NodeIdx::new(i);
            assert_eq!(
                loaded.shape.node(node).name,
                shape.node(node).name,
                "{name}: item {i}'s name"
            );
        }
        written += 1;
    }
    eprintln!("{written} trees written and loaded back ({btcpp} from BT.CPP files)");
    assert!(btcpp >= 10, "the corpus has BT.CPP trees ({btcpp})");
    assert!(written > 100, "the corpus has its trees ({written})");
}
