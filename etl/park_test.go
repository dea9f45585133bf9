package etl_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// seqTrace is a trace of two processors whose events begin at from (raw
// ticks), four buffers each; damage puts a damaged record at the start
// of processor 1's first buffer.
func seqTrace(from int64, damage bool) []byte {
	tf := etltest.NewFile(4096, false)
	ts := from
	id := uint16(from / 1000)
	for buf := 0; buf < 4; buf++ {
		for cpu := uint16(0); cpu < 2; cpu++ {
			var recs [][]byte
			if damage && buf == 0 && cpu == 1 {
				bad := ev64(id, ts)
				bad[3] = 0x12 // not a trace header marker
				recs = append(recs, bad)
			}
			for range 20 {
				id++
				ts += 10
				recs = append(recs, ev64(id, ts))
			}
			tf.AddBuffer(cpu, ts, recs...)
		}
	}
	return tf.Bytes()
}

// tagPrep tags each buffer's Prepared value with the buffer's index, to
// check that each event comes with its own buffer's.
type tagPrep struct{ live atomic.Int64 }

type tag struct {
	p   *tagPrep
	buf int
}

func (p *tagPrep) Prepare(b *etl.Buffer, file int) etl.Prepared {
	p.live.Add(1)
	return &tag{p, b.Index}
}

func (t *tag) Release() { t.p.live.Add(-1) }

type parkRun struct {
	events []string
	errs   []string
	hooked int64
	whole  int
}

func readParked(t *testing.T, traces [][]byte, park, prepare bool) parkRun {
	var files []*etl.File
	var run parkRun
	var hooked atomic.Int64
	for _, data := range traces {
		f := open(t, data)
		f.SetReadHook(func(n int64) { hooked.Add(n) })
		files = append(files, f)
	}
	opts := &etl.ReaderOptions{Order: etl.TimeOrder, Workers: 2}
	prep := &tagPrep{}
	if prepare {
		opts.Prepare = prep
	}
	r := etl.NewReader(files, opts)
	etl.SetReaderPark(r, park)
	for r.Next() {
		ev := r.Event()
		run.events = append(run.events, fmt.Sprintf("%d %d %d %d %d %x", ev.File, ev.BufferIndex, ev.RecordOffset, ev.Time, ev.Descriptor.ID, ev.UserData))
		if prepare {
			p, _ := r.Prepared()
			if tg, ok := p.(*tag); !ok || tg.buf != ev.BufferIndex {
				t.Fatalf("event of buffer %d came with %v prepared", ev.BufferIndex, p)
			}
		}
		whole, _ := etl.HeldBuffers(r)
		run.whole = max(run.whole, whole)
	}
	for _, err := range r.Errors() {
		run.errs = append(run.errs, err.Error())
	}
	r.Close()
	if n := prep.live.Load(); n != 0 {
		t.Errorf("%d prepared values not released", n)
	}
	run.hooked = hooked.Load()
	return run
}

// TestReaderParked: a merge of many streams that starts them parked
// delivers the same events, prepared values and errors as one that holds
// every stream's buffer from the start, reports each buffer to the read
// hook once, and over inputs recorded one after another holds the
// buffers of about one input at a time, not of all of them.
func TestReaderParked(t *testing.T) {
	const inputs = 12 // 36 streams (two processors and the header buffers each)
	size := int64(0)
	var seq, same [][]byte
	for k := range inputs {
		seq = append(seq, seqTrace(int64(1000000+k*100000), k%5 == 2))
		same = append(same, seqTrace(1000000, k%5 == 2))
		size += int64(len(seq[k]))
	}
	for _, c := range []struct {
		name   string
		traces [][]byte
		seq    bool
	}{{"one after another", seq, true}, {"at the same time", same, false}} {
		for _, prepare := range []bool{false, true} {
			on := readParked(t, c.traces, true, prepare)
			off := readParked(t, c.traces, false, prepare)
			if len(on.events) < inputs*160 || !slices.Equal(on.events, off.events) {
				t.Fatalf("%s: %d events parked, %d not (or in another order)", c.name, len(on.events), len(off.events))
			}
			if len(on.errs) != 2 || !slices.Equal(on.errs, off.errs) {
				t.Fatalf("%s: errors parked\n%q\nnot\n%q", c.name, on.errs, off.errs)
			}
			if on.hooked != size || off.hooked != size {
				t.Errorf("%s: read hook %d bytes parked, %d not, files %d", c.name, on.hooked, off.hooked, size)
			}
			if c.seq && (on.whole > 6 || off.whole < 2*inputs) {
				t.Errorf("%s: at most %d streams held a buffer parked, %d not", c.name, on.whole, off.whole)
			}
			t.Logf("%s, prepare %v: at most %d streams held a buffer parked, %d not", c.name, prepare, on.whole, off.whole)
		}
	}
}

// TestCorpusReaderParked: every real and hostile trace merged at once
// (hundreds of streams) gives the same events, prepared values and
// errors with its streams started parked as without, whole and in
// windows.
func TestCorpusReaderParked(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	paths := etltest.CorpusAndAttackTraces(t)
	read := func(park bool, opts etl.ReaderOptions) (sum string, n int, errs []string) {
		var files []*etl.File
		for _, p := range paths {
			f, err := etl.Open(p)
			if err != nil {
				continue
			}
			defer f.Close()
			files = append(files, f)
		}
		prep := &tagPrep{}
		if opts.Prepare != nil {
			opts.Prepare = prep
		}
		r := etl.NewReader(files, &opts)
		etl.SetReaderPark(r, park)
		h := sha256.New()
		for r.Next() {
			ev := r.Event()
			fmt.Fprintf(h, "%d %d %d %d %d %d %x\n", ev.File, ev.BufferIndex, ev.RecordOffset, ev.Time, ev.Processor, ev.Descriptor.ID, ev.Raw)
			if opts.Prepare != nil {
				if p, _ := r.Prepared(); p != nil && p.(*tag).buf != ev.BufferIndex {
					t.Fatalf("event of buffer %d came with buffer %d's prepared value", ev.BufferIndex, p.(*tag).buf)
				}
			}
			n++
		}
		for _, err := range r.Errors() {
			errs = append(errs, err.Error())
		}
		r.Close()
		if k := prep.live.Load(); k != 0 {
			t.Errorf("%d prepared values not released", k)
		}
		return hex.EncodeToString(h.Sum(nil)), n, errs
	}
	for _, c := range []struct {
		name string
		opts etl.ReaderOptions
	}{
		{"whole", etl.ReaderOptions{}},
		{"windows", etl.ReaderOptions{Windows: true}},
		{"prepared", etl.ReaderOptions{Prepare: &tagPrep{}}},
	} {
		on, n, errsOn := read(true, c.opts)
		off, m, errsOff := read(false, c.opts)
		if on != off || n != m || n == 0 {
			t.Errorf("%s: %d events parked, %d not, or in another order", c.name, n, m)
		}
		if !slices.Equal(errsOn, errsOff) {
			t.Errorf("%s: %d errors parked, %d not, or others", c.name, len(errsOn), len(errsOff))
		}
		t.Logf("%s: %d traces, %d events, %d errors", c.name, len(paths), n, len(errsOn))
	}
}

// changing is a file whose bytes at off change after they have been read
// twice (the index's read of the buffer's header, then its first load: a
// file rewritten under the reader while the buffer was parked). Its
// bytes.Reader reads data in place.
type changing struct {
	*bytes.Reader
	data []byte
	off  int64
	mu   sync.Mutex
	read int
}

func (c *changing) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if off == c.off {
		if c.read++; c.read == 3 {
			end := min(len(c.data), int(off)+4096)
			for i := int(off) + 64; i < end; i++ {
				c.data[i] = 0xFF // the buffer's records destroyed
			}
		}
	}
	return c.Reader.ReadAt(p, off)
}

// TestReaderParkedChanged: a parked buffer that does not give its first
// event again when loaded again (its file rewritten meanwhile) costs that
// buffer's events, reported as damage, not the merge: the other inputs'
// events all come, in time order.
func TestReaderParkedChanged(t *testing.T) {
	const inputs = 12
	var files []*etl.File
	for k := range inputs {
		data := seqTrace(int64(1000000+k*100000), false)
		var ra io.ReaderAt = bytes.NewReader(data)
		if k == 5 {
			f := open(t, data)
			ra = &changing{Reader: bytes.NewReader(data), data: data, off: f.Buffers()[1].FileOffset} // processor 0's first buffer
		}
		f, err := etl.NewFile(ra, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	r := etl.NewReader(files, &etl.ReaderOptions{Order: etl.TimeOrder, Workers: 2})
	defer r.Close()
	perFile := make([]int, inputs)
	last := int64(0)
	for r.Next() {
		ev := r.Event()
		if ev.Time < last {
			t.Fatalf("event of file %d at %d after one at %d", ev.File, ev.Time, last)
		}
		last = ev.Time
		perFile[ev.File]++
	}
	for k, n := range perFile {
		if k != 5 && n != perFile[0] {
			t.Errorf("file %d: %d events, file 0 %d", k, n, perFile[0])
		}
	}
	if perFile[5] >= perFile[0] || len(r.Errors()) == 0 {
		t.Errorf("the changed file gave %d events of %d, %d errors", perFile[5], perFile[0], len(r.Errors()))
	}
	t.Logf("changed file: %d events of %d; errors %v", perFile[5], perFile[0], r.Errors())
}
