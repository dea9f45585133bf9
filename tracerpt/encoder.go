package tracerpt

import (
	"fmt"
	"strings"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
)

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
func NewEncoder(f Format, files []*etl.File, o *Options) pipeline.Encoder[byte] {
	switch f {
	case CSV:
		return NewCSVEncoder(files, o)
	case JSON:
		return NewJSONEncoder(files, o)
	}
	return NewXMLEncoder(files, o)
}
