package analysis

import (
	"sync/atomic"

	"github.com/etwkit/etw/internal/memo"
	"github.com/etwkit/etw/internal/prefault"
)

// The stacks of a trace's events repeat: net.4.5.2.x64.etl's 23,384
// stacks are 3,114 distinct ones (574,000 frames). A StackResolver keeps
// the recent whole stacks it resolved (a stackMemo), so that resolving a
// repeated one costs a hash and a comparison of its addresses and a copy
// of its frames, and gives each an identity ([Annotation.StackID]) by
// which the dump encoders keep their rendering.

// StackID identifies the frames of a's Stack as [StackResolver.Resolve]
// gave them: two annotations with the same nonzero StackID have stacks
// with equal frames, in this process, whichever resolver gave them. It is
// 0 when unknown: the stack was not resolved by a StackResolver, has a
// frame that depends on the time (an address that several images or
// .NET methods held), or is no longer the slice Resolve returned (its
// frames must not be modified). It is checked by the slice's address and
// length only: like the frames Resolve appends to, it holds until the
// caller reuses that storage (the pipeline's resolvers do at their next
// event), and a copy of the annotation kept past that reports it over
// other frames.
func (a *Annotation) StackID() uint64 {
	if a.stackID == 0 || len(a.Stack) != a.stackLen || &a.Stack[0] != a.stackAt {
		return 0
	}
	return a.stackID
}

// setStackID records id as the identity of frames (not empty).
func (a *Annotation) setStackID(id uint64, frames []Frame) {
	a.stackID, a.stackAt, a.stackLen = id, &frames[0], len(frames)
}

// stackIDs gives out the stack identities: each memoized stack takes a
// new one, so that an identity never names two contents, whichever
// resolver (goroutine) made it and however often memos evict.
var stackIDs atomic.Uint64

// stackMemo keeps whole stacks whose every frame is the same at any time
// (Model.resolveStable), by model, process and addresses: direct-mapped
// slots over a ring of frames (the frames hold their addresses). A stack
// whose frames the ring has since overwritten is gone. About 210 KB.
type stackMemo struct {
	slots  []stackSlot
	frames memo.Ring[Frame]
}

type stackSlot struct {
	m  *Model
	p  *Process
	h  uint64 // hash of p and the addresses
	at uint64 // position of the frames in the ring
	n  int
	id uint64 // 0: empty
}

const (
	// stackMemoBits sizes a stackMemo's slots, stackMemoFrames its ring
	// (40 bytes a frame). On net.4.5.2.x64.etl, 87 % of the stacks are
	// repeats; 74 % are found with these sizes (a simulation of the
	// events' order), 77 % with twice the ring and slots. The JSON dump
	// (whose rendered stacks tracerpt keeps in as many bytes as the ring
	// holds frames of) takes 2,703 M instructions with these sizes, 2,701 M
	// with twice the ring, 2,708 M with half (session 12, cachegrind).
	stackMemoBits   = 10
	stackMemoFrames = 4096
)

// hashStack returns the hash of p's stack addrs for a stackMemo.
func hashStack(p *Process, addrs []uint64) uint64 {
	h := uint64(len(addrs)) * 0xC2B2AE3D27D4EB4F
	if p != nil {
		h ^= uint64(p.Index+1) * 0x165667B19E3779F9
	}
	for _, a := range addrs {
		h = (h ^ a) * 0x9E3779B97F4A7C15
	}
	return h
}

// slot returns the slot of hash h.
func (s *stackMemo) slot(h uint64) *stackSlot {
	if s.slots == nil {
		s.slots = prefault.Make[stackSlot](1 << stackMemoBits) // probed before written
		s.frames = memo.NewRing[Frame](stackMemoFrames)
	}
	return &s.slots[h>>(64-stackMemoBits)]
}

// get returns the frames and identity of m's stack addrs in process p,
// whose hash is h, when the memo has them: the frames are the ring's,
// valid until the next put.
func (s *stackMemo) get(m *Model, p *Process, addrs []uint64, h uint64) ([]Frame, uint64, bool) {
	sl := s.slot(h)
	if sl.id == 0 || sl.h != h || sl.p != p || sl.m != m || sl.n != len(addrs) {
		return nil, 0, false
	}
	frames, ok := s.frames.Get(sl.at, sl.n)
	if !ok {
		return nil, 0, false
	}
	for i := range frames {
		if frames[i].Address != addrs[i] {
			return nil, 0, false
		}
	}
	return frames, sl.id, true
}

// put keeps frames, m's stack in process p whose addresses hash to h,
// and returns their new identity (0 when the ring does not take them:
// longer than a quarter of it).
func (s *stackMemo) put(m *Model, p *Process, h uint64, frames []Frame) uint64 {
	sl := s.slot(h)
	at, ok := s.frames.Put(frames)
	if !ok {
		return 0
	}
	id := stackIDs.Add(1)
	*sl = stackSlot{m: m, p: p, h: h, at: at, n: len(frames), id: id}
	return id
}
