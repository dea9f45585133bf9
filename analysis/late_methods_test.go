package analysis

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestLateMethods checks, on every corpus trace at GOMAXPROCS 2 (where
// the methods are added on a goroutine of their own), that a model built
// with Options.LateMethods gives the profile of one built without, both
// through the split collecting pass (whose reading starts before the
// methods are all added) and through EachSelected, and holds the same
// methods once WaitMethods returns.
//
// In the split pass, the methods' goroutine is held back at its end
// until the pass has read 2,000 events (or all of a shorter trace), so that the reading
// runs ahead of it: the race detector (go test -race) then reports an
// enricher that reads the methods before WaitMethods. (No corpus trace
// has a CPU sample in a .NET method, so the profiles alone could not
// tell.)
func TestLateMethods(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() { methodsDoneHook = nil }()
	dec := clrDecoder(t)
	methods := 0
	eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
		ref, _ := Build(files, dec, nil)
		want, wst, _ := ref.CollectWeighted(files, dec, nil, nil)
		var wb bytes.Buffer
		if err := want.WriteFolded(&wb); err != nil {
			t.Fatal(err)
		}
		folded := func(p *Profile) []byte {
			var b bytes.Buffer
			if err := p.WriteFolded(&b); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}
		release := make(chan struct{})
		methodsDoneHook = func() { <-release }
		late, _ := Build(files, dec, &Options{LateMethods: true})
		if !late.methodsPending() { // the hook holds them back
			t.Fatal("Options.LateMethods: Build returned after the methods were added")
		}
		read, ahead := 0, min(2000, late.Events)
		if ahead == 0 {
			close(release)
		}
		count := func(*etl.Event, *decode.Result) {
			if read++; read == ahead {
				close(release)
			}
		}
		got, gst, _ := late.CollectWeighted(files, dec, &CollectOptions{Observe: count}, nil)
		methodsDoneHook = nil
		if gst != wst || !bytes.Equal(folded(got), wb.Bytes()) {
			t.Errorf("split pass: stats %+v, want %+v; folded profiles equal: %v", gst, wst, bytes.Equal(folded(got), wb.Bytes()))
		}
		late, _ = Build(files, dec, &Options{LateMethods: true})
		each := NewProfile()
		// (The error is the damaged buffers', which the reference met too.)
		_, _ = late.EachSelected(files, dec, &CollectOptions{}, func(a *Annotation) error {
			each.Add(a.Process, a.PID, a.Stack, 1)
			return nil
		})
		if !bytes.Equal(folded(each), wb.Bytes()) {
			t.Error("EachSelected: the folded profile differs")
		}
		late.WaitMethods()
		methods += compareMethods(t, ref, late)
	})
	if methods == 0 {
		t.Error("no trace had a .NET method: nothing was compared")
	}
}

// TestWaitMethodsPanic: a panic of the goroutine adding the .NET methods
// of a model built with Options.LateMethods is raised by WaitMethods, on
// every call, rather than lost; a nil model has nothing to wait for.
func TestWaitMethodsPanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() { methodsDoneHook = nil }()
	files := openCorpus(t, netFile)
	methodsDoneHook = func() { panic("adding the methods failed") }
	m, err := Build(files, clrDecoder(t), &Options{LateMethods: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("call %d: WaitMethods returned without the goroutine's panic", i+1)
				} else if !strings.Contains(fmt.Sprint(r), "adding the methods failed") {
					t.Errorf("call %d: panic %v, want the goroutine's", i+1, r)
				}
			}()
			m.WaitMethods()
		}()
	}
	var none *Model
	none.WaitMethods()
}

// TestSelectedWalkerWaitsMethods: NewSelectedWalker, whose walk resolves
// frames, returns only once the methods of a model built with
// Options.LateMethods are all added, as EachSelected waits for them.
func TestSelectedWalkerWaitsMethods(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() { methodsDoneHook = nil }()
	files := openCorpus(t, netFile)
	release := make(chan struct{})
	methodsDoneHook = func() { <-release }
	m, err := Build(files, clrDecoder(t), &Options{LateMethods: true})
	if err != nil {
		t.Fatal(err)
	}
	if !m.methodsPending() { // the hook holds them back
		t.Fatal("Options.LateMethods: Build returned after the methods were added")
	}
	time.AfterFunc(50*time.Millisecond, func() { close(release) })
	m.NewSelectedWalker(nil, func(*Annotation) error { return nil })
	if m.methodsPending() {
		t.Error("NewSelectedWalker returned while the methods were still being added")
	}
}

// TestStackResolverWaitsMethods: a StackResolver, on a model built with
// Options.LateMethods, resolves a stack only once the methods are all
// added, and an annotation without one at once.
func TestStackResolverWaitsMethods(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() { methodsDoneHook = nil }()
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	release := make(chan struct{})
	var once sync.Once
	releaseOnce := func() { once.Do(func() { close(release) }) }
	defer releaseOnce()
	methodsDoneHook = func() { <-release }
	m, err := Build(files, dec, &Options{LateMethods: true})
	if err != nil {
		t.Fatal(err)
	}
	if !m.methodsPending() { // the hook holds them back
		t.Fatal("Options.LateMethods: Build returned after the methods were added")
	}
	// An annotation without a stack and one with, from an enricher (which
	// resolves nothing itself).
	var bare, stacked *Annotation
	var addrs, stack []uint64
	e := m.NewEnricher(nil)
	r := etl.NewReader(files, nil)
	for r.Next() && stacked == nil {
		e.PushDecoding(r.Event(), dec)
		for stacked == nil {
			a, got, ok := e.NextAddrs(addrs[:0])
			if !ok {
				break
			}
			addrs = got
			if len(got) == 0 && bare == nil {
				bare = new(Annotation)
				*bare = *a
			} else if len(got) > 0 {
				stacked = new(Annotation)
				*stacked = *a
				stack = slices.Clone(got)
			}
		}
	}
	r.Close()
	if bare == nil || stacked == nil {
		t.Fatal("no annotation without a stack, or none with one")
	}
	var sr StackResolver
	time.AfterFunc(200*time.Millisecond, releaseOnce)
	if frames := sr.Resolve(bare, nil, nil); len(frames) != 0 || !m.methodsPending() {
		t.Errorf("no stack: %d frames, methods pending %v; want none, at once", len(frames), m.methodsPending())
	}
	frames := sr.Resolve(stacked, stack, nil)
	if m.methodsPending() {
		t.Error("Resolve returned a stack while the methods were still being added")
	}
	if len(frames) != len(stack) {
		t.Errorf("%d frames for %d addresses", len(frames), len(stack))
	}
}

// TestLateMethodsAnnotationsOnly: the dumps' model (AnnotationsOnly with
// LateMethods, at GOMAXPROCS 2) is returned while its .NET methods are
// still being added, and once WaitMethods returns holds the methods of
// the model built without LateMethods.
func TestLateMethodsAnnotationsOnly(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func() { methodsDoneHook = nil }()
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	ref, _ := Build(files, dec, &Options{AnnotationsOnly: true})
	release := make(chan struct{})
	methodsDoneHook = func() { <-release }
	late, _ := Build(files, dec, &Options{AnnotationsOnly: true, LateMethods: true})
	if !late.methodsPending() { // the hook holds them back
		t.Fatal("AnnotationsOnly with LateMethods: Build returned after the methods were added")
	}
	close(release)
	late.WaitMethods()
	if compareMethods(t, ref, late) == 0 {
		t.Error("no .NET method: nothing was compared")
	}
}

// compareMethods reports the processes of late whose methods differ from
// ref's (late's methods all added), and returns how many ref has.
func compareMethods(t *testing.T, ref, late *Model) int {
	t.Helper()
	rp, lp := ref.Processes(), late.Processes()
	if len(rp) != len(lp) {
		t.Fatalf("%d processes, want %d", len(lp), len(rp))
	}
	methods := 0
	for i := range rp {
		rm, lm := rp[i].Methods(), lp[i].Methods()
		methods += len(rm)
		if len(rm) != len(lm) {
			t.Errorf("process %v: %d methods, want %d", rp[i], len(lm), len(rm))
			continue
		}
		for j := range rm {
			if *rm[j] != *lm[j] {
				t.Errorf("process %v: method %d is %+v, want %+v", rp[i], j, *lm[j], *rm[j])
				break
			}
		}
	}
	return methods
}

// TestHandsMethod: with LateMethods the model pass hands every method
// event's decoding to the methods' goroutine, but with AnnotationsOnly
// (the dumps', whose pass needs the methods at its first stack) only
// while that goroutine keeps up, as without LateMethods.
func TestHandsMethod(t *testing.T) {
	for _, annOnly := range []bool{false, true} {
		b := NewBuilder(&Options{AnnotationsOnly: annOnly})
		q := &methodQueue{full: make(chan *methodBatch, methodBatches)}
		b.methods = q
		for _, late := range []bool{false, true} {
			if !b.handsMethod(late) {
				t.Errorf("AnnotationsOnly %v, late %v: the queue keeps up, but the reading goroutine decodes", annOnly, late)
			}
		}
		q.full <- new(methodBatch)
		q.full <- new(methodBatch) // two full batches wait: it falls behind
		if b.handsMethod(false) {
			t.Errorf("AnnotationsOnly %v: the queue falls behind, but takes the decoding", annOnly)
		}
		if got, want := b.handsMethod(true), !annOnly; got != want {
			t.Errorf("AnnotationsOnly %v, LateMethods, the queue behind: hands the decoding %v, want %v", annOnly, got, want)
		}
	}
}
