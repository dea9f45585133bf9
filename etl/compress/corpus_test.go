package compress

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/internal/etlcorpus"
)

// ETW buffer framing, as far as needed to find compressed buffers: each
// buffer starts with a 0x48-byte WMI_BUFFER_HEADER.
const (
	etwBufferHeaderSize     = 0x48
	etwBufferFlagCompressed = 0x40
)

// etlBuffer is one compressed buffer of a real .etl file.
type etlBuffer struct {
	file   string
	offset int    // of the buffer in the file
	src    []byte // compressed bytes after the header
	size   int    // expected uncompressed size after the header
}

// compressedBuffers returns the compressed buffers of the .etl file data:
// buffers are concatenated, each BufferSize (u32 at +0x00) bytes long; a
// buffer with BufferFlag (u16 at +0x34) & 0x40 holds plain LZ77 that
// decodes to Offset (u32 at +0x30) minus the header size.
func compressedBuffers(t testing.TB, name string, data []byte) []etlBuffer {
	var bufs []etlBuffer
	for off := 0; len(data)-off >= etwBufferHeaderSize; {
		h := data[off:]
		size := int(binary.LittleEndian.Uint32(h[0x00:]))
		if size < etwBufferHeaderSize || size > len(data)-off {
			break
		}
		used := int(binary.LittleEndian.Uint32(h[0x30:]))
		flag := binary.LittleEndian.Uint16(h[0x34:])
		if flag&etwBufferFlagCompressed != 0 {
			if used < etwBufferHeaderSize {
				t.Errorf("%s: compressed buffer at %#x has Offset %#x < header size", name, off, used)
			} else {
				bufs = append(bufs, etlBuffer{file: name, offset: off, src: h[etwBufferHeaderSize:size], size: used - etwBufferHeaderSize})
			}
		}
		off += size
	}
	return bufs
}

// corpusFiles returns $ETL_CORPUS and the paths of the .etl files under
// it ([etlcorpus.Traces]: skipped when the variable is unset).
func corpusFiles(t testing.TB) (root string, files []string) {
	return etlcorpus.Dir(t), etlcorpus.Traces(t)
}

// TestCorpus decompresses every compressed buffer of every .etl file under
// $ETL_CORPUS and checks the exact size and that the output starts with an
// ETW record whose header type byte has its high bit set.
func TestCorpus(t *testing.T) {
	root, files := corpusFiles(t)
	total, totalOut := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		bufs := compressedBuffers(t, rel, data)
		for _, b := range bufs {
			dst := make([]byte, b.size)
			n, err := DecompressLZ77(dst, b.src)
			if err != nil {
				t.Errorf("%s: buffer at file offset %#x: %v", rel, b.offset, err)
				continue
			}
			if n != b.size {
				t.Errorf("%s: buffer at file offset %#x: decompressed %d bytes, want %d", rel, b.offset, n, b.size)
				continue
			}
			if n < 4 || dst[3]&0x80 == 0 {
				t.Errorf("%s: buffer at file offset %#x: output does not start with an ETW record marker: % x", rel, b.offset, dst[:min(n, 16)])
			}
			// Windows' decoder and ours must agree through the generic entry.
			if n2, err := Decompress(Xpress, dst, b.src); n2 != n || err != nil {
				t.Errorf("%s: buffer at file offset %#x: Decompress(Xpress) = %d, %v", rel, b.offset, n2, err)
			}
			totalOut += n
		}
		if len(bufs) > 0 {
			t.Logf("%s: %d compressed buffers", rel, len(bufs))
		}
		total += len(bufs)
	}
	t.Logf("%d compressed buffers in %d .etl files decompressed to %d bytes", total, len(files), totalOut)
	if total == 0 {
		t.Errorf("no compressed buffers found under %s", root)
	}
}
