// Package etlcorpus gives tests the real traces of ETL_CORPUS and the
// hostile inputs of ETL_ATTACK. It imports nothing of the project, so
// that the tests of the packages internal/etltest builds on
// (etl/compress, tracelogging) can list them too; internal/etltest's
// CorpusDir, CorpusTraces, AttackDir and AttackTraces are these.
package etlcorpus

import (
	"errors"
	"io/fs"
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

// AttackDir returns the folder of hostile inputs (the attack run's
// reproducers): $ETL_ATTACK, or "attack" next to $ETL_CORPUS. It skips the
// test when neither variable is set, or when only ETL_CORPUS is and the
// folder next to it does not exist.
func AttackDir(t testing.TB) string {
	t.Helper()
	dir, why := FindShared("ETL_ATTACK", "attack", "hostile inputs")
	if why != "" {
		t.Skip(why)
	}
	return dir
}

// AttackTraces returns the paths of every .etl file under [AttackDir], in
// lexical order ([TracesIn]). It skips the test as AttackDir does and
// fails it when the folder cannot be read or holds none.
func AttackTraces(t testing.TB) []string {
	t.Helper()
	return TracesIn(t, AttackDir(t), "the hostile inputs")
}

// FindShared looks up a folder of shared test data: $env, or sibling next
// to $ETL_CORPUS. It returns the folder, or why there is none (neither
// variable set, or only ETL_CORPUS and no sibling next to it); what names
// the data in that reason.
func FindShared(env, sibling, what string) (dir, why string) {
	if dir := os.Getenv(env); dir != "" {
		return dir, ""
	}
	c := os.Getenv("ETL_CORPUS")
	if c == "" {
		return "", "neither " + env + " nor ETL_CORPUS is set: no " + what + " to test against"
	}
	dir = filepath.Join(c, "..", sibling)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", "no " + what + " at " + dir + " (set " + env + ")"
	}
	return dir, ""
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
