package etl_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// firstError checks that errs holds n errors (n < 0: any number, at least
// one) and that the first is a *FormatError at offset off whose message
// holds msg.
func firstError(t *testing.T, errs []error, n int, off int64, msg string) {
	t.Helper()
	if len(errs) == 0 || n >= 0 && len(errs) != n {
		t.Fatalf("errors %v, want %d", errs, n)
	}
	fe, ok := errs[0].(*etl.FormatError)
	if !ok || fe.Offset != off || !strings.Contains(fe.Msg, msg) {
		t.Errorf("error %v, want offset %#x and %q", errs[0], off, msg)
	}
}

// TestCorpusHeaderEventDamage damages each field of the record header of
// net.4.5.2's log-file header event in turn: the file is still read (its
// buffers carry their own sizes), losing at most the header event, and the
// damage is reported at 0x48.
func TestCorpusHeaderEventDamage(t *testing.T) {
	p := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	clean, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const total = 179474
	for _, tc := range []struct {
		at int
		v  byte
	}{{0x49, 0xFF}, {0x4A, 0xFD}, {0x4B, 0x3F}, {0x4C, 0}, {0x4D, 0xFE}, {0x4E, 0xFF}, {0x4F, 0xFF}} {
		t.Run(fmt.Sprintf("%#x=%#x", tc.at, tc.v), func(t *testing.T) {
			b := bytes.Clone(clean)
			b[tc.at] = tc.v
			f := open(t, b)
			st := f.Scan()
			if st.Events < total-1 || st.Events > total {
				t.Errorf("%d events, want %d or one less", st.Events, total)
			}
			firstError(t, st.Errors, -1, etl.BufferHeaderSize, "log-file header event damaged")
			if f.Header.BuffersWritten != 360 || f.Header.PerfFreq == 0 {
				t.Errorf("header %+v", f.Header)
			}
		})
	}
}

// TestAttackBothEndsCut: wu-151-silentloss.etl with SavedOffset cut to
// 0x48 as well: the records after the data end still say more.
func TestAttackBothEndsCut(t *testing.T) {
	b, err := os.ReadFile(etltest.AttackFile(t, "wu-151-silentloss.etl"))
	if err != nil {
		t.Fatal(err)
	}
	etltest.LE32(b[0x6004:], etl.BufferHeaderSize)
	st := open(t, b).Scan()
	if st.Events != 82 {
		t.Errorf("%d events, want 82", st.Events)
	}
	firstError(t, st.Errors, 1, 0x6000, "records continue past the data end 0x48 (SavedOffset 0x48) up to 0xdf0: read up to 0xdf0 (3496 bytes the data end left out)")
}

// TestCorpusCompressedDataEnd cuts the data end of one of net.4.5.2's
// compressed buffers to 0x48, as wu-151-silentloss.etl does to an
// uncompressed one: SavedOffset and the decompressed length agree, and
// every event is read.
func TestCorpusCompressedDataEnd(t *testing.T) {
	p := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	clean, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bi := open(t, clean).Buffers()[5]
	b := bytes.Clone(clean)
	etltest.LE32(b[bi.FileOffset+0x30:], etl.BufferHeaderSize)
	st := open(t, b).Scan()
	if st.Events != 179474 {
		t.Errorf("%d events, want 179474", st.Events)
	}
	firstError(t, st.Errors, 1, bi.FileOffset, fmt.Sprintf("data end 0x48 disagrees with SavedOffset %#x and the decompressed length", bi.Header.SavedOffset))
}

// TestCorpusRecordResync damages one record in the middle of a real
// buffer: only that record is lost, the walk resynchronises on the next
// one and says what it skipped.
func TestCorpusRecordResync(t *testing.T) {
	p := etltest.CorpusFile(t, "airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl")
	clean, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, clean)
	total := f.Scan().Events
	bi := f.Buffers()[3]
	buf, err := f.ReadBuffer(bi)
	if err != nil {
		t.Fatal(err)
	}
	rr := buf.Records()
	var ev etl.Event
	for i := 0; i < 10 && rr.Next(&ev); i++ {
	}
	victim, size := rr.Offset(), 0
	if rr.Next(&ev) {
		size = (len(ev.Raw) + 7) &^ 7
	}
	buf.Release()
	b := bytes.Clone(clean)
	at := bi.FileOffset + int64(victim)
	b[at+3] = 0x12 // no trace header marker
	st := open(t, b).Scan()
	if st.Events != total-1 {
		t.Errorf("%d events, want %d", st.Events, total-1)
	}
	firstError(t, st.Errors, 1, at, fmt.Sprintf("skipped %d bytes to the next record at %#x", size, at+int64(size)))
}

// TestDataEndDisagrees cuts each buffer's data end (uncompressed and
// compressed) to an impossible or disagreeing value: every event is read,
// the damage is reported at the buffer's offset.
func TestDataEndDisagrees(t *testing.T) {
	const n = 4
	all := []int{1, 2, 3, 4, 5, 6, 7, 8}
	for _, compressed := range []bool{false, true} {
		clean, bufs := damagedFile(t, n, compressed)
		for k := 0; k <= n; k++ {
			bi := bufs[k]
			values := []uint32{etl.BufferHeaderSize, etl.BufferHeaderSize - 1, 0, bi.Header.BufferSize + 1, 0x7FFFFFFF}
			if compressed && k > 0 {
				values = []uint32{etl.BufferHeaderSize, etl.BufferHeaderSize - 1, 0, bi.Header.Offset - 8, bi.Header.Offset + 8, 0x7FFFFFFF}
			}
			for _, v := range values {
				t.Run(fmt.Sprintf("compressed=%v/buffer%d/end%#x", compressed, k, v), func(t *testing.T) {
					b := bytes.Clone(clean)
					etltest.LE32(b[bi.FileOffset+0x30:], v)
					f := open(t, b)
					evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
					if got := ids(evs); !equalInts(got, all) || len(evs) != 2*n+2 {
						t.Errorf("ids %v (%d events), want %v", got, len(evs), all)
					}
					firstError(t, errs, 1, bi.FileOffset, fmt.Sprintf("data end %#x", v))
				})
			}
		}
	}
	// A damaged data end and a damaged record: SavedOffset takes the walk
	// past the record, which is skipped.
	tf := etltest.NewFile(1024, true)
	bad := ev64(2, 80000000020)
	bad[3] = 0x12
	tf.AddBuffer(0, 0, ev64(1, 80000000010), bad, ev64(3, 80000000030))
	b2 := tf.Bytes()
	etltest.LE32(b2[1024+0x30:], etl.BufferHeaderSize-1)
	evs2, errs2 := collect(t, []*etl.File{open(t, b2)}, etl.FileOrder)
	if got := ids(evs2); !equalInts(got, []int{1, 3}) || len(errs2) != 2 || !strings.Contains(errs2[1].Error(), "skipped") {
		t.Errorf("data end and record damaged: ids %v errors %v", got, errs2)
	}
	firstError(t, errs2, 2, 1024, "data end 0x47 lies inside the buffer header")

	// Data end and SavedOffset cut alike (to 0x48, or after the first
	// record): the records after the data end, where the fill should be,
	// say more.
	for _, cut := range []uint32{etl.BufferHeaderSize, uint32(etl.BufferHeaderSize + (len(ev64(1, 0))+7)&^7)} {
		clean, bufs := damagedFile(t, n, false)
		b := bytes.Clone(clean)
		at := bufs[3].FileOffset
		etltest.LE32(b[at+4:], cut)
		etltest.LE32(b[at+0x30:], cut)
		evs, errs := collect(t, []*etl.File{open(t, b)}, etl.FileOrder)
		if !equalInts(ids(evs), all) {
			t.Errorf("both cut to %#x: ids %v", cut, ids(evs))
		}
		firstError(t, errs, 1, at, fmt.Sprintf("records continue past the data end %#x (SavedOffset %#x) up to %#x", cut, cut, bufs[3].Header.Offset))
	}

	// SavedOffset is the damaged one: the records end at the data end.
	clean, bufs := damagedFile(t, n, false)
	b := bytes.Clone(clean)
	etltest.LE32(b[bufs[2].FileOffset+4:], bufs[2].Header.Offset+0x100)
	evs, errs := collect(t, []*etl.File{open(t, b)}, etl.FileOrder)
	if !equalInts(ids(evs), all) {
		t.Errorf("ids %v", ids(evs))
	}
	firstError(t, errs, 1, bufs[2].FileOffset, "the records end at the data end: SavedOffset ignored")
}

// TestLogfileBufferSizeDamaged: a log-file header BufferSize that
// disagrees with the buffers' own is reported; the buffers are read.
func TestLogfileBufferSizeDamaged(t *testing.T) {
	for _, v := range []uint32{0x49, 0x10, 0x800, 0x100000, 0xFFFFFFFF} {
		for _, compressed := range []bool{false, true} {
			clean, _ := damagedFile(t, 3, compressed)
			b := bytes.Clone(clean)
			etltest.LE32(b[0x68:], v)
			f := open(t, b)
			evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
			if got := ids(evs); !equalInts(got, []int{1, 2, 3, 4, 5, 6}) {
				t.Errorf("%#x compressed=%v: ids %v errors %v", v, compressed, got, errs)
			}
			if compressed && v%1024 == 0 && v <= etl.MaxBufferSize {
				continue // a possible size for compressed buffers, which vary
			}
			firstError(t, errs, 1, 0x68, fmt.Sprintf("log-file header buffer size %#x", v))
		}
	}
}

// TestCircularNeverWrapped: a circular log whose buffers written fit in
// its maximum size never wrapped, so its buffer count is checked; one that
// may have wrapped is not.
func TestCircularNeverWrapped(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	tf.TLH.LogFileMode = etl.ModeCircular
	tf.TLH.MaximumFileSize = 1 // MB
	for k := 0; k < 4; k++ {
		tf.AddBuffer(0, int64(80000000100+k), ev64(uint16(k+1), int64(80000000010+k)))
	}
	b := tf.Bytes()
	evs, errs := collect(t, []*etl.File{open(t, b[:2048])}, etl.FileOrder)
	if len(ids(evs)) != 1 {
		t.Errorf("ids %v", ids(evs))
	}
	firstError(t, errs, 1, 2048, "3 buffers (3072 bytes) not in the file")

	tf.TLH.LogFileMode |= etl.ModeUseKBytesForSize
	tf.TLH.MaximumFileSize = 4 // KB: 5 buffers of 1 KB wrapped
	b = tf.Bytes()
	if _, errs := collect(t, []*etl.File{open(t, b[:2048])}, etl.FileOrder); len(errs) != 0 {
		t.Errorf("wrapped circular log: errors %v", errs)
	}
}

// TestRepeatedBuffers: buffers repeated byte for byte give their events
// once, each repeat reported; buffers beyond the header's count that are
// not repeats are reported as such.
func TestRepeatedBuffers(t *testing.T) {
	clean, bufs := damagedFile(t, 3, false)
	b := append(bytes.Clone(clean), clean[bufs[1].FileOffset:]...) // buffers 1-3 again
	f := open(t, b)
	evs, errs := collect(t, []*etl.File{f}, etl.TimeOrder)
	if got := ids(evs); !equalInts(got, []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("ids %v", got)
	}
	firstError(t, errs, 3, int64(len(clean)), fmt.Sprintf("repeats the one at %#x byte for byte", bufs[1].FileOffset))
	if st := f.Scan(); st.Buffers != 4 {
		t.Errorf("%d buffers, want 4", st.Buffers)
	}

	// A copy with one byte changed is not a repeat: the excess is reported.
	last := len(b) - 1024 + etl.BufferHeaderSize + 0x40
	b[last] ^= 1
	f = open(t, b)
	st := f.Scan()
	if st.Buffers != 5 || st.Events != 10 || len(st.Errors) != 3 {
		t.Fatalf("stats %+v", st)
	}
	fe := st.Errors[2].(*etl.FormatError)
	if !strings.Contains(fe.Msg, "the file holds 5 buffers, the log-file header says 4 were written") {
		t.Errorf("error %v", fe)
	}
}
