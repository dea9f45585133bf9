package main

import (
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/etwkit/etw/etl"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := file(w)
	return ok && term.IsTerminal(int(f.Fd()))
}

// passProgress shows, on standard error when it is a terminal, how far a
// command has got through the passes it makes over files (each pass reads
// every buffer once: etl.File.SetReadHook), as one bar across all of them.
// Call the returned function when the command is done with the files.
func passProgress(w io.Writer, quiet bool, files []*etl.File, passes int) (done func()) {
	if quiet || (!isTerminal(w) && !forceProgress) {
		return func() {}
	}
	var size int64
	for _, f := range files {
		for _, b := range f.Buffers() {
			size += int64(b.Header.BufferSize)
		}
	}
	// The bar counts the input once, whatever the passes, so that its
	// rate is the command's throughput over the input: a second pass that
	// takes its buffers from memory must not show as hundreds of GB/s.
	total := size * int64(passes)
	var read atomic.Int64
	for _, f := range files {
		f.SetReadHook(func(n int64) { read.Add(n) })
	}
	desc := "reading"
	if passes > 1 {
		desc = "reading (" + strconv.Itoa(passes) + " passes)"
	}
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	stop := ticking(100*time.Millisecond, func() {
		bar.Set64(min(read.Load(), total) / int64(passes))
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			for _, f := range files {
				f.SetReadHook(nil)
			}
			if progressDone != nil {
				progressDone(read.Load(), total, size)
			}
			bar.Finish()
			bar.Exit()
		})
	}
}

// Tests: forceProgress shows the bar on any writer, progressDone gets the
// bytes read, the bytes all passes read, and the bar's own total (the
// input once) when it ends.
var (
	forceProgress bool
	progressDone  func(read, total, shown int64)
)
