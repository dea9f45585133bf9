package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReserveOnExt4: a large file written through File.Write holds
// blocks past its end while written (on ext4, where space is reserved),
// has the same bytes, and holds none past its end once committed.
func TestReserveOnExt4(t *testing.T) {
	dir := t.TempDir()
	if !reserveHere(dir) {
		t.Skipf("%s is not on ext4: no space is reserved there", dir)
	}
	path := filepath.Join(dir, "big.out")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	want := bytes.Repeat([]byte("0123456789abcdef"), (reserveFrom+3<<20)/16)
	w := f.Writer()
	for p := want; len(p) > 0; {
		n := min(len(p), 100_000)
		if _, err := w.Write(p[:n]); err != nil {
			t.Fatal(err)
		}
		p = p[n:]
	}
	allocated := func(f *os.File) int64 {
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Blocks * 512
	}
	if f.res.reserved <= int64(len(want)) {
		t.Fatalf("nothing reserved past the end of %d bytes (up to %d)", len(want), f.res.reserved)
	}
	if got := allocated(f.File); got < f.res.reserved&^4095 {
		t.Errorf("while written: %d bytes allocated for %d written, want the %d reserved", got, len(want), f.res.reserved)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the file differs from what was written (%d bytes, %v)", len(got), err)
	}
	g, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// Blocks of 4 KiB, and ext4's extent tree, may add a few KiB.
	if a := allocated(g); a > int64(len(want))+64<<10 {
		t.Errorf("committed: %d bytes allocated for %d, the space reserved past the end not freed", a, len(want))
	}
}

// BenchmarkWriteLarge writes 128 MiB through a File in 192 KiB writes
// (the dumps' chunks), or five of them at a time with WriteBuffers (a
// batch's rendering), and commits it, with space reserved ahead (where
// the test folder is on ext4) and without.
func BenchmarkWriteLarge(b *testing.B) {
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 192<<10/16)
	const size = 128 << 20
	for _, reserving := range []bool{true, false} {
		for _, vectored := range []bool{false, true} {
			name := "reserve"
			if !reserving {
				name = "none"
			}
			if vectored {
				name += "/buffers"
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				if reserving && !reserveHere(dir) {
					b.Skipf("%s is not on ext4: no space is reserved there", dir)
				}
				path := filepath.Join(dir, "big.out")
				b.SetBytes(size)
				for b.Loop() {
					b.StopTimer()
					os.Remove(path) // freeing the last one's pages is not this one's cost
					b.StartTimer()
					f, err := Create(path)
					if err != nil {
						b.Fatal(err)
					}
					f.res.on = reserving
					for n := 0; n < size; {
						var err error
						if vectored {
							_, err = f.WriteBuffers([][]byte{chunk, chunk, chunk, chunk, chunk})
							n += 5 * len(chunk)
						} else {
							_, err = f.Write(chunk)
							n += len(chunk)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					if err := f.Commit(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
