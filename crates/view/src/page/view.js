// treebeard view: reads the recording embedded in this page (the file
// format of docs/recording.md, base64) and shows one agent's node states
// at one tick. Everything is local: the page loads nothing.
"use strict";
(function () {
  const T0 = performance.now();
  const STATES = ["idle", "running", "success", "failure", "cancelled"];
  // The state colours of the page's style (crates/view/src/palette.rs):
  // each state's own, and idle's fill, for the history strip.
  const style = getComputedStyle(document.documentElement);
  const COLOURS = Object.fromEntries(STATES.map((s) =>
    [s, style.getPropertyValue(s === "idle" ? "--idle-bg" : `--${s}`).trim()]));
  const NODES = JSON.parse(document.getElementById("nodes").textContent);
  // Live settings ({events, after, history}), or null for a recording file.
  const LIVE = JSON.parse(document.getElementById("live-settings").textContent);
  const live = { received: 0 };
  const $ = (id) => document.getElementById(id);

  // --- Decode and index the recording -------------------------------------
  const b64 = $("recording").textContent.replace(/\s+/g, "");
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const T1 = performance.now();
  const buf = bytes.buffer;
  const dv = new DataView(buf);
  const version = dv.getUint32(8, true);
  const width = dv.getUint32(12, true);
  const shapeLen = dv.getUint32(16, true);
  const tickCount = dv.getUint32(20, true);
  const dropped = dv.getUint32(24, true) + dv.getUint32(28, true) * 4294967296;
  const utf8 = new TextDecoder();
  // One tick of the file format at byte p of dv: [tick, the byte after it].
  function readTick(dv, bytes, p) {
    const buf = bytes.buffer, start = p;
    const index = dv.getUint32(p, true) + dv.getUint32(p + 4, true) * 4294967296;
    const time = dv.getFloat64(p + 8, true);
    const count = dv.getUint32(p + 16, true);
    const first = dv.getUint32(p + 20, true);
    const listed = dv.getUint32(p + 24, true) & 1;
    const m = dv.getUint32(p + 28, true);
    const noteCount = dv.getUint32(p + 32, true);
    const textLen = dv.getUint32(p + 36, true);
    p += 40;
    let ids = null;
    if (listed) { ids = new Uint32Array(buf, bytes.byteOffset + p, count); p += 4 * count; }
    const ends = new Uint32Array(buf, bytes.byteOffset + p, count); p += 4 * count;
    const entries = width === 2 ? new Uint16Array(buf, bytes.byteOffset + p, m) : new Uint32Array(buf, bytes.byteOffset + p, m);
    p += (m * width + 3) & ~3;
    const notesAt = p; p += 16 * noteCount;
    const textAt = p; p += (textLen + 3) & ~3;
    // Values (version 3): which agents have them, then a row per agent,
    // read when shown (valueAt).
    let valued = null, valuesAt = 0;
    if (dv.getUint32(start + 24, true) & 2) {
      valued = new Uint32Array(buf, bytes.byteOffset + p, (count + 31) >> 5);
      p += 4 * valued.length;
      valuesAt = p;
      p += 8 * count * COLUMNS.length;
    }
    const notes = [];
    for (let j = 0; j < noteCount; j++) {
      const q = notesAt + 16 * j;
      const s = textAt + dv.getUint32(q + 8, true);
      const node = dv.getUint32(q + 4, true);
      notes.push({ agent: dv.getUint32(q, true), node: node === 0xffffffff ? -1 : node,
                   text: utf8.decode(bytes.subarray(s, s + dv.getUint32(q + 12, true))) });
    }
    const text = bytes.subarray(textAt, textAt + textLen);
    return [{ index, time, count, first, ids, ends, entries, notes, bytes: p - start, dv, valued, valuesAt, text }, p];
  }
  // The value columns block (version 3): [{name, ty, source}], ty 0 bool,
  // 1 int, 2 float, 3 str; source 0 field, 1 variable, 2 entry,
  // 3 timestamp, 4 stimulus.
  function readColumns(dv, bytes, p) {
    const count = dv.getUint32(p, true), textLen = dv.getUint32(p + 4, true);
    const at = p + 8, textAt = at + 12 * count, out = [];
    for (let j = 0; j < count; j++) {
      const q = at + 12 * j, kind = dv.getUint32(q, true), s = textAt + dv.getUint32(q + 4, true);
      out.push({ name: utf8.decode(bytes.subarray(s, s + dv.getUint32(q + 8, true))), ty: kind & 0xff, source: kind >> 8 });
    }
    return [out, textAt + ((textLen + 3) & ~3)];
  }
  // The agents' names block at byte p: agent, text start, text length.
  function readNames(dv, bytes, p) {
    const out = new Map(); // agent -> name
    const nameCount = dv.getUint32(p, true);
    const at = p + 8, textAt = at + 12 * nameCount;
    for (let j = 0; j < nameCount; j++) {
      const q = at + 12 * j, s = textAt + dv.getUint32(q + 4, true);
      out.set(dv.getUint32(q, true), utf8.decode(bytes.subarray(s, s + dv.getUint32(q + 8, true))));
    }
    return out;
  }
  let p = 32 + ((shapeLen + 3) & ~3);
  let COLUMNS = [];
  if (version >= 3) [COLUMNS, p] = readColumns(dv, bytes, p);
  const ticks = [];
  // The ordinal of ticks[0]: ticks recorded before it (dropped by the
  // recorder's budget, or, live, by the page's).
  let base = dropped;
  for (let k = 0; k < tickCount; k++) {
    const [t, next] = readTick(dv, bytes, p);
    ticks.push(t);
    p = next;
  }
  // The agents' names (version 2 on).
  let names = version >= 2 ? readNames(dv, bytes, p) : new Map();
  // "17 (Guard 12v0)" for a named agent, else "17".
  const label = (a) => names.has(a) ? `${a} (${names.get(a)})` : String(a);
  const T2 = performance.now();

  // Every agent seen, ascending, and every agent's notes.
  let maxAgent = -1;
  for (const t of ticks) {
    if (t.count === 0) continue;
    maxAgent = Math.max(maxAgent, t.ids ? t.ids[t.count - 1] : t.first + t.count - 1);
  }
  let agents;
  if (maxAgent < (1 << 24)) {
    const seen = new Uint8Array(maxAgent + 1);
    for (const t of ticks) {
      if (t.ids) for (let i = 0; i < t.count; i++) seen[t.ids[i]] = 1;
      else seen.fill(1, t.first, t.first + t.count);
    }
    const list = [];
    for (let a = 0; a <= maxAgent; a++) if (seen[a]) list.push(a);
    agents = Uint32Array.from(list);
  } else {
    const seen = new Set();
    for (const t of ticks) for (let i = 0; i < t.count; i++) seen.add(t.ids ? t.ids[i] : t.first + i);
    agents = Uint32Array.from(seen).sort();
  }
  // Notes by agent, each at its tick's ordinal (base + position), which
  // stays put when a live page forgets its oldest ticks.
  const notesOf = new Map(); // agent -> [{ord, node, text}]
  function indexNotes(t, ord) {
    for (const n of t.notes) {
      if (!notesOf.has(n.agent)) notesOf.set(n.agent, []);
      notesOf.get(n.agent).push({ ord, node: n.node, text: n.text });
    }
  }
  ticks.forEach((t, k) => indexNotes(t, base + k));
  // Adds the agents of t not seen before (a live tick's) to `agents`.
  function indexAgents(t) {
    const last = agents.length ? agents[agents.length - 1] : -1;
    const dense = agents.length && last - agents[0] + 1 === agents.length;
    if (!t.ids && dense && t.first >= agents[0] && t.first + t.count - 1 <= last) return false;
    const fresh = [];
    for (let i = 0; i < t.count; i++) {
      const a = t.ids ? t.ids[i] : t.first + i;
      let lo = 0, hi = agents.length - 1, found = false;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (agents[mid] === a) { found = true; break; }
        if (agents[mid] < a) lo = mid + 1; else hi = mid - 1;
      }
      if (!found) fresh.push(a);
    }
    if (!fresh.length) return false;
    const all = new Uint32Array(agents.length + fresh.length);
    all.set(agents);
    all.set(fresh, agents.length);
    agents = all.sort();
    return true;
  }
  const T3 = performance.now();

  // --- Lookups ------------------------------------------------------------
  function position(t, agent) {
    if (!t.ids) { const k = agent - t.first; return k >= 0 && k < t.count ? k : -1; }
    let lo = 0, hi = t.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1, v = t.ids[mid];
      if (v === agent) return mid;
      if (v < agent) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }
  // The agent's entries at tick t: [start, end) into t.entries, or null.
  function span(t, agent) {
    const k = position(t, agent);
    if (k < 0) return null;
    return [k === 0 ? 0 : t.ends[k - 1], t.ends[k]];
  }
  // The agent's state of `node` at tick t: 0 idle .. 4 cancelled, -1 not observed.
  function stateAt(t, agent, node) {
    const s = span(t, agent);
    if (!s) return -1;
    for (let i = s[0]; i < s[1]; i++) {
      const n = t.entries[i] >>> 3;
      if (n === node) return t.entries[i] & 7;
      if (n > node) break;
    }
    return 0;
  }

  // --- The drawing --------------------------------------------------------
  const tree = $("tree");
  const svg = tree.querySelector("svg");
  const groups = [];
  svg.querySelectorAll("g.node").forEach((g) => { groups[+g.dataset.node] = g; });
  const SVGNS = "http://www.w3.org/2000/svg";
  const badges = groups.map((g) => {
    const box = g.querySelector("rect, ellipse");
    const bb = box.getBBox();
    const text = document.createElementNS(SVGNS, "text");
    text.setAttribute("class", "count");
    // Above the box's right corner: the row gap has room, siblings do not.
    text.setAttribute("x", (bb.x + bb.width).toFixed(1));
    text.setAttribute("y", (bb.y - 3).toFixed(1));
    text.setAttribute("text-anchor", "end");
    g.appendChild(text);
    return text;
  });
  const shown = new Int8Array(NODES.length).fill(-1);
  let laidOut = false; // the layout's toggles exist (see "Layout" below)
  const counts = new Uint32Array(NODES.length);

  // --- State --------------------------------------------------------------
  const cur = { tick: 0, agent: agents.length ? agents[0] : 0, node: -1, plot: -1 };
  let timer = null;
  const slider = $("slider");
  slider.max = Math.max(0, ticks.length - 1);

  function setTick(k) {
    cur.tick = Math.max(0, Math.min(ticks.length - 1, k | 0));
    render();
  }
  function setAgent(a) { cur.agent = a; render(); renderList(); }
  function setNode(n) { cur.node = n; if (n >= 0) expandTo(n); render(); reveal(); }
  // Scrolls the picked node into the tree pane's view.
  function reveal() {
    if (cur.node >= 0 && !tree.classList.contains("fit")) {
      groups[cur.node].scrollIntoView({ block: "nearest", inline: "center" });
    }
  }

  function render() {
    const t = ticks[cur.tick];
    const states = new Uint8Array(NODES.length);
    const observed = t ? span(t, cur.agent) : null;
    if (observed) for (let i = observed[0]; i < observed[1]; i++) states[t.entries[i] >>> 3] = t.entries[i] & 7;
    for (let n = 0; n < NODES.length; n++) {
      if (shown[n] !== states[n]) { groups[n].dataset.state = STATES[states[n]]; shown[n] = states[n]; }
      groups[n].classList.toggle("selected", n === cur.node);
    }
    if (laidOut) markCollapsed();
    if ($("counts").checked && t) {
      counts.fill(0);
      const e = t.entries;
      for (let i = 0; i < e.length; i++) if ((e[i] & 7) === 1) counts[e[i] >>> 3]++;
      for (let n = 0; n < NODES.length; n++) {
        const text = counts[n] ? "×" + counts[n] : "";
        if (badges[n].textContent !== text) badges[n].textContent = text;
      }
    }
    slider.value = cur.tick;
    $("when").textContent = t
      ? `tick ${cur.tick + 1}/${ticks.length} · frame ${t.index} · ${t.time.toFixed(2)} s`
      : "no ticks recorded";
    const status = $("status");
    status.dataset.agent = cur.agent;
    status.dataset.tick = cur.tick;
    status.dataset.frame = t ? t.index : "";
    status.dataset.observed = observed ? "1" : "0";
    status.dataset.node = cur.node;
    renderDetails(t, observed, states);
    // Following a live game, the address leaves out the frame (which
    // changes every tick, too often for the browser's history).
    const frameNow = live.following && live.following() ? "" : `&frame=${t ? t.index : 0}`;
    const hash = `#agent=${cur.agent}${frameNow}` + (cur.node >= 0 ? `&node=${cur.node}` : "") +
      (cur.plot >= 0 ? `&plot=${cur.plot}` : "");
    if (location.hash !== hash && !benchmarking) history.replaceState(null, "", hash);
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }
  function pill(state) { return `<span class="pill" data-state="${state}">${state}</span>`; }
  function nodeLink(n) { return `<a data-goto-node="${n}">${esc(NODES[n].name)}</a>`; }

  function renderDetails(t, observed, states) {
    const d = $("details");
    let html = "";
    const notes = (notesOf.get(cur.agent) || []);
    if (cur.node < 0) {
      html += `<h2>Agent ${esc(label(cur.agent))}</h2>`;
      if (!observed) html += `<p>Not observed at this tick.</p>`;
      else {
        html += `<p>Root: ${pill(STATES[states[0]])}</p><h3>Not idle at this tick</h3><ul>`;
        for (let i = observed[0]; i < observed[1]; i++) {
          const n = t.entries[i] >>> 3;
          html += `<li>${pill(STATES[t.entries[i] & 7])} ${nodeLink(n)} <small>${esc(NODES[n].at || "")}</small></li>`;
        }
        html += `</ul>`;
      }
      html += `<p><small>Click a node to see its parameters and history.</small></p>`;
    } else {
      const node = NODES[cur.node];
      const now = observed ? STATES[states[cur.node]] : "not observed";
      html += `<h2>${esc(node.name)} <small>${esc(node.kind)}</small></h2><dl>`;
      html += `<dt>node</dt><dd>#${cur.node}</dd><dt>path</dt><dd>${esc(node.path)}</dd>`;
      html += `<dt>written at</dt><dd>${esc(node.at || "unknown")}</dd>`;
      if (node.call) html += `<dt>parameters</dt><dd>${esc(node.call)}</dd>`;
      if (node.parent >= 0) html += `<dt>parent</dt><dd>${nodeLink(node.parent)}</dd>`;
      html += `</dl><p>Agent ${esc(label(cur.agent))} now: ${observed ? pill(now) : now}</p>`;
      html += `<h3>History of agent ${esc(label(cur.agent))}</h3><canvas id="strip" height="1"></canvas>`;
      html += `<div id="history-summary"></div>`;
      html += here(t);
    }
    html += valuesHtml(t);
    const relevant = notes.filter((n) => cur.node < 0 || n.node === cur.node || n.node === -1);
    html += `<h3>Notes${cur.node >= 0 ? " on this node and agent" : ""}</h3>`;
    if (!relevant.length) html += `<p><small>None. Applications attach them with Recorder::annotate.</small></p>`;
    else {
      html += `<ul id="notes">`;
      for (const n of relevant.slice(0, 200)) {
        const k = n.ord - base;
        const here = k === cur.tick ? " <b>(this tick)</b>" : "";
        const on = n.node >= 0 ? ` on ${esc(NODES[n.node].name)}` : "";
        html += `<li><a data-goto-tick="${k}">frame ${ticks[k].index}</a>${on}${here}: ${esc(n.text)}</li>`;
      }
      if (relevant.length > 200) html += `<li>… ${relevant.length - 200} more</li>`;
      html += `</ul>`;
    }
    d.innerHTML = html;
    if (cur.node >= 0) { drawStrip(); drawCrowdStrip(); }
    if (cur.plot >= 0) drawPlot();
  }

  // --- Values: the agent's blackboard, variables, entries, timestamps and
  // stimuli (recorded with Recorder::record_values) -------------------------
  const SOURCES = ["Blackboard", "Tree variables", "Entries", "Timestamps", "Stimuli"];
  const NUMERIC = (c) => COLUMNS[c].ty === 1 || COLUMNS[c].ty === 2;
  // Agent k's value of column c at tick t: undefined when not recorded,
  // null for a timestamp never set or a stimulus not active.
  function valueAt(t, k, c) {
    if (!t.valued || k < 0 || !((t.valued[k >> 5] >>> (k & 31)) & 1)) return undefined;
    const off = t.valuesAt + 8 * (k * COLUMNS.length + c), col = COLUMNS[c], dv = t.dv;
    switch (col.ty) {
      case 0: return dv.getUint32(off, true) === 1;
      case 1: {
        const v = dv.getBigInt64(off, true);
        return col.source === 4 && v === -1n ? null : Number(v);
      }
      case 2: {
        const v = dv.getFloat64(off, true);
        return col.source === 3 && Number.isNaN(v) ? null : v;
      }
      default: {
        const len = dv.getUint32(off, true), start = dv.getUint32(off + 4, true);
        return utf8.decode(t.text.subarray(start, start + len));
      }
    }
  }
  function showValue(v, col) {
    if (v === null) return col.source === 3 ? "never" : "inactive";
    if (typeof v === "string") return JSON.stringify(v);
    if (typeof v === "number" && col.ty === 2) return String(Math.round(v * 1000) / 1000);
    return String(v);
  }
  function valuesHtml(t) {
    if (!COLUMNS.length || !t) return "";
    const k = position(t, cur.agent);
    if (valueAt(t, k, 0) === undefined) return `<h3>Values</h3><p><small>None recorded for this agent at this tick.</small></p>`;
    let html = `<h3>Values at this tick</h3><table id="values">`;
    let source = -1;
    COLUMNS.forEach((col, c) => {
      if (col.source !== source) {
        source = col.source;
        html += `<tr><th colspan="2">${SOURCES[source] || "other"}</th></tr>`;
      }
      const name = NUMERIC(c)
        ? `<a data-plot="${c}" title="Plot its history"${c === cur.plot ? ' class="current"' : ""}>${esc(col.name)}</a>`
        : esc(col.name);
      html += `<tr data-column="${c}"><td>${name}</td><td>${esc(showValue(valueAt(t, k, c), col))}</td></tr>`;
    });
    html += `</table>`;
    if (cur.plot >= 0 && cur.plot < COLUMNS.length) {
      html += `<h3>${esc(COLUMNS[cur.plot].name)} of agent ${esc(label(cur.agent))} over time</h3>`;
      html += `<canvas id="plot" height="1" title="Click to go to that tick"></canvas><div id="plot-summary"></div>`;
    }
    return html;
  }
  // The picked column's history for the picked agent: a line over the
  // ticks kept (gaps where it was not recorded), the current tick marked.
  function drawPlot() {
    const canvas = $("plot");
    if (!canvas) return;
    const n = ticks.length, c = cur.plot;
    const ys = new Float64Array(n).fill(NaN);
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < n; k++) {
      const v = valueAt(ticks[k], position(ticks[k], cur.agent), c);
      if (typeof v === "number" && Number.isFinite(v)) { ys[k] = v; lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }
    const W = Math.max(200, Math.min(2 * n, 1200)), H = 80;
    canvas.width = W;
    canvas.height = H;
    const ctx = canvas.getContext("2d");
    const x = (k) => (n <= 1 ? W / 2 : (k / (n - 1)) * (W - 1));
    const y = (v) => (hi === lo ? H / 2 : H - 4 - ((v - lo) / (hi - lo)) * (H - 8));
    ctx.strokeStyle = COLOURS.running;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let drawing = false;
    for (let k = 0; k < n; k++) {
      if (Number.isNaN(ys[k])) { drawing = false; continue; }
      if (drawing) ctx.lineTo(x(k), y(ys[k])); else ctx.moveTo(x(k), y(ys[k]));
      drawing = true;
    }
    ctx.stroke();
    ctx.fillStyle = "#1d2433";
    ctx.fillRect(Math.round(x(cur.tick)), 0, 1, H);
    canvas.onclick = (ev) => {
      const r = canvas.getBoundingClientRect();
      setTick(Math.round((ev.clientX - r.left) / r.width * (n - 1)));
    };
    const now = valueAt(ticks[cur.tick], position(ticks[cur.tick], cur.agent), c);
    $("plot-summary").innerHTML = lo <= hi
      ? `<small>now ${esc(showValue(now, COLUMNS[c]))}, from ${lo} to ${hi} over the ${n} ticks kept</small>`
      : `<small>not recorded in the ticks kept</small>`;
  }

  // --- Which agents are in the picked node ---------------------------------
  // At tick t, the agents whose state of `node` is not idle (running, or
  // finished or cancelled in this tick), by state: [[agents] per state].
  function agentsIn(t, node) {
    const by = STATES.map(() => []);
    for (let k = 0; k < t.count; k++) {
      const end = t.ends[k];
      for (let i = k === 0 ? 0 : t.ends[k - 1]; i < end; i++) {
        const n = t.entries[i] >>> 3;
        if (n === node) { by[t.entries[i] & 7].push(t.ids ? t.ids[k] : t.first + k); break; }
        if (n > node) break;
      }
    }
    return by;
  }
  // Per tick, how many agents are in the picked node in each state (a
  // Uint32Array of 5 per tick), kept across renders and extended as live
  // ticks arrive: {node, base, counts}.
  const inNode = { node: -1, base: 0, counts: [] };
  function nodeCounts() {
    if (inNode.node !== cur.node || inNode.base > base) {
      Object.assign(inNode, { node: cur.node, base, counts: [] });
    }
    inNode.counts.splice(0, base - inNode.base);
    inNode.base = base;
    for (let k = inNode.counts.length; k < ticks.length; k++) {
      const e = ticks[k].entries, c = new Uint32Array(STATES.length);
      for (let i = 0; i < e.length; i++) if (e[i] >>> 3 === cur.node) c[e[i] & 7]++;
      inNode.counts.push(c);
    }
    return inNode.counts;
  }
  const AGENTS_SHOWN = 60;
  function here(t) {
    if (!t) return "";
    const by = agentsIn(t, cur.node);
    const total = by.reduce((sum, list) => sum + list.length, 0);
    let html = `<h3>Agents in this node at this tick</h3>`;
    html += `<canvas id="crowd-strip" height="1" title="Agents in this node per tick, by state (click to go there)"></canvas>`;
    html += `<div id="crowd-summary"></div>`;
    if (!total) return html + `<p><small>None: every agent's state of it is idle.</small></p>`;
    html += `<div id="here">`;
    STATES.forEach((state, s) => {
      const list = by[s];
      if (!list.length) return;
      const shown = list.slice(0, AGENTS_SHOWN).map((a) =>
        `<a data-goto-agent="${a}"${a === cur.agent ? ' class="current"' : ""}>${esc(label(a))}</a>`).join(" ");
      const more = list.length > AGENTS_SHOWN ? ` … ${list.length - AGENTS_SHOWN} more` : "";
      html += `<p>${pill(state)} ${list.length}: ${shown}${more}</p>`;
    });
    return html + `</div>`;
  }
  // The agents in the picked node over time: a bar per tick, stacked by
  // state, scaled to the most at any tick kept.
  function drawCrowdStrip() {
    const canvas = $("crowd-strip");
    if (!canvas) return;
    const counts = nodeCounts();
    const n = counts.length;
    const total = (c) => c[1] + c[2] + c[3] + c[4];
    const most = Math.max(1, ...counts.map(total));
    canvas.width = Math.max(1, n);
    canvas.height = 24;
    const ctx = canvas.getContext("2d");
    for (let k = 0; k < n; k++) {
      let y = 24;
      for (let s = 1; s < STATES.length; s++) {
        const h = 22 * counts[k][s] / most;
        ctx.fillStyle = COLOURS[STATES[s]];
        ctx.fillRect(k, y - h, 1, h);
        y -= h;
      }
    }
    timeStrip(canvas, ctx);
    const now = counts[cur.tick];
    $("crowd-summary").innerHTML = `<small>${now ? total(now) : 0} agents here now, at most ${Math.max(0, ...counts.map(total))} ` +
      `at a tick (the strip: agents per tick by state, oldest to newest; click to go there)</small>`;
  }

  // A strip of one column per tick: notches at the current tick, top and
  // bottom, and a click goes to the tick clicked.
  function timeStrip(canvas, ctx) {
    ctx.fillStyle = "#1d2433";
    ctx.fillRect(cur.tick, 0, 1, 2);
    ctx.fillRect(cur.tick, canvas.height - 2, 1, 2);
    canvas.onclick = (ev) => {
      const r = canvas.getBoundingClientRect();
      setTick(Math.floor((ev.clientX - r.left) / r.width * canvas.width));
    };
  }

  function drawStrip() {
    const canvas = $("strip");
    const n = ticks.length;
    canvas.width = Math.max(1, n);
    canvas.height = 8;
    const ctx = canvas.getContext("2d");
    const tally = [0, 0, 0, 0, 0];
    for (let k = 0; k < n; k++) {
      const s = stateAt(ticks[k], cur.agent, cur.node);
      ctx.fillStyle = s < 0 ? "#ffffff" : COLOURS[STATES[s]];
      if (s >= 0) tally[s]++;
      ctx.fillRect(k, 0, 1, 8);
    }
    timeStrip(canvas, ctx);
    $("history-summary").innerHTML =
      STATES.map((s, i) => tally[i] ? `${pill(s)} ${tally[i]}` : "").filter(Boolean).join(" ") +
      ` <small>(ticks; the strip runs oldest to newest, click to go there)</small>`;
  }

  // --- The agent picker: a filter, and at most LIMIT matches shown ---------
  const LIMIT = 100;
  function matches(query) {
    const q = query.trim().toLowerCase();
    const out = [];
    let total = 0;
    if (!q) {
      total = agents.length;
      for (let i = 0; i < agents.length && out.length < LIMIT; i++) out.push(agents[i]);
    } else if (/^\d+$/.test(q)) {
      for (let i = 0; i < agents.length; i++) {
        if (String(agents[i]).includes(q)) { total++; if (out.length < LIMIT) out.push(agents[i]); }
      }
      // The exact id first.
      const exact = out.indexOf(+q);
      if (exact > 0) { out.splice(exact, 1); out.unshift(+q); }
    } else {
      // By name, or by words of a note.
      const found = new Set();
      for (const [agent, name] of names) if (name.toLowerCase().includes(q)) found.add(agent);
      for (const [agent, list] of notesOf) {
        if (list.some((n) => n.text.toLowerCase().includes(q))) found.add(agent);
      }
      total = found.size;
      for (const agent of Array.from(found).sort((a, b) => a - b)) {
        if (out.length === LIMIT) break;
        out.push(agent);
      }
    }
    return { out, total };
  }
  function renderList() {
    const { out, total } = matches($("search").value);
    const t = ticks[cur.tick];
    $("matches").textContent = total > out.length
      ? `${total} agents match; showing the first ${out.length}, type to narrow`
      : `${total} agent${total === 1 ? "" : "s"}`;
    const q = $("search").value.trim().toLowerCase();
    $("agents").innerHTML = out.map((a) => {
      const root = t ? stateAt(t, a, 0) : -1;
      const note = (notesOf.get(a) || []).find((n) => !q || /^\d+$/.test(q) || n.text.toLowerCase().includes(q));
      return `<li data-agent="${a}"${a === cur.agent ? ' class="current"' : ""}>` +
        `<span class="dot" data-state="${root < 0 ? "none" : STATES[root]}"></span>${esc(label(a))}` +
        (note ? `<span class="note">${esc(note.text)}</span>` : "") + `</li>`;
    }).join("");
  }

  // --- Controls -----------------------------------------------------------
  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    if (on) {
      if (cur.tick >= ticks.length - 1) setTick(0);
      timer = setInterval(() => {
        if (cur.tick >= ticks.length - 1) play(false); else setTick(cur.tick + 1);
      }, 1000 / +$("speed").value);
    }
    $("play").textContent = timer ? "❚❚ pause" : "▶︎ play";
  }
  slider.addEventListener("input", () => setTick(+slider.value));
  $("back").addEventListener("click", () => { play(false); setTick(cur.tick - 1); });
  $("fwd").addEventListener("click", () => { play(false); setTick(cur.tick + 1); });
  $("play").addEventListener("click", () => play(!timer));
  $("speed").addEventListener("change", () => { if (timer) play(true); });
  $("counts").addEventListener("change", () => { tree.classList.toggle("counts", $("counts").checked); render(); });
  // @include trees.js
  $("search").addEventListener("input", renderList);
  $("search").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { const { out } = matches($("search").value); if (out.length) setAgent(out[0]); }
  });
  $("agents").addEventListener("click", (ev) => {
    const li = ev.target.closest("li[data-agent]");
    if (li) setAgent(+li.dataset.agent);
  });
  svg.addEventListener("click", (ev) => {
    if (ev.target.dataset && ev.target.dataset.toggle !== undefined) {
      const i = +ev.target.dataset.toggle;
      collapse(i, !collapsed[i]);
      return;
    }
    const g = ev.target.closest("g.node");
    setNode(g && +g.dataset.node !== cur.node ? +g.dataset.node : -1);
  });
  $("details").addEventListener("click", (ev) => {
    const a = ev.target.closest("a");
    if (!a) return;
    if (a.dataset.gotoNode !== undefined) setNode(+a.dataset.gotoNode);
    if (a.dataset.gotoTick !== undefined) setTick(+a.dataset.gotoTick);
    if (a.dataset.gotoAgent !== undefined) setAgent(+a.dataset.gotoAgent);
    if (a.dataset.plot !== undefined) { cur.plot = +a.dataset.plot === cur.plot ? -1 : +a.dataset.plot; render(); }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
    if (ev.key === "ArrowLeft") { play(false); setTick(cur.tick - 1); ev.preventDefault(); }
    else if (ev.key === "ArrowRight") { play(false); setTick(cur.tick + 1); ev.preventDefault(); }
    else if (ev.key === "+" || ev.key === "=" || ev.key === "-") {
      zoomAt(scale * (ev.key === "-" ? 0.8 : 1.25), tree.clientWidth / 2, tree.clientHeight / 2);
    }
    else if (ev.key === " ") { if (LIVE) live.follow(!live.following()); else play(!timer); ev.preventDefault(); }
  });

  // The address: #agent=A&frame=F (or tick=K, the position) &node=N.
  function fromHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.has("agent")) cur.agent = +h.get("agent");
    if (h.has("tick")) cur.tick = Math.max(0, Math.min(ticks.length - 1, +h.get("tick") | 0));
    if (h.has("frame")) {
      const f = +h.get("frame");
      const k = ticks.findIndex((t) => t.index === f);
      if (k >= 0) cur.tick = k;
    }
    cur.node = h.has("node") ? +h.get("node") : -1;
    if (h.has("plot")) cur.plot = +h.get("plot");
    if (!(cur.node < NODES.length)) cur.node = -1;
    return h;
  }
  let benchmarking = false;
  const hash = fromHash();
  window.addEventListener("hashchange", () => {
    fromHash();
    if (cur.node >= 0) expandTo(cur.node);
    render(); renderList(); reveal();
  });
  tree.classList.add("counts");
  if (hash.has("search")) $("search").value = hash.get("search");
  render();
  renderList();
  // The picked node on screen, or else the root.
  if (cur.node >= 0) { expandTo(cur.node); reveal(); }
  else if (!tree.classList.contains("fit")) {
    groups[0].scrollIntoView(leftToRight ? { block: "center", inline: "start" } : { block: "start", inline: "center" });
  }
  // #find=TEXT finds a node as typing it into the node box would.
  if (hash.has("find")) {
    $("find").value = hash.get("find");
    $("find").dispatchEvent(new Event("change"));
  }
  // For the tests and for anyone curious: how many nodes the layout shows,
  // and whether the root is in the tree pane's view.
  {
    const pane = tree.getBoundingClientRect(), root = groups[0].getBoundingClientRect();
    $("status").dataset.nodesShown = groups.filter((g) => g.style.display !== "none").length;
    $("status").dataset.rootOnScreen = root.left >= pane.left && root.right <= pane.right &&
      root.top >= pane.top && root.bottom <= pane.bottom ? "1" : "0";
  }
  // #slide=K moves the slider to K as a user would (an input event), for
  // tests that cannot drag it.
  if (hash.has("slide")) {
    slider.value = hash.get("slide");
    slider.dispatchEvent(new Event("input"));
  }
  // #sweep moves the slider over every tick and writes, per tick, the
  // nodes the drawing shows not idle: "tick agent: node=state ...".
  if (hash.has("sweep")) {
    const lines = [];
    const keep = cur.tick;
    for (let k = 0; k < ticks.length; k++) {
      slider.value = k;
      slider.dispatchEvent(new Event("input"));
      const shownNow = [];
      svg.querySelectorAll("g.node").forEach((g) => {
        if (g.dataset.state !== "idle") shownNow.push(`${g.dataset.node}=${g.dataset.state}`);
      });
      lines.push(`${slider.value} ${cur.agent}: ${shownNow.join(" ")}`);
    }
    const pre = document.createElement("pre");
    pre.id = "sweep";
    pre.hidden = true;
    pre.textContent = lines.join("\n");
    document.body.appendChild(pre);
    setTick(keep);
  }
  const T4 = performance.now();

  // --- Timings, for the tests and for measuring responsiveness ----------
  const timings = $("timings");
  const ms = (x) => x.toFixed(1);
  Object.assign(timings.dataset, {
    bytes: bytes.length, ticks: ticks.length, agents: agents.length,
    decodeMs: ms(T1 - T0), parseMs: ms(T2 - T1), indexMs: ms(T3 - T2), renderMs: ms(T4 - T3), loadMs: ms(T4 - T0),
  });
  if (hash.has("bench")) {
    benchmarking = true;
    const keep = { ...cur };
    const steps = Math.min(ticks.length, 200);
    let s = performance.now();
    for (let k = 0; k < steps; k++) { setTick(k); svg.getBoundingClientRect(); }
    const tickMs = (performance.now() - s) / Math.max(1, steps);
    setNode(Math.min(1, NODES.length - 1));
    s = performance.now();
    for (let k = 0; k < steps; k++) { setTick(k); svg.getBoundingClientRect(); }
    const tickNodeMs = (performance.now() - s) / Math.max(1, steps);
    const picks = Math.min(agents.length, 100);
    s = performance.now();
    for (let i = 0; i < picks; i++) setAgent(agents[Math.floor(i * agents.length / picks)]);
    const agentMs = (performance.now() - s) / Math.max(1, picks);
    s = performance.now();
    for (const q of ["1", "12", "123", "4", ""]) { $("search").value = q; renderList(); }
    const searchMs = (performance.now() - s) / 5;
    Object.assign(cur, keep);
    benchmarking = false;
    render(); renderList();
    Object.assign(timings.dataset, { tickMs: ms(tickMs), tickNodeMs: ms(tickNodeMs), agentMs: ms(agentMs), searchMs: ms(searchMs) });
  }
  timings.textContent = Object.entries(timings.dataset).map(([k, v]) => `${k}=${v}`).join(" ");
  document.body.dataset.ready = "1";
  if (dropped && !LIVE) $("when").title = `${dropped} earlier ticks were dropped by the recorder's byte budget`;

  // @include live.js
})();
