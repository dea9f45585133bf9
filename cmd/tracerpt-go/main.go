// Command tracerpt-go reads Windows ETW trace files (.etl) on any platform.
//
// It follows the command line of Windows' tracerpt (single-dash options
// such as -of and -o are accepted as well as their --long forms) and adds
// what scripts expect: JSON Lines on standard output and a machine-readable
// info command.
//
//	tracerpt-go trace.etl -of JSON -o -     # one JSON object per event, in time order
//	tracerpt-go info trace.etl              # header facts and record counts
//	tracerpt-go info --json a.etl b.etl     # the same as JSON, one line per file
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	cmd := newRootCmd(os.Stdout, os.Stderr)
	cmd.SetArgs(normalizeArgs(os.Args[1:]))
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "tracerpt-go:", err)
		os.Exit(1)
	}
}

// tracerptLongFlags are tracerpt's multi-letter options, written with one
// dash on Windows.
var tracerptLongFlags = map[string]bool{"of": true, "summary": true, "report": true, "import": true, "lr": true, "export": true, "config": true}

// normalizeArgs rewrites tracerpt-style "-of" into "--of" so that pflag
// parses them; everything else is passed through.
func normalizeArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if tracerptLongFlags[strings.ToLower(name)] {
				a = "--" + strings.ToLower(name) + a[1+len(name):]
			}
		}
		out[i] = a
	}
	return out
}

type dumpOptions struct {
	output    string
	format    string
	fileOrder bool
	workers   int
	manifests []string
	nearest   bool
	raw       bool
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	var o dumpOptions
	root := &cobra.Command{
		Use:   "tracerpt-go FILE... [-of JSON] [-o OUT]",
		Short: "Read Windows ETW trace files (.etl)",
		Long: `tracerpt-go reads Windows ETW trace files (.etl) on Linux, macOS and Windows.

With files as arguments it dumps their events, merged into time order across
processors and files, like tracerpt. -of JSON writes JSON Lines, one object
per event; -o - writes to standard output.`,
		Args:          cobra.MinimumNArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDump(cmd, args, &o)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	fl := root.Flags()
	fl.StringVarP(&o.output, "o", "o", "-", "output file; - for standard output")
	fl.StringVar(&o.format, "of", "JSON", "output format: JSON (JSON Lines)")
	fl.BoolVar(&o.fileOrder, "file-order", false, "deliver events in file order instead of time order")
	fl.IntVar(&o.workers, "workers", 0, "buffers decoded in parallel (0: one per CPU)")
	fl.StringSliceVar(&o.manifests, "import", nil, "manifest file or folder of manifests to decode events with (repeatable)")
	fl.StringSliceVar(&o.manifests, "manifest", nil, "same as -import")
	fl.BoolVar(&o.nearest, "nearest-version", false, "decode an event whose exact version has no schema with the nearest version")
	fl.BoolVar(&o.raw, "raw", false, "include user_data (hex) even for decoded events")
	root.AddCommand(newInfoCmd())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage", err, c.CommandPath())
	})
	return root
}
