package wpp

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/etwkit/etw/tdh"
)

// itemType is how a WPP item type compiles.
type itemType struct {
	in  tdh.InType
	out tdh.OutType
}

// itemTypes maps WPP item types (spelling variants included) to tdh types.
// Item types that need parameters (lists, sets, enums) or a size are
// handled in compileArg.
var itemTypes = sync.OnceValue(func() map[string]itemType {
	return map[string]itemType{
		"ItemChar":      {tdh.InTypeInt8, 0},
		"ItemUChar":     {tdh.InTypeUInt8, 0},
		"ItemUchar":     {tdh.InTypeUInt8, 0},
		"ItemCharShort": {tdh.InTypeUInt16, 0},
		"ItemCharSign":  {tdh.InTypeInt16, 0},
		"ItemShort":     {tdh.InTypeInt16, 0},
		"ItemUShort":    {tdh.InTypeUInt16, 0},
		"ItemUshort":    {tdh.InTypeUInt16, 0},
		"ItemLong":      {tdh.InTypeInt32, 0},
		"ItemULong":     {tdh.InTypeUInt32, 0},
		"ItemUlong":     {tdh.InTypeUInt32, 0},
		"ItemULongX":    {tdh.InTypeHexInt32, 0},
		"ItemUlongX":    {tdh.InTypeHexInt32, 0},
		"ItemLongLong":  {tdh.InTypeInt64, 0},
		"ItemULongLong": {tdh.InTypeUInt64, 0},
		"ItemUlongLong": {tdh.InTypeUInt64, 0},
		"ItemLongLongX": {tdh.InTypeHexInt64, 0},
		// ItemLongLongXX is ItemLongLongX printed zero-padded.
		"ItemLongLongXX":  {tdh.InTypeHexInt64, 0},
		"ItemULongLongX":  {tdh.InTypeHexInt64, 0},
		"ItemPtr":         {tdh.InTypePointer, 0},
		"ItemSize":        {tdh.InTypePointer, tdh.OutTypeUnsignedLong},
		"ItemDouble":      {tdh.InTypeDouble, 0},
		"ItemBool":        {tdh.InTypeBoolean, 0},
		"ItemGuid":        {tdh.InTypeGUID, 0},
		"ItemGUID":        {tdh.InTypeGUID, 0},
		"ItemString":      {tdh.InTypeAnsiString, 0},
		"ItemRString":     {tdh.InTypeAnsiString, 0},
		"ItemMLString":    {tdh.InTypeAnsiString, 0},
		"ItemWString":     {tdh.InTypeUnicodeString, 0},
		"ItemCWString":    {tdh.InTypeUnicodeString, 0},
		"ItemPString":     {tdh.InTypeMOFCountedAnsiString, 0},
		"ItemPWString":    {tdh.InTypeMOFCountedString, 0},
		"ItemNWString":    {tdh.InTypeNonNullTerminatedString, 0},
		"ItemWChar":       {tdh.InTypeUnicodeChar, 0},
		"ItemWCHAR":       {tdh.InTypeUnicodeChar, 0},
		"ItemChar4":       {tdh.InTypeAnsiString, 0}, // four characters, see compileArg
		"ItemCharHidden":  {tdh.InTypeBinary, tdh.OutTypeNoPrint},
		"ItemNTSTATUS":    {tdh.InTypeUInt32, tdh.OutTypeNTStatus},
		"ItemNTerror":     {tdh.InTypeUInt32, tdh.OutTypeNTStatus},
		"ItemWINERROR":    {tdh.InTypeUInt32, tdh.OutTypeWin32Error},
		"ItemHRESULT":     {tdh.InTypeUInt32, tdh.OutTypeHResult},
		"ItemNETEVENT":    {tdh.InTypeUInt32, tdh.OutTypeHexInt32},
		"ItemMerror":      {tdh.InTypeUInt32, tdh.OutTypeErrorCode},
		"ItemIPAddr":      {tdh.InTypeUInt32, tdh.OutTypeIPv4},
		"ItemPort":        {tdh.InTypeUInt16, tdh.OutTypePort},
		"ItemTimeStamp":   {tdh.InTypeFileTime, 0},
		"ItemTimestamp":   {tdh.InTypeFileTime, 0},
		"ItemSid":         {tdh.InTypeSID, 0},
		"ItemKSid":        {tdh.InTypeWBEMSID, 0},
		"ItemHexDump":     {tdh.InTypeCountedBinary, 0},
		"ItemListByte":    {tdh.InTypeUInt8, 0},
		"ItemListShort":   {tdh.InTypeUInt16, 0},
		"ItemListLong":    {tdh.InTypeUInt32, 0},
		"ItemSetByte":     {tdh.InTypeUInt8, 0},
		"ItemSetShort":    {tdh.InTypeUInt16, 0},
		"ItemSetLong":     {tdh.InTypeUInt32, 0},
		"ItemEnum":        {tdh.InTypeUInt32, 0},
		"ItemSetLongLong": {tdh.InTypeUInt64, 0},
	}
})

// Schemas compiles every message of f into a [tdh.Event]: ProviderGUID
// is the message GUID, ID the message number, Version the #version in
// force, Source [tdh.SourceWPP], ProviderName the module name, EventName
// the #typev name (file_line) and Message the format in
// [tdh.FormatMessage] syntax, with %1 the first argument. A message that
// does not compile (unknown item type, format inserts naming no argument)
// is left out and reported in the errors.
func (f *File) Schemas() ([]*tdh.Event, []error) {
	var out []*tdh.Event
	var errs []error
	for _, b := range f.Blocks {
		for _, m := range b.Messages {
			ev, err := f.compile(b, m)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, ev)
		}
	}
	return out, errs
}

var levels = sync.OnceValue(func() map[string]uint8 {
	return map[string]uint8{
		"TRACE_LEVEL_CRITICAL": 1, "TRACE_LEVEL_FATAL": 1, "TRACE_LEVEL_ERROR": 2, "TRACE_LEVEL_WARNING": 3,
		"TRACE_LEVEL_INFORMATION": 4, "TRACE_LEVEL_VERBOSE": 5,
	}
})

func (f *File) compile(b *Block, m *Message) (*tdh.Event, error) {
	errf := func(line int, format string, args ...any) error {
		return &Error{f.Name, line, fmt.Sprintf("message %s (%d): ", m.Name, m.Number) + fmt.Sprintf(format, args...)}
	}
	ev := &tdh.Event{
		Source:       tdh.SourceWPP,
		ProviderName: b.Module,
		ProviderGUID: b.GUID,
		ID:           uint16(m.Number),
		Version:      uint8(m.Version),
		EventName:    m.Name,
		Properties:   make([]tdh.Property, 0, len(m.Args)),
	}
	if l, ok := levels()[m.Level]; ok {
		ev.Level, ev.LevelName = l, m.Level
	}
	index := map[int]int{} // argument number → 1-based property position
	for _, a := range m.Args {
		p, err := f.compileArg(&a)
		if err != nil {
			return nil, errf(a.Line, "%v", err)
		}
		if _, dup := index[a.Number]; dup {
			return nil, errf(a.Line, "argument number %d used twice", a.Number)
		}
		ev.Properties = append(ev.Properties, p)
		index[a.Number] = len(ev.Properties)
	}
	msg, err := convertFormat(m, b, index)
	if err != nil {
		return nil, errf(m.Line, "%v", err)
	}
	ev.Message = msg
	return ev, nil
}

func (f *File) compileArg(a *Arg) (tdh.Property, error) {
	p := tdh.Property{Name: a.Name, LengthIndex: -1, CountIndex: -1}
	t, ok := itemTypes()[a.Type]
	if !ok {
		return p, fmt.Errorf("argument %q: unknown item type %s", a.Name, a.Type)
	}
	p.InType, p.OutType = t.in, t.out
	switch a.Type {
	case "ItemListByte", "ItemListShort", "ItemListLong":
		if len(a.Params) > 0 {
			m := &tdh.Map{Name: a.Type, Kind: tdh.ValueMap}
			for i, v := range a.Params {
				m.Entries = append(m.Entries, tdh.MapEntry{Value: uint64(i), Message: v})
			}
			p.Map = m
		}
	case "ItemSetByte", "ItemSetShort", "ItemSetLong", "ItemSetLongLong":
		if len(a.Params) > 64 {
			return p, fmt.Errorf("argument %q: %s has more than 64 names", a.Name, a.Type)
		}
		if len(a.Params) > 0 {
			m := &tdh.Map{Name: a.Type, Kind: tdh.BitMap}
			for i, v := range a.Params {
				m.Entries = append(m.Entries, tdh.MapEntry{Value: 1 << uint(i), Message: v})
			}
			p.Map = m
		}
	case "ItemEnum":
		if len(a.Params) != 1 || a.Params[0] == "" {
			return p, fmt.Errorf("argument %q: ItemEnum needs one enum name", a.Name)
		}
		if e, ok := f.Enums[a.Params[0]]; ok && len(e.Entries) > 0 {
			m := &tdh.Map{Name: e.Name, Kind: tdh.ValueMap, Entries: append([]tdh.MapEntry(nil), e.Entries...)}
			m.Sort()
			p.Map = m
		}
	case "ItemChar4":
		p.Length = 4
	}
	if a.Count > 0 {
		switch p.InType {
		case tdh.InTypeUnicodeChar:
			// WCHAR[N]: a fixed-size wide string.
			p.InType, p.Length = tdh.InTypeUnicodeString, uint16(a.Count)
		case tdh.InTypeInt8, tdh.InTypeUInt8, tdh.InTypeAnsiString:
			p.InType, p.Length = tdh.InTypeAnsiString, uint16(a.Count)
		case tdh.InTypeBinary:
			p.Length = uint16(a.Count)
		default:
			if p.InType.FixedSize(8) <= 0 {
				return p, fmt.Errorf("argument %q: %s[%d]: array of a variable-size item", a.Name, a.Type, a.Count)
			}
			p.IsArray, p.Count = true, uint16(a.Count)
		}
	} else if p.InType == tdh.InTypeBinary {
		return p, fmt.Errorf("argument %q: %s needs a [size]", a.Name, a.Type)
	}
	return p, nil
}

// convertFormat turns a TMF format into FormatMessage syntax: %0 (the
// tracefmt prefix) is dropped, %1 (module name) and %2 (message name)
// become their text, the other predefined parameters %3…%9 (thread,
// times, sequence, process, CPU) are dropped, %10 and up are renumbered
// to the argument's property position, and %!FUNC!, %!COMPNAME!,
// %!LEVEL!, %!FLAGS!, %!FILE! and %!LINE! are replaced by their values.
func convertFormat(m *Message, b *Block, index map[int]int) (string, error) {
	s := m.Format
	var out strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' || i+1 == len(s) {
			out.WriteByte(c)
			i++
			continue
		}
		c = s[i+1]
		switch {
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i <= 5 {
				j++
			}
			n, _ := strconv.Atoi(s[i+1 : j])
			spec := ""
			if j < len(s) && s[j] == '!' {
				if e := strings.IndexByte(s[j+1:], '!'); e >= 0 {
					spec = s[j : j+2+e]
					j += 2 + e
				}
			}
			switch {
			case n == 0:
			case n == 1:
				out.WriteString(escape(b.Module))
			case n == 2:
				out.WriteString(escape(m.Name))
			case n < 10:
			default:
				pos, ok := index[n]
				if !ok {
					return "", fmt.Errorf("format insert %%%d names no argument", n)
				}
				if pos > 99 {
					return "", fmt.Errorf("format insert %%%d is argument %d, above FormatMessage's 99", n, pos)
				}
				out.WriteString("%" + strconv.Itoa(pos) + spec)
			}
			i = j
		case c == '!':
			e := strings.IndexByte(s[i+2:], '!')
			if e < 0 {
				out.WriteString(s[i : i+2])
				i += 2
				continue
			}
			name := s[i+2 : i+2+e]
			if v, ok := macro(m, b, name); ok {
				out.WriteString(escape(v))
			} else {
				out.WriteString(s[i : i+3+e])
			}
			i += 3 + e
		default:
			out.WriteString(s[i : i+2])
			i += 2
		}
	}
	return out.String(), nil
}

// macro returns the value of a tracefmt %!NAME! macro known at compile time.
func macro(m *Message, b *Block, name string) (string, bool) {
	switch name {
	case "FUNC":
		return m.Func, true
	case "COMPNAME":
		return b.Module, true
	case "LEVEL":
		return m.Level, true
	case "FLAGS":
		return m.Flags, true
	case "FILE", "LINE":
		// Names are <file>_<ext><line>: L2CAP_c130 is L2CAP.c line 130.
		k := strings.LastIndexByte(m.Name, '_')
		if k < 0 {
			return "", false
		}
		stem, tail := m.Name[:k], m.Name[k+1:]
		d := len(tail)
		for d > 0 && tail[d-1] >= '0' && tail[d-1] <= '9' {
			d--
		}
		if name == "LINE" {
			return tail[d:], true
		}
		return stem + "." + tail[:d], true
	}
	return "", false
}

// escape makes text literal in a FormatMessage string.
func escape(s string) string {
	return strings.ReplaceAll(s, "%", "%%")
}
