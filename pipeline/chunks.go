package pipeline

import (
	"sync"

	"github.com/etwkit/etw/analysis"
)

// A batch's rendering is a list of chunks of about chunkBytes, taken from
// a pool shared by the workers and the writer and given back once
// written. The memory the renderings hold is then bounded by the pool,
// not by the largest rendering a batch ever had times the batches in
// flight: a batch holds no rendering storage while it waits for its
// annotations or for a worker, and workers wait for the writer (a slow
// output) once the pool's chunks are all in use.
const (
	// chunkBytes is when a chunk is full: the event rendered last may
	// end past it.
	chunkBytes = 192 << 10
	// chunkCap is the capacity of a new chunk: room for one more event
	// of usual size after chunkBytes, so that a chunk seldom grows.
	chunkCap = 256 << 10
	// chunksPerWorker bounds the chunks in use or idle (times the
	// workers): 1 MiB per worker.
	chunksPerWorker = 4
	// chunksReserved are the chunks only the two batches the writer
	// takes next may use (see chunkPool.reserved).
	chunksReserved = 2
)

// chunkPool hands out chunks, at most limit at a time, except to the
// batch the writer waits for (next), which always gets one: the batches
// ahead of it may wait, it never does, so the pipeline cannot stall. It
// is safe for concurrent use.
type chunkPool[E any] struct {
	mu    sync.Mutex
	cond  sync.Cond
	idle  [][]E // empty chunks for reuse
	n     int   // chunks handed out or idle
	limit int
	next  int  // sequence number of the batch the writer waits for
	open  bool // the run is stopping: no bound
}

func newChunkPool[E any](workers int) *chunkPool[E] {
	c := &chunkPool[E]{limit: chunksPerWorker * max(workers, 1)}
	c.cond.L = &c.mu
	return c
}

// get returns an empty chunk for the batch of sequence number seq,
// waiting while the pool's chunks are all in use (but for the reserved
// ones, see reserved), unless seq is the batch the writer waits for.
func (c *chunkPool[E]) get(seq int) []E {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if c.n-len(c.idle) < c.limit-c.reserved(seq) || seq == c.next || c.open {
			if s, ok := popIdle(&c.idle); ok {
				return s
			}
			if c.n < c.limit || seq == c.next || c.open {
				c.n++
				return make([]E, 0, chunkCap)
			}
		}
		c.cond.Wait()
	}
}

// reserved returns how many of the pool's chunks the batch of sequence
// number seq may not take: the last chunksReserved, kept for the batch
// the writer waits for and the one after it. Without them, the batches
// rendered ahead of the writer (a worker gets ahead when the other is
// slow) took every chunk, and the batch the writer waits for got chunks
// beyond the bound, which were then dropped: at 4 chunks a worker, 40 %
// more allocated by the Parquet dump over 16 inputs.
func (c *chunkPool[E]) reserved(seq int) int {
	if seq <= c.next+1 {
		return 0
	}
	return chunksReserved
}

// put gives s back; a chunk beyond the pool's bound is left to the
// garbage collector, and so is an oversize part (see batch.oversize),
// which is not the pool's.
func (c *chunkPool[E]) put(s []E) {
	if cap(s) != chunkCap {
		return
	}
	c.mu.Lock()
	if c.n > c.limit {
		c.n--
	} else {
		c.idle = append(c.idle, s[:0])
	}
	c.mu.Unlock()
	// Every waiter: the one woken might be a batch the reserve holds
	// back while another may take the chunk.
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

// oversize is called when the rendering of one event did not fit in the
// room left in b's chunk chunk (whose first n elements hold the events
// before it) and grew it into out, a copy. The chunk goes on as a part of
// its own (or back to the pool if it holds nothing), so that the pool
// keeps its chunks: the event's rendering, out[n:], becomes a part that
// is not the pool's (its capacity differs from chunkCap), and the next
// event starts a new chunk.
func (b *batch[E]) oversize(pool *chunkPool[E], chunk, out []E, n int) {
	if n > 0 {
		b.parts = append(b.parts, chunk[:n])
		b.partsLen += n
	} else {
		pool.put(chunk)
	}
	big := out[n:len(out):len(out)]
	if cap(big) == chunkCap {
		// The pool would take it for one of its own.
		big = append(make([]E, 0, chunkCap+1), big...)
	}
	b.parts = append(b.parts, big)
	b.partsLen += len(big)
	b.out, b.outHeld = nil, 0
}

// rendered returns how many elements b's rendering holds.
func (b *batch[E]) rendered() int { return b.partsLen + len(b.out) }

// writeRendered writes the first n elements of b's rendering to w: in
// one call when w is a BuffersWriter, else a part at a time.
func (b *batch[E]) writeRendered(w Writer[E], n int) error {
	vec := b.vec[:0]
	for _, s := range b.parts {
		if n == 0 {
			break
		}
		k := min(n, len(s))
		vec = append(vec, s[:k])
		n -= k
	}
	if n > 0 {
		vec = append(vec, b.out[:n])
	}
	var err error
	if bw, ok := w.(BuffersWriter[E]); ok {
		_, err = bw.WriteBuffers(vec)
	} else {
		for _, s := range vec {
			if _, err = w.Write(s); err != nil {
				break
			}
		}
	}
	clear(vec) // the chunks go back to the pool
	b.vec = vec[:0]
	return err
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

// stackSpan is where a batch keeps an event's stack: n addresses from
// off in its address chunk chunk.
type stackSpan struct{ chunk, off, n int32 }

const (
	// addrChunk is the addresses in a chunk of stacks (64 KiB).
	addrChunk = 8192
	// frameChunk is the frames in a chunk of resolved stacks (160 KiB).
	frameChunk = 4096
	// arenaChunk is the bytes in a chunk of payloads.
	arenaChunk = 64 << 10
	// idleSlabs bounds the chunks a slabPool keeps for reuse.
	idleSlabs = 16
)

// slabPool holds the chunks that batches keep their events' payloads and
// stacks in, on the reading goroutine (which fills batches, annotates
// them and resets them for reuse). What a batch holds varies a lot (its
// stacks: hundreds to over ten thousand addresses): in chunks,
// the batches in flight hold what their events need instead of each the
// most any batch ever needed.
type slabPool[T any] struct {
	size int // elements in a chunk
	idle [][]T
}

// get returns an empty chunk with room for n elements.
func (p *slabPool[T]) get(n int) []T {
	if n > p.size {
		return make([]T, 0, n)
	}
	if s, ok := popIdle(&p.idle); ok {
		return s
	}
	return make([]T, 0, p.size)
}

// popIdle takes the last chunk of idle, if there is one.
func popIdle[T any](idle *[][]T) ([]T, bool) {
	k := len(*idle)
	if k == 0 {
		return nil, false
	}
	s := (*idle)[k-1]
	(*idle)[k-1] = nil
	*idle = (*idle)[:k-1]
	return s, true
}

// put gives s back for reuse.
func (p *slabPool[T]) put(s []T) {
	if cap(s) != p.size || len(p.idle) >= idleSlabs {
		return
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
	arena slabPool[byte]
	addrs slabPool[uint64]
	// frames, with Config.Written and Config.Analysis, holds the stacks
	// the workers resolved, for the writer (nil otherwise).
	frames *sharedFrames
}

// sharedFrames is a slabPool of frames that the goroutines that render
// take chunks from and the reading goroutine gives them back to.
type sharedFrames struct {
	mu sync.Mutex
	p  slabPool[analysis.Frame]
}

// take is slabPool.take, under the lock only when list's last chunk has
// no room left (list is the caller's own).
func (s *sharedFrames) take(list *[][]analysis.Frame, n int) int {
	if k := len(*list) - 1; k >= 0 && cap((*list)[k])-len((*list)[k]) >= n {
		return k // the last chunk has room, as slabPool.take would find
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p.take(list, n)
}

// putAll is slabPool.putAll under the lock, each chunk cleared first
// (frames point into the model).
func (s *sharedFrames) putAll(list [][]analysis.Frame) [][]analysis.Frame {
	for _, c := range list {
		clear(c)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p.putAll(list)
}

func newSlabs() *slabs {
	return &slabs{arena: slabPool[byte]{size: arenaChunk}, addrs: slabPool[uint64]{size: addrChunk}}
}
