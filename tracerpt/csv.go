package tracerpt

import (
	"bytes"
	"encoding/binary"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tdh"
)

// csvHeader is tracerpt's CSV header line (Windows 10, en-CA), verbatim.
const csvHeader = "  Event Name,       Type,     Event ID,    Version,    Channel,      Level,     Opcode,       Task,            Keyword,        PID,        TID,     Processor Number,  Instance ID,   Parent Instance ID,                              Activity ID,                      Related Activity ID,           Clock-Time, Kernel(ms),   User(ms), User Data\n"

// CSVEncoder renders events as tracerpt's CSV dump (-of CSV): the header
// line, then one line per event of right-aligned fixed-width columns
// separated by ", ", followed by the event's property values (strings in
// double quotes, MOF numbers padded as tracerpt pads them).
//
// Use one CSVEncoder per goroutine ([CSVEncoder.Clone]): it keeps the
// text of recent events' columns.
type CSVEncoder struct {
	o       Options
	files   []fileInfo
	scratch []byte
	render  tdh.RenderOptions
	columns *csvColumns   // rendered columns, per goroutine
	plans   tdh.PlanCache // the schemas' plans, which render integer and string values
}

// NewCSVEncoder returns an encoder for the events of files rendered with
// options o (nil for the defaults).
func NewCSVEncoder(files []*etl.File, o *Options) *CSVEncoder {
	e := &CSVEncoder{files: newFileInfos(files)}
	if o != nil {
		e.o = *o
	}
	return e
}

// Clone returns an encoder with the same settings for another goroutine.
func (e *CSVEncoder) Clone() pipeline.Encoder[byte] {
	c := *e
	c.scratch, c.columns, c.plans = nil, nil, tdh.PlanCache{}
	return &c
}

// Begin appends the header line (after a byte-order mark for Unicode).
func (e *CSVEncoder) Begin(b []byte) []byte {
	if e.o.Encoding == Unicode {
		b = append(b, 0xEF, 0xBB, 0xBF) // becomes the UTF-16 BOM when transcoded
	}
	return append(b, csvHeader...)
}

// End appends nothing: CSV has no trailer.
func (e *CSVEncoder) End(b []byte) []byte { return b }

// AppendEvent appends one CSV line. Error records append nothing.
func (e *CSVEncoder) AppendEvent(b []byte, ev *etl.Event, res *decode.Result, _ *analysis.Annotation) []byte {
	if ev.Header == etl.HeaderError {
		return b
	}
	line := len(b)
	s := schemaOf(res)
	b = e.appendColumns(b, ev, s)
	switch {
	case decodedOK(res, e.o.LessRestrictive):
		b = e.appendValues(b, res.Decoded)
	case len(ev.UserData) > 0:
		b = append(b, ", "...)
		b = appendUpperHexBytes(b, ev.UserData)
	}
	b = append(b, '\n')
	if e.o.Encoding == ANSI {
		b, e.scratch = toWindows1252From(b, line, e.scratch)
	}
	return b
}

// appendValues appends ", value" for each printable top-level property.
// Strings are quoted, as tracerpt quotes them; any other value that holds
// a comma, a quote, CR or LF is quoted too, and quotes inside a quoted
// value are doubled (RFC 4180), so that a CSV reader finds the columns.
// The values together are bounded by tdh.MaxTextBytes: the value the bound
// cuts ends with tdh.TruncatedMarker (or is only that) and the values
// after it are left out.
func (e *CSVEncoder) appendValues(b []byte, d *tdh.Decoded) []byte {
	mof := d.Schema.Source == tdh.SourceMOF
	props := d.Schema.Properties[:len(d.Top())] // without absent optional ones
	limit := len(b) + tdh.MaxTextBytes
	pl := e.plans.Plan(d.Schema)
	for i := range props {
		p := &props[i]
		if !tdh.Printable(p) || i >= len(d.Values) {
			continue
		}
		v := &d.Values[i]
		b = append(b, ", "...)
		start := len(b)
		if len(b) >= limit {
			b = append(b, tdh.TruncatedMarker...)
			break
		}
		var cut, digits bool
		b, cut, digits = pl.AppendText(b, d, i, &e.render, limit)
		str := !digits && isStringValue(v) // digits are an integer's
		switch {
		case str:
			b = e.quoteFrom(b, start, true)
		case !digits: // an integer's digits need no quotes
			b = e.quoteFrom(b, start, false)
		}
		if mof && !str && len(b) > start && b[start] != '"' {
			if w := mofCSVWidth(v); w > 0 {
				b = rightAlignFrom(b, start, w)
			}
		}
		if cut {
			break
		}
	}
	return b
}

// quoteFrom puts the field b[start:] in double quotes, doubling the quotes
// inside, when always is set or the field holds a comma, a quote, CR or
// LF.
func (e *CSVEncoder) quoteFrom(b []byte, start int, always bool) []byte {
	field := b[start:]
	if bytes.IndexByte(field, '"') < 0 {
		if !always && !csvNeedsQuotes(field) {
			return b
		}
		// No quote to double: the field moves one byte up, in place.
		b = append(b, 0)
		copy(b[start+1:], b[start:len(b)-1])
		b[start] = '"'
		return append(b, '"')
	}
	e.scratch = append(e.scratch[:0], field...)
	b = append(b[:start], '"')
	for _, c := range e.scratch {
		if c == '"' {
			b = append(b, '"')
		}
		b = append(b, c)
	}
	return append(b, '"')
}

// csvSpecial marks the bytes that make a CSV field quoted.
var csvSpecial = [256]bool{',': true, '"': true, '\r': true, '\n': true}

// csvNeedsQuotes reports whether field holds a comma, a quote, a CR or an
// LF, eight bytes at a time.
func csvNeedsQuotes(field []byte) bool {
	i := 0
	for ; i+8 <= len(field); i += 8 {
		x := binary.LittleEndian.Uint64(field[i:])
		if hasByte(x, ',')|hasByte(x, '"')|hasByte(x, '\r')|hasByte(x, '\n') != 0 {
			return true
		}
	}
	for ; i < len(field); i++ {
		if csvSpecial[field[i]] {
			return true
		}
	}
	return false
}

// hasByte is not zero when one of the eight bytes of x is c: a byte of
// x^c is zero there, and subtracting one from it borrows into its top
// bit, which the byte did not have (the lowest such byte is always
// found; a borrow may mark more above it, which only a position would
// care about).
func hasByte(x uint64, c byte) uint64 {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	v := x ^ ones*uint64(c)
	return (v - ones) &^ v & tops
}

// isStringValue reports whether v renders as text that tracerpt's CSV
// quotes: strings, characters and character arrays.
func isStringValue(v *tdh.Value) bool {
	p := v.Prop
	if p == nil || p.IsStruct() {
		return false
	}
	if p.InType.IsString() || p.InType == tdh.InTypeUnicodeChar || p.InType == tdh.InTypeAnsiChar {
		return true
	}
	if v.Kind == tdh.Array {
		switch p.InType {
		case tdh.InTypeInt8, tdh.InTypeUInt8, tdh.InTypeUInt16:
			return p.EffectiveOutType() == tdh.OutTypeString
		}
	}
	return false
}

// mofCSVWidth returns the width tracerpt's CSV right-aligns a MOF decimal
// integer to: 6 for 16-bit, 8 for 32-bit and 16 for 64-bit values (seen in
// the EventTrace header and PartitionInfoExtension rows of a Windows 10
// CSV); 0 for anything else (hex, pointers, mapped values, 8-bit).
func mofCSVWidth(v *tdh.Value) int {
	p := v.Prop
	if p == nil || v.Kind != tdh.Scalar || p.Map != nil {
		return 0
	}
	switch p.EffectiveOutType() {
	case tdh.OutTypeShort, tdh.OutTypeUnsignedShort, tdh.OutTypeInt, tdh.OutTypeUnsignedInt,
		tdh.OutTypeLong, tdh.OutTypeUnsignedLong:
	default:
		return 0
	}
	switch p.InType {
	case tdh.InTypeInt16, tdh.InTypeUInt16:
		if len(v.Data) == 2 {
			return 6
		}
	case tdh.InTypeInt32, tdh.InTypeUInt32:
		if len(v.Data) == 4 {
			return 8
		}
	case tdh.InTypeInt64, tdh.InTypeUInt64:
		if len(v.Data) == 8 {
			return 16
		}
	}
	return 0
}

// cp1252 maps U+0080–U+009F's Windows-1252 replacements back to bytes.
var cp1252 = sync.OnceValue(func() map[rune]byte {
	return map[rune]byte{
		'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88, '‰': 0x89,
		'Š': 0x8A, '‹': 0x8B, 'Œ': 0x8C, 'Ž': 0x8E, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95,
		'–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99, 'š': 0x9A, '›': 0x9B, 'œ': 0x9C, 'ž': 0x9E, 'Ÿ': 0x9F,
	}
})

// toWindows1252From converts the UTF-8 text b[start:] to Windows-1252 in
// place ('?' for characters it cannot represent).
func toWindows1252From(b []byte, start int, scratch []byte) ([]byte, []byte) {
	if isASCII(b[start:]) {
		return b, scratch
	}
	i := start
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return b, scratch
	}
	scratch = append(scratch[:0], b[i:]...)
	b = b[:i]
	for j := 0; j < len(scratch); {
		c := scratch[j]
		if c < utf8.RuneSelf {
			b = append(b, c)
			j++
			continue
		}
		r, n := utf8.DecodeRune(scratch[j:])
		j += n
		if r >= 0xA0 && r <= 0xFF {
			b = append(b, byte(r))
		} else if c := cp1252()[r]; c != 0 {
			b = append(b, c)
		} else {
			b = append(b, '?')
		}
	}
	return b, scratch
}

// utf16Writer transcodes UTF-8 to UTF-16LE (for -en Unicode); a
// character split between two writes is carried over.
type utf16Writer struct {
	w       io.Writer
	buf     []byte
	pending []byte
}

func (u *utf16Writer) Write(p []byte) (int, error) {
	u.buf = u.buf[:0]
	in := p
	if len(u.pending) > 0 {
		in = append(u.pending, p...)
		u.pending = nil
	}
	for i := 0; i < len(in); {
		if !utf8.FullRune(in[i:]) {
			u.pending = append([]byte(nil), in[i:]...)
			break
		}
		r, n := utf8.DecodeRune(in[i:])
		i += n
		if r >= 0x10000 {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			u.buf = append(u.buf, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		u.buf = append(u.buf, byte(r), byte(r>>8))
	}
	if _, err := u.w.Write(u.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// NewUTF16Writer returns a writer that transcodes the UTF-8 it is given to
// UTF-16LE for w: the CSV output of the Unicode encoding (tracerpt's -en
// Unicode; the CSV encoder begins with the byte-order mark).
func NewUTF16Writer(w io.Writer) io.Writer { return &utf16Writer{w: w} }
