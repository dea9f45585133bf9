package report

import (
	"bytes"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/pipeline"
)

// TestEventBatchCopies: a batch's copy of an event holds the event's
// bytes after the reader's buffer is overwritten; the payload and the
// extended items that lie in the record are the same bytes of the
// record's copy, and those that do not are copied on their own.
func TestEventBatchCopies(t *testing.T) {
	buf := make([]byte, 256)
	for i := range buf {
		buf[i] = byte(i)
	}
	raw := buf[16:144]
	apart := []byte("elsewhere")
	ev := etl.Event{ProcessID: 7, Raw: raw, UserData: buf[80:144],
		Extended: []etl.ExtendedItem{{Type: 1, Data: buf[32:48]}, {Type: 2, Data: apart}}}
	var b eventBatch
	b.add(&etl.Event{ProcessID: 1}) // no bytes at all
	b.add(&ev)
	want := bytes.Clone(buf)
	wantApart := bytes.Clone(apart)
	clear(buf)
	clear(apart)
	if len(b.evs) != 2 || b.evs[0].Raw != nil || b.evs[0].UserData != nil || b.evs[0].Extended != nil {
		t.Fatalf("first copy %+v", b.evs[0])
	}
	c := &b.evs[1]
	if c.ProcessID != 7 || !bytes.Equal(c.Raw, want[16:144]) || !bytes.Equal(c.UserData, want[80:144]) ||
		!bytes.Equal(c.Extended[0].Data, want[32:48]) || !bytes.Equal(c.Extended[1].Data, wantApart) ||
		c.Extended[0].Type != 1 || c.Extended[1].Type != 2 {
		t.Fatalf("copy %+v", c)
	}
	if &c.UserData[0] != &c.Raw[64] || &c.Extended[0].Data[0] != &c.Raw[16] {
		t.Error("the payload or an extended item in the record is not the record copy's bytes")
	}
	if cap(c.UserData) != len(c.UserData) {
		t.Errorf("payload copy's capacity %d past its %d bytes", cap(c.UserData), len(c.UserData))
	}
	b.reset()
	if len(b.evs) != 0 || len(b.data) != 0 || len(b.ext) != 0 {
		t.Error("reset kept events")
	}
}

type panicObserver struct{ after int }

func (p *panicObserver) observe(*etl.Event, *decode.Result) {
	if p.after--; p.after < 0 {
		panic("observer failed")
	}
}

// TestPassSharedPanic: a panic on one of the shared pass's consumers
// reaches the goroutine that runs the pass as a *panicerr.Error, once
// the reading is over (no consumer waits forever), whether the
// observers' side or the header observers' side (beside the CPU
// samples' walk) panics.
func TestPassSharedPanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, header := range []bool{false, true} {
		f := openBytes(synthTrace())
		files := []*etl.File{f}
		dec := decode.New()
		m, _, err := pipeline.Prepare(files, dec)
		if err != nil {
			t.Fatal(err)
		}
		o := (*Options)(nil).withDefaults()
		c := &collector{o: &o, m: m, files: files}
		c.prepare()
		var ob observer = &panicObserver{after: 3}
		if header {
			ob = &headerPanicObserver{panicObserver{after: 3}}
		}
		c.observers = append(c.observers, ob)
		func() {
			defer func() {
				pe, ok := recover().(*panicerr.Error)
				if !ok || !strings.Contains(pe.Error(), "observer failed") {
					t.Errorf("header %v: recovered %v, want the observer's panic", header, pe)
				}
			}()
			c.pass(dec)
			t.Errorf("header %v: the pass returned", header)
		}()
	}
}

type headerPanicObserver struct{ panicObserver }

func (*headerPanicObserver) headerOnly() {}

// TestPassSharedPanicStopsReading: after a consumer's panic the shared
// pass stops reading the trace (a consumer's failure on a large trace is
// reported at once, not after the rest is read for nothing): on
// net.4.5.2 it reads far fewer bytes than the model's pass did.
func TestPassSharedPanicStopsReading(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	f, err := etl.Open(corpusFile(t, netRel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := []*etl.File{f}
	dec := decode.New()
	var read atomic.Int64
	f.SetReadHook(func(n int64) { read.Add(n) })
	m, _, err := pipeline.Prepare(files, dec)
	if err != nil {
		t.Fatal(err)
	}
	whole := read.Swap(0)
	o := (*Options)(nil).withDefaults()
	c := &collector{o: &o, m: m, files: files}
	c.prepare()
	c.observers = append(c.observers, &panicObserver{after: 3})
	func() {
		defer func() {
			if _, ok := recover().(*panicerr.Error); !ok {
				t.Error("no panic from the pass")
			}
		}()
		c.pass(dec)
	}()
	if got := read.Load(); got*4 > whole {
		t.Errorf("the pass read %d bytes after the panic at the third event, the trace is %d", got, whole)
	}
}
