package mof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/etwkit/etw/internal/readlimit"
)

// ParseError reports a syntax error, located by file, line and column.
type ParseError struct {
	File string // the name given to Parse, or the path given to ParseFile
	Line int    // 1-based
	Col  int    // 1-based, in characters
	Msg  string
}

// Error formats the error as "file:line:col: message".
func (e *ParseError) Error() string {
	f := e.File
	if f == "" {
		f = "mof"
	}
	return fmt.Sprintf("%s:%d:%d: %s", f, e.Line, e.Col, e.Msg)
}

// Bounds on what Parse reads, so that a hostile file costs memory in
// proportion to its size, not to what it declares. The largest real
// files (wmicore.mof, 0.6 MB) have 34,757 items (classes, properties,
// qualifiers, qualifier values and flavors, pragmas and their
// arguments), at most 39 properties in a class and 62 values in a
// qualifier. Passing one is a [*ParseError] naming the limit.
const (
	maxInput      = 16 << 20 // bytes
	maxItems      = 1 << 19  // items of one file
	maxProperties = 1 << 12  // properties of one class
	maxValues     = 1 << 16  // values of one qualifier
)

// maxNesting bounds the nesting of braces in values and initializers.
const maxNesting = 64

// Parse reads MOF text (UTF-8, or UTF-16 with or without a byte order
// mark) and returns its classes. name is used in error messages. The
// first syntax error ends parsing and is returned as a [*ParseError].
func Parse(r io.Reader, name string) (*File, error) {
	b, err := readlimit.ReadAll(r, maxInput)
	var large *readlimit.TooLargeError
	if errors.As(err, &large) {
		return nil, &ParseError{File: name, Line: large.Line, Col: 1, Msg: fmt.Sprintf("file larger than %d bytes (the limit)", maxInput)}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &parser{lex: newLexer(decodeText(b)), file: &File{Name: name}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	p.file.index()
	return p.file, nil
}

// ParseFile parses the MOF file at path.
func ParseFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

type parser struct {
	lex    *lexer
	file   *File
	tok    token
	peeked bool
	items  int // read so far, against maxItems
}

// item counts one more item read at t, failing past maxItems.
func (p *parser) item(t token) *ParseError {
	if p.items++; p.items > maxItems {
		return p.errorf(t, "more than %d classes, properties, qualifiers, values and pragmas (the limit)", maxItems)
	}
	return nil
}

// bail is what the parser's helpers return through panics-free error
// values; every method returns *ParseError or nil.
func (p *parser) errorf(t token, format string, args ...any) *ParseError {
	return &ParseError{File: p.file.Name, Line: t.line, Col: t.col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) next() (token, *ParseError) {
	if p.peeked {
		p.peeked = false
		return p.tok, nil
	}
	t, err := p.lex.next()
	if err != nil {
		return token{}, &ParseError{File: p.file.Name, Line: err.line, Col: err.col, Msg: err.msg}
	}
	p.tok = t
	return t, nil
}

func (p *parser) peek() (token, *ParseError) {
	if p.peeked {
		return p.tok, nil
	}
	t, err := p.next()
	if err != nil {
		return t, err
	}
	p.peeked = true
	return t, nil
}

func isPunct(t token, s string) bool { return t.kind == tPunct && t.text == s }

func isKeyword(t token, s string) bool { return t.kind == tIdent && strings.EqualFold(t.text, s) }

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return strconv.Quote(t.text)
	case tPragma:
		return "#" + t.text
	}
	return strconv.Quote(t.text)
}

func (p *parser) expect(s string) (token, *ParseError) {
	t, err := p.next()
	if err != nil {
		return t, err
	}
	if !isPunct(t, s) {
		return t, p.errorf(t, "expected %q, found %s", s, describe(t))
	}
	return t, nil
}

func (p *parser) ident(what string) (token, *ParseError) {
	t, err := p.next()
	if err != nil {
		return t, err
	}
	if t.kind != tIdent {
		return t, p.errorf(t, "expected %s, found %s", what, describe(t))
	}
	return t, nil
}

func (p *parser) parse() *ParseError {
	for {
		t, err := p.peek()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tEOF:
			return nil
		case t.kind == tPragma:
			p.next()
			if err := p.pragma(t); err != nil {
				return err
			}
		case isPunct(t, ";"):
			p.next()
		default:
			if err := p.production(); err != nil {
				return err
			}
		}
	}
}

// pragma records a "#pragma name(args)" line; other # lines are kept with
// their directive as the name.
func (p *parser) pragma(t token) *ParseError {
	text := t.text
	pr := Pragma{Line: t.line}
	if rest, ok := cutPrefixFold(text, "pragma"); ok {
		text = strings.TrimSpace(rest)
	}
	sub := newLexer(text)
	nt, lerr := sub.next()
	if err := p.item(t); err != nil {
		return err
	}
	if lerr != nil || nt.kind != tIdent {
		pr.Name = text
		p.file.Pragmas = append(p.file.Pragmas, pr)
		return nil
	}
	pr.Name = nt.text
	for {
		at, lerr := sub.next()
		if lerr != nil || at.kind == tEOF {
			break
		}
		switch at.kind {
		case tString, tChar, tIdent, tInt, tReal:
			if err := p.item(t); err != nil {
				return err
			}
			pr.Args = append(pr.Args, at.text)
		}
	}
	p.file.Pragmas = append(p.file.Pragmas, pr)
	return nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// production parses one top-level declaration: [qualifiers] class …,
// [qualifiers] instance of …, qualifier …, or [qualifiers] association
// / indication (both class forms).
func (p *parser) production() *ParseError {
	quals, err := p.qualifierList()
	if err != nil {
		return err
	}
	t, err := p.next()
	if err != nil {
		return err
	}
	switch {
	case isKeyword(t, "class"), isKeyword(t, "association"), isKeyword(t, "indication"):
		return p.class(t, quals)
	case isKeyword(t, "instance"):
		return p.instance(t)
	case isKeyword(t, "qualifier"):
		return p.skipStatement()
	}
	return p.errorf(t, "expected class, instance or qualifier declaration, found %s", describe(t))
}

// qualifierList parses an optional [q1, q2(v), q3{a, b} : flavor, …].
func (p *parser) qualifierList() ([]Qualifier, *ParseError) {
	t, err := p.peek()
	if err != nil || !isPunct(t, "[") {
		return nil, err
	}
	p.next()
	var qs []Qualifier
	for {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		if isPunct(t, "]") {
			p.next()
			return qs, nil
		}
		if isPunct(t, ",") {
			p.next()
			continue
		}
		q, err := p.qualifier()
		if err != nil {
			return nil, err
		}
		if err := p.item(t); err != nil {
			return nil, err
		}
		qs = append(qs, q)
		t, err = p.next()
		if err != nil {
			return nil, err
		}
		if isPunct(t, "]") {
			return qs, nil
		}
		if !isPunct(t, ",") {
			return nil, p.errorf(t, "expected \",\" or \"]\" after qualifier %s, found %s", q.Name, describe(t))
		}
	}
}

func (p *parser) qualifier() (Qualifier, *ParseError) {
	t, err := p.ident("qualifier name")
	if err != nil {
		return Qualifier{}, err
	}
	q := Qualifier{Name: t.text, Line: t.line}
	n, err := p.peek()
	if err != nil {
		return q, err
	}
	switch {
	case isPunct(n, "("):
		p.next()
		vs, err := p.values(")", 0)
		if err != nil {
			return q, err
		}
		q.Values = vs
	case isPunct(n, "{"):
		p.next()
		vs, err := p.values("}", 0)
		if err != nil {
			return q, err
		}
		q.Values, q.List = vs, true
	}
	// Flavors: ": amended", ": ToInstance ToSubclass". Some files omit
	// the colon ("Description(\"x\") amended").
	n, err = p.peek()
	if err != nil {
		return q, err
	}
	colon := isPunct(n, ":")
	if colon {
		p.next()
	}
	for {
		n, err = p.peek()
		if err != nil {
			return q, err
		}
		if n.kind != tIdent || (!colon && !isFlavor(n.text)) {
			break
		}
		p.next()
		if err := p.item(n); err != nil {
			return q, err
		}
		q.Flavors = append(q.Flavors, n.text)
	}
	return q, nil
}

func isFlavor(s string) bool {
	switch strings.ToLower(s) {
	case "amended", "toinstance", "tosubclass", "disableoverride", "enableoverride", "restricted", "translatable", "notoinstance", "notosubclass":
		return true
	}
	return false
}

// values parses comma-separated values up to the closing close. Nested
// braces are flattened; adjacent string literals are concatenated.
func (p *parser) values(close string, depth int) ([]Value, *ParseError) {
	if depth > maxNesting {
		return nil, p.errorf(p.tok, "values nested more than %d deep", maxNesting)
	}
	var vs []Value
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		switch {
		case isPunct(t, close):
			return vs, nil
		case isPunct(t, ","):
			continue
		case isPunct(t, "{"):
			inner, err := p.values("}", depth+1)
			if err != nil {
				return nil, err
			}
			if vs = append(vs, inner...); len(vs) > maxValues {
				return nil, p.errorf(t, "more than %d values in one qualifier (the limit)", maxValues)
			}
			continue
		case t.kind == tEOF:
			return nil, p.errorf(t, "expected %q, found end of file", close)
		case t.kind == tPunct && strings.Contains("])};:=", t.text):
			return nil, p.errorf(t, "expected %q, found %s", close, describe(t))
		}
		v, err := p.value(t)
		if err != nil {
			return nil, err
		}
		if err := p.item(t); err != nil {
			return nil, err
		}
		if len(vs) >= maxValues {
			return nil, p.errorf(t, "more than %d values in one qualifier (the limit)", maxValues)
		}
		vs = append(vs, v)
	}
}

// value parses one value starting with token t.
func (p *parser) value(t token) (Value, *ParseError) {
	switch t.kind {
	case tString, tChar:
		s := t.text
		for {
			n, err := p.peek()
			if err != nil {
				return Value{}, err
			}
			if n.kind != tString {
				break
			}
			p.next()
			s += n.text
		}
		v := Value{Kind: StringValue, Text: s}
		v.Int, _ = parseInt(strings.TrimSpace(s))
		return v, nil
	case tInt:
		n, ok := parseInt(t.text)
		if !ok {
			return Value{}, p.errorf(t, "integer %s out of range", t.text)
		}
		return Value{Kind: IntValue, Text: t.text, Int: n}, nil
	case tReal:
		return Value{Kind: RealValue, Text: t.text}, nil
	case tIdent:
		switch strings.ToLower(t.text) {
		case "true", "false":
			return Value{Kind: BoolValue, Text: t.text}, nil
		case "null":
			return Value{Kind: NullValue, Text: t.text}, nil
		}
		v := Value{Kind: IdentValue, Text: t.text}
		v.Int, _ = parseInt(t.text)
		return v, nil
	case tPunct:
		if t.text == "-" || t.text == "+" {
			n, err := p.next()
			if err != nil {
				return Value{}, err
			}
			switch n.kind {
			case tInt:
				v, ok := parseInt(t.text + n.text)
				if !ok {
					return Value{}, p.errorf(n, "integer %s%s out of range", t.text, n.text)
				}
				return Value{Kind: IntValue, Text: t.text + n.text, Int: v}, nil
			case tReal:
				return Value{Kind: RealValue, Text: t.text + n.text}, nil
			}
			return Value{}, p.errorf(n, "expected a number after %q, found %s", t.text, describe(n))
		}
	}
	return Value{}, p.errorf(t, "expected a value, found %s", describe(t))
}

// class parses "class Name [as $Alias] [: Super] { members };".
func (p *parser) class(kw token, quals []Qualifier) *ParseError {
	name, err := p.ident("class name")
	if err != nil {
		return err
	}
	c := &Class{Name: name.text, Qualifiers: quals, Line: kw.line}
	t, err := p.next()
	if err != nil {
		return err
	}
	if isKeyword(t, "as") {
		if _, err := p.ident("alias"); err != nil {
			return err
		}
		if t, err = p.next(); err != nil {
			return err
		}
	}
	if isPunct(t, ":") {
		super, err := p.ident("superclass name")
		if err != nil {
			return err
		}
		c.Super = super.text
		if t, err = p.next(); err != nil {
			return err
		}
	}
	if err := p.item(t); err != nil {
		return err
	}
	if isPunct(t, ";") {
		// A forward declaration-like "class X : Y;" declares no members.
		p.file.Classes = append(p.file.Classes, c)
		return nil
	}
	if !isPunct(t, "{") {
		return p.errorf(t, "expected \"{\" to open class %s, found %s", c.Name, describe(t))
	}
	for {
		t, err := p.peek()
		if err != nil {
			return err
		}
		if isPunct(t, "}") {
			p.next()
			break
		}
		if isPunct(t, ";") {
			p.next()
			continue
		}
		if t.kind == tEOF {
			return p.errorf(t, "class %s (line %d) not closed before the end of the file", c.Name, c.Line)
		}
		if err := p.member(c); err != nil {
			return err
		}
	}
	t, err = p.peek()
	if err != nil {
		return err
	}
	if isPunct(t, ";") {
		p.next()
	}
	p.file.Classes = append(p.file.Classes, c)
	return nil
}

// member parses a property or a method declaration of class c.
func (p *parser) member(c *Class) *ParseError {
	quals, err := p.qualifierList()
	if err != nil {
		return err
	}
	typ, err := p.ident("property type")
	if err != nil {
		return err
	}
	prop := &Property{Type: typ.text, Qualifiers: quals, Line: typ.line}
	name, err := p.ident("property name")
	if err != nil {
		return err
	}
	if isKeyword(name, "ref") {
		prop.Ref = true
		if name, err = p.ident("property name"); err != nil {
			return err
		}
	}
	prop.Name = name.text
	t, err := p.next()
	if err != nil {
		return err
	}
	if isPunct(t, "(") {
		// A method: skip its parameter list.
		if err := p.skipBalanced("(", ")", 1); err != nil {
			return err
		}
		_, err := p.expect(";")
		return err
	}
	if isPunct(t, "[") {
		prop.Array = true
		if t, err = p.next(); err != nil {
			return err
		}
		if t.kind == tInt {
			n, ok := parseInt(t.text)
			if !ok || n < 0 || n > 1<<30 {
				return p.errorf(t, "array size %s of %s out of range", t.text, prop.Name)
			}
			prop.ArraySize = int(n)
			if t, err = p.next(); err != nil {
				return err
			}
		}
		if !isPunct(t, "]") {
			return p.errorf(t, "expected \"]\" in the array declaration of %s, found %s", prop.Name, describe(t))
		}
		if t, err = p.next(); err != nil {
			return err
		}
	}
	if isPunct(t, "=") {
		// A default value: skip it.
		if err := p.skipValue(); err != nil {
			return err
		}
		if t, err = p.next(); err != nil {
			return err
		}
	}
	if !isPunct(t, ";") {
		return p.errorf(t, "expected \";\" after property %s of class %s, found %s", prop.Name, c.Name, describe(t))
	}
	if err := p.item(t); err != nil {
		return err
	}
	if len(c.Properties) >= maxProperties {
		return p.errorf(name, "class %s (line %d) has more than %d properties (the limit)", c.Name, c.Line, maxProperties)
	}
	c.Properties = append(c.Properties, prop)
	return nil
}

// skipValue skips an initializer up to (not including) the next ";" or
// "," at nesting depth 0.
func (p *parser) skipValue() *ParseError {
	depth := 0
	for {
		t, err := p.peek()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tEOF:
			return p.errorf(t, "value not terminated before the end of the file")
		case (isPunct(t, ";") || isPunct(t, ",")) && depth == 0:
			return nil
		case isPunct(t, "{") || isPunct(t, "(") || isPunct(t, "["):
			depth++
			if depth > maxNesting {
				return p.errorf(t, "value nested more than %d deep", maxNesting)
			}
		case isPunct(t, "}") || isPunct(t, ")") || isPunct(t, "]"):
			if depth == 0 {
				return p.errorf(t, "unbalanced %q in a value", t.text)
			}
			depth--
		}
		p.next()
	}
}

// skipBalanced skips tokens until the open/close pair balances (depth
// starts at the given value, after the opening token was read).
func (p *parser) skipBalanced(open, close string, depth int) *ParseError {
	for depth > 0 {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tEOF:
			return p.errorf(t, "expected %q, found end of file", close)
		case isPunct(t, open):
			depth++
		case isPunct(t, close):
			depth--
		}
	}
	return nil
}

// skipStatement skips tokens up to the next ";" at brace depth 0.
func (p *parser) skipStatement() *ParseError {
	depth := 0
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tEOF:
			return p.errorf(t, "expected \";\", found end of file")
		case isPunct(t, "{"), isPunct(t, "("), isPunct(t, "["):
			depth++
		case isPunct(t, "}"), isPunct(t, ")"), isPunct(t, "]"):
			depth--
		case isPunct(t, ";") && depth <= 0:
			return nil
		}
	}
}

// instance skips "instance of Class [as $Alias] { … };".
func (p *parser) instance(kw token) *ParseError {
	t, err := p.ident("\"of\"")
	if err != nil {
		return err
	}
	if !isKeyword(t, "of") {
		return p.errorf(t, "expected \"of\" after \"instance\", found %s", describe(t))
	}
	if _, err := p.ident("class name"); err != nil {
		return err
	}
	for {
		t, err = p.next()
		if err != nil {
			return err
		}
		if isPunct(t, "{") {
			break
		}
		if t.kind == tEOF {
			return p.errorf(kw, "instance declaration not closed")
		}
	}
	if err := p.skipBalanced("{", "}", 1); err != nil {
		return err
	}
	t, err = p.peek()
	if err != nil {
		return err
	}
	if isPunct(t, ";") {
		p.next()
	}
	return nil
}
