package driver

import (
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracerpt"
)

// OpenError is an input that did not open (missing, not an ETL file).
type OpenError struct {
	Path string
	Err  error
}

// Error returns the error of etl.Open, which names the path.
func (e *OpenError) Error() string { return e.Err.Error() }

// Unwrap returns the error of etl.Open.
func (e *OpenError) Unwrap() error { return e.Err }

// Open expands the inputs as tracerpt-go takes them (globs and .etl.NNN
// sequences: tracerpt.ExpandInputs) and opens the files. An input that
// does not open is an *OpenError; the files opened so far are returned
// for closing, on error too.
func Open(inputs []string) ([]*etl.File, error) {
	paths, err := tracerpt.ExpandInputs(inputs)
	if err != nil {
		return nil, err
	}
	var files []*etl.File
	for _, p := range paths {
		f, err := etl.Open(p)
		if err != nil {
			return files, &OpenError{p, err}
		}
		files = append(files, f)
	}
	return files, nil
}
