package pipeline

import (
	"bytes"
	"testing"
	"time"
)

// The chunk pool bounds the chunks handed out, except to the batch the
// writer waits for, which never waits (else a worker holding it would wait
// for chunks that only its own batch's writing frees); a batch ahead waits
// until chunks come back, the writer moves on, or the run stops.
func TestChunkPool(t *testing.T) {
	c := newChunkPool[byte](1)
	var held [][]byte
	for range c.limit {
		held = append(held, c.get(1))
	}
	got := make(chan []byte, 1)
	go func() { got <- c.get(1) }()
	select {
	case <-got:
		t.Fatalf("batch 1 got a chunk beyond the bound of %d", c.limit)
	case <-time.After(50 * time.Millisecond):
	}
	// Batch 0, which the writer waits for, is not held back.
	next := make(chan []byte, 1)
	go func() { next <- c.get(0) }()
	select {
	case s := <-next:
		if cap(s) != chunkCap || c.n != c.limit+1 {
			t.Errorf("batch 0's chunk: cap %d, %d chunks out; want %d, %d", cap(s), c.n, chunkCap, c.limit+1)
		}
		c.put(s) // beyond the bound: dropped
	case <-time.After(5 * time.Second):
		t.Fatal("the batch the writer waits for waited for a chunk")
	}
	if len(c.idle) != 0 {
		t.Errorf("%d idle chunks after giving back one beyond the bound", len(c.idle))
	}
	// A chunk given back goes to the batch that waits.
	c.put(held[0])
	select {
	case s := <-got:
		held[0] = s
	case <-time.After(5 * time.Second):
		t.Fatal("batch 1 still waits after a chunk came back")
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
// (a rendering larger than chunkCap-chunkBytes) becomes a part of its
// own: the chunk stays the pool's, and the rendering is written in order.
// A rendering of exactly chunkCap elements is copied, so that the pool
// does not take it for one of its chunks.
func TestChunkOversize(t *testing.T) {
	pool := newChunkPool[byte](1)
	b := &batch[byte]{seq: 0}
	var want []byte
	for i, size := range []int{1000, chunkCap + 5, 10, chunkBytes, 3*chunkCap - 1, 7, chunkCap, 5} {
		b.newChunk(pool)
		chunk, n := b.out, len(b.out)
		for k := range size {
			b.out = append(b.out, byte(i+k))
			want = append(want, byte(i+k))
		}
		b.outHeld += size
		if cap(b.out) != cap(chunk) {
			b.oversize(pool, chunk, b.out, n)
		}
	}
	if b.rendered() != len(want) {
		t.Fatalf("rendered %d elements, want %d", b.rendered(), len(want))
	}
	var got bytes.Buffer
	if err := b.writeRendered(&got, len(want)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Error("the rendering written differs from the events rendered")
	}
	// In one call to a BuffersWriter, whole or cut in a part.
	for _, n := range []int{len(want), len(want) - 3, 1000 + chunkCap} {
		var vw vecWriter
		if err := b.writeRendered(&vw, n); err != nil {
			t.Fatal(err)
		}
		if vw.calls != 1 || !bytes.Equal(vw.Bytes(), want[:n]) {
			t.Errorf("%d elements to a BuffersWriter: %d calls, %d elements, want 1 and the first %d", n, vw.calls, vw.Len(), n)
		}
	}
	out := pool.n
	b.releaseOut(pool)
	if pool.n != out || len(pool.idle) != out {
		t.Errorf("after the batch: %d chunks counted, %d idle; want the %d handed out back", pool.n, len(pool.idle), out)
	}
	for _, s := range pool.idle {
		if cap(s) != chunkCap {
			t.Errorf("the pool holds a chunk of capacity %d", cap(s))
		}
	}
}

// The last chunksReserved chunks of the pool go to the batch the writer
// waits for and the one after it only: batches further ahead wait for
// them (idle or not yet made), so that the writer's next batches do not
// take chunks beyond the bound, which were then dropped (garbage), when
// a worker got ahead.
func TestChunkPoolReserve(t *testing.T) {
	c := newChunkPool[byte](1)
	if c.limit <= chunksReserved {
		t.Fatalf("limit %d, reserve %d: no chunk for batches ahead", c.limit, chunksReserved)
	}
	var held [][]byte
	for range c.limit - chunksReserved {
		held = append(held, c.get(5))
	}
	got := make(chan []byte, 1)
	go func() { got <- c.get(5) }()
	select {
	case <-got:
		t.Fatalf("batch 5 took a reserved chunk (%d of %d out)", c.n, c.limit)
	case <-time.After(50 * time.Millisecond):
	}
	// Batch 1, after the one the writer waits for, takes the reserve,
	// up to the bound.
	for range chunksReserved {
		held = append(held, c.get(1))
	}
	if c.n != c.limit {
		t.Fatalf("%d chunks out, want %d", c.n, c.limit)
	}
	// A reserved chunk given back while batch 5 waits: still not batch
	// 5's, but batch 0's without a new one.
	c.put(held[len(held)-1])
	held = held[:len(held)-1]
	select {
	case <-got:
		t.Fatal("batch 5 took an idle reserved chunk")
	case <-time.After(50 * time.Millisecond):
	}
	if s := c.get(0); cap(s) != chunkCap || c.n != c.limit {
		t.Fatalf("batch 0: cap %d, %d chunks out; want the idle chunk, %d out", cap(s), c.n, c.limit)
	}
	// The writer moves on to batch 4: batch 5 is next but one.
	c.advance(4)
	c.put(held[0])
	select {
	case s := <-got:
		if cap(s) != chunkCap {
			t.Errorf("batch 5's chunk: cap %d, want %d", cap(s), chunkCap)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("batch 5 still waits after the writer moved on and a chunk came back")
	}
}

// vecWriter is a BuffersWriter that counts its calls.
type vecWriter struct {
	bytes.Buffer
	calls int
}

func (v *vecWriter) WriteBuffers(bufs [][]byte) (int, error) {
	v.calls++
	n := 0
	for _, p := range bufs {
		k, _ := v.Write(p)
		n += k
	}
	return n, nil
}
