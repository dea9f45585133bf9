package prefault

import (
	"runtime"
	"syscall"
	"testing"
)

// skipUnderRace skips a test that counts page faults under the race
// detector.
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("counts page faults: the race detector's shadow memory faults as well")
	}
}

// minorFaults returns the process's minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

type slot [4]uint64 // 32 bytes

// readWrite reads every page of s and then writes it, as a cache's
// first probes and insertions do, and returns the page faults that
// took.
func readWrite(t *testing.T, s []slot) int64 {
	t.Helper()
	const perPage = 4096 / 32
	f0 := minorFaults(t)
	var sum uint64
	for i := 0; i < len(s); i += perPage {
		sum += s[i][0]
	}
	for i := 0; i < len(s); i += perPage {
		s[i][0] = sum + 1
	}
	return minorFaults(t) - f0
}

// threadFaults returns the minor page faults of the calling thread so
// far (RUSAGE_THREAD).
func threadFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// ptrSlot holds pointers: clearing it while the collector marks goes
// through the write barrier.
type ptrSlot struct {
	P    *int
	S    string
	_, _ uint64
}

// TestMakeWhileMarking checks that Make maps each page of a table of
// pointers once even while the collector marks (a goroutine collects
// again and again over a heap of pointers): clearing the tables as typed
// memory read every pointer through the write barrier first, which
// mapped the zero page under each page before the write copied it. The
// faults are the calling thread's, which makes the tables and runs the
// barrier; each table is larger than the last, so that its memory is
// fresh (the test comes first in the package, before others free
// memory the heap would reuse). Clearing as typed memory took 2.1 faults
// a page here, as bytes 1.26.
func TestMakeWhileMarking(t *testing.T) {
	skipUnderRace(t)
	live := make([]*[64]*int, 1<<15) // something to mark
	for i := range live {
		live[i] = new([64]*int)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const pages = 256
	var kept [][]ptrSlot
	var total int64
	f0 := threadFaults(t)
	for r := range 32 {
		n := (pages + 8*r) * 4096 / 32
		kept = append(kept, Make[ptrSlot](n))
		total += int64(n * 32 / 4096)
	}
	faults := threadFaults(t) - f0
	close(stop)
	<-done
	runtime.KeepAlive(kept)
	runtime.KeepAlive(live)
	t.Logf("%d faults on the thread that made 32 tables of %d pages in all while collecting", faults, total)
	if faults < total*3/4 {
		t.Skipf("%d faults for %d pages: the heap's memory was not fresh here", faults, total)
	}
	if faults > total*8/5 {
		t.Errorf("%d faults for %d pages: Make's writes mapped pages twice", faults, total)
	}
}

// TestMakeFaultsOnce checks the point of the package: a fresh table made
// by Make takes no fault when it is then read and written, where one
// from make takes one or two a page. Fresh memory comes from the kernel
// only for a heap that grows, so each table is larger than the last.
func TestMakeFaultsOnce(t *testing.T) {
	skipUnderRace(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const pages = 1024
	n := pages * 4096 / 32
	var kept [][]slot // keep the tables so that their memory is not reused
	var plain, touched int64
	for r := range 4 {
		s := make([]slot, n*(2*r+1))
		plain += readWrite(t, s)
		p := Make[slot](n * (2*r + 2))
		touched += readWrite(t, p)
		kept = append(kept, s, p)
	}
	runtime.KeepAlive(kept)
	t.Logf("faults while read and written: make %d, Make %d (tables of %d to %d pages)", plain, touched, pages, 8*pages)
	if plain < pages {
		t.Skipf("make's tables took %d faults for at least %d fresh pages: the heap's memory was not fresh here", plain, 4*pages)
	}
	if touched > plain/10 {
		t.Errorf("tables from Make took %d faults when read and written, make's %d: Make should have mapped their pages", touched, plain)
	}
}

func TestTouch(t *testing.T) {
	s := []int{1, 2, 3, 4}
	if got := Touch(s[:2]); len(got) != 2 || s[0] != 0 || s[1] != 0 || s[2] != 3 {
		t.Errorf("Touch(s[:2]) = %v, s = %v: want the first two zeroed, the rest kept", got, s)
	}
	if testing.AllocsPerRun(10, func() { Touch(s) }) != 0 {
		t.Error("Touch allocates")
	}
}

// TestNew checks that New returns a zero value of its own each time.
func TestNew(t *testing.T) {
	a, b := New[[512]slot](), New[[512]slot]()
	if a == b || a[511] != (slot{}) || b[0] != (slot{}) {
		t.Fatalf("New returned %p and %p, or memory that is not zero", a, b)
	}
}
