package main

import "github.com/spf13/pflag"

// addQuietFlag registers --quiet, which every command that shows a
// progress bar (passProgress) takes.
func addQuietFlag(fl *pflag.FlagSet, quiet *bool) {
	fl.BoolVar(quiet, "quiet", false, "no progress bar (it is shown only when standard error is a terminal)")
}
