package analysis

import (
	"testing"
	"unsafe"
)

// TestRecordSizes: the model holds a record per image per process and
// per thread, hundreds of thousands in a trace of many short processes
// (ShutdownPerfDiagLogger.etl written 64 times over: 310,219 images and 97,612 threads,
// docs/performance.md), so a field added to them costs a size class of
// heap on each. An Image takes the 80-byte class, a Thread the 64-byte
// one.
func TestRecordSizes(t *testing.T) {
	if s := unsafe.Sizeof(Image{}); s > 80 {
		t.Errorf("Image takes %d bytes, want at most 80 (the PDB behind a pointer, the file name from Path)", s)
	}
	if s := unsafe.Sizeof(Thread{}); s > 64 {
		t.Errorf("Thread takes %d bytes, want at most 64", s)
	}
}
