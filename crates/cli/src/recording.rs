//! Recordings on the command line: reading one, and drawing an agent's node
//! states at a tick over its tree (`treebeard svg RECORDING`).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;
use treebeard_view::svg;
use treebeard_vm::recording::MAGIC;
use treebeard_vm::{AgentId, NodeState, Recording};

/// The largest recording the command line reads: 16 times the recorder's
/// default budget (`run --record-mib`).
const MAX_RECORDING_BYTES: u64 = 1 << 30;

/// Whether `path` holds a recording (a regular file that starts with the
/// recording magic; anything else is left to the tree loader to refuse).
pub(crate) fn is_recording(path: &Path) -> bool {
    let mut head = [0u8; 8];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && &head == MAGIC
}

/// Reads the recording at `path`; what goes wrong is printed, exit status 2.
pub(crate) fn read(path: &Path) -> Result<Recording, ExitCode> {
    let bytes = treebeard_load::files::read_bytes(path, MAX_RECORDING_BYTES).map_err(|e| {
        eprintln!("error: cannot read `{}`: it {e}", path.display());
        ExitCode::from(2)
    })?;
    Recording::read_from(&bytes).map_err(|e| {
        eprintln!("error: {}: {e}", path.display());
        ExitCode::from(2)
    })
}

/// `treebeard svg RECORDING [--agent A] [--tick T] [-o FILE]`: the tree with
/// agent `A`'s node states at tick `T` (by default the last tick recorded
/// and the first agent recorded at it).
pub(crate) fn svg(
    path: &Path,
    output: Option<&Path>,
    agent: Option<u32>,
    tick: Option<u64>,
) -> ExitCode {
    let recording = match read(path) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (Some(first), Some(last)) = (recording.ticks().next(), recording.ticks().last()) else {
        eprintln!("error: {} holds no ticks", path.display());
        return ExitCode::from(2);
    };
    let at = match tick {
        None => last,
        Some(t) => match recording.ticks().find(|k| k.index() == t) {
            Some(k) => k,
            None => {
                eprintln!(
                    "error: `--tick {t}`: {} holds ticks {} to {}",
                    path.display(),
                    first.index(),
                    last.index()
                );
                return ExitCode::from(2);
            }
        },
    };
    let agent = match agent {
        Some(a) if at.has(AgentId(a)) => AgentId(a),
        Some(a) => {
            let agents: Vec<AgentId> = at.agents().collect();
            let some = match (agents.first(), agents.last()) {
                (Some(lo), Some(hi)) => format!("agents {} to {}", lo.0, hi.0),
                _ => "no agent".to_owned(),
            };
            eprintln!(
                "error: `--agent {a}`: tick {} of {} holds {some} ({} in all)",
                at.index(),
                path.display(),
                agents.len()
            );
            return ExitCode::from(2);
        }
        None => match at.agents().next() {
            Some(a) => a,
            None => {
                eprintln!(
                    "error: tick {} of {} holds no agent",
                    at.index(),
                    path.display()
                );
                return ExitCode::from(2);
            }
        },
    };
    let shape = recording.shape();
    let mut states = vec![NodeState::Idle; shape.len()];
    for (node, state) in at.states(agent) {
        if let Some(s) = states.get_mut(node.index()) {
            *s = state;
        }
    }
    let overlay = svg::Overlay {
        states: &states,
        caption: format!(
            "agent {} at tick {} ({:.3} s)",
            agent.0,
            at.index(),
            at.time()
        ),
    };
    let name = shape.node(treebeard_shape::NodeIdx::ROOT).name.to_string();
    let picture = svg::draw(shape, &name, &svg::layout(shape, false), Some(&overlay));
    match output {
        None => {
            crate::out(picture);
            ExitCode::SUCCESS
        }
        Some(out) => match std::fs::write(out, picture) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot write {}: {e}", out.display());
                ExitCode::from(2)
            }
        },
    }
}
