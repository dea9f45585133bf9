// Package texttable writes the command line's tables (stats, info,
// providers): a box of light lines, the header centred and upper-cased,
// the cells left-aligned, in one pass and one write.
//
// The style is tablewriter's default, which drew these tables until
// 2026-11-29, and tables of printable ASCII come out as it drew them (the
// tests hold the three commands' tables to those bytes). The rest is this
// package's own and the same on every machine:
//
//   - Widths are display columns (github.com/rivo/uniseg: East Asian
//     wide and fullwidth characters and emoji take two, combining marks
//     none, ambiguous characters one), not the locale's: tablewriter
//     measured with LANG and LC_ALL and expanded tabs to a width it
//     guessed from the environment.
//   - Characters that are not drawn, controls and format characters
//     (tabs, line breaks, escape sequences, bidirectional overrides,
//     zero-width spaces), and bytes that are not UTF-8, are written as Go
//     escapes (\t, \n, \x1b, \u202e, \xff): a row is one line, and a
//     process name or command line from a trace cannot move the cursor,
//     recolour the terminal or reorder what is shown, nor hide a
//     character, as the raw bytes would (tablewriter passed them
//     through).
//
// Leaving tablewriter out of the program also spares every command its
// package initialisation (a width cache of 8,192 entries, ~200 page faults
// of each start: docs/performance.md, "Session 31").
package texttable

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Write writes the table of header and rows to w in one call. Each row
// has one cell per header column; a shorter row is padded with empty
// cells and a longer one is cut to the header's columns. Headers and
// cells are trimmed of surrounding white space.
func Write(w io.Writer, header []string, rows [][]string) error {
	_, err := w.Write(layout(header, rows))
	return err
}

// The box's pieces: corners, junctions and lines.
const (
	horizontal = "─"
	vertical   = "│"
)

// cell is a cell's text as shown and its width in display columns.
type cell struct {
	text  string
	width int
}

// shown returns s trimmed, with what is not drawn escaped, and its width.
func shown(s string) cell {
	s = strings.TrimSpace(s)
	if plain(s) {
		return cell{s, len(s)}
	}
	s = escape(s)
	return cell{s, uniseg.StringWidth(s)}
}

// layout returns the table's bytes.
func layout(header []string, rows [][]string) []byte {
	head := make([]cell, len(header))
	width := make([]int, len(header))
	for i, h := range header {
		c := shown(strings.ToUpper(h))
		head[i], width[i] = c, c.width
	}
	body := make([][]cell, len(rows))
	for r, row := range rows {
		cs := make([]cell, len(header))
		for i := range cs {
			if i < len(row) {
				cs[i] = shown(row[i])
			}
			width[i] = max(width[i], cs[i].width)
		}
		body[r] = cs
	}
	// The table's bytes: three rules (two without rows) and a line a row
	// and the header; corners and junctions take as many bytes as a
	// vertical, and a cell's text its width in bytes or more.
	inner := 0
	for _, n := range width {
		inner += n + 2
	}
	edges := (len(width)+1)*len(vertical) + 1 // and the line break
	rules := 3
	if len(rows) == 0 {
		rules = 2
	}
	size := rules*(inner*len(horizontal)+edges) + (len(rows)+1)*(inner+edges)
	for i, c := range head {
		size += len(c.text) - c.width
		for _, cs := range body {
			size += len(cs[i].text) - cs[i].width
		}
	}
	b := make([]byte, 0, size)
	b = appendRule(b, width, "┌", "┬", "┐")
	b = append(b, vertical...)
	for i, h := range head {
		gap := width[i] - h.width
		b = appendSpaces(b, 1+gap/2)
		b = append(b, h.text...)
		b = appendSpaces(b, 1+gap-gap/2)
		b = append(b, vertical...)
	}
	b = append(b, '\n')
	if len(body) == 0 {
		return appendRule(b, width, "└", "┴", "┘")
	}
	b = appendRule(b, width, "├", "┼", "┤")
	for _, cs := range body {
		b = append(b, vertical...)
		for i, c := range cs {
			b = append(b, ' ')
			b = append(b, c.text...)
			b = appendSpaces(b, 1+width[i]-c.width)
			b = append(b, vertical...)
		}
		b = append(b, '\n')
	}
	return appendRule(b, width, "└", "┴", "┘")
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

// escape returns s with its controls (Cc), format characters (Cf) and
// bytes that are not UTF-8 written as Go escapes, and the rest as it is.
func escape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[s[i]>>4])
			b.WriteByte("0123456789abcdef"[s[i]&15])
		case unicode.In(r, unicode.Cc, unicode.Cf):
			// strconv.QuoteRune gives \t, \n, \x1b, \u202e and the like.
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
