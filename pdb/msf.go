package pdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/etwkit/etw/internal/readerat"
)

// ErrNotPDB is returned (wrapped in a [*FormatError]) for input that is not
// an MSF 7.0 file: no "Microsoft C/C++ MSF 7.00" signature. Portable PDBs
// (the "BSJB" metadata format of .NET Core) and the older MSF 2.0 format
// give this error.
var ErrNotPDB = errors.New("not a PDB 7.0 (MSF) file")

// FormatError describes damaged or unexpected bytes in a PDB file.
type FormatError struct {
	// Stream is the MSF stream the problem is in, or -1 for the container
	// itself (superblock, stream directory).
	Stream int
	// Offset is the offset of the problem: in the stream when Stream ≥ 0,
	// else in the file.
	Offset int64
	// FileOffset is the file offset of the problem when it is known, else -1.
	FileOffset int64
	Msg        string
	Err        error // underlying error (ErrNotPDB, an I/O error, …), if any
}

// Error formats the error as "pdb: stream N offset 0x… (file offset 0x…):
// message: underlying error".
func (e *FormatError) Error() string {
	var s string
	switch {
	case e.Stream < 0:
		s = fmt.Sprintf("pdb: offset %#x: %s", e.Offset, e.Msg)
	case e.FileOffset >= 0:
		s = fmt.Sprintf("pdb: stream %d offset %#x (file offset %#x): %s", e.Stream, e.Offset, e.FileOffset, e.Msg)
	default:
		s = fmt.Sprintf("pdb: stream %d offset %#x: %s", e.Stream, e.Offset, e.Msg)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

func fileErr(off int64, format string, args ...any) *FormatError {
	return &FormatError{Stream: -1, Offset: off, FileOffset: off, Msg: fmt.Sprintf(format, args...)}
}

const msfMagic = "Microsoft C/C++ MSF 7.00\r\n\x1aDS\x00\x00\x00"

// msf is the multi-stream container: the superblock and the stream
// directory (sizes and block lists of every stream).
type msf struct {
	r         io.ReaderAt
	size      int64
	blockSize uint32
	numBlocks uint32
	sizes     []uint32   // stream sizes; nil streams have size 0
	blocks    [][]uint32 // block numbers of each stream
}

// readFile reads n bytes at a file offset, checking the range first.
func readFile(r io.ReaderAt, size, off int64, n int, what string) ([]byte, error) {
	b, err := readerat.Read(r, size, off, n)
	if err == readerat.ErrRange {
		return nil, fileErr(off, "%s (%d bytes) beyond the end of the file (%d bytes)", what, n, size)
	}
	if err != nil {
		return nil, &FormatError{Stream: -1, Offset: off, FileOffset: off, Msg: "reading " + what, Err: err}
	}
	return b, nil
}

func openMSF(r io.ReaderAt, size int64) (*msf, error) {
	sb, err := readFile(r, size, 0, 56, "superblock")
	if err != nil {
		return nil, &FormatError{Stream: -1, FileOffset: 0, Msg: "no MSF superblock", Err: ErrNotPDB}
	}
	if string(sb[:32]) != msfMagic {
		return nil, &FormatError{Stream: -1, FileOffset: 0, Msg: "no MSF 7.00 signature", Err: ErrNotPDB}
	}
	m := &msf{r: r, size: size}
	le := binary.LittleEndian
	m.blockSize = le.Uint32(sb[32:])
	m.numBlocks = le.Uint32(sb[40:])
	dirBytes := le.Uint32(sb[44:])
	mapBlock := le.Uint32(sb[52:])
	switch m.blockSize {
	case 512, 1024, 2048, 4096, 8192, 16384, 32768:
	default:
		return nil, fileErr(32, "block size %d (not a power of two from 512 to 32768)", m.blockSize)
	}
	bs := int64(m.blockSize)
	if maxBlocks := (size + bs - 1) / bs; int64(m.numBlocks) > maxBlocks {
		return nil, fileErr(40, "%d blocks of %d bytes in a file of %d bytes", m.numBlocks, bs, size)
	}
	if dirBytes < 4 || int64(dirBytes) > size {
		return nil, fileErr(44, "stream directory of %d bytes in a file of %d bytes", dirBytes, size)
	}
	nDirBlocks := (dirBytes + m.blockSize - 1) / m.blockSize
	if nDirBlocks > m.blockSize/4 {
		return nil, fileErr(44, "stream directory of %d blocks does not fit one block map block", nDirBlocks)
	}
	if err := m.checkBlock(mapBlock, 52); err != nil {
		return nil, err
	}
	mapOff := int64(mapBlock) * bs
	bm, err := readFile(r, size, mapOff, int(4*nDirBlocks), "stream directory block map")
	if err != nil {
		return nil, err
	}
	dirBlocks := make([]uint32, nDirBlocks)
	seen := make(map[uint32]bool, nDirBlocks+1)
	seen[mapBlock] = true
	for i := range dirBlocks {
		b := le.Uint32(bm[4*i:])
		off := mapOff + int64(4*i)
		if err := m.checkBlock(b, off); err != nil {
			return nil, err
		}
		if seen[b] {
			return nil, fileErr(off, "stream directory block %d listed twice (a cycle)", b)
		}
		seen[b] = true
		dirBlocks[i] = b
	}
	dir := make([]byte, 0, dirBytes)
	for _, b := range dirBlocks {
		n := min(int(dirBytes)-len(dir), int(bs))
		p, err := readFile(r, size, int64(b)*bs, n, "stream directory")
		if err != nil {
			return nil, err
		}
		dir = append(dir, p...)
	}
	// The directory's own offsets are reported as file offsets of its
	// first block plus the directory offset: close enough to find it.
	dirErr := func(off int, format string, args ...any) error {
		return fileErr(int64(dirBlocks[off/int(bs)])*bs+int64(off%int(bs)), format, args...)
	}
	nStreams := le.Uint32(dir)
	if uint64(nStreams) > uint64(len(dir)-4)/4 {
		return nil, dirErr(0, "%d streams in a directory of %d bytes", nStreams, len(dir))
	}
	m.sizes = make([]uint32, nStreams)
	m.blocks = make([][]uint32, nStreams)
	pos := 4 + 4*int(nStreams)
	for i := range m.sizes {
		sz := le.Uint32(dir[4+4*i:])
		if sz == 0xFFFFFFFF {
			sz = 0
		}
		if int64(sz) > int64(m.numBlocks)*bs {
			return nil, dirErr(4+4*i, "stream %d of %d bytes is larger than the file's %d blocks", i, sz, m.numBlocks)
		}
		n := int((int64(sz) + bs - 1) / bs)
		if n > (len(dir)-pos)/4 {
			return nil, dirErr(4+4*i, "stream %d needs %d block numbers; the directory holds %d more", i, n, (len(dir)-pos)/4)
		}
		bl := make([]uint32, n)
		for j := range bl {
			b := le.Uint32(dir[pos:])
			if b == 0 || b >= m.numBlocks {
				return nil, dirErr(pos, "stream %d block %d is block %d (the file has %d)", i, j, b, m.numBlocks)
			}
			bl[j] = b
			pos += 4
		}
		m.sizes[i] = sz
		m.blocks[i] = bl
	}
	return m, nil
}

func (m *msf) checkBlock(b uint32, off int64) error {
	if b == 0 || b >= m.numBlocks {
		return fileErr(off, "block number %d out of range (1 to %d)", b, m.numBlocks-1)
	}
	return nil
}

// stream is one MSF stream, readable as an io.ReaderAt.
type stream struct {
	m     *msf
	index int
	size  int64
}

func (m *msf) stream(i int) (*stream, error) {
	if i < 0 || i >= len(m.sizes) {
		return nil, &FormatError{Stream: i, FileOffset: -1, Msg: fmt.Sprintf("no stream %d (the file has %d)", i, len(m.sizes))}
	}
	return &stream{m: m, index: i, size: int64(m.sizes[i])}, nil
}

// fileOffset maps a stream offset to a file offset, or -1.
func (s *stream) fileOffset(off int64) int64 {
	if off < 0 || off >= s.size {
		return -1
	}
	bs := int64(s.m.blockSize)
	return int64(s.m.blocks[s.index][off/bs])*bs + off%bs
}

// errorf makes a FormatError at a stream offset.
func (s *stream) errorf(off int64, format string, args ...any) *FormatError {
	return &FormatError{Stream: s.index, Offset: off, FileOffset: s.fileOffset(off), Msg: fmt.Sprintf(format, args...)}
}

// ReadAt reads from the stream; it follows io.ReaderAt's contract.
func (s *stream) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, s.errorf(off, "negative offset")
	}
	bs := int64(s.m.blockSize)
	n := 0
	for n < len(p) {
		o := off + int64(n)
		if o >= s.size {
			return n, io.EOF
		}
		blk := s.m.blocks[s.index][o/bs]
		in := o % bs
		chunk := min(int64(len(p)-n), bs-in, s.size-o)
		fo := int64(blk)*bs + in
		m, err := s.m.r.ReadAt(p[n:n+int(chunk)], fo)
		n += m
		if m < int(chunk) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, &FormatError{Stream: s.index, Offset: o, FileOffset: fo, Msg: "reading block past the end of the file", Err: err}
		}
	}
	return n, nil
}

// read reads n bytes at a stream offset, checking the range first.
func (s *stream) read(off int64, n int, what string) ([]byte, error) {
	if off < 0 || n < 0 || off > s.size || int64(n) > s.size-off {
		return nil, s.errorf(off, "%s (%d bytes) beyond the end of the stream (%d bytes)", what, n, s.size)
	}
	b := make([]byte, n)
	if _, err := s.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// all reads the whole stream.
func (s *stream) all(what string) ([]byte, error) { return s.read(0, int(s.size), what) }
