package analysis

import (
	"fmt"
	"hash/fnv"
	"slices"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// TestAnnotationsOnly checks, on every corpus trace at GOMAXPROCS 1 and 2
// (the model pass decodes ahead and adds the methods on a goroutine of
// its own only with two), that a model built with
// Options.AnnotationsOnly, by Build (with NoImageIDs, as the dumps
// without symbols build it) and through a Builder, gives every event the
// annotation a full model gives it (pid, tid, process name, every frame
// of its stack: address, module, offset, method), and has the same named
// processes (what driver.SelectProcesses reads, also of such a model
// with NoMethods, which the dumps without annotations build for
// --process); that it lacks what the options leave out, which
// net.4.5.2's full model has; and that a full model with NoImageIDs
// alone keeps the annotations and the counts.
func TestAnnotationsOnly(t *testing.T) {
	atOneAndTwoProcs(t, func(t *testing.T) {
		events := 0
		eachCorpusTrace(t, func(t *testing.T, files []*etl.File) {
			full, _ := Build(files, decode.New(), nil)
			want := annotationHashes(files, full)
			dump, _ := Build(files, decode.New(), &Options{AnnotationsOnly: true, NoImageIDs: true})
			fed := feedBuilder(files, &Options{AnnotationsOnly: true, PointerSize: int(files[0].Header.PointerSize)})
			for name, m := range map[string]*Model{"Build": dump, "Builder": fed} {
				if got := annotationHashes(files, m); !slices.Equal(got, want) {
					t.Errorf("%s: annotations differ from the full model's: %s", name, firstDiff(got, want))
				}
				if g, w := namedProcesses(m), namedProcesses(full); !slices.Equal(g, w) {
					t.Errorf("%s: named processes %q, want %q", name, g, w)
				}
				lacks(t, name, m)
			}
			sel, _ := Build(files, decode.New(), &Options{AnnotationsOnly: true, NoImageIDs: true, NoMethods: true})
			if g, w := namedProcesses(sel), namedProcesses(full); !slices.Equal(g, w) {
				t.Errorf("AnnotationsOnly, NoMethods: named processes %q, want %q", g, w)
			}
			noIDs := feedBuilder(files, &Options{NoImageIDs: true, PointerSize: int(files[0].Header.PointerSize)})
			if got := annotationHashes(files, noIDs); !slices.Equal(got, want) {
				t.Errorf("NoImageIDs: annotations differ from the full model's: %s", firstDiff(got, want))
			}
			if noIDs.Events != full.Events || noIDs.CPUSamples != full.CPUSamples || noIDs.Unattributed != full.Unattributed {
				t.Errorf("NoImageIDs: %d events, %d CPU samples, %d unattributed, want %d, %d, %d",
					noIDs.Events, noIDs.CPUSamples, noIDs.Unattributed, full.Events, full.CPUSamples, full.Unattributed)
			}
			for _, im := range allImages(dump) {
				if im.PDB() != (PDB{}) {
					t.Fatalf("NoImageIDs: image %s keeps its PDB identity", im.Path)
				}
			}
			events += len(want)
			if full.CPUSamples > 0 { // net.4.5.2: what the dump's model lacks
				gc, sig, pdbs := 0, 0, 0
				for _, im := range allImages(full) {
					if im.PDB() != (PDB{}) {
						pdbs++
					}
				}
				for _, p := range full.Processes() {
					if p.GC != nil {
						gc++
					}
					for _, mt := range p.Methods() {
						if mt.Signature != "" {
							sig++
						}
					}
				}
				t.Logf("full model: %d CPU samples, %d processes with GC statistics, %d methods with a signature, %d volumes, %d images with a PDB identity; AnnotationsOnly and NoImageIDs: none of them",
					full.CPUSamples, gc, sig, len(full.Volumes()), pdbs)
				if gc == 0 || sig == 0 || pdbs == 0 {
					t.Error("the full model has no GC statistics, method signatures or PDB identities: nothing to leave out")
				}
			}
		})
		if events < 179474 {
			t.Errorf("%d events compared, want net.4.5.2's 179,474 at least", events)
		}
	})
}

// lacks checks that m, built with Options.AnnotationsOnly, holds none of
// what the option leaves out.
func lacks(t *testing.T, name string, m *Model) {
	t.Helper()
	if m.CPUSamples != 0 || m.Unattributed != 0 || len(m.Volumes()) != 0 {
		t.Errorf("%s: CPUSamples %d, Unattributed %d, %d volumes: want none", name, m.CPUSamples, m.Unattributed, len(m.Volumes()))
	}
	for _, p := range m.Processes() {
		if p.Events != 0 || p.CPUSamples != 0 || p.CLR || p.GC != nil {
			t.Errorf("%s: %v has counts or GC statistics", name, p)
		}
		for _, mt := range p.Methods() {
			if mt.Signature != "" {
				t.Fatalf("%s: method %s keeps its signature", name, mt.FullName())
			}
		}
	}
}

// allImages returns the images of m: the kernel's and every process's.
func allImages(m *Model) []*Image {
	out := m.KernelImages()
	for _, p := range m.Processes() {
		out = append(out, p.Images()...)
	}
	return out
}

// feedBuilder builds the model of files through a Builder, decoding what
// NeedsDecode asks for.
func feedBuilder(files []*etl.File, opts *Options) *Model {
	dec := decode.New()
	b := NewBuilder(opts)
	r := etl.NewReader(files, nil)
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		var res *decode.Result
		if b.NeedsDecode(ev) {
			res = dec.Decode(ev)
		}
		b.Observe(ev, res)
	}
	return b.Model()
}

// annotationHashes returns a hash of each event's annotation by m: what
// the JSON and Parquet dumps write of it.
func annotationHashes(files []*etl.File, m *Model) []uint64 {
	var out []uint64
	var line []byte
	enrichEach(files, decode.New(), m, nil, func(a *Annotation) {
		line = appendAnnotation(line[:0], a)
		h := fnv.New64a()
		h.Write(line)
		out = append(out, h.Sum64())
	})
	return out
}

func appendAnnotation(b []byte, a *Annotation) []byte {
	b = fmt.Appendf(b, "%d %d", a.PID, a.TID)
	if p := a.ProcessOf(a.PID); p != nil {
		b = fmt.Appendf(b, " %q", p.ImageFileName)
	}
	for i := range a.Stack {
		f := &a.Stack[i]
		b = fmt.Appendf(b, " %x", f.Address)
		if f.Image != nil {
			b = fmt.Appendf(b, "=%s+%x", f.Image.FileName(), f.Offset)
		}
		if f.Method != nil {
			b = fmt.Appendf(b, "@%s", f.Method.FullName())
		}
	}
	return b
}

// namedProcesses lists the processes of m that have an image name.
func namedProcesses(m *Model) []string {
	var out []string
	for _, p := range m.Processes() {
		if p.ImageFileName != "" || p.Name != "" {
			out = append(out, fmt.Sprintf("%d %s %s %d %d", p.PID, p.ImageFileName, p.Name, p.start, p.end))
		}
	}
	return out
}

func firstDiff(got, want []uint64) string {
	if i := firstDiffAt(got, want); i >= 0 && i < min(len(got), len(want)) {
		return fmt.Sprintf("event %d first (of %d, %d)", i, len(got), len(want))
	}
	return fmt.Sprintf("%d annotations, want %d", len(got), len(want))
}

// firstDiffAt returns the first index at which got and want differ (the
// shorter one's length if one is a prefix of the other), or -1.
func firstDiffAt[T comparable](got, want []T) int {
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			return i
		}
	}
	return -1
}
