package etl_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// ev64 is a small EVENT_HEADER64 record whose id tags it in tests.
func ev64(id uint16, ts int64) []byte {
	return etltest.Event(etl.HeaderEvent64, 0, 1, 2, ts, provB, etl.EventDescriptor{ID: id}, uuid.UUID{}, nil, []byte{byte(id)})
}

func ids(evs []etl.Event) []int {
	var out []int
	for _, e := range evs {
		if e.Header == etl.HeaderEvent64 {
			out = append(out, int(e.Descriptor.ID))
		}
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// interleaved builds a file whose per-CPU buffers are stored out of time
// order, as Windows flushes them.
func interleaved() []byte {
	const t0 = 80000000000
	tf := etltest.NewFile(1024, true)
	tf.AddBuffer(1, t0+45, ev64(4, t0+40), ev64(6, t0+45))   // CPU 1, second buffer
	tf.AddBuffer(0, t0+30, ev64(1, t0+10), ev64(3, t0+30))   // CPU 0, first buffer
	tf.AddBuffer(1, t0+25, ev64(2, t0+20), ev64(20, t0+30))  // CPU 1, first buffer; ties with id 3
	tf.AddBuffer(0, t0+60, ev64(5, t0+42), ev64(7, t0+60))   // CPU 0, second buffer
	tf.AddBuffer(2, t0+100, ev64(8, t0+70), ev64(9, t0+100)) // CPU 2
	return tf.Bytes()
}

func TestTimeOrderMerge(t *testing.T) {
	f := open(t, interleaved())
	evs, errs := collect(t, []*etl.File{f}, etl.TimeOrder)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	// Equal timestamps (ids 3 and 20) keep file order: buffer 2 before 3.
	if got, want := ids(evs), []int{1, 2, 3, 20, 4, 5, 6, 7, 8, 9}; !equalInts(got, want) {
		t.Errorf("time order %v, want %v", got, want)
	}
	if evs[0].Header != etl.HeaderSystem64 || evs[0].Time != f.Header.StartTime {
		t.Errorf("first event is %v at %d, want the header at StartTime", evs[0].Header, evs[0].Time)
	}
	evs, _ = collect(t, []*etl.File{f}, etl.FileOrder)
	if got, want := ids(evs), []int{4, 6, 1, 3, 2, 20, 5, 7, 8, 9}; !equalInts(got, want) {
		t.Errorf("file order %v, want %v", got, want)
	}
}

func TestMultiFileMerge(t *testing.T) {
	a := etltest.NewFile(1024, true)
	a.AddBuffer(0, 0, ev64(1, 80000000010), ev64(3, 80000000030))
	b := etltest.NewFile(1024, true)
	// Another session: other raw clock origin, started 15 ticks later.
	b.TLH.HeaderTimestamp = 5000
	b.TLH.StartTime += 15
	b.AddBuffer(0, 0, ev64(2, 5000), ev64(4, 5020))
	fa, fb := open(t, a.Bytes()), open(t, b.Bytes())
	evs, _ := collect(t, []*etl.File{fa, fb}, etl.TimeOrder)
	if got, want := ids(evs), []int{1, 2, 3, 4}; !equalInts(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	for _, e := range evs {
		if e.Header == etl.HeaderEvent64 && e.File != int(e.Descriptor.ID+1)%2 {
			t.Errorf("event %d has File %d", e.Descriptor.ID, e.File)
		}
	}
	evs, _ = collect(t, []*etl.File{fa, fb}, etl.FileOrder)
	if got, want := ids(evs), []int{1, 3, 2, 4}; !equalInts(got, want) {
		t.Errorf("file order %v, want %v", got, want)
	}
}

func TestClockTypes(t *testing.T) {
	cases := []struct {
		name  string
		setup func(*etl.LogfileHeader)
		raw   int64
		want  int64 // FILETIME
	}{
		{"qpc-10MHz", func(h *etl.LogfileHeader) {}, 80000000000 + 12345, 132247862638609634 + 12345},
		{"qpc-2.3MHz", func(h *etl.LogfileHeader) { h.PerfFreq = 2337949 }, 80000000000 + 2337949*3 + 1, 132247862638609634 + 30000000 + 4},
		{"qpc-before-start", func(h *etl.LogfileHeader) { h.PerfFreq = 3 }, 80000000000 - 1, 132247862638609634 - 3333333},
		{"system-time", func(h *etl.LogfileHeader) { h.ReservedFlags = 2 }, 132247862638609999, 132247862638609999},
		{"cpu-cycle", func(h *etl.LogfileHeader) { h.ReservedFlags = 3; h.CPUSpeedMHz = 3000 }, 80000000000 + 3000000000, 132247862638609634 + 10000000},
	}
	for _, c := range cases {
		tf := etltest.NewFile(1024, true)
		c.setup(&tf.TLH)
		tf.AddBuffer(0, c.raw, ev64(1, c.raw))
		f := open(t, tf.Bytes())
		evs, _ := collect(t, []*etl.File{f}, etl.FileOrder)
		if got := evs[len(evs)-1].Time; got != c.want {
			t.Errorf("%s: FILETIME %d, want %d (off by %d)", c.name, got, c.want, got-c.want)
		}
	}
}

func TestCompressedBuffers(t *testing.T) {
	tf := etltest.NewFile(4096, true)
	tf.Compress = etltest.LiteralLZ77
	tf.AddBuffer(0, 80000000100, ev64(1, 80000000010), ev64(2, 80000000020))
	tf.AddBuffer(1, 80000000100, ev64(3, 80000000030))
	f := open(t, tf.Bytes())
	st := f.Scan()
	if st.Buffers != 3 || st.CompressedBuffers != 2 || st.Events != 5 || len(st.Errors) != 0 {
		t.Fatalf("stats %+v", st)
	}
	evs, _ := collect(t, []*etl.File{f}, etl.TimeOrder)
	if got := ids(evs); !equalInts(got, []int{1, 2, 3}) {
		t.Errorf("ids %v", got)
	}
}

// TestDamagedRecordResync: a damaged record costs only itself; the walk
// goes on at the next record of its buffer and says what it skipped.
func TestDamagedRecordResync(t *testing.T) {
	bad := ev64(2, 80000000020)
	bad[3] = 0x12 // not a trace header marker
	rec := (len(ev64(1, 0)) + 7) &^ 7
	for _, compressed := range []bool{false, true} {
		tf := etltest.NewFile(1024, true)
		if compressed {
			tf.Compress = etltest.LiteralLZ77
		}
		tf.AddBuffer(0, 0, ev64(1, 80000000010), bad, ev64(3, 80000000030))
		tf.AddBuffer(1, 0, ev64(4, 80000000040))
		f := open(t, tf.Bytes())
		evs, errs := collect(t, []*etl.File{f}, etl.TimeOrder)
		if got := ids(evs); !equalInts(got, []int{1, 3, 4}) {
			t.Errorf("compressed=%v: ids %v, want [1 3 4]", compressed, got)
		}
		var fe *etl.FormatError
		if len(errs) != 1 || !errors.As(errs[0], &fe) {
			t.Fatalf("errors %v", errs)
		}
		wantOff, wantRec := int64(1024+etl.BufferHeaderSize+rec), int64(-1)
		want := fmt.Sprintf("skipped %d bytes to the next record at %#x", rec, wantOff+int64(rec))
		if compressed {
			wantOff, wantRec = 1024, int64(etl.BufferHeaderSize+rec)
			want = fmt.Sprintf("skipped %d bytes to the next record at +%#x", rec, wantRec+int64(rec))
		}
		if fe.Offset != wantOff || fe.RecordOffset != wantRec || !strings.Contains(fe.Error(), "marker") || !strings.Contains(fe.Msg, want) {
			t.Errorf("compressed=%v: error %q at %#x/%#x, want %#x/%#x and %q", compressed, fe, fe.Offset, fe.RecordOffset, wantOff, wantRec, want)
		}
	}

	// A size that runs past the data: nothing plausible after it.
	bad = ev64(2, 80000000020)
	etltest.LE16(bad, 0x300)
	tf := etltest.NewFile(1024, true)
	tf.AddBuffer(0, 0, ev64(1, 80000000010), bad)
	evs, errs := collect(t, []*etl.File{open(t, tf.Bytes())}, etl.FileOrder)
	if got := ids(evs); !equalInts(got, []int{1}) || len(errs) != 1 || !strings.Contains(errs[0].Error(), fmt.Sprintf("skipped the %d bytes left in the buffer", rec)) {
		t.Errorf("ids %v errors %v", ids(evs), errs)
	}
}

func TestDamagedBufferHeaderResync(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	tf.AddBuffer(0, 0, ev64(1, 80000000010))
	tf.AddBuffer(0, 0, ev64(2, 80000000020))
	tf.AddBuffer(0, 0, ev64(3, 80000000030))
	b := tf.Bytes()
	etltest.LE32(b[2048:], 0xFFFFFFF0) // buffer 2's size: read as the log's
	f := open(t, b)
	st := f.Scan()
	if st.Events != 5 || st.Buffers != 4 || len(st.Errors) != 1 {
		t.Fatalf("stats %+v", st)
	}
	if fe := st.Errors[0].(*etl.FormatError); fe.Offset != 2048 || !strings.Contains(fe.Msg, "read as 0x400 bytes") {
		t.Errorf("error %v", fe)
	}
	// A header that nothing supports (no records after it) is skipped.
	copy(b[2048:3072], bytes.Repeat([]byte{0xEE}, 1024))
	f = open(t, b)
	st = f.Scan()
	if st.Events != 4 || st.Buffers != 3 || len(st.Errors) != 1 {
		t.Fatalf("stats %+v", st)
	}
	if fe := st.Errors[0].(*etl.FormatError); fe.Offset != 2048 || !strings.Contains(fe.Msg, "skipped 1024 bytes") {
		t.Errorf("error %v", fe)
	}

	// Compressed files are scanned for the next header.
	tf.Compress = etltest.LiteralLZ77
	b = tf.Bytes()
	second := 1024 + etl.BufferHeaderSize + len(etltest.LiteralLZ77(tf.Buffers[0][etl.BufferHeaderSize:]))
	etltest.LE32(b[second:], 3)
	f = open(t, b)
	evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
	if got := ids(evs); !equalInts(got, []int{1, 3}) || len(errs) != 1 {
		t.Errorf("compressed resync: ids %v errors %v", got, errs)
	}
}

func TestTruncatedFile(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	tf.AddBuffer(0, 0, ev64(1, 80000000010), ev64(2, 80000000020), ev64(3, 80000000030))
	b := tf.Bytes()
	cut := 1024 + etl.BufferHeaderSize + 2*((len(ev64(1, 0))+7)&^7) + 4
	f := open(t, b[:cut])
	evs, errs := collect(t, []*etl.File{f}, etl.TimeOrder)
	if got := ids(evs); !equalInts(got, []int{1, 2}) {
		t.Errorf("ids %v, want [1 2]", got)
	}
	if len(errs) != 2 || !errors.Is(errs[0], io.ErrUnexpectedEOF) {
		t.Errorf("errors %v, want truncation and a cut record", errs)
	}
}

// TestHeaderEventDamaged: one damaged field of the log-file header
// event's record header is reported and the file read; two make it not
// an ETL file.
func TestHeaderEventDamaged(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	tf.AddBuffer(0, 0, ev64(1, 80000000010))
	clean := tf.Bytes()
	for _, tc := range []struct {
		name string
		off  int
		v    []byte
	}{
		{"size", 4, []byte{0x40, 0}},
		{"type", 2, []byte{0x77}},
		{"hook", 6, []byte{0x00, 0x05}},
	} {
		b := append([]byte(nil), clean...)
		copy(b[etl.BufferHeaderSize+tc.off:], tc.v)
		f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if f.Header.LoggerName != "test session" || f.Header.BufferSize != 1024 || f.Header.HeaderTimestamp != 80000000000 {
			t.Errorf("%s: header %+v", tc.name, f.Header)
		}
		errs := f.IndexErrors()
		if len(errs) == 0 || errs[0].(*etl.FormatError).Offset != etl.BufferHeaderSize || !strings.Contains(errs[0].Error(), "log-file header event damaged") {
			t.Errorf("%s: errors %v", tc.name, errs)
		}
		if st := f.Scan(); st.Events < 2 {
			t.Errorf("%s: %d events", tc.name, st.Events)
		}
	}
	b := append([]byte(nil), clean...)
	etltest.LE16(b[etl.BufferHeaderSize+4:], 0x40) // size
	b[etl.BufferHeaderSize+7] = 5                  // and hook id
	if _, err := etl.NewFile(bytes.NewReader(b), int64(len(b))); !errors.Is(err, etl.ErrNotETL) {
		t.Errorf("two damaged fields: err = %v", err)
	}
}

// TestHeaderBufferOwnStream: a file whose header time is later than
// events of processor 0 (as new-file rotation writes) still merges in
// time order.
func TestHeaderBufferOwnStream(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	t0 := tf.TLH.HeaderTimestamp
	tf.AddBuffer(0, t0-5, ev64(1, t0-20), ev64(2, t0-10))
	tf.AddBuffer(0, t0+20, ev64(3, t0+10), ev64(4, t0+20))
	f := open(t, tf.Bytes())
	evs, _ := collect(t, []*etl.File{f}, etl.TimeOrder)
	for i := 1; i < len(evs); i++ {
		if evs[i].Time < evs[i-1].Time {
			t.Fatalf("event %d goes back in time: %d after %d", i, evs[i].Time, evs[i-1].Time)
		}
	}
	if got := ids(evs); !equalInts(got, []int{1, 2, 3, 4}) || evs[2].Header != etl.HeaderSystem64 {
		t.Errorf("order %v; header events at positions 2–3 expected", got)
	}
}

func TestClockSaturates(t *testing.T) {
	c := etl.NewClock(&etl.LogfileHeader{ReservedFlags: 1, PerfFreq: 3, StartTime: 132247862638609634})
	if got := c.FileTime(1<<62 + 7); got != 1<<63-1 {
		t.Errorf("huge timestamp: %d, want MaxInt64", got)
	}
	if got := c.FileTime(-(1 << 62)); got != -1<<63 {
		t.Errorf("huge negative timestamp: %d, want MinInt64", got)
	}
	if got := c.FileTime(3); got != 132247862638609634+10000000 {
		t.Errorf("one second: %d", got)
	}
}

func TestMaxBufferSizeIsProcessTraces(t *testing.T) {
	if etl.MaxBufferSize != 16<<20 {
		t.Errorf("MaxBufferSize = %#x, want 16 MiB (ProcessTrace's limit)", etl.MaxBufferSize)
	}
	if _, err := etl.NewWriter(io.Discard, &etl.WriterOptions{Header: testHeader(), BufferSize: 32 << 20}); err == nil {
		t.Error("a 32 MiB buffer size was accepted")
	}
}

// TestResyncAfterOvershootingSize: a compressed buffer whose size was
// damaged upward hides the next buffer's header; the walk finds it again.
func TestResyncAfterOvershootingSize(t *testing.T) {
	tf := etltest.NewFile(1024, true)
	tf.Compress = etltest.LiteralLZ77
	tf.AddBuffer(0, 0, ev64(1, 80000000010))
	tf.AddBuffer(0, 0, ev64(2, 80000000020))
	tf.AddBuffer(0, 0, ev64(3, 80000000030))
	tf.AddBuffer(0, 0, ev64(4, 80000000040))
	b := tf.Bytes()
	size := func(off int) int { return int(b[off]) | int(b[off+1])<<8 }
	second := 1024 + size(1024)
	etltest.LE32(b[second:], uint32(size(second)+40)) // overshoots into the third buffer
	f := open(t, b)
	evs, errs := collect(t, []*etl.File{f}, etl.FileOrder)
	if got := ids(evs); !equalInts(got, []int{1, 3, 4}) {
		t.Errorf("ids %v, want [1 3 4] (buffer 2 is lost, 3 is found again)", got)
	}
	if len(errs) != 2 {
		t.Errorf("errors %v, want the damaged buffer and the skipped bytes", errs)
	}
}

func TestClockRawTimestampInvertsFileTime(t *testing.T) {
	for _, freq := range []int64{2337949, 3117777, 10000000} {
		c := etl.NewClock(&etl.LogfileHeader{ReservedFlags: 1, PerfFreq: freq, StartTime: 132247862638609634, HeaderTimestamp: 80000000000})
		for _, d := range []int64{0, 1, 7, 12345, 3600 * freq, 400 * 86400 * freq, -5, -3600 * freq} {
			raw := 80000000000 + d
			if got := c.RawTimestamp(c.FileTime(raw)); got != raw {
				t.Errorf("freq %d: raw %d → %d → %d", freq, raw, c.FileTime(raw), got)
			}
		}
	}
	// A faster clock (cycle counter) cannot come back to the tick, but
	// FILETIME → raw → FILETIME is exact.
	c := etl.NewClock(&etl.LogfileHeader{ReservedFlags: 3, CPUSpeedMHz: 3000, StartTime: 132247862638609634, HeaderTimestamp: 1 << 40})
	for _, ft := range []int64{132247862638609634, 132247862638609635, 132247862638609634 + 400*86400*1e7} {
		if got := c.FileTime(c.RawTimestamp(ft)); got != ft {
			t.Errorf("cycle clock: %d → %d → %d", ft, c.RawTimestamp(ft), got)
		}
	}
}
