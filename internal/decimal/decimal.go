// Package decimal appends integers in decimal as strconv.AppendUint and
// strconv.AppendInt do, two digits at a time from a table and no
// intermediate buffer: the renderers (tdh's TDH rendering, the dumps)
// write several integers per event.
package decimal

import (
	"encoding/binary"
	"math/bits"
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

// Width returns the number of decimal digits of n (1 for 0): what
// AppendUint appends.
func Width(n uint64) int {
	// log10(2) ≈ 1233/4096: a guess that is exact or one too small.
	w := (bits.Len64(n) * 1233) >> 12
	if w < len(pow10) && n >= pow10[w] {
		w++
	}
	return max(w, 1)
}

// AppendUint appends the decimal digits of n, as strconv.AppendUint(dst,
// n, 10) does, from tables of digit pairs, in one append (one store) per
// group of four or eight (no intermediate buffer): the dumps write
// several integers per event.
func AppendUint(dst []byte, n uint64) []byte {
	if n < 10 {
		// Many integers of a dump (flags, levels, counts, CPUs) are one
		// digit: inlined, this costs no call.
		return append(dst, byte('0'+n))
	}
	return appendUint(dst, n)
}

// appendUint is AppendUint.
func appendUint(dst []byte, n uint64) []byte {
	if n < 10000 {
		// Most integers of a dump (ids, sizes, counts, flags) are small:
		// one append of their digits, no width to work out.
		switch {
		case n < 10:
			return append(dst, byte('0'+n))
		case n < 100:
			return append(dst, digitPairs[2*n], digitPairs[2*n+1])
		}
		hi, lo := 2*(n/100), 2*(n%100)
		if hi < 20 {
			return append(dst, digitPairs[hi+1], digitPairs[lo], digitPairs[lo+1])
		}
		return binary.LittleEndian.AppendUint32(dst, four(uint32(n)))
	}
	if n < 1e8 {
		// The digits above the last four, then those four.
		q := n / 10000
		dst = appendUint(dst, q)
		return binary.LittleEndian.AppendUint32(dst, four(uint32(n-q*10000)))
	}
	if n >= 1e16 {
		// 17 to 20 digits (kernel addresses, masks): the first one to
		// four, then sixteen, one call fewer than by eights.
		q := n / 1e16
		r := n - q*1e16
		dst = appendUint(dst, q)
		m := r / 1e8
		dst = binary.LittleEndian.AppendUint64(dst, Digits8(uint32(m)))
		return binary.LittleEndian.AppendUint64(dst, Digits8(uint32(r-m*1e8)))
	}
	// The digits above the last eight, then those eight (in 32-bit
	// arithmetic).
	q := n / 1e8
	dst = appendUint(dst, q)
	r := uint32(n - q*1e8)
	hi := r / 10000
	return binary.LittleEndian.AppendUint64(dst, uint64(four(hi))|uint64(four(r-hi*10000))<<32)
}

// pairs16 holds "00" to "99" as little-endian 16-bit words (the first
// digit in the low byte), indexed by a byte: entries 100 to 255 are not
// used, and the byte index needs no bounds check.
var pairs16 = func() (t [256]uint16) {
	for i := range 100 {
		t[i] = uint16(digitPairs[2*i]) | uint16(digitPairs[2*i+1])<<8
	}
	return t
}()

// four returns the four digits of n < 10000, zeros in front, as a
// little-endian word: one store appends them.
func four(n uint32) uint32 {
	hi := n / 100
	return uint32(pairs16[uint8(hi)]) | uint32(pairs16[uint8(n-hi*100)])<<16
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
	for w := Width(n); w < width; w++ {
		dst = append(dst, '0')
	}
	return AppendUint(dst, n)
}

// Digits4 returns the four decimal digits of n < 10^4, zeros in front, as a
// little-endian word (the first digit in the low byte): one store writes
// them where a renderer keeps a fixed-width field.
func Digits4(n uint32) uint32 { return four(n) }

// Digits8 returns the eight decimal digits of n < 10^8, zeros in front, as
// a little-endian word (the first digit in the low byte).
func Digits8(n uint32) uint64 {
	hi := n / 10000
	return uint64(four(hi)) | uint64(four(n-hi*10000))<<32
}
