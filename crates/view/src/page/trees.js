// Part of view.js: big trees. Pan and zoom, the layout (collapsed
// subtrees, top-down or left-to-right) and finding nodes. crates/view's
// page.rs puts it into view.js's closure, at the line that names this
// file, so it shares that closure's names (NODES, groups, svg, tree,
// cur, setNode, ...).
  // --- Pan and zoom: big trees ------------------------------------------
  let scale = 1;
  // The scale that shows the whole tree in the pane (at most 2x).
  const fitScale = () => Math.min(2, (tree.clientWidth - 4) / svg.width.baseVal.value,
    (tree.clientHeight - 4) / svg.height.baseVal.value);
  function zoom() {
    const z = $("zoom").value;
    tree.classList.toggle("fit", z === "fit");
    if (z === "fit") scale = fitScale();
    else if (z !== "other") scale = +z;
    svg.style.zoom = scale;
  }
  // Zooms to z keeping the pane's point (x, y) where it is.
  function zoomAt(z, x, y) {
    const old = scale;
    scale = Math.min(4, Math.max(0.05, z));
    const px = (tree.scrollLeft + x) / old, py = (tree.scrollTop + y) / old;
    $("zoom-other").textContent = `${Math.round(scale * 100)}%`;
    $("zoom").value = "other";
    zoom();
    tree.scrollLeft = px * scale - x;
    tree.scrollTop = py * scale - y;
  }
  $("zoom").addEventListener("change", zoom);
  window.addEventListener("resize", () => { if ($("zoom").value === "fit") zoom(); });
  tree.addEventListener("wheel", (ev) => {
    if (!ev.ctrlKey && !ev.metaKey) return;
    ev.preventDefault();
    const r = tree.getBoundingClientRect();
    zoomAt(scale * Math.exp(-ev.deltaY * 0.002), ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
  // Dragging the background pans.
  let drag = null;
  tree.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || ev.target.closest("g.node")) return;
    drag = { x: ev.clientX, y: ev.clientY, left: tree.scrollLeft, top: tree.scrollTop };
    tree.classList.add("panning");
  });
  window.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    tree.scrollLeft = drag.left - (ev.clientX - drag.x);
    tree.scrollTop = drag.top - (ev.clientY - drag.y);
  });
  window.addEventListener("pointerup", () => { drag = null; tree.classList.remove("panning"); });

  // --- Layout: collapsed subtrees, top-down or left-to-right ----------------
  // The drawing comes laid out top-down with every node shown; collapsing
  // a subtree or turning the tree on its side lays it out again here, by
  // the same tidy layout (crates/view/src/svg.rs): each subtree as wide as
  // its shown children side by side, a parent centred over them. Nodes
  // move by a transform; the edges are drawn again.
  const kids = NODES.map(() => []);
  NODES.forEach((n, i) => { if (n.parent >= 0) kids[n.parent].push(i); });
  const depth = new Uint16Array(NODES.length);
  NODES.forEach((n, i) => { if (n.parent >= 0) depth[i] = depth[n.parent] + 1; });
  const below = new Uint32Array(NODES.length); // nodes under each node
  for (let i = NODES.length - 1; i > 0; i--) below[NODES[i].parent] += below[i] + 1;
  const collapsed = new Uint8Array(NODES.length);
  const home = groups.map((g) => {
    const bb = g.querySelector("rect, ellipse").getBBox();
    return { x: bb.x, y: bb.y, w: bb.width, h: bb.height };
  });
  const [GAP_SIBLING, GAP_ROW, MARGIN] = [14, 36, 12];
  const TOP = home.length ? home[0].y : 0;
  const edges = svg.querySelector("g.edges");
  let leftToRight = false;
  // A toggle under each node with children: "−" to collapse, "+N" to
  // show its N nodes again.
  const toggles = groups.map((g, i) => {
    if (!kids[i].length) return null;
    const t = document.createElementNS(SVGNS, "text");
    t.setAttribute("class", "toggle");
    t.dataset.toggle = i;
    g.appendChild(t);
    return t;
  });
  function layoutTree() {
    const along = (i) => (leftToRight ? home[i].h : home[i].w);
    const across = (i) => (leftToRight ? home[i].w : home[i].h);
    const n = NODES.length;
    const shown = new Uint8Array(n);
    if (n) shown[0] = 1;
    for (let i = 1; i < n; i++) { const p = NODES[i].parent; shown[i] = p >= 0 && shown[p] && !collapsed[p] ? 1 : 0; }
    const open = (i) => (collapsed[i] ? [] : kids[i]);
    const spread = (ks, span) => ks.reduce((sum, k) => sum + span[k] + GAP_SIBLING, 0) - (ks.length ? GAP_SIBLING : 0);
    const span = new Float64Array(n);
    for (let i = n - 1; i >= 0; i--) if (shown[i]) span[i] = Math.max(along(i), spread(open(i), span));
    const rows = [];
    for (let i = 0; i < n; i++) if (shown[i]) rows[depth[i]] = Math.max(rows[depth[i]] || 0, across(i));
    const rowStart = [leftToRight ? MARGIN : TOP];
    for (let r = 1; r < rows.length; r++) rowStart[r] = rowStart[r - 1] + rows[r - 1] + GAP_ROW;
    const start = new Float64Array(n);
    start[0] = leftToRight ? TOP : MARGIN;
    const at = [];
    let width = 0, height = 0;
    for (let i = 0; i < n; i++) {
      const g = groups[i];
      if (!shown[i]) { g.style.display = "none"; continue; }
      g.style.display = "";
      const ks = open(i);
      let cursor = start[i] + (span[i] - spread(ks, span)) / 2;
      for (const k of ks) { start[k] = cursor; cursor += span[k] + GAP_SIBLING; }
      const a = start[i] + (span[i] - along(i)) / 2, c = rowStart[depth[i]];
      const [x, y] = leftToRight ? [c, a] : [a, c];
      at[i] = { x, y };
      g.setAttribute("transform", `translate(${(x - home[i].x).toFixed(1)},${(y - home[i].y).toFixed(1)})`);
      width = Math.max(width, x + home[i].w);
      height = Math.max(height, y + home[i].h);
      const t = toggles[i];
      if (t) {
        t.textContent = collapsed[i] ? `+${below[i]}` : "−";
        t.setAttribute("x", (leftToRight ? home[i].x + home[i].w + 4 : home[i].x + home[i].w - 2).toFixed(1));
        t.setAttribute("y", (leftToRight ? home[i].y + home[i].h / 2 + 4 : home[i].y + home[i].h + 12).toFixed(1));
        t.setAttribute("text-anchor", leftToRight ? "start" : "end");
        g.classList.toggle("collapsed", !!collapsed[i]);
      }
    }
    let d = "";
    for (let i = 0; i < n; i++) {
      if (!shown[i] || collapsed[i]) continue;
      const p = at[i], hp = home[i];
      for (const k of kids[i]) {
        const q = at[k], hk = home[k];
        if (leftToRight) {
          const [x1, y1, x2, y2] = [p.x + hp.w, p.y + hp.h / 2, q.x, q.y + hk.h / 2];
          const mid = (x1 + x2) / 2;
          d += `M${x1.toFixed(1)},${y1.toFixed(1)} C${mid.toFixed(1)},${y1.toFixed(1)} ${mid.toFixed(1)},${y2.toFixed(1)} ${x2.toFixed(1)},${y2.toFixed(1)}`;
        } else {
          const [x1, y1, x2, y2] = [p.x + hp.w / 2, p.y + hp.h, q.x + hk.w / 2, q.y];
          const mid = (y1 + y2) / 2;
          d += `M${x1.toFixed(1)},${y1.toFixed(1)} C${x1.toFixed(1)},${mid.toFixed(1)} ${x2.toFixed(1)},${mid.toFixed(1)} ${x2.toFixed(1)},${y2.toFixed(1)}`;
        }
      }
    }
    edges.innerHTML = `<path d="${d}"/>`;
    width += MARGIN + (leftToRight ? 40 : 0);
    height += MARGIN + 14;
    svg.setAttribute("width", width.toFixed(0));
    svg.setAttribute("height", height.toFixed(0));
    svg.setAttribute("viewBox", `0 0 ${width.toFixed(0)} ${height.toFixed(0)}`);
    markCollapsed();
  }
  // A collapsed node shows its subtree's state for the picked agent: the
  // most telling state of any node under it (running, then failure,
  // cancelled, success), as a coloured toggle.
  const TELLING = [0, 4, 1, 3, 2]; // by state number: idle, running, success, failure, cancelled
  function markCollapsed() {
    for (let i = 0; i < NODES.length; i++) {
      if (!toggles[i]) continue;
      let best = 0;
      if (collapsed[i]) {
        for (let k = i + 1; k <= i + below[i]; k++) if (shown[k] > 0 && TELLING[shown[k]] > TELLING[best]) best = shown[k];
      }
      toggles[i].dataset.state = STATES[best];
    }
  }
  function collapse(i, on) { collapsed[i] = on ? 1 : 0; layoutTree(); }
  // Shows node i: expands every collapsed ancestor.
  function expandTo(i) {
    let changed = false;
    for (let p = NODES[i].parent; p >= 0; p = NODES[p].parent) if (collapsed[p]) { collapsed[p] = 0; changed = true; }
    if (changed) layoutTree();
  }
  // Collapses every node at depth d (0: none), showing d levels.
  function openTo(d) {
    for (let i = 0; i < NODES.length; i++) collapsed[i] = d > 0 && depth[i] === d && kids[i].length ? 1 : 0;
    layoutTree();
  }
  $("layout").addEventListener("change", () => { leftToRight = $("layout").value === "lr"; layoutTree(); zoom(); reveal(); });
  $("depth").addEventListener("change", () => { openTo(+$("depth").value); zoom(); });
  // The address may ask for a layout (#layout=lr) and a depth (#depth=3,
  // 0 for all); a big tree opens with as many levels as fit about 150
  // nodes.
  {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.get("layout") === "lr") { $("layout").value = "lr"; leftToRight = true; }
    let d = h.has("depth") ? Math.max(0, Math.min(6, +h.get("depth") | 0)) : 0;
    if (!h.has("depth") && NODES.length > 200) {
      d = 1;
      while (d < 6 && depth.filter((x) => x <= d + 1).length <= 150) d++;
    }
    $("depth").value = String(d);
    if (d || leftToRight) openTo(d);
  }
  laidOut = true;
  // Fit the tree to the pane unless that would make it too small to read.
  if (fitScale() >= 0.4) $("zoom").value = "fit";
  zoom();

  // --- Finding a node by name or path -------------------------------------
  $("node-names").innerHTML = NODES.map((n) => `<option value="${esc(n.path)}">${esc(n.name)}</option>`).join("");
  function findNodes(query) {
    const q = query.trim().toLowerCase();
    if (!q) return [];
    const exact = NODES.findIndex((n) => n.path.toLowerCase() === q || n.name.toLowerCase() === q);
    const found = [];
    NODES.forEach((n, i) => {
      if (i !== exact && (n.name.toLowerCase().includes(q) || n.path.toLowerCase().includes(q))) found.push(i);
    });
    return exact >= 0 ? [exact, ...found] : found;
  }
  function markFound() {
    const found = new Set(findNodes($("find").value));
    groups.forEach((g, i) => g.classList.toggle("found", found.has(i)));
    return found;
  }
  $("find").addEventListener("input", markFound);
  $("find").addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    const [first] = findNodes($("find").value);
    if (first !== undefined) setNode(first);
  });
  $("find").addEventListener("change", () => {
    const [first] = findNodes($("find").value);
    markFound();
    if (first !== undefined) setNode(first);
  });
