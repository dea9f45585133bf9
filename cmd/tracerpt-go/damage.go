package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/etl"
)

// warnList prints each error of the [etl.ErrorList] err carries (the
// damage a library walk met, one damaged buffer or record each), or err
// itself, as a warning.
func warnList(cmd *cobra.Command, err error) {
	if err == nil {
		return
	}
	var l etl.ErrorList
	if !errors.As(err, &l) {
		warn(cmd, err)
		return
	}
	for _, e := range l {
		warn(cmd, e)
	}
}

// warnAgain is warnList for a second pass over inputs whose first pass
// warned: the damage it meets again (an [etl.ErrorList]) is not
// repeated, other errors are warnings.
func warnAgain(cmd *cobra.Command, err error) {
	var l etl.ErrorList
	if err != nil && !errors.As(err, &l) {
		warn(cmd, err)
	}
}
