package parquetout

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// spillBlock is the unit in which a spill file is handed to the page
// buffers of the columns.
const spillBlock = 64 << 10

// spillPool is a parquet.BufferPool that keeps the compressed pages of the
// row groups being written in one temporary file instead of memory: a
// column's pages wait there until its row group is committed, then are
// copied to the output in order. The file is made at the first page, in
// dir, removed as soon as it is open where the system allows it (else at
// close), and reused block by block: it grows to the pages of the row
// groups in flight, not to the output. If it cannot be made, the pages
// wait in memory as without it.
type spillPool struct {
	dir string

	mu   sync.Mutex
	f    *os.File
	err  error   // making the file
	size int64   // blocks handed out so far, in bytes
	free []int64 // offsets of free blocks
	mem  parquet.BufferPool

	copyMu  sync.Mutex
	scratch []byte // for copying out, under copyMu
}

func newSpillPool(dir string) *spillPool {
	return &spillPool{dir: dir, mem: parquet.NewBufferPool()}
}

// GetBuffer returns an empty page buffer.
func (p *spillPool) GetBuffer() io.ReadWriteSeeker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil && p.err == nil {
		p.f, p.err = os.CreateTemp(p.dir, ".etwkit-pages-*")
		if p.err == nil && os.Remove(p.f.Name()) == nil {
			p.dir = "" // removed: nothing to remove at close
		}
	}
	if p.err != nil {
		return p.mem.GetBuffer()
	}
	return &spillBuffer{p: p}
}

// PutBuffer frees the blocks of b.
func (p *spillPool) PutBuffer(b io.ReadWriteSeeker) {
	sb, ok := b.(*spillBuffer)
	if !ok {
		p.mem.PutBuffer(b)
		return
	}
	p.mu.Lock()
	p.free = append(p.free, sb.blocks...)
	p.mu.Unlock()
	sb.blocks, sb.size, sb.off = nil, 0, 0
}

// block returns the offset of a free block of the file.
func (p *spillPool) block() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		off := p.free[n-1]
		p.free = p.free[:n-1]
		return off
	}
	off := p.size
	p.size += spillBlock
	return off
}

// close closes and removes the file.
func (p *spillPool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	if p.dir != "" {
		if rerr := os.Remove(p.f.Name()); err == nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	p.f = nil
	p.err = os.ErrClosed
	return err
}

// spillBuffer is the pages of one column of a row group: blocks of the
// pool's file, in order.
type spillBuffer struct {
	p      *spillPool
	blocks []int64
	size   int64 // bytes written
	off    int64 // read/write position
}

func (b *spillBuffer) Write(data []byte) (int, error) {
	n := 0
	for len(data) > 0 {
		i, at := b.off/spillBlock, b.off%spillBlock
		if i == int64(len(b.blocks)) {
			b.blocks = append(b.blocks, b.p.block())
		}
		m := int(min(int64(len(data)), spillBlock-at))
		if _, err := b.p.f.WriteAt(data[:m], b.blocks[i]+at); err != nil {
			return n, fmt.Errorf("parquetout: page buffer file: %w", err)
		}
		data, n, b.off = data[m:], n+m, b.off+int64(m)
		b.size = max(b.size, b.off)
	}
	return n, nil
}

func (b *spillBuffer) Read(data []byte) (int, error) {
	if b.off >= b.size {
		return 0, io.EOF
	}
	i, at := b.off/spillBlock, b.off%spillBlock
	m := int(min(int64(len(data)), spillBlock-at, b.size-b.off))
	n, err := b.p.f.ReadAt(data[:m], b.blocks[i]+at)
	b.off += int64(n)
	if err != nil && n < m {
		return n, fmt.Errorf("parquetout: page buffer file: %w", err)
	}
	return n, nil
}

// WriteTo copies the rest of the pages to w (io.Copy's path).
func (b *spillBuffer) WriteTo(w io.Writer) (int64, error) {
	b.p.copyMu.Lock()
	defer b.p.copyMu.Unlock()
	if b.p.scratch == nil {
		b.p.scratch = make([]byte, spillBlock)
	}
	buf := b.p.scratch
	var total int64
	for b.off < b.size {
		n, err := b.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (b *spillBuffer) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += b.size
	default:
		return b.off, fmt.Errorf("parquetout: page buffer: seek whence %d", whence)
	}
	if offset < 0 {
		return b.off, fmt.Errorf("parquetout: page buffer: seek to %d", offset)
	}
	b.off = min(offset, b.size)
	return b.off, nil
}
