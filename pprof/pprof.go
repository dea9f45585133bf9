// Package pprof holds a profile in pprof's data model and writes it as
// pprof's tools read it: profile.proto, gzip-compressed (the format of
// `go tool pprof`, https://github.com/google/pprof/blob/main/proto/profile.proto).
//
// Its types are the parts of github.com/google/pprof/profile's that a
// trace's profile uses, with the same names, and [Profile.Write] writes
// the same bytes as that package's Write for the same profile: the
// string table in the same order, the same fields left out when zero,
// repeated numbers packed from three on, one gzip stream at the default
// level. It exists so that a program writing profiles does not link that
// package, whose initialisation compiles some thirty regular
// expressions for legacy text formats at every start of the program
// (docs/dependencies.md). To read a profile, or to merge, filter or
// symbolize one, parse what Write wrote with github.com/google/pprof/profile.
package pprof

import (
	"compress/gzip"
	"io"
	"slices"
)

// Profile is a profile: samples with their values and stacks, and the
// tables of locations, functions and mappings they refer to.
type Profile struct {
	// SampleType names each of a sample's values, in order.
	SampleType []*ValueType
	// DefaultSampleType is the type pprof shows first ("" for the last).
	DefaultSampleType string
	Sample            []*Sample
	// Mapping, Location and Function are the tables. Each element's ID
	// is its index + 1, as pprof expects; the profile refers to them
	// by pointer and writes their IDs.
	Mapping  []*Mapping
	Location []*Location
	Function []*Function
	// Comments are free text shown by pprof's -comments.
	Comments []string
	// DropFrames and KeepFrames are regular expressions of frames pprof
	// drops (and keeps) when it reads the profile.
	DropFrames, KeepFrames string
	// TimeNanos is when the profile starts (Unix nanoseconds);
	// DurationNanos how long it covers.
	TimeNanos, DurationNanos int64
	// PeriodType and Period are the sampling period and what it counts.
	PeriodType *ValueType
	Period     int64
	// DocURL is a link to documentation of the profile's sample types.
	DocURL string
}

// ValueType is the type and unit of a value ("cpu", "nanoseconds").
type ValueType struct {
	Type, Unit string
}

// Sample is one sample: its stack, innermost frame first, its values
// (one for each of the profile's SampleType) and its labels.
type Sample struct {
	Location []*Location
	Value    []int64
	// Label holds string labels, NumLabel numeric ones; NumUnit, if
	// set for a key, gives each of its numeric values' units.
	Label    map[string][]string
	NumLabel map[string][]int64
	NumUnit  map[string][]string
}

// Mapping is a binary mapped into the address space: its address range,
// its file and build ID, and what symbol information the profile has
// for its locations.
type Mapping struct {
	ID                   uint64
	Start, Limit, Offset uint64
	File, BuildID        string
	HasFunctions         bool
	HasFilenames         bool
	HasLineNumbers       bool
	HasInlineFrames      bool
}

// Location is one code address and the functions it is in (the
// innermost first, for inlined code).
type Location struct {
	ID       uint64
	Mapping  *Mapping
	Address  uint64
	Line     []Line
	IsFolded bool
}

// Line is a function and a line in it.
type Line struct {
	Function     *Function
	Line, Column int64
}

// Function is a function: its name, its name as the system knows it
// (mangled), its source file and first line.
type Function struct {
	ID                         uint64
	Name, SystemName, Filename string
	StartLine                  int64
}

// Write writes p as gzip-compressed profile.proto.
func (p *Profile) Write(w io.Writer) error {
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(p.Marshal()); err != nil {
		_ = zw.Close()
		return err
	}
	return zw.Close()
}

// WriteUncompressed writes p as profile.proto, without compression.
func (p *Profile) WriteUncompressed(w io.Writer) error {
	_, err := w.Write(p.Marshal())
	return err
}

// Marshal returns p encoded as profile.proto.
func (p *Profile) Marshal() []byte {
	var e encoder
	e.strings = map[string]int64{"": 0}
	e.table = []string{""}
	st := e.internAll(p)
	e.profile(p, st)
	return e.out
}

// Field numbers of profile.proto's messages.
const (
	fProfileSampleType        = 1
	fProfileSample            = 2
	fProfileMapping           = 3
	fProfileLocation          = 4
	fProfileFunction          = 5
	fProfileStringTable       = 6
	fProfileDropFrames        = 7
	fProfileKeepFrames        = 8
	fProfileTimeNanos         = 9
	fProfileDurationNanos     = 10
	fProfilePeriodType        = 11
	fProfilePeriod            = 12
	fProfileComment           = 13
	fProfileDefaultSampleType = 14
	fProfileDocURL            = 15
)

// encoder writes a profile. Strings are numbered in the order pprof's
// own encoder meets them, so that the string table, and the bytes, are
// the same.
type encoder struct {
	out     []byte
	strings map[string]int64
	table   []string
	// msg is the scratch a message of the profile is encoded into
	// before its length is known. The messages inside it (a sample's
	// labels, a location's lines) are small and counted first instead.
	msg []byte
}

// interned holds the string indexes of the parts of a profile that have
// no field of their own to keep them.
type interned struct {
	sampleType []valueType
	labels     [][]label // per sample
	mapping    [][2]int64
	function   [][3]int64
	dropFrames int64
	keepFrames int64
	periodType valueType
	comments   []int64
	defaultST  int64
	docURL     int64
}

type valueType struct{ typ, unit int64 }

type label struct{ key, str, num, unit int64 }

func (e *encoder) intern(s string) int64 {
	if i, ok := e.strings[s]; ok {
		return i
	}
	i := int64(len(e.table))
	e.strings[s] = i
	e.table = append(e.table, s)
	return i
}

// internAll numbers every string of p in pprof's order: sample types,
// each sample's labels (string labels by key, then numeric labels by
// key, with their units), mappings, functions, the frames to drop and
// keep, the period type, comments, the default sample type, the doc URL.
func (e *encoder) internAll(p *Profile) *interned {
	st := &interned{}
	for _, t := range p.SampleType {
		st.sampleType = append(st.sampleType, valueType{e.intern(t.Type), e.intern(t.Unit)})
	}
	st.labels = make([][]label, len(p.Sample))
	var keys []string
	for i, s := range p.Sample {
		var ls []label
		keys = sortedKeys(keys[:0], s.Label)
		for _, k := range keys {
			for _, v := range s.Label[k] {
				ls = append(ls, label{key: e.intern(k), str: e.intern(v)})
			}
		}
		keys = sortedKeys(keys[:0], s.NumLabel)
		for _, k := range keys {
			kx := e.intern(k)
			units := s.NumUnit[k]
			for j, v := range s.NumLabel[k] {
				l := label{key: kx, num: v}
				if j < len(units) {
					l.unit = e.intern(units[j])
				}
				ls = append(ls, l)
			}
		}
		st.labels[i] = ls
	}
	for _, m := range p.Mapping {
		st.mapping = append(st.mapping, [2]int64{e.intern(m.File), e.intern(m.BuildID)})
	}
	for _, f := range p.Function {
		st.function = append(st.function, [3]int64{e.intern(f.Name), e.intern(f.SystemName), e.intern(f.Filename)})
	}
	st.dropFrames = e.intern(p.DropFrames)
	st.keepFrames = e.intern(p.KeepFrames)
	if pt := p.PeriodType; pt != nil {
		st.periodType = valueType{e.intern(pt.Type), e.intern(pt.Unit)}
	}
	for _, c := range p.Comments {
		st.comments = append(st.comments, e.intern(c))
	}
	st.defaultST = e.intern(p.DefaultSampleType)
	st.docURL = e.intern(p.DocURL)
	return st
}

// sortedKeys returns m's keys, sorted, in buf's storage.
func sortedKeys[V any](buf []string, m map[string]V) []string {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}

func (e *encoder) profile(p *Profile, st *interned) {
	for _, vt := range st.sampleType {
		e.valueType(fProfileSampleType, vt)
	}
	for i, s := range p.Sample {
		e.sample(s, st.labels[i])
	}
	for i, m := range p.Mapping {
		e.mapping(m, st.mapping[i])
	}
	for _, l := range p.Location {
		e.location(l)
	}
	for i, f := range p.Function {
		e.function(f, st.function[i])
	}
	for _, s := range e.table {
		e.out = appendBytesField(e.out, fProfileStringTable, s)
	}
	e.out = appendOpt(e.out, fProfileDropFrames, uint64(st.dropFrames))
	e.out = appendOpt(e.out, fProfileKeepFrames, uint64(st.keepFrames))
	e.out = appendOpt(e.out, fProfileTimeNanos, uint64(p.TimeNanos))
	e.out = appendOpt(e.out, fProfileDurationNanos, uint64(p.DurationNanos))
	if p.PeriodType != nil && st.periodType != (valueType{}) {
		e.valueType(fProfilePeriodType, st.periodType)
	}
	e.out = appendOpt(e.out, fProfilePeriod, uint64(p.Period))
	e.out = appendRepeated(e.out, fProfileComment, st.comments)
	// pprof writes the default sample type's index even when it is 0.
	e.out = appendVarintField(e.out, fProfileDefaultSampleType, uint64(st.defaultST))
	e.out = appendOpt(e.out, fProfileDocURL, uint64(st.docURL))
}

// begin starts a nested message; end appends it to the output as field
// f. A message's fields are appended to e.msg between the two.
func (e *encoder) begin() { e.msg = e.msg[:0] }

func (e *encoder) end(f int) {
	e.out = appendBytesField(e.out, f, e.msg)
}

func (e *encoder) valueType(f int, vt valueType) {
	e.begin()
	e.msg = appendOpt(e.msg, 1, uint64(vt.typ))
	e.msg = appendOpt(e.msg, 2, uint64(vt.unit))
	e.end(f)
}

func (e *encoder) sample(s *Sample, labels []label) {
	e.begin()
	if len(s.Location) > 2 {
		e.msg = appendPacked(e.msg, 1, len(s.Location), func(b []byte, i int) []byte { return appendVarint(b, s.Location[i].ID) })
	} else {
		for _, l := range s.Location {
			e.msg = appendVarintField(e.msg, 1, l.ID)
		}
	}
	e.msg = appendRepeated(e.msg, 2, s.Value)
	for _, l := range labels {
		// A label is a message inside the sample: its length first.
		n := varintLen(uint64(l.key), l.key != 0) + varintLen(uint64(l.str), l.str != 0) +
			varintLen(uint64(l.num), l.num != 0) + varintLen(uint64(l.unit), l.unit != 0)
		e.msg = appendVarint(e.msg, 3<<3|wireBytes)
		e.msg = appendVarint(e.msg, uint64(n))
		e.msg = appendOpt(e.msg, 1, uint64(l.key))
		e.msg = appendOpt(e.msg, 2, uint64(l.str))
		e.msg = appendOpt(e.msg, 3, uint64(l.num))
		e.msg = appendOpt(e.msg, 4, uint64(l.unit))
	}
	e.end(fProfileSample)
}

func (e *encoder) mapping(m *Mapping, strs [2]int64) {
	e.begin()
	e.msg = appendOpt(e.msg, 1, m.ID)
	e.msg = appendOpt(e.msg, 2, m.Start)
	e.msg = appendOpt(e.msg, 3, m.Limit)
	e.msg = appendOpt(e.msg, 4, m.Offset)
	e.msg = appendOpt(e.msg, 5, uint64(strs[0]))
	e.msg = appendOpt(e.msg, 6, uint64(strs[1]))
	e.msg = appendBool(e.msg, 7, m.HasFunctions)
	e.msg = appendBool(e.msg, 8, m.HasFilenames)
	e.msg = appendBool(e.msg, 9, m.HasLineNumbers)
	e.msg = appendBool(e.msg, 10, m.HasInlineFrames)
	e.end(fProfileMapping)
}

func (e *encoder) location(l *Location) {
	e.begin()
	e.msg = appendOpt(e.msg, 1, l.ID)
	if l.Mapping != nil {
		e.msg = appendOpt(e.msg, 2, l.Mapping.ID)
	}
	e.msg = appendOpt(e.msg, 3, l.Address)
	for i := range l.Line {
		ln := &l.Line[i]
		var fn uint64
		if ln.Function != nil {
			fn = ln.Function.ID
		}
		n := varintLen(fn, fn != 0) + varintLen(uint64(ln.Line), ln.Line != 0) + varintLen(uint64(ln.Column), ln.Column != 0)
		e.msg = appendVarint(e.msg, 4<<3|wireBytes)
		e.msg = appendVarint(e.msg, uint64(n))
		e.msg = appendOpt(e.msg, 1, fn)
		e.msg = appendOpt(e.msg, 2, uint64(ln.Line))
		e.msg = appendOpt(e.msg, 3, uint64(ln.Column))
	}
	e.msg = appendBool(e.msg, 5, l.IsFolded)
	e.end(fProfileLocation)
}

func (e *encoder) function(f *Function, strs [3]int64) {
	e.begin()
	e.msg = appendOpt(e.msg, 1, f.ID)
	e.msg = appendOpt(e.msg, 2, uint64(strs[0]))
	e.msg = appendOpt(e.msg, 3, uint64(strs[1]))
	e.msg = appendOpt(e.msg, 4, uint64(strs[2]))
	e.msg = appendOpt(e.msg, 5, uint64(f.StartLine))
	e.end(fProfileFunction)
}

// Wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// varintLen is the length of a varint field of number 1–15 holding v,
// or 0 when it is left out (present false).
func varintLen(v uint64, present bool) int {
	if !present {
		return 0
	}
	n := 2 // the key and the last byte
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func appendVarintField(b []byte, f int, v uint64) []byte {
	return appendVarint(appendVarint(b, uint64(f)<<3|wireVarint), v)
}

// appendOpt appends a varint field unless v is 0, its default.
func appendOpt(b []byte, f int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendVarintField(b, f, v)
}

func appendBool(b []byte, f int, v bool) []byte {
	if !v {
		return b
	}
	return appendVarintField(b, f, 1)
}

func appendBytesField[S string | []byte](b []byte, f int, s S) []byte {
	b = appendVarint(b, uint64(f)<<3|wireBytes)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendRepeated appends repeated numbers as pprof does: packed from
// three numbers on, one field each below.
func appendRepeated(b []byte, f int, vs []int64) []byte {
	if len(vs) > 2 {
		return appendPacked(b, f, len(vs), func(b []byte, i int) []byte { return appendVarint(b, uint64(vs[i])) })
	}
	for _, v := range vs {
		b = appendVarintField(b, f, uint64(v))
	}
	return b
}

// appendPacked appends n varints as one packed field.
func appendPacked(b []byte, f, n int, item func(b []byte, i int) []byte) []byte {
	size := 0
	var tmp [10]byte
	for i := range n {
		size += len(item(tmp[:0], i))
	}
	b = appendVarint(b, uint64(f)<<3|wireBytes)
	b = appendVarint(b, uint64(size))
	for i := range n {
		b = item(b, i)
	}
	return b
}
