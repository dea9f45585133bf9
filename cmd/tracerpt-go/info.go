package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventjson"
	"github.com/etwkit/etw/internal/texttable"
	"github.com/etwkit/etw/report"
	"github.com/etwkit/etw/tracerpt"
)

// fileInfo is the JSON form of "info --json" (docs/cli.md). The embedded
// facts' fields are promoted, so the JSON object stays flat.
type fileInfo struct {
	Schema string `json:"schema"` // of the JSON dump's events: eventjson.SchemaName
	report.FileFacts
	Errors []infoError `json:"errors"`
}

type infoError struct {
	Offset       int64  `json:"offset"`
	RecordOffset *int64 `json:"record_offset,omitempty"`
	Message      string `json:"message"`
}

func newInfoCmd() *cobra.Command {
	var asJSON, strict, verbose bool
	cmd := &cobra.Command{
		Use:   "info [--json] [--strict] [-v] FILE...",
		Short: "Show a file's header facts and record counts",
		Long: `info reads every buffer and record of each file and prints the log-file
header facts with the counts of buffers and records per header type.
With --json it writes one JSON object per file (JSON Lines). Globs ("logs/*.etl")
and AutoLogger sequences (trace.etl for trace.etl.001, …) name each file they
match. -v prints each damaged buffer or record on standard error; --strict ends
with exit status 5 when any file is damaged (after reporting every file).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("info: no input file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			paths, err := tracerpt.ExpandInputs(args)
			if err != nil {
				return withCode(exitInput, err)
			}
			failed, damaged := 0, 0
			for _, path := range paths {
				fi, err := gatherInfo(path)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: %v\n", err)
					failed++
					continue
				}
				if len(fi.Errors) > 0 {
					damaged++
				}
				if verbose {
					for _, e := range fi.Errors {
						fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: warning: %s: offset %#x: %s\n", path, e.Offset, e.Message)
					}
				}
				if asJSON {
					b, _ := json.Marshal(fi)
					fmt.Fprintf(w, "%s\n", b)
				} else if err := printInfoTable(w, fi); err != nil {
					return err
				}
			}
			if failed > 0 {
				// As in every command: an input that is missing, not a
				// regular file or not an ETL file is exit status 3.
				return withCode(exitInput, fmt.Errorf("%d of %d files could not be read", failed, len(paths)))
			}
			if strict && damaged > 0 {
				return withCode(exitCorrupt, fmt.Errorf("--strict: %d of %d files are damaged", damaged, len(paths)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON (one object per file)")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit with status 5 when a file is damaged")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print each damaged buffer or record")
	return cmd
}

func gatherInfo(path string) (*fileInfo, error) {
	f, err := etl.Open(path)
	if err != nil {
		return nil, explainNotETL(path, err)
	}
	defer f.Close()
	st := f.Scan()
	fi := &fileInfo{
		Schema:    eventjson.SchemaName,
		FileFacts: report.NewFileFacts(path, f, &st),
		Errors:    []infoError{},
	}
	for _, err := range st.Errors {
		ie := infoError{Message: err.Error()}
		var fe *etl.FormatError
		if errors.As(err, &fe) {
			ie.Offset, ie.Message = fe.Offset, fe.Msg
			if fe.Err != nil {
				ie.Message += ": " + fe.Err.Error()
			}
			if fe.RecordOffset >= 0 {
				ro := fe.RecordOffset
				ie.RecordOffset = &ro
			}
		}
		fi.Errors = append(fi.Errors, ie)
	}
	return fi, nil
}

func printInfoTable(w io.Writer, fi *fileInfo) error {
	// Paths go above the table: a long one would stretch every row.
	fmt.Fprintf(w, "File: %s\n", fi.File)
	if len(fi.LogFileName) > maxCell {
		fmt.Fprintf(w, "Log file name: %s\n", fi.LogFileName)
	}
	var rows [][]string
	add := func(k string, v any) { rows = append(rows, []string{k, fmt.Sprint(v)}) }
	add("Size", fi.Size)
	add("Logger name", fi.LoggerName)
	if len(fi.LogFileName) <= maxCell {
		add("Log file name", fi.LogFileName)
	}
	add("Log file mode", fi.LogFileMode)
	add("Windows", fmt.Sprintf("%s build %d (log layout %s)", fi.OSVersion, fi.Build, fi.LogVersion))
	add("Pointer size", fi.PointerSize)
	add("CPUs", fmt.Sprintf("%d (%d MHz)", fi.CPUs, fi.CPUSpeedMHz))
	add("Clock", fmt.Sprintf("%s (%d Hz)", fi.ClockType, fi.PerfFreq))
	add("Buffer size", fi.BufferSize)
	add("Buffers", fmt.Sprintf("%d (%d compressed), header says %d", fi.Buffers, fi.CompressedBuffers, fi.BuffersWritten))
	add("Events", fi.Events)
	for _, ht := range etl.HeaderTypes {
		if n := fi.HeaderTypes[ht.String()]; n > 0 {
			add("  "+ht.String(), n)
		}
	}
	add("Events lost", fi.EventsLost)
	add("Buffers lost", fi.BuffersLost)
	add("Start time", fi.StartTime)
	add("End time", fi.EndTime)
	add("First event", fi.FirstEventTime)
	add("Last event", fi.LastEventTime)
	add("Boot time", fi.BootTime)
	add("Time zone", timeZoneText(etl.TimeZone{StandardName: fi.TimeZoneName, Bias: fi.TimeZoneBias}))
	add("Errors", len(fi.Errors))
	for _, e := range fi.Errors {
		add(fmt.Sprintf("  at %#x", e.Offset), e.Message)
	}
	return texttable.Write(w, []string{"Field", "Value"}, rows)
}

// maxCell is the longest path shown in the info table; longer ones are
// printed above it.
const maxCell = 48

// timeZoneText is the info table's time zone: its name (a tzres.dll
// reference resolved when it is a well-known one, else left out) and its
// bias.
func timeZoneText(tz etl.TimeZone) string {
	off := -tz.Bias
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	b := fmt.Sprintf("bias %d min, UTC%s%02d:%02d", tz.Bias, sign, off/60, off%60)
	if name, ok := tz.Name(); ok {
		return name + " (" + b + ")"
	}
	return b
}
