package etl

import "testing"

// TestFillFF: every byte from the offset on is 0xFF, none before it.
func TestFillFF(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 4096, 4097, 65536, 65535} {
		for _, from := range []int{0, 1, n / 2, max(n-1, 0), n, n + 3} {
			b := make([]byte, n)
			fillFF(b, from)
			for i, c := range b {
				if want := byte(0); i >= from && c != 0xFF || i < from && c != want {
					t.Fatalf("len %d from %d: byte %d is %#x", n, from, i, c)
				}
			}
		}
	}
}
