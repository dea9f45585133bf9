package parquetout

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// checkBounds checks that a kept byte array page's bounds are the bytes
// the library's page gives for values.
func checkBounds(t *testing.T, values [][]byte) {
	t.Helper()
	buf := keepBounds(parquet.String()).Type().NewColumnBuffer(3, len(values))
	vals := make([]parquet.Value, len(values))
	for i, v := range values {
		vals[i] = parquet.ByteArrayValue(v)
	}
	if _, err := buf.WriteValues(vals); err != nil {
		t.Fatal(err)
	}
	page := buf.Page()
	min, max, ok := page.Bounds()
	lmin, lmax, lok := page.(*keptPage).Page.Bounds()
	if ok != lok || !bytes.Equal(min.ByteArray(), lmin.ByteArray()) || !bytes.Equal(max.ByteArray(), lmax.ByteArray()) ||
		min.Column() != lmin.Column() || max.Column() != lmax.Column() || min.Kind() != lmin.Kind() {
		t.Errorf("values %q: bounds %q, %q, %v (column %d); the library's %q, %q, %v (column %d)",
			values, min.ByteArray(), max.ByteArray(), ok, min.Column(), lmin.ByteArray(), lmax.ByteArray(), lok, lmin.Column())
	}
}

func TestByteArrayBounds(t *testing.T) {
	for _, values := range [][]string{
		{"a"},
		{""},
		{"", "a", ""},
		{"a", "a\x00", "a\x00\x00", "a"},
		{"a\x00", "a"},
		{`{"Count":1}`, `{"Count":10}`, `{"Count":2}`, `{"BufferSize":65536}`, `{"Count":1}`},
		{"12345678", "123456789", "12345678\x00", "1234567", "12345677\xff"},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\x01", "\xff\xff\xff\xff\xff\xff\xff\xff", "\xff"},
	} {
		var b [][]byte
		for _, v := range values {
			b = append(b, []byte(v))
		}
		checkBounds(t, b)
	}
	// Random values over a small alphabet with shared prefixes: ties on
	// the first eight bytes are common.
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + r.IntN(40)
		values := make([][]byte, n)
		for i := range values {
			v := []byte(`{"Name":`)[:r.IntN(9)]
			for range r.IntN(12) {
				v = append(v, "\x00a{\"~\xff"[r.IntN(6)])
			}
			values[i] = v
		}
		checkBounds(t, values)
	}
}

// FuzzByteArrayBounds checks the bounds of any values (split at the
// zero bytes of the input) against the library's.
func FuzzByteArrayBounds(f *testing.F) {
	f.Add([]byte("{\"a\":1}\x00{\"a\":2}\x00\x00x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkBounds(t, bytes.Split(b, []byte{0}))
	})
}
