package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/tables"
)

// tableFileRows returns the rows of each Parquet file in dir, by name.
func tableFileRows(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for _, m := range ms {
		f, err := os.Open(m)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		rows[filepath.Base(m)] = pf.NumRows()
		f.Close()
	}
	return rows
}

// --max-file-rows N: every table's rows are those of one file a table,
// in NAME.parquet, NAME-2.parquet, … of at most N rows each; a run
// without the bound replaces the parts only with -y, and removes them.
func TestCorpusTablesMaxFileRows(t *testing.T) {
	netETL, _ := netCorpus(t)
	one := filepath.Join(t.TempDir(), "one")
	if _, errs, code := runCLI(t, "tables", netETL, "-o", one, "--quiet"); code != 0 {
		t.Fatalf("tables: exit %d: %s", code, errs)
	}
	const n = 50000
	parts := filepath.Join(t.TempDir(), "parts")
	if _, errs, code := runCLI(t, "tables", netETL, "-o", parts, "--quiet", "--max-file-rows", fmt.Sprint(n)); code != 0 {
		t.Fatalf("tables --max-file-rows: exit %d: %s", code, errs)
	}
	whole, split := tableFileRows(t, one), tableFileRows(t, parts)
	if len(whole) != len(tables.Names) {
		t.Fatalf("one file a table: %v", whole)
	}
	for _, name := range tables.Names {
		want := whole[name+".parquet"]
		var got int64
		files := 0
		for k := 1; ; k++ {
			f := name + ".parquet"
			if k > 1 {
				f = fmt.Sprintf("%s-%d.parquet", name, k)
			}
			r, ok := split[f]
			if !ok {
				break
			}
			files++
			if r > n || r == 0 && k > 1 {
				t.Errorf("%s: %d rows, want 1 to %d", f, r, n)
			}
			got += r
		}
		if got != want {
			t.Errorf("%s: %d rows in %d files, want %d", name, got, files, want)
		}
		if wantFiles := max(1, int((want+n-1)/n)); files != wantFiles {
			t.Errorf("%s: %d files for %d rows, want %d", name, files, want, wantFiles)
		}
	}
	if split["events-4.parquet"] == 0 {
		t.Errorf("events: no 4th file of %d rows: %v", n, split)
	}
	// The parts are a previous run's: replaced only with -y, then gone.
	if _, _, code := runCLI(t, "tables", netETL, "-o", parts, "--quiet"); code != 4 {
		t.Errorf("tables over the parts without -y: exit %d, want 4", code)
	}
	if _, errs, code := runCLI(t, "tables", netETL, "-o", parts, "--quiet", "-y"); code != 0 {
		t.Fatalf("tables -y: exit %d: %s", code, errs)
	}
	if again := tableFileRows(t, parts); fmt.Sprint(again) != fmt.Sprint(whole) {
		t.Errorf("after a run without --max-file-rows: %v, want %v", again, whole)
	}
	if _, _, code := runCLI(t, "tables", netETL, "-o", parts, "--max-file-rows", "-1"); code != 2 {
		t.Errorf("--max-file-rows -1: exit %d, want 2", code)
	}
}
