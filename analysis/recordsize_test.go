package analysis

import (
	"testing"
	"unsafe"
)

// TestRecordSizes: the model holds a record per image per process and
// per thread, hundreds of thousands in a trace of many short processes
// (ShutdownPerfDiagLogger.etl written 64 times over: 310,219 images and 97,612 threads,
// docs/performance.md), so a field added to them costs a size class of
// heap on each. An Image takes the 64-byte class, as a Thread does.
func TestRecordSizes(t *testing.T) {
	if s := unsafe.Sizeof(Image{}); s > 64 {
		t.Errorf("Image takes %d bytes, want at most 64 (its identity shared, its file name from Path)", s)
	}
	if s := unsafe.Sizeof(Thread{}); s > 64 {
		t.Errorf("Thread takes %d bytes, want at most 64", s)
	}
}

// TestIdentityShared: images with the same time stamp, checksum and PDB
// share one identity, and giving one of them a PDB (a DbgID_RSDS event
// joined later) leaves the others as they were.
func TestIdentityShared(t *testing.T) {
	b := NewBuilder(nil)
	a, c, d := &Image{}, &Image{}, &Image{}
	b.identify(a, imageIdentity{stamp: 1, checksum: 2})
	b.identify(c, imageIdentity{stamp: 1, checksum: 2})
	if a.id == nil || a.id != c.id {
		t.Fatalf("equal identities not shared: %p %p", a.id, c.id)
	}
	id := c.identity()
	id.pdb = PDB{Name: "c.pdb", Age: 1}
	b.identify(c, id)
	if a.PDB() != (PDB{}) || a.TimeDateStamp() != 1 || a.Checksum() != 2 {
		t.Errorf("a changed with c: %+v", a.identity())
	}
	if c.PDB().Name != "c.pdb" || c.TimeDateStamp() != 1 || c.Checksum() != 2 {
		t.Errorf("c: %+v", c.identity())
	}
	b.identify(d, c.identity())
	if d.id != c.id {
		t.Error("equal identities with a PDB not shared")
	}
	b.identify(d, imageIdentity{})
	if d.id != nil || d.TimeDateStamp() != 0 || d.PDB() != (PDB{}) {
		t.Errorf("no identity: %+v", d.identity())
	}
	var none *Image
	if none.TimeDateStamp() != 0 || none.Checksum() != 0 || none.PDB() != (PDB{}) {
		t.Error("nil image has an identity")
	}
}
