package sympath_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/sympath"
)

func TestResolver(t *testing.T) {
	store := t.TempDir()
	writeFile(t, filepath.Join(store, "app.pdb", goodID.ID(), "app.pdb"), symtest.SynthPDB(symtest.SynthGUID, 3))
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	p, err := sympath.Parse(store + ";srv*" + t.TempDir() + "*" + srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := &sympath.Resolver{Locator: &sympath.Locator{Path: p}}
	defer r.Close()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, ok, err := r.Resolve(context.Background(), goodID, 0x1018)
			if err != nil || !ok || s.Name != "work" || s.Offset != 8 || s.Line != 12 {
				t.Errorf("Resolve = %+v %v %v", s, ok, err)
			}
		}()
	}
	wg.Wait()
	if requests.Load() != 0 {
		t.Errorf("%d requests for a PDB in a local store", requests.Load())
	}
	// A missing image: one search, one error, then quiet misses.
	missing := sympath.Identity{Name: "gone.pdb", GUID: goodID.GUID, Age: 1}
	if _, ok, err := r.Resolve(context.Background(), missing, 0x1000); ok || !errors.Is(err, sympath.ErrNotFound) {
		t.Errorf("missing: %v %v", ok, err)
	}
	for i := 0; i < 3; i++ {
		if _, ok, err := r.Resolve(context.Background(), missing, 0x1000+uint32(i)); ok || err != nil {
			t.Errorf("missing again: %v %v", ok, err)
		}
	}
	if requests.Load() != 1 {
		t.Errorf("%d requests for one missing PDB; want 1", requests.Load())
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
}
