// Package texttable writes the command line's tables (stats, info,
// providers) in tablewriter's default style: a box of light lines, the
// header centred and upper-cased, the cells left-aligned.
//
// tablewriter (v1.1.5) takes 2.1–2.3 ms to render stats' 38 rows of 12
// or 13 columns of net.4.5.2 (BenchmarkWrite), 2.1–3.7 ms of a whole
// `stats` run of ~65 ms on the machine of docs/performance.md, all of it
// after the model is built, on one processor. Tables whose every cell
// and header is printable ASCII without tabs or line breaks (the stats,
// info and providers tables of all 32 corpus traces; a process name or
// command line outside ASCII sends a table to tablewriter) are laid out
// here, in one pass and one write; tablewriter itself renders any other
// table. The tests compare the two on random tables.
package texttable

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Write writes the table of header and rows to w in one call. Each row
// has one cell per header column.
func Write(w io.Writer, header []string, rows [][]string) error {
	if b, ok := layout(header, rows); ok {
		_, err := w.Write(b)
		return err
	}
	var buf bytes.Buffer
	if err := render(&buf, header, rows); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// render writes the table through tablewriter.
func render(w io.Writer, header []string, rows [][]string) error {
	t := tablewriter.NewWriter(w)
	h := make([]any, len(header))
	for i, s := range header {
		h[i] = s
	}
	t.Header(h...)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	return t.Render()
}

// The box's pieces: corners, junctions and lines.
const (
	horizontal = "─"
	vertical   = "│"
)

// layout returns the table as tablewriter draws it, or false when a cell
// or a header is not plain: a byte outside printable ASCII (tabs, line
// breaks, escape sequences and wide characters, which tablewriter
// measures and breaks), or a row whose length is not the header's.
func layout(header []string, rows [][]string) ([]byte, bool) {
	if len(header) == 0 || len(rows) == 0 {
		return nil, false
	}
	head := make([]string, len(header))
	width := make([]int, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		if !plain(h) {
			return nil, false
		}
		// tablewriter's header formatting: words split at case and
		// class changes, joined by spaces, '_' and most '.' made spaces,
		// upper-cased.
		h = tw.Title(strings.Join(tw.SplitCamelCase(h), " "))
		if !plain(h) {
			return nil, false
		}
		head[i], width[i] = h, len(h)
	}
	for _, r := range rows {
		if len(r) != len(header) {
			return nil, false
		}
		for i, c := range r {
			c = strings.TrimSpace(c)
			if !plain(c) {
				return nil, false
			}
			width[i] = max(width[i], len(c))
		}
	}
	// The table's bytes: three rules and a line a row and the header;
	// corners and junctions take as many bytes as a vertical.
	inner := 0
	for _, n := range width {
		inner += n + 2
	}
	edges := (len(width)+1)*len(vertical) + 1 // and the line break
	b := make([]byte, 0, 3*(inner*len(horizontal)+edges)+(len(rows)+1)*(inner+edges))
	b = appendRule(b, width, "┌", "┬", "┐")
	b = append(b, vertical...)
	for i, h := range head {
		gap := width[i] - len(h)
		b = appendSpaces(b, 1+gap/2)
		b = append(b, h...)
		b = appendSpaces(b, 1+gap-gap/2)
		b = append(b, vertical...)
	}
	b = append(b, '\n')
	b = appendRule(b, width, "├", "┼", "┤")
	for _, r := range rows {
		b = append(b, vertical...)
		for i, c := range r {
			c = strings.TrimSpace(c)
			b = append(b, ' ')
			b = append(b, c...)
			b = appendSpaces(b, 1+width[i]-len(c))
			b = append(b, vertical...)
		}
		b = append(b, '\n')
	}
	b = appendRule(b, width, "└", "┴", "┘")
	return b, true
}

// appendRule appends a horizontal rule over columns of width, from left
// through sep between columns to right.
func appendRule(b []byte, width []int, left, sep, right string) []byte {
	b = append(b, left...)
	for i, n := range width {
		if i > 0 {
			b = append(b, sep...)
		}
		for range n + 2 {
			b = append(b, horizontal...)
		}
	}
	b = append(b, right...)
	return append(b, '\n')
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// plain reports whether s is printable ASCII only (one column a byte).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
