// The events table: filters (provider, event, process, text), grouping
// and the rows the report keeps, from the counts the Go program wrote
// (exact, by provider, event name, process and time bucket). A time
// range selected on a time chart (the 'etw:range' event report.js
// dispatches) restricts the counts and the rows.
(function () {
  'use strict';
  const doc = document;
  const dataEl = doc.getElementById('events-data');
  if (!dataEl) return;
  const E = JSON.parse(dataEl.textContent);
  const $ = function (id) { return doc.getElementById(id); };
  const provSel = $('ev-prov'), nameSel = $('ev-name'), procSel = $('ev-proc'), textIn = $('ev-text'), groupSel = $('ev-group');
  const countEl = $('ev-count'), groupsT = $('ev-groups'), moreEl = $('ev-more'), rowsT = $('ev-rows');
  const NOID = 4294967295, MAXSHOW = 500, MAXGROUPS = 200;
  const G = E.groups, W = E.bucket_sec;
  const fmt = function (n) { return n.toLocaleString('en-US'); };
  const provLabel = function (i) { const p = E.providers[i]; return p.name || p.guid; };
  const procLabel = function (i) {
    const p = E.processes[i];
    if (p.pid === NOID) return 'Unknown';
    return p.name ? p.name + ' (' + p.pid + ')' : 'pid ' + p.pid;
  };
  // What the text filter matches in a group: its provider, event and
  // process names.
  const gtext = G.map(function (g) {
    return [provLabel(g[0]), E.providers[g[0]].guid, E.names[g[1]], procLabel(g[2])].join('\n').toLowerCase();
  });
  const gtotal = new Float64Array(G.length);
  for (let i = 0; i + 2 < E.counts.length; i += 3) gtotal[E.counts[i]] += E.counts[i + 2];
  let range = null; // [from, to) seconds from the first event, or null

  function option(sel, value, text) {
    const o = doc.createElement('option');
    o.value = String(value);
    o.textContent = text;
    sel.appendChild(o);
  }
  // Options: each value with its events in the whole trace, most first.
  function fillOptions(sel, dim, label, keep) {
    const sum = new Map();
    G.forEach(function (g, i) { if (keep(g)) sum.set(g[dim], (sum.get(g[dim]) || 0) + gtotal[i]); });
    const cur = sel.value;
    while (sel.options.length > 1) sel.remove(1);
    Array.from(sum.keys()).sort(function (a, b) { return sum.get(b) - sum.get(a) || (label(a) < label(b) ? -1 : 1); })
      .forEach(function (k) { option(sel, k, label(k) + ': ' + fmt(sum.get(k))); });
    sel.value = sum.has(+cur) ? cur : '';
  }
  const nameLabel = function (i) { return E.names[i]; };
  fillOptions(provSel, 0, provLabel, function () { return true; });
  fillOptions(procSel, 2, procLabel, function () { return true; });
  function fillNames() {
    const p = provSel.value;
    fillOptions(nameSel, 1, nameLabel, function (g) { return p === '' || g[0] === +p; });
  }
  fillNames();

  // The filters but the text.
  function selected(g) {
    return (provSel.value === '' || g[0] === +provSel.value) && (nameSel.value === '' || g[1] === +nameSel.value) &&
      (procSel.value === '' || g[2] === +procSel.value);
  }
  // The count buckets the range covers, rounded out.
  function bucketSpan() {
    if (!range) return [0, Infinity];
    return [Math.floor(range[0] / W + 1e-9), range[1] === Infinity ? Infinity : Math.ceil(range[1] / W - 1e-9)];
  }
  function secs(ticks) { return ticks / 1e7; }
  // The UTC time of a row: the first event's time plus its ticks.
  const startMS = Date.parse(E.start + 'Z'), startFrac = +E.start_frac;
  function utc(ticks) {
    const t = startFrac + ticks, s = Math.floor(t / 1e7), f = String(t - s * 1e7);
    return new Date(startMS + s * 1000).toISOString().slice(0, 19) + '.' + '0000000'.slice(f.length) + f + 'Z';
  }
  function quote(s) { return /^[\w@%+=:,./{}-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }
  // The command that dumps every event the filter selects.
  function command(q) {
    const args = ['tracerpt-go'].concat(E.files.map(quote), ['-of', 'JSON', '-o', '-']);
    let provs = [];
    if (provSel.value !== '') provs = [+provSel.value];
    const pipes = [];
    if (nameSel.value !== '') {
      const name = E.names[+nameSel.value];
      if (!provs.length) G.forEach(function (g) { if (g[1] === +nameSel.value && provs.indexOf(g[0]) < 0) provs.push(g[0]); });
      const m = /^\(no schema\) (id|opcode) (\d+)$/.exec(name);
      if (provs.length) args.push('--provider', quote(provs.map(function (p) { return E.providers[p].guid; }).join(',')));
      if (m && m[1] === 'id') args.push('--event-id', m[2]);
      else if (m) pipes.push('"opcode":' + m[2] + ',');
      else args.push('--event-name', quote(provs.map(function (p) { return E.providers[p].guid + '/' + name; }).join(',')));
    } else if (provs.length) {
      args.push('--provider', quote(E.providers[provs[0]].guid));
    }
    if (range) {
      args.push('--start', utc(Math.round(range[0] * 1e7)));
      if (range[1] !== Infinity) args.push('--end', utc(Math.round(range[1] * 1e7)));
    }
    let cmd = args.join(' ');
    // The dump's "pid" is the process the event belongs to, as here
    // (--pid matches the header's).
    if (procSel.value !== '') pipes.push('"pid":' + E.processes[+procSel.value].pid + ',');
    pipes.forEach(function (p) { cmd += ' | grep -F ' + quote(p); });
    if (q) cmd += ' | grep -i ' + quote(q);
    return cmd;
  }

  function cell(tr, text, cls) {
    const td = doc.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function update() {
    const q = textIn.value.trim().toLowerCase();
    const span = bucketSpan();
    const by = groupSel.value, dim = { prov: 0, name: 1, proc: 2 }[by];
    // Counts: the groups the filters and the text select, in the range.
    const gsel = G.map(function (g, i) { return selected(g); });
    const gtextOK = G.map(function (g, i) { return !q || gtext[i].indexOf(q) >= 0; });
    let total = 0;
    const perKey = new Map();
    for (let i = 0; i + 2 < E.counts.length; i += 3) {
      const g = E.counts[i], b = E.counts[i + 1];
      if (!gsel[g] || !gtextOK[g] || b < span[0] || b >= span[1]) continue;
      const n = E.counts[i + 2];
      total += n;
      if (dim !== undefined) { const k = G[g][dim]; perKey.set(k, (perKey.get(k) || 0) + n); }
    }
    // Rows: those kept that the filters select, in the range; the text
    // matches their names or their payload.
    const rows = [];
    let payloadOnly = 0;
    for (const r of E.rows) {
      const g = r[1], t = secs(r[0]);
      if (!gsel[g] || range && (t < range[0] || t >= range[1])) continue;
      if (q && !gtextOK[g]) {
        if (r[3].toLowerCase().indexOf(q) < 0) continue;
        payloadOnly++;
      }
      rows.push(r);
    }
    const where = range ? ' from +' + range[0].toFixed(6) + ' s to ' + (range[1] === Infinity ? 'the end' : '+' + range[1].toFixed(6) + ' s') +
      ' (counted in whole ' + (W >= 1 ? W + ' s' : +(W * 1e3).toPrecision(6) + ' ms') + ' buckets)' : ' in the whole trace';
    countEl.textContent = fmt(total) + ' events' + where + '; ' + fmt(rows.length) + ' of the rows the report keeps match' +
      (rows.length > MAXSHOW ? ', the first ' + MAXSHOW + ' shown' : '') + '.';
    countEl.dataset.n = String(total);
    countEl.dataset.rows = String(rows.length);

    // Groups.
    const gb = groupsT.tBodies[0];
    gb.replaceChildren();
    groupsT.hidden = dim === undefined;
    if (dim !== undefined) {
      groupsT.tHead.rows[0].cells[0].textContent = { prov: 'Provider', name: 'Event', proc: 'Process' }[by];
      const label = [provLabel, nameLabel, procLabel][dim], sel = [provSel, nameSel, procSel][dim];
      const keys = Array.from(perKey.keys()).sort(function (a, b) { return perKey.get(b) - perKey.get(a); });
      keys.slice(0, MAXGROUPS).forEach(function (k) {
        const tr = doc.createElement('tr');
        tr.dataset.key = String(k);
        tr.title = 'show these events';
        cell(tr, label(k));
        cell(tr, fmt(perKey.get(k)), 'num');
        cell(tr, (total ? (100 * perKey.get(k) / total).toFixed(1) : '0') + ' %', 'num');
        tr.addEventListener('click', function () {
          if (dim === 0) { provSel.value = String(k); fillNames(); } else sel.value = String(k);
          groupSel.value = '';
          update();
        });
        gb.appendChild(tr);
      });
      if (keys.length > MAXGROUPS) {
        const tr = doc.createElement('tr');
        cell(tr, 'and ' + fmt(keys.length - MAXGROUPS) + ' more').colSpan = 3;
        gb.appendChild(tr);
      }
    }

    // What the rows leave out, and how to get it.
    const kept = rows.length - payloadOnly;
    moreEl.replaceChildren();
    const cmd = command(textIn.value.trim());
    if (total > kept || payloadOnly > 0) {
      moreEl.hidden = false;
      let msg = total > kept ? 'Rows truncated: the report keeps ' + fmt(kept) + ' of these ' + fmt(total) +
        ' events (the first ' + E.rows_per_group + ' of each provider, event and process in each tenth of the trace); narrow the filter or the time range to see others. ' : '';
      if (payloadOnly > 0) msg += fmt(payloadOnly) + ' rows match the text in their payload only: the counts cannot include such events (the report counts by name). ';
      moreEl.append(msg + 'All of them: ');
      const code = doc.createElement('code');
      code.textContent = cmd;
      moreEl.appendChild(code);
    } else {
      moreEl.hidden = true;
    }

    // Rows.
    const tb = rowsT.tBodies[0];
    const frag = doc.createDocumentFragment();
    rows.slice(0, MAXSHOW).forEach(function (r) {
      const g = G[r[1]], p = E.processes[g[2]];
      const tr = doc.createElement('tr');
      cell(tr, '+' + secs(r[0]).toFixed(7) + ' s', 'num');
      cell(tr, utc(r[0]), 'ts');
      cell(tr, provLabel(g[0]));
      cell(tr, E.names[g[1]]);
      cell(tr, p.pid === NOID ? '' : String(p.pid), 'num');
      cell(tr, p.pid === NOID ? 'Unknown' : p.name);
      cell(tr, r[2] === NOID ? '' : String(r[2]), 'num');
      cell(tr, r[3], 'payload');
      frag.appendChild(tr);
    });
    tb.replaceChildren(frag);
  }
  provSel.addEventListener('change', function () { fillNames(); update(); });
  [nameSel, procSel, groupSel].forEach(function (s) { s.addEventListener('change', update); });
  let pending = 0;
  textIn.addEventListener('input', function () { clearTimeout(pending); pending = setTimeout(update, 120); });
  textIn.addEventListener('change', update);
  doc.addEventListener('etw:range', function (ev) {
    const d = ev.detail || {};
    const a = Math.max(0, +d.from || 0), b = d.to === undefined ? Infinity : +d.to;
    range = a <= 0 && b === Infinity ? null : [a, b];
    update();
  });
  update();
})();
