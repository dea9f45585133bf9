package tracerpt

import (
	"fmt"
	"strings"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// Encoder renders events in one output format. Encoders append to byte
// slices so that a caller controls buffering and can render on several
// goroutines (one Encoder each, from Clone) and write in order.
type Encoder interface {
	// Begin appends what comes before the first event (XML root, CSV
	// header line).
	Begin(dst []byte) []byte
	// AppendEvent appends one event. res is its decoding (nil when not
	// decoded). It may append nothing (tracerpt formats skip error
	// records).
	AppendEvent(dst []byte, ev *etl.Event, res *decode.Result) []byte
	// End appends what comes after the last event.
	End(dst []byte) []byte
	// Clone returns an encoder with the same settings, for another
	// goroutine.
	Clone() Encoder
}

// AnnotatingEncoder is an Encoder that also writes what the analysis
// model says of each event (Config.Analysis): the JSON encoder, and the
// Parquet encoder of package parquetout. With Config.Analysis, Run calls
// AppendAnnotatedEvent for every event instead of AppendEvent.
type AnnotatingEncoder interface {
	Encoder
	// AppendAnnotatedEvent appends one event with its annotation (its
	// process, thread and resolved stack); a may be nil.
	AppendAnnotatedEvent(dst []byte, ev *etl.Event, res *decode.Result, a *analysis.Annotation) []byte
}

// Format is an output format.
type Format int

// Output formats.
const (
	XML  Format = iota // tracerpt's XML dump
	CSV                // tracerpt's CSV dump
	JSON               // JSON Lines (docs/cli.md)
)

// ParseFormat parses a format name as -of takes it: XML, CSV or JSON
// (case-insensitive).
func ParseFormat(s string) (Format, error) {
	switch strings.ToUpper(s) {
	case "XML":
		return XML, nil
	case "CSV":
		return CSV, nil
	case "JSON", "JSONL":
		return JSON, nil
	case "EVTX":
		return 0, fmt.Errorf("output format EVTX is not supported (supported: XML, CSV, JSON)")
	}
	return 0, fmt.Errorf("output format %q is not supported (supported: XML, CSV, JSON)", s)
}

// String returns "XML", "CSV" or "JSON".
func (f Format) String() string {
	switch f {
	case XML:
		return "XML"
	case CSV:
		return "CSV"
	case JSON:
		return "JSON"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// DefaultOutput returns tracerpt's default dump file name for the format:
// dumpfile.xml, dumpfile.csv or dumpfile.json.
func (f Format) DefaultOutput() string {
	switch f {
	case CSV:
		return "dumpfile.csv"
	case JSON:
		return "dumpfile.json"
	}
	return "dumpfile.xml"
}

// NewEncoder returns the encoder of format f for the events of files.
func NewEncoder(f Format, files []*etl.File, o *Options) Encoder {
	switch f {
	case CSV:
		return NewCSVEncoder(files, o)
	case JSON:
		return NewJSONEncoder(files, o)
	}
	return NewXMLEncoder(files, o)
}
