package manifest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Namespaces whose prefixes are normalized in QName attribute values.
const (
	nsWin   = "http://manifests.microsoft.com/win/2004/08/windows/events"
	nsXS    = "http://www.w3.org/2001/XMLSchema"
	nsTrace = "http://schemas.microsoft.com/win/2004/08/events/trace"
)

// node is an element of the light DOM the parser works on: local names
// only (namespaces are ignored for matching), attributes, element children
// and the line of the start tag. Text is dropped, except in documents
// whose root element buildTreeText was asked to keep it for.
type node struct {
	name     string
	attrs    []xml.Attr
	children []*node
	parent   *node
	line     int
	// text is the element's own character data (CDATA sections included,
	// child elements' text excluded), concatenated; textLine is the line
	// where it starts (0 if the element has none). Only kept on request.
	text     string
	textLine int
}

// childText returns the text of the first child element named local and
// that child, or "" and nil.
func (n *node) childText(local string) (string, *node) {
	for _, c := range n.children {
		if c.name == local {
			return c.text, c
		}
	}
	return "", nil
}

// shiftLines adds delta to the line numbers of n and its descendants.
func (n *node) shiftLines(delta int) {
	n.line += delta
	if n.textLine > 0 {
		n.textLine += delta
	}
	for _, c := range n.children {
		c.shiftLines(delta)
	}
}

// attr returns the attribute with the given local name, preferring one
// without a namespace.
func (n *node) attr(local string) (string, bool) {
	found, ok := "", false
	for _, a := range n.attrs {
		if a.Name.Local != local || a.Name.Space == "xmlns" {
			continue
		}
		if a.Name.Space == "" {
			return a.Value, true
		}
		if !ok {
			found, ok = a.Value, true
		}
	}
	return found, ok
}

// get returns the attribute value with surrounding space removed, or "".
func (n *node) get(local string) string {
	v, _ := n.attr(local)
	return strings.TrimSpace(v)
}

// kids returns the element children with the given local name.
func (n *node) kids(local string) []*node {
	var out []*node
	for _, c := range n.children {
		if c.name == local {
			out = append(out, c)
		}
	}
	return out
}

// grandKids returns the children named child of the children named list
// (e.g. levels/level), in document order, over every list element.
func (n *node) grandKids(list, child string) []*node {
	var out []*node
	for _, l := range n.kids(list) {
		out = append(out, l.kids(child)...)
	}
	return out
}

// namespaceOf returns the namespace URI bound to prefix at n, or "".
func (n *node) namespaceOf(prefix string) string {
	for e := n; e != nil; e = e.parent {
		for _, a := range e.attrs {
			if a.Name.Space == "xmlns" && a.Name.Local == prefix {
				return a.Value
			}
		}
	}
	return ""
}

// qname normalizes a QName-valued attribute: a prefix bound to the win,
// xs or trace namespace is rewritten to "win:", "xs:" or "trace:"; other
// values are returned as written (trimmed).
func (n *node) qname(v string) string {
	v = strings.TrimSpace(v)
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return v
	}
	prefix := v[:i]
	if prefix == "win" || prefix == "xs" || prefix == "trace" {
		return v
	}
	switch n.namespaceOf(prefix) {
	case nsWin:
		return "win:" + v[i+1:]
	case nsXS:
		return "xs:" + v[i+1:]
	case nsTrace:
		return "trace:" + v[i+1:]
	}
	return v
}

// decodeInput returns the document as UTF-8: a UTF-8 byte order mark is
// removed and UTF-16 (little or big endian, with or without a byte order
// mark) is transcoded. transcoded reports the latter, in which case the
// XML declaration's encoding label no longer describes the bytes.
func decodeInput(b []byte) (out []byte, transcoded bool, err error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:], false, nil
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		out, err = utf16ToUTF8(b[2:], false)
		return out, true, err
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		out, err = utf16ToUTF8(b[2:], true)
		return out, true, err
	case len(b) >= 4 && b[0] == '<' && b[1] == 0 && b[2] != 0 && b[3] == 0:
		out, err = utf16ToUTF8(b, false)
		return out, true, err
	case len(b) >= 4 && b[0] == 0 && b[1] == '<' && b[2] == 0 && b[3] != 0:
		out, err = utf16ToUTF8(b, true)
		return out, true, err
	}
	return b, false, nil
}

func utf16ToUTF8(b []byte, bigEndian bool) ([]byte, error) {
	if len(b)%2 != 0 {
		return nil, errors.New("UTF-16 input has an odd number of bytes")
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
	}
	out := make([]byte, 0, len(u)+len(u)/4)
	for _, r := range utf16.Decode(u) {
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// charsetReader serves encoding/xml for non-UTF-8 declarations. After
// UTF-16 transcoding the bytes are UTF-8 whatever the label says; UTF-8
// bytes labelled utf-16 (seen in real manifests) are passed through too.
func charsetReader(transcoded bool) func(string, io.Reader) (io.Reader, error) {
	return func(label string, in io.Reader) (io.Reader, error) {
		if transcoded {
			return in, nil
		}
		switch strings.ToLower(strings.TrimSpace(label)) {
		case "utf-16", "utf-16le", "utf-16be", "unicode", "ucs-2", "utf8", "utf-8",
			"us-ascii", "ascii":
			return in, nil
		case "iso-8859-1", "latin1", "latin-1", "l1", "iso_8859-1", "windows-1252", "cp1252":
			return latin1Reader{in}, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", label)
	}
}

// latin1Reader transcodes ISO-8859-1 to UTF-8 (windows-1252 is treated as
// ISO-8859-1: only 0x80–0x9F differ, and manifests do not use them).
type latin1Reader struct{ r io.Reader }

func (l latin1Reader) Read(p []byte) (int, error) {
	if len(p) < 2 {
		return 0, io.ErrShortBuffer
	}
	buf := make([]byte, len(p)/2)
	n, err := l.r.Read(buf)
	out := p[:0]
	for _, c := range buf[:n] {
		out = utf8.AppendRune(out, rune(c))
	}
	return len(out), err
}

// maxDepth bounds element nesting (real manifests stay below 20).
const maxDepth = 256

// buildTree parses UTF-8 XML into a node tree, dropping text. Errors
// carry the line.
func buildTree(data []byte, name string, transcoded bool) (*node, error) {
	return buildTreeText(data, name, transcoded, nil)
}

// buildTreeText is buildTree that keeps the elements' text when keepText
// (if not nil) reports true for the root element's name.
func buildTreeText(data []byte, name string, transcoded bool, keepText func(root string) bool) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charsetReader(transcoded)
	var root, cur *node
	depth := 0
	keep := false
	var texts [][]byte // with keep: the text of each open element, innermost last
	bounds := treeBounds{file: name}
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &Error{File: name, Line: se.Line, Msg: "malformed XML", Err: err}
			}
			l, _ := d.InputPos()
			return nil, &Error{File: name, Line: l, Msg: "malformed XML", Err: err}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxDepth {
				return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("elements nested deeper than %d", maxDepth)}
			}
			n := &node{name: t.Name.Local, attrs: t.Attr, parent: cur, line: line}
			if err := bounds.element(n, cur); err != nil {
				return nil, err
			}
			if cur == nil {
				if root != nil {
					return nil, &Error{File: name, Line: line, Msg: "malformed XML: more than one root element"}
				}
				root = n
				keep = keepText != nil && keepText(n.name)
			} else {
				cur.children = append(cur.children, n)
			}
			cur = n
			if keep {
				texts = append(texts, nil)
			}
		case xml.EndElement:
			depth--
			if cur != nil {
				if keep && len(texts) > 0 {
					cur.text = string(texts[len(texts)-1])
					texts = texts[:len(texts)-1]
				}
				cur = cur.parent
			}
		case xml.CharData:
			if keep && cur != nil && len(texts) > 0 {
				if cur.textLine == 0 {
					cur.textLine = line
				}
				texts[len(texts)-1] = append(texts[len(texts)-1], t...)
				if err := bounds.text(cur, len(texts[len(texts)-1])); err != nil {
					return nil, err
				}
			}
		}
	}
	if root == nil {
		return nil, &Error{File: name, Line: 1, Msg: "malformed XML: no root element"}
	}
	return root, nil
}
