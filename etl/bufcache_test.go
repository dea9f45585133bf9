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

// TestBufferCache: a file read twice through a cache decompresses each
// buffer once; the second read gives the same events; the cache holds no
// more than its maximum and forgets a file when it is closed.
func TestBufferCache(t *testing.T) {
	b := compressedSixBuffers()
	for _, max := range []int64{1 << 20, 300} {
		f := open(t, b)
		c := etl.NewBufferCache(max)
		f.SetBufferCache(c)
		first, errs := collect(t, []*etl.File{f}, etl.TimeOrder)
		second, errs2 := collect(t, []*etl.File{f}, etl.TimeOrder)
		if len(errs)+len(errs2) != 0 || !equalInts(ids(first), ids(second)) || len(ids(first)) != 12 {
			t.Fatalf("max %d: %v / %v, errors %v %v", max, ids(first), ids(second), errs, errs2)
		}
		hits, misses, size := c.Stats()
		switch {
		case max == 1<<20 && (hits != 6 || misses != 6):
			t.Errorf("max %d: %d hits, %d misses, want 6 and 6", max, hits, misses)
		case size > max:
			t.Errorf("max %d: %d bytes held", max, size)
		}
		f.Close()
		if _, _, size := c.Stats(); size != 0 {
			t.Errorf("max %d: %d bytes held after Close", max, size)
		}
	}
}

// TestReadHook: a pass over a file reports each buffer's size on disk
// once, from the cache or not; nil removes the hook.
func TestReadHook(t *testing.T) {
	b := compressedSixBuffers()
	f := open(t, b)
	var want int64
	for _, bi := range f.Buffers() {
		want += int64(bi.Header.BufferSize)
	}
	var got atomic.Int64
	f.SetReadHook(func(n int64) { got.Add(n) })
	f.SetBufferCache(etl.NewBufferCache(1 << 20))
	for pass := 1; pass <= 2; pass++ { // the second pass reads from the cache
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
