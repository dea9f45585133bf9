package compress

import (
	"errors"
	"fmt"
	"strconv"
)

// Format is a Windows compression format code (COMPRESSION_FORMAT_*), as
// passed to RtlDecompressBufferEx.
type Format uint16

// The compression formats understood by [Decompress].
const (
	// LZNT1 is COMPRESSION_FORMAT_LZNT1, [MS-XCA] section 2.5.
	LZNT1 Format = 2
	// Xpress is COMPRESSION_FORMAT_XPRESS, the [MS-XCA] "Plain LZ77"
	// format of sections 2.3 and 2.4. ETW uses it for compressed buffers.
	Xpress Format = 3
	// XpressHuffman is COMPRESSION_FORMAT_XPRESS_HUFF, the [MS-XCA]
	// "LZ77+Huffman" format of sections 2.1 and 2.2.
	XpressHuffman Format = 4
)

// String returns the Windows name of the format without its
// COMPRESSION_FORMAT_ prefix ("LZNT1", "XPRESS", "XPRESS_HUFF"), or
// "format(N)" for a code this package does not know.
func (f Format) String() string {
	switch f {
	case LZNT1:
		return "LZNT1"
	case Xpress:
		return "XPRESS"
	case XpressHuffman:
		return "XPRESS_HUFF"
	}
	return "format(" + strconv.Itoa(int(f)) + ")"
}

var (
	// ErrCorrupt reports compressed input that is malformed: truncated,
	// referring to data before the start of the output, or otherwise not a
	// valid stream of its format.
	ErrCorrupt = errors.New("compressed data corrupt")

	// ErrOutputOverflow reports compressed input that decodes to more bytes
	// than the destination buffer holds.
	ErrOutputOverflow = errors.New("decompressed data exceeds output buffer")

	// ErrUnsupportedFormat reports a [Format] that [Decompress] does not
	// implement.
	ErrUnsupportedFormat = errors.New("unsupported compression format")
)

// Decompress decompresses src, compressed in format f, into dst, writing at
// most len(dst) bytes, and returns the number of bytes decompressed. The
// bytes of dst past that count are left undefined (a decoder may write
// ahead in whole words, or stop after an error).
//
// As with RtlDecompressBufferEx, len(dst) is the expected uncompressed
// size: input that would decode to more than len(dst) bytes is an error
// wrapping [ErrOutputOverflow], unless the stream ends exactly when dst is
// full. Malformed input yields an error wrapping [ErrCorrupt] that names the
// input offset at fault, and an unknown format one wrapping
// [ErrUnsupportedFormat]. See [DecompressLZNT1], [DecompressLZ77] and
// [DecompressHuffman] for how each format ends.
func Decompress(f Format, dst, src []byte) (int, error) {
	switch f {
	case LZNT1:
		return DecompressLZNT1(dst, src)
	case Xpress:
		return DecompressLZ77(dst, src)
	case XpressHuffman:
		return DecompressHuffman(dst, src)
	}
	return 0, fmt.Errorf("compress: %v: %w", f, ErrUnsupportedFormat)
}

// corruptf returns an error wrapping ErrCorrupt. It is kept out of line so
// that the decoders' hot loops stay small.
//
//go:noinline
func corruptf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrCorrupt)...)
}

// overflowf returns an error wrapping ErrOutputOverflow.
//
//go:noinline
func overflowf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrOutputOverflow)...)
}
