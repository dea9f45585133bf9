// The report's interactivity: tabs, zooming the time charts, the flame
// graph, sortable and filterable tables. The charts themselves are SVG
// written by the Go program; without this script they still show, all
// sections one after the other.
(function () {
  'use strict';
  const doc = document;
  const NS = 'http://www.w3.org/2000/svg';
  const sections = Array.from(doc.querySelectorAll('section.sect'));
  const tabs = Array.from(doc.querySelectorAll('#tabs a'));
  const hooks = []; // run when the visible sections change

  // ---- tabs: #id shows one section, #all every section; "#id/A,B"
  // also zooms the time charts to A..B seconds from the first event.
  let zoomFromHash = null;
  function show() {
    let id = location.hash.slice(1);
    const slash = id.indexOf('/');
    zoomFromHash = null;
    if (slash >= 0) {
      const m = /^([^,]+),([^,]+)$/.exec(id.slice(slash + 1));
      if (m && isFinite(m[1]) && isFinite(m[2]) && +m[2] > +m[1]) zoomFromHash = [+m[1], +m[2]];
      id = id.slice(0, slash);
    }
    const all = id === 'all';
    if (!all && !sections.some(function (s) { return s.id === id; })) {
      id = sections.length ? sections[0].id : '';
    }
    doc.body.classList.add('tabs');
    sections.forEach(function (s) { s.classList.toggle('on', all || s.id === id); });
    tabs.forEach(function (a) { a.classList.toggle('on', a.getAttribute('data-tab') === (all ? 'all' : id)); });
    hooks.forEach(function (f) { f(); });
  }
  window.addEventListener('hashchange', function () { show(); window.scrollTo(0, 0); selftest(); });

  // ---- time charts: one view (seconds from the first event) for all.
  const tcharts = Array.from(doc.querySelectorAll('svg.tchart'));
  let view = null; // [a, b] or null for the whole trace

  function niceStep(span, n) {
    const raw = span / n;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const f of [1, 2, 5, 10]) {
      if (f * mag >= raw) return f * mag;
    }
    return 10 * mag;
  }
  // The same rule as timeLabel in svg.go.
  function timeLabel(t, step, span) {
    let unit = 's', scale = 1;
    if (span < 0.002) { unit = 'µs'; scale = 1e6; } else if (span < 2) { unit = 'ms'; scale = 1e3; }
    const dec = Math.max(0, Math.ceil(-Math.log10(step * scale) - 1e-9));
    return (t * scale).toFixed(dec) + ' ' + unit;
  }
  function el(name, attrs, parent) {
    const e = doc.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function drawAxis(svg, a, b) {
    const g = svg.querySelector('g.xaxis');
    const px = +svg.dataset.px, pw = +svg.dataset.pw, y0 = +svg.dataset.pt + +svg.dataset.ph;
    g.replaceChildren();
    const span = b - a, step = niceStep(span, 8);
    for (let i = Math.ceil(a / step - 1e-9); i * step <= b + step * 1e-6; i++) {
      const t = i * step, x = px + (t - a) / span * pw;
      el('line', { x1: x, x2: x, y1: y0, y2: y0 + 4 }, g);
      const tx = el('text', { x: x, y: y0 + 5, dy: '0.9em', 'text-anchor': x > px + pw - 24 ? 'end' : 'middle' }, g);
      tx.textContent = timeLabel(t, step, span);
    }
  }
  // The same rule as countLabel in svg.go.
  function countLabel(v, step) {
    let unit = '', scale = 1;
    if (v >= 1e6) { unit = 'M'; scale = 1e6; } else if (v >= 1e3) { unit = 'k'; scale = 1e3; }
    const dec = Math.max(0, Math.ceil(-Math.log10(step / scale) - 1e-9));
    return (v / scale).toFixed(dec) + unit;
  }
  // The same rule as fmtWidth in html.go.
  function fmtWidth(v) {
    if (v >= 1) return +v.toPrecision(12) + ' s';
    if (v >= 1e-3) return Math.round(v * 1e7) / 1e4 + ' ms';
    return Math.round(v * 1e7) / 10 + ' µs';
  }
  // The timeline is redrawn from its counts for each view, with the
  // finest buckets the report holds that keep about 1200 in view, and a
  // y axis for the view's peak.
  const tlData = doc.getElementById('timeline-data');
  const tl = tlData ? JSON.parse(tlData.textContent) : null;
  function drawTimeline(svg, a, b) {
    const target = (b - a) / 1200;
    let w = tl.bucket_sec, rows = null;
    tl.detail.forEach(function (d) { if (d.bucket_sec >= target) { w = d.bucket_sec; rows = d.buckets; } });
    const i0 = Math.max(0, Math.floor(a / w)), i1 = Math.ceil(b / w) + 1, n = i1 - i0;
    const S = tl.counts.length;
    const grid = [];
    for (let s = 0; s < S; s++) grid.push(new Float64Array(n));
    if (!rows) {
      for (let s = 0; s < S; s++) {
        const c = tl.counts[s];
        for (let i = i0; i < Math.min(i1, c.length); i++) grid[s][i - i0] = c[i];
      }
    } else {
      let lo = 0, hi = rows.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (rows[m][0] < i0) lo = m + 1; else hi = m; }
      for (let r = lo; r < rows.length && rows[r][0] < i1; r++) {
        const row = rows[r];
        for (let k = 1; k + 1 < row.length; k += 2) grid[row[k]][row[0] - i0] += row[k + 1];
      }
    }
    let peak = 0;
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let s = 0; s < S; s++) t += grid[s][i];
      peak = Math.max(peak, t);
    }
    const rate = peak / w;
    let yMax = 1;
    if (rate > 0) { const st = niceStep(rate, 4); yMax = Math.ceil(rate / st) * st; }
    const units = +svg.dataset.units;
    const y = function (c) { return (units - c / w / yMax * units).toFixed(2); };
    const plot = svg.querySelector('svg.plot');
    plot.querySelectorAll('path.area').forEach(function (p) { p.remove(); });
    const before = plot.querySelector('line');
    const lower = new Float64Array(n), upper = new Float64Array(n);
    for (let s = 0; s < S; s++) {
      for (let i = 0; i < n; i++) upper[i] = lower[i] + grid[s][i];
      let d = 'M' + i0 * w + ' ' + y(lower[0]);
      for (let i = 0; i < n; i++) d += 'V' + y(upper[i]) + 'H' + (i0 + i + 1) * w;
      for (let i = n - 1; i >= 0; i--) d += 'V' + y(lower[i]) + 'H' + (i0 + i) * w;
      const p = el('path', { class: 'area', fill: tl.colors[s], d: d + 'Z' });
      el('title', {}, p).textContent = tl.names[s];
      plot.insertBefore(p, before);
      lower.set(upper);
    }
    const g = svg.querySelector('g.yaxis');
    const px = +svg.dataset.px, pw = +svg.dataset.pw, pt = +svg.dataset.pt, ph = +svg.dataset.ph;
    g.replaceChildren();
    const st = niceStep(yMax, 4);
    for (let i = 0; i * st <= yMax * 1.0000001; i++) {
      const v = i * st, yy = pt + ph - v / yMax * ph;
      el('line', { x1: px, x2: px + pw, y1: yy, y2: yy, class: 'grid' }, g);
      el('text', { x: px - 6, y: yy, dy: '0.32em', 'text-anchor': 'end' }, g).textContent = countLabel(v, st);
    }
    el('text', { class: 'unit', x: 4, y: pt - 8 }, g).textContent = 'events/s';
    // keep the grid behind the plot
    svg.insertBefore(g, svg.firstChild);
    doc.querySelectorAll('.tl-res').forEach(function (e) { e.textContent = fmtWidth(w); });
  }
  function applyView() {
    tcharts.forEach(function (svg) {
      const dur = +svg.dataset.dur;
      const a = view ? view[0] : 0, b = view ? view[1] : dur;
      svg.querySelector('svg.plot').setAttribute('viewBox', a + ' 0 ' + (b - a) + ' ' + svg.dataset.units);
      drawAxis(svg, a, b);
      if (tl && svg.dataset.chart === 'timeline') drawTimeline(svg, a, b);
    });
    doc.querySelectorAll('.zoomview').forEach(function (e) {
      e.textContent = view ? 'showing +' + view[0].toFixed(6) + ' s to +' + view[1].toFixed(6) + ' s' : 'whole trace';
    });
  }
  function fullDur() { return Math.max.apply(null, tcharts.map(function (s) { return +s.dataset.dur; })); }
  function setView(a, b) {
    const d = fullDur();
    a = Math.max(0, a); b = Math.min(d, b);
    if (b - a < 1e-7) { const m = (a + b) / 2; a = Math.max(0, m - 5e-8); b = a + 1e-7; }
    view = (a <= 0 && b >= d) ? null : [a, b];
    applyView();
    doc.dispatchEvent(new CustomEvent('etw:range', { detail: { from: view ? view[0] : 0, to: view ? view[1] : Infinity } }));
    const tab = location.hash.slice(1).split('/')[0];
    if (window.history && history.replaceState) {
      history.replaceState(null, '', '#' + (tab || (sections[0] ? sections[0].id : 'all')) + (view ? '/' + view[0] + ',' + view[1] : ''));
    }
  }
  tcharts.forEach(function (svg) {
    // The frame has the plot's bounds (a nested svg's own box is that of
    // what it draws).
    const frame = svg.querySelector('rect.frame');
    const sel = svg.querySelector('rect.sel');
    const px = +svg.dataset.px, pw = +svg.dataset.pw;
    let start = null;
    function frac(ev) {
      const r = frame.getBoundingClientRect();
      return Math.min(1, Math.max(0, (ev.clientX - r.left) / r.width));
    }
    function inPlot(ev) {
      const r = frame.getBoundingClientRect();
      return ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom;
    }
    // On the chart, not the plot: a nested svg takes no events where it
    // draws nothing.
    svg.addEventListener('mousedown', function (ev) {
      if (ev.button !== 0 || !inPlot(ev)) return;
      ev.preventDefault();
      start = frac(ev);
      sel.setAttribute('x', px + start * pw);
      sel.setAttribute('width', 0);
      sel.style.visibility = 'visible';
    });
    window.addEventListener('mousemove', function (ev) {
      if (start === null) return;
      const f = frac(ev);
      sel.setAttribute('x', px + Math.min(start, f) * pw);
      sel.setAttribute('width', Math.abs(f - start) * pw);
    });
    window.addEventListener('mouseup', function (ev) {
      if (start === null) return;
      const f = frac(ev), s = start;
      start = null;
      sel.style.visibility = 'hidden';
      const r = frame.getBoundingClientRect();
      if (Math.abs(f - s) * r.width < 4) return;
      const a = view ? view[0] : 0, b = view ? view[1] : +svg.dataset.dur;
      setView(a + Math.min(s, f) * (b - a), a + Math.max(s, f) * (b - a));
    });
    svg.addEventListener('dblclick', function (ev) { if (inPlot(ev)) setView(0, Infinity); });
  });
  doc.querySelectorAll('[data-zoom]').forEach(function (btn) {
    btn.addEventListener('click', function () {
      if (btn.dataset.zoom === 'reset' || !view) { setView(0, Infinity); return; }
      const m = (view[0] + view[1]) / 2, h = view[1] - view[0];
      setView(m - h, m + h);
    });
  });
  if (tcharts.length) applyView();
  hooks.push(function () { if (zoomFromHash && tcharts.length) setView(zoomFromHash[0], zoomFromHash[1]); });

  // ---- flame graph (callers on top), from the tree the Go side wrote.
  const fdata = doc.getElementById('flame-data');
  const box = doc.getElementById('flame');
  if (fdata && box) {
    const root = JSON.parse(fdata.textContent);
    (function link(n, p) {
      n.parent = p;
      (n.children || []).forEach(function (c) { link(c, n); });
    })(root, null);
    const procSel = doc.getElementById('flame-proc');
    const search = doc.getElementById('flame-search');
    const info = doc.getElementById('flame-info');
    let zoom = root, match = null, items = [], drawnW = 0;
    // samples, with their CPU time when the trace logs the sampling interval
    const ivMS = parseFloat(box.getAttribute('data-interval-ms') || '0');
    const smp = function (v) {
      const s = v.toLocaleString('en-US') + ' samples';
      return ivMS > 0 ? s + ', ' + Math.round(v * ivMS).toLocaleString('en-US') + ' ms' : s;
    };
    (root.children || []).forEach(function (p, i) {
      const o = doc.createElement('option');
      o.value = String(i);
      o.textContent = p.name + ': ' + smp(p.value) + ' (' + pct(p.value, root.value) + ')';
      procSel.appendChild(o);
    });
    function pct(v, of) { return of ? (100 * v / of).toFixed(1) + ' %' : '0 %'; }
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
    function matched(n) {
      // samples in frames that match, not counting a match under another
      if (match(n.name)) return n.value;
      let t = 0;
      (n.children || []).forEach(function (c) { t += matched(c); });
      return t;
    }
    function render() {
      const W = box.clientWidth;
      if (!W) return;
      drawnW = W;
      const rowH = 18;
      items = [];
      const anc = [];
      for (let n = zoom.parent; n; n = n.parent) anc.unshift(n);
      anc.forEach(function (n, i) { items.push({ n: n, x: 0, w: W, d: i, anc: true }); });
      const scale = W / zoom.value;
      let depth = anc.length;
      (function walk(n, x, d) {
        const w = n.value * scale;
        if (w < 0.5) return;
        items.push({ n: n, x: x, w: w, d: d });
        depth = Math.max(depth, d + 1);
        let cx = x;
        (n.children || []).forEach(function (c) { walk(c, cx, d + 1); cx += c.value * scale; });
      })(zoom, 0, anc.length);
      const svg = el('svg', { width: W, height: depth * rowH, viewBox: '0 0 ' + W + ' ' + depth * rowH, role: 'img', 'aria-label': 'flame graph' });
      items.forEach(function (it, i) {
        const g = el('g', { 'data-i': i }, svg);
        if (it.anc) g.setAttribute('class', 'anc');
        if (match && match(it.n.name)) g.setAttribute('class', (it.anc ? 'anc ' : '') + 'hit');
        const t = el('title', {}, g);
        t.textContent = it.n.name + '\n' + smp(it.n.value) + ', ' + pct(it.n.value, root.value) + ' of all' +
          (zoom !== root && !it.anc ? ', ' + pct(it.n.value, zoom.value) + ' of the view' : '');
        el('rect', { x: it.x.toFixed(2), y: it.d * rowH, width: Math.max(0.5, it.w - 0.5).toFixed(2), height: rowH - 1, fill: colour(it.n) }, g);
        if (it.w > 30) {
          const chars = Math.floor((it.w - 6) / 6.7);
          let s = it.n.name;
          if (s.length > chars) s = chars > 2 ? s.slice(0, chars - 1) + '…' : '';
          if (s) {
            const tx = el('text', { x: (it.x + 3).toFixed(2), y: it.d * rowH + 13 }, g);
            tx.textContent = s;
          }
        }
      });
      box.replaceChildren(svg);
      let text = (zoom === root ? 'all processes' : zoom.name) + ': ' + smp(zoom.value);
      if (match) {
        const m = matched(zoom);
        text += '; matching frames: ' + smp(m) + ' (' + pct(m, zoom.value) + ')';
      }
      info.textContent = text;
    }
    box.addEventListener('click', function (ev) {
      const g = ev.target.closest('g[data-i]');
      if (!g) return;
      const it = items[+g.getAttribute('data-i')];
      zoom = it.n;
      let p = zoom;
      while (p.parent && p.parent !== root) p = p.parent;
      procSel.value = zoom === root ? '' : String((root.children || []).indexOf(p));
      render();
    });
    procSel.addEventListener('change', function () {
      zoom = procSel.value === '' ? root : root.children[+procSel.value];
      render();
    });
    search.addEventListener('input', function () { match = matcher(search.value); render(); });
    doc.getElementById('flame-reset').addEventListener('click', function () { zoom = root; procSel.value = ''; render(); });
    let pending = 0;
    window.addEventListener('resize', function () {
      clearTimeout(pending);
      pending = setTimeout(function () { if (box.clientWidth !== drawnW) render(); }, 100);
    });
    hooks.push(function () { if (box.clientWidth && box.clientWidth !== drawnW) render(); });
  }

  // ---- sortable tables: click a heading; numbers sort on data-v or text.
  function cellKey(td) {
    if (!td) return '';
    const v = td.getAttribute('data-v');
    if (td.classList.contains('num')) {
      const n = parseFloat((v !== null && v !== '' ? v : td.textContent).replace(/[,+\s]/g, ''));
      return isNaN(n) ? -Infinity : n;
    }
    return (v !== null ? v : td.textContent).trim().toLowerCase();
  }
  doc.querySelectorAll('table.sortable').forEach(function (t) {
    if (!t.tHead || !t.tBodies.length) return;
    const ths = Array.from(t.tHead.rows[0].cells);
    ths.forEach(function (th, i) {
      th.title = 'sort';
      th.addEventListener('click', function () {
        const body = t.tBodies[0];
        const rows = Array.from(body.rows);
        const numeric = rows.length && rows[0].cells[i] && rows[0].cells[i].classList.contains('num');
        let dir = th.classList.contains('desc') ? 1 : th.classList.contains('asc') ? -1 : (numeric ? -1 : 1);
        ths.forEach(function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(dir > 0 ? 'asc' : 'desc');
        rows.sort(function (a, b) {
          const x = cellKey(a.cells[i]), y = cellKey(b.cells[i]);
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  doc.querySelectorAll('input.filter').forEach(function (inp) {
    const t = doc.getElementById(inp.dataset.table);
    inp.addEventListener('input', function () {
      const q = inp.value.trim().toLowerCase();
      Array.from(t.tBodies[0].rows).forEach(function (r) {
        r.style.display = !q || r.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
      });
    });
  });

  // ---- self-check: each chart's drawn size and marks, for the tests
  // (read with chromium --dump-dom) and for anyone curious.
  function selftest() {
    const charts = Array.from(doc.querySelectorAll('[data-chart]')).map(function (e) {
      const r = e.getBoundingClientRect();
      const s = e.closest('section');
      return {
        chart: e.getAttribute('data-chart'), section: s ? s.id : '',
        w: Math.round(r.width), h: Math.round(r.height),
        marks: e.querySelectorAll('rect,path,line,circle').length
      };
    });
    doc.documentElement.setAttribute('data-selftest', JSON.stringify({
      sections: sections.map(function (s) { return s.id; }),
      visible: sections.filter(function (s) { return s.offsetHeight > 0; }).map(function (s) { return s.id; }),
      charts: charts
    }));
  }
  show();
  selftest();
  doc.documentElement.setAttribute('data-ready', '1');
})();
