//go:build linux

// Command timeit runs a command and writes its wall time, CPU time and
// peak resident set to a file, as /usr/bin/time -f '%e %U %S %M' does,
// for the repository's measuring scripts (scripts/speed.sh):
//
//	timeit OUT COMMAND [ARG...]
//
// OUT gets one line, "wall cpu peakKiB": the seconds from just before the
// command is started to when it has been waited for (to the microsecond),
// its user and system seconds, and its peak resident set in KiB. The
// command's standard input, output and error are timeit's. timeit exits
// with the command's exit status (1 if it could not be run or was killed
// by a signal), after writing OUT.
//
// Unlike /usr/bin/time run from a shell script, the wall time holds only
// the command's own run: /usr/bin/time's start and the shell's fork and
// exec of it added ~1.6 ms and ~0.9 ms to every run on the host of
// docs/performance.md ("Session 32"), a tenth of a 25 ms run. Linux
// only, like the scripts.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: timeit OUT COMMAND [ARG...]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2], os.Args[3:]))
}

func run(out, name string, args []string) int {
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 1
	}
	ps := cmd.ProcessState
	ru, _ := ps.SysUsage().(*syscall.Rusage)
	var cpu time.Duration
	var peak int64
	if ru != nil {
		cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
		peak = ru.Maxrss // KiB on Linux
	}
	line := fmt.Sprintf("%.6f %.6f %d\n", wall.Seconds(), cpu.Seconds(), peak)
	if err := os.WriteFile(out, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "timeit:", err)
		return 1
	}
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}
