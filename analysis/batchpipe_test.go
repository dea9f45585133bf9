package analysis

import (
	"strings"
	"testing"
)

type testBatch struct{ n []int }

func newTestPipe(consume func(b *testBatch)) *batchPipe[testBatch] {
	return startPipe(2, func() *testBatch { return &testBatch{} }, func(b *testBatch) { b.n = b.n[:0] },
		func(full <-chan *testBatch, free chan<- *testBatch) {
			for b := range full {
				consume(b)
				b.n = b.n[:0]
				free <- b
			}
		})
}

// TestBatchPipe: every batch reaches the consumer in order; a panic of
// the consumer lets the producer go on sending and is raised again by
// close; abort ends the consumer without a last batch.
func TestBatchPipe(t *testing.T) {
	var got []int
	p := newTestPipe(func(b *testBatch) { got = append(got, b.n...) })
	b := <-p.free
	for i := range 20 {
		b.n = append(b.n, i)
		if len(b.n) == 3 {
			b = p.next(b)
		}
	}
	p.close(b)
	p.close(b) // a second call does nothing
	if len(got) != 20 || got[0] != 0 || got[19] != 19 {
		t.Errorf("consumer got %v, want 0…19", got)
	}

	p = newTestPipe(func(b *testBatch) { panic("consumer fails") })
	b = <-p.free
	for range 10 { // more batches than the pipe holds: the producer must not block
		b.n = append(b.n, 1)
		b = p.next(b)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "consumer fails") {
				t.Errorf("close raised %v, want the consumer's panic", r)
			}
		}()
		p.close(b)
	}()

	calls := 0
	p = newTestPipe(func(b *testBatch) { calls++ })
	b = <-p.free
	b.n = append(b.n, 1)
	p.abort()
	p.close(b) // after abort: nothing
	if calls != 0 {
		t.Errorf("abort handed %d batches to the consumer, want 0", calls)
	}
}
