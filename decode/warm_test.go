package decode

import (
	"sync"
	"testing"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/tdh"
)

// TestWarm: decoders made while Warm's goroutine is still at work all get
// the whole of the built-in schemas, the ones catalog.Register gives a
// registry of its own (the race detector watches the hand-over).
func TestWarm(t *testing.T) {
	want := tdh.NewRegistry()
	catalog.Register(want)
	if want.Len() == 0 {
		t.Fatal("catalog.Register added no schemas")
	}
	Warm()
	var wg sync.WaitGroup
	lens := make([]int, 8)
	for i := range lens {
		wg.Go(func() {
			Warm()
			lens[i] = New().Registry.Len()
		})
	}
	wg.Wait()
	for i, n := range lens {
		if n != want.Len() {
			t.Errorf("decoder %d has %d schemas, catalog.Register %d", i, n, want.Len())
		}
	}
}
