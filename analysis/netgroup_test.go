package analysis

import "testing"

// TestGroupBounded: once a table holds maxNetGroups keys, every new key
// counts in the one value of the "other" key, and the known keys keep
// their own.
func TestGroupBounded(t *testing.T) {
	m := map[int]*NetGroup{}
	first := group(m, 1, 0)
	for k := 2; len(m) < maxNetGroups; k++ {
		group(m, k, 0)
	}
	a := group(m, -1, 0)
	b := group(m, -2, 0)
	if a != b || a != m[0] || a == first || len(m) != maxNetGroups+1 {
		t.Fatalf("other %p %p (map %p, first %p), %d keys; want one shared other value, %d keys", a, b, m[0], first, len(m), maxNetGroups+1)
	}
	if group(m, 1, 0) != first || m[-1] != nil {
		t.Fatal("a known key lost its value, or a new key past the bound got its own")
	}
}
