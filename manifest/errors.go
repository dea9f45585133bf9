package manifest

import (
	"errors"
	"fmt"
)

// ErrNotManifest is returned (wrapped in an [*Error]) for well-formed XML
// whose root element is neither <instrumentationManifest>, a Windows
// <assembly> manifest nor a WEPExplorer export's <Providers>.
var ErrNotManifest = errors.New("not an instrumentation manifest")

// Error is a fatal problem in a manifest, located by file and line.
type Error struct {
	File string // the name given to Parse, or the path given to ParseFile
	Line int    // 1-based line of the element (or of the XML syntax error); 0 if unknown
	Msg  string
	Err  error // underlying error, if any
}

// Error formats the error as "file:line: message: underlying error".
func (e *Error) Error() string {
	s := e.File
	if s == "" {
		s = "manifest"
	}
	if e.Line > 0 {
		s = fmt.Sprintf("%s:%d", s, e.Line)
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
