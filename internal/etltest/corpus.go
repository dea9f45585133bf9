package etltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etlcorpus"
)

// CorpusDir returns the folder of real traces, $ETL_CORPUS. It skips the
// test when the variable is not set ([etlcorpus.Dir]).
func CorpusDir(t testing.TB) string {
	t.Helper()
	return etlcorpus.Dir(t)
}

// CorpusFile returns the path of the corpus file rel (slash-separated,
// relative to [CorpusDir]). It skips the test without ETL_CORPUS and fails
// it when the file is missing: a corpus that is set must be complete.
func CorpusFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(CorpusDir(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus file %s: %v (ETL_CORPUS is set: the corpus must be complete)", rel, err)
	}
	return p
}

// ForEachEvent calls fn for every event of the .etl file at path, in time
// order; a reader error fails the test.
func ForEachEvent(t testing.TB, path string, fn func(f *etl.File, ev *etl.Event)) {
	t.Helper()
	f, err := etl.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := etl.NewReader([]*etl.File{f}, nil)
	defer r.Close()
	for r.Next() {
		fn(f, r.Event())
	}
	for _, err := range r.Errors() {
		t.Errorf("%s: reader: %v (every file reads without error)", filepath.Base(path), err)
	}
}

// OpenFiles opens the .etl files at paths, closed when the test ends; an
// error fails the test.
func OpenFiles(t testing.TB, paths ...string) []*etl.File {
	t.Helper()
	var files []*etl.File
	for _, p := range paths {
		f, err := etl.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files = append(files, f)
	}
	return files
}

// CorpusTraces returns the paths of every .etl file under [CorpusDir], in
// lexical order (filepath.WalkDir's). It skips the test without
// ETL_CORPUS and fails it when the folder cannot be read or holds none
// ([etlcorpus.Traces]).
func CorpusTraces(t testing.TB) []string {
	t.Helper()
	return etlcorpus.Traces(t)
}

// AttackTraces returns the paths of every .etl file under [AttackDir], in
// lexical order. It skips the test as AttackDir does and fails it when
// the folder cannot be read or holds none ([etlcorpus.AttackTraces]).
func AttackTraces(t testing.TB) []string {
	t.Helper()
	return etlcorpus.AttackTraces(t)
}

// CorpusAndAttackTraces returns [CorpusTraces] followed by
// [AttackTraces]: every real and every hostile .etl file.
func CorpusAndAttackTraces(t testing.TB) []string {
	t.Helper()
	return append(CorpusTraces(t), AttackTraces(t)...)
}

// EachOpened calls fn with each of the .etl files at paths that opens,
// closing it after; files that do not open are skipped (they are the
// reader's tests).
func EachOpened(paths []string, fn func(path string, f *etl.File)) {
	for _, p := range paths {
		f, err := etl.Open(p)
		if err != nil {
			continue
		}
		fn(p, f)
		f.Close()
	}
}
