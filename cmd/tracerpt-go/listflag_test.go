package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestListFlag: a list flag reads each use as a CSV record, the first
// replacing what it held and the next ones adding, as pflag's StringSlice
// does; help shows it as "strings" without a default.
func TestListFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		str  string // String: pflag's StringSlice's, "" for none
	}{
		{nil, nil, ""},
		{[]string{"--import", "a.man"}, []string{"a.man"}, "[a.man]"},
		{[]string{"--import", "a.man,b.man", "--import", "c.man"}, []string{"a.man", "b.man", "c.man"}, "[a.man,b.man,c.man]"},
		{[]string{"--import", `"x,y",z`}, []string{"x,y", "z"}, `["x,y",z]`},
		{[]string{"--import", ""}, []string{}, ""},
	} {
		fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
		got := []string{"stale"}
		listVar(fl, &got, "import", "schemas")
		if err := fl.Parse(tc.args); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
		if s := fl.Lookup("import").Value.String(); s != tc.str {
			t.Errorf("%q: String %q, want %q", tc.args, s, tc.str)
		}
	}
	fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var v []string
	listVar(fl, &v, "import", "schemas")
	if err := fl.Parse([]string{"--import", `"a`}); err == nil {
		t.Error("an unterminated quote is accepted")
	}
	if u := fl.FlagUsages(); !strings.Contains(u, "--import strings") || strings.Contains(u, "default") {
		t.Errorf("help: %q", u)
	}
}
