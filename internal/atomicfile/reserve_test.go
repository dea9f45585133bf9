package atomicfile

import (
	"errors"
	"syscall"
	"testing"
)

// TestReserverSteps: no reservation below reserveFrom; then each one
// starts where the last ended (or at the write), covers the write and a
// step of a quarter of the file within [reserveMin, reserveMax], and is
// made only when a write passes what is reserved; a failure ends them.
func TestReserverSteps(t *testing.T) {
	type call struct{ off, n int64 }
	var calls []call
	var fail bool
	r := reserver{on: true, fn: func(_ syscall.Conn, off, n int64) error {
		calls = append(calls, call{off, n})
		if fail {
			return errors.New("no space")
		}
		return nil
	}}
	const chunk = 256 << 10
	var off int64
	write := func(n int64) {
		r.ahead(nil, off, off+n)
		off += n
	}
	for off+chunk < reserveFrom {
		write(chunk)
	}
	if len(calls) != 0 || r.reserved != 0 {
		t.Fatalf("reserved below %d bytes: %v", reserveFrom, calls)
	}
	for off < 2<<30 {
		before, was := len(calls), r.reserved
		end := off + chunk
		write(chunk)
		if made := len(calls) > before; made != (end > was) {
			t.Fatalf("a write to %d with %d reserved: call made %v", end, was, made)
		} else if made && calls[before].off+calls[before].n != r.reserved {
			t.Fatalf("at %d: reserved up to %d, the call says %v", end, r.reserved, calls[before])
		}
		if r.reserved < end {
			t.Fatalf("a write to %d passed the space reserved (%d)", end, r.reserved)
		}
		if ahead := r.reserved - end; ahead > reserveMax {
			t.Fatalf("at %d: %d bytes reserved ahead, more than %d", end, ahead, reserveMax)
		}
	}
	if r.reserved == 0 {
		t.Fatal("nothing reserved")
	}
	for i, c := range calls {
		if i > 0 && c.off != calls[i-1].off+calls[i-1].n {
			t.Errorf("call %d starts at %d, not where the last ended (%d)", i, c.off, calls[i-1].off+calls[i-1].n)
		}
		if i > 0 && (c.n < reserveMin || c.n > reserveMax+chunk) {
			t.Errorf("call %d reserves %d bytes, outside [%d, %d]", i, c.n, reserveMin, reserveMax+chunk)
		}
	}
	// 2 GB written in at most ~2 GB/16 MiB calls, far fewer than writes.
	if len(calls) > (2<<30)/reserveMin {
		t.Errorf("%d calls for 2 GB", len(calls))
	}
	fail = true
	n := len(calls)
	for off <= r.reserved { // up to the write past what is reserved: its call fails
		write(chunk)
	}
	write(chunk)
	if len(calls) != n+1 || r.on {
		t.Errorf("after a failure: %d more calls, on %v; want one, then none", len(calls)-n, r.on)
	}
}
