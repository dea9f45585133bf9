package parquetout_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/parquetout"
	"github.com/etwkit/etw/pipeline"
)

// dumpParquetCols is dumpParquet with cols goroutines writing each
// chunk's columns.
func dumpParquetCols(t testing.TB, files []*etl.File, dec *decode.Decoder, m *analysis.Model, cols int, o *parquetout.Options) []byte {
	return dumpParquetBulk(t, files, dec, m, cols, o, true)
}

// dumpParquetBulk is dumpParquetCols with the required integer header
// columns written in bulk or as values.
func dumpParquetBulk(t testing.TB, files []*etl.File, dec *decode.Decoder, m *analysis.Model, cols int, o *parquetout.Options, bulk bool) []byte {
	var out bytes.Buffer
	enc := parquetout.NewEncoder(files, false)
	w := parquetout.NewWriter(&out, enc, o)
	parquetout.SetColumnWorkers(w, cols)
	parquetout.SetBulk(w, bulk)
	_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: enc, Output: w, Workers: 2, Analysis: m})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestColumnsAtOnce: a chunk's columns written by several goroutines make
// the file that one goroutine makes, byte for byte, with the default
// pages, small pages (many flushed inside a chunk), pages waiting in a
// temporary file, another codec and small row groups. The fixtures test
// it without the corpus, the largest corpus file with it. The same for
// the required integer header columns handed to their buffers in bulk:
// the file is the one their values, written one by one through
// parquet-go's column writers, make; and for the file written by
// ownWriter: the one parquet-go's writer makes.
func TestColumnsAtOnce(t *testing.T) {
	paths := []string{fixture(t, "compressed.etl"), fixture(t, "tracelogging-types.etl")}
	if dir := os.Getenv("ETL_CORPUS"); dir != "" && !testing.Short() {
		paths = append(paths, filepath.Join(dir, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			files := open(t, p)
			dec := decode.New()
			m, _ := analysis.Build(files, dec, nil)
			for _, o := range []*parquetout.Options{nil, {PageBufferSize: 4 << 10}, {TempDir: t.TempDir()},
				{Compression: parquetout.Zstd, RowGroupRows: 3000}, {Compression: parquetout.Uncompressed, RowGroupBytes: 1 << 20}} {
				one := dumpParquetCols(t, files, dec, m, 1, o)
				if len(readRows(t, one)) == 0 {
					t.Fatalf("%+v: no rows", o)
				}
				was := parquetout.SetOwnFile(false)
				lib := dumpParquetCols(t, files, dec, m, 1, o)
				parquetout.SetOwnFile(was)
				if !bytes.Equal(lib, one) {
					t.Errorf("%+v: our writer makes %d bytes, parquet-go's %d (or the same size, other bytes)", o, len(one), len(lib))
				}
				if values := dumpParquetBulk(t, files, dec, m, 1, o, false); !bytes.Equal(values, one) {
					t.Errorf("%+v: bulk columns make %d bytes, values %d (or the same size, other bytes)", o, len(one), len(values))
				}
				for _, cols := range []int{2, 5} {
					if got := dumpParquetCols(t, files, dec, m, cols, o); !bytes.Equal(got, one) {
						t.Errorf("%+v: %d goroutines for the columns: %d bytes, one goroutine %d", o, cols, len(got), len(one))
					}
				}
			}
		})
	}
}

// TestColumnsFail: a column whose writing fails, or panics, fails the
// dump with that column's error, on one goroutine and on several, and
// the dump returns (no goroutine waits for a column that is never
// written).
func TestColumnsFail(t *testing.T) {
	files := open(t, fixture(t, "compressed.etl"))
	dec := decode.New()
	m, _ := analysis.Build(files, dec, nil)
	defer parquetout.SetColumnFault(nil)
	for _, cols := range []int{1, 2, 5} {
		for _, col := range []int{0, 3, 17} {
			for _, panics := range []bool{false, true} {
				want := fmt.Errorf("column %d made to fail", col)
				parquetout.SetColumnFault(func(i int) error {
					if i != col {
						return nil
					}
					if panics {
						panic(want)
					}
					return want
				})
				var out bytes.Buffer
				enc := parquetout.NewEncoder(files, false)
				w := parquetout.NewWriter(&out, enc, nil)
				parquetout.SetColumnWorkers(w, cols)
				_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Encoder: enc, Output: w, Workers: 2, Analysis: m})
				if cerr := w.Close(); err == nil {
					err = cerr
				}
				if err == nil || !strings.Contains(err.Error(), want.Error()) {
					t.Errorf("%d goroutines, column %d fails (panic %v): dump's error %v, want %q", cols, col, panics, err, want)
				}
			}
		}
	}
}
