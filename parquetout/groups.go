package parquetout

import (
	"sync"

	"github.com/parquet-go/parquet-go"
)

// rowGroupsInFlight is how many row groups an async table writes at
// once (see groupPool).
const rowGroupsInFlight = 1

// groupPool bounds the row groups an async table has begun and not yet
// committed, and reuses their writers. A row group writer holds the
// column buffers of its row group (up to a page per column, 256 KiB by
// default) and its compressed pages until it is committed; without a
// bound, finished row groups waiting for their turn to be committed, and
// new writers whose buffers the old ones' garbage paid for, doubled the
// Parquet dump's memory. One row group at a time (rowGroupsInFlight):
// a second one would let the next row group fill while the previous
// one's last pages are compressed and committed, but costs a second
// writer's column buffers (about 20 MB at a 16x input) and measured no
// faster (docs/performance.md, "Parquet memory, continued"). Row groups
// begin in sequence order, so the oldest uncommitted one never waits for
// a writer held by a later one (no deadlock, whatever the row groups'
// sizes).
type groupPool struct {
	pw        *parquet.GenericWriter[any]
	own       *ownWriter // when set, the row groups are its
	max       int        // begun and not committed
	columns   int
	mu        sync.Mutex
	cond      sync.Cond
	committed int // row groups committed, in order
	free      []groupWriter
}

// groupWriter is a row group's writer and the values its encoder hands
// to it: a chunk's values exist only while it is converted and written,
// so one set per row group in flight is enough, whatever the number of
// encoders (each of their own kept a set as large as the largest chunk
// it had written).
type groupWriter struct {
	crg  rowGroupWriter
	cols [][]parquet.Value
}

func (p *groupPool) init(pw *parquet.GenericWriter[any], max, columns int) {
	p.pw, p.max, p.columns = pw, max, columns
	p.cond.L = &p.mu
}

// get returns the writer for row group seq once fewer than max row
// groups before it are uncommitted.
func (p *groupPool) get(seq int) groupWriter {
	p.mu.Lock()
	defer p.mu.Unlock()
	for seq >= p.committed+p.max {
		p.cond.Wait()
	}
	if n := len(p.free); n > 0 {
		g := p.free[n-1]
		p.free = p.free[:n-1]
		return g
	}
	if p.own != nil {
		return groupWriter{p.own.beginRowGroup(), make([][]parquet.Value, p.columns)}
	}
	return groupWriter{p.pw.BeginRowGroup(), make([][]parquet.Value, p.columns)}
}

// put records that the oldest row group is committed; its writer is
// reused if reuse (committed without error: Commit empties it).
func (p *groupPool) put(g groupWriter, reuse bool) {
	p.mu.Lock()
	p.committed++
	if reuse {
		p.free = append(p.free, g)
	}
	p.mu.Unlock()
	p.cond.Broadcast()
}
