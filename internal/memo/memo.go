// Package memo keeps recent values in bounded storage without allocating
// once in use: a [Ring] of values whose oldest are overwritten first, and
// [Bytes], renderings kept by an identity that is never reused for
// another content (the stack identities of package analysis). The whole
// stacks of a trace's events repeat: the stack resolver and the dump
// encoders keep them here instead of working frame by frame.
package memo

import "github.com/etwkit/etw/internal/prefault"

// Ring stores runs of values in a circular buffer of a fixed number of
// values: each Put writes after the previous one, and once the buffer is
// full it overwrites the oldest runs. A run's position tells whether it is
// still there. The zero value stores nothing: see [NewRing].
type Ring[T any] struct {
	buf  []T    // nil until the first Put
	size int    // len(buf) once allocated
	pos  uint64 // values ever written, counting the ends skipped
}

// NewRing returns a ring of n values (n > 0), allocated on the first Put.
func NewRing[T any](n int) Ring[T] {
	return Ring[T]{size: max(n, 0)}
}

// Cap returns the number of values the ring holds.
func (r *Ring[T]) Cap() int { return r.size }

// Put copies v into the ring and returns its position for Get; ok is
// false (nothing stored) when v is empty or longer than a quarter of the
// ring, which would evict too much at once. A run never wraps: it starts
// over at the beginning of the buffer when the end has no room for it.
func (r *Ring[T]) Put(v []T) (at uint64, ok bool) {
	c := uint64(r.size)
	n := uint64(len(v))
	if n == 0 || n > c/4 {
		return 0, false
	}
	if r.buf == nil {
		// Written before the collector scans it (T may hold pointers)
		// or Get reads it.
		r.buf = prefault.Make[T](r.size)
	}
	off := r.pos % c
	if off+n > c {
		r.pos += c - off
		off = 0
	}
	copy(r.buf[off:off+n], v)
	at = r.pos
	r.pos += n
	return at, true
}

// Get returns the n values that Put stored at position at, ok false when
// later runs have overwritten any of them. The slice is the ring's: valid
// until the next Put.
func (r *Ring[T]) Get(at uint64, n int) ([]T, bool) {
	c := uint64(r.size)
	if n <= 0 || r.buf == nil || at > r.pos || r.pos-at > c || uint64(n) > r.pos-at {
		return nil, false
	}
	off := at % c
	return r.buf[off : off+uint64(n) : off+uint64(n)], true
}

// Bytes keeps byte strings by identity (a nonzero uint64 never given to
// another content), direct-mapped: a colliding identity takes the slot.
// Its storage is bounded by the sizes NewBytes takes. The zero value
// keeps nothing.
type Bytes struct {
	slots []bytesSlot
	bits  uint8
	ring  Ring[byte]
}

type bytesSlot struct {
	id uint64
	at uint64
	n  int
}

// NewBytes returns a memo of 2^bits slots (1 <= bits <= 24) and size bytes
// of storage, allocated on first use.
func NewBytes(bits uint8, size int) Bytes {
	return Bytes{bits: bits, ring: NewRing[byte](size)}
}

func (m *Bytes) slot(id uint64) *bytesSlot {
	if m.slots == nil {
		m.slots = prefault.Make[bytesSlot](1 << m.bits) // probed before written
	}
	return &m.slots[(id*0x9E3779B97F4A7C15)>>(64-m.bits)]
}

// Cap returns the bytes of storage m has (0 for the zero value).
func (m *Bytes) Cap() int { return m.ring.Cap() }

// Get returns the bytes kept for id, valid until the next Put.
func (m *Bytes) Get(id uint64) ([]byte, bool) {
	if id == 0 || m.bits == 0 {
		return nil, false
	}
	s := m.slot(id)
	if s.id != id {
		return nil, false
	}
	return m.ring.Get(s.at, s.n)
}

// Put keeps a copy of b for id (nothing for id 0, or when b is empty or
// longer than a quarter of the storage).
func (m *Bytes) Put(id uint64, b []byte) {
	if id == 0 || m.bits == 0 {
		return
	}
	at, ok := m.ring.Put(b)
	if !ok {
		return
	}
	*m.slot(id) = bytesSlot{id: id, at: at, n: len(b)}
}

// Append appends the bytes kept for id to b, or else what render appends
// to b, which it keeps for id.
func (m *Bytes) Append(b []byte, id uint64, render func([]byte) []byte) []byte {
	if r, ok := m.Get(id); ok {
		return append(b, r...)
	}
	n := len(b)
	b = render(b)
	m.Put(id, b[n:])
	return b
}
