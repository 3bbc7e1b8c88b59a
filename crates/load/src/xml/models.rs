//! BehaviorTree.CPP's `<TreeNodesModel>`: the ports of the file's nodes, as
//! Groot2 writes them.
//!
//! ```xml
//! <TreeNodesModel>
//!   <SubTree ID="Approach">
//!     <input_port name="target" default="{goal}">where to go</input_port>
//!     <input_port name="speed" default="1.5"/>
//!   </SubTree>
//!   <Action ID="MoveBase">
//!     <input_port name="goal" type="Pose2D"/>
//!   </Action>
//! </TreeNodesModel>
//! ```
//!
//! BT.CPP's loader reads only the `<SubTree>` models: a use of the sub-tree
//! that neither passes a port the model declares nor autoremaps gets the
//! port's default, and one without a default is an error. treebeard does
//! the same (see [`SubTreeModel`]). The models of leaves, decorators and
//! controls describe what the application registers, for the editor: they
//! are read and checked for form, and change nothing.

use super::Reader;
use crate::diagnostic::Diagnostic;
use crate::document::{SubTreeModel, TreeParam};
use roxmltree::Node;
use treebeard_shape::ParamValue;

/// The model categories BT.CPP writes, besides `SubTree`.
const CATEGORIES: [&str; 4] = ["Action", "Condition", "Decorator", "Control"];

/// The port elements, by direction.
const PORTS: [&str; 3] = ["input_port", "output_port", "inout_port"];

/// Reads a `<TreeNodesModel>` section: the sub-tree models it declares.
pub(super) fn read(r: &mut Reader, section: Node) -> Vec<SubTreeModel> {
    let mut models = Vec::new();
    for model in section.children().filter(Node::is_element) {
        let category = model.tag_name().name();
        let tag = r.tag_span(model);
        if category != "SubTree" && !CATEGORIES.contains(&category) {
            r.diags.push(
                Diagnostic::warning(format!("`<{category}>` is not a node model: it is ignored"))
                    .at(tag)
                    .help("a model is <Action>, <Condition>, <Decorator>, <Control> or <SubTree>"),
            );
            continue;
        }
        let Some(id) = model.attribute("ID") else {
            r.diags.push(
                Diagnostic::error(format!("the `<{category}>` model has no `ID`"))
                    .at(tag)
                    .help(format!("write <{category} ID=\"...\">")),
            );
            continue;
        };
        let ports = ports(r, model);
        if category == "SubTree" {
            models.push(SubTreeModel {
                tree: id.into(),
                span: tag,
                ports,
            });
        }
    }
    models
}

/// The ports of one model, with their defaults.
fn ports(r: &mut Reader, model: Node) -> Vec<TreeParam> {
    let mut ports: Vec<TreeParam> = Vec::new();
    for port in model.children().filter(Node::is_element) {
        let element = port.tag_name().name();
        let span = r.tag_span(port);
        if !PORTS.contains(&element) {
            // Groot2's `<MetadataFields>` and the like.
            continue;
        }
        let Some(name) = port.attribute("name") else {
            r.diags.push(
                Diagnostic::error(format!("a `<{element}>` has no `name`"))
                    .at(span)
                    .help(format!("write <{element} name=\"...\"/>")),
            );
            continue;
        };
        if ports.iter().any(|p| &*p.name == name) {
            r.diags.push(
                Diagnostic::error(format!("the model declares port `{name}` twice"))
                    .at(span)
                    .help("port names must be unique within a model"),
            );
            continue;
        }
        ports.push(TreeParam {
            name: name.into(),
            // An empty default is none, as BT.CPP reads it.
            default: port
                .attribute("default")
                .filter(|d| !d.is_empty())
                .map(|d| ParamValue::Str(super::btcpp::port_value(name, d))),
            span,
        });
    }
    ports
}
