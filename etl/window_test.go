package etl_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/etl/compress"
	"github.com/etwkit/etw/internal/etltest"
)

// windowTrace is a compressed trace (the real XPRESS encoder: matches
// reach back across the windows) of two processors' buffers of 64 KiB,
// with a damaged record after the first window of one buffer and a record longer
// than a window in another, and the ids of its events in time order.
func windowTrace(t *testing.T, damage bool) []byte {
	tf := etltest.NewFile(64<<10, true)
	tf.Compress = func(b []byte) []byte {
		var c compress.Compressor
		return c.AppendLZ77(nil, b)
	}
	ts := int64(80000000000)
	id := uint16(0)
	for buf := 0; buf < 6; buf++ {
		var recs [][]byte
		for size := etl.BufferHeaderSize; size < 60<<10; {
			id++
			ts += 10
			rec := ev64(id, ts)
			switch {
			case damage && buf == 2 && len(recs) == 400:
				rec[3] = 0x12 // not a trace header marker: skipped to the next record
			case buf == 4 && len(recs) == 100:
				rec = etltest.Event(etl.HeaderEvent64, 0, 1, 2, ts, provB, etl.EventDescriptor{ID: id}, [16]byte{}, nil, make([]byte, 30<<10))
			}
			recs = append(recs, rec)
			size += (len(rec) + 7) &^ 7
		}
		tf.AddBuffer(uint16(buf%2), ts, recs...)
	}
	// A short last buffer per processor, as a session's flush leaves.
	tf.AddBuffer(0, ts+10, ev64(60000, ts+5))
	tf.AddBuffer(1, ts+10, ev64(60001, ts+6))
	return tf.Bytes()
}

type windowRun struct {
	events []string
	errs   []string
	hooked int64
	whole  int // most streams holding a whole buffer at once
	window int
}

// readWindows reads copies of the trace at once (16 inputs make 48
// streams: windows), with windows as NewReader chose them or off.
func readWindows(t *testing.T, data []byte, copies int, off bool) windowRun {
	var files []*etl.File
	var run windowRun
	var hooked atomic.Int64 // the hook runs on the loaders, several at once
	for range copies {
		f := open(t, data)
		f.SetReadHook(func(n int64) { hooked.Add(n) })
		files = append(files, f)
	}
	r := etl.NewReader(files, &etl.ReaderOptions{Order: etl.TimeOrder, Workers: 2, Windows: true})
	defer r.Close()
	if off {
		etl.SetReaderWindow(r, 0)
	}
	run.window = etl.ReaderWindow(r)
	for r.Next() {
		ev := r.Event()
		run.events = append(run.events, fmt.Sprintf("%d %d %d %d %d %x", ev.File, ev.BufferIndex, ev.RecordOffset, ev.Time, ev.Descriptor.ID, ev.UserData))
		whole, _ := etl.HeldBuffers(r)
		run.whole = max(run.whole, whole)
	}
	for _, err := range r.Errors() {
		run.errs = append(run.errs, err.Error())
	}
	run.hooked = hooked.Load()
	return run
}

// TestReaderWindows: over many inputs the merge holds windows of its
// streams' buffers, not the buffers, and delivers the same events and
// errors as without them, damaged and long records included; the read
// hook counts each buffer once.
func TestReaderWindows(t *testing.T) {
	for _, damage := range []bool{false, true} {
		data := windowTrace(t, damage)
		on := readWindows(t, data, 16, false)
		off := readWindows(t, data, 16, true)
		if on.window == 0 {
			t.Fatal("16 inputs: no windows")
		}
		if !slices.Equal(on.events, off.events) {
			t.Fatalf("damage=%v: %d events with windows, %d without (or in another order)", damage, len(on.events), len(off.events))
		}
		if !slices.Equal(on.errs, off.errs) {
			t.Fatalf("damage=%v: errors with windows\n%q\nwithout\n%q", damage, on.errs, off.errs)
		}
		if damage != (len(on.errs) == 16) {
			t.Fatalf("damage=%v: %d errors", damage, len(on.errs))
		}
		if on.hooked != off.hooked || on.hooked != 16*int64(len(data)) {
			t.Errorf("damage=%v: read hook %d bytes with windows, %d without, file %d", damage, on.hooked, off.hooked, len(data))
		}
		// Without windows every processor's stream holds its buffer
		// (the 32 overlap; the header buffers' streams end first); with
		// them only those sent back to the whole buffer, at a record
		// longer than a window or a damaged one: the 16 copies meet it
		// at once.
		if off.whole < 32 || on.whole > 16 {
			t.Errorf("damage=%v: at most %d streams held a whole buffer with windows, %d without", damage, on.whole, off.whole)
		}
	}
	if one := readWindows(t, windowTrace(t, false), 1, false); one.window != 0 {
		t.Errorf("one input: window %d", one.window)
	}
}
