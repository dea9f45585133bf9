package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// memSink keeps the tests' allocations live.
var memSink []byte

// readHeapProfile parses the profile at path and returns it with the
// bytes that allocMemSink allocated, by sample type ("alloc_space",
// "inuse_space").
func readHeapProfile(t *testing.T, path string) (*profile.Profile, map[string]int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(b)
	if err != nil {
		t.Fatalf("profile of %d bytes: %v", len(b), err)
	}
	by := map[string]int64{}
	for _, s := range p.Sample {
		mine := false
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				mine = mine || strings.HasSuffix(l.Function.Name, ".allocMemSink")
			}
		}
		if mine {
			for i, st := range p.SampleType {
				by[st.Type] += s.Value[i]
			}
		}
	}
	return p, by
}

//go:noinline
func allocMemSink(n int) { memSink = make([]byte, n) }

// A run that ends before any collection gets the profile of a collection
// at exit, not an empty file, and the line on standard error says so.
func TestMemProfileNoCollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer func() { memSink = nil }()
	runtime.GC() // none in progress when the run starts
	path := filepath.Join(t.TempDir(), "heap.prof")
	var stderr bytes.Buffer
	const size = 4 << 20
	code := memProfiledTo(path, &stderr, func() int { allocMemSink(size); return 7 })
	if code != 7 {
		t.Errorf("exit %d, want f's 7", code)
	}
	if !strings.Contains(stderr.String(), "no collection during the run") {
		t.Errorf("stderr %q does not say the profile is taken at exit", stderr.String())
	}
	_, by := readHeapProfile(t, path)
	if by["alloc_space"] < size || by["inuse_space"] < size {
		t.Errorf("allocMemSink in the profile: %v, want alloc_space and inuse_space ≥ %d", by, size)
	}
}

// A run with collections gets the profile of the largest live heap seen
// after one, a collection in the run's last moments included (the
// sampler ticks every 2 ms: this run is shorter).
func TestMemProfileCollections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.prof")
	var stderr bytes.Buffer
	memProfiledTo(path, &stderr, func() int { runtime.GC(); return 0 })
	if !regexp.MustCompile(`live heap at most [0-9.]+ MB; [1-9][0-9]* collections`).MatchString(stderr.String()) {
		t.Errorf("stderr %q does not give the live heap after a collection", stderr.String())
	}
	if p, _ := readHeapProfile(t, path); len(p.Sample) == 0 {
		t.Error("no sample in the profile")
	}
}
