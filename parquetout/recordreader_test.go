package parquetout

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// TestEachRawSplits checks that records written in pieces of any size,
// split anywhere (in a record's length too), come out whole, in order and
// the same as written at once.
func TestEachRawSplits(t *testing.T) {
	var all []byte
	var want [][]byte
	for i, n := range []int{fixedSize, fixedSize + 1, 3 * fixedSize, fixedSize + 17, 1000} {
		r := make([]byte, n)
		binary.LittleEndian.PutUint32(r, uint32(n))
		for j := 4; j < n; j++ {
			r[j] = byte(i*31 + j)
		}
		want = append(want, r)
		all = append(all, r...)
	}
	for _, size := range []int{1, 2, 3, 5, 7, 64, 99, 100, 101, 333, len(all)} {
		var rr recordReader
		var got [][]byte
		for p := all; len(p) > 0; {
			k := min(size, len(p))
			// The piece is reused by the caller after Write: copy it so
			// that a record kept pointing into it would show.
			piece := append([]byte(nil), p[:k]...)
			err := rr.eachRaw(piece, func(b []byte) error {
				got = append(got, append([]byte(nil), b...))
				return nil
			})
			if err != nil {
				t.Fatalf("pieces of %d: %v", size, err)
			}
			clear(piece)
			p = p[k:]
		}
		if len(rr.carry) != 0 {
			t.Errorf("pieces of %d: %d bytes left over", size, len(rr.carry))
		}
		if len(got) != len(want) {
			t.Fatalf("pieces of %d: %d records, want %d", size, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("pieces of %d: record %d differs", size, i)
			}
		}
	}
}

// TestEachRawBadCarriedLength checks that a record length too small for a
// record is an error when the length was split across writes.
func TestEachRawBadCarriedLength(t *testing.T) {
	var rr recordReader
	calls := 0
	fn := func([]byte) error { calls++; return nil }
	if err := rr.eachRaw([]byte{5, 0}, fn); err != nil {
		t.Fatalf("first half of the length: %v", err)
	}
	if err := rr.eachRaw([]byte{0, 0, 1, 2, 3}, fn); !errors.Is(err, errRecord) {
		t.Errorf("a carried length of 5: error %v, want errRecord", err)
	}
	if calls != 0 {
		t.Errorf("%d records given, want none", calls)
	}
}
