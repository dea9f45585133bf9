package etl_test

import (
	"sync"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// offsets is a Preparer that records the record offsets of each buffer's
// events, walked on the loader, and counts what is released.
type offsets struct {
	mu             sync.Mutex
	prepared, gone int
}

type bufOffsets struct {
	o    *offsets
	offs []int
	file int
	done bool
}

func (o *offsets) Prepare(b *etl.Buffer, file int) etl.Prepared {
	p := &bufOffsets{o: o}
	rr := b.Records()
	var ev etl.Event
	for rr.Next(&ev) {
		p.offs = append(p.offs, ev.RecordOffset)
	}
	p.file = file
	o.mu.Lock()
	o.prepared++
	o.mu.Unlock()
	return p
}

func (p *bufOffsets) Release() {
	p.o.mu.Lock()
	defer p.o.mu.Unlock()
	if !p.done {
		p.o.gone++
	}
	p.done = true
}

// TestPrepared checks that every event delivered comes with its buffer's
// Prepared value and its position in the buffer's record walk, in both
// orders and over two files, and that every value prepared is released,
// also when the reader is closed before the end.
func TestPrepared(t *testing.T) {
	a := open(t, interleaved())
	b := open(t, etltest.Sample())
	files := []*etl.File{a, b}
	for _, order := range []etl.Order{etl.TimeOrder, etl.FileOrder} {
		for _, stopAt := range []int{-1, 3} {
			o := &offsets{}
			r := etl.NewReader(files, &etl.ReaderOptions{Order: order, Prepare: o, Workers: 2})
			n := 0
			for r.Next() {
				ev := r.Event()
				p, i := r.Prepared()
				bp, ok := p.(*bufOffsets)
				if !ok || i < 0 || i >= len(bp.offs) || bp.offs[i] != ev.RecordOffset || bp.file != ev.File || bp.done {
					t.Fatalf("order %d, event %d (record at %d): prepared %v, position %d", order, n, ev.RecordOffset, p, i)
				}
				n++
				if n == stopAt {
					break
				}
			}
			r.Close()
			if o.prepared == 0 || o.prepared != o.gone {
				t.Errorf("order %d, stop at %d: %d buffers prepared, %d released", order, stopAt, o.prepared, o.gone)
			}
		}
	}
	var r etl.Reader
	if p, i := r.Prepared(); p != nil || i != -1 {
		t.Errorf("no event: Prepared() = %v, %d", p, i)
	}
}
