// Part of view.js: following a running game (crates/view/src/live.rs).
// crates/view's page.rs puts it into view.js's closure, at the line that
// names this file, so it shares that closure's names (ticks,
// base, render, setTick, ...).
  // --- Live: following a running game (crates/view/src/live.rs) ----------
  // The server sends each new tick as an event (its ordinal the event id);
  // the page keeps at most LIVE.history bytes of ticks, follows the newest
  // unless paused, and rewinds through what it kept. A page that missed
  // ticks (it reconnected too late) or whose game forgot its ticks loads
  // itself again.
  if (LIVE) startLive();
  function startLive() {
    const button = $("live");
    button.hidden = false;
    let following = true, connected = false;
    let kept = ticks.reduce((sum, t) => sum + t.bytes, 0);
    const decode = (text) => {
      const raw = atob(text), out = new Uint8Array(raw.length);
      for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
      return out;
    };
    function show() {
      const behind = ticks.length - 1 - cur.tick;
      button.textContent = !connected ? "○ reconnecting" : following ? "● live" : `❚❚ paused · ${behind} newer`;
      button.dataset.following = following ? "1" : "0";
      button.title = following ? "Following the game: click (or space) to pause" : "Click (or space) to catch up with the game";
    }
    function follow(on) {
      following = on;
      if (on) setTick(ticks.length - 1);
      show();
    }
    live.follow = follow;
    live.following = () => following;
    function append(t) {
      ticks.push(t);
      indexNotes(t, base + ticks.length - 1);
      const newAgents = indexAgents(t);
      kept += t.bytes;
      while (kept > LIVE.history && ticks.length > 1) {
        const old = ticks.shift();
        kept -= old.bytes;
        for (const n of old.notes) notesOf.get(n.agent).shift();
        base++;
        if (cur.tick > 0) cur.tick--;
      }
      slider.max = ticks.length - 1;
      if (following) setTick(ticks.length - 1); else render();
      if (newAgents) renderList();
      show();
      live.received++;
      if (live.onTick) live.onTick();
    }
    const source = new EventSource(LIVE.events + (LIVE.after === null ? "" : `?after=${LIVE.after}`));
    live.source = source;
    source.addEventListener("tick", (ev) => {
      const ord = +ev.lastEventId;
      const expected = base + ticks.length;
      if (ord < expected) return; // already here
      if (ord > expected && ticks.length) { location.reload(); return; }
      if (!ticks.length) base = ord;
      const bytes = decode(ev.data);
      append(readTick(new DataView(bytes.buffer), bytes, 0)[0]);
    });
    source.addEventListener("names", (ev) => {
      const bytes = decode(ev.data);
      names = readNames(new DataView(bytes.buffer), bytes, 0);
      renderList();
    });
    source.addEventListener("restart", () => location.reload());
    source.onopen = () => { connected = true; show(); };
    source.onerror = () => { connected = false; show(); };
    button.addEventListener("click", () => follow(!following));
    // Any move through time pauses; the button catches up again.
    for (const id of ["back", "fwd", "play"]) $(id).addEventListener("click", () => follow(false));
    slider.addEventListener("input", () => { if (+slider.value !== ticks.length - 1) follow(false); });
    follow(true);
    if (hash.has("livecheck")) liveCheck(+hash.get("livecheck") || 5);
  }
  // #livecheck=N, for the end-to-end test: follows N live ticks, pauses
  // and waits for N more, rewinds to the oldest kept tick, catches up,
  // then writes what it saw into a pre element, #livecheck, and disconnects.
  // Driven by the ticks themselves, not by timers: a headless browser's
  // virtual time stands still while the event stream is open.
  function liveCheck(n) {
    const lines = [];
    const frame = () => ticks[cur.tick].index;
    const newest = () => ticks[ticks.length - 1].index;
    const following = () => (live.following() ? 1 : 0);
    let paused = -1, at = 0;
    live.onTick = () => {
      if (paused < 0 && live.received >= n) {
        lines.push(`followed ${live.received} ${frame()} ${newest()} ${following()}`);
        $("live").click();
        paused = frame();
        at = live.received;
      } else if (paused >= 0 && live.received >= at + n) {
        live.onTick = null;
        lines.push(`paused ${paused} ${frame()} ${newest()} ${following()}`);
        slider.value = 0;
        slider.dispatchEvent(new Event("input"));
        lines.push(`rewound ${frame()} ${ticks[0].index} ${following()}`);
        $("live").click();
        lines.push(`caught-up ${frame()} ${newest()} ${following()}`);
        live.source.close();
        const pre = document.createElement("pre");
        pre.id = "livecheck";
        pre.textContent = lines.join("\n");
        document.body.appendChild(pre);
      }
    };
  }
