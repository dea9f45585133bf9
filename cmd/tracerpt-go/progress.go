package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/etwkit/etw/etl"
)

// progress shows how much of the input has been read, on standard error,
// when that is a terminal.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a progress bar for reading files, or nil when quiet
// is set or w is not a terminal.
func newProgress(w io.Writer, quiet bool, files []*etl.File) *progress {
	if quiet || !isTerminal(w) {
		return nil
	}
	var total int64
	for _, fl := range files {
		total += fl.Size()
	}
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("reading"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar}
}

func (p *progress) update(done, total int64) {
	if done > total {
		done = total
	}
	p.bar.Set64(done)
}

func (p *progress) finish() {
	p.bar.Finish()
	p.bar.Exit()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
