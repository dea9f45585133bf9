package pe

import (
	"encoding/binary"
	"errors"
	"strings"
	"unicode/utf8"
)

// MessageTable maps message ids to their texts, as written in an
// RT_MESSAGETABLE resource (NUL padding removed; message-compiler output
// usually ends each text with "\r\n").
type MessageTable map[uint32]string

// Lookup returns the text of message id. Its signature fits the messages
// argument of package wevt's Parse.
func (t MessageTable) Lookup(id uint32) (string, bool) {
	s, ok := t[id]
	return s, ok
}

// Message entry flags (MESSAGE_RESOURCE_ENTRY.Flags).
const (
	msgANSI    = 0
	msgUnicode = 1
	msgUTF8    = 2
)

// ParseMessageTable parses a MESSAGE_RESOURCE_DATA block (the data of an
// RT_MESSAGETABLE resource). When blocks overlap in ids the first text is
// kept. Errors are [*FormatError]s whose Offset is relative to b.
func ParseMessageTable(b []byte) (MessageTable, error) {
	if len(b) < 4 {
		return nil, errorf(0, "message table of %d bytes", len(b))
	}
	nb := uint64(binary.LittleEndian.Uint32(b))
	if nb > uint64(len(b)-4)/12 {
		return nil, errorf(0, "message table of %d blocks does not fit in %d bytes", nb, len(b))
	}
	t := MessageTable{}
	// Entries are at least 4 bytes and do not overlap in a well-formed
	// table: more than len(b)/4 of them means blocks share entries.
	budget := uint64(len(b) / 4)
	for i := uint64(0); i < nb; i++ {
		blk := 4 + 12*int64(i)
		lo := binary.LittleEndian.Uint32(b[blk:])
		hi := binary.LittleEndian.Uint32(b[blk+4:])
		off := int64(binary.LittleEndian.Uint32(b[blk+8:]))
		if hi < lo {
			return nil, errorf(blk, "message block with ids %#x to %#x", lo, hi)
		}
		n := uint64(hi-lo) + 1
		if n > budget {
			return nil, errorf(blk, "message block of %d entries: more than the table can hold", n)
		}
		budget -= n
		for j := uint64(0); j < n; j++ {
			if off+4 > int64(len(b)) {
				return nil, errorf(off, "message %#x beyond the end of the table", uint64(lo)+j)
			}
			l := int64(binary.LittleEndian.Uint16(b[off:]))
			flags := binary.LittleEndian.Uint16(b[off+2:])
			if l < 4 || off+l > int64(len(b)) {
				return nil, errorf(off, "message %#x of length %d does not fit", uint64(lo)+j, l)
			}
			text, err := decodeMessage(b[off+4:off+l], flags)
			if err != nil {
				return nil, &FormatError{Offset: off, Msg: "message text", Err: err}
			}
			id := lo + uint32(j)
			if _, dup := t[id]; !dup {
				t[id] = text
			}
			off += l
		}
	}
	return t, nil
}

var errFlags = errors.New("unknown message entry flags")

func decodeMessage(b []byte, flags uint16) (string, error) {
	switch flags {
	case msgUnicode:
		s := decodeUTF16(b)
		if i := strings.IndexByte(s, 0); i >= 0 {
			s = s[:i]
		}
		return s, nil
	case msgUTF8:
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		return strings.ToValidUTF8(string(b), "\uFFFD"), nil
	case msgANSI:
		if i := strings.IndexByte(string(b), 0); i >= 0 {
			b = b[:i]
		}
		return decode1252(b), nil
	}
	return "", errFlags
}

// cp1252 holds the Windows-1252 characters of bytes 0x80–0x9F (0 where the
// code page has none); the other bytes are Latin-1.
var cp1252 = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

// decode1252 decodes Windows-1252 ("ANSI" on Western systems) text.
func decode1252(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	out := make([]byte, 0, len(b)+len(b)/2)
	for _, c := range b {
		r := rune(c)
		if c >= 0x80 && c < 0xA0 {
			if r = cp1252[c-0x80]; r == 0 {
				r = rune(c)
			}
		}
		out = utf8.AppendRune(out, r)
	}
	return string(out)
}

// MessageTable returns the messages of every RT_MESSAGETABLE resource of
// the file, merged in tree order (the first text of an id wins, so the
// first language listed — usually neutral or en-US — is preferred). A file
// without message tables gives an empty table. Errors name file offsets.
func (f *File) MessageTable() (MessageTable, error) {
	res, err := f.ResourcesOfType(TypeMessageTable)
	if err != nil {
		return nil, err
	}
	t := MessageTable{}
	for _, r := range res {
		b, err := f.ReadResource(r)
		if err != nil {
			return nil, err
		}
		mt, err := ParseMessageTable(b)
		if err != nil {
			var fe *FormatError
			if errors.As(err, &fe) {
				if off, _, e := f.RVAToOffset(r.DataRVA); e == nil {
					fe.Offset += off
				}
			}
			return nil, err
		}
		for id, s := range mt {
			if _, dup := t[id]; !dup {
				t[id] = s
			}
		}
	}
	return t, nil
}
