// Package etlcorpus gives tests the real traces of ETL_CORPUS. It
// imports nothing of the project, so that the tests of the packages
// internal/etltest builds on (etl/compress, tracelogging) can list the
// corpus too; internal/etltest's CorpusDir and CorpusTraces are these.
package etlcorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the folder of real traces, $ETL_CORPUS. It skips the test
// when the variable is not set.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	return dir
}

// Traces returns the paths of every .etl file under [Dir], in lexical
// order ([TracesIn]). It skips the test without ETL_CORPUS and fails it
// when the folder cannot be read or holds none.
func Traces(t testing.TB) []string {
	t.Helper()
	return TracesIn(t, Dir(t), "the corpus")
}

// TracesIn returns the paths of every .etl file under dir, the extension
// in any case (Windows names them .ETL as often as .etl), in lexical order
// (filepath.WalkDir's). It fails the test when the folder cannot be read
// or holds none; what names the folder in the messages.
func TracesIn(t testing.TB, dir, what string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".etl") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: %v", what, err)
	}
	if len(paths) == 0 {
		t.Fatalf("%s holds no .etl file (%s)", what, dir)
	}
	return paths
}
