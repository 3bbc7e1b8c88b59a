use super::*;
use crate::Observer;
use crate::blackboard::Value;
use crate::frame::Frame;
use crate::leaves::Leaves;
use crate::status::Status;
use treebeard_shape::tree::{act, cond, sequence};

fn shape(leaves: usize) -> Shape {
    let mut l = Leaves::<u32>::new();
    l.condition("ready", |n, _| *n > 0);
    l.action("Step", |_, _| Status::Success);
    let mut children = vec![cond("ready")];
    children.extend((1..leaves).map(|_| act("Step")));
    (**l.compile(&sequence(children)).unwrap().shape()).clone()
}

/// Records `ticks` ticks of `agents`, each agent's nodes `0..=k % n` in
/// states cycling through 1 to 4.
/// Records `ticks` more frames, after those recorded, of `agents`.
fn record(recorder: &mut Recorder, ticks: u64, agents: &[u32]) {
    let n = recorder.shape().len() as u32;
    let from = recorder.ticks.back().map_or(0, |t| t.index + 1);
    for t in from..from + ticks {
        let frame = Frame {
            index: t,
            time: t as f64 * 0.1,
            dt: 0.1,
        };
        for &a in agents {
            recorder.begin_agent(AgentId(a), &frame);
            for node in 0..=(a + t as u32) % n {
                recorder.push_state(NodeIdx::new(node), (1 + (node + a) % 4) as u8);
            }
        }
    }
}

#[test]
fn a_recording_reads_back_as_written() {
    let mut recorder = Recorder::new(&shape(4), DEFAULT_BUDGET);
    record(&mut recorder, 3, &[0, 1, 2, 3]);
    record(&mut recorder, 2, &[1, 7, 9]);
    assert!(recorder.annotate(AgentId(7), Some(NodeIdx::new(2)), "wants the door ✓"));
    assert!(recorder.annotate(AgentId(9), None, "idle"));
    assert!(!recorder.annotate(AgentId(9), Some(NodeIdx::new(99)), "no such node"));
    let mut bytes = Vec::new();
    recorder.write_to(&mut bytes).unwrap();
    // The value columns and the names blocks hold their two counts, and
    // no column, no name.
    assert_eq!(
        bytes.len(),
        format::HEADER + tick::pad4(recorder.shape_bytes().len()) + 8 + recorder.bytes() + 8
    );
    let read = Recording::read_from(&bytes).unwrap();
    assert_eq!(read, recorder.recording());
    assert_eq!(read.to_bytes(), bytes);
    assert_eq!(read.len(), 5);
    assert_eq!(read.agents(), [0, 1, 2, 3, 7, 9].map(AgentId));
    // The first ticks' agents are a range, the last ones a list.
    assert!(!read.ticks[0].listed() && read.ticks[4].listed());
    let last = read.tick(4).unwrap();
    assert_eq!(last.index(), 4);
    assert_eq!(last.agents().collect::<Vec<_>>(), [1, 7, 9].map(AgentId));
    assert!(last.has(AgentId(7)) && !last.has(AgentId(2)));
    let notes: Vec<_> = last.notes().collect();
    assert_eq!(
        notes[0],
        Note {
            agent: AgentId(7),
            node: Some(NodeIdx::new(2)),
            text: "wants the door ✓"
        }
    );
    assert_eq!(
        notes[1],
        Note {
            agent: AgentId(9),
            node: None,
            text: "idle"
        }
    );
    // Agent 7 at frame 4 (5 nodes): nodes 0..=(11 % 5), in states
    // 1 + (node + 7) % 4.
    let entries: Vec<_> = read.ticks[4].entries(2, 1).collect();
    let expected = [(0, 4), (1, 1)].map(|(n, s)| (NodeIdx::new(n), s));
    assert_eq!(entries, expected);
}

#[test]
fn agents_ticked_again_in_the_same_frame_start_a_new_tick() {
    let mut recorder = Recorder::new(&shape(2), DEFAULT_BUDGET);
    let frame = Frame::default();
    for _ in 0..3 {
        recorder.begin_agent(AgentId(0), &frame);
        recorder.push_state(NodeIdx::new(0), 1);
    }
    assert_eq!(recorder.len(), 3);
}

#[test]
fn the_cost_per_agent_tick_is_four_bytes_and_two_per_node() {
    let mut recorder = Recorder::new(&shape(4), DEFAULT_BUDGET);
    // Agents 0..4 at frame 0 (5 nodes) store 1, 2, 3, 4 entries: 4 × 4 + 2 × 10.
    record(&mut recorder, 1, &[0, 1, 2, 3]);
    assert_eq!(recorder.bytes_per_agent_tick(), 36.0 / 4.0);
    assert_eq!(recorder.bytes(), 40 + 36);
    // Listed agents add their ids: agents 0 and 2 store 1 and 3 entries.
    let mut recorder = Recorder::new(&shape(4), DEFAULT_BUDGET);
    record(&mut recorder, 1, &[0, 2]);
    assert_eq!(
        recorder.bytes_per_agent_tick(),
        (8.0 + 8.0 + 2.0 * 4.0) / 2.0
    );
}

#[test]
// Safe code over many nodes or bytes: minutes under Miri, which is
// here for the interpreter's `unsafe`.
#[cfg_attr(miri, ignore)]
fn the_ring_drops_whole_old_ticks_and_reuses_their_buffers() {
    let mut recorder = Recorder::new(&shape(4), 1000);
    let agents: Vec<u32> = (0..8).collect();
    record(&mut recorder, 50, &agents);
    // Closed ticks stay within the budget; the open one is on top.
    assert!(recorder.closed_bytes <= 1000, "{}", recorder.closed_bytes);
    let held = recorder.len() as u64;
    assert_eq!(recorder.dropped_ticks() + held, 50);
    let recording = recorder.recording();
    assert_eq!(recording.tick(0).unwrap().index(), 50 - held);
    assert_eq!(recording.dropped_ticks(), 50 - held);
    // In steady state, a tick takes a dropped tick's buffers.
    assert!(recorder.spare.len() <= 1);
    let capacity = |r: &Recorder| {
        r.ticks
            .iter()
            .map(|t| t.ends.capacity() + t.entries.capacity())
            .sum::<usize>()
    };
    let before = capacity(&recorder);
    record(&mut recorder, 20, &agents);
    assert!(capacity(&recorder) <= before + 64, "buffers are reused");
    // Reading it back gives the same.
    let read = Recording::read_from(&recorder.recording().to_bytes()).unwrap();
    assert_eq!(read, recorder.recording());
}

#[test]
// Safe code over many nodes or bytes: minutes under Miri, which is
// here for the interpreter's `unsafe`.
#[cfg_attr(miri, ignore)]
fn a_shape_of_many_nodes_uses_four_byte_entries() {
    let mut recorder = Recorder::new(&shape(9000), DEFAULT_BUDGET);
    recorder.begin_agent(AgentId(0), &Frame::default());
    recorder.push_state(NodeIdx::new(0), 1);
    recorder.push_state(NodeIdx::new(8999), 2);
    let read = Recording::read_from(&recorder.recording().to_bytes()).unwrap();
    assert_eq!(read.entry_width(), 4);
    let entries: Vec<_> = read.ticks[0].entries(4, 0).collect();
    assert_eq!(entries, [(NodeIdx::new(0), 1), (NodeIdx::new(8999), 2)]);
}

fn sample() -> Vec<u8> {
    let mut recorder = Recorder::new(&shape(3), DEFAULT_BUDGET);
    record(&mut recorder, 2, &[0, 1, 2]);
    record(&mut recorder, 1, &[4, 6]);
    recorder.annotate(AgentId(4), Some(NodeIdx::new(1)), "héllo");
    recorder.name(AgentId(1), "guard ✓");
    recorder.name(AgentId(6), "Entity 6v2");
    recorder.recording().to_bytes()
}

fn error(bytes: &[u8]) -> RecordingError {
    Recording::read_from(bytes).expect_err("damaged")
}

#[test]
// Safe code over many nodes or bytes: minutes under Miri, which is
// here for the interpreter's `unsafe`.
#[cfg_attr(miri, ignore)]
fn damaged_files_are_errors_at_the_damaged_byte() {
    let good = sample();
    let mut bad = good.clone();
    bad[0] = b'X';
    assert_eq!(
        (error(&bad).offset(), error(&bad).what()),
        (0, &Unreadable::Magic)
    );
    let mut bad = good.clone();
    bad[8] = 9;
    assert_eq!(
        error(&bad).to_string(),
        "byte 8: recording format version 9 is not supported; this build reads versions 1 to 3"
    );
    let mut bad = good.clone();
    bad[12] = 3;
    assert_eq!(error(&bad).offset(), 12);
    // A damaged shape is reported at its byte in the file.
    let mut bad = good.clone();
    bad[32] ^= 0xff;
    let e = error(&bad);
    assert!(
        matches!(e.what(), Unreadable::Shape(_)) && e.offset() == 32,
        "{e}"
    );
    // The first tick's first entry, with a state of 0.
    let shape_len = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
    // The header, the shape, an empty value columns block.
    let tick0 = format::HEADER + tick::pad4(shape_len) + 8;
    let entry = tick0 + 40 + 3 * 4;
    let mut bad = good.clone();
    bad[entry] &= !7;
    assert_eq!(error(&bad).offset(), entry, "{}", error(&bad));
    // Out-of-order ends.
    let mut bad = good.clone();
    bad[tick0 + 40] = 200;
    assert!(
        matches!(error(&bad).what(), Unreadable::Ends),
        "{}",
        error(&bad)
    );
    // A byte more.
    let mut bad = good.clone();
    bad.push(0);
    assert_eq!(error(&bad).what(), &Unreadable::Trailing { bytes: 1 });
    // The names block closes the file: two counts, two names of 12 bytes
    // each, then 9 + 10 bytes of text and one of padding.
    let names = good.len() - 20 - 24 - 8;
    assert_eq!(&good[names..names + 8], &[2, 0, 0, 0, 19, 0, 0, 0]);
    // Named agents out of order.
    let mut bad = good.clone();
    bad[names + 8 + 12] = 0;
    assert_eq!(
        error(&bad).to_string(),
        format!(
            "byte {}: the named agents are not strictly ascending, or a name's text is out of place \
             (each name starts where the one before ends, and together they fill the names' text)",
            names + 8 + 12
        )
    );
    // Names laid out otherwise than the writer lays them, which would not
    // write back as read: the second name overlapping the first (starting
    // at 5, not 9), and text after the last name (a shorter last name).
    let mut bad = good.clone();
    bad[names + 8 + 16] = 5;
    assert_eq!(
        (error(&bad).offset(), error(&bad).what()),
        (names + 8 + 12, &Unreadable::Name)
    );
    let mut bad = good.clone();
    bad[names + 8 + 20] = 7;
    assert_eq!(
        (error(&bad).offset(), error(&bad).what()),
        (names + 32 + 16, &Unreadable::Name)
    );
    // A name's text inside a character (`✓` is three bytes, from 6).
    let mut bad = good.clone();
    bad[names + 8 + 8] = 7;
    assert_eq!(
        (error(&bad).offset(), error(&bad).what()),
        (names + 8, &Unreadable::Name)
    );
    // Name text that is not UTF-8.
    let mut bad = good.clone();
    bad[names + 32] = 0xff;
    assert_eq!(
        (error(&bad).offset(), error(&bad).what()),
        (names + 32, &Unreadable::NotUtf8)
    );
}

#[test]
fn agents_named_by_the_application_read_back_by_name() {
    let recording = Recording::read_from(&sample()).unwrap();
    assert_eq!(recording.name(AgentId(1)), Some("guard ✓"));
    assert_eq!(recording.name(AgentId(6)), Some("Entity 6v2"));
    assert_eq!(recording.name(AgentId(0)), None);
    assert_eq!(
        recording.names().collect::<Vec<_>>(),
        [(AgentId(1), "guard ✓"), (AgentId(6), "Entity 6v2")]
    );
    // The last name given stands; an empty one removes it.
    let mut recorder = Recorder::new(&shape(3), DEFAULT_BUDGET);
    record(&mut recorder, 1, &[0, 1, 2]);
    recorder.name(AgentId(2), "first");
    recorder.name(AgentId(0), "zero");
    recorder.name(AgentId(2), "second");
    recorder.name(AgentId(0), "");
    recorder.name(AgentId(1), "");
    assert_eq!(recorder.name_of(AgentId(2)), Some("second"));
    let read = Recording::read_from(&recorder.recording().to_bytes()).unwrap();
    assert_eq!(read.names().collect::<Vec<_>>(), [(AgentId(2), "second")]);
    // Names outlive the ring: the ticks they were given at may be gone.
    recorder.clear();
    assert_eq!(recorder.name_of(AgentId(2)), Some("second"));
}

#[test]
fn versions_1_and_2_read_and_write_back_as_they_were() {
    // A version-2 file is a version-3 file without the value columns
    // block; a version-1 file, a version-2 file without the names block.
    let mut recorder = Recorder::new(&shape(3), DEFAULT_BUDGET);
    record(&mut recorder, 2, &[0, 1, 2]);
    recorder.name(AgentId(1), "one");
    let v3 = recorder.recording().to_bytes();
    assert_eq!(v3[8], 3);
    let columns_at = format::HEADER + tick::pad4(recorder.shape_bytes().len());
    let mut v2 = v3.clone();
    v2.drain(columns_at..columns_at + 8);
    v2[8] = 2;
    let read = Recording::read_from(&v2).unwrap();
    assert_eq!((read.len(), read.names().len()), (2, 1));
    assert_eq!(read.to_bytes(), v2);
    let mut v1 = v2.clone();
    let names = 8 + 12 + 4; // counts, one name, its text padded
    v1.truncate(v1.len() - names);
    v1[8] = 1;
    let read = Recording::read_from(&v1).unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read.names().len(), 0);
    assert_eq!(read.to_bytes(), v1);
}

#[test]
// Safe code over many nodes or bytes: minutes under Miri, which is
// here for the interpreter's `unsafe`.
#[cfg_attr(miri, ignore)]
fn every_truncation_and_every_flipped_byte_is_an_error_or_a_recording_never_a_panic() {
    let good = sample();
    for len in 0..good.len() {
        let e = error(&good[..len]);
        assert!(e.offset() <= len, "{len}: {e}");
    }
    for at in 0..good.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            if let Err(e) = Recording::read_from(&bad) {
                assert!(e.offset() <= bad.len(), "{at}: {e}");
            }
        }
    }
}

#[test]
fn a_recorder_watches_the_agents_it_is_given() {
    let mut recorder = Recorder::new(&shape(2), DEFAULT_BUDGET);
    assert!(recorder.watches(AgentId(5)));
    recorder.watch_only(Some([AgentId(9), AgentId(2), AgentId(9)]));
    assert!(recorder.watches(AgentId(2)) && recorder.watches(AgentId(9)));
    assert!(!recorder.watches(AgentId(5)));
    recorder.watch_only(None::<[AgentId; 0]>);
    assert!(recorder.watches(AgentId(5)));
}

#[test]
fn a_recorder_observes_the_interpreter() {
    use crate::{Actor, Interpreter, NodeState};
    let mut leaves = Leaves::<u32>::new();
    leaves.condition("ready", |n, _| *n > 0);
    leaves.deferred("Walk");
    let program = leaves
        .compile(&sequence([cond("ready"), act("Walk")]))
        .unwrap();
    let shape = program.shape();
    let mut recorder = Recorder::new(shape, DEFAULT_BUDGET);
    let mut interpreter = Interpreter::new();
    let mut requests = Vec::new();
    let mut actors = [Actor::for_shape(shape), Actor::for_shape(shape)];
    let mut frame = Frame::default();
    recorder.watch_only(Some([AgentId(1)]));
    for _ in 0..2 {
        for (a, actor) in actors.iter_mut().enumerate() {
            let (agent, mut blackboard) = (AgentId(a as u32), a as u32);
            // Whether to observe is the caller's choice, as a crowd makes it.
            if recorder.watches(agent) {
                let observer: &mut dyn Observer = &mut recorder;
                interpreter.tick_observed(
                    &program,
                    &frame,
                    agent,
                    &mut actor.as_mut(),
                    &mut blackboard,
                    &mut requests,
                    observer,
                );
            } else {
                interpreter.tick(
                    &program,
                    &frame,
                    agent,
                    &mut actor.as_mut(),
                    &mut blackboard,
                    &mut requests,
                );
            }
        }
        frame = frame.next(0.1);
    }
    let recording = recorder.into_recording();
    assert_eq!(recording.len(), 2);
    let (ready, walk) = (shape.find("ready").unwrap(), shape.find("Walk").unwrap());
    let first = recording.tick(0).unwrap();
    assert_eq!(first.agents().collect::<Vec<_>>(), [AgentId(1)]);
    let states: Vec<_> = first.states(AgentId(1)).collect();
    assert_eq!(
        states,
        [
            (NodeIdx::ROOT, NodeState::Running),
            (ready, NodeState::Success),
            (walk, NodeState::Running)
        ]
    );
    // At the second tick the sequence resumes at Walk: the condition is not
    // visited again, so it is idle.
    let second = recording.tick(1).unwrap();
    assert_eq!(second.state(AgentId(1), ready), NodeState::Idle);
    assert_eq!(second.state(AgentId(1), walk), NodeState::Running);
    assert_eq!(
        second.state(AgentId(0), walk),
        NodeState::Idle,
        "not watched"
    );
}

#[test]
fn frames_that_go_back_or_are_not_a_time_are_errors() {
    let good = sample();
    let shape_len = u32::from_le_bytes(good[16..20].try_into().unwrap()) as usize;
    // The header, the shape, an empty value columns block.
    let tick0 = format::HEADER + tick::pad4(shape_len) + 8;
    // The first tick's time, not a number.
    let mut bad = good.clone();
    bad[tick0 + 8..tick0 + 16].copy_from_slice(&f64::NAN.to_le_bytes());
    assert_eq!(
        (error(&bad).offset(), error(&bad).what()),
        (tick0 + 8, &Unreadable::Time)
    );
    // The first tick's frame after every other: the second goes back.
    let mut bad = good.clone();
    bad[tick0..tick0 + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let e = error(&bad);
    assert!(
        matches!(
            e.what(),
            Unreadable::Backwards {
                index: _,
                after: u64::MAX
            }
        ) && e.offset() > tick0,
        "{e}"
    );
    // Or its time later than the second's.
    let mut bad = good.clone();
    bad[tick0 + 8..tick0 + 16].copy_from_slice(&1e9_f64.to_le_bytes());
    assert!(
        matches!(error(&bad).what(), Unreadable::Backwards { .. }),
        "{}",
        error(&bad)
    );
    assert!(Recording::read_from(&good).is_ok());
}

#[test]
fn a_frame_before_the_newest_begins_the_recording_anew() {
    let mut recorder = Recorder::new(&shape(3), DEFAULT_BUDGET);
    record(&mut recorder, 3, &[0, 1]);
    // A run started again: frames from 0.
    let frame = Frame::default();
    recorder.begin_agent(AgentId(0), &frame);
    recorder.push_state(NodeIdx::new(0), 1);
    assert_eq!((recorder.len(), recorder.dropped_ticks()), (1, 3));
    // A hand-made frame at no time is not recorded.
    let nan = Frame {
        index: 9,
        time: f64::NAN,
        dt: 0.1,
    };
    recorder.begin_agent(AgentId(1), &nan);
    recorder.push_state(NodeIdx::new(0), 1);
    assert_eq!(recorder.len(), 1);
    let read = Recording::read_from(&recorder.recording().to_bytes()).expect("reads back");
    assert_eq!(read, recorder.recording());
}

/// Seed 002's recorder keeps the nodes' log messages (issue 23, L13): as
/// notes at their tick, agent and node, which the viewer shows.
#[test]
fn log_messages_are_kept_as_notes_at_their_tick_and_node() {
    use crate::actor::Actor;
    use crate::interpreter::Interpreter;
    use treebeard_shape::LogEvent;
    let mut leaves = Leaves::<u32>::new();
    leaves.condition("ready", |n, _| *n > 0);
    leaves.action("Step", |_, _| Status::Running);
    let tree = sequence([
        cond("ready").log(LogEvent::Failure, "not ready yet"),
        act("Step").log(LogEvent::Start, "stepping off"),
    ]);
    let program = leaves.compile(&tree).unwrap();
    let record = |keep: bool| {
        let mut recorder = Recorder::new(program.shape(), DEFAULT_BUDGET);
        recorder.keep_logs(keep);
        let mut interpreter = Interpreter::new();
        let mut actors = [
            Actor::for_shape(program.shape()),
            Actor::for_shape(program.shape()),
        ];
        let mut frame = Frame::first(0.5);
        for t in 0..3 {
            for (i, actor) in actors.iter_mut().enumerate() {
                // Agent 1 is ready from the second tick.
                let mut ready = u32::from(i == 1 && t > 0);
                interpreter.tick_observed(
                    &program,
                    &frame,
                    AgentId(i as u32),
                    &mut actor.as_mut(),
                    &mut ready,
                    &mut Vec::new(),
                    &mut recorder,
                );
            }
            frame = frame.next(0.5);
        }
        let mut bytes = Vec::new();
        recorder.write_to(&mut bytes).unwrap();
        Recording::read_from(&bytes).unwrap()
    };
    let recording = record(true);
    let notes: Vec<(u64, u32, Option<u32>, String)> = recording
        .ticks()
        .flat_map(|t| {
            let index = t.index();
            t.notes()
                .map(move |n| {
                    (
                        index,
                        n.agent.0,
                        n.node.map(NodeIdx::get),
                        n.text.to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let not_ready = |t, a| (t, a, Some(1), "not ready yet".to_string());
    assert_eq!(
        notes,
        [
            not_ready(0, 0),
            not_ready(0, 1),
            not_ready(1, 0),
            (1, 1, Some(2), "stepping off".to_string()),
            not_ready(2, 0),
        ]
    );
    assert_eq!(
        record(false)
            .ticks()
            .map(|t| t.notes().count())
            .sum::<usize>(),
        0
    );
}

#[test]
fn a_live_feeds_pieces_assemble_into_the_file() {
    // A small budget: the oldest ticks are dropped as new ones come.
    let mut recorder = Recorder::new(&shape(4), 600);
    recorder.name(AgentId(1), "Scout");
    let (restarts, names) = (recorder.restarts(), recorder.names_changed());
    recorder.name(AgentId(1), "Scout");
    assert_eq!(
        recorder.names_changed(),
        names,
        "the same name is no change"
    );
    record(&mut recorder, 12, &[0, 1, 2]);
    assert!(recorder.tick_open());
    recorder.end_tick();
    assert!(!recorder.tick_open());
    assert_eq!(recorder.next_ordinal(), 12);
    let held = recorder.len();
    assert!(held < 12 && recorder.dropped_ticks() == 12 - held as u64);
    assert_eq!(recorder.ordinal(0), 12 - held as u64);
    // Head, ticks and names, each encoded apart, make the file.
    let mut head = Vec::new();
    recorder.encode_head(0, 0, &mut head);
    let ticks: Vec<Vec<u8>> = (0..held)
        .map(|i| {
            let mut tick = Vec::new();
            assert!(recorder.encode_tick(i, &mut tick));
            tick
        })
        .collect();
    assert!(!recorder.encode_tick(held, &mut Vec::new()));
    let mut names_block = Vec::new();
    recorder.encode_names(&mut names_block);
    let file = assemble(&head, recorder.ordinal(0), &ticks, &names_block);
    let mut written = Vec::new();
    recorder.write_to(&mut written).unwrap();
    assert_eq!(file, written);
    // Clearing restarts the feed; ordinals go on.
    recorder.clear();
    assert_eq!(recorder.restarts(), restarts + 1);
    record(&mut recorder, 1, &[0]);
    assert_eq!(recorder.ordinal(0), 12);
}

/// A blackboard with one field of each type.
#[derive(Default)]
struct Deer {
    alert: bool,
    hunger: i32,
    speed: f64,
    mood: String,
}
crate::blackboard!(Deer {
    alert,
    hunger,
    speed,
    mood
});

/// A recorder of two deer over three frames, their values recorded (the
/// second deer's only at the last frame).
fn deer_recording() -> (Recorder, Vec<Deer>) {
    use crate::Actor;
    let mut l = Leaves::<Deer>::new();
    l.condition("alert", |d, _| d.alert);
    let program = l.compile(&cond("alert")).unwrap();
    let actors = [
        Actor::for_shape(program.shape()),
        Actor::for_shape(program.shape()),
    ];
    let mut recorder = Recorder::new(program.shape(), DEFAULT_BUDGET);
    let mut deer = vec![Deer::default(), Deer::default()];
    for t in 0..3u64 {
        deer[0].hunger = 10 * t as i32;
        deer[0].speed = 0.5 * t as f64;
        deer[0].alert = t == 1;
        deer[0].mood = ["calm", "wary ✓", ""][t as usize].to_owned();
        deer[1].hunger = -1;
        let frame = Frame {
            index: t,
            time: t as f64,
            dt: 1.0,
        };
        recorder.begin_agent(AgentId(0), &frame);
        recorder.begin_agent(AgentId(1), &frame);
        recorder.record_values(|a| {
            (a.0 == 0 || t == 2).then(|| (&deer[a.index()], actors[a.index()].as_ref()))
        });
    }
    (recorder, deer)
}

#[test]
fn values_are_recorded_and_read_back() {
    let (recorder, _) = deer_recording();
    let names: Vec<&str> = recorder.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["alert", "hunger", "speed", "mood"]);
    assert!(
        recorder
            .columns()
            .iter()
            .all(|c| c.source == ValueSource::Field)
    );
    let mut bytes = Vec::new();
    recorder.write_to(&mut bytes).unwrap();
    let read = Recording::read_from(&bytes).unwrap();
    assert_eq!(read, recorder.recording());
    assert_eq!(read.to_bytes(), bytes);
    let tick = |k: usize| read.tick(k).unwrap();
    let (a, b) = (AgentId(0), AgentId(1));
    assert_eq!(tick(0).value(a, 1), Some(Value::Int(0)));
    assert_eq!(tick(1).value(a, 0), Some(Value::Bool(true)));
    assert_eq!(tick(1).value(a, 2), Some(Value::Float(0.5)));
    assert_eq!(tick(1).value(a, 3), Some(Value::Str("wary ✓")));
    assert_eq!(tick(2).value(a, 3), Some(Value::Str("")));
    // The second deer has values at the last tick only.
    assert!(!tick(1).has_values(b) && tick(1).value(b, 1).is_none());
    assert_eq!(tick(2).value(b, 1), Some(Value::Int(-1)));
    // 8 bytes per column per agent-tick, and the strings.
    assert!(recorder.bytes_per_agent_tick() > 32.0);
}

#[test]
fn damaged_values_are_errors_at_their_byte() {
    let (recorder, _) = deer_recording();
    let mut bytes = Vec::new();
    recorder.write_to(&mut bytes).unwrap();
    // The last tick's values end 8 bytes of names block before the end
    // (no names): its last row is the second deer's, `mood` last.
    let mood = bytes.len() - 8 - 8;
    let mut bad = bytes.clone();
    bad[mood + 4] = 0x7f; // a string far past the tick's text
    let err = Recording::read_from(&bad).unwrap_err();
    assert_eq!(err.offset(), mood);
    assert_eq!(err.what(), &Unreadable::Value { column: 3 });
    let mut bad = bytes.clone();
    bad[mood - 24] = 2; // `alert`, a flag, is 2
    let err = Recording::read_from(&bad).unwrap_err();
    assert_eq!(
        (err.offset(), err.what()),
        (mood - 24, &Unreadable::Value { column: 0 })
    );
    // An unknown column kind.
    let columns_at = format::HEADER + tick::pad4(recorder.shape_bytes().len()) + 8;
    let mut bad = bytes.clone();
    bad[columns_at] = 9;
    let err = Recording::read_from(&bad).unwrap_err();
    assert_eq!(
        (err.offset(), err.what()),
        (columns_at, &Unreadable::Column)
    );
    // A column's name starting a byte after the one before it ends.
    let mut bad = bytes.clone();
    bad[columns_at + 12 + 4] += 1;
    let err = Recording::read_from(&bad).unwrap_err();
    assert_eq!(
        (err.offset(), err.what()),
        (columns_at + 12, &Unreadable::Column)
    );
}

#[test]
fn tree_variables_timestamps_and_stimuli_are_values_too() {
    use crate::{Actor, Program};
    use treebeard_shape::{Declarations, Options, compile_with};
    let mut l = Leaves::<Deer>::new();
    l.condition("alert", |d, _| d.alert);
    l.event("Hit");
    let options = Options {
        declarations: Declarations::new()
            .variable("Calm", true)
            .timestamp("Damaged", "Hit")
            .stimulus("Struck", 2.0),
        ..Options::default()
    };
    let shape = compile_with(&cond("alert"), &l, &options).unwrap();
    let program = Program::link(shape, &l).unwrap();
    let mut actor = Actor::for_shape(program.shape());
    actor.as_mut().post_stimulus(0, 42, 0.0, 2.0);
    let deer = Deer::default();
    let mut recorder = Recorder::new(program.shape(), DEFAULT_BUDGET);
    for t in [1u64, 5] {
        let frame = Frame {
            index: t,
            time: t as f64,
            dt: 1.0,
        };
        recorder.begin_agent(AgentId(0), &frame);
        recorder.record_values(|_| Some((&deer, actor.as_ref())));
    }
    let columns: Vec<(&str, ValueSource)> = recorder
        .columns()
        .iter()
        .map(|c| (c.name.as_str(), c.source))
        .collect();
    assert_eq!(
        columns[4..],
        [
            ("Calm", ValueSource::Variable),
            ("Damaged", ValueSource::Timestamp),
            ("Struck", ValueSource::Stimulus)
        ]
    );
    let read = Recording::read_from(&recorder.recording().to_bytes()).unwrap();
    let (first, last) = (read.tick(0).unwrap(), read.tick(1).unwrap());
    let a = AgentId(0);
    assert_eq!(first.value(a, 4), Some(Value::Bool(true)));
    assert_eq!(first.value(a, 5), None, "never set");
    assert_eq!(first.value(a, 6), Some(Value::Int(42)), "active at 1 s");
    assert_eq!(last.value(a, 6), None, "expired at 2 s");
    assert!(last.has_values(a));
}
