package etl_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

var (
	provA = uuid.MustParse("9e814aad-3204-11d2-9a82-006008a86939")
	provB = uuid.MustParse("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716")
)

func open(t testing.TB, b []byte) *etl.File {
	t.Helper()
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("NewFile: %v", err)
	}
	return f
}

func collect(t testing.TB, files []*etl.File, order etl.Order) ([]etl.Event, []error) {
	t.Helper()
	r := etl.NewReader(files, &etl.ReaderOptions{Order: order})
	defer r.Close()
	var evs []etl.Event
	for r.Next() {
		ev := *r.Event()
		ev.Raw, ev.UserData, ev.Extended = slices.Clone(ev.Raw), slices.Clone(ev.UserData), slices.Clone(ev.Extended)
		for i := range ev.Extended {
			ev.Extended[i].Data = slices.Clone(ev.Extended[i].Data)
		}
		evs = append(evs, ev)
	}
	return evs, r.Errors()
}

func TestLogfileHeader(t *testing.T) {
	for _, is64 := range []bool{true, false} {
		tf := etltest.NewFile(4096, is64)
		tf.TLH.BootTime = 132247782185000000
		tf.TLH.EventsLost, tf.TLH.BuffersLost = 3, 1
		tf.AddBuffer(1, 80000000100, etltest.Event(etl.HeaderEvent64, 0, 1, 2, 80000000050, provB, etl.EventDescriptor{ID: 7}, uuid.UUID{}, nil, nil))
		f := open(t, tf.Bytes())
		h := f.Header
		want := tf.TLH
		want.Is64 = is64
		want.BuffersWritten = 2
		if h != want {
			t.Errorf("is64=%v: header\n got %+v\nwant %+v", is64, h, want)
		}
		if h.Version() != 10|1<<16|5<<24 {
			t.Errorf("Version() = %#x", h.Version())
		}
		st := f.Scan()
		wantType := etl.HeaderSystem32
		if is64 {
			wantType = etl.HeaderSystem64
		}
		if st.Events != 3 || st.HeaderTypes[wantType] != 2 || st.HeaderTypes[etl.HeaderEvent64] != 1 || len(st.Errors) != 0 {
			t.Errorf("is64=%v: stats %+v", is64, st)
		}
		if st.FirstTime != h.StartTime || st.LastTime != h.StartTime+50 {
			t.Errorf("times %d..%d, want %d..%d", st.FirstTime, st.LastTime, h.StartTime, h.StartTime+50)
		}
	}
}

func TestNotETL(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("hello"), bytes.Repeat([]byte{0xFF}, 8192), bytes.Repeat([]byte{0}, 8192)} {
		_, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if !errors.Is(err, etl.ErrNotETL) {
			t.Errorf("%d bytes: err = %v, want ErrNotETL", len(b), err)
		}
		var fe *etl.FormatError
		if !errors.As(err, &fe) || fe.Offset != 0 {
			t.Errorf("%d bytes: err %v is not a FormatError at offset 0", len(b), err)
		}
	}
}

// TestRecordKinds puts one record of every header kind in a buffer and
// checks every field the parser fills.
func TestRecordKinds(t *testing.T) {
	tf := etltest.NewFile(8192, true)
	pebs := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	pmc := []byte{2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}
	sid := []byte{1, 2, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0, 0xE9, 3, 0, 0}
	inst := make([]byte, 24)
	etltest.LE32(inst, 9)
	etltest.LE32(inst[4:], 8)
	etl.PutGUIDWindows(inst[8:], provA)
	stack := []byte{5, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0, 0, 0x80, 0x20, 0, 0, 0, 0, 0, 0, 0x80}
	rel := make([]byte, 16)
	etl.PutGUIDWindows(rel, provB)
	traits := append([]byte{0, 0}, "MyProvider\x00"...)
	grp := make([]byte, 19)
	etltest.LE16(grp, 19)
	grp[2] = etl.TraitGroup
	etl.PutGUIDWindows(grp[3:], provA)
	traits = append(traits, grp...)
	etltest.LE16(traits, uint16(len(traits)))
	wppGUID := make([]byte, 16)
	etl.PutGUIDWindows(wppGUID, provB)
	seq, ts, tidpid := make([]byte, 4), make([]byte, 8), make([]byte, 8)
	etltest.LE32(seq, 42)
	etltest.LE64(ts, 80000000900)
	etltest.LE32(tidpid, 0x10)
	etltest.LE32(tidpid[4:], 0x20)
	act := uuid.MustParse("11111111-2222-3333-4444-555555555555")
	desc := etl.EventDescriptor{ID: 300, Version: 2, Channel: 16, Level: 4, Opcode: 1, Task: 9, Keyword: 0x8000000000000010}
	tf.AddBuffer(2, 80000001000,
		etltest.Sys(etl.HeaderSystem64, 0x8203, 0x0524, 5, 6, 80000000100, append(pebs, pmc...), []byte("cswitch")),
		etltest.Sys(etl.HeaderCompact32, 2, 0x0301, 7, 8, 80000000200, nil, []byte{1, 2, 3}),
		etltest.Sys(etl.HeaderPerfInfo64, 2, 0x030A, 0, 0, 80000000300, nil, []byte{4}),
		etltest.Classic(etl.HeaderClassic32, 12, 3, 1, 9, 10, 80000000400, provB, []byte{5, 6}),
		etltest.Classic(etl.HeaderInstance64, 13, 2, 4, 11, 12, 80000000500, provA, []byte{7}),
		etltest.Event(etl.HeaderEvent32, 0, 13, 14, 80000000600, provB, desc, act, []etltest.Ext{
			{Type: etl.ExtRelatedActivityID, Data: rel},
			{Type: etl.ExtSID, Data: sid},
			{Type: etl.ExtTSID, Data: []byte{1, 0, 0, 0}},
			{Type: etl.ExtInstanceInfo, Data: inst},
			{Type: etl.ExtStackTrace64, Data: stack},
			{Type: etl.ExtProvTraits, Data: traits},
			{Type: 0x77, Data: []byte{0xAB}},
		}, []byte("payload")),
		etltest.Message(17, 0x01|0x02|0x08|0x20|0x40, seq, wppGUID, ts, tidpid, []byte("args")),
		etltest.Message(18, 0x04, []byte{3, 0, 0, 0}, []byte("no ts")),
		etltest.Event(etl.HeaderError, 0x20, 15, 16, 80000001000, provA, etl.EventDescriptor{ID: 1}, uuid.UUID{}, nil, nil),
	)
	f := open(t, tf.Bytes())
	evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(evs) != 11 {
		t.Fatalf("%d events, want 11", len(evs))
	}
	st := f.Scan()
	for typ, n := range map[etl.HeaderType]int{etl.HeaderSystem64: 3, etl.HeaderCompact32: 1, etl.HeaderPerfInfo64: 1, etl.HeaderClassic32: 1, etl.HeaderInstance64: 1, etl.HeaderEvent32: 1, etl.HeaderMessage: 2, etl.HeaderError: 1} {
		if st.HeaderTypes[typ] != n {
			t.Errorf("HeaderTypes[%v] = %d, want %d", typ, st.HeaderTypes[typ], n)
		}
	}
	evs = evs[2:] // header buffer
	start := f.Header.StartTime - f.Header.HeaderTimestamp
	for i, ev := range evs {
		if ev.Processor != 2 || ev.LoggerID != 7 || ev.BufferIndex != 1 {
			t.Errorf("event %d: processor %d logger %d buffer %d", i, ev.Processor, ev.LoggerID, ev.BufferIndex)
		}
		if ev.Time != start+ev.Timestamp {
			t.Errorf("event %d: time %d, raw %d", i, ev.Time, ev.Timestamp)
		}
	}

	cs := evs[0]
	cswitchGUID := etl.KernelGroupGUID(0x0500)
	if cs.Header != etl.HeaderSystem64 || cs.HookID != 0x0524 || cs.Descriptor.Opcode != 0x24 || cs.Descriptor.Version != 3 ||
		cs.ProviderID != cswitchGUID || cs.ThreadID != 5 || cs.ProcessID != 6 || cs.KernelTime != 5 || cs.UserTime != 7 ||
		string(cs.UserData) != "cswitch" || cs.Flags != etl.FlagClassicHeader|etl.Flag64BitHeader|etl.FlagExtendedInfo|etl.FlagProcessorIndex {
		t.Errorf("system64: %+v", cs)
	}
	if len(cs.Extended) != 2 || cs.Extended[0].Type != etl.ExtPEBSIndex || cs.Extended[1].Type != etl.ExtPMCCounters {
		t.Fatalf("system64 extras: %+v", cs.Extended)
	}
	if v, _ := cs.Extended[1].Value(); !slices.Equal(v.([]uint64), []uint64{2, 3}) {
		t.Errorf("PMC counters %v", v)
	}
	if c := evs[1]; c.Header != etl.HeaderCompact32 || c.Flags&etl.FlagNoCPUTime == 0 || c.Flags&etl.Flag32BitHeader == 0 || c.ThreadID != 7 || !bytes.Equal(c.UserData, []byte{1, 2, 3}) || c.PointerSize() != 4 {
		t.Errorf("compact32: %+v", c)
	}
	if p := evs[2]; p.ThreadID != 0xFFFFFFFF || p.ProcessID != 0xFFFFFFFF || p.ProviderID != etl.KernelGroupGUID(0x1400) || !bytes.Equal(p.UserData, []byte{4}) {
		t.Errorf("perfinfo64 (0x030A is ImageLoad): %+v", p)
	}
	if c := evs[3]; c.ProviderID != provB || c.Descriptor.Opcode != 12 || c.Descriptor.Level != 3 || c.ClassVersion != 1 || c.KernelTime != 11 || c.UserTime != 13 || !bytes.Equal(c.UserData, []byte{5, 6}) {
		t.Errorf("classic32: %+v", c)
	}
	if c := evs[4]; c.ProviderID != provA || c.InstanceID != 77 || c.ParentInstanceID != 66 || c.ParentGUID != provA || !bytes.Equal(c.UserData, []byte{7}) {
		t.Errorf("instance64: %+v", c)
	}
	e := evs[5]
	if e.Descriptor != desc || e.ActivityID != act || e.ProviderID != provB || e.KernelTime != 3 || e.UserTime != 4 || string(e.UserData) != "payload" ||
		e.Flags != etl.FlagExtendedInfo|etl.Flag32BitHeader|etl.FlagProcessorIndex {
		t.Errorf("event32: %+v", e)
	}
	if g, ok := e.RelatedActivityID(); !ok || g != provB {
		t.Errorf("related activity %v %v", g, ok)
	}
	wantExt := []any{
		provB,
		"S-1-5-21-1001",
		uint32(1),
		etl.InstanceInfo{InstanceID: 9, ParentInstanceID: 8, ParentGUID: provA},
		"{5 [9223372036854775824 9223372036854775840]}",
		"{MyProvider [{1 " + provA.String() + " []}]}",
		[]byte{0xAB},
	}
	if len(e.Extended) != len(wantExt) {
		t.Fatalf("%d extended items, want %d", len(e.Extended), len(wantExt))
	}
	for i, x := range e.Extended {
		v, err := x.Value()
		if err != nil {
			t.Errorf("item %d (%v): %v", i, x.Type, err)
			continue
		}
		switch w := wantExt[i].(type) {
		case string:
			var got string
			switch v := v.(type) {
			case etl.SID:
				got = v.String()
			case etl.StackTrace:
				got = fmt.Sprint(v)
			case etl.ProviderTraits:
				got = fmt.Sprintf("{%s [{%d %s []}]}", v.Name, v.Traits[0].Type, v.Traits[0].GUID)
			}
			if got != w {
				t.Errorf("item %d (%v) = %q, want %q", i, x.Type, got, w)
			}
		case []byte:
			if !bytes.Equal(v.([]byte), w) {
				t.Errorf("item %d = %v", i, v)
			}
		default:
			if v != w {
				t.Errorf("item %d (%v) = %v, want %v", i, x.Type, v, w)
			}
		}
	}
	w := evs[6]
	if w.Header != etl.HeaderMessage || w.Descriptor.ID != 17 || w.SequenceNumber != 42 || w.ProviderID != provB || w.Timestamp != 80000000900 ||
		w.ThreadID != 0x10 || w.ProcessID != 0x20 || string(w.UserData) != "args" || w.PointerSize() != 4 || w.Flags&etl.FlagTraceMessage == 0 {
		t.Errorf("wpp: %+v", w)
	}
	if w2 := evs[7]; w2.ComponentID != 3 || w2.Timestamp != 80000000900 || string(w2.UserData) != "no ts" {
		t.Errorf("wpp without timestamp must inherit the previous one: %+v", w2)
	}
	if er := evs[8]; er.Header != etl.HeaderError || er.Flags&etl.Flag32BitHeader == 0 || er.Flags&etl.Flag64BitHeader != 0 {
		t.Errorf("error record: %+v", er)
	}
}

func TestSIDString(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}, "S-1-5-18"},
		// Authorities of 2^32 and more print as 12 lower-case hex digits,
		// as RtlConvertSidToUnicodeString does.
		{[]byte{1, 0, 0, 0x1A, 0, 0, 0, 0xBC}, "S-1-0x001a000000bc"},
	} {
		s, n, err := etl.ParseSID(c.b)
		if err != nil || n != len(c.b) || s.String() != c.want {
			t.Errorf("% x: %q (%d bytes, %v), want %q", c.b, s.String(), n, err, c.want)
		}
	}
}
