package driver_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/driver"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
)

const net452 = "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl"

// TestDumpFormats: each format's dump is the pipeline's rendering with the
// format's encoder (as pipeline.Run renders it with tracerpt's encoder), the summary counts
// what the dump holds, and Parquet is a file of its own format.
func TestDumpFormats(t *testing.T) {
	path := etltest.CorpusFile(t, net452)
	files := etltest.OpenFiles(t, path)
	dir := t.TempDir()
	for _, f := range []driver.Format{driver.XML, driver.CSV, driver.JSON, driver.Parquet} {
		out := filepath.Join(dir, f.DefaultOutput())
		sum := filepath.Join(dir, f.String()+".summary.txt")
		res, err := driver.Dump(context.Background(), &driver.Options{
			Files: files, Decoder: decode.New(), Format: f, Output: out, Summary: sum, NoAnalysis: true,
			Filter: pipeline.Filter{MaxEvents: 300},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Written != 300 {
			t.Errorf("%s: %d events written, want 300", f, res.Written)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := os.ReadFile(sum); !strings.Contains(string(s), "Total Events  Processed 300\n") {
			t.Errorf("%s: the summary does not count 300 events:\n%.300s", f, s)
		}
		if f == driver.Parquet {
			if !bytes.HasPrefix(got, []byte("PAR1")) || !bytes.HasSuffix(got, []byte("PAR1")) {
				t.Errorf("Parquet: not a Parquet file (%d bytes)", len(got))
			}
			continue
		}
		var want bytes.Buffer
		tf, _ := tracerpt.ParseFormat(f.String())
		if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: decode.New(),
			Filter: &pipeline.Filter{MaxEvents: 300}, Encoder: tracerpt.NewEncoder(tf, files, &tracerpt.Options{}), Output: &want}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the dump (%d bytes) is not the pipeline's rendering (%d bytes)", f, len(got), want.Len())
		}
	}
}

// TestDumpAtomic: a run that fails leaves the existing output as it was
// and no other file; Processes that match nothing write an empty dump and
// say which image names the trace has.
func TestDumpAtomic(t *testing.T) {
	path := etltest.CorpusFile(t, net452)
	files := etltest.OpenFiles(t, path)
	dir := t.TempDir()
	out := filepath.Join(dir, "dump.json")
	if err := os.WriteFile(out, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := driver.Dump(ctx, &driver.Options{Files: files, Decoder: decode.New(), Format: driver.JSON, Output: out}); err == nil {
		t.Fatal("a cancelled dump succeeded")
	}
	if b, _ := os.ReadFile(out); string(b) != "before\n" {
		t.Errorf("a failed dump changed its output: %.100q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed dump left %d files", len(ents))
	}

	var names, known []string
	res, err := driver.Dump(context.Background(), &driver.Options{Files: files, Decoder: decode.New(), Format: driver.XML, Output: out,
		Processes: []string{"no-such-process.exe"}, NoProcess: func(n, k []string) { names, known = n, k }})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "<Events>\n</Events>\n" || res.Written != 0 || !res.NoProcess {
		t.Errorf("no process: %d written (NoProcess %v), dump %.100q", res.Written, res.NoProcess, b)
	}
	if len(names) != 1 || len(known) == 0 {
		t.Errorf("NoProcess got %q, known %q", names, known)
	}
}

// TestOpen: a missing input is an *OpenError that names it; the files
// opened before it are returned, for closing.
func TestOpen(t *testing.T) {
	path := etltest.CorpusFile(t, net452)
	missing := filepath.Join(t.TempDir(), "missing.etl")
	files, err := driver.Open([]string{path, missing})
	for _, f := range files {
		f.Close()
	}
	var oe *driver.OpenError
	if !errors.As(err, &oe) || oe.Path != missing || len(files) != 1 {
		t.Errorf("a missing input: %v and %d files, want an *OpenError for %s and the file opened before it", err, len(files), missing)
	}
}
