package manifest

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// The WEPExplorer export format.
//
// Windows Events Providers Explorer (WEPExplorer, by Elias Bachaalany; its
// command-line tool wrote, for example, the dumps of the
// nasbench/EVTX-ETW-Resources collection) writes what the Event Log API
// reports about each provider (EvtOpenPublisherMetadata,
// EvtGetPublisherMetadataProperty, EvtGetEventMetadataProperty):
//
//	<Providers>
//	  <Provider>
//	    <Name>Microsoft-Windows-X</Name>
//	    <Metadata>
//	      <Guid>{…}</Guid>
//	      <ResourceFilePath/> <ParameterFilePath/> <MessageFilePath/> <HelpLink/> <PublisherMessage/>
//	      <Channels> <Channel> <Message/> <Path/> <Index/> <Id/> <Imported>true|false</Imported> </Channel>… </Channels>
//	      <Levels>   <Level>   <Message/> <Name/> <Value/> </Level>… </Levels>
//	      <Tasks>    <Task>    <Message/> <Name/> <Guid/>? <Value/> </Task>… </Tasks>
//	      <Opcodes>  <Opcode>  <Message/> <Name/> <Value/> <Task/> </Opcode>… </Opcodes>
//	      <Keywords> <Keyword> <Message/> <Name/> <Value/> </Keyword>… </Keywords>
//	    </Metadata>
//	    <EventMetadata>
//	      <Event> <Id/> <Version/> <Channel/>? <Level/>? <Task/>? <Opcode/>? <Keyword/>?
//	              <Message><![CDATA[\n…]]></Message>?
//	              <Template><![CDATA[\n<template xmlns="…/events"> <data …/> <struct …>…</struct> </template>]]></Template>
//	      </Event>…
//	    </EventMetadata>
//	  </Provider>…
//	</Providers>
//
// Numbers are decimal; <Opcode><Value> is the opcode and <Task> the task it
// is local to (0: provider-wide); channel <Id> is the channel value. The
// list file All.xml has providers with only <Name> and <Guid> (often the
// null GUID of a classic event source).
//
// An event names its channel, level, task and opcode not by name or value
// but by display string: the entry's message, or its name (a channel's
// path) when it has none; zero values are left out. <Keyword> joins with
// single spaces the display strings of every keyword whose mask overlaps
// the event's — after truncating both to their low 32 bits, so keywords in
// the high bits (win:ResponseTime …) never appear there. An empty template
// (<![CDATA[\n]]>) means the event has none. Maps are not exported; the
// templates' map attributes, if any, stay unresolved.

// wepRoot is the root element of a WEPExplorer export.
const wepRoot = "Providers"

func isWEPRoot(name string) bool { return name == wepRoot }

// wepProviders reads every <Provider> of a WEPExplorer export.
func (ps *parser) wepProviders(root *node) error {
	ps.m.Format = FormatWEPExplorer
	ps.m.Strings = map[string]string{}
	for _, pn := range root.kids("Provider") {
		p, err := ps.wepProvider(pn)
		if err != nil {
			return err
		}
		ps.m.Providers = append(ps.m.Providers, p)
	}
	return nil
}

// wepText returns the trimmed text of n's first child element named local
// ("" if none) and that child (nil if none). n may be nil.
func wepText(n *node, local string) (string, *node) {
	if n == nil {
		return "", nil
	}
	t, c := n.childText(local)
	return strings.TrimSpace(t), c
}

// wepKey normalizes a display string for matching: runs of white space
// become one space, and the ends are trimmed.
func wepKey(s string) string { return strings.Join(strings.Fields(s), " ") }

// wepDisplay is how WEPExplorer refers to an entry from an event: by its
// message, or by its name when it has none.
func wepDisplay(msg, name string) string {
	if k := wepKey(msg); k != "" {
		return k
	}
	return wepKey(name)
}

// wepNumber reads the number in n's child element elem. A missing or empty
// element is an error if required, else (0, false, nil).
func (ps *parser) wepNumber(n *node, elem string, bits int, what string, required bool) (uint64, bool, error) {
	v, c := wepText(n, elem)
	if v == "" {
		if required {
			line := n.line
			if c != nil {
				line = c.line
			}
			return 0, false, ps.errf(line, "%s: missing <%s>", what, elem)
		}
		return 0, false, nil
	}
	x, err := parseUint(v, bits)
	if err != nil {
		return 0, false, ps.errf(c.line, "%s: <%s> %q is not a %d-bit unsigned number", what, elem, v, bits)
	}
	return x, true, nil
}

// wepIndex holds the display-string lookups of one provider while its
// events are resolved. Every map keeps the first entry in document order;
// display strings are entered before names, so they win.
type wepIndex struct {
	levels   map[string]int // into Provider.Levels
	tasks    map[string]int // into Provider.Tasks
	channels map[string]int // into Provider.Channels
	opcodes  []wepOpcode    // every <Opcode>, in document order
	// keywords are the keyword candidates in order of preference: the
	// provider's by display string, then by name, then the predefined
	// ones. byFirst indexes them by their first word (built on first use).
	keywords []wepKeyword
	byFirst  map[string][]int
}

type wepOpcode struct {
	display, name string
	task          uint16 // the task the opcode is local to; 0 = provider-wide
	op            Opcode
}

type wepKeyword struct {
	text string
	kw   Keyword
}

// addKeys indexes n entries by display string, then by name.
func addKeys(m map[string]int, n int, entry func(i int) (msg, name string)) {
	for i := 0; i < n; i++ {
		msg, name := entry(i)
		if k := wepDisplay(msg, name); k != "" {
			addFirst(m, k, i)
		}
	}
	for i := 0; i < n; i++ {
		_, name := entry(i)
		if k := wepKey(name); k != "" {
			addFirst(m, k, i)
		}
	}
}

// wepProvider reads one <Provider>.
func (ps *parser) wepProvider(n *node) (*Provider, error) {
	name, _ := wepText(n, "Name")
	p := &Provider{
		Name:      name,
		Templates: map[string]*Template{},
		Maps:      map[string]*Map{},
		byKey:     map[eventKey]*Event{},
	}
	what := fmt.Sprintf("provider %q", name)
	_, meta := n.childText("Metadata")
	g, gn := wepText(meta, "Guid")
	if g == "" {
		line := n.line
		if gn != nil {
			line = gn.line
		} else if meta != nil {
			line = meta.line
		}
		return nil, ps.errf(line, "%s: missing <Guid>", what)
	}
	id, err := uuid.Parse(g)
	if err != nil {
		return nil, ps.errf(gn.line, "%s: bad guid %q", what, g)
	}
	p.GUID = id
	p.ResourceFileName, _ = wepText(meta, "ResourceFilePath")
	p.MessageFileName, _ = wepText(meta, "MessageFilePath")
	p.ParameterFileName, _ = wepText(meta, "ParameterFilePath")
	p.Message, _ = wepText(meta, "PublisherMessage")

	ix, err := ps.wepMetadata(meta, p, what)
	if err != nil {
		return nil, err
	}
	for _, en := range n.grandKids("EventMetadata", "Event") {
		e, err := ps.wepEvent(en, p, ix, what)
		if err != nil {
			return nil, err
		}
		ps.addEvent(p, e, en.line, what)
	}
	return p, nil
}

// wepMetadata reads the channels, levels, tasks, opcodes and keywords of a
// <Metadata> (which may be nil) into p and indexes them.
func (ps *parser) wepMetadata(meta *node, p *Provider, what string) (*wepIndex, error) {
	ix := &wepIndex{levels: map[string]int{}, tasks: map[string]int{}, channels: map[string]int{}}
	if meta == nil {
		ix.addWinKeywords()
		return ix, nil
	}
	for _, ln := range meta.grandKids("Levels", "Level") {
		name, _ := wepText(ln, "Name")
		msg, _ := wepText(ln, "Message")
		v, _, err := ps.wepNumber(ln, "Value", 8, fmt.Sprintf("%s: level %q", what, name), true)
		if err != nil {
			return nil, err
		}
		p.Levels = append(p.Levels, Level{Name: name, Value: uint8(v), Message: msg})
	}
	addKeys(ix.levels, len(p.Levels), func(i int) (string, string) { return p.Levels[i].Message, p.Levels[i].Name })

	taskVals := map[uint16]int{}
	for _, tn := range meta.grandKids("Tasks", "Task") {
		name, _ := wepText(tn, "Name")
		msg, _ := wepText(tn, "Message")
		w := fmt.Sprintf("%s: task %q", what, name)
		v, _, err := ps.wepNumber(tn, "Value", 16, w, true)
		if err != nil {
			return nil, err
		}
		t := Task{Name: name, Value: uint16(v), Message: msg}
		if g, gn := wepText(tn, "Guid"); g != "" {
			if id, err := uuid.Parse(g); err == nil {
				t.EventGUID = id
			} else {
				ps.warnf(gn.line, "%s: bad eventGUID %q ignored", w, g)
			}
		}
		addFirst(taskVals, t.Value, len(p.Tasks))
		p.Tasks = append(p.Tasks, t)
	}
	addKeys(ix.tasks, len(p.Tasks), func(i int) (string, string) { return p.Tasks[i].Message, p.Tasks[i].Name })

	for _, on := range meta.grandKids("Opcodes", "Opcode") {
		name, _ := wepText(on, "Name")
		msg, _ := wepText(on, "Message")
		w := fmt.Sprintf("%s: opcode %q", what, name)
		v, _, err := ps.wepNumber(on, "Value", 8, w, true)
		if err != nil {
			return nil, err
		}
		task, _, err := ps.wepNumber(on, "Task", 16, w, false)
		if err != nil {
			return nil, err
		}
		op := Opcode{Name: name, Value: uint8(v), Message: msg}
		ix.opcodes = append(ix.opcodes, wepOpcode{display: wepDisplay(msg, name), name: wepKey(name), task: uint16(task), op: op})
		if task != 0 {
			if ti, ok := taskVals[uint16(task)]; ok {
				p.Tasks[ti].Opcodes = append(p.Tasks[ti].Opcodes, op)
				continue
			}
			ps.warnf(on.line, "%s: local to task %d, which is not defined; taken as provider-wide", w, task)
		}
		p.Opcodes = append(p.Opcodes, op)
	}

	for _, kn := range meta.grandKids("Keywords", "Keyword") {
		name, _ := wepText(kn, "Name")
		msg, _ := wepText(kn, "Message")
		v, _, err := ps.wepNumber(kn, "Value", 64, fmt.Sprintf("%s: keyword %q", what, name), true)
		if err != nil {
			return nil, err
		}
		p.Keywords = append(p.Keywords, Keyword{Name: name, Value: v, Message: msg})
	}
	for _, k := range p.Keywords {
		ix.keywords = append(ix.keywords, wepKeyword{wepDisplay(k.Message, k.Name), k})
	}
	for _, k := range p.Keywords {
		ix.keywords = append(ix.keywords, wepKeyword{wepKey(k.Name), k})
	}
	ix.addWinKeywords()

	for _, cn := range meta.grandKids("Channels", "Channel") {
		path, _ := wepText(cn, "Path")
		msg, _ := wepText(cn, "Message")
		imp, _ := wepText(cn, "Imported")
		c := Channel{Name: path, Message: msg, Imported: strings.EqualFold(imp, "true")}
		w := fmt.Sprintf("%s: channel %q", what, path)
		v, ok, err := ps.wepNumber(cn, "Id", 8, w, false)
		if err != nil {
			return nil, err
		}
		if ok {
			c.Value = uint8(v)
		} else {
			c.Unassigned = true
			ps.warnf(cn.line, "%s: no <Id> (channel value)", w)
		}
		if pre, isPre := findWinChannel(path); isPre {
			c.Type, c.Symbol = pre.Type, pre.Symbol
		}
		p.Channels = append(p.Channels, c)
	}
	addKeys(ix.channels, len(p.Channels), func(i int) (string, string) { return p.Channels[i].Message, p.Channels[i].Name })
	return ix, nil
}

// addWinKeywords appends the predefined keywords, by message and by name,
// to the keyword candidates.
func (ix *wepIndex) addWinKeywords() {
	for _, k := range winKeywords() {
		if k.Value == 0 {
			continue
		}
		ix.keywords = append(ix.keywords, wepKeyword{wepDisplay(k.Message, k.Name), k})
		ix.keywords = append(ix.keywords, wepKeyword{k.Name, k})
	}
}

// level resolves a level display string: the provider's levels by message
// or name, then the predefined levels.
func (ix *wepIndex) level(p *Provider, s string) (Level, bool) {
	k := wepKey(s)
	if i, ok := ix.levels[k]; ok {
		return p.Levels[i], true
	}
	for _, l := range winLevels() {
		if wepDisplay(l.Message, l.Name) == k || l.Name == k {
			return l, true
		}
	}
	return Level{}, false
}

// task resolves a task display string; the index is into Provider.Tasks,
// -1 for a predefined task.
func (ix *wepIndex) task(p *Provider, s string) (Task, int, bool) {
	k := wepKey(s)
	if i, ok := ix.tasks[k]; ok {
		return p.Tasks[i], i, true
	}
	for _, t := range winTasks {
		if wepDisplay(t.Message, t.Name) == k || t.Name == k {
			return t, -1, true
		}
	}
	return Task{}, -1, false
}

// opcode resolves an opcode display string for an event of the given task
// the way WEPExplorer chose it: an opcode local to the event's task first,
// then a provider-wide one, then one local to another task; by message
// before name; then the predefined opcodes.
func (ix *wepIndex) opcode(s string, task uint16) (Opcode, bool) {
	k := wepKey(s)
	best, bestRank := -1, 0
	for i, o := range ix.opcodes {
		byDisplay := o.display == k
		if !byDisplay && o.name != k {
			continue
		}
		rank := 4 // another task's
		switch {
		case o.task == 0:
			rank = 2
		case o.task == task:
			rank = 0
		}
		if !byDisplay {
			rank++
		}
		if best < 0 || rank < bestRank {
			best, bestRank = i, rank
		}
	}
	if best >= 0 {
		return ix.opcodes[best].op, true
	}
	for _, o := range winOpcodes() {
		if wepDisplay(o.Message, o.Name) == k || o.Name == k {
			return o, true
		}
	}
	return Opcode{}, false
}

// channel resolves a channel display string: the provider's channels by
// message or path, then the predefined channels.
func (ix *wepIndex) channel(p *Provider, s string) (Channel, bool) {
	k := wepKey(s)
	if i, ok := ix.channels[k]; ok && !p.Channels[i].Unassigned {
		return p.Channels[i], true
	}
	return findWinChannel(k)
}

// splitKeywords splits a <Keyword> text — display strings joined by single
// spaces, which may themselves contain spaces — into keywords. It returns
// nil, false when no split uses known keywords only.
func (ix *wepIndex) splitKeywords(s string) ([]Keyword, bool) {
	k := wepKey(s)
	if k == "" {
		return nil, true
	}
	if ix.byFirst == nil {
		ix.byFirst = map[string][]int{}
		for i, c := range ix.keywords {
			if c.text != "" {
				w, _, _ := strings.Cut(c.text, " ")
				ix.byFirst[w] = append(ix.byFirst[w], i)
			}
		}
	}
	// from[i] is how position i (the start of a word) was reached: the
	// candidate ending there and the position it started at. Positions are
	// visited left to right, trying the candidates that start with the
	// word there.
	type step struct{ cand, prev int }
	from := make([]step, len(k)+1)
	for i := range from {
		from[i] = step{-1, -1}
	}
	from[0] = step{-1, 0}
	for pos := 0; pos < len(k); pos++ {
		if from[pos].prev < 0 || (pos > 0 && k[pos-1] != ' ') {
			continue
		}
		word, _, _ := strings.Cut(k[pos:], " ")
		for _, ci := range ix.byFirst[word] {
			c := ix.keywords[ci]
			if !strings.HasPrefix(k[pos:], c.text) {
				continue
			}
			end := pos + len(c.text)
			switch {
			case end == len(k):
			case k[end] == ' ':
				end++
			default:
				continue
			}
			if from[end].prev < 0 {
				from[end] = step{ci, pos}
			}
		}
	}
	if from[len(k)].prev < 0 {
		return nil, false
	}
	var out []Keyword
	for pos := len(k); pos > 0; pos = from[pos].prev {
		out = append(out, ix.keywords[from[pos].cand].kw)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, true
}

// wepEvent reads one <Event>.
func (ps *parser) wepEvent(n *node, p *Provider, ix *wepIndex, what string) (*Event, error) {
	id, _, err := ps.wepNumber(n, "Id", 32, what+": event", true)
	if err != nil {
		return nil, err
	}
	// Classic event-log providers report the 32-bit event value; the ETW
	// event id is its low word.
	e := &Event{ID: uint16(id), Qualifiers: uint16(id >> 16)}
	w := fmt.Sprintf("%s: event %d", what, e.ID)
	ver, _, err := ps.wepNumber(n, "Version", 8, w, false)
	if err != nil {
		return nil, err
	}
	e.Version = uint8(ver)
	w = fmt.Sprintf("%s: event %d version %d", what, e.ID, e.Version)

	if v, c := wepText(n, "Channel"); v != "" {
		if ch, ok := ix.channel(p, v); ok {
			e.Channel, e.HasChannel = ch.Value, true
			e.ChannelName, e.ChannelMessage = ch.Name, ch.Message
		} else {
			e.ChannelName = v
			ps.warnf(c.line, "%s: channel %q not defined", w, v)
		}
	}
	if v, c := wepText(n, "Level"); v != "" {
		if l, ok := ix.level(p, v); ok {
			e.Level, e.LevelName, e.LevelMessage = l.Value, l.Name, l.Message
		} else {
			e.LevelName = v
			ps.warnf(c.line, "%s: level %q not defined", w, v)
		}
	}
	if v, c := wepText(n, "Task"); v != "" {
		if t, _, ok := ix.task(p, v); ok {
			e.Task, e.TaskName, e.TaskMessage = t.Value, t.Name, t.Message
		} else {
			e.TaskName = v
			ps.warnf(c.line, "%s: task %q not defined", w, v)
		}
	}
	if v, c := wepText(n, "Opcode"); v != "" {
		if o, ok := ix.opcode(v, e.Task); ok {
			e.Opcode, e.OpcodeName, e.OpcodeMessage = o.Value, o.Name, o.Message
		} else {
			e.OpcodeName = v
			ps.warnf(c.line, "%s: opcode %q not defined", w, v)
		}
	}
	if v, c := wepText(n, "Keyword"); v != "" {
		if kws, ok := ix.splitKeywords(v); ok {
			for _, k := range kws {
				e.KeywordNames = append(e.KeywordNames, k.Name)
				e.Keywords |= k.Value
			}
		} else {
			e.KeywordNames = []string{v}
			ps.warnf(c.line, "%s: keywords %q are not a list of defined keywords", w, v)
		}
	}
	if msg, c := n.childText("Message"); c != nil {
		// The exporter starts every CDATA section with a line break.
		e.Message = strings.TrimPrefix(msg, "\n")
	}
	if _, tn := n.childText("Template"); tn != nil {
		if err := ps.wepTemplate(tn, p, e, w); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// wepTemplate parses the <template> document embedded in a <Template>
// element, with the manifest template logic, and attaches it to e under a
// made-up tid ("E<id>v<version>"). Lines in errors and warnings are those
// of the file: the embedded document's lines are offset by where its text
// starts.
func (ps *parser) wepTemplate(tn *node, p *Provider, e *Event, what string) error {
	if strings.TrimSpace(tn.text) == "" {
		return nil // the event has no template
	}
	base := tn.textLine
	if base == 0 {
		base = tn.line
	}
	root, err := buildTree([]byte(tn.text), ps.name, false)
	if err != nil {
		line, msg, inner := tn.line, "malformed XML", error(nil)
		if pe := (*Error)(nil); errors.As(err, &pe) {
			msg, inner = pe.Msg, pe.Err
			if pe.Line > 0 {
				line = base + pe.Line - 1
			}
		}
		return &Error{File: ps.name, Line: line, Msg: what + ": embedded template: " + msg, Err: inner}
	}
	root.shiftLines(base - 1)
	if root.name != "template" {
		return ps.errf(root.line, "%s: embedded template: root element is <%s>, not <template>", what, root.name)
	}
	tid := fmt.Sprintf("E%dv%d", e.ID, e.Version)
	for i := 2; p.Templates[tid] != nil; i++ {
		tid = fmt.Sprintf("E%dv%d.%d", e.ID, e.Version, i)
	}
	attrs := []xml.Attr{{Name: xml.Name{Local: "tid"}, Value: tid}}
	for _, a := range root.attrs {
		if a.Name.Local != "tid" {
			attrs = append(attrs, a)
		}
	}
	root.attrs = attrs
	t, err := ps.template(root, p, what)
	if err != nil {
		return err
	}
	p.Templates[tid] = t
	e.TemplateID, e.Template = tid, t
	return nil
}
