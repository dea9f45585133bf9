package session_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

// filterSpec is a test-side statement of one session's filters for one
// provider, checked with its own implementation of the routing rules.
type filterSpec struct {
	level      uint8
	any, all   uint64
	ignoreKw0  bool
	ids        []uint16
	idsIn      bool
	pids       []uint32
	classicFor bool // the session is the classic provider's last enabler
}

func (f *filterSpec) wants(kind session.Kind, level uint8, kw uint64, id uint16, pid uint32) bool {
	if kind == session.Classic {
		return f.classicFor
	}
	if !(level == 0 || f.level == 0 || level <= f.level) {
		return false
	}
	switch {
	case kw == 0:
		if f.ignoreKw0 {
			return false
		}
	case f.any != 0 && kw&f.any == 0, kw&f.all != f.all:
		return false
	}
	if f.ids != nil && slices.Contains(f.ids, id) != f.idsIn {
		return false
	}
	if f.pids != nil && !slices.Contains(f.pids, pid) {
		return false
	}
	return true
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestLargeScenario writes 100,000 events from four providers on four
// processors to three sessions with different filters and modes, and
// checks every event of every file against the routing rules.
func TestLargeScenario(t *testing.T) {
	const n = 100_000
	fs := &session.MemFS{}
	rng := rand.New(rand.NewPCG(1, 2))
	var tick, lastTick int64 = 10_000, 0
	var lastCPU uint16
	sys := session.New(&session.Options{
		Processors: 4,
		Frequency:  3_000_000, // times are then truncated twice: ±1 (100 ns)
		Now:        func() int64 { tick += 1 + int64(rng.IntN(3)); lastTick = tick; return tick },
		CPU:        func() uint16 { lastCPU = uint16(rng.IntN(4)); return lastCPU },
	})
	alpha := mustStart(t, sys, "alpha", &session.SessionOptions{Create: fs.Create, BufferSize: 16 << 10})
	beta := mustStart(t, sys, "beta", &session.SessionOptions{Create: fs.Create, BufferSize: 32 << 10,
		LogFileMode: etl.ModeNewFile | etl.ModeCompressed | etl.ModeNoPerProcessor, MaxFileSize: 256 << 10})
	gamma := mustStart(t, sys, "gamma", &session.SessionOptions{Create: fs.Create, BufferSize: 8 << 10,
		LogFileMode: session.ModeIndependentSession, ClockType: etl.ClockSystemTime, FlushTimer: 5000})

	idsIn := []uint16{1, 2, 3, 5, 8, 13, 21}
	specs := map[string]map[uuid.UUID]*filterSpec{
		"alpha": {
			provA:   {level: 4, any: 0x0F, ids: []uint16{7, 13}, idsIn: false},
			provB:   {level: 0},
			classic: {}, // enabled first, then taken by gamma
		},
		"beta": {
			provA:  {all: 0x3, pids: []uint32{100, 101, 102}},
			provTL: {level: 3},
		},
		"gamma": {
			provA:   {level: 2, any: 0xF0, ignoreKw0: true},
			provB:   {ids: idsIn, idsIn: true},
			provTL:  {level: 0, ignoreKw0: true},
			classic: {classicFor: true},
		},
	}
	sessions := map[string]*session.Session{"alpha": alpha, "beta": beta, "gamma": gamma}
	for _, name := range []string{"alpha", "beta", "gamma"} { // classic: gamma enables last
		for _, id := range []uuid.UUID{provA, provB, provTL, classic} {
			f := specs[name][id]
			if f == nil {
				continue
			}
			var opts []session.EnableOption
			if f.ignoreKw0 {
				opts = append(opts, session.WithProperties(session.PropertyIgnoreKeyword0))
			}
			if f.ids != nil {
				opts = append(opts, session.EventIDFilter(f.idsIn, f.ids...))
			}
			if f.pids != nil {
				opts = append(opts, session.ProcessIDFilter(f.pids...))
			}
			must(t, sessions[name].Enable(id, f.level, f.any, f.all, opts...))
		}
	}

	type provider struct {
		p    *session.Provider
		kind session.Kind
		is32 bool
	}
	pa := mustRegister(t, sys, provA, session.Manifest)
	pb, err := sys.RegisterProvider(provB, session.Manifest, &session.ProviderOptions{Is32Bit: true})
	must(t, err)
	ptl, err := sys.RegisterProvider(provTL, session.TraceLogging, &session.ProviderOptions{Traits: []byte("\x07\x00tlp\x00\x00")})
	must(t, err)
	pc := mustRegister(t, sys, classic, session.Classic)
	provs := []provider{{pa, session.Manifest, false}, {pb, session.Manifest, true}, {ptl, session.TraceLogging, false}, {pc, session.Classic, false}}
	keywords := []uint64{0, 0x1, 0x2, 0x3, 0x4, 0x10, 0x13, 0x30, 0xF3, 0x8000000000000001}

	type want struct {
		seq      uint32
		prov     uuid.UUID
		hdr      etl.HeaderType
		id       uint16
		level    uint8
		kw       uint64
		pid, tid uint32
		tick     int64
		cpu      uint16
	}
	expected := map[string][]want{}
	for i := uint32(0); i < n; i++ {
		pr := provs[rng.IntN(len(provs))]
		level := uint8(rng.IntN(6))
		kw := keywords[rng.IntN(len(keywords))]
		id := uint16(rng.IntN(25))
		pid := 100 + uint32(rng.IntN(5))
		ctx := &session.Context{ProcessID: pid, ThreadID: 1000 + i%17}
		data := payload(i, 4+rng.IntN(120))
		before := lastTick
		switch pr.kind {
		case session.Classic:
			err = pr.p.TraceEvent(ctx, uuid.Nil, uint8(id), level, 0, data)
		case session.TraceLogging:
			err = pr.p.WriteTraceLogging(ctx, etl.EventDescriptor{ID: id, Level: level, Keyword: kw}, nil, []byte("\x08\x00\x00e\x00f\x00\x01"), data)
		default:
			err = pr.p.Write(ctx, etl.EventDescriptor{ID: id, Level: level, Keyword: kw}, data)
		}
		must(t, err)
		routed := false
		for name, sp := range specs {
			f := sp[pr.p.ID()]
			if f == nil || !f.wants(pr.kind, level, kw, id, pid) {
				continue
			}
			routed = true
			w := want{seq: i, prov: pr.p.ID(), id: id, level: level, kw: kw, pid: pid, tid: ctx.ThreadID, tick: lastTick, cpu: lastCPU}
			switch {
			case pr.kind == session.Classic:
				w.hdr, w.kw = etl.HeaderClassic64, 0 // the id is the opcode (type)
			case pr.is32:
				w.hdr = etl.HeaderEvent32
			default:
				w.hdr = etl.HeaderEvent64
			}
			if name == "beta" {
				w.cpu = 0
			}
			expected[name] = append(expected[name], w)
		}
		if routed != (lastTick != before) {
			t.Fatalf("event %d: routed %v, but the clock was read: %v", i, routed, lastTick != before)
		}
		if i%20000 == 0 {
			must(t, beta.Flush())
		}
	}
	must(t, sys.StopAll())

	for _, name := range []string{"alpha", "beta", "gamma"} {
		st := sessions[name].Stats()
		evs, files := read(t, fs, st.Files...)
		exp := expected[name]
		if len(evs) != len(exp) || len(exp) < n/20 {
			t.Fatalf("%s: %d events in %d files, want %d", name, len(evs), len(files), len(exp))
		}
		for i := range exp {
			e, w := &evs[i], &exp[i]
			wantTS := w.tick
			if name == "gamma" {
				wantTS = sys.FileTime(w.tick)
			}
			ok := e.seq() == w.seq && e.Provider == w.prov && e.Header == w.hdr && e.Level == w.level && e.PID == w.pid && e.TID == w.tid &&
				e.Timestamp == wantTS && abs(e.Time-sys.FileTime(w.tick)) <= 1 && e.CPU == w.cpu
			if w.hdr == etl.HeaderClassic64 {
				ok = ok && e.Opcode == uint8(w.id) && e.ID == 0
			} else {
				ok = ok && e.ID == w.id && e.Keyword == w.kw
			}
			if w.prov == provTL {
				ok = ok && slices.Equal(e.Ext, []etl.ExtType{etl.ExtProvTraits, etl.ExtEventSchemaTL})
			}
			if !ok {
				t.Fatalf("%s event %d:\n got %+v\nwant %+v", name, i, *e, *w)
			}
		}
		for _, f := range files {
			if f.Header.EventsLost != 0 || f.Header.BuffersLost != 0 {
				t.Errorf("%s: lost %d events", name, f.Header.EventsLost)
			}
		}
		if name == "beta" && len(files) < 3 {
			t.Errorf("beta wrote %d files", len(files))
		}
		t.Logf("%s: %d events in %s", name, len(evs), fmt.Sprint(st.Files))
	}
}
