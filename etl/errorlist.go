package etl

import "strings"

// ErrorList is the damage a walk met: each damaged buffer or record once,
// in the order met, each an error naming the file and offset (usually a
// [*FormatError]). Like go/scanner's ErrorList it is one value handed
// back whole beside a result ([Reader.Errors], [Stats.Errors], and the
// error of the analysis and report builders); [ErrorList.Err] gives it as
// an error, which callers take apart with errors.As.
type ErrorList []error

// Err returns nil for an empty list, else the list.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error returns the messages, one a line, as errors.Join does.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, err := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l ErrorList) Unwrap() []error { return l }
