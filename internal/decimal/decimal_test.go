package decimal

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendUintMatchesStrconv checks the in-place formatter against
// strconv at every width boundary and on random values.
func TestAppendUintMatchesStrconv(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, math.MaxUint32, 1 << 53, math.MaxUint64, math.MaxUint64 - 1}
	for i := range pow10 {
		p := pow10[i]
		vals = append(vals, p, p-1, p+1)
	}
	for v := uint64(0); v <= 100000; v++ {
		vals = append(vals, v, v*997) // every short number, and some up to 10^8
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		vals = append(vals, r.Uint64()>>r.IntN(64))
	}
	for _, v := range vals {
		if got, want := string(AppendUint([]byte("x"), v)), "x"+strconv.FormatUint(v, 10); got != want {
			t.Fatalf("AppendUint(%d) = %q, want %q", v, got, want)
		}
		s := int64(v)
		if got, want := string(AppendInt(nil, s)), strconv.FormatInt(s, 10); got != want {
			t.Fatalf("AppendInt(%d) = %q, want %q", s, got, want)
		}
	}
	if got := string(AppendInt(nil, math.MinInt64)); got != strconv.FormatInt(math.MinInt64, 10) {
		t.Fatalf("AppendInt(MinInt64) = %q", got)
	}
	if got := string(AppendUintWidth(nil, 42, 7)); got != "0000042" {
		t.Fatalf("AppendUintWidth(42, 7) = %q", got)
	}
	if got := string(AppendUintWidth(nil, 12345678, 7)); got != "12345678" {
		t.Fatalf("AppendUintWidth(12345678, 7) = %q", got)
	}
}

// TestDigits: Digits4 and Digits8 are the fixed-width digits of every
// value below their bound that AppendUintWidth gives.
func TestDigits(t *testing.T) {
	word := func(w uint64, n int) string {
		var b [8]byte
		for i := range n {
			b[i] = byte(w >> (8 * i))
		}
		return string(b[:n])
	}
	for n := range uint32(10000) {
		if got, want := word(uint64(Digits4(n)), 4), string(AppendUintWidth(nil, uint64(n), 4)); got != want {
			t.Fatalf("Digits4(%d) = %q, want %q", n, got, want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200000 {
		n := uint32(i)
		if i >= 100000 {
			n = r.Uint32N(1e8)
		}
		if i == 100001 {
			n = 1e8 - 1
		}
		if got, want := word(Digits8(n), 8), string(AppendUintWidth(nil, uint64(n), 8)); got != want {
			t.Fatalf("Digits8(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkAppendUint(b *testing.B) {
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = AppendUint(buf[:0], 132404548206528893)
	}
}

// BenchmarkAppendUintSmall appends the small integers most of a dump's
// are (ids, counts, sizes).
func BenchmarkAppendUintSmall(b *testing.B) {
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = buf[:0]
		for _, v := range [...]uint64{0, 7, 42, 99, 100, 512, 3988, 9999} {
			buf = AppendUint(buf, v)
		}
	}
}

func BenchmarkStrconvAppendUint(b *testing.B) {
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = strconv.AppendUint(buf[:0], 132404548206528893, 10)
	}
}
