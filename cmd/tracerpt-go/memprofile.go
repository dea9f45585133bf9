package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/etwkit/etw/cmd/tracerpt-go/internal/cmdline"
)

// memProfiled runs f; when the environment variable
// TRACERPT_GO_MEMPROFILE names a file, it writes there the heap profile
// taken after the garbage collection that found the largest live heap
// (for memory work: go tool pprof -sample_index=inuse_space tracerpt-go
// FILE shows what held the peak). Sampling every 64 KiB allocated
// instead of 512 KiB makes the profile finer.
func memProfiled(f func() int) int {
	path := os.Getenv("TRACERPT_GO_MEMPROFILE")
	if path == "" {
		return f()
	}
	return memProfiledTo(path, os.Stderr, f)
}

// memProfileRate is the heap profile's sampling rate when
// TRACERPT_GO_MEMPROFILE asks for one (set by package cmdline's
// initialisation, which otherwise turns the sampling off).
const memProfileRate = cmdline.MemProfileRate

// memProfiledTo is memProfiled writing the profile to path and its line
// to stderr. A run that ends before any collection (or before the
// sampler saw one) gets the profile of a collection at exit, and says so:
// nothing was freed before it, so every byte allocated was in the heap.
func memProfiledTo(path string, stderr io.Writer, f func() int) int {
	// Package cmdline sets the rate before any goroutine starts; written
	// again here only when it differs (tests), as decode.Warm's goroutine
	// may be allocating, which reads it.
	if runtime.MemProfileRate != memProfileRate {
		runtime.MemProfileRate = memProfileRate
	}
	var best []byte
	var bestLive uint64
	var buf bytes.Buffer
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	start := s[0].Value.Uint64()
	cycles := start
	// sample takes the profile when a collection since the last call
	// found a larger live heap.
	sample := func() {
		metrics.Read(s)
		if s[0].Value.Uint64() == cycles {
			return
		}
		cycles = s[0].Value.Uint64()
		if live := s[1].Value.Uint64(); live > bestLive {
			buf.Reset()
			if pprof.Lookup("heap").WriteTo(&buf, 0) == nil {
				bestLive, best = live, append(best[:0], buf.Bytes()...)
			}
		}
	}
	stop := ticking(2*time.Millisecond, sample)
	code := f()
	stop()
	sample() // a collection in the last tick
	total := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(total)
	allocated := float64(total[0].Value.Uint64()) / 1e6
	atExit := best == nil
	if atExit {
		runtime.GC() // publishes the profile of every allocation so far
		buf.Reset()
		if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
			fmt.Fprintln(stderr, "tracerpt-go: TRACERPT_GO_MEMPROFILE:", err)
			return code
		}
		best = buf.Bytes()
	}
	switch err := os.WriteFile(path, best, 0o644); {
	case err != nil:
		fmt.Fprintln(stderr, "tracerpt-go: TRACERPT_GO_MEMPROFILE:", err)
	case atExit:
		fmt.Fprintf(stderr, "tracerpt-go: TRACERPT_GO_MEMPROFILE: no collection during the run: the profile is taken at exit (-sample_index=alloc_space: what the heap held); %.1f MB allocated\n",
			allocated)
	default:
		fmt.Fprintf(stderr, "tracerpt-go: TRACERPT_GO_MEMPROFILE: live heap at most %.1f MB; %d collections, %.0f MB allocated\n",
			float64(bestLive)/1e6, cycles-start, allocated)
	}
	return code
}
