package etl

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadAheadBounded: many inputs read together (40 streams and more)
// load at most maxAhead buffers ahead of need (the buffers queued behind
// the ones the streams read, counted after every event), and give every event, in
// the order a reader with room for all of them gives.
func TestReadAheadBounded(t *testing.T) {
	var files []*File
	for range 24 {
		f, err := Open(filepath.Join("..", "testdata", "etl", "compressed.etl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	read := func(maxAhead int) (times []int64, most int) {
		r := NewReader(files, &ReaderOptions{Workers: 2})
		defer r.Close()
		if maxAhead > 0 {
			r.maxAhead = maxAhead
		}
		for r.Next() {
			times = append(times, r.Event().Time)
			// Every stream in the merge holds the buffer it reads: the
			// buffers queued behind it are all ahead of need.
			queued := 0
			for _, s := range r.streams {
				queued += len(s.queue)
			}
			if queued != r.ahead {
				t.Fatalf("%d buffers queued, %d counted ahead", queued, r.ahead)
			}
			most = max(most, queued)
		}
		if len(r.Errors()) > 0 {
			t.Fatal(r.Errors())
		}
		return times, most
	}
	all, unbounded := read(1 << 20)
	if unbounded <= 3 {
		t.Fatalf("only %d buffers ahead without a bound: the input does not test the bound", unbounded)
	}
	some, most := read(3)
	if len(some) != len(all) || len(all) == 0 {
		t.Fatalf("%d events with 3 buffers ahead, %d without a bound", len(some), len(all))
	}
	for i := range all {
		if all[i] != some[i] {
			t.Fatalf("event %d at %d, %d without a bound", i, some[i], all[i])
		}
	}
	if most > 3 {
		t.Errorf("%d buffers loaded ahead, bound 3", most)
	}
	r := NewReader(files, nil)
	if n := len(r.streams); n <= 16 {
		t.Errorf("%d streams: the test wants more than the default bound", n)
	}
	r.Close()
}

// TestReadAheadOption: ReaderOptions.ReadAhead bounds the buffers loaded
// ahead of need instead of the default, and lets one stream queue that
// many (the default: Workers + 1); the events are the default reader's.
// The trace: 600 events of one processor in 1 KiB buffers (a stream of
// ~45 buffers, beside the header buffer's).
func TestReadAheadOption(t *testing.T) {
	f := smallBuffersTrace(t, 600, 1, 1, func(int) uint16 { return 0 })
	read := func(ahead int) (ids []uint16, most, mostOne int) {
		r := NewReader([]*File{f}, &ReaderOptions{Workers: 2, ReadAhead: ahead})
		defer r.Close()
		if len(r.streams) < 2 {
			t.Fatalf("%d streams: the bound is the merge's", len(r.streams))
		}
		for r.Next() {
			ids = append(ids, r.Event().Descriptor.ID)
			for _, s := range r.streams {
				mostOne = max(mostOne, len(s.queue))
			}
			most = max(most, r.ahead)
		}
		if len(r.Errors()) > 0 {
			t.Fatal(r.Errors())
		}
		return ids, most, mostOne
	}
	r := NewReader([]*File{f}, &ReaderOptions{ReadAhead: 1 << 30})
	if r.maxAhead != MaxReadAhead || r.depth != MaxReadAhead {
		t.Errorf("ReadAhead 1<<30: %d ahead, %d a stream, want MaxReadAhead (%d)", r.maxAhead, r.depth, MaxReadAhead)
	}
	r.Close()
	def, _, defOne := read(0)
	if defOne > 3 {
		t.Errorf("default: a stream queued %d loads, want at most Workers + 1 = 3", defOne)
	}
	for _, ahead := range []int{5, 12} {
		got, most, one := read(ahead)
		if most > ahead {
			t.Errorf("ReadAhead %d: %d buffers ahead", ahead, most)
		}
		if one <= 3 {
			t.Errorf("ReadAhead %d: a stream queued at most %d loads: the option does not let it go further", ahead, one)
		}
		if len(got) != len(def) || len(def) < 600 {
			t.Fatalf("ReadAhead %d: %d events, default %d", ahead, len(got), len(def))
		}
		for i := range def {
			if got[i] != def[i] {
				t.Fatalf("ReadAhead %d: event %d is id %d, default %d", ahead, i, got[i], def[i])
			}
		}
	}
}

// TestReadAheadSoonest: the loads made ahead of need go to the buffers
// the merge will want soonest, whatever their stream. The trace: a quiet
// processor, whose buffers each span much of the trace, and a busy one
// (1 KiB buffers, nine events in ten). A quiet stream that took the bound
// for its late buffers left the busy one's loaded one at a time, each on
// need (the reading goroutine waiting for it from its start).
func TestReadAheadSoonest(t *testing.T) {
	f := smallBuffersTrace(t, 1500, 2, 10, func(i int) uint16 {
		if i%10 == 0 {
			return 0
		}
		return 1
	})
	for _, workers := range []int{1, 2, 4} {
		r := NewReader([]*File{f}, &ReaderOptions{Workers: workers, ReadAhead: 4})
		var bufs []int
		for _, s := range r.streams {
			bufs = append(bufs, len(s.bufs))
		}
		n := 0
		for ; r.Next(); n++ {
			if r.ahead > r.maxAhead {
				t.Fatalf("%d workers: %d buffers ahead, bound %d", workers, r.ahead, r.maxAhead)
			}
		}
		if len(r.Errors()) > 0 {
			t.Fatal(r.Errors())
		}
		r.Close()
		if n < 1500 || len(bufs) != 3 || slices.Max(bufs) < 60 {
			t.Fatalf("%d events, streams of %v buffers: the trace does not test the order", n, bufs)
		}
		// The busy stream's buffers come ahead of need but at the
		// quiet one's few turns (its queue empties when it has taken
		// its next buffer and the bound is full of the busy one's).
		if r.onNeed > 10 {
			t.Errorf("%d workers: %d buffers loaded on need, of %v", workers, r.onNeed, bufs)
		}
	}
}

// smallBuffersTrace returns a trace in 1 KiB buffers of n events (40-byte
// payloads, id i) of procs processors, event i on processor proc(i) at
// raw time 80000000000 + i×step.
func smallBuffersTrace(t *testing.T, n int, procs uint32, step int64, proc func(i int) uint16) *File {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriterOptions{BufferSize: 1024, Header: LogfileHeader{Is64: true, NumberOfProcessors: procs,
		StartTime: 132247862638609634, HeaderTimestamp: 80000000000, LoggerName: "read ahead"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ev := Event{Header: HeaderEvent64, Processor: proc(i), Descriptor: EventDescriptor{ID: uint16(i)},
			Timestamp: 80000000000 + int64(i)*step, UserData: make([]byte, 40)}
		if err := w.WriteEvent(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
