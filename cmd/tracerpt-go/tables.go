package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tables"
)

func newTablesCmd() *cobra.Command {
	var o analysisOptions
	var out string
	var yes, quiet bool
	cmd := &cobra.Command{
		Use:   "tables TRACE.etl... -o DIR [-y] [-import FILE...]",
		Short: "Write the analysis model as Parquet tables that join (processes, threads, images, stacks, samples, GCs, disk I/O, packets)",
		Long: `tables writes the analysis model of each trace as Parquet tables under DIR,
one file per table (traces, processes, threads, images, methods, frames, stacks,
samples, gcs, disk_io, files, packets): ids rather than names, so that SQL
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
			w, err := tables.CreateDir(out, nil)
			if err != nil {
				return err
			}
			for _, f := range files {
				st, err := w.Add(f.Name, []*etl.File{f}, dec.Fork())
				for _, e := range st.Errors {
					warn(cmd, e)
				}
				if err != nil {
					w.Close()
					return err
				}
			}
			return w.Close()
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
