package etl_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// sameEvent compares what a record stores (not its position or time).
func sameEvent(a, b *etl.Event) bool {
	x, y := *a, *b
	for _, e := range []*etl.Event{&x, &y} {
		e.Raw, e.Time, e.File, e.BufferOffset, e.RecordOffset, e.BufferIndex = nil, 0, 0, 0, 0, 0
		if len(e.Extended) == 0 {
			e.Extended = nil
		}
		if len(e.UserData) == 0 {
			e.UserData = nil
		}
	}
	return reflect.DeepEqual(x, y)
}

// reparse encodes ev and parses the result in a one-buffer file built the
// way ev's buffer was (same processor context).
func reparse(t testing.TB, ev *etl.Event) (*etl.Event, []byte) {
	rec, err := etl.AppendRecord(nil, ev)
	if err != nil {
		t.Fatalf("AppendRecord(%v): %v", ev.Header, err)
	}
	data := make([]byte, etl.BufferHeaderSize, etl.BufferHeaderSize+len(rec)+8)
	data = append(data, rec...)
	for len(data)%8 != 0 {
		data = append(data, 0)
	}
	bh := etl.BufferHeader{BufferSize: uint32(len(data)), Offset: uint32(len(data)), ClientContext: uint32(ev.Processor) | uint32(ev.LoggerID)<<16, State: 3}
	if ev.Flags&etl.FlagProcessorIndex != 0 {
		bh.Flags = etl.BufferFlagProcIndex
	}
	hdr := etl.AppendBufferHeader(nil, &bh)
	copy(data, hdr)
	got, err := etl.ParseRecordIn(data, etl.BufferHeaderSize, ev.Timestamp)
	if err != nil {
		t.Fatalf("re-reading the encoded %v record: %v", ev.Header, err)
	}
	return got, rec
}

// TestCorpusRecordsRoundTrip re-encodes every record of the corpus: the
// result parses to the same event, and for nearly all records it is
// byte-for-byte what Windows wrote.
func TestCorpusRecordsRoundTrip(t *testing.T) {
	files := etltest.CorpusTraces(t)
	total, identical := 0, 0
	for _, p := range files {
		f := openPath(t, p)
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
		for r.Next() {
			ev := r.Event()
			if ev.Header == etl.HeaderInstance32 || ev.Header == etl.HeaderInstance64 {
				if f.Header.SubVersion < 1 || (f.Header.SubVersion == 1 && f.Header.SubMinorVersion == 0) {
					continue // old EVENT_INSTANCE_HEADER form is read, not written
				}
			}
			got, rec := reparse(t, ev)
			if !sameEvent(got, ev) {
				t.Fatalf("%s: %v record at %#x+%#x changed:\n got %+v\nwant %+v", p, ev.Header, ev.BufferOffset, ev.RecordOffset, got, ev)
			}
			total++
			if bytes.Equal(rec, ev.Raw) {
				identical++
			}
		}
		r.Close()
	}
	t.Logf("%d records re-encoded, %d byte-identical", total, identical)
	if total < 200000 || identical < total*999/1000 {
		t.Errorf("%d of %d records byte-identical", identical, total)
	}
}

// FuzzRecordRoundTrip: any record the parser accepts encodes to a record
// that parses to the same event.
func FuzzRecordRoundTrip(f *testing.F) {
	for _, s := range [][]byte{ev64(1, 80000000010)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		data := make([]byte, etl.BufferHeaderSize, etl.BufferHeaderSize+len(rec))
		data = append(data, rec...)
		bh := etl.BufferHeader{BufferSize: uint32(len(data)), Offset: uint32(len(data)), State: 3, Flags: etl.BufferFlagProcIndex}
		copy(data, etl.AppendBufferHeader(nil, &bh))
		ev, err := etl.ParseRecordIn(data, etl.BufferHeaderSize, 0)
		if err != nil {
			return
		}
		if ev.Header == etl.HeaderInstance32 || ev.Header == etl.HeaderInstance64 {
			return
		}
		got, _ := reparse(t, ev)
		if !sameEvent(got, ev) {
			t.Fatalf("round trip changed the event:\n got %+v\nwant %+v", got, ev)
		}
	})
}
