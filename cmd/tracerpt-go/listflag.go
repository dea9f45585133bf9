package main

import (
	"bytes"
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// listValue is a flag of comma-separated values that may be repeated
// (-import a.man,b.man -import c.man), as pflag's StringSlice: the values
// of each use are read as one CSV record, the first use replaces the
// default and the next ones add to it, and the flag shows as "strings" in
// help. Unlike pflag's, it makes nothing when the flag is defined: pflag
// writes the default as CSV then, through a new 4 KiB buffer each (23 of
// a start's page faults when every command's flags were defined at each
// start; docs/performance.md, "Session 31").
type listValue struct {
	value   *[]string
	changed bool
}

// listVar defines a listValue flag called name, with no default, storing
// into p.
func listVar(fl *pflag.FlagSet, p *[]string, name, usage string) {
	*p = nil
	fl.Var(&listValue{value: p}, name, usage)
}

func (l *listValue) Set(val string) error {
	var v []string
	if val != "" {
		var err error
		if v, err = csv.NewReader(strings.NewReader(val)).Read(); err != nil {
			return err
		}
	} else {
		v = []string{}
	}
	if !l.changed {
		*l.value = v
	} else {
		*l.value = append(*l.value, v...)
	}
	l.changed = true
	return nil
}

// Type is pflag's StringSlice's, which help shows as "strings".
func (l *listValue) Type() string { return "stringSlice" }

// String is pflag's StringSlice's, but "" for no values (pflag's "[]"
// would show in help as a default: help leaves out only the defaults it
// knows to be empty).
func (l *listValue) String() string {
	if len(*l.value) == 0 {
		return ""
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(*l.value) // into memory: no error
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}

// Append, Replace and GetSlice make it a pflag.SliceValue.
func (l *listValue) Append(val string) error {
	*l.value = append(*l.value, val)
	return nil
}

func (l *listValue) Replace(val []string) error {
	*l.value = val
	return nil
}

func (l *listValue) GetSlice() []string { return *l.value }
