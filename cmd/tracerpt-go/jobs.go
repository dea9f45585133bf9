package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/tracerpt"
)

// lockedWriter serializes the writes of concurrent jobs (warnings on
// standard error).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// jobOutput is the output of one job under dir: the input's name with the
// format's extension (a directory of tables with --split-by-event); a
// name met before gets "-2", "-3", … so that every input has its own.
func jobOutputs(jobs []tracerpt.Job, dir string, format driver.Format, o *dumpOptions) []string {
	ext := filepath.Ext(format.DefaultOutput())
	if o.splitDir != "" {
		ext = ""
	}
	used := map[string]bool{}
	out := make([]string, len(jobs))
	for i, j := range jobs {
		name := j.Name
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = j.Name + "-" + strconv.Itoa(n)
		}
		used[strings.ToLower(name)] = true
		out[i] = filepath.Join(dir, name+ext)
	}
	return out
}

// runJobs converts every input on its own (--jobs N): one output per
// input under the -o directory, N inputs at a time, each with its own
// decoder and analysis. A failing input does not stop the others; the
// exit status is the first failure's.
func runJobs(cmd *cobra.Command, args []string, o *dumpOptions, format driver.Format, ropts *tracerpt.Options) error {
	fl := cmd.Flags()
	dir := o.output
	if o.splitDir != "" {
		dir = o.splitDir
	}
	switch {
	case o.jobs < 0:
		return usageError(fmt.Errorf("--jobs %d: want 0 (one per CPU) or more", o.jobs))
	case dir == "" || dir == "-":
		return usageError(errors.New("--jobs writes one file per input: give -o DIR (or --split-by-event DIR)"))
	case fl.Changed("summary"):
		return usageError(errors.New("--jobs writes one dump per input: -summary does not apply"))
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usageError(fmt.Errorf("-o %s: --jobs needs a directory", dir))
	}
	jobs, err := tracerpt.ExpandJobs(args)
	if err != nil {
		return withCode(exitInput, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	outs := jobOutputs(jobs, dir, format, o)
	n := o.jobs
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	n = min(n, len(jobs))
	// Each job reads, decodes and writes with its share of the CPUs.
	workers := o.workers
	if workers == 0 {
		workers = max(1, runtime.GOMAXPROCS(0)/n)
	}
	stderr := &lockedWriter{w: cmd.ErrOrStderr()}
	cmd.SetErr(stderr)
	// The imports are read (and summed up) once; each job forks them.
	base, err := newImportDecoder(cmd, o.manifests, o.verbose)
	if err != nil {
		return err
	}

	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				jo := *o
				jo.workers, jo.quiet, jo.summary, jo.base = workers, true, "", base
				if o.splitDir != "" {
					jo.splitDir, jo.output = outs[i], ""
				} else {
					jo.output = outs[i]
				}
				if err := dumpJob(cmd, jobs[i].Files, &jo, format, ropts); err != nil {
					errs[i] = err
					fmt.Fprintf(stderr, "tracerpt-go: %s: %v\n", jobs[i].Files[0], err)
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()

	failed := 0
	var first error
	for _, err := range errs {
		if err != nil {
			failed++
			if first == nil {
				first = err
			}
		}
	}
	if first != nil {
		return withCode(exitCode(first), fmt.Errorf("%d of %d inputs failed", failed, len(jobs)))
	}
	return nil
}

// dumpJob is dumpInputs for one job of --jobs, on its own goroutine: a
// panic is that job's internal error.
func dumpJob(cmd *cobra.Command, files []string, o *dumpOptions, format driver.Format, ropts *tracerpt.Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError(r, files)
		}
	}()
	return workerPanic(dumpInputs(cmd, files, o, format, ropts), files)
}
