// Command tracerpt-go reads Windows ETW trace files (.etl) on any platform.
//
// It takes the command line of Windows' tracerpt (single-dash options such
// as -of, -summary and -lr work as well as their --long forms) and writes
// tracerpt's XML and CSV dumps and summary file, plus what scripts expect:
// JSON Lines, filters, and a machine-readable info command.
//
//	tracerpt-go trace.etl                         # dumpfile.xml, as tracerpt
//	tracerpt-go trace.etl -of CSV -o out.csv -y   # tracerpt's CSV
//	tracerpt-go trace.etl -summary                # summary.txt only
//	tracerpt-go trace.etl -of JSON -o - | head    # JSON Lines on standard output
//	tracerpt-go info trace.etl                    # header facts and record counts
//
// Exit status: 0 success, 1 failure while processing (an internal error
// too), 2 bad command line, 3 an input file is missing, unreadable or not
// an ETL file, 4 an output exists and -y was not given, 5 damaged input
// with --strict, 6 a schema file cannot be used (docs/cli.md).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"syscall"
	_ "time/tzdata" // -tz with IANA names on machines without a zone database

	"github.com/etwkit/etw/internal/atomicfile"
	"github.com/etwkit/etw/internal/memgoal"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes (docs/cli.md).
const (
	exitOK        = 0
	exitFailure   = 1 // processing failed (output not writable, …)
	exitUsage     = 2 // bad command line
	exitInput     = 3 // an input file is missing, unreadable or not an ETL file
	exitExists    = 4 // an output file exists and -y was not given
	exitCorrupt   = 5 // damaged input with --strict
	exitEmpty     = 7 // stacks found nothing to profile (no file written)
	exitMalformed = 6 // a schema file (-import, schemas) or synth's input is malformed, damaged, over a bound or holds no schemas
)

// exitError carries the exit code of an error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code, err}
}

// exitCode returns the process exit status for err.
func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	if err == nil {
		return exitOK
	}
	return exitFailure
}

func main() {
	// Package cmdline's initialisation has turned the heap profile's
	// sampling off (or set it for TRACERPT_GO_MEMPROFILE) and started
	// making the built-in schemas' registry when the command may decode.
	// Writes to a closed pipe (tracerpt-go … -o - | head) return EPIPE
	// instead of killing the process; the dump then ends quietly.
	signal.Ignore(syscall.SIGPIPE)
	// Installing the interrupt handler waits for the runtime's signal
	// thread to start (0.5 ms, a sixth of a small trace's run): it is
	// done on a goroutine of its own, and the output files wait for it
	// instead (an interrupt before it is in place ends the process
	// before it has written anything).
	ready := make(chan struct{})
	atomicfile.WaitBeforeCreate(ready)
	go func() {
		handleInterrupt()
		close(ready)
	}()
	goal = memgoal.Start(memTarget)
	os.Exit(memProfiled(func() int { return profiled(func() int { return run(os.Args[1:], os.Stdout, os.Stderr) }) }))
}

// memTarget is the Go runtime memory the program keeps near (heap,
// stacks and the runtime's structures; about 20 MB of mapped program
// comes on top in the resident size): the dumps' and tables' peaks stay
// under 96 MB while their live heap stays under about 50 MB, and a larger
// live heap gets a quarter of itself to grow into (internal/memgoal,
// docs/performance.md). GOMEMLIMIT or GOGC in the environment override it.
const memTarget = 72 << 20

// analysisMinGoal replaces memgoal.MinGoal for stats, stacks and report
// (and their --baseline comparisons): the heap may grow to half of
// memTarget, 36 MB, before the first collection, not a quarter. What they
// hold grows with the model and what the passes keep (the .NET methods'
// queue, the values decoded ahead, the frames), with little garbage, and
// on two processors passed 18 MB on net.4.5.2: a collection there took
// one processor for its marking through 5-10 ms of the model pass (stacks
// 82-84 -> 73-76 ms without it, report 165-188 -> 155-157 ms, stacks of
// net.4.5.2 ×16 1.16 -> 0.79 s in one run; peaks +3-9 MB on net.4.5.2, within
// memTarget as before: docs/performance.md, "Session 31"). The dumps,
// tables and the Parquet output keep MinGoal: their peaks have bounds
// close to what they use.
const analysisMinGoal = 0.5

// textDumpTarget replaces memTarget for the XML, CSV and JSON dumps
// (dump.go): what they hold live (the analysis model, the batches in
// flight) is most of their memory and they allocate little once
// running, so that a lower target costs a few collections and keeps their
// peak resident memory under 64 MB for one input, as docs/cli.md,
// "Memory", says; docs/performance.md has the cost. Peak RSS of
// net.4.5.2 ×16 (scripts/scale.sh's c16): 52-58 MiB in session 9, 46-53
// in session 11 (CSV 46, XML 52, JSON 53); 16 inputs at once 66-72, then
// 51-66 (CSV, XML 53, JSON 66): /usr/bin/time, -o /dev/null, one run
// each on a loaded host.
const textDumpTarget = 40 << 20

// goal is the memory goal main starts (nil when GOMEMLIMIT or GOGC is
// set).
var goal *memgoal.Tuner

// exitInterrupted is the exit status after SIGINT or SIGTERM (128+2, as
// shells report a process killed by SIGINT).
const exitInterrupted = 130

// handleInterrupt makes SIGINT (Ctrl-C) and SIGTERM remove the temporary
// files of outputs being written before the program exits: existing
// outputs stay as they were and no partial file is left.
func handleInterrupt() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-c
		atomicfile.RemovePending()
		fmt.Fprintf(os.Stderr, "tracerpt-go: %v: stopped, no output written\n", s)
		os.Exit(exitInterrupted)
	}()
}

// profiled runs f, writing a CPU profile to the file named by the
// environment variable TRACERPT_GO_CPUPROFILE (go tool pprof tracerpt-go
// FILE) and an execution trace to the one named by TRACERPT_GO_TRACE (go
// tool trace FILE shows what each goroutine did when) when they are set,
// for performance work.
func profiled(f func() int) int {
	return recording("TRACERPT_GO_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile, func() int {
		return recording("TRACERPT_GO_TRACE", trace.Start, trace.Stop, f)
	})
}

// recording runs f, with start and stop around it writing to the file
// named by the environment variable env when it is set. A file that
// cannot be created or started is reported on standard error, and f runs
// without it.
func recording(env string, start func(io.Writer) error, stop func(), f func() int) int {
	path := os.Getenv(env)
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tracerpt-go: %s: %v\n", env, err)
		return f()
	}
	defer out.Close()
	if err := start(out); err != nil {
		fmt.Fprintf(os.Stderr, "tracerpt-go: %s: %v\n", env, err)
		return f()
	}
	defer stop()
	return f()
}

// run executes the command line args and returns the exit status. A
// panic in a command is reported as an internal error naming the inputs
// (exit status 1).
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(args, stdout, stderr, addSubcommands)
}

// runWith is run with the subcommands added by add (given the normalized
// arguments): the tests compare addSubcommands' choice with the full tree.
func runWith(args []string, stdout, stderr io.Writer, add func(root *cobra.Command, args []string)) int {
	out := &checkedWriter{w: stdout}
	cmd := newRootCmd(out, stderr)
	err := checkUnsupported(args)
	if err == nil {
		nargs := normalizeArgs(args, longFlagNames(cmd))
		add(cmd, nargs)
		cmd.SetArgs(nargs)
		err = execute(cmd, nargs)
	}
	if err == nil && out.err != nil {
		err = withCode(exitFailure, fmt.Errorf("writing standard output: %w", out.err))
	}
	if err == nil || errors.Is(err, syscall.EPIPE) {
		return exitOK
	}
	fmt.Fprintln(stderr, "tracerpt-go:", err)
	return exitCode(err)
}

// execute runs the command, recovering a panic as an internal error.
func execute(cmd *cobra.Command, args []string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError(r, commandInputs(cmd, args))
		}
	}()
	return workerPanic(cmd.Execute(), commandInputs(cmd, args))
}

// tracerptLongFlags are tracerpt's multi-letter options, written with one
// dash on Windows, and this program's own long options, which may be
// written the same way.
var tracerptLongFlags = map[string]bool{
	"of": true, "summary": true, "report": true, "import": true, "lr": true, "export": true, "config": true,
	"tz": true, "culture": true, "rts": true, "en": true,
}

// optionalValue are the options whose value may be left out (tracerpt's
// "-summary [file]", "-o [file]"); the value is the next argument unless
// that is an option or an .etl input.
var optionalValue = map[string]string{"summary": "summary.txt", "o": "", "report": "workload.html", "export": "schema.man"}

// normalizeArgs rewrites tracerpt's command line for pflag: "-of" becomes
// "--of" (for every long option of the command); "-summary" and "-o"
// without a value get their default; "-import a.man b.man" becomes one
// --import per file. Everything else passes through. longs are the root
// command's long option names (longFlagNames of the
// command run has made: making another to find them took a tenth of a
// millisecond of every run's start).
func normalizeArgs(args []string, longs map[string]bool) []string {
	// Subcommands whose -o is a required value (relog and synth write
	// .etl files) take the next argument whatever it looks like.
	relog := len(args) > 0 && (args[0] == "relog" || args[0] == "synth" || args[0] == "pcapng" || args[0] == "stacks" || args[0] == "report")
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || a == "-" {
			out = append(out, a)
			continue
		}
		body := strings.TrimLeft(a, "-")
		dashes := len(a) - len(body)
		name, val, hasVal := strings.Cut(body, "=")
		lname := strings.ToLower(name)
		if dashes <= 2 && tracerptAliases(lname, val, hasVal, args, &i, &out) {
			continue
		}
		if dashes == 1 && (len(lname) == 1 && lname != "o" || !tracerptLongFlags[lname] && !longs[lname] && lname != "o") {
			out = append(out, a) // shorthand (-y, -l) or a negative value
			continue
		}
		if dashes > 2 || (dashes == 2 && !longs[lname] && !tracerptLongFlags[lname]) {
			out = append(out, a)
			continue
		}
		flag := "--" + lname
		if def, ok := optionalValue[lname]; ok && !hasVal {
			if i+1 < len(args) && (isOptionValue(args[i+1], lname) || relog && lname == "o" && !strings.HasPrefix(args[i+1], "-")) {
				out = append(out, flag+"="+args[i+1])
				i++
			} else {
				out = append(out, flag+"="+def)
			}
			continue
		}
		if lname == "import" && !hasVal {
			n := 0
			for i+1 < len(args) && isOptionValue(args[i+1], lname) {
				out = append(out, "--import="+args[i+1])
				i++
				n++
			}
			if n == 0 {
				out = append(out, "--import")
			}
			continue
		}
		if hasVal {
			out = append(out, flag+"="+val)
		} else {
			out = append(out, flag)
		}
	}
	return out
}

// tracerptAliases rewrites tracerpt's options that map onto ours: -tmf
// FILE and -tp DIR are -import, -gmt is -tz UTC, -f FORMAT is the
// -report format. It reports whether args[*i] was one of them (and
// consumes its value).
func tracerptAliases(lname, val string, hasVal bool, args []string, i *int, out *[]string) bool {
	next := func() string {
		if hasVal {
			return val
		}
		if *i+1 < len(args) {
			*i++
			return args[*i]
		}
		return ""
	}
	switch lname {
	case "tmf", "tp":
		*out = append(*out, "--import="+next())
	case "pdb":
		// A PDB file gives its WPP message formats (as tracerpt's
		// -pdb does); anything else is a symbol path.
		v := next()
		if st, err := os.Stat(v); err == nil && st.Mode().IsRegular() && strings.EqualFold(filepath.Ext(v), ".pdb") {
			*out = append(*out, "--import="+v)
		} else {
			*out = append(*out, "--symbols="+v)
		}
	case "gmt":
		*out = append(*out, "--tz=UTC")
	case "?":
		*out = append(*out, "--help")
	case "f":
		*out = append(*out, "--report-format="+next())
	default:
		return false
	}
	return true
}

// tracerptUnsupported answers tracerpt's options that cannot be honoured
// here, in tracerpt's terms.
var tracerptUnsupported = map[string]string{
	"rt":  "-rt: real-time sessions need Windows; tracerpt-go reads .etl files (record one with wpr, logman or xperf and pass it)",
	"i":   "-i: image paths for WPP symbol lookup are not supported; decode WPP messages with -tmf FILE or -tp DIR",
	"int": "-int: tracerpt's interpreted event structure dump is not supported; 'tracerpt-go schemas FILE' lists the event structures",
	"df":  "-df: tracerpt's counting/reporting schema file is not supported",
	"rl":  "-rl: report levels are not supported; -report writes one full report",
	"mof": "-mof: not an option; MOF schema files are imported with -import FILE.mof",
}

// checkUnsupported returns a usage error for the first of tracerpt's
// options in args that tracerpt-go cannot honour.
func checkUnsupported(args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if msg, ok := tracerptUnsupported[strings.ToLower(name)]; ok && len(a)-len(strings.TrimLeft(a, "-")) <= 2 {
			return usageError(errors.New(msg))
		}
	}
	return nil
}

// isOptionValue reports whether arg can be the value of an option whose
// value is optional or repeated: not another option and, for -import, not
// an input trace (a name ending in .etl or .etl.NNN). "-" (standard
// output) is a value of -o. A trace name after -o, -summary or -report is
// their value, so that the dump rejects it ("relog writes ETL files")
// instead of reading the intended output as an input.
func isOptionValue(arg, flag string) bool {
	if arg == "-" {
		return flag == "o" || flag == "summary"
	}
	if strings.HasPrefix(arg, "-") || arg == "" {
		return false
	}
	switch flag {
	case "o", "summary", "report":
		return true
	}
	return !looksLikeTrace(arg)
}

func looksLikeTrace(arg string) bool {
	l := strings.ToLower(arg)
	if strings.HasSuffix(l, ".etl") {
		return true
	}
	if i := strings.LastIndex(l, ".etl."); i >= 0 {
		rest := l[i+5:]
		return rest != "" && strings.Trim(rest, "0123456789*?") == ""
	}
	return false
}

// longFlagNames returns the long option names of cmd, the root command.
func longFlagNames(cmd *cobra.Command) map[string]bool {
	m := map[string]bool{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) { m[f.Name] = true })
	m["help"] = true
	return m
}

func usageError(err error) error { return withCode(exitUsage, err) }

// setFlagErrors makes flag parsing errors usage errors (exit status 2).
func setFlagErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(fmt.Errorf("%w (run '%s --help' for usage)", err, c.CommandPath()))
	})
}
