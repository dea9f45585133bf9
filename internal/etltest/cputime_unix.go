//go:build unix

package etltest

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time this process has used so far (user and
// system, every thread): benchmarks report its difference per run, which
// says how much of the machine's cores a run keeps busy.
func ProcessCPU() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
