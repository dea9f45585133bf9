package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// heapProfiled starts, when the environment variable
// TRACERPT_GO_HEAPPROFILE names a file, a goroutine that writes a heap
// profile there each time the heap's live objects reach a new peak (for
// memory work: go tool pprof -sample_index=inuse_space tracerpt-go FILE
// shows what was live at the last collection before the peak). The
// returned function writes the last profile if none was written.
func heapProfiled() func() {
	path := os.Getenv("TRACERPT_GO_HEAPPROFILE")
	if path == "" {
		return func() {}
	}
	runtime.MemProfileRate = 16 << 10 // finer than the default 512 KiB
	stop := make(chan struct{})
	done := make(chan struct{})
	write := func() {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tracerpt-go: TRACERPT_GO_HEAPPROFILE:", err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			fmt.Fprintln(os.Stderr, "tracerpt-go: TRACERPT_GO_HEAPPROFILE:", err)
		}
	}
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peak uint64
		written := false
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				if !written {
					write()
				}
				return
			case <-t.C:
			}
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak+peak/50 {
				peak = v
				write()
				written = true
			}
		}
	}()
	return func() { close(stop); <-done }
}
