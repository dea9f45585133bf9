package parquetout

import (
	"bytes"
	"encoding/binary"

	"github.com/parquet-go/parquet-go"
)

// The page headers of the byte array columns carry each page's least and
// greatest value (the JSON columns' too: SkipPageBounds leaves out the
// column index's, not the page statistics'). The library finds them with
// two bytes.Compare calls a value, which run deep into JSON text that
// begins alike; byteArrayBounds decides most values on their first eight
// bytes. The bounds are the same bytes (values that compare equal are the
// same bytes), and so is the file.

// pageBounds returns the least and greatest value of page, as its Bounds
// does.
func pageBounds(page parquet.Page) (min, max parquet.Value, ok bool) {
	if page.Type().Kind() != parquet.ByteArray || page.NumValues() == 0 {
		return page.Bounds()
	}
	values := page.Data()
	data, offsets := values.ByteArray()
	if n := page.NumValues(); int64(len(offsets)) != n+1 {
		return page.Bounds() // not the library's layout: ask the page
	}
	lo, hi := byteArrayBounds(data, offsets)
	col := page.Column()
	return parquet.ByteArrayValue(lo).Level(0, 0, col), parquet.ByteArrayValue(hi).Level(0, 0, col), true
}

// byteArrayBounds returns the least and greatest of the values of data at
// offsets (value i is data[offsets[i]:offsets[i+1]]; at least one value),
// in the order the library's loop keeps them: a value replaces the least
// when less, else the greatest when greater.
func byteArrayBounds(data []byte, offsets []uint32) (lo, hi []byte) {
	lo = data[offsets[0]:offsets[1]]
	hi = lo
	loKey, hiKey := prefixKey(lo), prefixKey(lo)
	for i := 1; i+1 < len(offsets); i++ {
		v := data[offsets[i]:offsets[i+1]]
		// Keys that differ order their values; equal keys do not.
		k := prefixKey(v)
		switch {
		case k < loKey || (k == loKey && bytes.Compare(v, lo) < 0):
			lo, loKey = v, k
		case k > hiKey || (k == hiKey && bytes.Compare(v, hi) > 0):
			hi, hiKey = v, k
		}
	}
	return lo, hi
}

// prefixKey is the first eight bytes of v, big-endian, zeros past its
// end: when the keys of two values differ, so do the values, in the same
// order (the shorter of two values that agree up to its end is the
// lesser, and its zeros are no greater than the other's bytes).
func prefixKey(v []byte) uint64 {
	if len(v) >= 8 {
		return binary.BigEndian.Uint64(v)
	}
	var b [8]byte
	copy(b[:], v)
	return binary.BigEndian.Uint64(b[:])
}
