//! `LogCrate`: node log messages forwarded to the `log` crate, caught by a
//! tiny test logger. Built with the `log` feature only (`cargo test -p
//! treebeard-vm --features log --test log_crate`); the logger is
//! process-wide, so this file is its own test binary with one test.

use std::sync::Mutex;
use treebeard_shape::LogEvent;
use treebeard_shape::tree::{act, cond, sequence};
use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, LogCrate, Logs, Status};

/// What the test logger caught: (target, level, text).
static CAUGHT: Mutex<Vec<(String, log::Level, String)>> = Mutex::new(Vec::new());

struct TestLogger;

impl log::Log for TestLogger {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &log::Record<'_>) {
        let caught = (
            record.target().to_owned(),
            record.level(),
            record.args().to_string(),
        );
        CAUGHT.lock().unwrap().push(caught);
    }

    fn flush(&self) {}
}

static LOGGER: TestLogger = TestLogger;

fn take() -> Vec<(String, log::Level, String)> {
    std::mem::take(&mut *CAUGHT.lock().unwrap())
}

#[test]
fn records_reach_the_log_crate_at_their_levels_and_target() {
    log::set_logger(&LOGGER).unwrap();
    log::set_max_level(log::LevelFilter::Trace);

    let mut leaves = Leaves::<bool>::new();
    leaves.condition("ready", |ready, _| *ready);
    leaves.action("Rest", |_, _| Status::Success);
    let program = leaves
        .compile(
            &sequence([
                cond("ready").log(LogEvent::Failure, "not ready"),
                act("Rest")
                    .log(LogEvent::Start, "resting")
                    .log(LogEvent::Success, "rested"),
            ])
            .named("nap"),
        )
        .unwrap();
    let mut actor = Actor::for_shape(program.shape());
    let mut interpreter = Interpreter::new();
    let mut requests = Vec::new();
    let mut tick = |logs: &mut Logs<LogCrate>, ready: &mut bool, frame: &Frame| {
        interpreter.tick_observed(
            &program,
            frame,
            AgentId(3),
            &mut actor.as_mut(),
            ready,
            &mut requests,
            logs,
        )
    };

    // Defaults: target treebeard, info for start and success.
    let mut logs = Logs::new(program.shape(), LogCrate::new());
    let frame = Frame::default();
    assert_eq!(tick(&mut logs, &mut true, &frame), Status::Success);
    let target = || "treebeard".to_owned();
    assert_eq!(
        take(),
        [
            (
                target(),
                log::Level::Info,
                "agent 3 frame 0 nap/Rest start: resting".to_owned()
            ),
            (
                target(),
                log::Level::Info,
                "agent 3 frame 0 nap/Rest success: rested".to_owned()
            ),
        ]
    );
    // Failure at warn by default.
    let frame = frame.next(0.1);
    assert_eq!(tick(&mut logs, &mut false, &frame), Status::Failure);
    assert_eq!(
        take(),
        [(
            target(),
            log::Level::Warn,
            "agent 3 frame 1 nap/ready failure: not ready".to_owned()
        )]
    );
    // Configured: another target, failure at error.
    let sink = LogCrate::new()
        .target("ai")
        .level(LogEvent::Failure, log::Level::Error);
    let mut logs = Logs::new(program.shape(), sink);
    let frame = frame.next(0.1);
    assert_eq!(tick(&mut logs, &mut false, &frame), Status::Failure);
    assert_eq!(
        take(),
        [(
            "ai".to_owned(),
            log::Level::Error,
            "agent 3 frame 2 nap/ready failure: not ready".to_owned()
        )]
    );
}
