package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/sympath"
)

// symbolOptions are the options that name native code through PDBs.
type symbolOptions struct {
	path    string
	offline bool
}

// addSymbolFlags registers --symbols and --offline.
func addSymbolFlags(fl *pflag.FlagSet, o *symbolOptions) {
	fl.StringVar(&o.path, "symbols", "", "symbol path to name native frames with PDBs: folders, stores, srv*CACHE*URL (default: $_NT_SYMBOL_PATH)")
	fl.BoolVar(&o.offline, "offline", false, "never use the network to find PDBs (symbol servers' caches only)")
}

// symbolizer returns the symbolizer of the options (--symbols, else
// _NT_SYMBOL_PATH), nil when neither names a path.
func (o *symbolOptions) symbolizer(cmd *cobra.Command) (*pdbSymbolizer, error) {
	l, err := o.locator(cmd)
	if l == nil || err != nil {
		return nil, err
	}
	return &pdbSymbolizer{ctx: commandContext(cmd), r: &sympath.Resolver{Locator: l}}, nil
}

// locator returns the locator of the options' symbol path (--symbols,
// else _NT_SYMBOL_PATH), drawing downloads on a terminal; nil when
// neither names a path.
func (o *symbolOptions) locator(cmd *cobra.Command) (*sympath.Locator, error) {
	p := o.path
	if p == "" {
		p = os.Getenv("_NT_SYMBOL_PATH")
	}
	if p == "" {
		return nil, nil
	}
	sp, err := sympath.Parse(p)
	if err != nil {
		return nil, usageError(fmt.Errorf("--symbols: %w", err))
	}
	l := &sympath.Locator{Path: sp, Offline: o.offline}
	if w := cmd.ErrOrStderr(); isTerminal(w) || forceProgress {
		l.Progress = downloadProgress(w)
	}
	return l, nil
}

// commandContext is the command's context, or the background one when
// it runs without (tests calling RunE directly).
func commandContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// pdbSymbolizer names frames through a sympath.Resolver
// (analysis.Symbolizer). An image whose PDB cannot be had (not found, a
// failed download, another GUID or age, a damaged file) costs that image
// only: its frames keep their module names, and finish says so once.
type pdbSymbolizer struct {
	ctx context.Context
	r   *sympath.Resolver

	mu     sync.Mutex
	errs   []error
	seen   map[string]bool
	missed int
}

// Symbolize implements analysis.Symbolizer.
func (s *pdbSymbolizer) Symbolize(im analysis.ImageID, rva uint64) (analysis.Symbol, bool) {
	if im.PDB.Name == "" || rva > 0xFFFFFFFF {
		return analysis.Symbol{}, false
	}
	u := im.PDB.GUID
	id := sympath.Identity{Name: im.PDB.Name, Age: im.PDB.Age,
		GUID: pdb.GUID{u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]}}
	sym, ok, err := s.r.Resolve(s.ctx, id, uint32(rva))
	if err != nil {
		s.mu.Lock()
		if k := id.String(); !s.seen[k] {
			if s.seen == nil {
				s.seen = map[string]bool{}
			}
			s.seen[k] = true
			if errors.Is(err, sympath.ErrNotFound) {
				s.missed++
			}
			s.errs = append(s.errs, fmt.Errorf("symbols: no names for %s: %w", im.File, err))
		}
		s.mu.Unlock()
	}
	if !ok {
		return analysis.Symbol{}, false
	}
	r := analysis.Symbol{Function: sym.Name, Offset: uint64(sym.Offset), File: sym.File, Line: int(sym.Line)}
	return r, true
}

// finish prints what the symbol search could not do, once per image,
// and closes the PDBs.
func (s *pdbSymbolizer) finish(cmd *cobra.Command) {
	if s == nil {
		return
	}
	s.mu.Lock()
	errs := s.errs
	s.errs = nil
	s.mu.Unlock()
	for _, err := range errs {
		warn(cmd, err)
	}
	for _, m := range s.r.Locator.Mismatches() {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: symbols: not used: %s\n", m)
	}
	if len(errs) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: %d image(s) without symbols (their frames are named by module); %d PDB(s) not found\n", len(errs), s.missed)
	}
	if err := s.r.Close(); err != nil {
		warn(cmd, err)
	}
}
