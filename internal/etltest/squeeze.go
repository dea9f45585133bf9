package etltest

import "encoding/binary"

// Squeeze removes from an .etl file the fill after each uncompressed
// buffer's records (the bytes between the header's Offset and
// BufferSize), which makes up most of a small file; [Expand] puts it back.
// Fuzz targets take squeezed files as inputs so that mutation and
// minimisation work on the bytes that matter. A file that does not walk
// cleanly is returned as it is from the first buffer that does not fit.
func Squeeze(b []byte) []byte {
	le := binary.LittleEndian
	var out []byte
	pos := 0
	for pos+0x48 <= len(b) {
		size, offset := int(le.Uint32(b[pos:])), int(le.Uint32(b[pos+0x30:]))
		compressed := le.Uint16(b[pos+0x34:])&0x40 != 0
		if size < 0x48 || pos+size > len(b) || offset < 0x48 || (!compressed && offset > size) {
			break
		}
		if compressed {
			out = append(out, b[pos:pos+size]...)
		} else {
			out = append(out, b[pos:pos+offset]...)
		}
		pos += size
	}
	return append(out, b[pos:]...)
}

// fill is a block of the 0xFF fill Expand puts back.
var fill = func() []byte {
	b := make([]byte, 64<<10)
	for i := range b {
		b[i] = 0xFF
	}
	return b
}()

// Expand is the inverse of [Squeeze] for any input: each uncompressed
// buffer's records are followed by 0xFF fill up to its BufferSize. The
// output is at most max bytes (the rest of the input is left out).
func Expand(b []byte, max int) []byte {
	le := binary.LittleEndian
	out := make([]byte, 0, min(4*len(b), max))
	pos := 0
	for pos+0x48 <= len(b) {
		size, offset := int(le.Uint32(b[pos:])), int(le.Uint32(b[pos+0x30:]))
		compressed := le.Uint16(b[pos+0x34:])&0x40 != 0
		take := offset
		if compressed {
			take = size
		}
		if take < 0x48 || size < take || size > max-len(out) {
			break
		}
		take = min(take, len(b)-pos)
		out = append(out, b[pos:pos+take]...)
		pos += take
		if !compressed {
			for n := size - take; n > 0; {
				k := min(n, len(fill))
				out = append(out, fill[:k]...) // memmove: fast even when instrumented for fuzzing
				n -= k
			}
		}
	}
	rest := b[pos:]
	return append(out, rest[:min(len(rest), max-len(out))]...)
}
