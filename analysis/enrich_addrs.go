package analysis

// A pass that hands annotations to other goroutines (package pipeline's
// workers) takes them from [Enricher.NextAddrs] with their stacks'
// addresses, which are smaller to carry than frames, and has each
// goroutine resolve them with a [StackResolver] of its own: the reading
// goroutine, which feeds the enricher in time order, then resolves
// nothing.

// NextAddrs is [Enricher.Next] without resolving the stack: it returns
// the annotation (its Stack nil) and appends the addresses of the event's
// stack, innermost first, to dst. A [StackResolver] gives their frames,
// the Stack that Next would have set. The annotation is valid until the
// next call to Next, NextAddrs or Push.
func (e *Enricher) NextAddrs(dst []uint64) (*Annotation, []uint64, bool) {
	s := e.nextSlot()
	if s == nil {
		return nil, dst, false
	}
	s.annotate(&e.ann, e.m)
	return &e.ann, e.stackAddrs(s, dst), true
}

// Brief is an event's annotation without its stack: 40 bytes against
// an [Annotation]'s 88, for a pass that carries annotations from the
// enricher's goroutine to others (package pipeline's batches, which
// write and read one per event). [Enricher.NextBrief] hands them out;
// Expand gives the annotation back.
type Brief struct {
	// Seq, PID, TID and Process are the annotation's.
	Seq      int64
	Process  *Process
	PID, TID uint32

	m  *Model
	ft int64
}

// NextBrief is [Enricher.NextAddrs] setting *b to the brief of the
// annotation rather than handing out the annotation: a caller that
// keeps the briefs (package pipeline's batches) has them written once,
// where they are kept. *b is left alone when there is none.
func (e *Enricher) NextBrief(b *Brief, dst []uint64) ([]uint64, bool) {
	s := e.nextSlot()
	if s == nil {
		return dst, false
	}
	// Field by field: a composite literal goes through a temporary on
	// the stack, copied by 16-byte loads across the 8- and 4-byte stores
	// that filled it, which stall the goroutine until every store before
	// them is written out (session 13, perf annotate).
	b.Seq, b.Process, b.PID, b.TID, b.m, b.ft = s.seq, s.proc, s.pid, s.tid, e.m, s.ft
	return e.stackAddrs(s, dst), true
}

// Expand sets a to the annotation b is the brief of, without its stack
// (what [Enricher.NextAddrs] gives).
func (b *Brief) Expand(a *Annotation) {
	a.Seq, a.PID, a.TID, a.Process, a.Stack, a.m, a.ft = b.Seq, b.PID, b.TID, b.Process, nil, b.m, b.ft
	a.stackID, a.stackAt, a.stackLen = 0, nil, 0
}

// annotation returns the annotation of s, without its stack (annotate's).
func (s *slot) annotation(m *Model) Annotation {
	var a Annotation
	s.annotate(&a, m)
	return a
}

// annotate sets a to the annotation of s, without its stack: field by
// field, which spares NextAddrs building a temporary and copying it.
func (s *slot) annotate(a *Annotation, m *Model) {
	a.Seq, a.PID, a.TID, a.Process, a.Stack, a.m, a.ft = s.seq, s.pid, s.tid, s.proc, nil, m, s.ft
	a.stackID, a.stackAt, a.stackLen = 0, nil, 0
}

// StackResolver resolves the addresses of events' stacks to frames
// through caches of its own, one per goroutine: frames (256 KiB once
// used, half an enricher's: goroutines that share the events between
// them share the work) and whole stacks (about 210 KB: see
// [Annotation.StackID]). The zero value is ready to use.
type StackResolver struct {
	cache  frameCache
	stacks stackMemo
}

// stackResolverBits sizes a StackResolver's cache.
const stackResolverBits = frameCacheBits - 1

// Resolve appends to dst the frames of addrs, the stack of the event a
// annotates, as [Enricher.NextAddrs] returned them: the Stack that
// [Enricher.Next] gives. It waits for the model's .NET methods
// ([Model.WaitMethods]) when it has stack addresses to resolve. Setting
// a's Stack to the frames appended (dst[len(dst):] of the result) gives
// a its [Annotation.StackID].
func (r *StackResolver) Resolve(a *Annotation, addrs []uint64, dst []Frame) []Frame {
	a.stackID, a.stackAt, a.stackLen = 0, nil, 0
	if a.m == nil {
		for _, x := range addrs {
			dst = append(dst, Frame{Address: x})
		}
		return dst
	}
	if len(addrs) == 0 {
		return dst
	}
	a.m.WaitMethods()
	if r.cache.bits == 0 {
		r.cache.bits = stackResolverBits
	}
	n := len(dst)
	h := hashStack(a.Process, addrs)
	if frames, id, ok := r.stacks.get(a.m, a.Process, addrs, h); ok {
		dst = append(dst, frames...)
		a.setStackID(id, dst[n:])
		return dst
	}
	dst, stable := r.cache.resolveAll(a.m, a.Process, addrs, a.ft, dst)
	if stable {
		if id := r.stacks.put(a.m, a.Process, h, dst[n:]); id != 0 {
			a.setStackID(id, dst[n:])
		}
	}
	return dst
}
