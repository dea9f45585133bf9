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
// order (filepath.WalkDir's). It skips the test without ETL_CORPUS and
// fails it when the folder cannot be read or holds none.
func Traces(t testing.TB) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(Dir(t), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".etl") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing the corpus: %v", err)
	}
	if len(paths) == 0 {
		t.Fatal("the corpus holds no .etl file")
	}
	return paths
}
