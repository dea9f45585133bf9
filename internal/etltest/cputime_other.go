//go:build !unix

package etltest

import "time"

// ProcessCPU returns 0 where getrusage is missing: benchmarks then report
// no CPU time.
func ProcessCPU() time.Duration { return 0 }
