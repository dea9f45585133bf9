package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	return &pdbSymbolizer{sympath.NewSymbolizer(commandContext(cmd), &sympath.Resolver{Locator: l})}, nil
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

// pdbSymbolizer is the command's sympath.Symbolizer; finish says what it
// could not do.
type pdbSymbolizer struct {
	*sympath.Symbolizer
}

// finish prints what the symbol search could not do, once per image,
// and closes the PDBs.
func (s *pdbSymbolizer) finish(cmd *cobra.Command) {
	if s == nil {
		return
	}
	errs, missed := s.Errors()
	for _, err := range errs {
		warn(cmd, err)
	}
	for _, m := range s.Resolver().Locator.Mismatches() {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: symbols: not used: %s\n", m)
	}
	if len(errs) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: %d image(s) without symbols (their frames are named by module); %d PDB(s) not found\n", len(errs), missed)
	}
	if err := s.Close(); err != nil {
		warn(cmd, err)
	}
}
