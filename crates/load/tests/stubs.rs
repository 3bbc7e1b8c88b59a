//! Stubs never change what a tree does silently: a stubbed leaf returns
//! the status the load asks for (running by default, so a stubbed branch
//! is visibly pending), and a dialect's built-in node is never stubbed.

use treebeard_load::{Load, LoadOptions, StubStatus, load_str};
use treebeard_shape::{Catalog, Kind, NodeIdx};

fn load(name: &str, text: &str, status: Option<StubStatus>) -> Load {
    let options = LoadOptions {
        stub_unknown: status.is_some(),
        stub_status: status.unwrap_or_default(),
        ..LoadOptions::default()
    };
    load_str(name, text, &Catalog::new(), &options)
}

const FALLBACK: &str = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Fallback>
      <AlwaysFailure/>
      <MoveToGoal goal="door"/>
    </Fallback>
  </BehaviorTree>
</root>"#;

#[test]
fn a_stubbed_leaf_keeps_running_unless_told_otherwise() {
    let l = load("t.xml", FALLBACK, Some(StubStatus::default()));
    let loaded = l.loaded.as_ref().expect("loads with stubs");
    assert_eq!(loaded.stubs.len(), 1);
    assert_eq!(
        (&*loaded.stubs[0].name, loaded.stubs[0].status),
        ("MoveToGoal", StubStatus::Running)
    );
    let warning = l.diagnostics.warnings().next().expect("a warning");
    assert_eq!(
        warning.message,
        "`MoveToGoal` is not a registered leaf: stubbed, it keeps running"
    );
    // AlwaysFailure is BT.CPP's built-in, run as such: not a stub.
    assert_eq!(loaded.shape.kind(NodeIdx::new(1)), Kind::AlwaysFailure);
    for (status, does) in [
        (StubStatus::Success, "it succeeds at once"),
        (StubStatus::Failure, "it fails at once"),
    ] {
        let l = load("t.xml", FALLBACK, Some(status));
        let loaded = l.loaded.as_ref().expect("loads with stubs");
        assert_eq!(loaded.stubs[0].status, status);
        let warning = l.diagnostics.warnings().next().expect("a warning");
        assert!(warning.message.ends_with(does), "{}", warning.message);
    }
}

#[test]
fn a_built_in_treebeard_lacks_is_an_error_even_with_stubs() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <ManualSelector>
      <MoveToGoal goal="door"/>
    </ManualSelector>
  </BehaviorTree>
</root>"#;
    for stubs in [None, Some(StubStatus::Success)] {
        let l = load("t.xml", text, stubs);
        assert!(l.loaded.is_none());
        let errors: Vec<_> = l.diagnostics.errors().collect();
        let d = errors
            .iter()
            .find(|d| d.message.starts_with("`ManualSelector`"))
            .expect("the built-in's error");
        assert_eq!(
            d.message,
            "`ManualSelector` (BehaviorTree.CPP's ManualSelector control) is not supported by treebeard yet"
        );
        assert_eq!(d.location(&l.map).as_deref(), Some("t.xml:3:6"));
        assert!(
            d.help
                .as_deref()
                .is_some_and(|h| h.contains("never stubbed")),
            "{d:?}"
        );
    }
}

#[test]
fn stub_statuses_have_names() {
    for status in [
        StubStatus::Running,
        StubStatus::Success,
        StubStatus::Failure,
    ] {
        assert_eq!(StubStatus::from_name(status.name()), Some(status));
    }
    assert_eq!(StubStatus::from_name("succeed"), None);
}
