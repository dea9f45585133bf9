// The views other than the profile's that follow the time range the
// time charts select ('etw:range' events from report.js, seconds from
// the first event; the whole trace is from 0 to Infinity): the .NET
// processes' GCs and pauses (each GC counts where it starts) and the
// disk and file I/O totals (the buckets the range overlaps, as the
// profile counts them). The whole trace shows what the Go side wrote.
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
  // the .NET table's GC cells as written: columns 2 to 4
  const saved = dn ? Array.from(dn.tBodies[0].rows, function (tr) {
    return [2, 3, 4].map(function (c) { return [tr.cells[c].textContent, tr.cells[c].getAttribute('data-v')]; });
  }) : [];
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
    Array.from(dn.tBodies[0].rows).forEach(function (tr, i) {
      const s = by.get(+tr.getAttribute('data-pid')) || [0, 0, 0];
      [0, 1, 2].forEach(function (k) {
        const td = tr.cells[2 + k];
        if (whole) setCell(td, saved[i][k][0], saved[i][k][1]);
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
        fmt(t[1]) + ' writes (' + bytes(t[3]) + '). The tables and charts below are of the whole trace.';
    });
  }
  doc.addEventListener('etw:range', function (ev) {
    const d = ev.detail || {};
    const from = +d.from || 0, to = d.to === undefined ? Infinity : +d.to;
    const whole = from <= 0 && !(to < Infinity);
    dotnet(from, to, whole);
    ioRange(from, to, whole);
  });
})();
