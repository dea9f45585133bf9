package parquetout

import (
	"testing"

	"github.com/parquet-go/parquet-go"
)

// countingPage counts the calls of its Bounds.
type countingPage struct {
	parquet.Page
	calls int
}

func (p *countingPage) Bounds() (min, max parquet.Value, ok bool) {
	p.calls++
	return p.Page.Bounds()
}

// TestKeptPageBounds checks that a kept column's page gives the bounds
// the library's page gives, asks the library once however often it is
// asked, and the page made after more values were written has theirs.
func TestKeptPageBounds(t *testing.T) {
	buf := keepBounds(parquet.Int(64)).Type().NewColumnBuffer(0, 8)
	if _, err := buf.WriteValues([]parquet.Value{parquet.Int64Value(5), parquet.Int64Value(-3), parquet.Int64Value(9)}); err != nil {
		t.Fatal(err)
	}
	page := buf.Page()
	min, max, ok := page.Bounds()
	if !ok || min.Int64() != -3 || max.Int64() != 9 {
		t.Fatalf("bounds %v, %v, %v; want -3, 9", min, max, ok)
	}
	lmin, lmax, lok := page.(*keptPage).Page.Bounds()
	if lok != ok || lmin.Int64() != min.Int64() || lmax.Int64() != max.Int64() {
		t.Errorf("bounds %v, %v; the library's %v, %v", min, max, lmin, lmax)
	}
	kp := page.(*keptPage)
	counted := &countingPage{Page: kp.Page}
	kp.Page, kp.done = counted, false
	for range 3 {
		page.Bounds()
	}
	if counted.calls != 1 {
		t.Errorf("the library's Bounds called %d times for 3 calls, want 1", counted.calls)
	}
	if _, err := buf.WriteValues([]parquet.Value{parquet.Int64Value(-40)}); err != nil {
		t.Fatal(err)
	}
	page = buf.Page()
	if min, _, _ := page.Bounds(); min.Int64() != -40 {
		t.Errorf("min %v after -40 was written, want -40", min)
	}
}
