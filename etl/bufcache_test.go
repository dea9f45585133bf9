package etl_test

import (
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestBufferCache: a file read twice through a cache decompresses each
// buffer once; the second read gives the same events; the cache holds no
// more than its maximum and forgets a file when it is closed.
func TestBufferCache(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	tf.Compress = etltest.LiteralLZ77
	for k := 0; k < 6; k++ {
		ts := int64(80000000000 + 100*k)
		tf.AddBuffer(0, ts+50, ev64(uint16(2*k+1), ts), ev64(uint16(2*k+2), ts+10))
	}
	b := tf.Bytes()
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
