package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCommitAndAbort: a committed file is in place with the old file's
// permissions; an aborted one leaves the old file as it was and no
// temporary file behind.
func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Writer().Write([]byte("partial"))
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("the file changed before Commit: %q", b)
	}
	f.Abort()
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("Abort changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("Abort left %d files", len(ents))
	}

	f, err = Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort() // after Commit: does nothing
	f.Writer().Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("after Commit: %q, mode %v, %v", b, st.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("Commit left %d files", len(ents))
	}
	if _, err := Create(dir); err == nil {
		t.Error("Create of a directory succeeded")
	}
	missing := filepath.Join(dir, "no", "out.txt")
	_, err = Create(missing)
	if _, want := os.Create(missing); err == nil || err.Error() != want.Error() {
		t.Errorf("Create in a missing folder: %v, want %v (as os.Create says it)", err, want)
	}
}

// RemovePending (the interrupt handler) removes the temporary files of
// outputs being written, keeps the previous file, and later Commits fail.
func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	os.WriteFile(path, []byte("previous"), 0o644)
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	RemovePending()
	t.Cleanup(func() { pendingMu.Lock(); interrupted = false; pendingMu.Unlock() })
	if err := f.Commit(); err == nil {
		t.Error("Commit after RemovePending succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	if b, _ := os.ReadFile(path); string(b) != "previous" {
		t.Errorf("out.json = %q", b)
	}
}

// Create waits for the gate before it makes a temporary file; a path
// written directly (not a regular file) does not wait.
func TestWaitBeforeCreate(t *testing.T) {
	ready := make(chan struct{})
	WaitBeforeCreate(ready)
	t.Cleanup(func() { gate = nil })
	if f, err := Create(os.DevNull); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	dir := t.TempDir()
	created := make(chan *File)
	go func() {
		f, err := Create(filepath.Join(dir, "out.json"))
		if err != nil {
			t.Error(err)
		}
		created <- f
	}()
	time.Sleep(20 * time.Millisecond)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a temporary file before the gate opened: %v", ents)
	}
	close(ready)
	f := <-created
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("after the gate opened: %v, want the temporary file", ents)
	}
	f.Abort()
}
