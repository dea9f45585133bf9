// Package decimal appends integers in decimal as strconv.AppendUint and
// strconv.AppendInt do, writing the digits in place two at a time: the
// renderers (tdh's TDH rendering, the dumps) write several integers per
// event.
package decimal

import (
	"math/bits"
	"slices"
)

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// pow10 holds 10^0 to 10^19.
var pow10 = [20]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// decimalWidth returns the number of decimal digits of n (1 for 0).
func decimalWidth(n uint64) int {
	// log10(2) ≈ 1233/4096: a guess that is exact or one too small.
	w := (bits.Len64(n) * 1233) >> 12
	if w < len(pow10) && n >= pow10[w] {
		w++
	}
	return max(w, 1)
}

// AppendUint appends the decimal digits of n, as strconv.AppendUint(dst,
// n, 10) does, writing them in place (two at a time, no intermediate
// buffer): the dumps write several integers per event.
func AppendUint(dst []byte, n uint64) []byte {
	if n < 10 {
		return append(dst, byte('0'+n))
	}
	w := decimalWidth(n)
	dst = slices.Grow(dst, w)
	l := len(dst)
	dst = dst[:l+w]
	out := dst[l:]
	i := w
	// Eight digits at a time in 32-bit arithmetic, then pairs.
	for n >= 1e8 {
		q := n / 1e8
		r := uint32(n - q*1e8)
		n = q
		hi, lo := r/10000, r%10000
		i -= 8
		put4(out[i+4:], lo)
		put4(out[i:], hi)
	}
	m := uint32(n)
	for m >= 100 {
		q := m / 100
		r := (m - q*100) * 2
		i -= 2
		out[i], out[i+1] = digitPairs[r], digitPairs[r+1]
		m = q
	}
	if m >= 10 {
		out[0], out[1] = digitPairs[2*m], digitPairs[2*m+1]
	} else {
		out[0] = byte('0' + m)
	}
	return dst
}

// put4 writes v (below 10,000) as exactly four digits.
func put4(b []byte, v uint32) {
	hi, lo := (v/100)*2, (v%100)*2
	_ = b[3]
	b[0], b[1], b[2], b[3] = digitPairs[hi], digitPairs[hi+1], digitPairs[lo], digitPairs[lo+1]
}

// AppendInt appends the decimal digits of n with its sign, as
// strconv.AppendInt(dst, n, 10) does.
func AppendInt(dst []byte, n int64) []byte {
	if n < 0 {
		return AppendUint(append(dst, '-'), -uint64(n))
	}
	return AppendUint(dst, uint64(n))
}

// AppendUintWidth appends n with at least width digits, zeros in front.
func AppendUintWidth(dst []byte, n uint64, width int) []byte {
	for w := decimalWidth(n); w < width; w++ {
		dst = append(dst, '0')
	}
	return AppendUint(dst, n)
}
