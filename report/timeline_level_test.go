package report

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// each calls fn with every (bucket, provider) count, in no set order.
func (l *level) each(fn func(k lkey, n int32)) {
	for _, c := range l.done {
		fn(c.k, c.n)
	}
	for _, p := range l.curP {
		fn(lkey{l.cur, p}, l.curN[p])
	}
	for k, n := range l.late {
		fn(k, n)
	}
}

// nextKey moves the bucket b on as a trace's events do, mostly rising
// and sometimes back to an earlier one (a stream whose clock goes back),
// and returns the next key, of one of 7 providers.
func nextKey(rng *rand.Rand, b *int64) lkey {
	switch r := rng.IntN(100); {
	case r < 20:
		*b += int64(rng.IntN(3))
	case r < 23:
		*b = max(0, *b-int64(rng.IntN(8)))
	case r < 25:
		*b += int64(rng.IntN(50))
	}
	return lkey{*b, int32(rng.IntN(7))}
}

// TestLevelRows: a level's detail rows are those of a map from bucket to
// the counts by series (what the timeline built before), sorted by bucket:
// with counts for earlier buckets (the level's map) and without.
func TestLevelRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	series := []int{0, 1, 2, 2, 3, 3, 3} // providers beyond the top share a series
	const nseries = 4
	sawLate := false
	for round := range 50 {
		l := &level{width: 1, cur: -1}
		b := int64(0)
		for range 1 + rng.IntN(3000) {
			l.count(nextKey(rng, &b))
		}
		l.flush()
		sawLate = sawLate || len(l.late) > 0
		byBucket := map[int64][]int{}
		l.each(func(k lkey, n int32) {
			r := byBucket[k.b]
			if r == nil {
				r = make([]int, nseries)
				byBucket[k.b] = r
			}
			r[series[k.p]] += int(n)
		})
		var want [][]int
		wantN := 0
		for b, counts := range byBucket {
			row := []int{int(b)}
			for s, v := range counts {
				if v > 0 {
					row = append(row, s, v)
				}
			}
			wantN += len(row)
			want = append(want, row)
		}
		slices.SortFunc(want, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
		got, n := l.rows(series, nseries)
		if n != wantN || !slices.EqualFunc(got, want, slices.Equal[[]int]) {
			t.Fatalf("round %d: %d numbers %v, want %d %v", round, n, got, wantN, want)
		}
	}
	if !sawLate {
		t.Fatal("no level kept a count for an earlier bucket: the test does not test the sort")
	}
	if got, n := (&level{cur: -1}).rows(series, nseries); got == nil || len(got) != 0 || n != 0 {
		t.Errorf("empty level: %v, %d numbers; want no rows (not nil: the JSON says [])", got, n)
	}
}

// TestLevelCountsAsAMap: a detail level holds the counts and the number
// of distinct (bucket, provider) keys a map of them holds, whatever the
// order of the buckets (mostly rising, sometimes back to an earlier one,
// as a stream whose clock goes back gives them).
func TestLevelCountsAsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		l := &level{width: 1, cur: -1}
		want := map[lkey]int32{}
		b := int64(0)
		var prev lkey
		firstRun := false // the run of equal keys k ends is k's first
		for i := range 2000 {
			k := nextKey(rng, &b)
			if i == 0 || k != prev {
				firstRun = want[k] == 0
			}
			want[k]++
			prev = k
			l.count(k)
			// Every key of the stream so far has its entry, but for one
			// whose only run is the one still pending.
			n := len(want)
			if firstRun {
				n--
			}
			if l.entries() != n {
				t.Fatalf("round %d: %d entries after %d distinct keys (the last run's new: %v)", round, l.entries(), len(want), firstRun)
			}
		}
		l.flush()
		got := map[lkey]int32{}
		l.each(func(k lkey, n int32) {
			if _, dup := got[k]; dup {
				t.Fatalf("round %d: key %v given twice", round, k)
			}
			got[k] = n
		})
		if len(got) != len(want) || l.entries() != len(want) {
			t.Fatalf("round %d: %d keys (entries %d), want %d", round, len(got), l.entries(), len(want))
		}
		for k, n := range want {
			if got[k] != n {
				t.Fatalf("round %d: %v counts %d, want %d", round, k, got[k], n)
			}
		}
		if round == 0 && len(l.late) == 0 {
			t.Fatal("no count for an earlier bucket's new key: the test does not test the map")
		}
	}
}
