package report

import (
	_ "embed"
	"encoding/json"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/tdh"
)

//go:embed assets/events.js
var eventsJS string

// Events is the events table: every event counted by provider, event
// name, process and time bucket (exact counts, whatever the filter), and
// a bounded sample of the events themselves.
type Events struct {
	// BucketSec is the width of the count buckets: bucket i covers
	// [i·BucketSec, (i+1)·BucketSec) seconds from the first event (a
	// multiple of the timeline's, coarser when the trace has many
	// groups).
	BucketSec float64 `json:"bucket_sec"`
	Buckets   int     `json:"buckets"`
	// Providers, Names and Processes are the values the groups refer to.
	Providers []EventsProvider `json:"providers"`
	Names     []string         `json:"names"`
	Processes []EventsProcess  `json:"processes"`
	// Groups are the (provider, event name, process) triples, as indexes
	// into Providers, Names and Processes.
	Groups [][3]int `json:"groups"`
	// Counts holds, flat, (group, bucket, events) for every bucket in
	// which a group has events, by group then bucket. They add up to the
	// trace's events.
	Counts []int `json:"counts"`
	// Segments and RowsPerGroup bound Rows: the first RowsPerGroup
	// events of each group in each of Segments equal parts of the trace.
	Segments     int `json:"segments"`
	RowsPerGroup int `json:"rows_per_group"`
	// Rows are the events kept, in time order.
	Rows EventRows `json:"rows"`
}

// EventsProvider is one provider (event class of classic and kernel
// events), as the providers table names it.
type EventsProvider struct {
	Name string `json:"name"`
	GUID string `json:"guid"`
}

// EventsProcess is one process the events belong to: its pid
// (4294967295 when the trace does not tell) and its image name ("" when
// the trace does not name it).
type EventsProcess struct {
	PID  uint32 `json:"pid"`
	Name string `json:"name"`
}

// EventRow is one event kept.
type EventRow struct {
	// Ticks is the event's time in 100 ns from the first event.
	Ticks int64
	Group int
	// TID is the thread (4294967295 when the trace does not tell).
	TID uint32
	// Payload is the decoded properties as name=value pairs (the dump's
	// text rendering), truncated.
	Payload string
}

// EventRows are the events kept, written in JSON as one array
// [ticks, group, tid, payload] per row.
type EventRows []EventRow

// MarshalJSON writes the rows as arrays.
func (rows EventRows) MarshalJSON() ([]byte, error) {
	n := 2
	for _, r := range rows {
		n += len(r.Payload) + 48
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, r.Ticks, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Group), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(r.TID), 10)
		b = append(b, ',')
		b = eventjson.AppendString(b, r.Payload)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// Bounds of the events table.
const (
	// eventSegments: rows are kept per group in each of these parts of
	// the trace, so that a time range shows rows.
	eventSegments = 10
	// maxRowsPerSegment is the most rows kept per group and segment.
	maxRowsPerSegment = 8
	// maxEventRows bounds the rows in the report; the rows per group and
	// segment are lowered until they fit.
	maxEventRows = 6000
	// payloadBytes bounds a row's payload text.
	payloadBytes = 160
)

// Bounds of the events table while reading (variables for the tests).
var (
	// maxRowsHeld bounds the rows held during the pass.
	maxRowsHeld = 4 * maxEventRows
	// maxCountEntries bounds the (group, bucket) counts: past it the
	// buckets are made 10 times wider.
	maxCountEntries = 60000
)

// nameKey names an event within its provider: its schema, or without
// one its descriptor's id and opcode.
type nameKey struct {
	prov   int32
	schema *tdh.Event
	id     uint16
	opcode uint8
}

// procKey is an event's process: the model's record, or the pid alone.
type procKey struct {
	p   *analysis.Process
	pid uint32
}

type countKey struct{ g, b int32 }

// eventsCollector counts the events by group and bucket and keeps the
// first of each group in each segment of the trace.
type eventsCollector struct {
	c      *collector
	width  int64 // count bucket width, 100 ns
	segLen int64 // segment length, 100 ns
	span   int64 // from the axis start to the last event, 100 ns

	provs   providerIndex
	nameIdx map[nameKey]int32
	names   []string
	nameOf  map[string]int32 // distinct name strings
	procIdx map[procKey]int32
	procs   []EventsProcess
	groupOf map[[3]int32]int32
	groups  [][3]int32

	// The last event's name, process and group, and their indexes (-1
	// before the first event).
	lastNK  nameKey
	lastNI  int32
	lastPK  procKey
	lastPrI int32
	last    [3]int32
	lastG   int32

	counts map[countKey]int32
	lastCK countKey
	pend   int32
	held   [][eventSegments]uint8 // rows held per group and segment
	perSeg int                    // rows kept per group and segment
	rows   []heldRow
	buf    []byte // a row's payload text
}

type heldRow struct {
	EventRow
	rank uint8 // the row's place in its group and segment
}

func newEventsCollector(c *collector) *eventsCollector {
	v := &eventsCollector{c: c, width: max(c.axis.Width, 1), nameIdx: map[nameKey]int32{},
		nameOf: map[string]int32{}, procIdx: map[procKey]int32{}, groupOf: map[[3]int32]int32{},
		counts: map[countKey]int32{}, perSeg: maxRowsPerSegment, lastNI: -1, lastPrI: -1, lastG: -1}
	v.span = etl.SubTime(c.t1, c.axis.Start)
	if c.axis.Buckets > 0 {
		v.segLen = max(v.span/eventSegments+1, 1)
	}
	return v
}

func (v *eventsCollector) observe(ev *etl.Event, res *decode.Result) {
	c := v.c
	if c.axis.Buckets == 0 {
		return
	}
	provNum, _ := v.provs.number(ev.ProviderID)
	nk := nameKey{prov: provNum}
	if res != nil && res.Schema != nil {
		nk.schema = res.Schema
	} else {
		nk.id, nk.opcode = ev.Descriptor.ID, ev.Descriptor.Opcode
	}
	if nk != v.lastNK || v.lastNI < 0 {
		ni, ok := v.nameIdx[nk]
		if !ok {
			ni = v.intern(eventName(ev, res))
			v.nameIdx[nk] = ni
		}
		v.lastNK, v.lastNI = nk, ni
	}
	ni := v.lastNI
	pid, tid, p := c.m.EventProcess(ev, res)
	pk := procKey{p: p}
	if p == nil {
		pk.pid = pid
	}
	if pk != v.lastPK || v.lastPrI < 0 {
		pi, ok := v.procIdx[pk]
		if !ok {
			pi = int32(len(v.procs))
			v.procIdx[pk] = pi
			var name string
			if p != nil {
				name = p.Name
			}
			v.procs = append(v.procs, EventsProcess{PID: pid, Name: name})
		}
		v.lastPK, v.lastPrI = pk, pi
	}
	pi := v.lastPrI
	key := [3]int32{provNum, ni, pi}
	g := v.lastG
	if g < 0 || key != v.last {
		var ok bool
		g, ok = v.groupOf[key]
		if !ok {
			g = int32(len(v.groups))
			v.groupOf[key] = g
			v.groups = append(v.groups, key)
			v.held = append(v.held, [eventSegments]uint8{})
		}
		v.last, v.lastG = key, g
	}
	rel := max(etl.SubTime(ev.Time, c.axis.Start), 0)
	if ck := (countKey{g, int32(min(rel, v.span) / v.width)}); ck == v.lastCK && v.pend > 0 {
		v.pend++
	} else {
		v.flush() // which may make the buckets wider
		v.lastCK, v.pend = countKey{g, int32(min(rel, v.span) / v.width)}, 1
	}
	seg := min(int(rel/v.segLen), eventSegments-1)
	if n := v.held[g][seg]; int(n) < v.perSeg {
		v.held[g][seg] = n + 1
		v.keep(heldRow{EventRow{Ticks: rel, Group: int(g), TID: tid, Payload: v.payload(res)}, n})
	}
}

// intern returns the index of an event name.
func (v *eventsCollector) intern(name string) int32 {
	i, ok := v.nameOf[name]
	if !ok {
		i = int32(len(v.names))
		v.nameOf[name] = i
		v.names = append(v.names, name)
	}
	return i
}

// flush adds the pending count; once the counts are too many, the
// buckets are made 10 times wider (until one holds the whole trace).
func (v *eventsCollector) flush() {
	if v.pend == 0 {
		return
	}
	v.counts[v.lastCK] += v.pend
	v.pend = 0
	if len(v.counts) <= maxCountEntries || v.width > v.span {
		return // few counts, or one bucket a group: no wider bucket has fewer
	}
	wider := make(map[countKey]int32, len(v.counts)/4)
	for k, n := range v.counts {
		wider[countKey{k.g, k.b / 10}] += n
	}
	v.counts = wider
	v.width *= 10
	v.lastCK = countKey{-1, -1}
}

// keep holds a row; past maxRowsHeld, the rows per group and segment
// are halved.
func (v *eventsCollector) keep(r heldRow) {
	v.rows = append(v.rows, r)
	if len(v.rows) <= maxRowsHeld || v.perSeg <= 1 {
		return
	}
	v.perSeg /= 2
	v.rows = slices.DeleteFunc(v.rows, func(r heldRow) bool { return int(r.rank) >= v.perSeg })
	for i := range v.held {
		for s, n := range v.held[i] {
			v.held[i][s] = min(n, uint8(v.perSeg))
		}
	}
}

// payload renders the decoded properties as name=value pairs, as the
// dump renders them in text, at most payloadBytes long.
func (v *eventsCollector) payload(res *decode.Result) string {
	b := v.buf[:0]
	defer func() { v.buf = b }()
	if res == nil || res.Schema == nil {
		if res != nil && res.Err != nil {
			return "(" + res.Err.Error() + ")"
		}
		return "(no schema)"
	}
	d := res.Decoded
	if d != nil {
		for i := range d.Top() {
			val := &d.Values[i]
			if !tdh.Printable(val.Prop) {
				continue
			}
			if len(b) >= payloadBytes {
				b = append(b, "…"...)
				break
			}
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = append(b, val.Prop.Name...)
			b = append(b, '=')
			b, _ = tdh.AppendTextLimit(b, d, val, nil, payloadBytes)
		}
	}
	if res.Err != nil {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, "(decoding error: "...)
		b = append(b, res.Err.Error()...)
		b = append(b, ')')
	}
	if len(b) > payloadBytes+len("…") {
		n := payloadBytes
		for n > 0 && b[n]&0xC0 == 0x80 { // not in a UTF-8 sequence
			n--
		}
		b = append(b[:n], "…"...)
	}
	return string(b)
}

// eventName names an event as --event-name does: its schema's event
// name, with the opcode for classic and kernel events (Process/Start);
// without a schema, its id (or opcode, for classic and kernel events).
func eventName(ev *etl.Event, res *decode.Result) string {
	if res != nil && res.Schema != nil {
		s := res.Schema
		name := s.EventName
		if s.Source == tdh.SourceMOF && s.OpcodeName != "" || name == "" && s.OpcodeName != "" {
			name += "/" + s.OpcodeName
		}
		if name != "" {
			return name
		}
	}
	if ev.Header.Kernel() || ev.Flags&etl.FlagClassicHeader != 0 {
		return "(no schema) opcode " + strconv.Itoa(int(ev.Descriptor.Opcode))
	}
	return "(no schema) id " + strconv.Itoa(int(ev.Descriptor.ID))
}

func (v *eventsCollector) finish(d *Data) {
	c := v.c
	if c.axis.Buckets == 0 {
		return
	}
	v.flush()
	v.linkProcesses(d)
	e := &Events{BucketSec: float64(v.width) / 1e7, Buckets: int(max(v.span, 0)/v.width) + 1, Names: v.names, Processes: v.procs,
		Segments: eventSegments, Counts: make([]int, 0, 3*len(v.counts))}
	stats := map[uuid.UUID]*decode.ProviderStat{}
	ps := c.pc.Providers()
	for i := range ps {
		stats[ps[i].GUID] = &ps[i]
	}
	for _, g := range v.provs.list {
		p := EventsProvider{GUID: "{" + g.String() + "}"}
		if st := stats[g]; st != nil {
			p.Name = providerLabel(st)
		}
		e.Providers = append(e.Providers, p)
	}
	for _, g := range v.groups {
		e.Groups = append(e.Groups, [3]int{int(g[0]), int(g[1]), int(g[2])})
	}
	keys := make([]countKey, 0, len(v.counts))
	for k := range v.counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b countKey) int {
		if a.g != b.g {
			return int(a.g - b.g)
		}
		return int(a.b - b.b)
	})
	for _, k := range keys {
		e.Counts = append(e.Counts, int(k.g), int(k.b), int(v.counts[k]))
	}
	// The most rows per group and segment that fit in maxEventRows.
	per := v.perSeg
	for per > 0 {
		n := 0
		for _, r := range v.rows {
			if int(r.rank) < per {
				n++
			}
		}
		if n <= maxEventRows {
			break
		}
		per--
	}
	e.RowsPerGroup = per
	e.Rows = make(EventRows, 0, min(len(v.rows), maxEventRows))
	for _, r := range v.rows {
		if int(r.rank) < per {
			e.Rows = append(e.Rows, r.EventRow)
		}
	}
	d.Events = e
}

// eventsView: the events table, filtered and grouped in the page.
var eventsView = &view{id: "events", title: "Events", tmpl: eventsTmpl,
	present: func(d *Data) bool { return d.Events != nil },
	collect: func(c *collector) finisher { return newEventsCollector(c) },
	page:    eventsPage,
}

// eventsPage gives the script the events' data, the trace's start (to
// write the rows' UTC times) and the files' names (for the command that
// dumps the events the page leaves out).
func eventsPage(d *Data) (any, error) {
	p := &struct {
		D    *Data
		Data template.JS
		JS   template.JS
	}{D: d, JS: template.JS(eventsJS)}
	files := make([]string, 0, len(d.Overview.Files))
	for _, f := range d.Overview.Files {
		files = append(files, f.File)
	}
	start, frac := splitRFC3339(d.Overview.Start)
	b, err := json.Marshal(struct {
		*Events
		Start string   `json:"start"`
		Frac  string   `json:"start_frac"`
		Files []string `json:"files"`
	}{d.Events, start, frac, files})
	if err != nil {
		return nil, err
	}
	p.Data = template.JS(b)
	return p, nil
}

// splitRFC3339 splits "2006-01-02T15:04:05.0000000Z" into the time to
// the second and its 7 fractional digits.
func splitRFC3339(s string) (string, string) {
	sec, frac, ok := strings.Cut(strings.TrimSuffix(s, "Z"), ".")
	if !ok {
		return sec, "0000000"
	}
	return sec, frac
}

// eventsTmpl is the section's template; the script fills the table.
const eventsTmpl = `{{with .D.Events}}
<section id="events" class="sect">
<h2>Events</h2>
<p class="note">Every event counted by provider, event name and process (the counts are exact, for the whole trace or the range selected on a time chart, in buckets of {{width .BucketSec}}); the table shows the first {{.RowsPerGroup}} events of each provider, event and process in each tenth of the trace ({{thousands (len .Rows)}} of {{thousands $.D.Overview.Events}} events). Narrow the filter to see the others, or dump them all with the command the page gives. The text filter matches provider, event and process names, and in the rows the payload too.</p>
<div class="toolbar evbar">
<select id="ev-prov" aria-label="Provider"><option value="">All providers</option></select>
<select id="ev-name" aria-label="Event name"><option value="">All events</option></select>
<select id="ev-proc" aria-label="Process"><option value="">All processes</option></select>
<input type="search" id="ev-text" placeholder="Filter text" aria-label="Filter events by text">
<label>Group by <select id="ev-group"><option value="">nothing</option><option value="prov">provider</option><option value="name">event</option><option value="proc">process</option></select></label>
</div>
<p id="ev-count" class="evcount"></p>
<table id="ev-groups" class="evgroups" hidden><thead><tr><th></th><th>Events</th><th>Share</th></tr></thead><tbody></tbody></table>
<p id="ev-more" class="note" hidden></p>
<table id="ev-rows" class="evrows"><thead><tr><th>Time</th><th>UTC</th><th>Provider</th><th>Event</th><th>PID</th><th>Process</th><th>TID</th><th>Payload</th></tr></thead><tbody></tbody></table>
<style>#ev-text { width: 240px; } p.evcount { font-weight: 600; margin: 6px 0; } table.evgroups tbody tr { cursor: pointer; } table.evgroups tbody tr:hover { background: var(--band); } table.evrows td.ts { white-space: nowrap; font-variant-numeric: tabular-nums; } table.evrows td.payload { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 11.5px; overflow-wrap: anywhere; max-width: 560px; } #ev-more code { display: block; margin: 4px 0; padding: 4px 8px; background: var(--band); border-radius: 4px; overflow-wrap: anywhere; user-select: all; }</style>
<script type="application/json" id="events-data">{{$.Data}}</script>
<script>{{$.JS}}</script>
</section>
{{end}}`
