package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
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
	runtime.MemProfileRate = 64 << 10
	stop, done := make(chan struct{}), make(chan struct{})
	var best []byte
	var bestLive, cycles uint64
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
		var buf bytes.Buffer
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			metrics.Read(s)
			if s[0].Value.Uint64() == cycles {
				continue
			}
			cycles = s[0].Value.Uint64()
			if live := s[1].Value.Uint64(); live > bestLive {
				buf.Reset()
				if pprof.Lookup("heap").WriteTo(&buf, 0) == nil {
					bestLive, best = live, append(best[:0], buf.Bytes()...)
				}
			}
		}
	}()
	code := f()
	close(stop)
	<-done
	total := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(total)
	if err := os.WriteFile(path, best, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "tracerpt-go: TRACERPT_GO_MEMPROFILE:", err)
	} else {
		fmt.Fprintf(os.Stderr, "tracerpt-go: TRACERPT_GO_MEMPROFILE: live heap at most %.1f MB; %d collections, %.0f MB allocated\n",
			float64(bestLive)/1e6, cycles, float64(total[0].Value.Uint64())/1e6)
	}
	return code
}
