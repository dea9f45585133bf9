// The views other than the profile's that follow the time range the
// time charts select ('etw:range' events from report.js, seconds from
// the first event; the whole trace is from 0 to Infinity): the .NET
// processes' GCs and pauses (each GC counts where it starts) and the
// pause time by generation; the disk and file I/O totals and the tables
// and charts by process and by file; the allocations by type, the
// methods JIT-compiled by namespace and the .NET processes' of both; the
// processes table's events. A table over time counts the buckets the
// range overlaps (as the profile does) and ranks the rows of the whole
// trace's top rows the Go side kept over time. The whole trace shows
// what the Go side wrote.
(function () {
  'use strict';
  const doc = document;
  const fmt = function (v) { return v.toLocaleString('en-US'); };
  // The same rules as fmtBytes and fmtMS in html.go.
  function bytes(n) {
    if (n < 1024) return n + ' B';
    let v = n, i = 0;
    while (v >= 1024 && i < 4) { v /= 1024; i++; }
    return v.toFixed(1) + ' ' + ['B', 'KiB', 'MiB', 'GiB', 'TiB'][i];
  }
  function ms(v) {
    if (v === 0) return '0';
    return v.toFixed(v >= 100 ? 0 : v >= 1 ? 2 : 3);
  }
  function json(id) {
    const e = doc.getElementById(id);
    return e ? JSON.parse(e.textContent) : null;
  }
  const gcs = json('gc-data') || [];
  const io = json('io-data');
  const dn = doc.getElementById('dotnet-table');
  // Each cell a range changes keeps its text and data-v as written (on
  // the cell: rows move when a table is sorted).
  function keep(td) {
    if (!td.etwWhole) td.etwWhole = [td.textContent, td.getAttribute('data-v')];
    return td;
  }
  function restore(td) { if (td.etwWhole) setCell(td, td.etwWhole[0], td.etwWhole[1]); }
  function setCell(td, text, v) {
    td.textContent = text;
    if (v === null) td.removeAttribute('data-v'); else td.setAttribute('data-v', v);
  }
  function dotnet(from, to, whole) {
    if (!dn) return;
    const by = new Map();
    if (!whole) {
      gcs.forEach(function (g) {
        if (g[0] < from || g[0] >= to) return;
        const s = by.get(g[1]) || [0, 0, 0];
        s[0]++; s[1] += g[2]; s[2] = Math.max(s[2], g[2]);
        by.set(g[1], s);
      });
    }
    Array.from(dn.tBodies[0].rows).forEach(function (tr) {
      const s = by.get(+tr.getAttribute('data-pid')) || [0, 0, 0];
      [0, 1, 2].forEach(function (k) {
        const td = keep(tr.cells[2 + k]);
        if (whole) restore(td);
        else setCell(td, k === 0 ? fmt(s[0]) : ms(Math.round(s[k] * 1e4) / 1e4), s[k]);
      });
    });
  }
  function ioRange(from, to, whole) {
    if (!io) return;
    doc.querySelectorAll('.io-range').forEach(function (p) {
      const rows = io[p.getAttribute('data-kind') === 'disk' ? 'Disk' : 'File'] || [];
      if (whole || !(io.bucket_sec > 0)) { p.textContent = ''; p.removeAttribute('data-reads'); return; }
      const b0 = Math.floor(from / io.bucket_sec + 1e-9), b1 = Math.max(b0 + 1, Math.ceil(to / io.bucket_sec - 1e-9));
      const t = [0, 0, 0, 0];
      rows.forEach(function (r) { if (r[0] >= b0 && r[0] < b1) for (let k = 0; k < 4; k++) t[k] += r[k + 1]; });
      p.setAttribute('data-reads', t[0]);
      p.setAttribute('data-writes', t[1]);
      p.textContent = 'In the range selected (+' + from.toFixed(6) + ' s to +' + to.toFixed(6) + ' s): ' + fmt(t[0]) + ' reads (' + bytes(t[2]) + '), ' +
        fmt(t[1]) + ' writes (' + bytes(t[3]) + '). The tables and charts below are of the range too: its top ' + maxRows(io) + ' of the ' +
        maxRows(io) * 2 + ' processes and files with the most bytes over the whole trace.';
    });
  }

  // ---- tables over time: SeriesRow cells [bucket, values…] summed over
  // the buckets [b0, b1) of width w the range overlaps.
  function maxRows(o) { return o && o.max_rows > 0 ? o.max_rows : 25; }
  function span(from, to, w) {
    const b0 = Math.floor(from / w + 1e-9);
    return [b0, to === Infinity ? Infinity : Math.max(b0 + 1, Math.ceil(to / w - 1e-9))];
  }
  function sumRows(rows, w, from, to, n) {
    const sp = span(from, to, w);
    return rows.map(function (r) {
      const t = new Array(n).fill(0);
      r.cells.forEach(function (c) {
        if (c[0] < sp[0] || c[0] >= sp[1]) return;
        for (let k = 0; k < n; k++) t[k] += c[k + 1];
      });
      return { name: r.name, v: t };
    });
  }

  // ---- horizontal bar charts, drawn as barsSVG in svg.go draws them.
  const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
  function esc(t) {
    return String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
  }
  function trunc(t, n) { const r = Array.from(t); return r.length <= n ? t : r.slice(0, n - 1).join('') + '…'; }
  function r2(v) { return Math.round(v * 100) / 100; }
  // bars: [{label, values, title, color}]
  function barsSVG(name, label, bars, series, format) {
    const row = 22, left = 330, right = 110;
    if (!bars.length) {
      return '<svg class="chart bars" data-chart="' + name + '" role="img" aria-label="' + esc(label) + '" viewBox="0 0 1000 24"><text x="8" y="12" dy="0.32em">none in the range</text></svg>';
    }
    let peak = 0;
    bars.forEach(function (b) { peak = Math.max(peak, b.values.reduce(function (a, v) { return a + v; }, 0)); });
    if (peak === 0) peak = 1;
    const legend = series.length > 1 ? 22 : 0, w = 1000 - left - right;
    let o = '<svg class="chart bars" data-chart="' + name + '" role="img" aria-label="' + esc(label) + '" viewBox="0 0 1000 ' + (legend + row * bars.length + 4) + '">';
    if (legend) {
      let x = left;
      series.forEach(function (s, i) {
        o += '<rect x="' + x + '" y="4" width="12" height="12" fill="' + palette[i % palette.length] + '"/><text x="' + (x + 16) + '" y="10" dy="0.32em">' + esc(s) + '</text>';
        x += 30 + 8 * Array.from(s).length;
      });
    }
    bars.forEach(function (b, i) {
      const y = legend + i * row;
      o += '<g><title>' + esc(b.title || b.label) + '</title><text x="' + (left - 8) + '" y="' + (y + row / 2) + '" dy="0.32em" text-anchor="end">' + esc(trunc(b.label, 46)) + '</text>';
      let x = left, total = 0;
      b.values.forEach(function (v, si) {
        if (v <= 0) return;
        const bw = v / peak * w;
        o += '<rect x="' + r2(x) + '" y="' + (y + 3) + '" width="' + r2(Math.max(bw, 1)) + '" height="' + (row - 6) + '" fill="' + (b.color || palette[si % palette.length]) + '"/>';
        x += bw; total += v;
      });
      o += '<text class="value" x="' + r2(x + 6) + '" y="' + (y + row / 2) + '" dy="0.32em">' + esc(format(total)) + '</text></g>';
    });
    return o + '</svg>';
  }
  // A chart or table body as written, to put back for the whole trace.
  const kept = new Map();
  function replace(el, html) {
    if (!el) return null;
    if (!kept.has(el.getAttribute('data-chart') || el)) kept.set(el.getAttribute('data-chart') || el, el.outerHTML);
    el.outerHTML = html;
    return null;
  }
  function chart(name) { return doc.querySelector('svg[data-chart="' + name + '"]'); }
  function restoreChart(name) {
    const el = chart(name);
    if (el && kept.has(name)) el.outerHTML = kept.get(name);
  }
  function ord(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  // ---- I/O by process and by file: the rows with I/O in the range, most
  // bytes first (then operations, then name), as IOStats ranks them.
  function ioTables(from, to, whole) {
    if (!io) return;
    [['disk', io.disk_rows], ['file', io.file_rows]].forEach(function (k) {
      const kind = k[0], ot = k[1], box = doc.querySelector('.io-kind[data-kind="' + kind + '"]');
      if (!ot || !box) return;
      const tb = box.querySelector('table tbody');
      if (!kept.has(tb)) kept.set(tb, tb.innerHTML);
      if (whole) {
        restoreChart(kind + '-proc'); restoreChart(kind + '-file');
        tb.innerHTML = kept.get(tb);
        box.removeAttribute('data-range');
        return;
      }
      const top = function (rows) {
        return sumRows(rows, ot.bucket_sec, from, to, 7).filter(function (r) { return r.v[0] + r.v[1] > 0; }).sort(function (a, b) {
          return (b.v[2] + b.v[3]) - (a.v[2] + a.v[3]) || (b.v[0] + b.v[1]) - (a.v[0] + a.v[1]) || ord(a.name, b.name);
        }).slice(0, maxRows(io));
      };
      const procs = top(ot.by_process), files = top(ot.by_file);
      const bars = function (rows, path) {
        return rows.map(function (r) {
          const v = r.v;
          let title = r.name + '\nread ' + bytes(v[2]) + ' in ' + fmt(v[0]) + ' operations, written ' + bytes(v[3]) + ' in ' + fmt(v[1]);
          if (v[6] > 0) title += '\nlatency: average ' + ms(v[4] / v[6]) + ' ms, longest ' + ms(v[5]) + ' ms';
          const a = Array.from(r.name);
          return { label: path && a.length > 46 ? '…' + a.slice(a.length - 45).join('') : r.name, values: [v[2], v[3]], title: title };
        });
      };
      const f = function (v) { return bytes(v); };
      replace(chart(kind + '-proc'), barsSVG(kind + '-proc', kind + ' I/O bytes by process', bars(procs, false), ['read', 'written'], f));
      replace(chart(kind + '-file'), barsSVG(kind + '-file', kind + ' I/O bytes by file', bars(files, true), ['read', 'written'], f));
      tb.replaceChildren();
      files.forEach(function (r) {
        const v = r.v, tr = doc.createElement('tr');
        const td = function (text, cls, dv) {
          const c = doc.createElement('td');
          c.textContent = text; c.className = cls;
          if (dv !== undefined) c.setAttribute('data-v', dv);
          tr.appendChild(c);
        };
        td(r.name, 'path'); td(fmt(v[0]), 'num'); td(bytes(v[2]), 'num', v[2]); td(fmt(v[1]), 'num'); td(bytes(v[3]), 'num', v[3]);
        td(v[6] ? ms(v[4] / v[6]) : '', 'num'); td(v[6] ? ms(v[5]) : '', 'num');
        tb.appendChild(tr);
      });
      box.setAttribute('data-range', JSON.stringify({ procs: procs.map(function (r) { return [r.name, r.v[0], r.v[1], r.v[2], r.v[3]]; }),
        files: files.map(function (r) { return [r.name, r.v[0], r.v[1], r.v[2], r.v[3]]; }) }));
    });
  }

  // ---- .NET: allocations by type, methods JIT-compiled by namespace,
  // the processes' of both, the GC pause time by generation.
  const dnt = json('dotnet-data');
  const genColors = palette.slice(0, 3);
  function dotnetTables(from, to, whole) {
    if (whole) {
      ['alloc', 'jit', 'gc-gens'].forEach(restoreChart);
      const s = doc.getElementById('dotnet-range-data');
      if (s) s.remove();
      if (dn) Array.from(dn.tBodies[0].rows).forEach(function (tr) { [5, 6, 7].forEach(function (c) { restore(tr.cells[c]); }); });
      return;
    }
    const out = {};
    if (dnt) {
      const n = maxRows(dnt), w = dnt.bucket_sec;
      const alloc = sumRows(dnt.allocations, w, from, to, 2).filter(function (r) { return r.v[0] > 0; }).sort(function (a, b) {
        return b.v[1] - a.v[1] || b.v[0] - a.v[0] || ord(a.name, b.name);
      }).slice(0, n);
      const jit = sumRows(dnt.jit, w, from, to, 1).filter(function (r) { return r.v[0] > 0; }).sort(function (a, b) {
        return b.v[0] - a.v[0] || ord(a.name, b.name);
      }).slice(0, n);
      if (chart('alloc')) {
        replace(chart('alloc'), barsSVG('alloc', 'allocations by type', alloc.map(function (r) {
          return { label: r.name, values: [r.v[1]], title: r.name + ': ' + fmt(r.v[0]) + ' allocation ticks, ' + bytes(r.v[1]) };
        }), ['bytes'], function (v) { return bytes(v); }));
      }
      if (chart('jit')) {
        replace(chart('jit'), barsSVG('jit', 'methods JIT-compiled by type', jit.map(function (r) {
          return { label: r.name, values: [r.v[0]] };
        }), ['methods'], fmt));
      }
      out.alloc = alloc.map(function (r) { return [r.name, r.v[0], r.v[1]]; });
      out.jit = jit.map(function (r) { return [r.name, r.v[0]]; });
      if (dn) {
        const procs = sumRows(dnt.processes, w, from, to, 3);
        Array.from(dn.tBodies[0].rows).forEach(function (tr) {
          const p = procs[+tr.getAttribute('data-i')], v = p ? p.v : [0, 0, 0];
          setCell(keep(tr.cells[5]), fmt(v[0]), null); setCell(keep(tr.cells[6]), fmt(v[1]), null); setCell(keep(tr.cells[7]), bytes(v[2]), v[2]);
        });
      }
    }
    if (chart('gc-gens')) {
      const by = new Map();
      gcs.forEach(function (g) {
        if (g[0] < from || g[0] >= to) return;
        const s = by.get(g[3]) || [0, 0, 0];
        s[0]++; s[1] += g[2]; s[2] = Math.max(s[2], g[2]);
        by.set(g[3], s);
      });
      const gens = Array.from(by.keys()).sort(function (a, b) { return a - b; });
      replace(chart('gc-gens'), barsSVG('gc-gens', 'GC pause time by generation', gens.map(function (g) {
        const s = by.get(g), tot = Math.round(s[1] * 1e4) / 1e4;
        return { label: 'generation ' + g + ': ' + fmt(s[0]) + ' GCs', color: genColors[Math.min(g, 2)], values: [tot],
          title: 'generation ' + g + ': ' + s[0] + ' GCs, pauses ' + ms(tot) + ' ms in all, longest ' + ms(s[2]) + ' ms' };
      }), ['pause ms'], function (v) { return ms(v) + ' ms'; }));
      out.gens = gens.map(function (g) { return [g, by.get(g)[0]]; });
    }
    let s = doc.getElementById('dotnet-range-data');
    if (!s) {
      s = doc.createElement('script');
      s.type = 'application/json'; s.id = 'dotnet-range-data';
      (doc.getElementById('dotnet') || doc.body).appendChild(s);
    }
    s.textContent = JSON.stringify(out);
  }

  // ---- the processes table's events: the events table's counts (by
  // process and bucket of its own width) in the buckets the range
  // overlaps.
  let ev = null;
  function events(from, to, whole) {
    const t = doc.getElementById('proc-table');
    if (!t) return;
    const col = Array.from(t.tHead.rows[0].cells).findIndex(function (th) { return th.textContent === 'Events'; });
    if (col < 0) return;
    const rows = Array.from(t.tBodies[0].rows);
    const put = function (tr, dv, width, text) {
      const td = tr.cells[col], bar = td.querySelector('.ibar'), v = td.querySelector('.iv');
      if (!td.etwWhole) td.etwWhole = [td.getAttribute('data-v'), bar ? bar.style.width : '', v ? v.textContent : ''];
      td.setAttribute('data-v', dv);
      if (bar) bar.style.width = width;
      if (v) v.textContent = text;
    };
    if (whole) {
      rows.forEach(function (tr) { const w = tr.cells[col].etwWhole; if (w) put(tr, w[0], w[1], w[2]); });
      return;
    }
    if (ev === null) ev = json('events-data') || false;
    if (!ev) return;
    const sp = span(from, to, ev.bucket_sec), by = new Float64Array(ev.processes.length), c = ev.counts;
    for (let i = 0; i + 2 < c.length; i += 3) {
      if (c[i + 1] >= sp[0] && c[i + 1] < sp[1]) by[ev.groups[c[i]][2]] += c[i + 2];
    }
    const vals = rows.map(function (tr) { const p = +(tr.getAttribute('data-evp') || 0); return p > 0 ? by[p - 1] : 0; });
    const top = Math.max.apply(null, vals.concat([0]));
    rows.forEach(function (tr, i) { put(tr, vals[i], (top ? Math.round(vals[i] / top * 1000) / 10 : 0) + '%', fmt(vals[i])); });
  }

  doc.addEventListener('etw:range', function (e) {
    const d = e.detail || {};
    const from = +d.from || 0, to = d.to === undefined ? Infinity : +d.to;
    const whole = from <= 0 && !(to < Infinity);
    dotnet(from, to, whole);
    ioRange(from, to, whole);
    ioTables(from, to, whole);
    dotnetTables(from, to, whole);
    events(from, to, whole);
  });
})();
