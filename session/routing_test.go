package session_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/session"
)

func TestLevelKeywordRules(t *testing.T) {
	cases := []struct {
		level     uint8
		any, all  uint64
		props     uint32
		evLevel   uint8
		evKeyword uint64
		want      bool
	}{
		// Levels: at most the session's; 0 on either side passes.
		{4, 0, 0, 0, 4, 0, true},
		{4, 0, 0, 0, 5, 0, false},
		{1, 0, 0, 0, 2, 0, false},
		{4, 0, 0, 0, 0, 0, true},
		{0, 0, 0, 0, 5, 0, true},
		{0, 0, 0, 0, 255, 0, true},
		// MatchAnyKeyword: one common bit; 0 means any keyword.
		{0, 0x1, 0, 0, 0, 0x1, true},
		{0, 0x1, 0, 0, 0, 0x2, false},
		{0, 0x1, 0, 0, 0, 0x3, true},
		{0, 0, 0, 0, 0, 0x80, true},
		// MatchAllKeyword: every bit.
		{0, 0, 0x3, 0, 0, 0x3, true},
		{0, 0, 0x3, 0, 0, 0x1, false},
		{0, 0x4, 0x3, 0, 0, 0x7, true},
		{0, 0x4, 0x3, 0, 0, 0x3, false},
		{0, 0x4, 0x3, 0, 0, 0x5, false},
		// Keyword 0 passes both masks, unless the session ignores it.
		{0, 0x1, 0, 0, 0, 0, true},
		{0, 0x1, 0x3, 0, 0, 0, true},
		{0, 0, 0, session.PropertyIgnoreKeyword0, 0, 0, false},
		{0, 0x1, 0, session.PropertyIgnoreKeyword0, 0, 0, false},
		{0, 0, 0, session.PropertyIgnoreKeyword0, 0, 0x10, true},
		// Both rules at once.
		{3, 0x1, 0, 0, 4, 0x1, false},
		{3, 0x1, 0, 0, 2, 0x2, false},
		{3, 0x1, 0, 0, 2, 0x1, true},
	}
	for i, c := range cases {
		fs := &session.MemFS{}
		sys := newSys(1)
		s := mustStart(t, sys, "rules", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
		must(t, s.Enable(provA, c.level, c.any, c.all, session.WithProperties(c.props)))
		p := mustRegister(t, sys, provA, session.Manifest)
		if got := p.Enabled(c.evLevel, c.evKeyword); got != c.want {
			t.Errorf("case %d %+v: Enabled = %v", i, c, got)
		}
		must(t, p.Write(nil, etl.EventDescriptor{ID: 1, Level: c.evLevel, Keyword: c.evKeyword}, payload(7, 4)))
		must(t, s.Stop())
		evs, _ := readOne(t, fs, "rules.etl")
		if got := len(evs) == 1; got != c.want {
			t.Errorf("case %d %+v: event logged = %v", i, c, got)
		}
	}
}

func TestEventIDAndProcessFilters(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	in := mustStart(t, sys, "in", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	out := mustStart(t, sys, "out", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	pid := mustStart(t, sys, "pid", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	must(t, in.Enable(provA, 0, 0, 0, session.EventIDFilter(true, 1, 3)))
	must(t, out.Enable(provA, 0, 0, 0, session.EventIDFilter(false, 1, 3)))
	must(t, pid.Enable(provA, 0, 0, 0, session.ProcessIDFilter(10, 20)))
	p := mustRegister(t, sys, provA, session.Manifest)
	n := uint32(0)
	for _, proc := range []uint32{10, 20, 30} {
		for id := uint16(1); id <= 4; id++ {
			must(t, p.Write(&session.Context{ProcessID: proc}, etl.EventDescriptor{ID: id}, payload(n, 4)))
			n++
		}
	}
	must(t, sys.StopAll())
	ids := func(name string) (r []string) {
		evs, _ := readOne(t, fs, name)
		for _, e := range evs {
			r = append(r, fmt.Sprintf("%d/%d", e.PID, e.ID))
		}
		return r
	}
	check := func(name string, want ...string) {
		if got := ids(name); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	check("in.etl", "10/1", "10/3", "20/1", "20/3", "30/1", "30/3")
	check("out.etl", "10/2", "10/4", "20/2", "20/4", "30/2", "30/4")
	check("pid.etl", "10/1", "10/2", "10/3", "10/4", "20/1", "20/2", "20/3", "20/4")

	// Filter limits.
	s := mustStart(t, sys, "limits", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	many := make([]uint16, session.MaxFilterEventIDs+1)
	if err := s.Enable(provA, 0, 0, 0, session.EventIDFilter(true, many...)); err == nil {
		t.Error("65 event ids accepted")
	}
	if err := s.Enable(provA, 0, 0, 0, session.EventIDFilter(true, many[:64]...)); err != nil {
		t.Errorf("64 event ids: %v", err)
	}
	if err := s.Enable(provA, 0, 0, 0, session.ProcessIDFilter(1, 2, 3, 4, 5, 6, 7, 8, 9)); err == nil {
		t.Error("9 process ids accepted")
	}
	if err := s.Enable(provA, 0, 0, 0, session.WithProperties(0x4)); err == nil {
		t.Error("stack-trace property accepted")
	}
}

func TestProviderReachesAtMostEightSessions(t *testing.T) {
	for _, kind := range []session.Kind{session.Manifest, session.TraceLogging} {
		fs := &session.MemFS{}
		sys := newSys(1)
		var ss []*session.Session
		for i := 0; i < 9; i++ {
			ss = append(ss, mustStart(t, sys, fmt.Sprint("s", i), &session.SessionOptions{Create: fs.Create, BufferSize: 4096}))
		}
		for i := 0; i < 8; i++ {
			must(t, ss[i].Enable(provA, 0, 0, 0))
		}
		if err := ss[8].Enable(provA, 0, 0, 0); err != session.ErrProviderLimit {
			t.Fatalf("%v: 9th Enable: %v", kind, err)
		}
		must(t, ss[3].Enable(provA, 5, 0, 0)) // re-enabling is an update, not a 9th
		p := mustRegister(t, sys, provA, kind)
		must(t, p.Write(nil, etl.EventDescriptor{ID: 1}, payload(1, 4)))
		must(t, ss[0].Disable(provA))
		must(t, ss[8].Enable(provA, 0, 0, 0)) // a place is free again
		must(t, p.Write(nil, etl.EventDescriptor{ID: 2}, payload(2, 4)))
		must(t, sys.StopAll())
		for i := 0; i < 9; i++ {
			evs, _ := readOne(t, fs, fmt.Sprintf("s%d.etl", i))
			want := []uint32{1, 2}
			switch i {
			case 0:
				want = []uint32{1}
			case 8:
				want = []uint32{2}
			}
			if got := seqs(evs); !slices.Equal(got, want) {
				t.Errorf("%v: session %d got %v, want %v", kind, i, got, want)
			}
		}
	}
}

func TestClassicProviderLastSessionOnly(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	a := mustStart(t, sys, "a", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	b := mustStart(t, sys, "b", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	c := mustStart(t, sys, "c", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	// Enabled before registration by a then b: b keeps it.
	must(t, a.Enable(classic, 0, 0, 0))
	must(t, b.Enable(classic, 0, 0, 0))
	p := mustRegister(t, sys, classic, session.Classic)
	must(t, p.TraceEvent(nil, provC, 1, 0, 0, payload(1, 4)))
	// c takes it over.
	must(t, c.Enable(classic, 0, 0, 0))
	must(t, p.TraceEvent(nil, provC, 1, 0, 0, payload(2, 4)))
	// a takes it back; then disables it: nobody has it.
	must(t, a.Enable(classic, 2, 0, 0))
	must(t, p.TraceEvent(nil, provC, 1, 0, 0, payload(3, 4)))
	if !p.Enabled(2, 0) || p.Enabled(3, 0) {
		t.Error("Enabled does not follow the last session's level")
	}
	must(t, a.Disable(classic))
	must(t, p.TraceEvent(nil, provC, 1, 0, 0, payload(4, 4)))
	if p.Enabled(0, 0) {
		t.Error("a disabled classic provider is enabled")
	}
	// More than 8 sessions can take turns.
	must(t, sys.StopAll())
	for name, want := range map[string][]uint32{"a.etl": {3}, "b.etl": {1}, "c.etl": {2}} {
		evs, _ := readOne(t, fs, name)
		if got := seqs(evs); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
		for _, e := range evs {
			if e.Header != etl.HeaderClassic64 || e.Provider != provC || e.Opcode != 1 {
				t.Errorf("%s: %+v", name, e)
			}
		}
	}
}

func TestDisabledProviderGoesNowhere(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	s := mustStart(t, sys, "s", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	never := mustRegister(t, sys, provB, session.Manifest)
	p := mustRegister(t, sys, provA, session.Manifest)
	if never.Enabled(0, 0) || p.Enabled(0, 0) {
		t.Error("Enabled before any Enable")
	}
	must(t, never.Write(nil, etl.EventDescriptor{ID: 1}, payload(100, 4)))
	must(t, s.Enable(provA, 0, 0, 0))
	must(t, p.Write(nil, etl.EventDescriptor{ID: 1}, payload(1, 4)))
	must(t, s.Disable(provA))
	must(t, p.Write(nil, etl.EventDescriptor{ID: 1}, payload(101, 4)))
	must(t, s.Enable(provA, 0, 0, 0))
	must(t, p.Write(nil, etl.EventDescriptor{ID: 1}, payload(2, 4)))
	// Kinds and registrations.
	if err := p.TraceEvent(nil, provA, 1, 0, 0, nil); err != session.ErrWrongKind {
		t.Errorf("TraceEvent on a manifest provider: %v", err)
	}
	c := mustRegister(t, sys, classic, session.Classic)
	if err := c.Write(nil, etl.EventDescriptor{}, nil); err != session.ErrWrongKind {
		t.Errorf("Write on a classic provider: %v", err)
	}
	if _, err := sys.RegisterProvider(classic, session.Manifest, nil); err == nil {
		t.Error("a GUID registered as classic and manifest")
	}
	p.Unregister()
	if err := p.Write(nil, etl.EventDescriptor{ID: 1}, payload(102, 4)); err != session.ErrUnregistered {
		t.Errorf("write after Unregister: %v", err)
	}
	// A new registration of the GUID is still enabled.
	p2 := mustRegister(t, sys, provA, session.Manifest)
	must(t, p2.Write(nil, etl.EventDescriptor{ID: 1}, payload(3, 4)))
	must(t, s.Stop())
	// Stopping the session disables its providers.
	if p2.Enabled(0, 0) {
		t.Error("enabled after its session stopped")
	}
	must(t, p2.Write(nil, etl.EventDescriptor{ID: 1}, payload(103, 4)))
	evs, _ := readOne(t, fs, "s.etl")
	if got := seqs(evs); !slices.Equal(got, []uint32{1, 2, 3}) {
		t.Errorf("got %v, want [1 2 3]", got)
	}
}

// perBuf is how many 280-byte records (200 bytes of payload) a 4 KiB
// buffer holds.
const perBuf = (4096 - etl.BufferHeaderSize) / (0x50 + 200)

// TestIndependentSessions fills one session (its logger holds full
// buffers until a flush) and checks where the events it cannot take go.
func TestIndependentSessions(t *testing.T) {
	for _, fullIsIndependent := range []bool{false, true} {
		fs := &session.MemFS{}
		sys := newSys(1)
		fullMode := uint32(0)
		if fullIsIndependent {
			fullMode = session.ModeIndependentSession
		}
		full := mustStart(t, sys, "full", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, MaximumBuffers: 3,
			LoggerDelay: session.LoggerDelayUntilFlush, LogFileMode: fullMode})
		dep := mustStart(t, sys, "dependent", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
		ind := mustStart(t, sys, "independent", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: session.ModeIndependentSession})
		for _, s := range []*session.Session{full, dep, ind} {
			must(t, s.Enable(provA, 0, 0, 0))
		}
		p := mustRegister(t, sys, provA, session.Manifest)
		var ok, lost []uint32
		for i := uint32(0); i < 100; i++ {
			switch err := p.Write(nil, etl.EventDescriptor{ID: 1}, payload(i, 200)); err {
			case nil:
				ok = append(ok, i)
			case session.ErrEventLost:
				lost = append(lost, i)
			default:
				t.Fatal(err)
			}
		}
		// Three 4 KiB buffers hold 3×14 events of 280 bytes.
		if len(ok) != 3*perBuf || len(lost) != 100-3*perBuf {
			t.Fatalf("%d events logged, %d lost", len(ok), len(lost))
		}
		// Once flushed, the full session takes events again.
		must(t, full.Flush())
		must(t, p.Write(nil, etl.EventDescriptor{ID: 1}, payload(100, 200)))
		ok = append(ok, 100)
		st := full.Stats()
		if st.EventsLost != uint64(len(lost)) || st.NumberOfBuffers != 3 || st.MaximumBuffers != 3 {
			t.Errorf("full session stats %+v", st)
		}
		must(t, sys.StopAll())
		for _, c := range []struct {
			name string
			want []uint32
		}{{"full.etl", ok}, {"dependent.etl", ok}, {"independent.etl", append(slices.Clone(ok[:3*perBuf]), append(lost, 100)...)}} {
			evs, h := readOne(t, fs, c.name)
			if got := seqs(evs); !slices.Equal(got, c.want) {
				t.Errorf("full independent=%v: %s has %v, want %v", fullIsIndependent, c.name, got, c.want)
			}
			wantLost := uint32(len(lost))
			if c.name == "independent.etl" {
				wantLost = 0
			}
			if h.EventsLost != wantLost {
				t.Errorf("%s: EventsLost %d, want %d", c.name, h.EventsLost, wantLost)
			}
		}
	}
}

// TestFullSequentialFileDropsEverywhere: a full sequential file makes an
// event lost for the sessions that depend on it.
func TestFullSequentialFileDropsEverywhere(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	small := mustStart(t, sys, "small", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, MaxFileSize: 3 * 4096})
	dep := mustStart(t, sys, "dep", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	ind := mustStart(t, sys, "ind", &session.SessionOptions{Create: fs.Create, BufferSize: 4096, LogFileMode: session.ModeIndependentSession})
	for _, s := range []*session.Session{small, dep, ind} {
		must(t, s.Enable(provA, 0, 0, 0))
	}
	p := mustRegister(t, sys, provA, session.Manifest)
	lost := 0
	for i := uint32(0); i < 100; i++ {
		if err := p.Write(nil, etl.EventDescriptor{ID: 1}, payload(i, 200)); err == session.ErrEventLost {
			lost++
		}
	}
	must(t, sys.StopAll())
	evSmall, hSmall := readOne(t, fs, "small.etl")
	evDep, hDep := readOne(t, fs, "dep.etl")
	evInd, hInd := readOne(t, fs, "ind.etl")
	// The small file holds two buffers (header + 2); the third fills in
	// memory and is lost at stop.
	if len(evSmall) != 2*perBuf || len(evDep) != 100-lost || len(evInd) != 100 || lost != 100-3*perBuf {
		t.Errorf("small %d, dependent %d, independent %d events; %d lost", len(evSmall), len(evDep), len(evInd), lost)
	}
	if hSmall.EventsLost != uint32(lost+perBuf) || hSmall.BuffersLost != 1 || hDep.EventsLost != uint32(lost) || hInd.EventsLost != 0 {
		t.Errorf("EventsLost %d/%d (buffers %d), %d, %d", hSmall.EventsLost, lost+perBuf, hSmall.BuffersLost, hDep.EventsLost, hInd.EventsLost)
	}
}

func TestEnablePropertiesAndTraceLogging(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	a := mustStart(t, sys, "a", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	b := mustStart(t, sys, "b", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	must(t, a.Enable(provTL, 0, 0, 0, session.WithProperties(session.PropertySID|session.PropertyTSID|session.PropertyProcessStartKey|session.PropertyEventKey)))
	must(t, b.Enable(provTL, 0, 0, 0, session.WithProperties(session.PropertyEventKey)))
	traits := []byte("\x07\x00tlp\x00\x00")
	tl, err := sys.RegisterProvider(provTL, session.TraceLogging, &session.ProviderOptions{Traits: traits})
	must(t, err)
	meta := []byte("\x09\x00\x00ev\x00n\x00\x01")
	sid := []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}
	ctx := &session.Context{ProcessID: 9, SessionID: 3, SID: sid, ProcessStartKey: 77}
	for i := uint32(0); i < 3; i++ {
		must(t, tl.WriteTraceLogging(ctx, etl.EventDescriptor{Level: 4}, nil, meta, payload(i, 4)))
	}
	must(t, sys.StopAll())
	fa := openMem(t, fs.Bytes("a.etl"))
	fb := openMem(t, fs.Bytes("b.etl"))
	keys := map[string][]uint64{}
	for name, f := range map[string]*etl.File{"a": fa, "b": fb} {
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
			ev := r.Event()
			if ev.BufferIndex == 0 {
				continue
			}
			var types []etl.ExtType
			for _, x := range ev.Extended {
				types = append(types, x.Type)
				switch x.Type {
				case etl.ExtEventKey:
					keys[name] = append(keys[name], binary.LittleEndian.Uint64(x.Data))
				case etl.ExtTSID:
					if binary.LittleEndian.Uint32(x.Data) != 3 {
						t.Errorf("TS id %x", x.Data)
					}
				case etl.ExtSID:
					if !slices.Equal(x.Data, sid) {
						t.Errorf("SID %x", x.Data)
					}
				case etl.ExtProcessStartKey:
					if binary.LittleEndian.Uint64(x.Data) != 77 {
						t.Errorf("process start key %x", x.Data)
					}
				case etl.ExtProvTraits:
					if !slices.Equal(x.Data, traits) {
						t.Errorf("traits %x", x.Data)
					}
				case etl.ExtEventSchemaTL:
					if !slices.Equal(x.Data, meta) {
						t.Errorf("metadata %x", x.Data)
					}
				}
			}
			want := []etl.ExtType{etl.ExtSID, etl.ExtTSID, etl.ExtProcessStartKey, etl.ExtEventKey, etl.ExtProvTraits, etl.ExtEventSchemaTL}
			if name == "b" {
				want = []etl.ExtType{etl.ExtEventKey, etl.ExtProvTraits, etl.ExtEventSchemaTL}
			}
			if !slices.Equal(types, want) || ev.Descriptor.Channel != session.TraceLoggingChannel {
				t.Errorf("%s: items %v, channel %d", name, types, ev.Descriptor.Channel)
			}
		}
		r.Close()
	}
	if len(keys["a"]) != 3 || !slices.Equal(keys["a"], keys["b"]) || keys["a"][0] == keys["a"][1] {
		t.Errorf("event keys %v", keys)
	}
}

// TestOversizedEvents: an event larger than a session's buffers is lost
// (and counted) there; one beyond the 64 KiB record limit is refused.
func TestOversizedEvents(t *testing.T) {
	fs := &session.MemFS{}
	sys := newSys(1)
	small := mustStart(t, sys, "small", &session.SessionOptions{Create: fs.Create, BufferSize: 4096})
	big := mustStart(t, sys, "big", &session.SessionOptions{Create: fs.Create, BufferSize: 64 << 10, LogFileMode: session.ModeIndependentSession})
	must(t, small.Enable(provA, 0, 0, 0))
	must(t, big.Enable(provA, 0, 0, 0))
	p := mustRegister(t, sys, provA, session.Manifest)
	if err := p.Write(nil, etl.EventDescriptor{}, payload(1, 8000)); err != session.ErrEventLost {
		t.Errorf("8000-byte event: %v", err)
	}
	if err := p.Write(nil, etl.EventDescriptor{}, payload(2, 70000)); err != etl.ErrRecordTooLarge {
		t.Errorf("70000-byte event: %v", err)
	}
	must(t, p.Write(nil, etl.EventDescriptor{}, payload(3, 100)))
	must(t, sys.StopAll())
	evSmall, hSmall := readOne(t, fs, "small.etl")
	evBig, hBig := readOne(t, fs, "big.etl")
	if !slices.Equal(seqs(evSmall), []uint32{3}) || !slices.Equal(seqs(evBig), []uint32{1, 3}) || hSmall.EventsLost != 1 || hBig.EventsLost != 0 {
		t.Errorf("small %v (lost %d), big %v (lost %d)", seqs(evSmall), hSmall.EventsLost, seqs(evBig), hBig.EventsLost)
	}
}
