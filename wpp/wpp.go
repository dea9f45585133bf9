// Package wpp parses WPP trace message format (TMF) files and compiles
// their messages into [tdh.Event] schemas, so WPP trace-message records
// (etl.HeaderMessage) decode and render like other events.
//
// A TMF file is a sequence of blocks. Each block starts with a line
// holding the message GUID and the module (component) name, followed by
// message definitions:
//
//	01e9b841-7d67-315a-7b92-23b2033356de BthPS3 // SRC=L2CAP.c MJ= MN=
//	#typev L2CAP_c130 14 "%0 [%!FUNC!] failed with status %10!s!" //   LEVEL=... FUNC=L2CAP_Foo
//	{
//	status, ItemNTSTATUS -- 10
//	}
//
// "%0" is the tracefmt prefix, %1…%9 are predefined parameters (GUID
// name, message name, thread id, time, …) and %10 and above are the
// arguments, numbered by the "-- N" suffix of an argument line (10, 11, …
// in order when absent). Several #typev lines may share one argument
// block, #version sets the version of the lines after it, and #enumv
// blocks name the values of ItemEnum arguments.
package wpp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/tdh"
)

// File is a parsed TMF file.
type File struct {
	Name   string
	Blocks []*Block
	// Enums are the #enumv definitions by name.
	Enums map[string]*Enum
}

// Block is one message GUID's section of a TMF file.
type Block struct {
	GUID     uuid.UUID
	Module   string // component name after the GUID
	Comment  string // text after "//" on the GUID line (SRC=… MJ= MN=)
	Line     int
	Messages []*Message
}

// Message is one #typev definition.
type Message struct {
	Name    string // "<file>_<ext><line>", e.g. L2CAP_c130
	Number  int
	Version int
	Format  string // the format string as written in the TMF
	Comment string // text after "//": GLOBALS=… LEVEL=… FLAGS=… FUNC=…
	Func    string // FUNC= of the comment, or ""
	Level   string // LEVEL= of the comment, or ""
	Flags   string // FLAGS= of the comment, or ""
	Args    []Arg
	Line    int
}

// Arg is one argument of a message.
type Arg struct {
	Name   string // the expression as logged
	Type   string // WPP item type without parameters, e.g. ItemLong, ItemListLong
	Params []string
	// Count is the "[N]" size of fixed-size items (ItemWChar[256]), or 0.
	Count  int
	Number int // the insert number (%N) of the argument, 10 and up
	Line   int
}

// Enum is a #enumv definition.
type Enum struct {
	Name    string
	Entries []tdh.MapEntry
	Line    int
}

// Error is a parse or compile error at a line of a TMF file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ParseFile parses the TMF file at path.
func ParseFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// MaxLineBytes bounds a TMF line (and a format string continued over
// lines); real files have lines of a few KB. A longer line is an [*Error]
// naming its line number and the limit.
const MaxLineBytes = 1 << 20

// MaxInputBytes bounds the size of a TMF file (the largest real ones are
// under 1 MB); a longer file is an [*Error] naming the line where the
// bound falls and the limit.
const MaxInputBytes = 16 << 20

// MaxItems bounds what one TMF file describes: message GUID blocks,
// messages, enum entries, and each message's arguments (an argument
// block after several #typev lines gives its arguments to each of them).
// The largest real file has 2,700 messages with about 10,000 arguments
// in all; passing the bound is an [*Error] naming the line and the
// limit, so that compiling a file costs memory in proportion to it.
const MaxItems = 1 << 19

// Parse parses a TMF file read from r; name is used in error messages.
func Parse(r io.Reader, name string) (*File, error) {
	p := &parser{f: &File{Name: name, Enums: map[string]*Enum{}}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes+2) // and CR LF
	total := 0
	for sc.Scan() {
		p.line++
		if len(sc.Bytes()) > MaxLineBytes {
			return nil, p.errorf("line longer than the %d-byte limit", MaxLineBytes)
		}
		if total += len(sc.Bytes()) + 1; total > MaxInputBytes {
			return nil, p.errorf("file larger than the %d-byte limit (wpp.MaxInputBytes)", MaxInputBytes)
		}
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{name, p.line + 1, fmt.Sprintf("line longer than the %d-byte limit", MaxLineBytes)}
		}
		return nil, &Error{name, p.line + 1, err.Error()}
	}
	switch p.state {
	case stArgs:
		return nil, p.errorf("argument block of line %d not closed", p.blockLine)
	case stEnum, stEnumBody:
		return nil, p.errorf("#enumv block of line %d not closed", p.blockLine)
	case stFormat:
		p.finishFormat(p.fmtText, "")
	}
	return p.f, nil
}

type state int

const (
	stTop      state = iota
	stArgs           // inside "{" of a message
	stEnum           // after "#enumv name", before "{"
	stEnumBody       // inside an #enumv block
	stFormat         // inside a format string that spans lines
)

type parser struct {
	f         *File
	line      int
	state     state
	block     *Block
	version   int
	pending   []*Message // #typev lines waiting for their argument block
	args      []Arg
	enum      *Enum
	blockLine int
	format    *Message // message whose format continues on the next line
	fmtText   string   // its text so far
	items     int      // described so far, against MaxItems
}

// item counts n more items described (against MaxItems).
func (p *parser) item(n int) error {
	if p.items += n; p.items > MaxItems {
		return p.errorf("more than %d messages, arguments, blocks and enum entries (wpp.MaxItems)", MaxItems)
	}
	return nil
}

func (p *parser) errorf(format string, args ...any) error {
	return &Error{p.f.Name, p.line, fmt.Sprintf(format, args...)}
}

func (p *parser) parseLine(raw string) error {
	s := strings.TrimSpace(strings.Trim(strings.TrimPrefix(raw, "\ufeff"), "\x1a"))
	switch p.state {
	case stFormat:
		if s == "{" || strings.HasPrefix(s, "#") || isGUIDLine(s) || len(p.fmtText) > MaxLineBytes {
			// An unterminated format (system.tmf has some): it ends at
			// its line.
			p.finishFormat(p.fmtText, "")
			return p.parseLine(raw)
		}
		if end := formatEnd(raw, 0); end >= 0 {
			p.finishFormat(p.fmtText+"\n"+raw[:end], raw[end+1:])
			return nil
		}
		p.fmtText += "\n" + raw
		return nil
	case stArgs:
		if strings.HasPrefix(s, "}") {
			if err := p.item(len(p.pending) * len(p.args)); err != nil {
				return err
			}
			// The messages share the block's arguments, which nothing
			// changes afterwards.
			args := slices.Clip(p.args)
			for _, m := range p.pending {
				m.Args = args
			}
			p.pending, p.args, p.state = nil, nil, stTop
			return nil
		}
		if s == "" || strings.HasPrefix(s, "//") {
			return nil
		}
		a, err := p.parseArg(s)
		if err != nil {
			return err
		}
		if err := p.item(1); err != nil {
			return err
		}
		p.args = append(p.args, a)
		return nil
	case stEnum:
		if s == "" || strings.HasPrefix(s, "//") {
			return nil
		}
		if s != "{" {
			return p.errorf("expected \"{\" after #enumv %s, found %q", p.enum.Name, clip(s))
		}
		p.state = stEnumBody
		return nil
	case stEnumBody:
		if strings.HasPrefix(s, "}") {
			p.enum = nil
			p.state = stTop
			return nil
		}
		if s == "" || strings.HasPrefix(s, "//") {
			return nil
		}
		return p.parseEnumEntry(s)
	}
	// Top level.
	if s == "" || strings.HasPrefix(s, "//") {
		return nil
	}
	if s == "{" || strings.HasPrefix(s, "{") && strings.TrimSpace(stripComment(s[1:])) == "" {
		if len(p.pending) == 0 {
			return p.errorf("argument block without a #typev line")
		}
		p.state, p.blockLine = stArgs, p.line
		return nil
	}
	if s[0] == '#' {
		kw, rest := cutSpace(s)
		switch strings.ToLower(kw) {
		case "#typev", "#type":
			return p.parseTypev(rest)
		case "#version":
			v, err := strconv.Atoi(firstField(rest))
			if err != nil || v < 0 || v > 255 {
				return p.errorf("bad #version %q", clip(rest))
			}
			p.version = v
			p.pending = nil
			return nil
		case "#enumv":
			n := firstField(rest)
			if n == "" {
				return p.errorf("#enumv without a name")
			}
			p.enum = &Enum{Name: n, Line: p.line}
			p.f.Enums[n] = p.enum
			p.state, p.blockLine = stEnum, p.line
			return nil
		default: // #level, #pragma, …: not needed for decoding
			p.pending = nil
			return nil
		}
	}
	// A GUID line starts a block.
	if !isGUIDLine(s) {
		return p.errorf("unexpected line %q", clip(s))
	}
	g, rest := cutSpace(s)
	id, _ := uuid.Parse(strings.Trim(g, "{}"))
	if err := p.item(1); err != nil {
		return err
	}
	b := &Block{GUID: id, Line: p.line}
	body, comment, _ := strings.Cut(rest, "//")
	b.Module = firstField(body)
	b.Comment = strings.TrimSpace(comment)
	p.f.Blocks = append(p.f.Blocks, b)
	p.block, p.version, p.pending = b, 0, nil
	return nil
}

// parseTypev parses `name number "format" // comment`.
func (p *parser) parseTypev(rest string) error {
	if p.block == nil {
		return p.errorf("#typev before a message GUID line")
	}
	name, rest := cutSpace(rest)
	num, rest := cutSpace(rest)
	n, err := strconv.Atoi(num)
	if name == "" || err != nil || n < 0 || n > 0xFFFF {
		return p.errorf("bad #typev line: want name, message number and format")
	}
	rest = strings.TrimSpace(rest)
	if err := p.item(1); err != nil {
		return err
	}
	m := &Message{Name: name, Number: n, Version: p.version, Line: p.line}
	p.block.Messages = append(p.block.Messages, m)
	p.pending = append(p.pending, m)
	if !strings.HasPrefix(rest, "\"") {
		// No format (old system.tmf): the message has no text.
		if rest != "" && !strings.HasPrefix(rest, "//") {
			return p.errorf("#typev %s: format string missing", name)
		}
		p.finishFormat("", rest)
		return nil
	}
	if end := formatEnd(rest, 1); end >= 0 {
		p.finishFormat(rest[1:end], rest[end+1:])
		return nil
	}
	// The format goes on on the next lines.
	p.format, p.fmtText, p.state = m, rest[1:], stFormat
	return nil
}

// isGUIDLine reports whether s starts with a GUID.
func isGUIDLine(s string) bool {
	g, _ := cutSpace(s)
	g = strings.Trim(g, "{}")
	_, err := uuid.Parse(g)
	return err == nil && len(g) == 36
}

// formatEnd returns the index of the quote that ends a format in s,
// searching from i, or -1. The format may hold quotes itself: it ends at
// the first quote followed only by blanks or a // comment.
func formatEnd(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		after := strings.TrimSpace(s[i+1:])
		if after == "" || strings.HasPrefix(after, "//") {
			return i
		}
	}
	return -1
}

// finishFormat sets the format of the last #typev and parses the comment
// after it.
func (p *parser) finishFormat(format, rest string) {
	m := p.pending[len(p.pending)-1]
	p.format, p.fmtText, p.state = nil, "", stTop
	m.Format = format
	if c := strings.TrimSpace(rest); c != "" {
		m.Comment = strings.TrimSpace(strings.TrimPrefix(c, "//"))
		for _, f := range strings.Fields(m.Comment) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			switch k {
			case "FUNC":
				m.Func = v
			case "LEVEL":
				m.Level = v
			case "FLAGS":
				m.Flags = v
			}
		}
	}
}

// parseArg parses `name, ItemType[(params)][[N]] [-- number] [// comment]`.
func (p *parser) parseArg(s string) (Arg, error) {
	a := Arg{Line: p.line, Number: 10 + len(p.args)}
	// The item type is the last ", Item…" outside parentheses.
	pos, depth := -1, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				if t := strings.TrimLeft(s[i+1:], " \t"); strings.HasPrefix(t, "Item") {
					pos = i
				}
			}
		}
	}
	if pos < 0 {
		return a, p.errorf("argument line %q has no \", Item…\" type", clip(s))
	}
	a.Name = strings.TrimSpace(s[:pos])
	t := strings.TrimLeft(s[pos+1:], " \t")
	i := 0
	for i < len(t) && (isAlnum(t[i]) || t[i] == '_') {
		i++
	}
	a.Type, t = t[:i], t[i:]
	if strings.HasPrefix(t, "(") {
		e := matchParen(t)
		if e < 0 {
			return a, p.errorf("%s: unclosed \"(\" in item type", a.Type)
		}
		for _, v := range strings.Split(t[1:e], ",") {
			a.Params = append(a.Params, strings.TrimSpace(v))
		}
		t = t[e+1:]
	}
	if strings.HasPrefix(t, "[") {
		e := strings.IndexByte(t, ']')
		if e < 0 {
			return a, p.errorf("%s: unclosed \"[\" in item type", a.Type)
		}
		n, err := strconv.Atoi(strings.TrimSpace(t[1:e]))
		if err != nil || n <= 0 || n > 0xFFFF {
			return a, p.errorf("%s: bad size %q", a.Type, t[1:e])
		}
		a.Count = n
		t = t[e+1:]
	}
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "--") {
		num, _ := cutSpace(strings.TrimSpace(t[2:]))
		n, err := strconv.Atoi(num)
		if err != nil || n < 10 || n > 0xFFFF {
			return a, p.errorf("%s: bad argument number %q", a.Name, clip(num))
		}
		a.Number = n
	}
	// Anything else ("// 10", "/11") is a comment.
	return a, nil
}

func (p *parser) parseEnumEntry(s string) error {
	s = stripComment(s)
	name, val, ok := strings.Cut(s, ",")
	if !ok {
		return p.errorf("#enumv %s: entry %q is not \"name,value\"", p.enum.Name, clip(s))
	}
	v, err := parseInt(strings.TrimSpace(val))
	if err != nil {
		return p.errorf("#enumv %s: bad value %q", p.enum.Name, clip(val))
	}
	if err := p.item(1); err != nil {
		return err
	}
	p.enum.Entries = append(p.enum.Entries, tdh.MapEntry{Value: v, Message: strings.TrimSpace(name)})
	return nil
}

func parseInt(s string) (uint64, error) {
	if strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 0, 64)
		return uint64(uint32(v)), err
	}
	return strconv.ParseUint(s, 0, 64)
}

func matchParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func stripComment(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func cutSpace(s string) (string, string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func firstField(s string) string {
	f, _ := cutSpace(s)
	return f
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
