package wevt

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// Signatures of the provider elements.
const (
	sigChannels  = "CHAN"
	sigLevels    = "LEVL"
	sigOpcodes   = "OPCO"
	sigTasks     = "TASK"
	sigKeywords  = "KEYW"
	sigEvents    = "EVNT"
	sigMaps      = "MAPS"
	sigTemplates = "TTBL"
	sigAttrs     = "PRVA"
)

// Record sizes.
const (
	crimHeader   = 16
	providerDesc = 20
	wevtHeader   = 16
	listHeader   = 12
	chanRec      = 16
	levelRec     = 12
	opcodeRec    = 12
	taskRec      = 28
	keywordRec   = 16
	eventsHeader = 16
	eventRec     = 48
	tempHeader   = 40
	propRec      = 20
	mapHeader    = 20
	mapEntry     = 8
)

// Property descriptor flags (TEMP items).
const (
	propStruct    = 0x01
	propFixedLen  = 0x02
	propVarLen    = 0x04
	propFixedCnt  = 0x08
	propVarCnt    = 0x10
	propKnown     = propStruct | propFixedLen | propVarLen | propFixedCnt | propVarCnt
	chanImported  = 0x01 // CHAN record flags: declared with <importChannel>
	noMessage     = 0xFFFFFFFF
	channelKwBits = 0xFF00000000000000 // keyword bits mc.exe sets for channels
	// prvaName is the PRVA attribute type of the provider name.
	prvaName = 0x10000001
	// maxStructDepth bounds struct nesting (mc.exe allows none; the
	// manifest package allows 8).
	maxStructDepth = 8
)

// Parse reads a binary event manifest — the data of a WEVT_TEMPLATE
// resource, starting with "CRIM" — into the model package manifest reads
// XML manifests into, so that [manifest.Manifest.Schemas] compiles it as
// it would compile the XML the binary was made from.
//
// messages resolves message ids to texts (a PE file's message table; see
// [pe.MessageTable.Lookup]); it may be nil. Texts are used as the manifest
// package keeps messages: FormatMessage syntax with %1…%n inserts left for
// the renderer, the "\r\n" mc.exe ends every message-table text with
// removed. Without a text, the display names of the predefined win: levels,
// tasks, opcodes and keywords are winmeta.xml's English ones, and other
// messages are empty.
//
// Structural damage (an offset, count or size out of range, a wrong
// signature, a value too large for its field) is an error of type
// [*FormatError] naming the offset in b; nothing allocates more than b's
// size allows. What the binary does not hold is listed in the package
// documentation.
func Parse(b []byte, messages func(id uint32) (string, bool)) (*manifest.Manifest, error) {
	ps := &parser{r: newReader(b), messages: messages,
		m: &manifest.Manifest{Format: manifest.FormatBinary, Strings: map[string]string{}}}
	if err := ps.crim(); err != nil {
		return nil, err
	}
	return ps.m, nil
}

type parser struct {
	r        *reader
	messages func(uint32) (string, bool)
	m        *manifest.Manifest
	// expanded counts the template properties of all events: what
	// Schemas will build. Events share templates, so a small hostile
	// manifest could make it huge; it is capped at maxExpanded(len).
	expanded int64
}

// maxExpanded bounds the template properties all events of a manifest of
// n bytes may have together: far above what real manifests need (the
// largest Windows manifests stay below 10^5), and linear in n.
func maxExpanded(n int) int64 { return 1<<20 + int64(n) }

// maxWarnings bounds the warnings of one manifest.
const maxWarnings = 100

func (ps *parser) warnf(format string, args ...any) {
	switch n := len(ps.m.Warnings); {
	case n < maxWarnings:
		ps.m.Warnings = append(ps.m.Warnings, fmt.Sprintf(format, args...))
	case n == maxWarnings:
		ps.m.Warnings = append(ps.m.Warnings, "… further warnings dropped")
	}
}

// msg resolves a message id ("" when there is none).
func (ps *parser) msg(id uint32) string {
	if id == noMessage || ps.messages == nil {
		return ""
	}
	s, ok := ps.messages(id)
	if !ok {
		return ""
	}
	return cleanMessage(s)
}

// cleanMessage turns a message-table text back into manifest text: mc.exe
// ends each text with "\r\n" (unless it ends with %0) and pads with NULs.
func cleanMessage(s string) string {
	s = strings.TrimRight(s, "\x00")
	return strings.TrimSuffix(s, "\r\n")
}

func (ps *parser) crim() error {
	r := ps.r
	if len(r.b) < crimHeader || string(r.b[:4]) != "CRIM" {
		return &FormatError{Offset: 0, FileOffset: -1, Msg: "no CRIM header", Err: ErrNotManifest}
	}
	size := r.u32(4)
	if size < crimHeader || uint64(size) > uint64(len(r.b)) {
		return &FormatError{Offset: 4, FileOffset: -1, Msg: fmt.Sprintf("manifest size %d (have %d bytes)", size, len(r.b))}
	}
	// Offsets beyond the declared size are out of range.
	r.b = r.b[:size]
	major, minor := r.u16(8), r.u16(10)
	if major != 3 && major != 5 {
		ps.warnf("CRIM version %d.%d (3.1 and 5.1 are known)", major, minor)
	}
	n := r.count(12, crimHeader, providerDesc, uint64(size), "providers")
	seen := map[uuid.UUID]bool{}
	for i := 0; i < n && r.err == nil; i++ {
		d := uint32(crimHeader + providerDesc*i)
		g := r.guid(d)
		off := r.u32(d + 16)
		if r.err != nil {
			break
		}
		if seen[g] {
			ps.warnf("provider %s listed twice (first kept)", g)
			continue
		}
		seen[g] = true
		pp := &provParser{parser: ps, p: &manifest.Provider{GUID: g, Templates: map[string]*manifest.Template{},
			Maps: map[string]*manifest.Map{}}}
		pp.provider(off)
		if r.err != nil {
			break
		}
		pp.p.Index()
		ps.m.Providers = append(ps.m.Providers, pp.p)
	}
	return r.err
}

// provParser holds the state of one provider: the definitions by the
// offset events and properties refer to them with.
type provParser struct {
	*parser
	p *manifest.Provider

	levels    map[uint32]manifest.Level
	tasks     map[uint32]manifest.Task
	opcodes   map[uint32]manifest.Opcode
	keywordAt map[uint32]manifest.Keyword
	chanAt    map[uint32]manifest.Channel
	maps      map[uint32]*manifest.Map
	templates map[uint32]*manifest.Template
}

func (pp *provParser) provider(off uint32) {
	r := pp.r
	if !r.expect(off, "WEVT") {
		return
	}
	end := r.sized(off, wevtHeader, "WEVT provider")
	pp.p.Message = pp.msg(r.u32(off + 8))
	n := r.count(off+12, off+wevtHeader, 8, end, "provider elements")
	if !r.spend(int64(n)*8, off) {
		return
	}
	elems := map[string]uint32{}
	for i := 0; i < n && r.err == nil; i++ {
		eoff := r.u32(off + wevtHeader + 8*uint32(i) + 4)
		if !r.has(eoff, 4, "provider element") {
			return
		}
		sig := r.sig(eoff)
		if _, dup := elems[sig]; dup {
			r.fail(eoff, "second %s element of the provider", sig)
			return
		}
		elems[sig] = eoff
	}
	pp.levels = map[uint32]manifest.Level{}
	pp.tasks = map[uint32]manifest.Task{}
	pp.opcodes = map[uint32]manifest.Opcode{}
	pp.maps = map[uint32]*manifest.Map{}
	pp.keywordAt = map[uint32]manifest.Keyword{}
	pp.chanAt = map[uint32]manifest.Channel{}
	pp.templates = map[uint32]*manifest.Template{}
	// Elements are read in dependency order: events refer to templates,
	// levels, tasks, opcodes, keywords and channels by offset.
	for _, el := range []struct {
		sig  string
		read func(uint32)
	}{
		{sigAttrs, pp.attributes},
		{sigChannels, pp.channelList},
		{sigLevels, pp.levelList},
		{sigTasks, pp.taskList},
		{sigOpcodes, pp.opcodeList},
		{sigKeywords, pp.keywordList},
		{sigMaps, pp.mapList},
		{sigTemplates, pp.templateList},
		{sigEvents, pp.eventList},
	} {
		if o, ok := elems[el.sig]; ok {
			el.read(o)
		}
	}
	if pp.p.Name == "" {
		pp.nameFromChannelNames()
	}
}

// list checks a list element's header and returns the offset of its
// first record and its count. LEVL and OPCO (and others) may have size 0
// when empty.
func (pp *provParser) list(off uint32, sig string, recSize uint32) (first uint32, n int) {
	r := pp.r
	if !r.expect(off, sig) {
		return 0, 0
	}
	if r.u32(off+4) == 0 && r.err == nil {
		return off + listHeader, 0
	}
	end := r.sized(off, listHeader, sig)
	n = r.count(off+8, off+listHeader, recSize, end, sig+" entries")
	if !r.spend(int64(n)*int64(recSize), off) {
		return 0, 0
	}
	return off + listHeader, n
}

// attributes reads PRVA (CRIM 5): typed provider attributes, among them
// the provider name.
func (pp *provParser) attributes(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigAttrs, 8)
	for i := 0; i < n && r.err == nil; i++ {
		rec := first + 8*uint32(i)
		if r.u32(rec) == prvaName && pp.p.Name == "" {
			pp.p.Name = r.strz(r.u32(rec + 4))
		}
	}
}

func (pp *provParser) channelList(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigChannels, chanRec)
	for i := 0; i < n && r.err == nil; i++ {
		rec := first + chanRec*uint32(i)
		flags := r.u32(rec)
		name := r.str(r.u32(rec + 4))
		v := r.u32(rec + 8)
		message := pp.msg(r.u32(rec + 12))
		if r.err != nil {
			return
		}
		if v > 0xFF {
			r.fail(rec+8, "channel value %d exceeds 255", v)
			return
		}
		c := manifest.Channel{Name: name, Value: uint8(v), Message: message, Imported: flags&chanImported != 0}
		if pre, ok := predefined(predefChannels(), name, c.Value, func(c manifest.Channel) (string, uint8) { return c.Name, c.Value }); ok && c.Imported {
			c.Type, c.Symbol = pre.Type, pre.Symbol
			if c.Message == "" {
				c.Message = pre.Message
			}
		}
		pp.p.Channels = append(pp.p.Channels, c)
		pp.chanAt[rec] = c
	}
}

// The predefined win: entries (winmeta.xml), whose messages stand in for
// a missing message table (made when first used).
var (
	predefLevels   = sync.OnceValue(manifest.PredefinedLevels)
	predefOpcodes  = sync.OnceValue(manifest.PredefinedOpcodes)
	predefTasks    = sync.OnceValue(manifest.PredefinedTasks)
	predefKeywords = sync.OnceValue(manifest.PredefinedKeywords)
	predefChannels = sync.OnceValue(manifest.PredefinedChannels)
)

// predefined returns the entry of list with the given name and value.
func predefined[T any, V comparable](list []T, name string, v V, key func(T) (string, V)) (T, bool) {
	for _, e := range list {
		if n, ev := key(e); n == name && ev == v {
			return e, true
		}
	}
	var zero T
	return zero, false
}

func predefinedLevel(name string, v uint8) (manifest.Level, bool) {
	return predefined(predefLevels(), name, v, func(l manifest.Level) (string, uint8) { return l.Name, l.Value })
}

func predefinedOpcode(name string, v uint8) (manifest.Opcode, bool) {
	return predefined(predefOpcodes(), name, v, func(o manifest.Opcode) (string, uint8) { return o.Name, o.Value })
}

func predefinedTask(name string, v uint16) (manifest.Task, bool) {
	return predefined(predefTasks(), name, v, func(t manifest.Task) (string, uint16) { return t.Name, t.Value })
}

func predefinedKeyword(name string, v uint64) (manifest.Keyword, bool) {
	return predefined(predefKeywords(), name, v, func(k manifest.Keyword) (string, uint64) { return k.Name, k.Value })
}

func (pp *provParser) levelList(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigLevels, levelRec)
	for i := 0; i < n && r.err == nil; i++ {
		rec := first + levelRec*uint32(i)
		v := r.u32(rec)
		message := pp.msg(r.u32(rec + 4))
		name := r.str(r.u32(rec + 8))
		if r.err != nil {
			return
		}
		if v > 0xFF {
			r.fail(rec, "level value %d exceeds 255", v)
			return
		}
		l := manifest.Level{Name: name, Value: uint8(v), Message: message}
		if pre, ok := predefinedLevel(name, l.Value); ok {
			if l.Message == "" {
				l.Message = pre.Message
			}
			l.Symbol = pre.Symbol
		} else {
			pp.p.Levels = append(pp.p.Levels, l)
		}
		pp.levels[rec] = l
	}
}

func (pp *provParser) taskList(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigTasks, taskRec)
	for i := 0; i < n && r.err == nil; i++ {
		rec := first + taskRec*uint32(i)
		v := r.u32(rec)
		message := pp.msg(r.u32(rec + 4))
		g := r.guid(rec + 8)
		name := r.str(r.u32(rec + 24))
		if r.err != nil {
			return
		}
		if v > 0xFFFF {
			r.fail(rec, "task value %d exceeds 65535", v)
			return
		}
		t := manifest.Task{Name: name, Value: uint16(v), Message: message, EventGUID: g}
		if pre, ok := predefinedTask(name, t.Value); ok {
			if t.Message == "" {
				t.Message = pre.Message
			}
			t.Symbol = pre.Symbol
		} else {
			pp.p.Tasks = append(pp.p.Tasks, t)
		}
		pp.tasks[rec] = t
	}
}

// opcodeList reads OPCO: each record's first word holds the task value
// (low half, 0 for provider-global opcodes) and the opcode value.
func (pp *provParser) opcodeList(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigOpcodes, opcodeRec)
	for i := 0; i < n && r.err == nil; i++ {
		rec := first + opcodeRec*uint32(i)
		task, v := r.u16(rec), r.u16(rec+2)
		message := pp.msg(r.u32(rec + 4))
		name := r.str(r.u32(rec + 8))
		if r.err != nil {
			return
		}
		if v > 0xFF {
			r.fail(rec+2, "opcode value %d exceeds 255", v)
			return
		}
		o := manifest.Opcode{Name: name, Value: uint8(v), Message: message}
		pre, isPre := predefinedOpcode(name, o.Value)
		if isPre {
			if o.Message == "" {
				o.Message = pre.Message
			}
			o.Symbol = pre.Symbol
		}
		pp.opcodes[rec] = o
		switch {
		case task != 0:
			t := pp.p.TaskByValue(task)
			if t == nil {
				pp.warnf("provider %s: opcode %q of undefined task %d", pp.p.GUID, name, task)
				pp.p.Opcodes = append(pp.p.Opcodes, o)
				continue
			}
			t.Opcodes = append(t.Opcodes, o)
		case !isPre:
			pp.p.Opcodes = append(pp.p.Opcodes, o)
		}
	}
}

func (pp *provParser) keywordList(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigKeywords, keywordRec)
	for i := 0; i < n && r.err == nil; i++ {
		rec := first + keywordRec*uint32(i)
		mask := r.u64(rec)
		message := pp.msg(r.u32(rec + 8))
		name := r.str(r.u32(rec + 12))
		if r.err != nil {
			return
		}
		k := manifest.Keyword{Name: name, Value: mask, Message: message}
		if pre, ok := predefinedKeyword(name, mask); ok {
			if k.Message == "" {
				k.Message = pre.Message
			}
			k.Symbol = pre.Symbol
		} else {
			pp.p.Keywords = append(pp.p.Keywords, k)
		}
		pp.keywordAt[rec] = k
	}
}

// mapList reads MAPS: a count and that many offsets of VMAP/BMAP
// elements.
func (pp *provParser) mapList(off uint32) {
	r := pp.r
	first, n := pp.list(off, sigMaps, 4)
	for i := 0; i < n && r.err == nil; i++ {
		m := pp.mapAt(r.u32(first + 4*uint32(i)))
		if m == nil {
			return
		}
		if _, dup := pp.p.Maps[m.Name]; dup {
			pp.warnf("provider %s: duplicate map %q (first kept)", pp.p.GUID, m.Name)
			continue
		}
		pp.p.Maps[m.Name] = m
	}
}

// mapAt reads the VMAP or BMAP at off (once).
func (pp *provParser) mapAt(off uint32) *manifest.Map {
	if m, ok := pp.maps[off]; ok {
		return m
	}
	r := pp.r
	m := &manifest.Map{}
	switch r.sig(off) {
	case "VMAP":
		m.Kind = manifest.ValueMap
	case "BMAP":
		m.Kind = manifest.BitMap
	default:
		if r.has(off, 4, "map") {
			r.fail(off, "%q where VMAP or BMAP was expected", r.b[off:off+4])
		}
		return nil
	}
	end := r.sized(off, mapHeader, "map")
	m.Name = r.str(r.u32(off + 8))
	n := r.count(off+16, off+mapHeader, mapEntry, end, "map entries")
	if !r.spend(int64(n)*mapEntry, off) {
		return nil
	}
	m.Entries = make([]manifest.MapEntry, n)
	for i := range m.Entries {
		e := off + mapHeader + mapEntry*uint32(i)
		m.Entries[i] = manifest.MapEntry{Value: r.u32(e), Message: pp.msg(r.u32(e + 4))}
	}
	sort.SliceStable(m.Entries, func(i, j int) bool { return m.Entries[i].Value < m.Entries[j].Value })
	pp.maps[off] = m
	return m
}

// templateList reads TTBL: a count of TEMP elements laid end to end.
func (pp *provParser) templateList(off uint32) {
	r := pp.r
	if !r.expect(off, sigTemplates) {
		return
	}
	end := r.sized(off, listHeader, sigTemplates)
	n := uint64(r.u32(off + 8))
	if r.err == nil && n > (end-uint64(off)-listHeader)/tempHeader {
		r.fail(off+8, "%d templates do not fit in %d bytes", n, end-uint64(off))
		return
	}
	t := uint64(off) + listHeader
	for i := uint64(0); i < n && r.err == nil; i++ {
		if t+tempHeader > end {
			r.fail(uint32(t), "template %d beyond the end of TTBL", i)
			return
		}
		tp := pp.templateAt(uint32(t))
		if tp == nil {
			return
		}
		pp.p.Templates[tp.TID] = tp
		t += uint64(r.u32(uint32(t) + 4))
	}
}

// tid names a template: a binary manifest has no tids, so it is the
// template's offset in the blob.
func tid(off uint32) string { return fmt.Sprintf("T%#x", off) }

// templateAt reads the TEMP at off (once).
func (pp *provParser) templateAt(off uint32) *manifest.Template {
	if t, ok := pp.templates[off]; ok {
		return t
	}
	r := pp.r
	if !r.expect(off, "TEMP") {
		return nil
	}
	end := r.sized(off, tempHeader, "TEMP")
	top := r.u32(off + 8)
	total := r.u32(off + 12)
	items := r.u32(off + 16)
	if r.err != nil {
		return nil
	}
	if total == 0 {
		top = 0
	} else if items < off || uint64(items)+uint64(total)*propRec > end {
		r.fail(off+12, "%d property descriptors at %#x do not fit in the template", total, items)
		return nil
	}
	if top > total {
		r.fail(off+8, "%d top-level properties of %d", top, total)
		return nil
	}
	if !r.spend(int64(total)*propRec, off) {
		return nil
	}
	t := &manifest.Template{TID: tid(off)}
	fields := make([]*manifest.Field, total)
	type desc struct {
		flags         uint32
		first, nmemb  uint16
		count, length uint16
	}
	descs := make([]desc, total)
	for i := range fields {
		d := items + propRec*uint32(i)
		flags := r.u32(d)
		if flags&^propKnown != 0 && r.err == nil {
			pp.warnf("provider %s: template at %#x: property %d has unknown flags %#x", pp.p.GUID, off, i, flags)
		}
		f := &manifest.Field{Name: r.str(r.u32(d + 16)), Index: i, LengthIndex: -1, CountIndex: -1}
		descs[i] = desc{flags: flags, first: r.u16(d + 4), nmemb: r.u16(d + 6), count: r.u16(d + 12), length: r.u16(d + 14)}
		if flags&propStruct == 0 {
			f.InType, f.OutType = tdh.InType(r.u8(d+4)), tdh.OutType(r.u8(d+5))
			f.InTypeName, f.OutTypeName = f.InType.String(), f.OutType.String()
			if mo := r.u32(d + 8); mo != 0 {
				if f.Map = pp.mapAt(mo); f.Map != nil {
					f.MapName = f.Map.Name
					if _, ok := pp.p.Maps[f.MapName]; !ok {
						pp.p.Maps[f.MapName] = f.Map
					}
				}
			}
		}
		if r.err != nil {
			return nil
		}
		fields[i] = f
	}
	// Struct members: a struct's members are the nmemb descriptors from
	// first on, after the struct itself; every property has one parent.
	parent := make([]int, total)
	for i := range parent {
		parent[i] = -2 // not placed
	}
	for i := 0; i < int(top); i++ {
		parent[i] = -1
	}
	for i, d := range descs {
		if d.flags&propStruct == 0 {
			continue
		}
		first, n := int(d.first), int(d.nmemb)
		if first <= i || first+n > int(total) {
			r.fail(items+propRec*uint32(i)+4, "struct %q members %d..%d out of range (property %d of %d)", fields[i].Name, first, first+n-1, i, total)
			return nil
		}
		fields[i].Struct = make([]*manifest.Field, 0, n)
		for j := first; j < first+n; j++ {
			if parent[j] != -2 {
				r.fail(items+propRec*uint32(i)+4, "property %d is a member of two structs", j)
				return nil
			}
			parent[j] = i
			fields[i].Struct = append(fields[i].Struct, fields[j])
		}
	}
	for i, p := range parent {
		if p == -2 {
			r.fail(items+propRec*uint32(i), "property %d belongs to no struct", i)
			return nil
		}
		depth := 0
		for q := p; q >= 0; q = parent[q] {
			if depth++; depth > maxStructDepth {
				r.fail(items+propRec*uint32(i), "structs nested deeper than %d", maxStructDepth)
				return nil
			}
		}
	}
	// Lengths and counts: fixed values, or the TDH index of the property
	// holding them.
	for i, d := range descs {
		f := fields[i]
		switch {
		case d.flags&propVarLen != 0:
			if int(d.length) >= int(total) || int(d.length) == i {
				r.fail(items+propRec*uint32(i)+14, "length of %q refers to property %d of %d", f.Name, d.length, total)
				return nil
			}
			f.LengthIndex, f.LengthField = int(d.length), fields[d.length].Name
		case d.flags&propFixedLen != 0:
			f.Length = d.length
		}
		switch {
		case d.flags&propVarCnt != 0:
			if int(d.count) >= int(total) || int(d.count) == i {
				r.fail(items+propRec*uint32(i)+12, "count of %q refers to property %d of %d", f.Name, d.count, total)
				return nil
			}
			f.HasCount, f.CountIndex, f.CountField = true, int(d.count), fields[d.count].Name
		case d.flags&propFixedCnt != 0:
			f.HasCount, f.Count = true, d.count
		}
	}
	t.Fields = fields[:top]
	t.Properties = fields
	pp.templates[off] = t
	return t
}

func (pp *provParser) eventList(off uint32) {
	r := pp.r
	if !r.expect(off, sigEvents) {
		return
	}
	end := r.sized(off, eventsHeader, sigEvents)
	n := r.count(off+8, off+eventsHeader, eventRec, end, "events")
	if !r.spend(int64(n)*eventRec, off) {
		return
	}
	for i := 0; i < n && r.err == nil; i++ {
		e := pp.event(off + eventsHeader + eventRec*uint32(i))
		if e == nil {
			return
		}
		pp.p.Events = append(pp.p.Events, e)
	}
}

func (pp *provParser) event(rec uint32) *manifest.Event {
	r := pp.r
	e := &manifest.Event{
		ID:       r.u16(rec),
		Version:  r.u8(rec + 2),
		Channel:  r.u8(rec + 3),
		Level:    r.u8(rec + 4),
		Opcode:   r.u8(rec + 5),
		Task:     r.u16(rec + 6),
		Keywords: r.u64(rec+8) &^ channelKwBits,
	}
	e.Message = pp.msg(r.u32(rec + 16))
	tOff, oOff, lOff, kOff := r.u32(rec+20), r.u32(rec+24), r.u32(rec+28), r.u32(rec+32)
	if r.err != nil {
		return nil
	}
	if tOff != 0 {
		if e.Template = pp.templateAt(tOff); e.Template == nil {
			return nil
		}
		e.TemplateID = e.Template.TID
		pp.expanded += int64(len(e.Template.Properties))
		if pp.expanded > maxExpanded(len(r.b)) {
			r.fail(rec+20, "the events have more than %d template properties together", maxExpanded(len(r.b)))
			return nil
		}
		if _, ok := pp.p.Templates[e.TemplateID]; !ok {
			pp.p.Templates[e.TemplateID] = e.Template
		}
	}
	if lOff != 0 {
		l, ok := entryAt(r, pp.levels, lOff, rec+28, e.ID, "level", sigLevels)
		if !ok {
			return nil
		}
		e.LevelName, e.LevelMessage = l.Name, l.Message
	}
	if kOff != 0 {
		t, ok := entryAt(r, pp.tasks, kOff, rec+32, e.ID, "task", sigTasks)
		if !ok {
			return nil
		}
		e.TaskName, e.TaskMessage = t.Name, t.Message
	}
	if oOff != 0 {
		o, ok := entryAt(r, pp.opcodes, oOff, rec+24, e.ID, "opcode", sigOpcodes)
		if !ok {
			return nil
		}
		e.OpcodeName, e.OpcodeMessage = o.Name, o.Message
	}
	// The channel: the CHAN record the event refers to (mc.exe writes its
	// offset), else the provider's channel with the event's value.
	if cOff := r.u32(rec + 44); cOff != 0 {
		c, ok := entryAt(r, pp.chanAt, cOff, rec+44, e.ID, "channel", sigChannels)
		if !ok {
			return nil
		}
		e.ChannelName, e.ChannelMessage, e.HasChannel = c.Name, c.Message, true
	} else if e.Channel != 0 {
		for _, c := range pp.p.Channels {
			if c.Value == e.Channel {
				e.ChannelName, e.ChannelMessage, e.HasChannel = c.Name, c.Message, true
				break
			}
		}
	}
	// Keywords: the KEYW records the event names, as written.
	n, list := r.u32(rec+36), r.u32(rec+40)
	if r.err != nil {
		return nil
	}
	if n > 64 {
		r.fail(rec+36, "event %d names %d keywords (a mask has 64 bits)", e.ID, n)
		return nil
	}
	if n != 0 && !r.has(list, 4*uint64(n), "event keyword list") {
		return nil
	}
	for i := uint32(0); i < n; i++ {
		kOff := r.u32(list + 4*i)
		k, ok := entryAt(r, pp.keywordAt, kOff, list+4*i, e.ID, "keyword", sigKeywords)
		if !ok {
			return nil
		}
		e.KeywordNames = append(e.KeywordNames, k.Name)
	}
	return e
}

// entryAt returns the definition an event refers to by its offset off
// (read at ref), failing if off is no record of the sig list.
func entryAt[T any](r *reader, defs map[uint32]T, off, ref uint32, id uint16, what, sig string) (T, bool) {
	d, ok := defs[off]
	if !ok {
		r.fail(ref, "event %d: %s offset %#x is no %s entry", id, what, off, sig)
	}
	return d, ok
}

// nameFromChannelNames names a provider whose binary does not hold its
// name (CRIM 3.x) after its channels: Windows channel names are
// "ProviderName/Type", so when every channel the provider owns has the same
// prefix before the last "/", that prefix is taken.
func (pp *provParser) nameFromChannelNames() {
	name := ""
	for _, c := range pp.p.Channels {
		if c.Imported {
			continue
		}
		i := strings.LastIndexByte(c.Name, '/')
		if i <= 0 || (name != "" && name != c.Name[:i]) {
			name = ""
			break
		}
		name = c.Name[:i]
	}
	if name == "" {
		pp.warnf("provider %s: the binary does not hold the provider name", pp.p.GUID)
		return
	}
	pp.p.Name = name
	pp.warnf("provider %s: the binary does not hold the provider name; %q taken from its channel names", pp.p.GUID, name)
}
