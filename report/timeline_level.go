package report

import "sort"

// lkey is a detail level's (bucket, provider index).
type lkey struct {
	b int64
	p int32
}

// level counts events per (bucket, provider) at one finer resolution.
// Events come in time order, so their buckets mostly do too: the latest
// bucket's counts are a slice by provider index and the earlier buckets'
// a list in bucket order, with no map on the way (a map of every
// (bucket, provider) was a third of the observers' pass). A count for an
// earlier bucket (a stream whose events go back in time) is added to its
// entry in the list, or kept in a map when the list has none.
type level struct {
	width int64
	// The run of events of one key not counted yet.
	last lkey
	pend int32

	cur  int64    // the latest bucket (-1: none yet)
	curN []int32  // its counts by provider index
	curP []int32  // the providers it counts, in order of first count
	done []lcount // the earlier buckets' counts, by bucket
	late map[lkey]int32
}

type lcount struct {
	k lkey
	n int32
}

// count counts an event of key k. A run of events of one key is counted
// when it ends; count reports whether k starts one (the level may then
// hold one more entry).
func (l *level) count(k lkey) bool {
	if k == l.last {
		l.pend++
		return false
	}
	l.flush()
	l.last, l.pend = k, 1
	return true
}

// flush counts the pending run.
func (l *level) flush() {
	if l.pend == 0 {
		return
	}
	k, n := l.last, l.pend
	l.pend = 0
	if k.b > l.cur {
		for _, p := range l.curP {
			l.done = append(l.done, lcount{lkey{l.cur, p}, l.curN[p]})
			l.curN[p] = 0
		}
		l.curP = l.curP[:0]
		l.cur = k.b
	}
	if k.b == l.cur {
		if int(k.p) >= len(l.curN) {
			l.curN = append(l.curN, make([]int32, int(k.p)+1-len(l.curN))...)
		}
		if l.curN[k.p] == 0 {
			l.curP = append(l.curP, k.p)
		}
		l.curN[k.p] += n
		return
	}
	i := sort.Search(len(l.done), func(i int) bool { return l.done[i].k.b >= k.b })
	for ; i < len(l.done) && l.done[i].k.b == k.b; i++ {
		if l.done[i].k.p == k.p {
			l.done[i].n += n
			return
		}
	}
	if l.late == nil {
		l.late = map[lkey]int32{}
	}
	l.late[k] += n
}

// entries returns how many (bucket, provider) counts the level holds.
func (l *level) entries() int { return len(l.done) + len(l.curP) + len(l.late) }

// rows returns the level's counts as the timeline's detail rows, one
// per bucket in bucket order: the bucket, then a (series, count) pair
// for each series with a count, in series order (series maps a provider
// index to its series, of nseries), and how many numbers the rows hold.
// The earlier buckets' list is in bucket order already: only the counts
// kept in the map are sorted in.
func (l *level) rows(series []int, nseries int) ([][]int, int) {
	ents := make([]lcount, 0, l.entries())
	ents = append(ents, l.done...)
	for _, p := range l.curP {
		ents = append(ents, lcount{lkey{l.cur, p}, l.curN[p]})
	}
	if len(l.late) > 0 {
		for k, n := range l.late {
			ents = append(ents, lcount{k, n})
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].k.b < ents[j].k.b })
	}
	acc := make([]int, nseries)
	nums := make([]int, 0, 3*len(ents)) // a bucket and a pair per count at most: never moved
	rows := make([][]int, 0, len(ents))
	for i := 0; i < len(ents); {
		b := ents[i].k.b
		for ; i < len(ents) && ents[i].k.b == b; i++ {
			acc[series[ents[i].k.p]] += int(ents[i].n)
		}
		start := len(nums)
		nums = append(nums, int(b))
		for s, n := range acc {
			if n > 0 {
				nums = append(nums, s, n)
			}
			acc[s] = 0
		}
		rows = append(rows, nums[start:len(nums):len(nums)])
	}
	return rows, len(nums)
}
