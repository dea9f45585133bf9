package sympath

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/etl"
)

// Symbolizer names the frames of the analysis model through a [Resolver]
// (an [analysis.Symbolizer]). An image whose PDB cannot be had (not
// found, a failed download, another GUID or age, a damaged file) costs
// that image only: its frames keep their module names, and [Symbolizer.Errors]
// names it once. It is safe for concurrent use.
type Symbolizer struct {
	ctx context.Context
	r   *Resolver

	mu     sync.Mutex
	errs   []error
	seen   map[Identity]bool
	missed int
}

// NewSymbolizer returns a Symbolizer that resolves through r; ctx bounds
// the searches and downloads.
func NewSymbolizer(ctx context.Context, r *Resolver) *Symbolizer {
	return &Symbolizer{ctx: ctx, r: r}
}

// Symbolize implements analysis.Symbolizer.
func (s *Symbolizer) Symbolize(im analysis.ImageID, rva uint64) (analysis.Symbol, bool) {
	if im.PDB.Name == "" || rva > 0xFFFFFFFF {
		return analysis.Symbol{}, false
	}
	id := Identity{Name: im.PDB.Name, Age: im.PDB.Age}
	// The trace's GUID as Windows lays it out (the first three fields
	// little-endian), as the PDB's info stream does.
	etl.PutGUIDWindows(id.GUID[:], im.PDB.GUID)
	sym, ok, err := s.r.Resolve(s.ctx, id, uint32(rva))
	if err != nil {
		s.mu.Lock()
		if !s.seen[id] {
			if s.seen == nil {
				s.seen = map[Identity]bool{}
			}
			s.seen[id] = true
			if errors.Is(err, ErrNotFound) {
				s.missed++
			}
			s.errs = append(s.errs, fmt.Errorf("symbols: no names for %s: %w", im.File, err))
		}
		s.mu.Unlock()
	}
	if !ok {
		return analysis.Symbol{}, false
	}
	return analysis.Symbol{Function: sym.Name, Offset: uint64(sym.Offset), File: sym.File, Line: int(sym.Line)}, true
}

// Errors returns what the searches could not do since the last call, one
// error per image, and how many images' PDBs were not found in all (since
// NewSymbolizer: the count is not reset by a call).
func (s *Symbolizer) Errors() (errs []error, notFound int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	errs, s.errs = s.errs, nil
	return errs, s.missed
}

// Resolver returns the resolver the symbolizer uses.
func (s *Symbolizer) Resolver() *Resolver { return s.r }

// Close closes the PDBs the resolver opened.
func (s *Symbolizer) Close() error { return s.r.Close() }
