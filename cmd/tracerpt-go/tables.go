package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/tables"
)

// nopCloser is an io.Writer as an io.WriteCloser whose Close does
// nothing: the atomic file it writes is committed or aborted afterwards.
type nopCloser struct{ io.Writer }

// Close does nothing.
func (nopCloser) Close() error { return nil }

func newTablesCmd() *cobra.Command {
	var o analysisOptions
	var out string
	var yes, quiet bool
	cmd := &cobra.Command{
		Use:   "tables TRACE.etl... -o DIR [-y] [-import FILE...]",
		Short: "Write the analysis model as Parquet tables that join (processes, threads, images, stacks, samples, GCs, disk I/O, packets, events)",
		Long: `tables writes the analysis model of each trace as Parquet tables under DIR,
one file per table (traces, processes, threads, images, methods, frames, stacks,
samples, gcs, disk_io, files, packets, and events: the rows of -of PARQUET with
the trace, utid and stack_id that join them): ids rather than names, so that SQL
engines (DuckDB, Spark, Trino) join them. Each input is one trace (the trace
column); ids are unique across the traces of one run. docs/tables.md lists the
columns and keys, with example queries.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("tables: no input file"))
			}
			if out == "" {
				return usageError(fmt.Errorf("tables: -o DIR is required"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var outs []string
			for _, n := range tables.Names {
				outs = append(outs, filepath.Join(out, n+".parquet"))
			}
			t := traceOptions{imports: o.manifests, verbose: o.verbose, outputs: outs, yes: yes, passes: 2, quiet: quiet}
			files, dec, err := openTrace(cmd, args, &t)
			defer closeAll(files)
			defer t.endProgress()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("creating %s: %w", out, err)
			}
			// Each table is written under a temporary name and renamed
			// when every trace is in: an error, or damage with --strict,
			// leaves no partial table and the previous ones as they were.
			var pending []*atomicfile.File
			defer func() {
				for _, a := range pending {
					a.Abort()
				}
			}()
			w, err := tables.NewWriter(func(name string) (io.WriteCloser, error) {
				a, err := atomicfile.Create(filepath.Join(out, name+".parquet"))
				if err != nil {
					return nil, err
				}
				pending = append(pending, a)
				return nopCloser{a.Writer()}, nil
			}, nil)
			if err != nil {
				return err
			}
			for _, f := range files {
				st, err := w.Add(f.Name, []*etl.File{f}, dec.Fork())
				o.strict.warnEach(cmd, st.Errors)
				if err != nil {
					w.Close()
					return err
				}
			}
			if err := w.Close(); err != nil {
				return err
			}
			if err := o.strict.check(); err != nil {
				return err
			}
			for _, a := range pending {
				if err := a.Commit(); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "o", "o", "", "output folder (created if needed)")
	fl.BoolVarP(&yes, "y", "y", false, "overwrite existing table files")
	fl.BoolVar(&quiet, "quiet", false, "no progress bar")
	addAnalysisFlags(cmd, &o)
	setFlagErrors(cmd)
	return cmd
}
