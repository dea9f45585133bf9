package mof

import (
	"strconv"
	"strings"
)

// File is a parsed MOF file: its classes in source order and its #pragma
// lines. Instances (instance of …) and qualifier declarations are parsed
// and skipped; methods are parsed and left out of [Class.Properties].
type File struct {
	Name    string // the name given to Parse, or the path given to ParseFile
	Classes []*Class
	Pragmas []Pragma

	byName map[string]*Class // lower-case name → last class of that name
}

// Pragma is one #pragma line, for example #pragma namespace("\\\\.\\root\\wmi").
type Pragma struct {
	Name string   // namespace, classflags, autorecover, …
	Args []string // the string (or other) arguments inside the parentheses
	Line int
}

// Class is one class declaration.
type Class struct {
	Name       string
	Super      string // the superclass name as written, "" if none
	Qualifiers []Qualifier
	Properties []*Property // properties in declaration order (methods excluded)
	Line       int
}

// Property is one property of a class.
type Property struct {
	Name string
	// Type is the data type as written: uint32, string, object, char16, …
	// or the name of a class for an embedded object.
	Type string
	// Ref is set for "Type ref Name" declarations.
	Ref bool
	// Array is set for "Name[]" and "Name[n]".
	Array bool
	// ArraySize is n of "Name[n]", 0 for "Name[]" and non-arrays.
	ArraySize  int
	Qualifiers []Qualifier
	Line       int
}

// ValueKind tells the kinds of qualifier values apart.
type ValueKind uint8

// Qualifier value kinds.
const (
	StringValue ValueKind = iota // "text" (adjacent literals concatenated)
	IntValue                     // 12, -3, 0x1F
	RealValue                    // 1.5
	BoolValue                    // true, false
	NullValue                    // null
	IdentValue                   // any other bare word
)

// Value is one qualifier value.
type Value struct {
	Kind ValueKind
	// Text is the unescaped string of a StringValue, else the literal as
	// written.
	Text string
	// Int is the value of an IntValue, and of a StringValue or IdentValue
	// that reads as an integer (so that both EventType(10) and
	// EventType("10") work); see [Value.Integer].
	Int int64
}

// Integer returns the value as an integer: an IntValue, or a string or
// bare word holding a decimal or 0x-prefixed hexadecimal integer.
func (v Value) Integer() (int64, bool) {
	switch v.Kind {
	case IntValue:
		return v.Int, true
	case StringValue, IdentValue:
		return parseInt(strings.TrimSpace(v.Text))
	case BoolValue:
		if strings.EqualFold(v.Text, "true") {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// parseInt reads a decimal or 0x-hexadecimal integer with an optional
// sign; values beyond 64 bits are refused.
func parseInt(s string) (int64, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	var u uint64
	var err error
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		u, err = strconv.ParseUint(s[2:], 16, 64)
	default:
		u, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// Qualifier is one qualifier: a flag ([read]), a single value
// (WmiDataId(1)) or a list (EventType{10, 11}), with its flavors
// (": amended", ": ToInstance ToSubclass").
type Qualifier struct {
	Name    string
	Values  []Value
	List    bool // written with braces
	Flavors []string
	Line    int
}

// String returns the first value's text, or "".
func (q *Qualifier) String() string {
	if q == nil || len(q.Values) == 0 {
		return ""
	}
	return q.Values[0].Text
}

// Int returns the first value as an integer.
func (q *Qualifier) Int() (int64, bool) {
	if q == nil || len(q.Values) == 0 {
		return 0, false
	}
	return q.Values[0].Integer()
}

// Strings returns the texts of all values.
func (q *Qualifier) Strings() []string {
	if q == nil {
		return nil
	}
	out := make([]string, len(q.Values))
	for i, v := range q.Values {
		out[i] = v.Text
	}
	return out
}

// findQualifier returns the qualifier named name (case-insensitive, as MOF
// names are), or nil.
func findQualifier(qs []Qualifier, name string) *Qualifier {
	for i := range qs {
		if strings.EqualFold(qs[i].Name, name) {
			return &qs[i]
		}
	}
	return nil
}

// Qualifier returns the class's own qualifier named name
// (case-insensitive), or nil.
func (c *Class) Qualifier(name string) *Qualifier { return findQualifier(c.Qualifiers, name) }

// Qualifier returns the property's qualifier named name
// (case-insensitive), or nil.
func (p *Property) Qualifier(name string) *Qualifier { return findQualifier(p.Qualifiers, name) }

// Class returns the class named name (case-insensitive; the last one when
// a file declares a name twice), or nil.
func (f *File) Class(name string) *Class {
	if f.byName != nil {
		return f.byName[strings.ToLower(name)]
	}
	for i := len(f.Classes) - 1; i >= 0; i-- {
		if strings.EqualFold(f.Classes[i].Name, name) {
			return f.Classes[i]
		}
	}
	return nil
}

func (f *File) index() {
	f.byName = make(map[string]*Class, len(f.Classes))
	for _, c := range f.Classes {
		f.byName[strings.ToLower(c.Name)] = c
	}
}
