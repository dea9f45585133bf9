package parquetout

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSpillBuffer: page buffers in the spill file read back what was
// written, across blocks, interleaved with other buffers, after seeks;
// freed blocks are reused, so the file grows to the buffers in use.
func TestSpillBuffer(t *testing.T) {
	dir := t.TempDir()
	p := newSpillPool(dir)
	rng := rand.New(rand.NewPCG(1, 2))
	maxBlocks := 0
	for round := range 3 {
		var bufs []io.ReadWriteSeeker
		var want [][]byte
		for range 5 {
			bufs = append(bufs, p.GetBuffer())
			want = append(want, nil)
		}
		// Writes of every size, interleaved: pages of five columns.
		for range 200 {
			i := rng.IntN(len(bufs))
			b := make([]byte, rng.IntN(3*spillBlock/2))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			if n, err := bufs[i].Write(b); n != len(b) || err != nil {
				t.Fatalf("round %d: Write: %d, %v", round, n, err)
			}
			want[i] = append(want[i], b...)
		}
		for i, b := range bufs {
			if _, ok := b.(*spillBuffer); !ok {
				t.Fatalf("round %d: a %T, not in the file", round, b)
			}
			if off, err := b.Seek(0, io.SeekStart); off != 0 || err != nil {
				t.Fatalf("Seek: %d, %v", off, err)
			}
			var got bytes.Buffer
			if _, err := io.Copy(&got, b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want[i]) {
				t.Fatalf("round %d: buffer %d reads back %d bytes, want the %d written", round, i, got.Len(), len(want[i]))
			}
			// Read, after a seek into the middle.
			mid := int64(len(want[i]) / 3)
			if off, err := b.Seek(mid, io.SeekStart); off != mid || err != nil {
				t.Fatalf("Seek: %d, %v", off, err)
			}
			rest, err := io.ReadAll(b)
			if err != nil || !bytes.Equal(rest, want[i][mid:]) {
				t.Fatalf("round %d: buffer %d from %d: %d bytes, %v", round, i, mid, len(rest), err)
			}
			if end, _ := b.Seek(0, io.SeekEnd); end != int64(len(want[i])) {
				t.Fatalf("size %d, want %d", end, len(want[i]))
			}
		}
		blocks := 0
		for i, b := range bufs {
			blocks += (len(want[i]) + spillBlock - 1) / spillBlock
			p.PutBuffer(b)
		}
		maxBlocks = max(maxBlocks, blocks)
	}
	// Blocks freed by a round are the next one's.
	if p.size > int64(maxBlocks)*spillBlock {
		t.Errorf("a file of %d bytes for at most %d blocks in use", p.size, maxBlocks)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 1 {
		t.Errorf("%d files in the temporary directory", len(ents))
	}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left in the temporary directory", len(ents))
	}
}

// TestSpillPoolNoDir: without a directory to spill to, pages wait in
// memory.
func TestSpillPoolNoDir(t *testing.T) {
	p := newSpillPool(filepath.Join(t.TempDir(), "missing"))
	b := p.GetBuffer()
	if _, ok := b.(*spillBuffer); ok {
		t.Fatal("a spill buffer without a file")
	}
	if _, err := b.Write([]byte("page")); err != nil {
		t.Fatal(err)
	}
	b.Seek(0, io.SeekStart)
	if got, _ := io.ReadAll(b); string(got) != "page" {
		t.Fatalf("read back %q", got)
	}
	p.PutBuffer(b)
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
}
