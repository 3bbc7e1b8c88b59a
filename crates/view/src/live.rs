//! The viewer, live: a running game serves the viewer page on a local
//! address and streams each tick its recorder records to every page
//! watching.
//!
//! ```no_run
//! # use treebeard_shape::tree::act;
//! # use treebeard_vm::{Leaves, Recorder};
//! # let mut leaves = Leaves::<()>::new();
//! # leaves.deferred("Walk");
//! # let program = leaves.compile(&act("Walk")).unwrap();
//! use treebeard_view::live::{LiveOptions, LiveView};
//!
//! let mut recorder = Recorder::new(program.shape(), 16 << 20);
//! let mut live = LiveView::bind("127.0.0.1:8080", &recorder, "my game", LiveOptions::default())?;
//! println!("watch at http://{}/", live.local_addr());
//! loop {
//!     // crowd.tick_observed(dt, world_step, &mut recorder);
//!     live.publish(&mut recorder);
//! #   break;
//! }
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # What it serves
//! - `/`: the viewer page ([`crate::page`]) holding the ticks kept so far;
//!   its script then follows the run at `/events`;
//! - `/events`: the ticks as [server-sent events], each a tick in the
//!   recording format (base64) with its ordinal as the event id, so that a
//!   page that reconnects resumes where it stopped;
//! - `/recording.tbrec`: the ticks kept so far as a recording file.
//!
//! # What it costs the game
//! [`LiveView::publish`] encodes the ticks recorded since the last call
//! (a copy of their bytes), takes one lock, and offers them to each page's
//! queue without waiting: a page whose queue is full (a slow page, a
//! stalled network) is disconnected, and when its browser reconnects it
//! resumes from the kept ticks, or starts over if they moved past it. A
//! vanished page's connection ends on its next write. Each page has its
//! own thread; nothing a page does blocks the tick. Memory is bounded:
//! the kept ticks by [`LiveOptions::history`] bytes, each page's queue by
//! [`LiveOptions::queue`] ticks, the pages by [`LiveOptions::pages`].
//!
//! # Who can see it
//! The server binds to a loopback address (`127.0.0.1`, `::1`) unless
//! [`LiveOptions::expose`] is set: then anyone who can reach the address
//! sees the tree (its node names, files and lines), the watched agents'
//! states, names and notes, with no authentication and no encryption.
//! Expose it only on a network you trust.
//!
//! [server-sent events]: https://html.spec.whatwg.org/multipage/server-sent-events.html

use crate::page::{Page, base64};
use std::collections::VecDeque;
use std::io::{self, Write};
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;
use tiny_http::{Header, Method, Request, Response, Server};
use treebeard_vm::Recorder;
use treebeard_vm::recording::assemble;

/// How a [`LiveView`] serves.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Bytes of the newest ticks kept for new pages and for pages that
    /// rewind or reconnect (each page keeps as many).
    pub history: usize,
    /// Ticks queued per page before it counts as too slow and is
    /// disconnected.
    pub queue: usize,
    /// Pages watching at once; more are turned away (503).
    pub pages: usize,
    /// Serve on an address that is not loopback (see the [module
    /// docs](self#who-can-see-it) for what that exposes).
    pub expose: bool,
}

impl Default for LiveOptions {
    /// 16 MiB of ticks, 256 ticks queued per page, 16 pages, loopback only.
    fn default() -> LiveOptions {
        LiveOptions {
            history: 16 << 20,
            queue: 256,
            pages: 16,
            expose: false,
        }
    }
}

/// A running game's viewer, served live (see the [module docs](self)).
pub struct LiveView {
    shared: Arc<Shared>,
    server: Arc<Server>,
    thread: Option<JoinHandle<()>>,
    addr: SocketAddr,
    /// The ordinal of the next tick to send.
    next: u64,
    restarts: u64,
    names_changed: u64,
    /// The recorder's value columns when the head was last encoded.
    columns: usize,
}

/// What the game thread hands the server threads.
struct Shared {
    page: Page,
    options: LiveOptions,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The recording file's header and shape (its counts are filled in
    /// when a page is made).
    head: Vec<u8>,
    /// The newest ticks, oldest first, with their ordinals.
    ticks: VecDeque<(u64, Arc<[u8]>)>,
    tick_bytes: usize,
    /// The names block.
    names: Arc<[u8]>,
    /// Each watching page's queue.
    pages: Vec<SyncSender<Event>>,
    /// Pages disconnected for falling behind, since the start.
    dropped_pages: u64,
}

/// What a page's thread writes to its page.
#[derive(Clone)]
enum Event {
    Tick(u64, Arc<[u8]>),
    Names(Arc<[u8]>),
    /// The ticks kept were forgotten: the page loads itself again.
    Restart,
}

impl LiveView {
    /// Serves the viewer of `recorder`'s ticks, titled `title`, at `addr`
    /// (port 0 picks a free port; see [`LiveView::local_addr`]). Fails
    /// for an address that is not loopback unless `options.expose` is set,
    /// and when the address cannot be bound.
    pub fn bind(
        addr: impl ToSocketAddrs,
        recorder: &Recorder,
        title: &str,
        options: LiveOptions,
    ) -> io::Result<LiveView> {
        let addr = addr
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address to serve on"))?;
        if !addr.ip().is_loopback() && !options.expose {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{addr} is not a loopback address: serving there shows the tree and the \
                     agents' states to anyone who can reach it, unauthenticated; serve on \
                     127.0.0.1, or set LiveOptions::expose to do so on purpose"
                ),
            ));
        }
        let server = Server::http(addr).map_err(io::Error::other)?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| io::Error::other("the server has no IP address"))?;
        let mut state = State::default();
        recorder.encode_head(0, 0, &mut state.head);
        let mut names = Vec::new();
        recorder.encode_names(&mut names);
        state.names = names.into();
        let shared = Arc::new(Shared {
            page: Page::new(recorder.shape(), title),
            options,
            state: Mutex::new(state),
        });
        let server = Arc::new(server);
        let thread = {
            let (shared, server) = (Arc::clone(&shared), Arc::clone(&server));
            std::thread::Builder::new()
                .name("treebeard-live".into())
                .spawn(move || serve(&server, &shared))?
        };
        Ok(LiveView {
            shared,
            server,
            thread: Some(thread),
            addr,
            next: recorder.next_ordinal(),
            restarts: recorder.restarts(),
            names_changed: recorder.names_changed(),
            columns: recorder.columns().len(),
        })
    }

    /// The address served, with the port picked for port 0.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Sends the ticks `recorder` recorded since the last call (ending its
    /// open tick first, see [`Recorder::end_tick`]) and its agents' names
    /// if they changed, to every page watching. Call it once per frame,
    /// after the tick and the frame's notes. It never waits for a page.
    pub fn publish(&mut self, recorder: &mut Recorder) {
        if recorder.tick_open() {
            recorder.end_tick();
        }
        // The first recorded values fix the recording's value columns: the
        // file's head changes, and pages start over with it.
        let columns = recorder.columns().len() != self.columns;
        let restart = recorder.restarts() != self.restarts || columns;
        // The held ticks not sent yet (all of them after a restart).
        let first = recorder.ordinal(0);
        let from = if restart {
            0
        } else {
            usize::try_from(self.next.saturating_sub(first)).unwrap_or(usize::MAX)
        };
        let ticks: Vec<(u64, Arc<[u8]>)> = (from..recorder.len())
            .map(|i| {
                let mut bytes = Vec::new();
                recorder.encode_tick(i, &mut bytes);
                (first + i as u64, bytes.into())
            })
            .collect();
        let names = (recorder.names_changed() != self.names_changed || restart).then(|| {
            let mut bytes = Vec::new();
            recorder.encode_names(&mut bytes);
            Arc::<[u8]>::from(bytes)
        });
        self.next = recorder.next_ordinal();
        self.restarts = recorder.restarts();
        self.names_changed = recorder.names_changed();
        if ticks.is_empty() && names.is_none() && !restart {
            return;
        }
        let mut state = self.shared.lock();
        if columns {
            self.columns = recorder.columns().len();
            state.head.clear();
            recorder.encode_head(0, 0, &mut state.head);
        }
        if restart {
            state.ticks.clear();
            state.tick_bytes = 0;
            state.broadcast(&Event::Restart);
        }
        if let Some(names) = names {
            state.names = Arc::clone(&names);
            state.broadcast(&Event::Names(names));
        }
        for (ordinal, bytes) in ticks {
            state.keep(ordinal, Arc::clone(&bytes), self.shared.options.history);
            state.broadcast(&Event::Tick(ordinal, bytes));
        }
    }

    /// Pages watching now.
    pub fn pages(&self) -> usize {
        self.shared.lock().pages.len()
    }

    /// Pages disconnected so far for falling behind (each reconnects and
    /// resumes by itself).
    pub fn dropped_pages(&self) -> u64 {
        self.shared.lock().dropped_pages
    }
}

impl Drop for LiveView {
    /// Stops serving: the pages' connections end, the server thread is
    /// joined.
    fn drop(&mut self) {
        self.shared.lock().pages.clear();
        self.server.unblock();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for LiveView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveView")
            .field("addr", &self.addr)
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A page thread that panicked mid-update leaves whole values
        // behind: every field is replaced, never half-written.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl State {
    /// Keeps a tick, dropping the oldest beyond `budget` bytes (the newest
    /// is kept whatever its size).
    fn keep(&mut self, ordinal: u64, bytes: Arc<[u8]>, budget: usize) {
        self.tick_bytes += bytes.len();
        self.ticks.push_back((ordinal, bytes));
        while self.tick_bytes > budget && self.ticks.len() > 1 {
            if let Some((_, old)) = self.ticks.pop_front() {
                self.tick_bytes -= old.len();
            }
        }
    }

    /// Offers `event` to every page, disconnecting those whose queue is
    /// full or whose thread has ended.
    fn broadcast(&mut self, event: &Event) {
        let mut slow = 0;
        self.pages
            .retain(|page| match page.try_send(event.clone()) {
                Ok(()) => true,
                Err(TrySendError::Full(_)) => {
                    slow += 1;
                    false
                }
                Err(TrySendError::Disconnected(_)) => false,
            });
        self.dropped_pages += slow;
    }

    /// The kept ticks as a recording file, and the ordinal of the newest.
    fn recording(&self) -> (Vec<u8>, Option<u64>) {
        let first = self.ticks.front().map_or(0, |&(ordinal, _)| ordinal);
        let ticks: Vec<&[u8]> = self.ticks.iter().map(|(_, bytes)| &bytes[..]).collect();
        let file = assemble(&self.head, first, &ticks, &self.names);
        (file, self.ticks.back().map(|&(ordinal, _)| ordinal))
    }
}

/// The server thread: answers requests until the server is unblocked.
fn serve(server: &Server, shared: &Arc<Shared>) {
    for request in server.incoming_requests() {
        if request.method() != &Method::Get {
            let _ = request.respond(Response::from_string("only GET").with_status_code(405));
            continue;
        }
        let url = request.url().to_owned();
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        match path {
            "/" | "/index.html" => {
                let (file, newest) = shared.lock().recording();
                let live = serde_json::json!({
                    "events": "events",
                    "after": newest,
                    "history": shared.options.history,
                });
                let html = shared.page.fill(&file, Some(&live));
                let _ = request.respond(with_type(
                    Response::from_string(html),
                    "text/html; charset=utf-8",
                ));
            }
            "/recording.tbrec" => {
                let (file, _) = shared.lock().recording();
                let _ = request.respond(with_type(
                    Response::from_data(file),
                    "application/octet-stream",
                ));
            }
            "/events" => {
                let after = last_event_id(&request).or_else(|| {
                    query
                        .split('&')
                        .find_map(|kv| kv.strip_prefix("after="))
                        .and_then(|v| v.parse().ok())
                });
                watch(request, after, shared);
            }
            _ => {
                let _ = request.respond(Response::from_string("not found").with_status_code(404));
            }
        }
    }
}

fn with_type<R: io::Read>(response: Response<R>, content_type: &str) -> Response<R> {
    let header = Header::from_bytes("Content-Type", content_type).expect("an ASCII header");
    let no_store = Header::from_bytes("Cache-Control", "no-store").expect("an ASCII header");
    response.with_header(header).with_header(no_store)
}

/// The ordinal in a reconnecting page's `Last-Event-ID` header.
fn last_event_id(request: &Request) -> Option<u64> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Last-Event-ID"))
        .and_then(|h| h.value.as_str().trim().parse().ok())
}

/// Starts a page's event stream on its own thread: the kept ticks after
/// `after` (all of them without it), then each new one.
fn watch(request: Request, after: Option<u64>, shared: &Arc<Shared>) {
    let mut state = shared.lock();
    if state.pages.len() >= shared.options.pages {
        drop(state);
        let busy = format!("{} pages are watching already", shared.options.pages);
        let _ = request.respond(Response::from_string(busy).with_status_code(503));
        return;
    }
    let (sender, receiver) = mpsc::sync_channel(shared.options.queue);
    // What the page missed, from the same state the queue then follows:
    // nothing twice, nothing lost. A page whose ticks were dropped from
    // the history starts over.
    let oldest = state.ticks.front().map(|&(ordinal, _)| ordinal);
    let mut backlog: Vec<Event> = Vec::new();
    match (after, oldest) {
        (Some(after), Some(oldest)) if after + 1 < oldest => backlog.push(Event::Restart),
        _ => {
            backlog.push(Event::Names(Arc::clone(&state.names)));
            backlog.extend(
                state
                    .ticks
                    .iter()
                    .filter(|&&(ordinal, _)| after.is_none_or(|after| ordinal > after))
                    .map(|(ordinal, bytes)| Event::Tick(*ordinal, Arc::clone(bytes))),
            );
        }
    }
    state.pages.push(sender);
    drop(state);
    // HTTP/1.1 keeps the connection open after a response: the stream is
    // chunked, so that its end is seen (and the page reconnects) when the
    // server ends it. HTTP/1.0 closes the connection instead.
    let chunked = *request.http_version() >= tiny_http::HTTPVersion(1, 1);
    let spawned = std::thread::Builder::new()
        .name("treebeard-live-page".into())
        .spawn(move || {
            let mut out = Events {
                out: request.into_writer(),
                chunked,
                buf: Vec::new(),
            };
            let _ = out.stream(backlog, &receiver);
        });
    // Without a thread, the page's queue fills and is dropped.
    drop(spawned);
}

/// A page's event stream.
struct Events {
    out: Box<dyn Write + Send>,
    chunked: bool,
    /// The event being written.
    buf: Vec<u8>,
}

impl Events {
    /// Writes the response: headers, the backlog, then each queued event,
    /// until the queue is dropped (then ends the response) or the page
    /// goes away.
    fn stream(&mut self, backlog: Vec<Event>, queue: &Receiver<Event>) -> io::Result<()> {
        let encoding = if self.chunked {
            "Transfer-Encoding: chunked"
        } else {
            "Connection: close"
        };
        write!(
            self.out,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\
             {encoding}\r\n\r\n"
        )?;
        self.send(b"retry: 1000\n\n")?;
        for event in backlog {
            self.event(&event)?;
        }
        self.out.flush()?;
        loop {
            // A comment now and then finds a vanished page (its write
            // fails) and keeps proxies from closing an idle stream.
            let event = match queue.recv_timeout(Duration::from_secs(15)) {
                Ok(event) => event,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.send(b": idle\n\n")?;
                    self.out.flush()?;
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            self.event(&event)?;
            // Write what else is queued before flushing once.
            while let Ok(event) = queue.try_recv() {
                self.event(&event)?;
            }
            self.out.flush()?;
        }
        if self.chunked {
            self.out.write_all(b"0\r\n\r\n")?;
        }
        self.out.flush()
    }

    fn event(&mut self, event: &Event) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        match event {
            Event::Tick(ordinal, bytes) => {
                write!(
                    buf,
                    "id: {ordinal}\nevent: tick\ndata: {}\n\n",
                    base64(bytes)
                )?;
            }
            Event::Names(bytes) => write!(buf, "event: names\ndata: {}\n\n", base64(bytes))?,
            Event::Restart => buf.extend_from_slice(b"event: restart\ndata: \n\n"),
        }
        let sent = self.send(&buf);
        self.buf = buf;
        sent
    }

    /// `bytes` as one chunk of the response.
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.chunked {
            write!(self.out, "{:x}\r\n", bytes.len())?;
            self.out.write_all(bytes)?;
            self.out.write_all(b"\r\n")
        } else {
            self.out.write_all(bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::net::TcpStream;
    use treebeard_shape::tree::{act, cond, sequence};
    use treebeard_vm::{Actor, AgentId, Frame, Interpreter, Leaves, Program};

    /// Three agents ticking `ready → Walk`, recorded.
    struct Game {
        program: Program<u32>,
        actors: Vec<Actor>,
        frame: Frame,
        recorder: Recorder,
    }

    impl Game {
        fn new() -> Game {
            let mut leaves = Leaves::<u32>::new();
            leaves.condition("ready", |n, _| *n > 0);
            leaves.deferred("Walk");
            let program = leaves
                .compile(&sequence([cond("ready"), act("Walk")]))
                .unwrap();
            let recorder = Recorder::new(program.shape(), 1 << 20);
            let actors = (0..3).map(|_| Actor::for_shape(program.shape())).collect();
            Game {
                program,
                actors,
                frame: Frame::default(),
                recorder,
            }
        }

        /// One frame of every agent, and a note on agent 1.
        fn tick(&mut self) {
            let mut interpreter = Interpreter::new();
            let mut requests = Vec::new();
            for (i, actor) in self.actors.iter_mut().enumerate() {
                let mut blackboard = i as u32;
                interpreter.tick_observed(
                    &self.program,
                    &self.frame,
                    AgentId(i as u32),
                    &mut actor.as_mut(),
                    &mut blackboard,
                    &mut requests,
                    &mut self.recorder,
                );
            }
            self.recorder
                .annotate(AgentId(1), None, &format!("frame {}", self.frame.index));
            self.frame = self.frame.next(0.1);
        }
    }

    /// A page's event stream, read as a browser would.
    struct Page {
        lines: BufReader<TcpStream>,
    }

    impl Page {
        fn open(addr: SocketAddr, last_event_id: Option<u64>) -> Page {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            let resume =
                last_event_id.map_or(String::new(), |id| format!("Last-Event-ID: {id}\r\n"));
            write!(stream, "GET /events HTTP/1.1\r\nHost: x\r\n{resume}\r\n").unwrap();
            let mut page = Page {
                lines: BufReader::new(stream),
            };
            let status = page.line();
            assert!(status.starts_with("HTTP/1.1 200"), "{status}");
            page
        }

        fn line(&mut self) -> String {
            let mut line = String::new();
            self.lines.read_line(&mut line).expect("the stream goes on");
            line.trim_end().to_owned()
        }

        /// The next event: its name, id and data.
        fn event(&mut self) -> (String, Option<u64>, String) {
            let (mut name, mut id, mut data) = (String::new(), None, String::new());
            loop {
                let line = self.line();
                if line.is_empty() && !name.is_empty() {
                    return (name, id, data);
                }
                if let Some(v) = line.strip_prefix("event: ") {
                    name = v.to_owned();
                } else if let Some(v) = line.strip_prefix("id: ") {
                    id = v.parse().ok();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = v.to_owned();
                }
            }
        }

        /// The ordinals of the next `n` ticks (skipping other events).
        fn ticks(&mut self, n: usize) -> Vec<u64> {
            let mut out = Vec::new();
            while out.len() < n {
                if let (name, Some(id), _) = self.event()
                    && name == "tick"
                {
                    out.push(id);
                }
            }
            out
        }
    }

    /// A game with one tick published, served, and a page watching it
    /// that has read that tick.
    fn served(options: LiveOptions) -> (Game, LiveView, Page) {
        let mut game = Game::new();
        let mut live = LiveView::bind("127.0.0.1:0", &game.recorder, "t", options).unwrap();
        game.tick();
        live.publish(&mut game.recorder);
        let mut page = Page::open(live.local_addr(), None);
        wait_for_pages(&live, 1);
        assert_eq!(page.ticks(1), [0]);
        (game, live, page)
    }

    /// Waits until `live` has `n` pages (a page registers on its request).
    fn wait_for_pages(live: &LiveView, n: usize) {
        for _ in 0..2000 {
            if live.pages() == n {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{} pages, not {n}", live.pages());
    }

    #[test]
    fn only_loopback_unless_exposed_on_purpose() {
        let game = Game::new();
        let err =
            LiveView::bind("0.0.0.0:0", &game.recorder, "t", LiveOptions::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("LiveOptions::expose"), "{err}");
        let live =
            LiveView::bind("127.0.0.1:0", &game.recorder, "t", LiveOptions::default()).unwrap();
        assert!(live.local_addr().ip().is_loopback() && live.local_addr().port() != 0);
    }

    #[test]
    fn pages_get_every_tick_in_order_and_resume_after_the_last_they_saw() {
        let (mut game, mut live, mut a) = served(LiveOptions::default());
        let mut b = Page::open(live.local_addr(), None);
        wait_for_pages(&live, 2);
        for _ in 0..4 {
            game.tick();
            live.publish(&mut game.recorder);
        }
        // Both pages: the kept tick, then the four new ones.
        assert_eq!(a.ticks(4), [1, 2, 3, 4]);
        assert_eq!(b.ticks(5), [0, 1, 2, 3, 4]);
        // A page that saw tick 2 reconnects: it gets 3 and 4, then new ones.
        let mut c = Page::open(live.local_addr(), Some(2));
        wait_for_pages(&live, 3);
        game.tick();
        live.publish(&mut game.recorder);
        assert_eq!(c.ticks(3), [3, 4, 5]);
        // The page at / holds the kept ticks as a recording that reads.
        let (file, newest) = live.shared.lock().recording();
        assert_eq!(newest, Some(5));
        let recording = treebeard_vm::Recording::read_from(&file).unwrap();
        assert_eq!(recording.len(), 6);
        assert_eq!(
            recording.tick(5).unwrap().notes().next().unwrap().text,
            "frame 5"
        );
    }

    #[test]
    fn a_page_that_does_not_read_is_dropped_without_holding_the_game_up() {
        let mut game = Game::new();
        let options = LiveOptions {
            queue: 4,
            ..LiveOptions::default()
        };
        let mut live = LiveView::bind("127.0.0.1:0", &game.recorder, "t", options).unwrap();
        // A page that never reads, and one that does.
        let stalled = TcpStream::connect(live.local_addr()).unwrap();
        write!(&stalled, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        wait_for_pages(&live, 1);
        let mut reader = Page::open(live.local_addr(), None);
        wait_for_pages(&live, 2);
        // Big notes make big ticks: the stalled page's socket buffers
        // fill, its thread blocks writing, its queue fills.
        let big = "x".repeat(64 << 10);
        let mut got = Vec::new();
        for _ in 0..200 {
            game.tick();
            game.recorder.annotate(AgentId(0), None, &big);
            live.publish(&mut game.recorder);
            got.extend(reader.ticks(1));
        }
        assert_eq!(live.dropped_pages(), 1, "the stalled page was dropped");
        assert_eq!(live.pages(), 1);
        assert_eq!(
            got,
            (0..200).collect::<Vec<u64>>(),
            "the reading page got all"
        );
        drop(stalled);
    }

    #[test]
    fn the_stream_ends_when_the_server_stops() {
        let (_game, live, mut page) = served(LiveOptions::default());
        drop(live);
        // The last chunk: the browser sees the response end, and would
        // reconnect to a server that is gone.
        while page.line() != "0" {}
        assert_eq!(page.line(), "");
    }

    #[test]
    fn a_restart_reloads_the_pages() {
        let (mut game, mut live, mut page) = served(LiveOptions::default());
        game.recorder.clear();
        game.tick();
        live.publish(&mut game.recorder);
        assert_eq!(page.event().0, "restart");
        // A page that resumes from before what is kept starts over too.
        let mut late = Page::open(live.local_addr(), Some(0));
        assert_eq!(late.event().0, "names");
        assert_eq!(late.ticks(1), [1]);
        game.recorder.clear();
        game.tick();
        game.tick();
        live.publish(&mut game.recorder);
        let mut older = Page::open(live.local_addr(), Some(0));
        assert_eq!(older.event().0, "restart");
    }
}
