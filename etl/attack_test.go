package etl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// The attack run's damaged buffer sizes (../shared/attack/README.md): a
// size that runs past the end of the file or over the next buffers, a file
// cut at a buffer boundary. Each is reported with its offset, and the
// buffers after a damaged size are read.
func TestAttackBufferSizes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events int
		offset int64
		msg    string
	}{
		{"bufsize_past_eof.etl", 27, 0, "exceeds the log's buffer size 0x10000"},
		{"bufsize_swallows_next.etl", 27, 0x10000, "exceeds the log's buffer size 0x10000"},
		{"trunc_at_buffer_boundary.etl", 1, 0x10000, "2 buffers (131072 bytes) not in the file"},
		{"compressed_bufsize_swallows_next.etl", 1400, 0x62b, "runs over the buffer header at 0x76a7"},
		{"first_bufsize_ffffffff.etl", 26, 0, "buffer size 0xffffffff exceeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := openPath(t, etltest.AttackFile(t, tc.name))
			st := f.Scan()
			if st.Events != tc.events {
				t.Errorf("%d events, want %d", st.Events, tc.events)
			}
			if len(st.Errors) != 1 {
				t.Fatalf("errors %v, want one", st.Errors)
			}
			fe, ok := st.Errors[0].(*etl.FormatError)
			if !ok || fe.Offset != tc.offset || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("error %v, want offset %#x and %q", st.Errors[0], tc.offset, tc.msg)
			}
		})
	}
}

// damagedFile builds a file of n buffers of two events each (ids 2k+1,
// 2k+2), compressed or not, and returns it with the offsets and sizes of
// its buffers (the log-file header buffer first).
func damagedFile(t *testing.T, n int, compressed bool) ([]byte, []etl.BufferInfo) {
	t.Helper()
	tf := etltest.NewFile(1024, true)
	if compressed {
		tf.Compress = etltest.LiteralLZ77
	}
	for k := 0; k < n; k++ {
		ts := int64(80000000000 + 100*k)
		tf.AddBuffer(uint16(k%2), ts+50, ev64(uint16(2*k+1), ts), ev64(uint16(2*k+2), ts+10))
	}
	b := tf.Bytes()
	f := open(t, b)
	bufs := f.Buffers()
	if len(bufs) != n+1 || len(f.IndexErrors()) != 0 {
		t.Fatalf("fixture: %d buffers, errors %v", len(bufs), f.IndexErrors())
	}
	return b, bufs
}

// TestDamagedBufferSize damages each data buffer's size of uncompressed and
// compressed files in turn (twice its size, over all the buffers after it,
// far past the end of the file): the one damaged buffer is reported at its
// offset and every event is still read.
func TestDamagedBufferSize(t *testing.T) {
	const n = 5
	all := make([]int, 2*n)
	for i := range all {
		all[i] = i + 1
	}
	for _, compressed := range []bool{false, true} {
		clean, bufs := damagedFile(t, n, compressed)
		for k := 1; k <= n; k++ {
			bi := bufs[k]
			size := int64(bi.Header.BufferSize)
			for _, newSize := range []int64{2 * size, int64(len(clean)) - bi.FileOffset + 4096, 0xF00000} {
				if compressed && newSize == 2*size && k == n {
					continue // the last buffer has nothing to swallow but the file's end
				}
				t.Run(fmt.Sprintf("compressed=%v/buffer%d/size%#x", compressed, k, newSize), func(t *testing.T) {
					b := append([]byte(nil), clean...)
					etltest.LE32(b[bi.FileOffset:], uint32(newSize))
					f := open(t, b)
					evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
					got := ids(evs)
					if !equalInts(got, all) {
						t.Errorf("ids %v, want %v", got, all)
					}
					if len(errs) == 0 {
						t.Fatal("no error reported")
					}
					fe, ok := errs[0].(*etl.FormatError)
					if !ok || fe.Offset != bi.FileOffset || !strings.Contains(fe.Msg, "size") {
						t.Errorf("errors %v, want the first at %#x", errs, bi.FileOffset)
					}
				})
			}
		}
	}
}

// TestCutAtBufferBoundary cuts a file after each of its buffers: the
// shortfall against the header's buffer count is reported, with the bytes
// and buffers missing.
func TestCutAtBufferBoundary(t *testing.T) {
	const n = 4
	clean, bufs := damagedFile(t, n, false)
	for k := 1; k < n; k++ {
		end := bufs[k].FileOffset + int64(bufs[k].Header.BufferSize)
		f := open(t, clean[:end])
		evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
		if len(ids(evs)) != 2*k {
			t.Errorf("cut after buffer %d: %d events, want %d", k, len(ids(evs)), 2*k)
		}
		want := fmt.Sprintf("%d buffers (%d bytes) not in the file", n-k, int64(len(clean))-end)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("cut after buffer %d: errors %v, want %q", k, errs, want)
		}
	}
	// Compressed buffers vary in size: the count alone says what is missing.
	clean, bufs = damagedFile(t, n, true)
	end := bufs[2].FileOffset + int64(bufs[2].Header.BufferSize)
	f := open(t, clean[:end])
	_, errs := collect(t, []*etl.File{f}, etl.FileOrder)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "2 buffers not read") {
		t.Errorf("compressed cut: errors %v", errs)
	}
}
