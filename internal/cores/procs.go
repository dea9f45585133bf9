// Package cores says whether work split over goroutines can run at once.
package cores

import "runtime"

// Several reports whether more than one goroutine runs at a time
// (GOMAXPROCS > 1): whether a pass split over goroutines gains, rather
// than only paying for the handoff.
func Several() bool { return runtime.GOMAXPROCS(0) > 1 }
