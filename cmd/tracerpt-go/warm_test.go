package main

import "testing"

func TestMayDecode(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"trace.etl"}, true},
		{[]string{"stats", "trace.etl"}, true},
		{[]string{"trace.etl", "-of", "JSON", "-o", "-"}, true},
		{[]string{"stats", "--help"}, false},
		{[]string{"-h"}, false},
		{[]string{"help", "stats"}, false},
		{[]string{"completion", "bash"}, false},
		{[]string{"__complete", "stats", ""}, false},
		{[]string{"stats", "--", "--help"}, true}, // a file called --help
	} {
		if got := mayDecode(c.args); got != c.want {
			t.Errorf("mayDecode(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
