package etl_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// The attack runs' damaged size fields (../shared/attack/README.md): a
// buffer size that runs past the end of the file or over the next
// buffers, a file cut at a buffer boundary (a circular one too), a data
// end that disagrees with SavedOffset and the records, a log-file header
// BufferSize that disagrees with the buffers', repeated buffers. Each is
// reported with its offset, and what the other fields support is read
// (the undamaged originals of the third run's files have these counts).
// The reader (the dump's path) reports the same as Scan.
func TestAttackBufferSizes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events int
		errors int
		offset int64
		msg    string
	}{
		{"bufsize_past_eof.etl", 27, 1, 0, "exceeds the log's buffer size 0x10000"},
		{"bufsize_swallows_next.etl", 27, 1, 0x10000, "exceeds the log's buffer size 0x10000"},
		{"trunc_at_buffer_boundary.etl", 1, 1, 0x10000, "2 buffers (131072 bytes) not in the file"},
		{"compressed_bufsize_swallows_next.etl", 1400, 1, 0x62b, "runs over the buffer header at 0x76a7"},
		{"first_bufsize_ffffffff.etl", 27, 1, 0, "buffer size 0xffffffff exceeds"},
		{"wu-151-silentloss.etl", 82, 1, 0x6000, "data end 0x48 disagrees with SavedOffset 0xdf0 (the records run to 0xdf0): read up to 0xdf0 (3496 bytes"},
		{"shutdown-253-silentloss.etl", 17078, 1, 0x40000, "data end 0x48 disagrees with SavedOffset 0xffa0"},
		{"trunc_circular_gc_64k.etl", 2, 1, 0x10000, "4 buffers (262144 bytes) not in the file"},
		{"lf_buffersize_0x49_wu.etl", 82, 1, 0x68, "log-file header buffer size 0x49 disagrees with the buffers' own size 0x1000"},
		{"buf0_dataend_0x47_wpp.etl", 17, 1, 0, "data end 0x47 lies inside the buffer header"},
		{"buf2_dataend_0x10001_classic.etl", 27, 1, 0x20000, "data end 0x10001 exceeds the file's buffer size 0x10000 (SavedOffset 0xdb8, records to 0xdb8): read up to 0xdb8"},
		{"doubled.etl", 27, 3, 0x30000, "repeats the one at 0x0 byte for byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := openPath(t, etltest.AttackFile(t, tc.name))
			st := f.Scan()
			if st.Events != tc.events {
				t.Errorf("%d events, want %d", st.Events, tc.events)
			}
			firstError(t, st.Errors, tc.errors, tc.offset, tc.msg)
			evs, errs := collect(t, []*etl.File{f}, etl.TimeOrder)
			if len(evs) != tc.events || len(errs) != len(st.Errors) {
				t.Errorf("reader: %d events, errors %v", len(evs), errs)
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
