package report

import (
	"math/rand/v2"
	"testing"
)

// TestLevelCountsAsAMap: a detail level holds the counts and the number
// of distinct (bucket, provider) keys a map of them holds, whatever the
// order of the buckets (mostly rising, sometimes back to an earlier one,
// as a stream whose clock goes back gives them).
func TestLevelCountsAsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		l := &level{width: 1, cur: -1}
		want := map[lkey]int32{}
		seen := map[lkey]bool{} // the keys flushed
		b := int64(0)
		for range 2000 {
			switch r := rng.IntN(100); {
			case r < 20:
				b += int64(rng.IntN(3))
			case r < 23:
				b = max(0, b-int64(rng.IntN(8))) // back in time
			case r < 25:
				b += int64(rng.IntN(50))
			}
			k := lkey{b, int32(rng.IntN(7))}
			want[k]++
			if k == l.last && l.pend > 0 {
				l.pend++
				continue
			}
			if l.pend > 0 {
				seen[l.last] = true
			}
			l.flush()
			if l.entries() != len(seen) {
				t.Fatalf("round %d: %d entries, %d keys counted", round, l.entries(), len(seen))
			}
			l.last, l.pend = k, 1
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
