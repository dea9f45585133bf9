package analysis

import (
	"testing"

	"github.com/etwkit/etw/etl"
)

// TestStackKeyMatchesIdsOf: Builder.stackKey, which reads a stack key's
// reference through a fieldSet, returns the ids idsOf returns for it and
// records the key's owner as the StackProcess it names, on every
// StackKeyKernel and StackKeyUser event of net.4.5.2.
func TestStackKeyMatchesIdsOf(t *testing.T) {
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	b := NewBuilder(nil)
	r := etl.NewReader(files, nil)
	defer r.Close()
	n := 0
	for r.Next() {
		ev := r.Event()
		if classify(ev) != kStackKey {
			continue
		}
		d := decoded(dec.Decode(ev))
		pid, tid := b.stackKey(ev, d)
		wpid, wtid := idsOf(ev, kStackKey, d)
		if pid != wpid || tid != wtid {
			t.Fatalf("event %d: stackKey gives %d/%d, idsOf %d/%d", n, pid, tid, wpid, wtid)
		}
		key, ok1 := d.Uint("StackKey")
		sp, ok2 := d.Uint("StackProcess")
		if ok1 && ok2 && b.m.keyOwner[key] != uint32(sp) {
			t.Fatalf("event %d: key %#x owned by %d, want %d", n, key, b.m.keyOwner[key], sp)
		}
		n++
	}
	if n < 9000 {
		t.Fatalf("%d stack key references: want net.4.5.2's 9,107", n)
	}
}
