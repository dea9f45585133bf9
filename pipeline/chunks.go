package pipeline

import (
	"sync"

	"github.com/etwkit/etw/analysis"
)

// A batch's rendering is a list of chunks of chunkCap elements, taken
// from a pool shared by the workers and the writer and given back once
// written. The memory the renderings hold is then bounded by the pool,
// not by the largest rendering a batch ever had times the batches in
// flight: a batch holds no rendering storage while it waits for its
// annotations or for a worker, and workers wait for the writer (a slow
// output) once the pool's chunks are all in use. Small chunks fit a
// batch's rendering closely (a JSON batch of net.4.5.2 renders about
// 480 KiB: 9 chunks, where 256 KiB chunks filled to 192 KiB took 3 of
// 768 KiB), which lets the pool hold less for the same batches in flight.
const (
	// chunkCap is the capacity of a chunk.
	chunkCap = 64 << 10
	// chunkBytes is when a chunk is full: the room left after it is for
	// one more event (almost all renderings are under 16 KiB). An event
	// whose rendering does not fit moves to a chunk of its own (spill).
	chunkBytes = chunkCap - 16<<10
	// chunksPerWorker bounds the chunks in use (times the workers),
	// but for the batch the writer waits for: 512 KiB per worker, about
	// a batch's rendering in JSON.
	chunksPerWorker = 8
	// reserveChunks are the chunks kept beyond that for the batch the
	// writer waits for (1 MiB): a batch's rendering (XML, the largest,
	// about 640 KiB in 14 chunks of net.4.5.2), so that the chunks it
	// takes beyond the bound, when the batches after it hold them all,
	// are seldom new ones, dropped once written.
	reserveChunks = 16
)

// chunkPool hands out chunks, at most limit in use at a time, except to
// the batch the writer waits for (next), which always gets one: the
// batches ahead of it may wait, it never does, so the pipeline cannot
// stall. The chunks next gets beyond the bound come from the idle ones
// first, which the pool keeps up to reserve more than limit: a batch that
// renders ahead of next must not leave next to allocate chunks that are
// dropped once written (a worker slow on next, the other rendering the
// batches after it, did that on every such wait). It is safe for
// concurrent use.
type chunkPool[E any] struct {
	mu    sync.Mutex
	cond  sync.Cond
	idle  [][]E // empty chunks for reuse
	inUse int   // chunks handed out
	limit int   // on inUse, except for next
	keep  int   // on inUse + idle when a chunk comes back
	next  int   // sequence number of the batch the writer waits for
	open  bool  // the run is stopping: no bound
}

func newChunkPool[E any](workers int) *chunkPool[E] {
	limit := chunksPerWorker * max(workers, 1)
	c := &chunkPool[E]{limit: limit, keep: limit + reserveChunks}
	c.cond.L = &c.mu
	return c
}

// get returns an empty chunk for the batch of sequence number seq,
// waiting while limit chunks are in use, unless seq is the batch the
// writer waits for.
func (c *chunkPool[E]) get(seq int) []E {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wait(seq, 1)
	c.inUse++
	if k := len(c.idle); k > 0 {
		s := c.idle[k-1]
		c.idle[k-1] = nil
		c.idle = c.idle[:k-1]
		return s
	}
	return make([]E, 0, chunkCap)
}

// wait waits, c.mu held, until k more chunks may be in use for the batch
// of sequence number seq.
func (c *chunkPool[E]) wait(seq, k int) {
	for c.inUse+k > c.limit && seq != c.next && !c.open {
		c.cond.Wait()
	}
}

// charge counts a rendering of n elements larger than a chunk (see spill)
// as chunks in use, waiting as get does: renderings of large events,
// which are not the pool's chunks, are bounded with them.
func (c *chunkPool[E]) charge(seq, n int) {
	c.mu.Lock()
	c.wait(seq, chunksOf(n))
	c.inUse += chunksOf(n)
	c.mu.Unlock()
}

// chunksOf returns the chunks n elements count for.
func chunksOf(n int) int { return max(1, (n+chunkCap-1)/chunkCap) }

// put gives s back: a chunk is kept for reuse unless the pool holds keep
// chunks; a rendering larger than a chunk (charged: see spill) is left to
// the garbage collector.
func (c *chunkPool[E]) put(s []E) {
	c.mu.Lock()
	if cap(s) != chunkCap {
		c.inUse -= chunksOf(cap(s))
	} else if c.inUse--; c.inUse+len(c.idle) < c.keep {
		c.idle = append(c.idle, s[:0])
	}
	c.mu.Unlock()
	c.cond.Broadcast()
}

// advance records that the writer now waits for the batch of sequence
// number next.
func (c *chunkPool[E]) advance(next int) {
	c.mu.Lock()
	c.next = next
	c.mu.Unlock()
	c.cond.Broadcast()
}

// stop lifts the bound: the writer no longer writes (an error, the event
// limit), and no worker may wait for it.
func (c *chunkPool[E]) stop() {
	c.mu.Lock()
	c.open = true
	c.mu.Unlock()
	c.cond.Broadcast()
}

// newChunk ends b's current chunk if it is full (it holds chunkBytes) and
// makes sure b has one to render into.
func (b *batch[E]) newChunk(pool *chunkPool[E]) {
	if b.out != nil && b.outHeld < chunkBytes {
		return
	}
	if b.out != nil {
		b.parts = append(b.parts, b.out)
		b.partsLen += len(b.out)
	}
	b.out, b.outHeld = pool.get(b.seq), 0
}

// spill is called when rendering an event into b.out grew it past its
// chunk (old, the chunk before the event, is unchanged: append copied
// it): the event's rendering moves to a chunk of its own, from pool if it
// fits in one, and old, which keeps the renderings before it, ends. The
// grown copy is dropped, and no pooled chunk with it: the pool's chunks
// never grow, and what the renderings in flight hold stays within the
// pool's bound, whatever the size of the events.
func (b *batch[E]) spill(old []E, pool *chunkPool[E]) {
	ev := b.out[len(old):]
	if len(old) > 0 {
		b.parts = append(b.parts, old)
		b.partsLen += len(old)
	} else {
		pool.put(old)
	}
	b.outHeld = 0
	if len(ev) <= chunkCap {
		b.out = append(pool.get(b.seq), ev...)
		return
	}
	// A rendering larger than a chunk is copied to its own size (the
	// grown copy also holds the chunk's renderings before it, and room
	// for growth), and counted in the pool as the chunks it would fill.
	// Its capacity, its length, never passes for a chunk of the pool's.
	pool.charge(b.seq, len(ev))
	b.out = append(make([]E, 0, len(ev)), ev...)
}

// rendered returns how many elements b's rendering holds.
func (b *batch[E]) rendered() int { return b.partsLen + len(b.out) }

// writeRendered writes the first n elements of b's rendering to w.
func (b *batch[E]) writeRendered(w Writer[E], n int) error {
	for _, s := range b.parts {
		if n == 0 {
			return nil
		}
		k := min(n, len(s))
		if _, err := w.Write(s[:k]); err != nil {
			return err
		}
		n -= k
	}
	if n > 0 {
		_, err := w.Write(b.out[:n])
		return err
	}
	return nil
}

// releaseOut gives b's chunks back to pool.
func (b *batch[E]) releaseOut(pool *chunkPool[E]) {
	for i, s := range b.parts {
		pool.put(s)
		b.parts[i] = nil
	}
	if b.out != nil {
		pool.put(b.out)
	}
	b.parts, b.partsLen, b.out, b.outHeld = b.parts[:0], 0, nil, 0
}

// stackSpan is where a batch keeps an event's stack: n frames from off
// in its frame chunk chunk.
type stackSpan struct{ chunk, off, n int32 }

const (
	// frameChunk is the frames in a chunk of stacks (40 KiB): a batch of
	// net.4.5.2 holds a few hundred to a few thousand.
	frameChunk = 1024
	// arenaChunk is the bytes in a chunk of payloads: a batch of
	// net.4.5.2 holds 43 KiB of payloads on average.
	arenaChunk = 64 << 10
	// idleArena and idleFrames bound the chunks a slabPool keeps for
	// reuse. The reading goroutine gives a batch's chunks back just before
	// it fills the batch again, so a batch's usual need suffices (of
	// net.4.5.2: one or two chunks of payloads; up to six of frames over
	// 16 inputs); the chunks of a batch of large payloads (up to
	// batchBytes, 16 chunks) are not all kept for batches that need one.
	idleArena  = 4
	idleFrames = 8
)

// slabPool holds the chunks that batches keep their events' payloads and
// stacks in, on the reading goroutine (which fills batches, annotates
// them and resets them for reuse). What a batch holds varies a lot (its
// stacks: hundreds to over ten thousand frames of 40 bytes): in chunks,
// the batches in flight hold what their events need instead of each the
// most any batch ever needed.
type slabPool[T any] struct {
	size    int  // elements in a chunk
	clear   bool // clear chunks given back (elements with pointers)
	maxIdle int
	idle    [][]T
}

// get returns an empty chunk with room for n elements.
func (p *slabPool[T]) get(n int) []T {
	if n > p.size {
		return make([]T, 0, n)
	}
	if k := len(p.idle); k > 0 {
		s := p.idle[k-1]
		p.idle[k-1] = nil
		p.idle = p.idle[:k-1]
		return s
	}
	return make([]T, 0, p.size)
}

// put gives s back for reuse (cleared if p.clear: frames point into the
// model).
func (p *slabPool[T]) put(s []T) {
	if cap(s) != p.size || len(p.idle) >= p.maxIdle {
		return
	}
	if p.clear {
		clear(s)
	}
	p.idle = append(p.idle, s[:0])
}

// putAll gives the chunks of list back and empties it.
func (p *slabPool[T]) putAll(list [][]T) [][]T {
	for i, s := range list {
		p.put(s)
		list[i] = nil
	}
	return list[:0]
}

// take returns the index in list of a chunk with room for n more
// elements: the last one, or a new one from p appended to list.
func (p *slabPool[T]) take(list *[][]T, n int) int {
	k := len(*list) - 1
	if k < 0 || cap((*list)[k])-len((*list)[k]) < n {
		*list = append(*list, p.get(n))
		k++
	}
	return k
}

// slabs are a run's pools of payload and stack chunks.
type slabs struct {
	arena  slabPool[byte]
	frames slabPool[analysis.Frame]
}

func newSlabs() *slabs {
	return &slabs{arena: slabPool[byte]{size: arenaChunk, maxIdle: idleArena},
		frames: slabPool[analysis.Frame]{size: frameChunk, clear: true, maxIdle: idleFrames}}
}
