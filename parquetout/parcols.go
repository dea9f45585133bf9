package parquetout

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/etwkit/etw/internal/panicerr"
	"github.com/parquet-go/parquet-go"
)

// Columns of a chunk are written on several goroutines when the machine
// has several processors: each column has a writer of its own in the row
// group (its buffer, dictionary, pages, statistics), so columns written
// at once make the same pages as columns written one after the other, and
// the file is the same. A row group is encoded by one encoder at a time
// (rowGroupsInFlight), whose goroutine alone did all of a chunk's
// conversion, encoding and compression: the dump's busiest goroutine
// (docs/performance.md).
const (
	// maxColumnWorkers bounds the goroutines that write a chunk's columns.
	maxColumnWorkers = 8
	// minParallelRows is the least rows of a chunk whose columns are
	// shared out: below it, starting goroutines costs more than it saves.
	minParallelRows = 64
)

// columnWorkers is how many goroutines write a chunk's columns: one per
// processor, at most maxColumnWorkers.
func columnWorkers() int { return min(runtime.GOMAXPROCS(0), maxColumnWorkers) }

// writeColumns gives each column writer of the row group its values of
// chunk c: the header columns made from s (appendColumn), the others
// taken from c's columns. On one goroutine, the columns are written in
// order and the first error stops them; on several, the columns not yet
// taken when one fails are not written, and the error of the failed
// column of lowest index is returned. Columns are shared out only while
// c lends its values (c.borrow): keep would copy into c's arena, which
// one goroutine at a time may grow.
func writeColumns[C valueWriter](w *Writer, cws []C, s *rowSet, c *chunk) error {
	n := min(w.colWorkers, len(cws), maxColumnWorkers)
	if n <= 1 || c.rows < minParallelRows || !c.borrow {
		// The values point into c.raw: cleared as they are after the
		// last column (writeColumn grows s.vals, so not a deferred
		// clear of the slice as it is now).
		defer func() { clear(s.vals) }()
		for i, cw := range cws {
			if err := s.writeColumn(cw, i, c, &w.bulk); err != nil {
				return err
			}
		}
		return nil
	}
	// Each goroutine writes through a rowSet of its own (scratch),
	// reading s's rows.
	var rss [maxColumnWorkers]*rowSet
	rss[0] = s
	for k := 1; k < n; k++ {
		rss[k] = s.share()
	}
	err := eachColumn(len(cws), n, func(k, i int) error { return rss[k].writeColumn(cws[i], i, c, &w.bulk) })
	for _, rs := range rss[1:n] {
		rs.unshare()
	}
	clear(s.vals)
	return err
}

// valueWriter is a column's writer: parquet-go's ColumnWriter, or ours
// (ownColumn).
type valueWriter interface {
	WriteRowValues(rows []parquet.Value) (int, error)
}

// columnFault, set by tests only, is called before column i is written:
// an error it returns (or a panic) is that column's.
var columnFault func(i int) error

// writeColumn writes column i's values of chunk c to cw; the header
// columns of bulk go in bulk (bulkValues).
func (s *rowSet) writeColumn(cw valueWriter, i int, c *chunk, bulk *[nMainColumns]bool) error {
	if columnFault != nil {
		if err := columnFault(i); err != nil {
			return err
		}
	}
	vals := c.cols[i]
	switch {
	case i < nMainColumns && bulk[i]:
		vals = s.bulkValues()
	case i < nMainColumns:
		oc, own := cw.(*ownColumn)
		if own && s.allNull(i) {
			return oc.writeNulls(s.n)
		}
		s.vals = s.appendColumn(s.vals[:0], i, c)
		if own {
			return oc.writeRowLevels(s.vals, s.defs, nil)
		}
		vals = s.vals
	default:
		// The stack columns' levels were made with their values.
		if oc, own := cw.(*ownColumn); own && i < len(c.defs) && c.defs[i] != nil {
			return oc.writeRowLevels(vals, c.defs[i], c.reps[i])
		}
	}
	_, err := cw.WriteRowValues(vals)
	return err
}

// eachColumn calls fn(k, i) for the columns i from 0 to n-1 on up to
// workers goroutines (k is the goroutine's index, 0 the calling one's),
// each taking the next column not yet taken until none is left or one
// failed. The columns are taken from the last: the stack list's and the
// text columns (properties, message), the dearest, are at the end, so
// that the cheap integer columns that come last fill the goroutines'
// ends. The columns not yet taken when one fails are not written; the
// error returned is that of the failed column of lowest index among those
// written, and a panic in fn is its column's error.
func eachColumn(n, workers int, fn func(k, i int) error) error {
	var (
		next atomic.Int32
		fail atomic.Bool
		mu   sync.Mutex
		err  error // of the failed column of lowest index
		at   int
	)
	run := func(k int) {
		for !fail.Load() {
			j := int(next.Add(1)) - 1
			if j >= n {
				return
			}
			i := n - 1 - j
			if e := callColumn(fn, k, i); e != nil {
				mu.Lock()
				if err == nil || i < at {
					err, at = e, i
				}
				mu.Unlock()
				fail.Store(true)
			}
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < min(workers, n); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(k)
		}()
	}
	run(0)
	wg.Wait()
	return err
}

// callColumn calls fn(k, i); a panic becomes its error.
func callColumn(fn func(k, i int) error, k, i int) (err error) {
	defer panicerr.Recover(&err)
	return fn(k, i)
}

// sharedRowSets holds the rowSets of share: their own storage is only
// scratch, which rowSets' users would grow again for rows.
var sharedRowSets = sync.Pool{New: func() any { return new(rowSet) }}

// share returns a rowSet that reads s's rows (which must not change until
// unshare) with scratch of its own.
func (s *rowSet) share() *rowSet {
	rs := sharedRowSets.Get().(*rowSet)
	vals, nums, defs := rs.vals, rs.nums, rs.defs
	*rs = *s
	rs.vals, rs.nums, rs.defs = vals, nums, defs
	return rs
}

// unshare returns a rowSet from share to its pool: it forgets the rows it
// read (their storage is s's) and the values its scratch holds.
func (rs *rowSet) unshare() {
	clear(rs.vals)
	vals, nums, defs := rs.vals[:0], rs.nums[:0], rs.defs[:0]
	*rs = rowSet{vals: vals, nums: nums, defs: defs}
	sharedRowSets.Put(rs)
}
