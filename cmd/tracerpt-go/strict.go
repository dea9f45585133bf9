package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/etwkit/etw/etl"
)

// strictOption is --strict on a command that reads traces and reports
// their damage after its passes (stats, stacks, report, providers,
// tables, relog): the damage is printed as warnings as without it (the
// one damage report, warnList), counted, and turned into exit status 5
// before any output is written or committed.
type strictOption struct {
	strict  bool
	damaged int             // damaged buffers and records met
	seen    map[string]bool // their messages: a second pass meets the same damage
}

// addFlag registers --strict.
func (s *strictOption) addFlag(fl *pflag.FlagSet) {
	fl.BoolVar(&s.strict, "strict", false, "exit with status 5, writing nothing, when an input is damaged (default: warn and go on)")
}

// warnList is the package's warnList that also counts the damage err
// carries.
func (s *strictOption) warnList(cmd *cobra.Command, err error) {
	s.count(err)
	warnList(cmd, err)
}

// warnEach prints each of errs as a warning and counts the damage among
// them.
func (s *strictOption) warnEach(cmd *cobra.Command, errs []error) {
	for _, e := range errs {
		s.count(e)
		warn(cmd, e)
	}
}

// count counts the damage err carries: each error of an [etl.ErrorList],
// or err itself when it is an [*etl.FormatError].
func (s *strictOption) count(err error) {
	if err == nil {
		return
	}
	var l etl.ErrorList
	if errors.As(err, &l) {
		for _, e := range l {
			s.add(e)
		}
		return
	}
	var fe *etl.FormatError
	if errors.As(err, &fe) {
		s.add(err)
	}
}

// add counts one damaged buffer or record, once.
func (s *strictOption) add(err error) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if m := err.Error(); !s.seen[m] {
		s.seen[m] = true
		s.damaged++
	}
}

// check returns the exit-status-5 error when --strict is set and damage
// was met.
func (s *strictOption) check() error {
	if !s.strict || s.damaged == 0 {
		return nil
	}
	return withCode(exitCorrupt, fmt.Errorf("--strict: %d damaged buffers or records in the input, nothing written", s.damaged))
}
