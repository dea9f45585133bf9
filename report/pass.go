package report

import (
	"sync"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/cores"
	"github.com/etwkit/etw/internal/panicerr"
)

// passSplit is the second pass on two goroutines, each with its own
// reader of the files: the CPU samples' stacks (the enricher, the CPU
// profile and usage, sample's work) on one, every event decoded and
// handed to the views' observers on the other. The two share nothing
// they write (the model is complete and only read; the CPU usage's
// samples and its interval are separate fields), and each sees the
// events in time order, as the pass on one goroutine does: the result is
// the same, in about the time of the longer of the two. It costs a
// second reading of the files (decompression, on the readers' loaders)
// and a second decoding of the events the enricher reads.
//
// The error is the stacks' reader's, which meets the same damaged
// buffers and records as the observers' (the pass on one goroutine
// returns the same); a panic on the stacks' goroutine is raised again on
// this one.
func (c *collector) passSplit(dec *decode.Decoder, sample func(a *analysis.Annotation) error) error {
	var wg sync.WaitGroup
	var err error
	stacks := dec.Clone() // the same registry, its own decoding state
	wg.Go(func() {
		defer panicerr.Recover(&err)
		_, err = c.m.EachSelected(c.files, stacks, nil, sample)
	})
	func() {
		defer wg.Wait() // a panic here waits for the stacks' goroutine too
		c.observeAll(dec)
	}()
	if pe, ok := err.(*panicerr.Error); ok {
		panic(pe)
	}
	return err
}

// observeAll reads the files in time order and hands every event,
// decoded, to the observers.
func (c *collector) observeAll(dec *decode.Decoder) {
	r := etl.NewReader(c.files, nil)
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		c.observe(ev, dec.Decode(ev))
	}
}

// Passes returns how many times [Build] reads every buffer of its inputs
// (for a progress bar: [etl.File.SetReadHook] counts each reading): the
// model pass, then the second pass, which with more than one core reads
// the inputs twice at once (see passSplit).
func Passes() int {
	if splitPass() {
		return 3
	}
	return 2
}

// splitPass reports whether the second pass runs on two goroutines.
func splitPass() bool { return cores.Several() }
