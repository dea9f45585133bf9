package etl

import (
	"path/filepath"
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
