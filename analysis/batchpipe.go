package analysis

import "github.com/etwkit/etw/internal/panicerr"

// batchPipe hands batches from one goroutine (the producer: the model
// pass, the reading of eachSelectedAsync) to another (the consumer), n
// of them in flight, and the emptied batches back: the methodQueue's
// and eachSelectedAsync's handoff.
type batchPipe[B any] struct {
	full, free chan *B
	done       chan struct{}
	closed     bool
	err        error // a panic of the consumer
}

// startPipe starts consume on a goroutine of its own, with n+1 batches
// from mk; consume takes the batches from full and hands each back to
// free, reset, once done with it. After a panic of consume the batches
// still sent are reset and handed back, so that the producer ends.
func startPipe[B any](n int, mk func() *B, reset func(*B), consume func(full <-chan *B, free chan<- *B)) *batchPipe[B] {
	p := &batchPipe[B]{full: make(chan *B, n), free: make(chan *B, n+1), done: make(chan struct{})}
	for range n + 1 {
		p.free <- mk()
	}
	go func() {
		defer close(p.done)
		defer func() {
			for b := range p.full {
				reset(b)
				p.free <- b
			}
		}()
		defer panicerr.Recover(&p.err)
		consume(p.full, p.free)
	}()
	return p
}

// next sends b, full, to the consumer and returns an empty batch.
func (p *batchPipe[B]) next(b *B) *B {
	p.full <- b
	return <-p.free
}

// close sends b, the last batch, waits until the consumer is done, and
// raises a panic of the consumer again. Safe to call more than once.
func (p *batchPipe[B]) close(b *B) {
	if p.closed {
		return
	}
	p.closed = true
	p.full <- b
	close(p.full)
	<-p.done
	if p.err != nil {
		panic(p.err)
	}
}

// abort ends the consumer, if close was not called, without a last
// batch: for a producer that panicked. A panic of the consumer is not
// raised again.
func (p *batchPipe[B]) abort() {
	if p.closed {
		return
	}
	p.closed = true
	close(p.full)
	<-p.done
}
