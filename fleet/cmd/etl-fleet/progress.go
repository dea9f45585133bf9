package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/etwkit/etw/fleet/fleetpipe"
	"github.com/etwkit/etw/tracerpt"
)

// progress shows the pipeline's counters as it runs: on a terminal, a
// bar over the elements the globs name; elsewhere a line every interval.
type progress struct {
	w        io.Writer
	interval time.Duration
	start    time.Time
	bar      *progressbar.ProgressBar
	// names are the files the inputs name, when the bar listed them
	// (listed): the pipeline takes them rather than list them again.
	names  []string
	listed bool
}

// newProgress returns the progress of a run over inputs on w (every 0: the
// final counters only).
func newProgress(ctx context.Context, w io.Writer, inputs []string, every time.Duration) *progress {
	p := &progress{w: w, interval: every, start: time.Now()}
	if f, ok := w.(*os.File); ok && every > 0 && term.IsTerminal(int(f.Fd())) {
		total := -1
		if names, err := fleetpipe.List(ctx, inputs); err == nil {
			total = len(tracerpt.GroupSequences(names))
			p.names, p.listed = names, true
		}
		p.interval = 500 * time.Millisecond
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("files"), progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	return p
}

// show reports the counters c (fleetpipe.Run's report).
func (p *progress) show(c fleetpipe.Counters, final bool) {
	if final {
		if p.bar != nil {
			p.bar.Finish()
		}
		fmt.Fprintf(p.w, "etl-fleet: %s (%.1f s)\n", c, time.Since(p.start).Seconds())
		return
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("files (%d events, %d errors)", c.Events, c.Errors))
		p.bar.Set64(c.Files)
		return
	}
	fmt.Fprintf(p.w, "etl-fleet: %s (%.0f s)\n", c, time.Since(p.start).Seconds())
}
