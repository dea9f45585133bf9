package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
)

// provEvent is a provider and event name.
type provEvent struct {
	guid uuid.UUID
	name string
}

// decodedCounts are the counts of a trace's events as the decoder gives
// them, event by event, without the report.
type decodedCounts struct {
	events  int
	byEvent map[provEvent]int
	byProv  map[uuid.UUID]int
	// inRange counts the events in buckets [lo, hi) of the report's
	// count buckets.
	lo, hi, inRange int
}

// countDecoded reads the corpus file rel with a decoder of its own and
// counts its events by provider and event name, and those in buckets
// [lo, hi) of width e.BucketSec from the first event.
func countDecoded(t *testing.T, rel string, e *Events, lo, hi int) *decodedCounts {
	t.Helper()
	files := openCorpus(t, rel)
	dec := decode.New()
	dec.Prescan(files)
	r := etl.NewReader(files, nil)
	defer r.Close()
	dc := &decodedCounts{byEvent: map[provEvent]int{}, byProv: map[uuid.UUID]int{}, lo: lo, hi: hi}
	var times []int64
	t0 := int64(math.MaxInt64)
	for r.Next() {
		ev := r.Event()
		res := dec.Decode(ev)
		dc.events++
		dc.byEvent[provEvent{ev.ProviderID, eventName(ev, res)}]++
		dc.byProv[ev.ProviderID]++
		times = append(times, ev.Time)
		t0 = min(t0, ev.Time)
	}
	width := int64(math.Round(e.BucketSec * 1e7))
	for _, tm := range times {
		if b := int((tm - t0) / width); b >= lo && b < hi {
			dc.inRange++
		}
	}
	return dc
}

// openCorpus opens the corpus file rel for the test.
func openCorpus(t *testing.T, rel string) []*etl.File {
	t.Helper()
	f, err := etl.Open(corpusFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return []*etl.File{f}
}

// groupSums adds up the report's counts by provider and event name, and
// those in buckets [lo, hi).
func groupSums(t *testing.T, e *Events, lo, hi int) (total, inRange int, byEvent map[provEvent]int) {
	t.Helper()
	byEvent = map[provEvent]int{}
	for i := 0; i+2 < len(e.Counts); i += 3 {
		g, b, n := e.Groups[e.Counts[i]], e.Counts[i+1], e.Counts[i+2]
		guid, err := uuid.Parse(e.Providers[g[0]].GUID)
		if err != nil {
			t.Fatal(err)
		}
		byEvent[provEvent{guid, e.Names[g[1]]}] += n
		total += n
		if b >= lo && b < hi {
			inRange += n
		}
	}
	return total, inRange, byEvent
}

// TestEventsCorpus: on net.4.5.2.x64 and a PktMon capture, the events
// table's counts by provider and event name are the decoder's, event by
// event, and those of a range of buckets too; the rows are bounded, in
// time order, and each group in each tenth of the trace has rows.
func TestEventsCorpus(t *testing.T) {
	for _, rel := range []string{netRel, pktmonRel} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			d, page := corpusReport(t, rel)
			e := d.Events
			if e == nil {
				t.Fatal("no events table")
			}
			lo, hi := e.Buckets/4, e.Buckets/2
			dc := countDecoded(t, rel, e, lo, hi)
			total, inRange, byEvent := groupSums(t, e, lo, hi)
			if total != dc.events || total != d.Overview.Events {
				t.Errorf("counts add up to %d events; the decoder read %d, the overview says %d", total, dc.events, d.Overview.Events)
			}
			if len(byEvent) != len(dc.byEvent) {
				t.Errorf("%d provider/event pairs, the decoder has %d", len(byEvent), len(dc.byEvent))
			}
			for k, n := range dc.byEvent {
				if byEvent[k] != n {
					t.Errorf("%v %q: %d events in the table, %d decoded", k.guid, k.name, byEvent[k], n)
				}
			}
			for _, p := range d.Providers {
				g, _ := uuid.Parse(p.GUID)
				if dc.byProv[g] != p.Events {
					t.Errorf("provider %s: %d decoded, providers table %d", p.GUID, dc.byProv[g], p.Events)
				}
			}
			if inRange != dc.inRange || inRange == 0 {
				t.Errorf("buckets %d..%d: %d events in the table, %d decoded", lo, hi, inRange, dc.inRange)
			}
			if len(e.Rows) == 0 || len(e.Rows) > maxEventRows || e.RowsPerGroup < 1 {
				t.Fatalf("%d rows, %d per group", len(e.Rows), e.RowsPerGroup)
			}
			held := map[[2]int]int{}
			segLen := int64(math.Round(d.Overview.DurationSec*1e7))/eventSegments + 1
			for i, r := range e.Rows {
				if i > 0 && r.Ticks < e.Rows[i-1].Ticks {
					t.Fatalf("row %d out of time order", i)
				}
				if len(r.Payload) > payloadBytes+len("…") {
					t.Errorf("row %d: payload of %d bytes", i, len(r.Payload))
				}
				held[[2]int{r.Group, int(r.Ticks / segLen)}]++
			}
			for k, n := range held {
				if n > e.RowsPerGroup {
					t.Errorf("group %d, segment %d: %d rows, bound %d", k[0], k[1], n, e.RowsPerGroup)
				}
			}
			t.Logf("%d groups, %d count entries, %d rows (%d per group and tenth), bucket %g s; page %d bytes",
				len(e.Groups), len(e.Counts)/3, len(e.Rows), e.RowsPerGroup, e.BucketSec, len(page))
		})
	}
}

// textCount is what the page counts for a text filter: the events of the
// groups whose provider, event or process names hold q (any case).
func textCount(e *Events, q string) int {
	q = strings.ToLower(q)
	n := 0
	for i := 0; i+2 < len(e.Counts); i += 3 {
		g := e.Groups[e.Counts[i]]
		pr, pc := e.Providers[g[0]], e.Processes[g[2]]
		label := pr.Name
		if label == "" {
			label = pr.GUID
		}
		proc := "Unknown"
		switch {
		case pc.PID != math.MaxUint32 && pc.Name != "":
			proc = pc.Name + " (" + strconv.FormatUint(uint64(pc.PID), 10) + ")"
		case pc.PID != math.MaxUint32:
			proc = "pid " + strconv.FormatUint(uint64(pc.PID), 10)
		}
		if strings.Contains(strings.ToLower(strings.Join([]string{label, pr.GUID, e.Names[g[1]], proc}, "\n")), q) {
			n += e.Counts[i+2]
		}
	}
	return n
}

// eventsCheck uses the events table in the browser: with no filter it
// counts every event; filtered by the provider with most events, that
// provider's count in the providers table (the decoder's), with rows;
// filtered by text, the events of the groups whose names hold it;
// grouped by provider, one row per provider adding up to the total; a
// time range (the 'etw:range' event report.js dispatches) counts the
// events in it, as a decoder of its own counts them for the corpus files.
func eventsCheck(t *testing.T, p *tab, bc browserCase, d *Data) {
	t.Helper()
	e := d.Events
	if err := p.eval(`location.hash = '#events'; new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, nil); err != nil {
		t.Fatal(err)
	}
	type state struct {
		N, Rows, Shown, Groups int
		First                  string
		More                   string
		Cells                  []string
	}
	// set applies a filter (JS statements) and returns what the page shows.
	set := func(js string) state {
		t.Helper()
		var s state
		err := p.eval(`(() => { const $ = id => document.getElementById(id);
			const prov = $('ev-prov'), name = $('ev-name'), proc = $('ev-proc'), text = $('ev-text'), group = $('ev-group');
			`+js+`;
			const c = $('ev-count'), rows = $('ev-rows').tBodies[0].rows, g = $('ev-groups');
			return {N: +c.dataset.n, Rows: +c.dataset.rows, Shown: rows.length,
				Groups: g.hidden ? 0 : g.tBodies[0].rows.length,
				First: g.hidden || !g.tBodies[0].rows.length ? '' : g.tBodies[0].rows[0].cells[1].textContent,
				More: $('ev-more').hidden ? '' : $('ev-more').textContent,
				Cells: Array.from(rows).slice(0, 50).map(r => r.textContent.toLowerCase())}; })()`, &s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	reset := `prov.value = ''; prov.dispatchEvent(new Event('change')); name.value = ''; proc.value = ''; text.value = ''; group.value = ''; text.dispatchEvent(new Event('change'))`
	s := set(reset)
	if s.N != d.Overview.Events || s.Rows != len(e.Rows) || s.Shown != min(len(e.Rows), 500) {
		t.Errorf("no filter: %d events, %d rows (%d shown); want %d events, %d rows", s.N, s.Rows, s.Shown, d.Overview.Events, len(e.Rows))
	}
	if (s.More != "") != (len(e.Rows) < d.Overview.Events) {
		t.Errorf("no filter: truncation note %q for %d rows of %d events", s.More, len(e.Rows), d.Overview.Events)
	}
	// The provider with most events.
	top := d.Providers[0]
	pi := slices.IndexFunc(e.Providers, func(p EventsProvider) bool { return p.GUID == top.GUID })
	s = set(reset + fmt.Sprintf(`; prov.value = '%d'; prov.dispatchEvent(new Event('change'))`, pi))
	if s.N != top.Events || s.Rows == 0 {
		t.Errorf("provider %s: %d events, %d rows; the providers table counts %d", top.GUID, s.N, s.Rows, top.Events)
	}
	if s.N > s.Rows && !strings.Contains(s.More, "Rows truncated") || !strings.Contains(s.More+"--provider "+top.GUID, "--provider "+top.GUID) {
		t.Errorf("provider %s: note %q", top.GUID, s.More)
	}
	// Text: the name of the second group with most events, in upper case.
	q := e.Names[e.Groups[0][1]]
	if len(e.Groups) > 1 {
		q = e.Names[e.Groups[1][1]]
	}
	want := textCount(e, q)
	s = set(reset + fmt.Sprintf(`; text.value = %q; text.dispatchEvent(new Event('change'))`, strings.ToUpper(q)))
	if s.N != want || want == 0 || s.Rows == 0 {
		t.Errorf("text %q: %d events, %d rows; want %d events", q, s.N, s.Rows, want)
	}
	for _, c := range s.Cells {
		if !strings.Contains(c, strings.ToLower(q)) {
			t.Errorf("text %q: row %q", q, c)
			break
		}
	}
	// Grouped by provider.
	s = set(reset + `; group.value = 'prov'; group.dispatchEvent(new Event('change'))`)
	if s.Groups != min(len(e.Providers), 200) || s.First != thousands(int64(top.Events)) || s.N != d.Overview.Events {
		t.Errorf("by provider: %d groups, first %q; want %d, %d", s.Groups, s.First, len(e.Providers), top.Events)
	}
	// A click on a group filters by it.
	s = set(`document.querySelector('#ev-groups tbody tr').click()`)
	if s.N != top.Events || s.Groups != 0 {
		t.Errorf("click on the first provider: %d events, %d groups", s.N, s.Groups)
	}
	// A time range: buckets [lo, hi).
	lo, hi := e.Buckets/4, e.Buckets/2
	want = 0
	if bc.rel != "" {
		want = countDecoded(t, bc.rel, e, lo, hi).inRange
	} else {
		_, want, _ = groupSums(t, e, lo, hi)
	}
	s = set(reset + fmt.Sprintf(`; document.dispatchEvent(new CustomEvent('etw:range', {detail: {from: %d * %v, to: %d * %v}}))`, lo, e.BucketSec, hi, e.BucketSec))
	if s.N != want {
		t.Errorf("range of buckets %d..%d: %d events, want %d", lo, hi, s.N, want)
	}
	// The same range selected through the page's time charts (report.js
	// dispatches it).
	if d.Timeline != nil {
		var n int
		err := p.eval(fmt.Sprintf(`document.dispatchEvent(new CustomEvent('etw:range', {detail: {from: 0, to: Infinity}})); location.hash = '#events/%v,%v'; new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))).then(() => +document.getElementById('ev-count').dataset.n)`,
			float64(lo)*e.BucketSec, float64(hi)*e.BucketSec), &n)
		if err != nil {
			t.Fatal(err)
		}
		if n != s.N {
			t.Errorf("range of buckets %d..%d selected through the URL: %d events, want %d", lo, hi, n, s.N)
		}
	}
	for _, r := range e.Rows {
		if sec := float64(r.Ticks) / 1e7; sec >= float64(lo)*e.BucketSec && sec < float64(hi)*e.BucketSec {
			want = -1 // a row in the range
		}
	}
	if want == -1 && s.Rows == 0 || s.N > 0 && s.N > s.Rows && !strings.Contains(s.More, "--start ") {
		t.Errorf("range of buckets %d..%d: %d rows, note %q", lo, hi, s.Rows, s.More)
	}
	// The command the page gives dumps the events it counts: a group
	// (provider, event, process) of the provider with most events, in
	// the range.
	if bc.rel != "" {
		g := slices.IndexFunc(e.Groups, func(g [3]int) bool { return g[0] == pi })
		gr := e.Groups[g]
		var cmd string
		s = set(fmt.Sprintf(`prov.value = '%d'; prov.dispatchEvent(new Event('change')); name.value = '%d'; proc.value = '%d'; proc.dispatchEvent(new Event('change'))`, gr[0], gr[1], gr[2]))
		if err := p.eval(`(document.querySelector('#ev-more code') || {}).textContent || ''`, &cmd); err != nil {
			t.Fatal(err)
		}
		if cmd == "" {
			if s.N > s.Rows {
				t.Errorf("group %v: %d events, %d rows, no command", gr, s.N, s.Rows)
			}
		} else if n := dumpCount(t, bc.rel, cmd); n != s.N || n == 0 {
			t.Errorf("group %v: %d events; the command %s dumps %d", gr, s.N, cmd, n)
		} else {
			t.Logf("%s: %d events, as the page counts", cmd, n)
		}
	}
	s = set(reset + `; document.dispatchEvent(new CustomEvent('etw:range', {detail: {from: 0, to: Infinity}}))`)
	if s.N != d.Overview.Events {
		t.Errorf("range reset: %d events, want %d", s.N, d.Overview.Events)
	}
	p.checkConsole(t)
}

// dumpCount counts the events the command cmd (as the events table
// writes it: tracerpt-go FILE -of JSON -o - with --provider,
// --event-name, --event-id, --start and --end, then grep -F of the
// dump's "pid" or "opcode") dumps from the corpus file rel: the dump's
// filters (package pipeline) and its process attribution (the analysis
// model), without the report.
func dumpCount(t *testing.T, rel, cmd string) int {
	t.Helper()
	var args []string
	for _, w := range strings.Fields(cmd) {
		args = append(args, strings.Trim(w, "'"))
	}
	var f pipeline.Filter
	pid, opcode := int64(-1), int64(-1)
	for i := 0; i+1 < len(args); i++ {
		a, val := args[i], args[i+1]
		var err error
		switch a {
		case "--provider":
			for _, s := range strings.Split(val, ",") {
				p, perr := pipeline.ParseProvider(s)
				err = cmp.Or(err, perr)
				f.Providers = append(f.Providers, p)
			}
		case "--event-name":
			for _, s := range strings.Split(val, ",") {
				n, nerr := pipeline.ParseEventName(s)
				err = cmp.Or(err, nerr)
				f.EventNames = append(f.EventNames, n)
			}
		case "--event-id":
			f.EventIDs, err = pipeline.ParseRanges(val, 65535)
		case "--start":
			f.Start, err = pipeline.ParseTime(val, 0)
			f.HasStart = true
		case "--end":
			f.End, err = pipeline.ParseTime(val, 0)
			f.HasEnd = true
		case "-F":
			if v, ok := strings.CutPrefix(val, `"pid":`); ok {
				pid, err = strconv.ParseInt(strings.TrimSuffix(v, ","), 10, 64)
			} else if v, ok := strings.CutPrefix(val, `"opcode":`); ok {
				opcode, err = strconv.ParseInt(strings.TrimSuffix(v, ","), 10, 64)
			} else {
				t.Fatalf("%s: grep %q", cmd, val)
			}
		case "-i":
			t.Fatalf("%s: a text filter", cmd)
		}
		if err != nil {
			t.Fatalf("%s: %s %s: %v", cmd, a, val, err)
		}
	}
	files := openCorpus(t, rel)
	dec := decode.New()
	m, _, _ := pipeline.Prepare(files, dec)
	r := etl.NewReader(files, nil)
	defer r.Close()
	n := 0
	for r.Next() {
		ev := r.Event()
		res := dec.Decode(ev)
		if !f.MatchHeader(ev) || f.NeedsSchema() && !f.MatchSchema(ev, res.Schema) {
			continue
		}
		if p, _, _ := m.EventProcess(ev, res); pid >= 0 && int64(p) != pid || opcode >= 0 && int64(ev.Descriptor.Opcode) != opcode {
			continue
		}
		n++
	}
	return n
}

// TestEventsBounds lowers the events table's bounds on the PktMon
// capture: the count buckets are made wider past maxCountEntries and the
// rows per group and segment halved past maxRowsHeld, and the counts
// still add up to the decoder's.
func TestEventsBounds(t *testing.T) {
	full, _ := corpusReport(t, pktmonRel)
	defer func(c, r int) { maxCountEntries, maxRowsHeld = c, r }(maxCountEntries, maxRowsHeld)
	// 60 counts: buckets 10 times wider; 20: fewer than the groups, one
	// bucket for the whole trace.
	for _, bound := range []int{60, 20} {
		maxCountEntries, maxRowsHeld = bound, 50
		d, page := corpusReport(t, pktmonRel)
		e := d.Events
		if e.BucketSec < full.Events.BucketSec*10 || bound == 20 && e.Buckets != 1 || bound == 60 && (e.Buckets < 2 || len(e.Counts)/3 > bound) {
			t.Errorf("bound %d: %d buckets of %g s, %d counts; without the bound %g s", bound, e.Buckets, e.BucketSec, len(e.Counts)/3, full.Events.BucketSec)
		}
		if e.RowsPerGroup >= full.Events.RowsPerGroup || len(e.Rows) > maxRowsHeld {
			t.Errorf("%d rows, %d per group; without the bound %d per group", len(e.Rows), e.RowsPerGroup, full.Events.RowsPerGroup)
		}
		hi := (e.Buckets + 1) / 2
		dc := countDecoded(t, pktmonRel, e, 0, hi)
		total, inRange, byEvent := groupSums(t, e, 0, hi)
		if total != dc.events || inRange != dc.inRange || len(byEvent) != len(dc.byEvent) {
			t.Errorf("bound %d: %d events, %d in buckets 0..%d; the decoder %d, %d", bound, total, inRange, hi, dc.events, dc.inRange)
		}
		for k, n := range dc.byEvent {
			if byEvent[k] != n {
				t.Errorf("%v %q: %d events in the table, %d decoded", k.guid, k.name, byEvent[k], n)
			}
		}
		if !strings.Contains(string(page), `id="events-data"`) {
			t.Error("no events data in the page")
		}
	}
}

// TestEventRowsJSON: the rows are arrays, their payloads JSON strings
// that cannot end the page's script element.
func TestEventRowsJSON(t *testing.T) {
	b, err := json.Marshal(EventRows{{Ticks: 12, Group: 3, TID: math.MaxUint32, Payload: "a=</script><b> \"q\" é\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[12,3,4294967295,"a=\u003c/script\u003e\u003cb\u003e \"q\" é\n"]]`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
	var back [][]any
	if err := json.Unmarshal(b, &back); err != nil || back[0][3] != "a=</script><b> \"q\" é\n" {
		t.Errorf("%v %v", back, err)
	}
}
