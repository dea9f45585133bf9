package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/spf13/cobra"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracerpt"
)

// fileInfo is the JSON form of "info --json" (docs/cli.md).
type fileInfo struct {
	Schema            string         `json:"schema"` // of the JSON dump's events: tracerpt.SchemaName
	File              string         `json:"file"`
	Size              int64          `json:"size"`
	Buffers           int            `json:"buffers"`
	CompressedBuffers int            `json:"compressed_buffers"`
	Compression       string         `json:"compression,omitempty"`
	Events            int            `json:"events"`
	HeaderTypes       map[string]int `json:"header_types"`
	PointerSize       uint32         `json:"pointer_size"`
	OSVersion         string         `json:"os_version"`
	Build             uint32         `json:"build"`
	LogVersion        string         `json:"log_version"`
	CPUs              uint32         `json:"cpus"`
	CPUSpeedMHz       uint32         `json:"cpu_speed_mhz"`
	BufferSize        uint32         `json:"buffer_size"`
	ClockType         string         `json:"clock_type"`
	PerfFreq          int64          `json:"perf_freq"`
	TimerResolution   uint32         `json:"timer_resolution"`
	LoggerName        string         `json:"logger_name"`
	LogFileName       string         `json:"log_file_name"`
	LogFileMode       string         `json:"log_file_mode"`
	MaximumFileSize   uint32         `json:"maximum_file_size"`
	BuffersWritten    uint32         `json:"buffers_written"`
	EventsLost        uint32         `json:"events_lost"`
	BuffersLost       uint32         `json:"buffers_lost"`
	BootTime          string         `json:"boot_time"`
	StartTime         string         `json:"start_time"`
	EndTime           string         `json:"end_time"`
	FirstEventTime    string         `json:"first_event_time,omitempty"`
	LastEventTime     string         `json:"last_event_time,omitempty"`
	TimeZoneBias      int32          `json:"time_zone_bias"`
	TimeZoneName      string         `json:"time_zone_name"`
	Errors            []infoError    `json:"errors"`
}

type infoError struct {
	Offset       int64  `json:"offset"`
	RecordOffset *int64 `json:"record_offset,omitempty"`
	Message      string `json:"message"`
}

func newInfoCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "info [--json] FILE...",
		Short: "Show a file's header facts and record counts",
		Long: `info reads every buffer and record of each file and prints the log-file
header facts with the counts of buffers and records per header type.
With --json it writes one JSON object per file (JSON Lines).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(fmt.Errorf("info: no input file"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			failed := 0
			for _, path := range args {
				fi, err := gatherInfo(path)
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "tracerpt-go: %v\n", err)
					failed++
					continue
				}
				if asJSON {
					b, _ := json.Marshal(fi)
					fmt.Fprintf(w, "%s\n", b)
				} else if err := printInfoTable(w, fi); err != nil {
					return err
				}
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d files could not be read", failed, len(args))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write JSON (one object per file)")
	return cmd
}

// rfc3339 formats a FILETIME as UTC RFC 3339 with 7 fractional digits
// (100 ns, the FILETIME resolution).
func rfc3339(ft int64) string {
	return etl.FiletimeToTime(ft).Format("2006-01-02T15:04:05.0000000Z")
}

func gatherInfo(path string) (*fileInfo, error) {
	f, err := etl.Open(path)
	if err != nil {
		return nil, explainNotETL(path, err)
	}
	defer f.Close()
	st := f.Scan()
	h := &f.Header
	fi := &fileInfo{
		Schema:            tracerpt.SchemaName,
		File:              path,
		Size:              f.Size(),
		Buffers:           st.Buffers,
		CompressedBuffers: st.CompressedBuffers,
		Events:            st.Events,
		HeaderTypes:       map[string]int{},
		PointerSize:       h.PointerSize,
		OSVersion:         fmt.Sprintf("%d.%d", h.MajorVersion, h.MinorVersion),
		Build:             h.ProviderVersion,
		LogVersion:        fmt.Sprintf("%d.%d", h.SubVersion, h.SubMinorVersion),
		CPUs:              h.NumberOfProcessors,
		CPUSpeedMHz:       h.CPUSpeedMHz,
		BufferSize:        h.BufferSize,
		ClockType:         h.Clock().String(),
		PerfFreq:          h.PerfFreq,
		TimerResolution:   h.TimerResolution,
		LoggerName:        h.LoggerName,
		LogFileName:       h.LogFileName,
		LogFileMode:       "0x" + strconv.FormatUint(uint64(h.LogFileMode), 16),
		MaximumFileSize:   h.MaximumFileSize,
		BuffersWritten:    h.BuffersWritten,
		EventsLost:        h.EventsLost,
		BuffersLost:       h.BuffersLost,
		BootTime:          rfc3339(h.BootTime),
		StartTime:         rfc3339(h.StartTime),
		EndTime:           rfc3339(h.EndTime),
		TimeZoneBias:      h.TimeZone.Bias,
		TimeZoneName:      h.TimeZone.StandardName,
		Errors:            []infoError{},
	}
	if st.CompressedBuffers > 0 {
		fi.Compression = f.Format.String()
	}
	if h.EndTime == 0 {
		fi.EndTime = ""
	}
	if st.Events > 0 {
		fi.FirstEventTime, fi.LastEventTime = rfc3339(st.FirstTime), rfc3339(st.LastTime)
	}
	for _, t := range etl.HeaderTypes {
		fi.HeaderTypes[t.String()] = st.HeaderTypes[t]
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
	t := tablewriter.NewWriter(w)
	t.Header("Field", "Value")
	add := func(k string, v any) { t.Append(k, fmt.Sprint(v)) }
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
	add("Time zone", timeZoneText(fi.TimeZoneName, fi.TimeZoneBias))
	add("Errors", len(fi.Errors))
	for _, e := range fi.Errors {
		add(fmt.Sprintf("  at %#x", e.Offset), e.Message)
	}
	return t.Render()
}

// maxCell is the longest path shown in the info table; longer ones are
// printed above it.
const maxCell = 48

// tzresNames are the names of the common Windows time zones by their
// tzres.dll string ids (the header has "@tzres.dll,-212" where Windows
// resolves it to "Pacific Standard Time"), with the zone's bias in
// minutes: a name is shown only when the header's bias agrees.
var tzresNames = map[int]struct {
	name string
	bias int32
}{
	111: {"Eastern Daylight Time", 300}, 112: {"Eastern Standard Time", 300},
	161: {"Central Daylight Time", 360}, 162: {"Central Standard Time", 360},
	191: {"Mountain Daylight Time", 420}, 192: {"Mountain Standard Time", 420},
	211: {"Pacific Daylight Time", 480}, 212: {"Pacific Standard Time", 480},
	261: {"GMT Daylight Time", 0}, 262: {"GMT Standard Time", 0},
	301: {"Romance Daylight Time", -60}, 302: {"Romance Standard Time", -60},
	321: {"W. Europe Daylight Time", -60}, 322: {"W. Europe Standard Time", -60},
	491: {"India Daylight Time", -330}, 492: {"India Standard Time", -330},
	571: {"China Daylight Time", -480}, 572: {"China Standard Time", -480},
}

// timeZoneText is the info table's time zone: its name (a tzres.dll
// reference resolved when it is a well-known one, else left out) and its
// bias.
func timeZoneText(name string, bias int32) string {
	off := -bias
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	b := fmt.Sprintf("bias %d min, UTC%s%02d:%02d", bias, sign, off/60, off%60)
	if id, ok := strings.CutPrefix(strings.ToLower(name), "@tzres.dll,-"); ok {
		name = ""
		if n, err := strconv.Atoi(id); err == nil && tzresNames[n].name != "" && tzresNames[n].bias == bias {
			name = tzresNames[n].name
		}
	}
	if name == "" {
		return b
	}
	return name + " (" + b + ")"
}
