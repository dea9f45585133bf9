package tracerpt

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// headNewYear is 2021-01-01T00:00:00Z less 0.7 ms, a FILETIME.
const headNewYear = 132539040000000000 - 7_000

// headEvents calls yield with n events in a row that share and do not
// share what the encoders' kept texts depend on: times crossing a
// millisecond, second, minute, day and year, going back, and jumping to
// each of anchors (at even intervals); raw timestamps around 10^4 and
// above; providers with the same event ids, descriptors differing in one
// field, kernel, classic, instance and EVENT_HEADER headers, hook ids;
// activity ids; threads of one id in two processes, on several
// processors, with other header ids, a process renamed (the same length)
// half way; schemas of two providers with the same id, of two versions,
// with and without a level name, a manifest channel, MOF. There are more
// threads and shapes than an encoder's caches have slots.
func headEvents(seed uint64, n int, anchors []int64, yield func(i int, ev *etl.Event, res *decode.Result, a *analysis.Annotation)) {
	provA := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	provB := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e5")
	schemas := []*tdh.Event{
		{ProviderName: "A", ProviderGUID: provA, ID: 10, Version: 0, EventName: "E10", TaskName: "T", OpcodeName: "O", LevelName: "Verbose", Source: tdh.SourceManifest, ChannelName: "A/Operational"},
		{ProviderName: "A", ProviderGUID: provA, ID: 10, Version: 1, EventName: "E10_V1", TaskName: "T", LevelName: "Verbose", Source: tdh.SourceManifest},
		{ProviderName: "B", ProviderGUID: provB, ID: 10, Version: 0, EventName: "Other", OpcodeName: "O", Source: tdh.SourceMOF},
		{ProviderName: KernelProviderName, ProviderGUID: provB, ID: 11, Version: 0, EventName: "NoLevel", Source: tdh.SourceMOF},
	}
	procs := []*analysis.Process{
		{PID: 4, ImageFileName: "System"},
		{PID: 100, ImageFileName: "a.exe"},
		{PID: 100, ImageFileName: "a.exe"}, // the same pid, another process record
		{PID: 200},                         // no name
	}
	headers := []etl.HeaderType{etl.HeaderSystem64, etl.HeaderPerfInfo64, etl.HeaderClassic64, etl.HeaderEvent64, etl.HeaderInstance64, etl.HeaderCompact32, etl.HeaderMessage}
	r := rand.New(rand.NewPCG(seed, 7))
	ft, raw := int64(headNewYear-60*filetimeSecond-3*86400*filetimeSecond), int64(1942608875)
	for i := range n {
		switch k := r.IntN(100); {
		case len(anchors) > 0 && i%(n/len(anchors)) == 0:
			ft = anchors[i/(n/len(anchors))%len(anchors)] - r.Int64N(3*filetimeSecond)
		case k < 30: // the same time
		case k < 80:
			ft += r.Int64N(3_000)
		case k < 95:
			ft += r.Int64N(30_000_000)
		case k < 97:
			ft -= r.Int64N(20_000) // not in order
		default:
			ft += 86400 * filetimeSecond // a day (and at the end, a year)
		}
		if r.IntN(4) > 0 {
			raw += r.Int64N(9_000)
		}
		if i == n/2 {
			ft, raw = headNewYear, 9_990 // around 10^4, and the new year
		}
		ev := etl.Event{
			Header:    headers[r.IntN(len(headers))],
			Flags:     uint16(r.IntN(4)) * 0x40,
			Time:      ft,
			Timestamp: raw,
			ProcessID: uint32(r.IntN(3)) * 100,
			ThreadID:  uint32(r.IntN(600)),
			Processor: uint16(r.IntN(12)),
			HookID:    uint16(r.IntN(3)),
			File:      r.IntN(2),
		}
		if r.IntN(2) == 0 {
			ev.ProviderID = provA
		} else {
			ev.ProviderID = provB
		}
		ev.Descriptor = etl.EventDescriptor{ID: uint16(r.IntN(300)), Version: uint8(r.IntN(2)), Level: uint8(r.IntN(6)), Opcode: uint8(r.IntN(2)), Task: uint16(r.IntN(2)), Channel: uint8(r.IntN(2)), Keyword: uint64(r.IntN(2)) << 63}
		if r.IntN(50) == 0 {
			ev.ActivityID[r.IntN(16)] = 1
		}
		if r.IntN(400) == 0 {
			ev.ThreadID, ev.ProcessID = analysis.NoID, analysis.NoID
		}
		var res *decode.Result
		if k := r.IntN(len(schemas) + 1); k < len(schemas) {
			res = &decode.Result{Schema: schemas[k], Exact: r.IntN(8) > 0, Fallback: r.IntN(8) == 0}
		}
		var a *analysis.Annotation
		if r.IntN(10) > 0 {
			p := procs[r.IntN(len(procs))]
			a = &analysis.Annotation{PID: p.PID, TID: ev.ThreadID, Process: p}
			if r.IntN(5) == 0 {
				a.TID = uint32(r.IntN(600)) // another thread than the header's
			}
			if r.IntN(20) == 0 {
				a.Process = nil
			}
		}
		if i == n*3/4 {
			procs[1].ImageFileName = string([]byte("b.exe")) // renamed, the same length
		}
		yield(i, &ev, res, a)
	}
}

// TestJSONHeadCached: the start of each event's object (appendHead, from
// "time" to the schema's names) that an encoder renders from the text it
// keeps is what a one-shot encoder renders from scratch, over headEvents.
func TestJSONHeadCached(t *testing.T) {
	for _, c := range []struct {
		start     int64
		multiFile bool
	}{{0, false}, {headNewYear - 25_000_000, false}, {headNewYear + 3, true}} {
		cached := &JSONEncoder{start: c.start, multiFile: c.multiFile}
		fresh := &JSONEncoder{start: c.start, multiFile: c.multiFile, oneShot: true}
		headEvents(uint64(c.start), 40000, nil, func(i int, ev *etl.Event, res *decode.Result, a *analysis.Annotation) {
			if t.Failed() {
				return
			}
			got := string(cached.appendHead([]byte("x"), ev, res, a))
			want := string(fresh.appendHead([]byte("x"), ev, res, a))
			if got != want {
				t.Fatalf("start %d, event %d:\n got %s\nwant %s", c.start, i, got, want)
			}
		})
	}
}

// TestXMLSystemCached: the <System> element an XML encoder renders from
// the text it keeps is what an encoder without any renders, over
// headEvents, in UTC, at a fixed offset and in a zone with daylight time
// (times around its changes), with raw timestamps and MOF providers'
// GUIDs.
func TestXMLSystemCached(t *testing.T) {
	tor, err := time.LoadLocation("America/Toronto")
	if err != nil {
		t.Fatal(err)
	}
	dst := []int64{
		filetimeOf(time.Date(2020, 3, 8, 7, 0, 0, 0, time.UTC)),  // 2 a.m. EST: clocks forward
		filetimeOf(time.Date(2020, 11, 1, 6, 0, 0, 0, time.UTC)), // 2 a.m. EDT: clocks back
	}
	for _, o := range []Options{
		{},
		{Zone: time.FixedZone("+05:30", 5*3600+1800), RawTimestamp: true},
		{Zone: tor, MOFProviders: map[string]uuid.UUID{"B": uuid.MustParse("9e814aad-3204-11d2-9a82-006008a86939")}},
	} {
		cached := NewXMLEncoder(nil, &o)
		compareFresh(t, fmt.Sprint("zone ", o.Zone), uint64(len(o.MOFProviders)), dst, func(fresh bool, ev *etl.Event, s *tdh.Event) string {
			e := cached
			if fresh {
				e = cached.Clone().(*XMLEncoder)
			}
			return string(e.appendSystem([]byte("x"), ev, s))
		})
	}
}

// compareFresh renders 12,000 headEvents (seed, anchors) with render
// through one encoder and each through a fresh one, and compares.
func compareFresh(t *testing.T, name string, seed uint64, anchors []int64, render func(fresh bool, ev *etl.Event, s *tdh.Event) string) {
	t.Helper()
	headEvents(seed, 12000, anchors, func(i int, ev *etl.Event, res *decode.Result, _ *analysis.Annotation) {
		if t.Failed() {
			return
		}
		if got, want := render(false, ev, schemaOf(res)), render(true, ev, schemaOf(res)); got != want {
			t.Fatalf("%s, event %d:\n got %s\nwant %s", name, i, got, want)
		}
	})
}

// spread copies the one slot of c in use to every slot, as if every key
// had met there.
func spread[K any](t *testing.T, c *slotCache[K]) {
	t.Helper()
	for i := range c.slots {
		if c.slots[i].json != nil {
			for j := range c.slots {
				c.slots[j].k, c.slots[j].json = c.slots[i].k, append([]byte(nil), c.slots[i].json...)
			}
			return
		}
	}
	t.Fatal("no slot in use")
}

// TestHeadSlotsCompare: an event that differs from the one a slot was
// rendered for in one thing its text shows is rendered anew, whichever
// slot it finds: every slot of the JSON encoder's header, thread and
// names caches and of the XML and CSV encoders' shapes and threads is
// made to hold the first event's key and text before the second is
// rendered.
func TestHeadSlotsCompare(t *testing.T) {
	s := &tdh.Event{ProviderName: "A", ID: 10, EventName: "E", LevelName: "Verbose", Source: tdh.SourceManifest, ChannelName: "A/Debug"}
	s2 := *s // the same but for its names
	s2.EventName, s2.TaskName, s2.OpcodeName, s2.LevelName, s2.ChannelName = "F", "T2", "Op2", "", "A/Analytic"
	s0 := *s // the same without a level name: the descriptor's level names the level
	s0.LevelName = ""
	p := &analysis.Process{PID: 100, ImageFileName: "a.exe"}
	var schema *tdh.Event // of the base event
	base := func() (*etl.Event, *decode.Result, *analysis.Annotation) {
		ev := &etl.Event{Header: etl.HeaderSystem64, Flags: 0x40, ProcessID: 100, ThreadID: 7, Processor: 2, HookID: 0x520,
			Time: headNewYear, Timestamp: 123456789}
		ev.ProviderID[0], ev.ProviderID[15] = 1, 2
		ev.Descriptor = etl.EventDescriptor{ID: 10, Version: 3, Channel: 1, Level: 4, Opcode: 11, Task: 1, Keyword: 1 << 40}
		return ev, &decode.Result{Schema: schema, Exact: true}, &analysis.Annotation{PID: 100, TID: 7, Process: p}
	}
	changes := map[string]func(*etl.Event, *decode.Result, *analysis.Annotation){
		"provider low":  func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.ProviderID[0]++ },
		"provider high": func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.ProviderID[15]++ },
		"id":            func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.ID++ },
		"version":       func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.Version++ },
		"channel":       func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.Channel++ },
		"level":         func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.Level++ },
		"opcode":        func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.Opcode++ },
		"task":          func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.Task++ },
		"keyword":       func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Descriptor.Keyword++ },
		"header":        func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Header = etl.HeaderEvent64 },
		"flags":         func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Flags |= etl.FlagClassicHeader },
		"hook":          func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.HookID++ },
		"cpu":           func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.Processor++ },
		"header pid":    func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.ProcessID++ },
		"header tid":    func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.ThreadID++ },
		"no header ids": func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) {
			ev.ProcessID, ev.ThreadID = analysis.NoID, analysis.NoID
		},
		"pid":     func(_ *etl.Event, _ *decode.Result, a *analysis.Annotation) { a.PID++ },
		"tid":     func(_ *etl.Event, _ *decode.Result, a *analysis.Annotation) { a.TID++ },
		"process": func(_ *etl.Event, _ *decode.Result, a *analysis.Annotation) { a.Process = nil },
		"process name": func(_ *etl.Event, _ *decode.Result, a *analysis.Annotation) {
			a.Process = &analysis.Process{PID: 100, ImageFileName: "b.exe"}
		},
		"schema":   func(_ *etl.Event, res *decode.Result, _ *analysis.Annotation) { res.Schema = &s2 },
		"inexact":  func(_ *etl.Event, res *decode.Result, _ *analysis.Annotation) { res.Exact = false },
		"activity": func(ev *etl.Event, _ *decode.Result, _ *analysis.Annotation) { ev.ActivityID[3] = 1 },
	}
	for name, change := range changes {
		for _, schema = range []*tdh.Event{s, &s0} {
			compareSlots(t, name, change, base)
		}
	}
}

// compareSlots renders the event of base in the JSON, XML and CSV encoders,
// makes every slot of their caches hold what it kept, renders the event
// of base changed and compares it with the rendering from scratch.
func compareSlots(t *testing.T, name string, change func(*etl.Event, *decode.Result, *analysis.Annotation), base func() (*etl.Event, *decode.Result, *analysis.Annotation)) {
	t.Helper()
	ev, res, a := base()
	e := &JSONEncoder{start: headNewYear - 1}
	e.appendHead(nil, ev, res, a)
	spread(t, e.headers)
	spread(t, e.procs)
	spread(t, e.names)
	x := NewXMLEncoder(nil, nil)
	x.appendSystem(nil, ev, res.Schema)
	spread(t, &x.system.threads)
	for _, used := range x.system.shapes {
		if used.head != nil {
			for i := range x.system.shapes {
				x.system.shapes[i] = xmlShape{used.k, append([]byte(nil), used.head...), append([]byte(nil), used.tail...)}
			}
			break
		}
	}
	csv := NewCSVEncoder(nil, nil)
	csv.appendColumns(nil, ev, res.Schema)
	spread(t, &csv.columns.shapes)
	spread(t, &csv.columns.threads)
	change(ev, res, a)
	got := string(e.appendHead(nil, ev, res, a))
	want := string((&JSONEncoder{start: headNewYear - 1, oneShot: true}).appendHead(nil, ev, res, a))
	if got != want {
		t.Errorf("%s, level name %q: JSON\n got %s\nwant %s", name, res.Schema.LevelName, got, want)
	}
	got = string(x.appendSystem(nil, ev, res.Schema))
	want = string(NewXMLEncoder(nil, nil).appendSystem(nil, ev, res.Schema))
	if got != want {
		t.Errorf("%s: XML\n got %s\nwant %s", name, got, want)
	}
	got = string(csv.appendColumns(nil, ev, res.Schema))
	want = string(NewCSVEncoder(nil, nil).appendColumns(nil, ev, res.Schema))
	if got != want {
		t.Errorf("%s: CSV\n got %s\nwant %s", name, got, want)
	}
}

// TestCSVColumnsCached: the columns a CSV encoder renders from the text
// it keeps are what an encoder without any renders, over headEvents.
func TestCSVColumnsCached(t *testing.T) {
	cached := NewCSVEncoder(nil, nil)
	compareFresh(t, "CSV", 3, nil, func(fresh bool, ev *etl.Event, s *tdh.Event) string {
		e := cached
		if fresh {
			e = cached.Clone().(*CSVEncoder)
		}
		return string(e.appendColumns([]byte("x"), ev, s))
	})
}
