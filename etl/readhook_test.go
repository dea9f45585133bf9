package etl_test

import (
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// compressedSixBuffers is a file of six compressed buffers (LiteralLZ77)
// of two events each, ids 1 to 12.
func compressedSixBuffers() []byte {
	tf := etltest.NewFile(1024, true)
	tf.Compress = etltest.LiteralLZ77
	for k := 0; k < 6; k++ {
		ts := int64(80000000000 + 100*k)
		tf.AddBuffer(0, ts+50, ev64(uint16(2*k+1), ts), ev64(uint16(2*k+2), ts+10))
	}
	return tf.Bytes()
}

// TestReadHook: a pass over a file reports each buffer's size on disk
// once, each pass again; nil removes the hook.
func TestReadHook(t *testing.T) {
	b := compressedSixBuffers()
	f := open(t, b)
	var want int64
	for _, bi := range f.Buffers() {
		want += int64(bi.Header.BufferSize)
	}
	var got atomic.Int64
	f.SetReadHook(func(n int64) { got.Add(n) })
	for pass := 1; pass <= 2; pass++ {
		r := etl.NewReader([]*etl.File{f}, nil)
		for r.Next() {
		}
		r.Close()
		if got.Load() != int64(pass)*want {
			t.Fatalf("after pass %d: %d bytes reported, want %d", pass, got.Load(), int64(pass)*want)
		}
	}
	f.SetReadHook(nil)
	f.Scan()
	if got.Load() != 2*want {
		t.Errorf("the hook was called after its removal")
	}
}
