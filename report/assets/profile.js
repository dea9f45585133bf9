// The sampled profile's views for the selected time range: the flame
// graph (callers on top), the call tree (inclusive and exclusive
// samples), the callers and callees of a function, and the processes
// table's CPU samples. The Go program ships the profile as a frame
// table, a prefix tree of the stacks and (bucket, node, samples)
// triples (analysis.StackTree); this script adds up the buckets of the
// range the time charts select, which report.js announces with an
// 'etw:range' event ({from, to} in seconds from the first event; the
// whole trace is from 0 to Infinity). window.etwProfile gives the
// tests (and the curious) what is shown.
(function () {
  'use strict';
  const doc = document;
  const NS = 'http://www.w3.org/2000/svg';
  const pdata = doc.getElementById('profile-data');
  const box = doc.getElementById('flame');
  if (!pdata || !box) return;
  const P = JSON.parse(pdata.textContent);
  const N = P.parent.length;
  const ivMS = parseFloat(box.getAttribute('data-interval-ms') || '0');
  const minFrac = parseFloat(box.getAttribute('data-min-fraction') || '0');
  const name = function (n) { return P.frames[P.frame[n]]; };
  // children in node order (their names' order), and the roots
  const kids = [], roots = [];
  for (let i = 0; i < N; i++) kids.push([]);
  for (let i = 0; i < N; i++) (P.parent[i] < 0 ? roots : kids[P.parent[i]]).push(i);
  // outer[n]: no caller of n is the same frame (recursion counts once)
  const outer = new Uint8Array(N);
  for (let i = 0; i < N; i++) {
    let a = P.parent[i];
    while (a >= 0 && P.frame[a] !== P.frame[i]) a = P.parent[a];
    outer[i] = a < 0 ? 1 : 0;
  }

  // ---- the range: buckets [b0, b1) that the time range overlaps
  let b0 = 0, b1 = P.buckets;
  const excl = new Float64Array(N), incl = new Float64Array(N);
  let total = 0;
  function aggregate() {
    excl.fill(0);
    const S = P.samples, w = S.length / 3;
    let lo = 0, hi = w; // first triple of bucket >= b0
    while (lo < hi) { const m = (lo + hi) >> 1; if (S[3 * m] < b0) lo = m + 1; else hi = m; }
    for (let i = lo; i < w && S[3 * i] < b1; i++) excl[S[3 * i + 1]] += S[3 * i + 2];
    incl.set(excl);
    for (let i = N - 1; i >= 0; i--) if (P.parent[i] >= 0) incl[P.parent[i]] += incl[i];
    total = 0;
    roots.forEach(function (r) { total += incl[r]; });
  }
  function setRange(from, to) {
    const w = P.bucket_sec;
    if (!(w > 0) || (from <= 0 && !(to < Infinity))) {
      b0 = 0; b1 = P.buckets;
    } else {
      b0 = Math.min(P.buckets, Math.max(0, Math.floor(from / w + 1e-9)));
      b1 = Math.min(P.buckets, Math.max(b0 + 1, Math.ceil(to / w - 1e-9)));
    }
    aggregate();
    box.setAttribute('data-b0', b0);
    box.setAttribute('data-b1', b1);
    box.setAttribute('data-samples', total);
  }

  // ---- shared formatting
  function pct(v, of) { return of ? (100 * v / of).toFixed(1) + ' %' : '0 %'; }
  const fmt = function (v) { return v.toLocaleString('en-US'); };
  const ms = function (v) { return ivMS > 0 ? fmt(Math.round(v * ivMS)) : ''; };
  const smp = function (v) {
    const s = fmt(v) + ' samples';
    return ivMS > 0 ? s + ', ' + ms(v) + ' ms' : s;
  };
  function matcher(q) {
    q = q.trim();
    if (!q) return null;
    const m = /^\/(.*)\/([a-z]*)$/.exec(q);
    if (m) {
      try { const re = new RegExp(m[1], m[2].indexOf('i') >= 0 ? m[2] : m[2] + 'i'); return function (s) { return re.test(s); }; } catch (e) { return null; }
    }
    const lq = q.toLowerCase();
    return function (s) { return s.toLowerCase().indexOf(lq) >= 0; };
  }
  function el(tag, attrs, parent, text) {
    const e = doc.createElement(tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function svgEl(tag, attrs, parent) {
    const e = doc.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // ---- flame graph: the tree of the range, pruned as the Go side
  // prunes the whole trace's (frames under minFrac of their process).
  let root = null;
  function flameTree() {
    const r = { name: 'all', value: total, children: [], parent: null };
    function build(n, parent, min) {
      const f = { name: name(n), value: incl[n], children: [], parent: parent, node: n };
      kids[n].forEach(function (c) { if (incl[c] > 0 && incl[c] >= min) f.children.push(build(c, f, min)); });
      return f;
    }
    roots.forEach(function (n) { if (incl[n] > 0) r.children.push(build(n, r, minFrac * incl[n])); });
    r.children.sort(function (a, b) { return b.value - a.value; }); // stable: name order for ties
    return r;
  }
  const procSel = doc.getElementById('flame-proc');
  const search = doc.getElementById('flame-search');
  const info = doc.getElementById('flame-info');
  let zoom = null, match = null, items = [], drawnW = 0;
  function hash(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
    return (h >>> 0) / 4294967296;
  }
  function colour(n) {
    const s = n.name, r = hash(s);
    if (!n.parent) return '#c9d3dd';
    if (n.parent === root) return 'hsl(210,35%,' + (68 + 10 * r) + '%)';
    if (s === '?') return '#cfcfcf';
    const low = s.toLowerCase();
    if (/\.sys$/.test(low) || low === 'ntoskrnl.exe' || low === 'hal.dll') return 'hsl(' + (20 + 20 * r) + ',80%,65%)';
    if (s.indexOf('!') >= 0 || !/\.(dll|exe|sys|drv|ocx|so)$/.test(low)) return 'hsl(' + (95 + 45 * r) + ',50%,62%)';
    return 'hsl(' + (45 + 15 * r) + ',85%,' + (60 + 8 * r) + '%)';
  }
  function matched(n) {
    // samples in frames that match, not counting a match under another
    if (match(n.name)) return n.value;
    let t = 0;
    n.children.forEach(function (c) { t += matched(c); });
    return t;
  }
  function fillProcs() {
    procSel.replaceChildren(el('option', { value: '' }, null, 'All processes'));
    root.children.forEach(function (p, i) {
      el('option', { value: String(i) }, procSel, p.name + ': ' + smp(p.value) + ' (' + pct(p.value, root.value) + ')');
    });
  }
  function renderFlame() {
    let text = (zoom === root ? 'all processes' : zoom.name) + ': ' + smp(zoom.value);
    if (match) {
      const m = matched(zoom);
      text += '; matching frames: ' + smp(m) + ' (' + pct(m, zoom.value) + ')';
    }
    info.textContent = text;
    const W = box.clientWidth;
    if (!W) { drawnW = 0; return; } // drawn when the section shows
    drawnW = W;
    const rowH = 18;
    items = [];
    const anc = [];
    for (let n = zoom.parent; n; n = n.parent) anc.unshift(n);
    anc.forEach(function (n, i) { items.push({ n: n, x: 0, w: W, d: i, anc: true }); });
    const scale = zoom.value ? W / zoom.value : 0;
    let depth = anc.length + 1;
    (function walk(n, x, d) {
      const w = n.value * scale;
      if (w < 0.5) return;
      items.push({ n: n, x: x, w: w, d: d });
      depth = Math.max(depth, d + 1);
      let cx = x;
      n.children.forEach(function (c) { walk(c, cx, d + 1); cx += c.value * scale; });
    })(zoom, 0, anc.length);
    const svg = svgEl('svg', { width: W, height: depth * rowH, viewBox: '0 0 ' + W + ' ' + depth * rowH, role: 'img', 'aria-label': 'flame graph' });
    items.forEach(function (it, i) {
      const g = svgEl('g', { 'data-i': i }, svg);
      if (it.anc) g.setAttribute('class', 'anc');
      if (match && match(it.n.name)) g.setAttribute('class', (it.anc ? 'anc ' : '') + 'hit');
      svgEl('title', {}, g).textContent = it.n.name + '\n' + smp(it.n.value) + ', ' + pct(it.n.value, root.value) + ' of the range' +
        (zoom !== root && !it.anc ? ', ' + pct(it.n.value, zoom.value) + ' of the view' : '');
      svgEl('rect', { x: it.x.toFixed(2), y: it.d * rowH, width: Math.max(0.5, it.w - 0.5).toFixed(2), height: rowH - 1, fill: colour(it.n) }, g);
      if (it.w > 30) {
        const chars = Math.floor((it.w - 6) / 6.7);
        let s = it.n.name;
        if (s.length > chars) s = chars > 2 ? s.slice(0, chars - 1) + '…' : '';
        if (s) svgEl('text', { x: (it.x + 3).toFixed(2), y: it.d * rowH + 13 }, g).textContent = s;
      }
    });
    box.replaceChildren(svg);
  }
  box.addEventListener('click', function (ev) {
    const g = ev.target.closest('g[data-i]');
    if (!g) return;
    zoom = items[+g.getAttribute('data-i')].n;
    let p = zoom;
    while (p.parent && p.parent !== root) p = p.parent;
    procSel.value = zoom === root ? '' : String(root.children.indexOf(p));
    renderFlame();
  });
  procSel.addEventListener('change', function () {
    zoom = procSel.value === '' ? root : root.children[+procSel.value];
    renderFlame();
  });
  search.addEventListener('input', function () { match = matcher(search.value); renderFlame(); });
  doc.getElementById('flame-reset').addEventListener('click', function () { zoom = root; procSel.value = ''; renderFlame(); });

  // ---- call tree: rows for the expanded nodes, children by inclusive
  // samples, most first; nodes without samples in the range left out.
  const tbody = doc.querySelector('#calltree tbody');
  const treeSearch = doc.getElementById('tree-search');
  const treeInfo = doc.getElementById('tree-info');
  const open = new Uint8Array(N);
  let treeMatch = null, shown = null; // shown: the nodes a search shows
  const byIncl = function (a, b) { return incl[b] - incl[a] || a - b; };
  function cells(tr, v) {
    el('td', { class: 'num', 'data-v': v }, tr, fmt(v));
    el('td', { class: 'num' }, tr, pct(v, total));
    el('td', { class: 'num' }, tr, ms(v));
  }
  function renderTree() {
    const rows = doc.createDocumentFragment();
    let count = 0;
    (function walk(list, depth) {
      list.slice().sort(byIncl).forEach(function (n) {
        if (!(incl[n] > 0) || (shown && !shown[n])) return;
        const has = kids[n].some(function (c) { return incl[c] > 0 && (!shown || shown[c]); });
        const isOpen = has && (open[n] || shown);
        const tr = el('tr', { 'data-node': n }, rows);
        const td = el('td', { class: 'fn', style: 'padding-left:' + (4 + 14 * depth) + 'px' }, tr);
        el('span', { class: 'tog' }, td, has ? (isOpen ? '▾' : '▸') : '');
        const a = el('span', { class: 'fname' + (treeMatch && treeMatch(name(n)) ? ' hit' : '') }, td, name(n));
        a.title = 'callers and callees of ' + name(n);
        cells(tr, incl[n]);
        cells(tr, excl[n]);
        count++;
        if (isOpen) walk(kids[n], depth + 1);
      });
    })(roots, 0);
    tbody.replaceChildren(rows);
    tbody.parentNode.setAttribute('data-rows', count);
    treeInfo.textContent = fmt(total) + ' samples in the range' + (shown ? '; ' + shownCount + ' frames match' : '');
  }
  let shownCount = 0;
  function findInTree() {
    treeMatch = matcher(treeSearch.value);
    shown = null;
    shownCount = 0;
    if (treeMatch) {
      shown = new Uint8Array(N);
      const hit = new Uint8Array(P.frames.length);
      P.frames.forEach(function (f, i) { hit[i] = treeMatch(f) ? 1 : 0; });
      for (let i = N - 1; i >= 0; i--) {
        if (incl[i] > 0 && hit[P.frame[i]] && shownCount < 2000) { shown[i] = 1; shownCount++; }
        if (shown[i] && P.parent[i] >= 0) shown[P.parent[i]] = 1;
      }
    }
    renderTree();
  }
  function hotPath() {
    open.fill(0);
    if (!roots.length) return;
    let n = roots.slice().sort(byIncl)[0];
    for (let d = 0; d < 200 && n !== undefined && incl[n] > 0; d++) {
      open[n] = 1;
      n = kids[n].slice().sort(byIncl)[0];
    }
  }
  tbody.addEventListener('click', function (ev) {
    const tr = ev.target.closest('tr[data-node]');
    if (!tr) return;
    const n = +tr.getAttribute('data-node');
    if (ev.target.classList.contains('fname')) { showButterfly(P.frame[n]); return; }
    open[n] = open[n] ? 0 : 1;
    renderTree();
  });
  treeSearch.addEventListener('input', findInTree);
  doc.getElementById('tree-hot').addEventListener('click', function () { hotPath(); treeSearch.value = ''; findInTree(); });
  doc.getElementById('tree-collapse').addEventListener('click', function () { open.fill(0); treeSearch.value = ''; findInTree(); });

  // ---- callers and callees of one frame, merged over its nodes
  const bf = doc.getElementById('butterfly');
  const bfSearch = doc.getElementById('bf-search');
  const bfInfo = doc.getElementById('bf-info');
  const names = doc.getElementById('bf-names');
  const frameOf = new Map();
  P.frames.forEach(function (f, i) { frameOf.set(f, i); el('option', { value: f }, names); });
  let bfFrame = -1;
  function butterfly(f) {
    const callers = new Map(), callees = new Map();
    let inc = 0, exc = 0;
    for (let n = 0; n < N; n++) {
      if (P.frame[n] !== f) continue;
      exc += excl[n];
      if (!outer[n] || !(incl[n] > 0)) continue;
      inc += incl[n];
      const p = P.parent[n], k = p < 0 ? -1 : P.frame[p];
      callers.set(k, (callers.get(k) || 0) + incl[n]);
      kids[n].forEach(function (c) { if (incl[c] > 0) callees.set(P.frame[c], (callees.get(P.frame[c]) || 0) + incl[c]); });
    }
    return { frame: f, inclusive: inc, exclusive: exc, callers: callers, callees: callees };
  }
  function bfTable(title, m, of) {
    const t = el('table', { class: 'bf' });
    const h = el('tr', {}, el('thead', {}, t));
    [title, 'Samples', '% of the function', '% of the range', 'ms'].forEach(function (s) { el('th', {}, h, s); });
    const body = el('tbody', {}, t);
    Array.from(m.entries()).sort(function (a, b) { return b[1] - a[1] || a[0] - b[0]; }).forEach(function (e) {
      const tr = el('tr', { 'data-frame': e[0] }, body);
      const td = el('td', { class: 'fn' }, tr);
      if (e[0] < 0) td.textContent = '(none: the process is the root)';
      else el('span', { class: 'fname' }, td, P.frames[e[0]]);
      el('td', { class: 'num', 'data-v': e[1] }, tr, fmt(e[1]));
      el('td', { class: 'num' }, tr, pct(e[1], of));
      el('td', { class: 'num' }, tr, pct(e[1], total));
      el('td', { class: 'num' }, tr, ms(e[1]));
    });
    if (!m.size) el('td', { colspan: 5, class: 'none' }, el('tr', {}, body), 'none');
    return t;
  }
  function renderButterfly() {
    if (bfFrame < 0) { bf.replaceChildren(); bfInfo.textContent = 'pick a function'; return; }
    const b = butterfly(bfFrame);
    bf.setAttribute('data-frame', bfFrame);
    bf.setAttribute('data-inclusive', b.inclusive);
    bfInfo.textContent = P.frames[bfFrame] + ': inclusive ' + smp(b.inclusive) + ' (' + pct(b.inclusive, total) +
      '), exclusive ' + smp(b.exclusive) + ' (' + pct(b.exclusive, total) + ')';
    bf.replaceChildren(el('h4', {}, null, 'Called by'), bfTable('Caller', b.callers, b.inclusive),
      el('h4', {}, null, 'Calls'), bfTable('Callee', b.callees, b.inclusive));
  }
  function showButterfly(f) {
    bfFrame = f;
    bfSearch.value = f >= 0 ? P.frames[f] : '';
    renderButterfly();
    bf.scrollIntoView({ block: 'nearest' });
  }
  bf.addEventListener('click', function (ev) {
    const tr = ev.target.closest('tr[data-frame]');
    if (tr && ev.target.classList.contains('fname')) showButterfly(+tr.getAttribute('data-frame'));
  });
  bfSearch.addEventListener('change', function () {
    const f = frameOf.get(bfSearch.value.trim());
    if (f !== undefined) { bfFrame = f; renderButterfly(); }
  });

  // ---- the processes table's CPU samples, by the row's root frame, with
  // their share of the range's samples and their time
  const rootsOf = new Map();
  roots.forEach(function (r) { const f = name(r); rootsOf.set(f, (rootsOf.get(f) || []).concat([r])); });
  function renderProcesses() {
    const t = doc.getElementById('proc-table');
    if (!t) return;
    const col = Array.from(t.tHead.rows[0].cells).findIndex(function (th) { return th.textContent === 'CPU samples'; });
    if (col < 0) return;
    const rows = Array.from(t.tBodies[0].rows);
    const vals = rows.map(function (tr) {
      let v = 0;
      (rootsOf.get(tr.getAttribute('data-root')) || []).forEach(function (r) { v += incl[r]; });
      return v;
    });
    const top = Math.max.apply(null, vals.concat([0]));
    rows.forEach(function (tr, i) {
      const td = tr.cells[col];
      td.setAttribute('data-v', vals[i]);
      const bar = td.querySelector('.ibar'), v = td.querySelector('.iv');
      if (bar) bar.style.width = (top ? Math.round(vals[i] / top * 1000) / 10 : 0) + '%';
      if (v) v.textContent = fmt(vals[i]) + (total ? ' · ' + pct(vals[i], total) : '') + (ivMS > 0 ? ' · ' + ms(vals[i]) + ' ms' : '');
    });
  }

  function update() {
    // The flame graph keeps its zoom where the range still has the frame.
    const path = [];
    for (let n = zoom; n && n.parent; n = n.parent) path.unshift(n.name);
    root = flameTree();
    zoom = root;
    for (let i = 0; i < path.length; i++) {
      const c = zoom.children.find(function (x) { return x.name === path[i]; });
      if (!c) break;
      zoom = c;
    }
    fillProcs();
    let p = zoom;
    while (p.parent && p.parent !== root) p = p.parent;
    procSel.value = zoom === root ? '' : String(root.children.indexOf(p));
    match = matcher(search.value);
    renderFlame();
    findInTree();
    renderButterfly();
    renderProcesses();
  }
  doc.addEventListener('etw:range', function (ev) {
    const d = ev.detail || {};
    setRange(+d.from || 0, d.to === undefined ? Infinity : +d.to);
    update();
  });
  // Drawn once the section shows (a hidden box has no width).
  if (window.ResizeObserver) {
    // Drawing changes the box's height: draw in the next frame, not in
    // the observer's callback (which would loop).
    let queued = false;
    new ResizeObserver(function () {
      if (queued || !box.clientWidth || box.clientWidth === drawnW) return;
      queued = true;
      requestAnimationFrame(function () { queued = false; if (box.clientWidth && box.clientWidth !== drawnW) renderFlame(); });
    }).observe(box);
  }
  setRange(0, Infinity);
  hotPath();
  update();

  window.etwProfile = {
    // the range's buckets and samples, and each root frame's samples
    totals: function () {
      const procs = {};
      roots.forEach(function (r) { procs[name(r)] = (procs[name(r)] || 0) + incl[r]; });
      return { b0: b0, b1: b1, total: total, processes: procs };
    },
    // the flame graph's tree, as the Go side writes it (cpu.root)
    flame: function () {
      return (function strip(n) {
        const o = { name: n.name, value: n.value };
        if (n.children.length) o.children = n.children.map(strip);
        return o;
      })(root);
    },
    // the call tree's stacks in the folded format: the nodes with
    // samples of their own, "process;frame;…;frame count"
    folded: function () {
      const out = [];
      for (let n = 0; n < N; n++) {
        if (!(excl[n] > 0)) continue;
        const path = [];
        for (let a = n; a >= 0; a = P.parent[a]) path.unshift(name(a));
        out.push(path.join(';') + ' ' + excl[n]);
      }
      return out;
    },
    expandAll: function () { open.fill(1); treeSearch.value = ''; findInTree(); },
    butterfly: function (frameName) {
      const f = frameOf.get(frameName);
      if (f === undefined) return null;
      showButterfly(f);
      const b = butterfly(f);
      return { inclusive: b.inclusive, exclusive: b.exclusive, callers: Object.fromEntries(Array.from(b.callers, function (e) { return [e[0] < 0 ? '' : P.frames[e[0]], e[1]]; })),
        callees: Object.fromEntries(Array.from(b.callees, function (e) { return [P.frames[e[0]], e[1]]; })) };
    }
  };
})();
