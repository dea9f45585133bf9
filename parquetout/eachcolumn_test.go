package parquetout

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEachColumn: every column is called once, on one goroutine or
// several, each goroutine with its own index; after failures the error
// returned is that of the failed column of lowest index among those
// written, not the first to fail (a panic is an error).
func TestEachColumn(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		for _, n := range []int{0, 1, 7, 40} {
			var mu sync.Mutex
			calls := make([]int, n)
			if err := eachColumn(n, workers, func(k, i int) error {
				if k < 0 || k >= min(workers, n) {
					t.Errorf("%d workers, %d columns: goroutine index %d", workers, n, k)
				}
				mu.Lock()
				calls[i]++
				mu.Unlock()
				return nil
			}); err != nil {
				t.Fatalf("%d workers, %d columns: %v", workers, n, err)
			}
			for i, c := range calls {
				if c != 1 {
					t.Errorf("%d workers, %d columns: column %d called %d times", workers, n, i, c)
				}
			}
		}
		// One goroutine stops at the first failure: columns are taken
		// from the last, so column 30's error of 30 and 3.
		if workers == 1 {
			err := eachColumn(40, 1, func(_, i int) error {
				if i == 30 || i == 3 {
					return fmt.Errorf("column %d", i)
				}
				return nil
			})
			if err == nil || err.Error() != "column 30" {
				t.Errorf("one worker: error %v, want column 30's", err)
			}
			continue
		}
		// Several: column 35 fails once column 5 is taken (the other
		// goroutines go on down to it meanwhile), and column 5 fails
		// after it: the lower index's error wins, though it came last.
		started5, failed35 := make(chan struct{}), make(chan struct{})
		err := eachColumn(40, workers, func(_, i int) error {
			switch i {
			case 35:
				<-started5
				close(failed35)
				return errors.New("column 35")
			case 5:
				close(started5)
				<-failed35
				time.Sleep(20 * time.Millisecond) // column 35's error is kept first
				return errors.New("column 5")
			}
			return nil
		})
		if err == nil || err.Error() != "column 5" {
			t.Errorf("%d workers: error %v, want column 5's", workers, err)
		}
	}
	// A panic in a column is its error, on any goroutine.
	for _, workers := range []int{1, 3} {
		err := eachColumn(10, workers, func(_, i int) error {
			if i == 9 {
				panic("boom")
			}
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("%d workers: error %v, want the panic's", workers, err)
		}
	}
}
