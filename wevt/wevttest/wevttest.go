// Package wevttest compiles a manifest model into a binary event manifest
// (the CRIM data of a WEVT_TEMPLATE resource) and its message table, with
// the layout mc.exe writes, for tests, fuzz seeds and examples of package
// wevt and its users. It is no replacement for mc.exe: it writes what
// package wevt reads (no BinXML beyond an empty fragment, no event
// attributes, no pattern maps) and checks little.
package wevttest

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sort"
	"unicode/utf16"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/pe/petest"
	"github.com/etwkit/etw/tdh"
)

// Options choose the CRIM version.
type Options struct {
	// Version3 writes CRIM 3.1 (mc.exe before Windows 10), which does not
	// hold the provider name; otherwise CRIM 5.1 with a PRVA element.
	Version3 bool
	// Damaged writes a CRIM header that claims more bytes than the blob
	// has (0x7fffffff), as a damaged binary does: readers must refuse it.
	Damaged bool
}

// Compile writes the providers of m as a binary manifest and returns it
// with the message table entries its message ids refer to (each text ends
// with "\r\n", as mc.exe writes them). Predefined win: levels, tasks,
// opcodes, keywords and channels that events use are listed as mc.exe
// lists them.
func Compile(m *manifest.Manifest, opts Options) ([]byte, []petest.Message, error) {
	w := &writer{msgs: map[string]uint32{}}
	major := uint16(5)
	if opts.Version3 {
		major = 3
	}
	w.bytes("CRIM")
	w.u32(0) // size, patched
	w.u16(major)
	w.u16(1)
	w.u32(uint32(len(m.Providers)))
	descs := w.len()
	for range m.Providers {
		w.zeros(20)
	}
	for i, p := range m.Providers {
		d := descs + 20*i
		etl.PutGUIDWindows(w.b[d:], p.GUID)
		binary.LittleEndian.PutUint32(w.b[d+16:], uint32(w.len()))
		if err := w.provider(p, opts); err != nil {
			return nil, nil, err
		}
	}
	binary.LittleEndian.PutUint32(w.b[4:], uint32(w.len()))
	if opts.Damaged {
		binary.LittleEndian.PutUint32(w.b[4:], 0x7fffffff)
	}
	return w.b, w.messages, nil
}

// PE builds a PE file (PE32, or PE32+ with pe32Plus) holding the compiled
// manifest as WEVT_TEMPLATE and its message table as RT_MESSAGETABLE.
func PE(m *manifest.Manifest, opts Options, pe32Plus bool) ([]byte, error) {
	crim, msgs, err := Compile(m, opts)
	if err != nil {
		return nil, err
	}
	return petest.Build(petest.Options{PE32Plus: pe32Plus}, []petest.Resource{
		{Type: "WEVT_TEMPLATE", Name: "#1", Lang: 1033, Data: crim},
		{Type: "#11", Name: "#1", Lang: 1033, Data: petest.MessageTable(msgs)},
	}), nil
}

type writer struct {
	b        []byte
	messages []petest.Message
	msgs     map[string]uint32 // text → id, so equal texts share an id
	next     uint32
}

func (w *writer) len() int               { return len(w.b) }
func (w *writer) bytes(s string)         { w.b = append(w.b, s...) }
func (w *writer) zeros(n int)            { w.b = append(w.b, make([]byte, n)...) }
func (w *writer) u16(v uint16)           { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32)           { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64)           { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) put32(at int, v uint32) { binary.LittleEndian.PutUint32(w.b[at:], v) }

// msg returns the message id of a text (0xFFFFFFFF for none).
func (w *writer) msg(text string) uint32 {
	if text == "" {
		return 0xFFFFFFFF
	}
	if id, ok := w.msgs[text]; ok {
		return id
	}
	w.next++
	id := 0x10000000 | w.next
	w.msgs[text] = id
	w.messages = append(w.messages, petest.Message{ID: id, Text: text + "\r\n", Encoding: 1})
	return id
}

// name appends a name string (u32 size, UTF-16LE, NUL, padding to 4) and
// returns its offset.
func (w *writer) name(s string) uint32 {
	off := w.len()
	u := utf16.Encode([]rune(s))
	size := 4 + 2*len(u) + 2
	size = (size + 3) &^ 3
	w.u32(uint32(size))
	for _, c := range u {
		w.u16(c)
	}
	w.zeros(size - 4 - 2*len(u))
	return uint32(off)
}

// fixup is a name offset to write once the names follow the records.
type fixup struct {
	at   int
	name string
}

func (w *writer) names(fx []fixup) {
	for _, f := range fx {
		w.put32(f.at, w.name(f.name))
	}
}

// entry is a level, opcode, task or keyword as the lists hold it.
type entry struct {
	name, msg string
	value     uint64
	task      uint16 // opcodes: the task of a task-local opcode
	guid      [16]byte
	off       uint32
}

type provWriter struct {
	*writer
	p                       *manifest.Provider
	levels, tasks, ops, kws []*entry
	chans                   []manifest.Channel
	chanOff                 map[string]uint32
	mapOff                  map[*manifest.Map]uint32
	tempOff                 map[*manifest.Template]uint32
	levelBy, taskBy, kwBy   map[string]*entry
	opBy                    map[[2]string]*entry // task name (or ""), opcode name
}

func (w *writer) provider(p *manifest.Provider, opts Options) error {
	pw := &provWriter{writer: w, p: p, chanOff: map[string]uint32{}, mapOff: map[*manifest.Map]uint32{},
		tempOff: map[*manifest.Template]uint32{}, levelBy: map[string]*entry{}, taskBy: map[string]*entry{},
		kwBy: map[string]*entry{}, opBy: map[[2]string]*entry{}}
	if err := pw.collect(); err != nil {
		return err
	}
	start := w.len()
	type elem struct {
		kind  uint32
		write func()
	}
	elems := []elem{{5, pw.channels}}
	if !opts.Version3 {
		elems = append(elems, elem{0xD, pw.attributes})
	}
	elems = append(elems, elem{6, pw.maps}, elem{7, pw.templates}, elem{2, pw.opcodes}, elem{0, pw.levelList},
		elem{1, pw.taskList}, elem{3, pw.keywordList}, elem{4, pw.events})
	w.bytes("WEVT")
	w.u32(0)
	w.u32(w.msg(p.Message))
	w.u32(uint32(len(elems)))
	table := w.len()
	w.zeros(8 * len(elems))
	for i, e := range elems {
		w.put32(table+8*i, e.kind)
		w.put32(table+8*i+4, uint32(w.len()))
		e.write()
	}
	w.put32(start+4, uint32(w.len()-start))
	return nil
}

// collect lists the entries the provider declares and the predefined ones
// its events use, sorted by value as mc.exe sorts them.
func (pw *provWriter) collect() error {
	p := pw.p
	for _, l := range p.Levels {
		e := &entry{name: l.Name, msg: l.Message, value: uint64(l.Value)}
		pw.levels, pw.levelBy[l.Name] = append(pw.levels, e), e
	}
	for _, t := range p.Tasks {
		e := &entry{name: t.Name, msg: t.Message, value: uint64(t.Value)}
		etl.PutGUIDWindows(e.guid[:], t.EventGUID)
		pw.tasks, pw.taskBy[t.Name] = append(pw.tasks, e), e
		for _, o := range t.Opcodes {
			oe := &entry{name: o.Name, msg: o.Message, value: uint64(o.Value), task: t.Value}
			pw.ops, pw.opBy[[2]string{t.Name, o.Name}] = append(pw.ops, oe), oe
		}
	}
	for _, o := range p.Opcodes {
		e := &entry{name: o.Name, msg: o.Message, value: uint64(o.Value)}
		pw.ops, pw.opBy[[2]string{"", o.Name}] = append(pw.ops, e), e
	}
	for _, k := range p.Keywords {
		e := &entry{name: k.Name, msg: k.Message, value: k.Value}
		pw.kws, pw.kwBy[k.Name] = append(pw.kws, e), e
	}
	pw.chans = append(pw.chans, p.Channels...)
	for _, ev := range p.Events {
		if ev.LevelName != "" && pw.levelBy[ev.LevelName] == nil {
			l, ok := p.LevelByValue(ev.Level)
			if !ok || l.Name != ev.LevelName {
				return fmt.Errorf("event %d: level %q not defined", ev.ID, ev.LevelName)
			}
			e := &entry{name: l.Name, msg: l.Message, value: uint64(l.Value)}
			pw.levels, pw.levelBy[l.Name] = append(pw.levels, e), e
		}
		if ev.TaskName != "" && pw.taskBy[ev.TaskName] == nil {
			t := p.TaskByValue(ev.Task)
			if t == nil || t.Name != ev.TaskName {
				return fmt.Errorf("event %d: task %q not defined", ev.ID, ev.TaskName)
			}
			e := &entry{name: t.Name, msg: t.Message, value: uint64(t.Value)}
			pw.tasks, pw.taskBy[t.Name] = append(pw.tasks, e), e
		}
		if ev.OpcodeName != "" && pw.opcodeOf(ev) == nil {
			o, ok := p.OpcodeByValue(ev.Task, ev.Opcode)
			if !ok || o.Name != ev.OpcodeName {
				return fmt.Errorf("event %d: opcode %q not defined", ev.ID, ev.OpcodeName)
			}
			e := &entry{name: o.Name, msg: o.Message, value: uint64(o.Value)}
			pw.ops, pw.opBy[[2]string{"", o.Name}] = append(pw.ops, e), e
		}
		for _, kn := range ev.KeywordNames {
			if pw.kwBy[kn] != nil {
				continue
			}
			found := false
			for _, k := range manifest.PredefinedKeywords() {
				if k.Name == kn {
					e := &entry{name: k.Name, msg: k.Message, value: k.Value}
					pw.kws, pw.kwBy[k.Name], found = append(pw.kws, e), e, true
					break
				}
			}
			if !found {
				return fmt.Errorf("event %d: keyword %q not defined", ev.ID, kn)
			}
		}
		if ev.HasChannel && pw.channelOf(ev) < 0 {
			c, ok := p.ChannelByValue(ev.Channel)
			if !ok {
				return fmt.Errorf("event %d: channel %q not defined", ev.ID, ev.ChannelName)
			}
			c.Imported = true
			pw.chans = append(pw.chans, c)
		}
	}
	for _, list := range [][]*entry{pw.levels, pw.tasks, pw.ops, pw.kws} {
		sort.SliceStable(list, func(i, j int) bool {
			if list[i].task != list[j].task {
				return list[i].task < list[j].task
			}
			return list[i].value < list[j].value
		})
	}
	return nil
}

func (pw *provWriter) opcodeOf(ev *manifest.Event) *entry {
	if e := pw.opBy[[2]string{ev.TaskName, ev.OpcodeName}]; e != nil && e.value == uint64(ev.Opcode) {
		return e
	}
	return pw.opBy[[2]string{"", ev.OpcodeName}]
}

func (pw *provWriter) channelOf(ev *manifest.Event) int {
	for i, c := range pw.chans {
		if c.Name == ev.ChannelName && c.Value == ev.Channel {
			return i
		}
	}
	return -1
}

// list writes a list element: signature, size, count, records, names.
func (pw *provWriter) list(sig string, n int, rec func(i int) []fixup) {
	start := pw.len()
	pw.bytes(sig)
	pw.u32(0)
	pw.u32(uint32(n))
	var fx []fixup
	for i := 0; i < n; i++ {
		fx = append(fx, rec(i)...)
	}
	pw.names(fx)
	pw.put32(start+4, uint32(pw.len()-start))
}

func (pw *provWriter) channels() {
	pw.list("CHAN", len(pw.chans), func(i int) []fixup {
		c := pw.chans[i]
		pw.chanOff[c.Name] = uint32(pw.len())
		flags := uint32(0)
		if c.Imported {
			flags = 1
		}
		pw.u32(flags)
		at := pw.len()
		pw.u32(0)
		pw.u32(uint32(c.Value))
		pw.u32(pw.msg(c.Message))
		return []fixup{{at, c.Name}}
	})
}

func (pw *provWriter) attributes() {
	start := pw.len()
	pw.bytes("PRVA")
	pw.u32(0)
	pw.u32(1)
	pw.u32(0x10000001)
	pw.u32(uint32(pw.len() + 4))
	for _, c := range utf16.Encode([]rune(pw.p.Name)) {
		pw.u16(c)
	}
	pw.u16(0)
	for pw.len()%4 != 0 {
		pw.zeros(1)
	}
	pw.put32(start+4, uint32(pw.len()-start))
}

func (pw *provWriter) entries(sig string, list []*entry) {
	pw.list(sig, len(list), func(i int) []fixup {
		e := list[i]
		e.off = uint32(pw.len())
		switch sig {
		case "LEVL":
			pw.u32(uint32(e.value))
			pw.u32(pw.msg(e.msg))
		case "OPCO":
			pw.u16(e.task)
			pw.u16(uint16(e.value))
			pw.u32(pw.msg(e.msg))
		case "TASK":
			pw.u32(uint32(e.value))
			pw.u32(pw.msg(e.msg))
			pw.b = append(pw.b, e.guid[:]...)
		case "KEYW":
			pw.u64(e.value)
			pw.u32(pw.msg(e.msg))
		}
		at := pw.len()
		pw.u32(0)
		return []fixup{{at, e.name}}
	})
}

func (pw *provWriter) opcodes()     { pw.entries("OPCO", pw.ops) }
func (pw *provWriter) levelList()   { pw.entries("LEVL", pw.levels) }
func (pw *provWriter) taskList()    { pw.entries("TASK", pw.tasks) }
func (pw *provWriter) keywordList() { pw.entries("KEYW", pw.kws) }

func (pw *provWriter) maps() {
	names := slices.Sorted(maps.Keys(pw.p.Maps))
	start := pw.len()
	pw.bytes("MAPS")
	pw.u32(0)
	pw.u32(uint32(len(names)))
	table := pw.len()
	pw.zeros(4 * len(names))
	var fx []fixup
	for i, n := range names {
		m := pw.p.Maps[n]
		off := pw.len()
		pw.mapOff[m] = uint32(off)
		pw.put32(table+4*i, uint32(off))
		if m.Kind == manifest.BitMap {
			pw.bytes("BMAP")
		} else {
			pw.bytes("VMAP")
		}
		pw.u32(uint32(20 + 8*len(m.Entries)))
		fx = append(fx, fixup{pw.len(), m.Name})
		pw.u32(0)
		if m.Kind == manifest.BitMap {
			pw.u32(1)
		} else {
			pw.u32(0)
		}
		pw.u32(uint32(len(m.Entries)))
		for _, e := range m.Entries {
			pw.u32(e.Value)
			pw.u32(pw.msg(e.Message))
		}
	}
	pw.names(fx)
	pw.put32(start+4, uint32(pw.len()-start))
}

// Property descriptor flags.
const (
	propStruct   = 0x01
	propFixedLen = 0x02
	propVarLen   = 0x04
	propFixedCnt = 0x08
	propVarCnt   = 0x10
)

// emptyBinXML is a BinXML fragment header followed by end of stream.
var emptyBinXML = []byte{0x0F, 0x01, 0x01, 0x00, 0x00}

func (pw *provWriter) templates() {
	tids := slices.Sorted(maps.Keys(pw.p.Templates))
	start := pw.len()
	pw.bytes("TTBL")
	pw.u32(0)
	pw.u32(uint32(len(tids)))
	for _, tid := range tids {
		pw.template(pw.p.Templates[tid])
	}
	pw.put32(start+4, uint32(pw.len()-start))
}

func (pw *provWriter) template(t *manifest.Template) {
	start := pw.len()
	pw.tempOff[t] = uint32(start)
	pw.bytes("TEMP")
	pw.u32(0)
	pw.u32(uint32(len(t.Fields)))
	pw.u32(uint32(len(t.Properties)))
	itemsAt := pw.len()
	pw.u32(0)
	pw.u32(1)    // EventData
	pw.zeros(16) // template GUID
	pw.b = append(pw.b, emptyBinXML...)
	for pw.len()%4 != 0 {
		pw.zeros(1)
	}
	if len(t.Properties) > 0 {
		pw.put32(itemsAt, uint32(pw.len()))
	}
	var fx []fixup
	for _, f := range t.Properties {
		var flags uint32
		var count, length uint16
		if f.IsStruct() {
			flags |= propStruct
		}
		switch {
		case f.LengthIndex >= 0:
			flags, length = flags|propVarLen, uint16(f.LengthIndex)
		case f.Length > 0:
			flags, length = flags|propFixedLen, f.Length
		}
		switch {
		case f.CountIndex >= 0:
			flags, count = flags|propVarCnt, uint16(f.CountIndex)
		case f.HasCount && f.Count > 0:
			flags, count = flags|propFixedCnt, f.Count
		}
		pw.u32(flags)
		if f.IsStruct() {
			first := uint16(0)
			if len(f.Struct) > 0 {
				first = uint16(f.Struct[0].Index)
			}
			pw.u16(first)
			pw.u16(uint16(len(f.Struct)))
		} else {
			out := f.OutType
			if out == tdh.OutTypeNull {
				out = f.InType.DefaultOutType()
			}
			pw.b = append(pw.b, byte(f.InType), byte(out))
			pw.u16(0)
		}
		if f.Map != nil {
			pw.u32(pw.mapOff[f.Map])
		} else {
			pw.u32(0)
		}
		pw.u16(count)
		pw.u16(length)
		fx = append(fx, fixup{pw.len(), f.Name})
		pw.u32(0)
	}
	pw.names(fx)
	pw.put32(start+4, uint32(pw.len()-start))
}

// channelBit is the keyword bit mc.exe gives the i-th channel (63 down).
func channelBit(i int) uint64 {
	if i < 0 || i > 7 {
		return 0
	}
	return 1 << uint(63-i)
}

func (pw *provWriter) events() {
	events := append([]*manifest.Event(nil), pw.p.Events...)
	sort.SliceStable(events, func(i, j int) bool {
		if events[i].ID != events[j].ID {
			return events[i].ID < events[j].ID
		}
		return events[i].Version < events[j].Version
	})
	start := pw.len()
	pw.bytes("EVNT")
	pw.u32(0)
	pw.u32(uint32(len(events)))
	pw.u32(0)
	recs := pw.len()
	pw.zeros(48 * len(events))
	for i, ev := range events {
		r := pw.b[recs+48*i:]
		le := binary.LittleEndian
		le.PutUint16(r, ev.ID)
		r[2], r[3], r[4], r[5] = ev.Version, ev.Channel, ev.Level, ev.Opcode
		le.PutUint16(r[6:], ev.Task)
		kw := ev.Keywords
		ci := -1
		if ev.HasChannel {
			ci = pw.channelOf(ev)
			kw |= channelBit(ci)
		}
		le.PutUint64(r[8:], kw)
		le.PutUint32(r[16:], pw.msg(ev.Message))
		if ev.Template != nil {
			le.PutUint32(r[20:], pw.tempOff[ev.Template])
		}
		if e := pw.opcodeOf(ev); ev.OpcodeName != "" && e != nil {
			le.PutUint32(r[24:], e.off)
		}
		if e := pw.levelBy[ev.LevelName]; ev.LevelName != "" && e != nil {
			le.PutUint32(r[28:], e.off)
		}
		if e := pw.taskBy[ev.TaskName]; ev.TaskName != "" && e != nil {
			le.PutUint32(r[32:], e.off)
		}
		if ci >= 0 {
			le.PutUint32(r[44:], pw.chanOff[pw.chans[ci].Name])
		}
		if len(ev.KeywordNames) > 0 {
			le.PutUint32(r[36:], uint32(len(ev.KeywordNames)))
			le.PutUint32(r[40:], uint32(pw.len()))
			for _, kn := range ev.KeywordNames {
				pw.u32(pw.kwBy[kn].off) // may move pw.b: r is not used after
			}
		}
	}
	pw.put32(start+4, uint32(pw.len()-start))
}
