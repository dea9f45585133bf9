package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/internal/bufwrite"
	"github.com/etwkit/etw/internal/glob"
	"github.com/etwkit/etw/tables"
)

func newTablesCmd() *cobra.Command {
	var o analysisOptions
	var out string
	var yes bool
	var maxRows int64
	cmd := &cobra.Command{
		Use:   "tables TRACE.etl... -o DIR [-y] [--max-file-rows N] [-import FILE...] [--symbols PATH]",
		Short: "Write the analysis model as Parquet tables that join (processes, threads, images, stacks, samples, GCs, disk I/O, packets, events)",
		Long: `tables writes the analysis model of each trace as Parquet tables under DIR,
one file per table (traces, processes, threads, images, methods, frames, stacks,
samples, gcs, disk_io, files, packets, and events: the rows of -of PARQUET with
the trace, utid and stack_id that join them): ids rather than names, so that SQL
engines (DuckDB, Spark, Trino) join them. Each input is one trace (the trace
column); ids are unique across the traces of one run. docs/tables.md lists the
columns and keys, with example queries. --max-file-rows N bounds the rows of
each file: a table goes on in NAME-2.parquet, NAME-3.parquet, ….`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("tables: no input file"))
			}
			if out == "" {
				return usageError(fmt.Errorf("tables: -o DIR is required"))
			}
			if maxRows < 0 {
				return usageError(fmt.Errorf("tables: --max-file-rows %d: want 0 (no bound) or more", maxRows))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			syms, err := o.symbols.symbolizer(cmd)
			if err != nil {
				return err
			}
			defer syms.finish(cmd)
			// The events table's pages wait in a temporary file
			// beside the tables, as the Parquet dump's do.
			topts := &tables.Options{MaxFileRows: maxRows, TempDir: out}
			if syms != nil {
				topts.Symbolizer = syms
			}
			var outs []string
			for _, n := range tables.Names {
				outs = append(outs, filepath.Join(out, n+".parquet"))
			}
			// The parts of a previous run (NAME-2.parquet, …) are
			// replaced too: they need -y, and go when the tables are
			// committed, so that a glob of the folder reads this run's.
			stale := tableParts(out)
			outs = append(outs, stale...)
			t := traceOptions{imports: o.manifests, verbose: o.verbose, outputs: outs, yes: yes, passes: 2, quiet: o.quiet}
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
			written := map[string]bool{}
			w, err := tables.NewWriter(tables.NumberParts(func(name string, part int) (io.WriteCloser, error) {
				path := filepath.Join(out, tables.PartName(name, part))
				a, err := atomicfile.Create(path)
				if err != nil {
					return nil, err
				}
				pending = append(pending, a)
				written[path] = true
				// Through a buffer (the Parquet writers write page by
				// page: 476 writes for net.4.5.2.x64's tables
				// unbuffered); Close flushes it, and the file is
				// committed or aborted afterwards.
				return bufwrite.New(a.Writer(), tables.FileBufferSize(name), nil), nil
			}), topts)
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
			pending = nil
			for _, p := range stale {
				if !written[p] {
					if err := os.Remove(p); err != nil {
						return fmt.Errorf("removing the previous run's %s: %w", p, err)
					}
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "o", "o", "", "output folder (created if needed)")
	fl.BoolVarP(&yes, "y", "y", false, "overwrite existing table files")
	fl.Int64Var(&maxRows, "max-file-rows", 0, "rows of a table's file at most: the table goes on in NAME-2.parquet, NAME-3.parquet, … (0: one file a table)")
	addAnalysisFlags(cmd, &o)
	setFlagErrors(cmd)
	return cmd
}

// tableParts returns the files NAME-N.parquet (N ≥ 2) of the tables in
// dir: the further files of a run with --max-file-rows.
func tableParts(dir string) []string {
	var parts []string
	for _, n := range tables.Names {
		ms, _ := filepath.Glob(glob.Escape(filepath.Join(dir, n+"-")) + "*.parquet")
		for _, m := range ms {
			if _, ok := tables.PartNumber(n, filepath.Base(m)); ok {
				parts = append(parts, m)
			}
		}
	}
	return parts
}
