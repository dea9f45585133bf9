package pipeline

import (
	"bytes"
	"testing"
	"time"
)

// The chunk pool bounds the chunks in use, except by the batch the writer
// waits for, which never waits (else a worker holding it would wait for
// chunks that only its own batch's writing frees); a batch ahead waits
// until chunks come back, the writer moves on, or the run stops, even
// while the pool keeps idle chunks in reserve for the writer's batch.
func TestChunkPool(t *testing.T) {
	c := newChunkPool[byte](1)
	var held [][]byte
	for range c.limit {
		held = append(held, c.get(2))
	}
	got := make(chan []byte, 1)
	go func() { got <- c.get(3) }()
	select {
	case <-got:
		t.Fatalf("batch 3 got a chunk beyond the bound of %d", c.limit)
	case <-time.After(50 * time.Millisecond):
	}
	// Batch 0, which the writer waits for, is not held back.
	next := make(chan []byte, 1)
	var extra [][]byte
	for range reserveChunks + 1 {
		go func() { next <- c.get(0) }()
		select {
		case s := <-next:
			if cap(s) != chunkCap {
				t.Fatalf("batch 0's chunk: cap %d, want %d", cap(s), chunkCap)
			}
			extra = append(extra, s)
		case <-time.After(5 * time.Second):
			t.Fatal("the batch the writer waits for waited for a chunk")
		}
	}
	if c.inUse != c.limit+reserveChunks+1 {
		t.Errorf("%d chunks in use, want %d", c.inUse, c.limit+reserveChunks+1)
	}
	// Given back, they are kept up to the reserve, and the batch ahead
	// still waits.
	for _, s := range extra {
		c.put(s)
	}
	if len(c.idle) != reserveChunks {
		t.Errorf("%d idle chunks after batch 0 gave back %d; want the reserve, %d", len(c.idle), len(extra), reserveChunks)
	}
	select {
	case <-got:
		t.Fatal("batch 3 took a chunk of the reserve")
	case <-time.After(50 * time.Millisecond):
	}
	// A chunk given back by a batch in the bound goes to the batch that
	// waits, from the idle ones.
	c.put(held[0])
	select {
	case s := <-got:
		held[0] = s
	case <-time.After(5 * time.Second):
		t.Fatal("batch 3 still waits after a chunk came back")
	}
	if c.inUse+len(c.idle) > c.keep {
		t.Errorf("%d chunks in use and %d idle, bound %d", c.inUse, len(c.idle), c.keep)
	}
	// Stopping lets every batch go on.
	go func() { got <- c.get(7) }()
	select {
	case <-got:
		t.Fatal("batch 7 got a chunk beyond the bound")
	case <-time.After(50 * time.Millisecond):
	}
	c.stop()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("batch 7 still waits after the run stopped")
	}
}

// An event whose rendering does not fit in the room its chunk has left
// moves to a chunk of its own: the chunk keeps what was before it and goes
// back to the pool, and the rendering reads the same. One larger than a
// chunk counts in the pool's bound as the chunks it would fill.
func TestChunkSpill(t *testing.T) {
	pool := newChunkPool[byte](1)
	b := &batch[byte]{}
	b.newChunk(pool)
	var want []byte
	render := func(n int, c byte) {
		b.newChunk(pool)
		old := b.out
		for range n {
			b.out = append(b.out, c)
			want = append(want, c)
		}
		if cap(b.out) != cap(old) {
			b.spill(old, pool)
		}
		b.outHeld += n
	}
	spilled := chunkCap - chunkBytes + 200
	render(chunkBytes-100, 'a') // fills the chunk but for the room for an event and 100 bytes
	render(spilled, 'b')        // does not fit: spills to a new chunk
	if len(b.parts) != 1 || len(b.parts[0]) != chunkBytes-100 || cap(b.parts[0]) != chunkCap {
		t.Fatalf("after a spill: %d parts, the first of %d bytes (cap %d); want 1 of %d (cap %d)", len(b.parts), len(b.parts[0]), cap(b.parts[0]), chunkBytes-100, chunkCap)
	}
	if cap(b.out) != chunkCap || len(b.out) != spilled {
		t.Fatalf("spilled event: %d bytes in a chunk of cap %d; want %d in %d", len(b.out), cap(b.out), spilled, chunkCap)
	}
	render(chunkCap+1, 'c') // larger than a chunk: a copy of its own, counted as 2 chunks
	if pool.inUse != 4 || cap(b.out) != chunkCap+1 {
		t.Fatalf("a rendering of a chunk and a byte: %d chunks in use, cap %d; want 4, %d", pool.inUse, cap(b.out), chunkCap+1)
	}
	render(5, 'd')
	if b.rendered() != len(want) {
		t.Fatalf("rendered %d bytes, want %d", b.rendered(), len(want))
	}
	var got bytes.Buffer
	if err := b.writeRendered(&got, b.rendered()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatal("the rendering after spills differs from what was rendered")
	}
	b.releaseOut(pool)
	if pool.inUse != 0 || len(pool.idle) != 3 {
		t.Errorf("%d chunks in use, %d idle after the batch gave them back; want 0, 3", pool.inUse, len(pool.idle))
	}
	for _, s := range pool.idle {
		if cap(s) != chunkCap {
			t.Errorf("a chunk of cap %d in the pool", cap(s))
		}
	}
}
