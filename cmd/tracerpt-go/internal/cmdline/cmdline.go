// Package cmdline reads tracerpt-go's command line while the program's
// packages are still being initialised. Its initialisation starts the
// built-in schemas' registry ([decode.Warm]) when the command may decode
// events, so that with two processors or more it is made on one while
// the other initialises the packages that come after this one (net/http
// and TLS, the templates, cobra, the Parquet library's own package):
// started from main, after every package, the registry was still being
// made when the command first needed it (`stats` on two processors 1–4
// ms faster, docs/performance.md, "Session 32").
//
// It imports as little as it can, so that it is initialised early: the
// packages are initialised in the order of their import paths, each
// after what it imports. It must not import cobra (whose templates
// come late); the names of cobra's completion requests are spelt out
// here, and a test holds them to cobra's.
package cmdline

import (
	"os"
	"runtime"

	"github.com/etwkit/etw/decode"
)

func init() {
	// Before the program's first goroutine allocates (the runtime reads
	// the rate at every allocation).
	runtime.MemProfileRate = 0
	if os.Getenv("TRACERPT_GO_MEMPROFILE") != "" {
		runtime.MemProfileRate = MemProfileRate
	}
	if MayDecode(os.Args[1:]) {
		decode.Warm()
	}
}

// MemProfileRate is the heap profile's sampling rate when
// TRACERPT_GO_MEMPROFILE asks for one. Otherwise the sampling is off: Go
// samples an allocation every 512 KiB for a profile nothing would write,
// recording each sample's stack, and the first samples fault in the
// profiler's hash table.
const MemProfileRate = 64 << 10

// The names of cobra's hidden completion commands
// (cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd).
const (
	shellCompRequestCmd       = "__complete"
	shellCompNoDescRequestCmd = "__completeNoDesc"
)

// MayDecode reports whether the command line may decode events: not when
// it only asks for help or a shell completion script.
func MayDecode(args []string) bool {
	return len(args) > 0 && !TreeCommand(args[0]) && !AsksHelp(args)
}

// TreeCommand reports whether a first argument names a command that works
// on the tree of commands: help, cobra's completion and its requests.
func TreeCommand(a string) bool {
	switch a {
	case "help", "completion", shellCompRequestCmd, shellCompNoDescRequestCmd:
		return true
	}
	return false
}

// AsksHelp reports whether args hold a help option before "--" (the help
// of the root command lists every command).
func AsksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "--help":
			return true
		case "--":
			return false
		}
	}
	return false
}
