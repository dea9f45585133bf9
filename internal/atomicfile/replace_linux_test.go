package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceExchanges: Commit over an existing file leaves the new file
// at its path and nothing else in the folder, and the old file's inode
// is gone (no name holds it); over a missing path, and over a path that
// became a folder, it does what a rename does.
func TestReplaceExchanges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, bytes.Repeat([]byte("old "), 1<<16), 0o640); err != nil {
		t.Fatal(err)
	}
	old, err := os.Open(path) // keeps the old inode for the test to look at
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Writer().Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("after Commit: %q, mode %v, %v", b, st.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("Commit left %d files", len(ents))
	}
	ost, err := old.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if n := ost.Sys().(*syscall.Stat_t).Nlink; n != 0 {
		t.Errorf("the replaced file still has %d names", n)
	}

	// A missing path: renamed.
	if err := replace(writeTemp(t, dir, "a"), filepath.Join(dir, "fresh")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "fresh")); string(b) != "a" {
		t.Errorf("fresh: %q", b)
	}
	// A folder at path: the rename's error, the folder and tmp kept.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := writeTemp(t, dir, "b")
	if err := replace(tmp, sub); err == nil {
		t.Error("replace over a folder succeeded")
	}
	if st, err := os.Stat(sub); err != nil || !st.IsDir() {
		t.Errorf("the folder: %v, %v", st, err)
	}
	if b, _ := os.ReadFile(tmp); string(b) != "b" {
		t.Errorf("tmp after a failed replace: %q", b)
	}
}

// writeTemp writes a file of s in dir and returns its name.
func writeTemp(t *testing.T, dir, s string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, ".t.*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
