package manifest

import (
	"errors"
	"fmt"
	"io"

	"github.com/etwkit/etw/internal/readlimit"
)

// Bounds on what Parse reads, so that a hostile manifest costs memory in
// proportion to its size (a small multiple of it), not to what it
// declares. Real manifests stay far below them: the largest of about 700
// (Microsoft-Windows-Shell-Core, 868 KB) has 6,353 elements, 25,710
// attributes, at most 2,380 children under one element and 1,727
// characters in one attribute. A refusal is an [*Error] that wraps
// [ErrLimit] and names the limit and the line.
const (
	// MaxInputBytes bounds the size of a manifest file (before UTF-16
	// input is transcoded).
	MaxInputBytes = 16 << 20
	// MaxElements bounds the elements of one document.
	MaxElements = 1 << 18
	// MaxAttributes bounds the attributes of one document (namespace
	// declarations included).
	MaxAttributes = 1 << 20
	// MaxElementAttributes bounds the attributes of one element.
	MaxElementAttributes = 64
	// MaxChildren bounds the child elements of one element: the values
	// of one map, the events or templates of one list, the strings of one
	// string table.
	MaxChildren = 1 << 16
	// MaxAttrBytes bounds one attribute value (a message, a name).
	MaxAttrBytes = 64 << 10
	// MaxTextBytes bounds the text of one element (a WEPExplorer export's
	// embedded template document).
	MaxTextBytes = 1 << 20
	// MaxProviderEvents bounds the events of one provider, and the
	// templates of one provider (over all their lists).
	MaxProviderEvents = 1 << 16
)

// ErrLimit is wrapped by the errors of inputs that pass one of the
// bounds above.
var ErrLimit = errors.New("limit exceeded")

// limitErr is the error for a bound passed at line.
func limitErr(file string, line int, format string, args ...any) error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...), Err: ErrLimit}
}

// readInput reads at most MaxInputBytes from r; a longer input is
// refused at the line where the bound falls.
func readInput(r io.Reader, name string) ([]byte, error) {
	raw, err := readlimit.ReadAll(r, MaxInputBytes)
	var large *readlimit.TooLargeError
	if errors.As(err, &large) {
		return nil, limitErr(name, large.Line, "file larger than %d bytes (manifest.MaxInputBytes)", MaxInputBytes)
	}
	if err != nil {
		return nil, &Error{File: name, Msg: "read", Err: err}
	}
	return raw, nil
}

// treeBounds counts what buildTreeText has built of one document.
type treeBounds struct {
	file            string
	elements, attrs int
}

// element checks the bounds on a new element n (with its attributes)
// whose parent is parent (nil for the root).
func (b *treeBounds) element(n, parent *node) error {
	b.elements++
	if b.elements > MaxElements {
		return limitErr(b.file, n.line, "more than %d elements (manifest.MaxElements)", MaxElements)
	}
	if len(n.attrs) > MaxElementAttributes {
		return limitErr(b.file, n.line, "<%s> has more than %d attributes (manifest.MaxElementAttributes)", n.name, MaxElementAttributes)
	}
	b.attrs += len(n.attrs)
	if b.attrs > MaxAttributes {
		return limitErr(b.file, n.line, "more than %d attributes (manifest.MaxAttributes)", MaxAttributes)
	}
	for _, a := range n.attrs {
		if len(a.Value) > MaxAttrBytes {
			return limitErr(b.file, n.line, "<%s> attribute %s is longer than %d bytes (manifest.MaxAttrBytes)", n.name, a.Name.Local, MaxAttrBytes)
		}
	}
	if parent != nil && len(parent.children) >= MaxChildren {
		return limitErr(b.file, n.line, "<%s> (line %d) has more than %d child elements (manifest.MaxChildren)", parent.name, parent.line, MaxChildren)
	}
	return nil
}

// text checks the bound on the text of an element that starts at line.
func (b *treeBounds) text(n *node, size int) error {
	if size > MaxTextBytes {
		return limitErr(b.file, n.textLine, "<%s> (line %d) holds more than %d bytes of text (manifest.MaxTextBytes)", n.name, n.line, MaxTextBytes)
	}
	return nil
}
