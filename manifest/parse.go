package manifest

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// ParseOptions adjusts parsing.
type ParseOptions struct {
	// Culture selects the resources block whose strings resolve
	// $(string.X) references, compared case-insensitively ("de-DE"). Empty
	// means "en-US" if present, otherwise the first resources block. A
	// culture the file lacks falls back to that default with a warning.
	// WEPExplorer exports, which hold the exporting system's strings,
	// ignore it.
	Culture string
}

// DefaultCulture is the culture used when ParseOptions.Culture is empty and
// the manifest has it.
const DefaultCulture = "en-US"

// maxWarnings caps Manifest.Warnings; further ones are only counted.
const maxWarnings = 1000

// Parse reads a manifest from r with default options. name identifies the
// input in errors and warnings (usually the file name).
//
// The input is an instrumentation manifest or a WEPExplorer export (root
// element <Providers>; [Manifest.Format] tells which); both give the same
// model. In a WEPExplorer export events refer to their level, task,
// opcode, channel and keywords by display string (message, else name);
// Parse resolves those to the provider's entries (the predefined win:
// ones too), so that Event.LevelName, TaskName, OpcodeName, ChannelName
// and KeywordNames hold the resolved names (a channel's path) and the
// *Message fields their messages, as for a manifest. Each event's embedded
// <template> document is parsed like a manifest template and registered
// under the made-up tid "E<id>v<version>"; errors and warnings in it name
// the line of the file. The export has no string table (messages are
// already localized) and no maps.
func Parse(r io.Reader, name string) (*Manifest, error) {
	return ParseWithOptions(r, name, ParseOptions{})
}

// ParseFile reads the manifest file at path with default options. path
// names the file in errors and warnings; a failure to open it is returned
// unwrapped (*fs.PathError).
func ParseFile(path string) (*Manifest, error) {
	return ParseFileWithOptions(path, ParseOptions{})
}

// ParseFileWithOptions reads the manifest file at path, like [ParseFile].
func ParseFileWithOptions(path string, opts ParseOptions) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseWithOptions(f, path, opts)
}

// ParseWithOptions reads a manifest or WEPExplorer export from r (see
// [Parse]). name identifies the input in errors and warnings. Fatal
// problems are returned as [*Error]; input that is well-formed XML but
// neither wraps [ErrNotManifest].
func ParseWithOptions(r io.Reader, name string, opts ParseOptions) (*Manifest, error) {
	raw, err := readInput(r, name)
	if err != nil {
		return nil, err
	}
	data, transcoded, err := decodeInput(raw)
	if err != nil {
		return nil, &Error{File: name, Line: 1, Msg: "malformed input", Err: err}
	}
	root, err := buildTreeText(data, name, transcoded, isWEPRoot)
	if err != nil {
		return nil, err
	}
	ps := &parser{name: name, m: &Manifest{}, lines: map[*Field]int{}}
	if isWEPRoot(root.name) {
		if err := ps.wepProviders(root); err != nil {
			return nil, err
		}
		return ps.finish(), nil
	}
	if root.name != "instrumentationManifest" && root.name != "assembly" {
		return nil, &Error{File: name, Line: root.line, Msg: fmt.Sprintf("root element is <%s>", root.name), Err: ErrNotManifest}
	}
	ps.localization(root, opts.Culture)
	for _, inst := range root.kids("instrumentation") {
		for _, pn := range inst.grandKids("events", "provider") {
			p, err := ps.provider(pn)
			if err != nil {
				return nil, err
			}
			ps.m.Providers = append(ps.m.Providers, p)
		}
	}
	return ps.finish(), nil
}

// finish completes the manifest: the count of warnings beyond the cap.
func (ps *parser) finish() *Manifest {
	if ps.dropped > 0 {
		ps.m.Warnings = append(ps.m.Warnings, fmt.Sprintf("%s: … and %d more warnings", ps.name, ps.dropped))
	}
	return ps.m
}

// parser carries the state of one Parse call.
type parser struct {
	name    string
	m       *Manifest
	dropped int
	lines   map[*Field]int // element line of each field, for messages
}

func (ps *parser) warnf(line int, format string, args ...any) {
	if len(ps.m.Warnings) >= maxWarnings {
		ps.dropped++
		return
	}
	ps.m.Warnings = append(ps.m.Warnings, fmt.Sprintf("%s:%d: ", ps.name, line)+fmt.Sprintf(format, args...))
}

func (ps *parser) errf(line int, format string, args ...any) error {
	return &Error{File: ps.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// localization loads the string table of the chosen culture.
func (ps *parser) localization(root *node, want string) {
	type block struct {
		culture string
		n       *node
	}
	var blocks []block
	seen := map[string]bool{}
	for _, loc := range root.kids("localization") {
		for _, res := range loc.kids("resources") {
			c := res.get("culture")
			blocks = append(blocks, block{c, res})
			if !seen[strings.ToLower(c)] {
				seen[strings.ToLower(c)] = true
				ps.m.Cultures = append(ps.m.Cultures, c)
			}
		}
	}
	ps.m.Strings = map[string]string{}
	if len(blocks) == 0 {
		return
	}
	pick := func(c string) (string, bool) {
		for _, b := range blocks {
			if strings.EqualFold(b.culture, c) {
				return b.culture, true
			}
		}
		return "", false
	}
	chosen, ok := "", false
	if want != "" {
		if chosen, ok = pick(want); !ok {
			ps.warnf(blocks[0].n.line, "culture %q not present (have %s); using the default", want, strings.Join(ps.m.Cultures, ", "))
		}
	}
	if !ok {
		if chosen, ok = pick(DefaultCulture); !ok {
			chosen = blocks[0].culture
		}
	}
	ps.m.Culture = chosen
	for _, b := range blocks {
		if !strings.EqualFold(b.culture, chosen) {
			continue
		}
		for _, s := range b.n.grandKids("stringTable", "string") {
			id, _ := s.attr("id")
			id = strings.TrimSpace(id)
			v, _ := s.attr("value")
			if prev, dup := ps.m.Strings[id]; dup {
				if prev != v {
					ps.warnf(s.line, "duplicate string id %q with a different value (first kept)", id)
				}
				continue
			}
			ps.m.Strings[id] = v
		}
	}
}

// text resolves a message-like attribute value: $(string.Id) and $(mc.Id)
// go through the string table; other text is returned as written. An
// unresolved reference is returned raw and reported.
func (ps *parser) text(line int, v, what string) string {
	t := strings.TrimSpace(v)
	if !strings.HasPrefix(t, "$(") || !strings.HasSuffix(t, ")") {
		return v
	}
	kind, id, ok := strings.Cut(t[2:len(t)-1], ".")
	if !ok || (kind != "string" && kind != "mc") {
		return v
	}
	if s, ok := ps.m.Strings[id]; ok {
		return s
	}
	ps.warnf(line, "%s: unresolved string reference %s", what, t)
	return v
}

// message resolves n's message attribute.
func (ps *parser) message(n *node, what string) string {
	v, ok := n.attr("message")
	if !ok {
		return ""
	}
	return ps.text(n.line, v, what)
}

// parseUint reads a decimal or 0x-hex number of at most bits bits.
func parseUint(s string, bits int) (uint64, error) {
	s = strings.TrimSpace(s)
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return strconv.ParseUint(s[2:], 16, bits)
	}
	return strconv.ParseUint(s, 10, bits)
}

// number reads a required numeric attribute.
func (ps *parser) number(n *node, attr string, bits int, what string) (uint64, error) {
	v, ok := n.attr(attr)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, ps.errf(n.line, "%s: missing %s", what, attr)
	}
	x, err := parseUint(v, bits)
	if err != nil {
		return 0, ps.errf(n.line, "%s: %s=%q is not a %d-bit unsigned number", what, attr, v, bits)
	}
	return x, nil
}

// optNumber reads an optional numeric attribute.
func (ps *parser) optNumber(n *node, attr string, bits int, what string) (uint64, bool, error) {
	v, ok := n.attr(attr)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, false, nil
	}
	x, err := ps.number(n, attr, bits, what)
	return x, true, err
}

func (ps *parser) provider(n *node) (*Provider, error) {
	p := &Provider{
		Name:              n.get("name"),
		Symbol:            n.get("symbol"),
		ResourceFileName:  n.get("resourceFileName"),
		MessageFileName:   n.get("messageFileName"),
		ParameterFileName: n.get("parameterFileName"),
		Templates:         map[string]*Template{},
		Maps:              map[string]*Map{},
		byKey:             map[eventKey]*Event{},
	}
	what := fmt.Sprintf("provider %q", p.Name)
	g := n.get("guid")
	if g == "" {
		return nil, ps.errf(n.line, "%s: missing guid", what)
	}
	id, err := uuid.Parse(g)
	if err != nil {
		return nil, ps.errf(n.line, "%s: bad guid %q", what, g)
	}
	p.GUID = id
	p.Message = ps.message(n, what)

	ix := newProvIndex()
	if err := ps.levels(n, p, ix, what); err != nil {
		return nil, err
	}
	if err := ps.tasks(n, p, ix, what); err != nil {
		return nil, err
	}
	for _, o := range n.grandKids("opcodes", "opcode") {
		op, err := ps.opcode(o, what)
		if err != nil {
			return nil, err
		}
		if !addFirst(ix.opcodes, op.Name, len(p.Opcodes)) {
			ps.warnf(o.line, "%s: duplicate opcode %q (first kept)", what, op.Name)
		}
		p.Opcodes = append(p.Opcodes, op)
	}
	for _, k := range n.grandKids("keywords", "keyword") {
		name := k.get("name")
		mask, err := ps.number(k, "mask", 64, fmt.Sprintf("%s: keyword %q", what, name))
		if err != nil {
			return nil, err
		}
		if !addFirst(ix.keywords, name, len(p.Keywords)) {
			ps.warnf(k.line, "%s: duplicate keyword %q (first kept)", what, name)
		}
		p.Keywords = append(p.Keywords, Keyword{Name: name, Value: mask, Symbol: k.get("symbol"),
			Message: ps.message(k, fmt.Sprintf("%s: keyword %q", what, name))})
	}
	if err := ps.channels(n, p, what); err != nil {
		return nil, err
	}
	for i, c := range p.Channels {
		if !c.Unassigned {
			addFirst(ix.channels, c.Name, i)
			if c.ID != "" {
				addFirst(ix.channels, c.ID, i)
			}
		}
	}
	if err := ps.maps(n, p, what); err != nil {
		return nil, err
	}
	tns, ens := n.grandKids("templates", "template"), n.grandKids("events", "event")
	if err := ps.perProvider(tns, "templates", what); err != nil {
		return nil, err
	}
	if err := ps.perProvider(ens, "events", what); err != nil {
		return nil, err
	}
	for _, tn := range tns {
		t, err := ps.template(tn, p, what)
		if err != nil {
			return nil, err
		}
		if _, dup := p.Templates[t.TID]; dup {
			ps.warnf(tn.line, "%s: duplicate template %q (first kept)", what, t.TID)
			continue
		}
		p.Templates[t.TID] = t
	}
	for _, en := range ens {
		e, err := ps.event(en, p, ix, what)
		if err != nil {
			return nil, err
		}
		ps.addEvent(p, e, en.line, what)
	}
	return p, nil
}

// perProvider refuses more than MaxProviderEvents items (events or
// templates) in one provider, at the line of the first one too many.
func (ps *parser) perProvider(items []*node, kind, what string) error {
	if len(items) > MaxProviderEvents {
		return limitErr(ps.name, items[MaxProviderEvents].line, "%s: more than %d %s (manifest.MaxProviderEvents)", what, MaxProviderEvents, kind)
	}
	return nil
}

// addEvent adds e to p; Provider.Event finds the first of several events
// with one id and version, and the others are reported as warnings.
func (ps *parser) addEvent(p *Provider, e *Event, line int, what string) {
	p.Events = append(p.Events, e)
	k := eventKey{e.ID, e.Version}
	if _, dup := p.byKey[k]; dup {
		ps.warnf(line, "%s: duplicate event %d version %d (first kept for lookups)", what, e.ID, e.Version)
		return
	}
	p.byKey[k] = e
}

func (ps *parser) levels(n *node, p *Provider, ix *provIndex, what string) error {
	for _, l := range n.grandKids("levels", "level") {
		name := l.get("name")
		w := fmt.Sprintf("%s: level %q", what, name)
		v, err := ps.number(l, "value", 8, w)
		if err != nil {
			return err
		}
		if !addFirst(ix.levels, name, len(p.Levels)) {
			ps.warnf(l.line, "%s: duplicate level %q (first kept)", what, name)
		}
		p.Levels = append(p.Levels, Level{Name: name, Value: uint8(v), Symbol: l.get("symbol"), Message: ps.message(l, w)})
	}
	return nil
}

func (ps *parser) opcode(o *node, what string) (Opcode, error) {
	name := o.get("name")
	w := fmt.Sprintf("%s: opcode %q", what, name)
	v, err := ps.number(o, "value", 8, w)
	if err != nil {
		return Opcode{}, err
	}
	return Opcode{Name: name, Value: uint8(v), Symbol: o.get("symbol"), Message: ps.message(o, w)}, nil
}

func (ps *parser) tasks(n *node, p *Provider, ix *provIndex, what string) error {
	for _, tn := range n.grandKids("tasks", "task") {
		name := tn.get("name")
		w := fmt.Sprintf("%s: task %q", what, name)
		v, err := ps.number(tn, "value", 16, w)
		if err != nil {
			return err
		}
		t := Task{Name: name, Value: uint16(v), Symbol: tn.get("symbol"), Message: ps.message(tn, w)}
		if g := tn.get("eventGUID"); g != "" {
			if id, err := uuid.Parse(g); err == nil {
				t.EventGUID = id
			} else {
				ps.warnf(tn.line, "%s: bad eventGUID %q ignored", w, g)
			}
		}
		local := map[string]int{}
		for _, o := range tn.grandKids("opcodes", "opcode") {
			op, err := ps.opcode(o, w)
			if err != nil {
				return err
			}
			if !addFirst(local, op.Name, len(t.Opcodes)) {
				ps.warnf(o.line, "%s: duplicate opcode %q (first kept)", w, op.Name)
			}
			t.Opcodes = append(t.Opcodes, op)
		}
		if !addFirst(ix.tasks, name, len(p.Tasks)) {
			ps.warnf(tn.line, "%s: duplicate task %q (first kept)", what, name)
		}
		addFirst(ix.taskVals, t.Value, len(p.Tasks))
		ix.localOps = append(ix.localOps, local)
		p.Tasks = append(p.Tasks, t)
	}
	return nil
}

// channels reads <channel> and <importChannel> in document order and
// assigns values the way mc.exe does: explicit values and imported
// predefined channels keep theirs, the others get the lowest free value
// from 16 up, in document order (checked against mc.exe output).
func (ps *parser) channels(n *node, p *Provider, what string) error {
	used := map[uint8]bool{}
	var pending []int
	for _, list := range n.kids("channels") {
		for _, c := range list.children {
			if c.name != "channel" && c.name != "importChannel" {
				continue
			}
			ch := Channel{Name: c.get("name"), ID: c.get("chid"), Type: c.get("type"), Symbol: c.get("symbol"),
				Imported: c.name == "importChannel"}
			w := fmt.Sprintf("%s: channel %q", what, ch.Name)
			ch.Message = ps.message(c, w)
			v, ok, err := ps.optNumber(c, "value", 8, w)
			if err != nil {
				return err
			}
			switch {
			case ok:
				ch.Value = uint8(v)
				used[ch.Value] = true
			case ch.Imported:
				if pre, isPre := findWinChannel(ch.Name); isPre {
					ch.Value = pre.Value
					if ch.Type == "" {
						ch.Type = pre.Type
					}
					if ch.Message == "" {
						ch.Message = pre.Message
					}
					if ch.Symbol == "" {
						ch.Symbol = pre.Symbol
					}
					break
				}
				pending = append(pending, len(p.Channels))
			default:
				pending = append(pending, len(p.Channels))
			}
			p.Channels = append(p.Channels, ch)
		}
	}
	next := 16
	for _, i := range pending {
		for next <= 255 && used[uint8(next)] {
			next++
		}
		if next > 255 {
			p.Channels[i].Unassigned = true
			ps.warnf(n.line, "%s: no free value for channel %q", what, p.Channels[i].Name)
			continue
		}
		p.Channels[i].Value = uint8(next)
		p.Channels[i].Assigned = true
		used[uint8(next)] = true
	}
	return nil
}

func (ps *parser) maps(n *node, p *Provider, what string) error {
	// Maps belong in <maps>; PerfView's test manifests put them directly
	// in <provider>, which PerfView accepts, so accept that too.
	lists := append(n.kids("maps"), n)
	for li, list := range lists {
		for _, mn := range list.children {
			var kind MapKind
			switch mn.name {
			case "valueMap":
				kind = ValueMap
			case "bitMap":
				kind = BitMap
			default:
				continue // patternMap and unknown elements
			}
			m := &Map{Name: mn.get("name"), Symbol: mn.get("symbol"), Kind: kind}
			w := fmt.Sprintf("%s: %s %q", what, kind, m.Name)
			if li == len(lists)-1 {
				ps.warnf(mn.line, "%s: outside <maps> (accepted)", w)
			}
			for _, e := range mn.kids("map") {
				v, err := ps.number(e, "value", 32, w+": map entry")
				if err != nil {
					return err
				}
				m.Entries = append(m.Entries, MapEntry{Value: uint32(v), Message: ps.message(e, w)})
			}
			sortEntries(m.Entries)
			if _, dup := p.Maps[m.Name]; dup {
				ps.warnf(mn.line, "%s: duplicate map %q (first kept)", what, m.Name)
				continue
			}
			p.Maps[m.Name] = m
		}
	}
	return nil
}

// sortEntries sorts map entries by value, keeping document order for equal
// values.
func sortEntries(e []MapEntry) {
	sort.SliceStable(e, func(i, j int) bool { return e[i].Value < e[j].Value })
}

// maxStructDepth bounds <struct> nesting (mc allows none; be lenient).
const maxStructDepth = 8

func (ps *parser) template(n *node, p *Provider, what string) (*Template, error) {
	t := &Template{TID: n.get("tid"), Name: n.get("name")}
	w := fmt.Sprintf("%s: template %q", what, t.TID)
	if t.TID == "" {
		ps.warnf(n.line, "%s: template without tid", what)
	}
	fields, err := ps.fields(n, p, w, 0)
	if err != nil {
		return nil, err
	}
	t.Fields = fields
	// TDH order: breadth first.
	for level := t.Fields; len(level) > 0; {
		var next []*Field
		for _, f := range level {
			f.Index = len(t.Properties)
			t.Properties = append(t.Properties, f)
			next = append(next, f.Struct...)
		}
		level = next
	}
	if err := ps.resolveRefs(t.Fields, nil, w); err != nil {
		return nil, err
	}
	return t, nil
}

func (ps *parser) fields(n *node, p *Provider, what string, depth int) ([]*Field, error) {
	if depth > maxStructDepth {
		return nil, ps.errf(n.line, "%s: structs nested deeper than %d", what, maxStructDepth)
	}
	out := []*Field{}
	for _, c := range n.children {
		if c.name != "data" && c.name != "struct" {
			continue // UserData, binary, …
		}
		f, err := ps.field(c, p, what, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (ps *parser) field(n *node, p *Provider, what string, depth int) (*Field, error) {
	f := &Field{Name: n.get("name"), LengthIndex: -1, CountIndex: -1}
	w := fmt.Sprintf("%s: field %q", what, f.Name)
	ps.lines[f] = n.line
	if n.name == "struct" {
		members, err := ps.fields(n, p, w, depth+1)
		if err != nil {
			return nil, err
		}
		f.Struct = members
	} else {
		it, ok := n.attr("inType")
		if !ok || strings.TrimSpace(it) == "" {
			return nil, ps.errf(n.line, "%s: missing inType", w)
		}
		f.InTypeName = strings.TrimSpace(it)
		spec, ok := lookupInType(n.qname(it))
		if !ok {
			return nil, ps.errf(n.line, "%s: unknown in-type %q", w, f.InTypeName)
		}
		f.InType, f.suspect = spec.inType, spec.suspect
		if spec.suspect {
			ps.warnf(n.line, "%s: in-type %q is not a manifest type (a TDH dump artifact: usually a struct whose members were lost)", w, f.InTypeName)
		}
		if ot, ok := n.attr("outType"); ok && strings.TrimSpace(ot) != "" {
			f.OutTypeName = strings.TrimSpace(ot)
			v, ok := OutTypeByName(n.qname(ot))
			if !ok {
				return nil, ps.errf(n.line, "%s: unknown out-type %q", w, f.OutTypeName)
			}
			f.OutType = v
		} else {
			f.OutType = spec.outType
		}
		if mn := n.get("map"); mn != "" {
			f.MapName = mn
			if m, ok := p.Maps[mn]; ok {
				f.Map = m
			} else {
				ps.warnf(n.line, "%s: map %q not defined", w, mn)
			}
		}
		if spec.length != 0 && n.get("length") == "" {
			f.Length = spec.length
		}
	}
	if v := n.get("length"); v != "" {
		if x, err := parseUint(v, 64); err == nil {
			if x > 0xFFFF {
				return nil, ps.errf(n.line, "%s: length %s exceeds 65535", w, v)
			}
			f.Length = uint16(x)
		} else {
			f.LengthField = v
		}
	}
	cv := n.get("count")
	if cv == "" {
		// fox-it's MOF-derived dumps write the MOF MAX/WmiSizeIs bound as
		// max="256" or max="GuidCount".
		cv = n.get("max")
	}
	if cv != "" {
		f.HasCount = true
		if x, err := parseUint(cv, 64); err == nil {
			if x > 0xFFFF {
				return nil, ps.errf(n.line, "%s: count %s exceeds 65535", w, cv)
			}
			f.Count = uint16(x)
		} else {
			f.CountField = cv
		}
	}
	return f, nil
}

// resolveRefs resolves LengthField/CountField names to TDH property
// indexes. A name refers to an earlier field: an earlier member of the
// same struct, or an earlier field of an enclosing level (the nearest one
// if several share the name).
func (ps *parser) resolveRefs(list []*Field, parent *refScope, what string) error {
	s := &refScope{exact: map[string]*Field{}, norm: map[string]*Field{}, parent: parent}
	for _, f := range list {
		if f.LengthField != "" {
			ref, err := ps.lookupRef(f, f.LengthField, "length", s, what)
			if err != nil {
				return err
			}
			f.LengthIndex = ref.Index
		}
		if f.CountField != "" {
			ref, err := ps.lookupRef(f, f.CountField, "count", s, what)
			if err != nil {
				return err
			}
			f.CountIndex = ref.Index
		}
		if f.Struct != nil {
			if err := ps.resolveRefs(f.Struct, s, fmt.Sprintf("%s: struct %q", what, f.Name)); err != nil {
				return err
			}
		}
		s.add(f)
	}
	return nil
}

func (ps *parser) lookupRef(f *Field, name, attr string, s *refScope, what string) (*Field, error) {
	line := ps.lines[f]
	for sc := s; sc != nil; sc = sc.parent {
		if r, ok := sc.exact[name]; ok {
			ps.checkIntegerRef(line, f, r, attr, what)
			return r, nil
		}
	}
	// TDH dumpers sometimes keep spaces in the reference but not in the
	// field name (CodeIntegrity: length="SHA1 Hash Size" for SHA1HashSize).
	if norm := normalizeName(name); norm != "" {
		for sc := s; sc != nil; sc = sc.parent {
			if r, ok := sc.norm[norm]; ok {
				ps.warnf(line, "%s: field %q: %s=%q taken as field %q", what, f.Name, attr, name, r.Name)
				ps.checkIntegerRef(line, f, r, attr, what)
				return r, nil
			}
		}
	}
	return nil, ps.errf(line, "%s: field %q: %s=%q names no earlier field", what, f.Name, attr, name)
}

// checkIntegerRef reports a length or count taken from a field that
// cannot hold a number (TDH needs an integer there).
func (ps *parser) checkIntegerRef(line int, f, ref *Field, attr, what string) {
	if ref.IsStruct() || !isLengthInType(ref.InType) || ref.HasCount {
		ps.warnf(line, "%s: field %q: %s field %q is not a single integer", what, f.Name, attr, ref.Name)
	}
}

// event resolves one <event>.
func (ps *parser) event(n *node, p *Provider, ix *provIndex, what string) (*Event, error) {
	e := &Event{Symbol: n.get("symbol")}
	// The schema types value as UInt32: events logged to the classic event
	// log (win:EventlogClassic) carry the event log qualifiers in the high
	// word. The ETW descriptor id is the low word.
	id, err := ps.number(n, "value", 32, what+": event")
	if err != nil {
		return nil, err
	}
	e.ID, e.Qualifiers = uint16(id), uint16(id>>16)
	w := fmt.Sprintf("%s: event %d", what, e.ID)
	if e.Qualifiers != 0 && !strings.Contains(n.get("keywords"), "EventlogClassic") {
		ps.warnf(n.line, "%s: value %s exceeds 16 bits; id %d, qualifiers %d", w, n.get("value"), e.ID, e.Qualifiers)
	}
	ver, _, err := ps.optNumber(n, "version", 8, w)
	if err != nil {
		return nil, err
	}
	e.Version = uint8(ver)
	w = fmt.Sprintf("%s: event %d version %d", what, e.ID, e.Version)
	line := n.line

	if name := n.get("level"); name != "" {
		e.LevelName = name
		var l Level
		i, ok := ix.levels[name]
		if ok {
			l = p.Levels[i]
		} else {
			l, ok = findLevel(winLevels(), n.qname(name))
		}
		if !ok && n.qname(name) == "win:Always" {
			// PerfView-style dumps name level 0 win:Always.
			l, ok = winLevels()[0], true
		}
		if ok {
			e.Level, e.LevelMessage = l.Value, l.Message
		} else {
			ps.warnf(line, "%s: level %q not defined", w, name)
		}
	}
	taskIndex := -1 // the provider task the event belongs to
	if name := n.get("task"); name != "" {
		e.TaskName = name
		var t *Task
		ti, ok := ix.tasks[name]
		if !ok {
			// PerfView-style dumps name tasks task_<value>, and call task 0
			// "None" or "task_0" interchangeably.
			if v, dumped := dumpedTaskValue(name); dumped {
				ti, ok = ix.taskVals[v]
				if !ok && v == 0 {
					t, ok = &winTasks[0], true
				}
			}
		}
		if t == nil && ok {
			t, taskIndex = &p.Tasks[ti], ti
		}
		if !ok {
			t, ok = findTask(winTasks, n.qname(name))
		}
		if ok {
			e.Task, e.TaskMessage = t.Value, t.Message
		} else {
			ps.warnf(line, "%s: task %q not defined", w, name)
		}
	}
	if name := n.get("opcode"); name != "" {
		e.OpcodeName = name
		var o Opcode
		ok := false
		if taskIndex >= 0 {
			var i int
			if i, ok = ix.localOps[taskIndex][name]; ok {
				o = p.Tasks[taskIndex].Opcodes[i]
			}
		}
		if !ok {
			var i int
			if i, ok = ix.opcodes[name]; ok {
				o = p.Opcodes[i]
			}
		}
		if !ok {
			o, ok = findOpcode(winOpcodes(), n.qname(name))
		}
		if ok {
			e.Opcode, e.OpcodeMessage = o.Value, o.Message
		} else {
			ps.warnf(line, "%s: opcode %q not defined", w, name)
		}
	}
	if kw, ok := n.attr("keywords"); ok {
		for _, name := range strings.Fields(kw) {
			e.KeywordNames = append(e.KeywordNames, name)
			var k Keyword
			i, ok := ix.keywords[name]
			if ok {
				k = p.Keywords[i]
			} else {
				k, ok = findKeyword(winKeywords(), n.qname(name))
			}
			if ok {
				e.Keywords |= k.Value
			} else {
				ps.warnf(line, "%s: keyword %q not defined", w, name)
			}
		}
	}
	if ref := n.get("channel"); ref != "" {
		e.ChannelName = ref
		if c, ok := resolveChannel(p, ix, ref); ok {
			e.Channel, e.HasChannel = c.Value, true
			e.ChannelName, e.ChannelMessage = c.Name, c.Message
		} else {
			ps.warnf(line, "%s: channel %q not defined", w, ref)
		}
	}
	if tid := n.get("template"); tid != "" {
		e.TemplateID = tid
		if t, ok := p.Templates[tid]; ok {
			e.Template = t
		} else {
			ps.warnf(line, "%s: template %q not defined", w, tid)
		}
	}
	e.Message = ps.message(n, w)
	switch strings.ToLower(n.get("notLogged")) {
	case "true", "1":
		e.NotLogged = true
	}
	return e, nil
}

// resolveChannel finds the channel an event's channel attribute refers
// to: the first of the provider's channels (declared or imported, in
// document order) whose name or chid matches, else a predefined channel.
// This is what mc.exe does (EventTraceKit's ReferenceChannels test case).
func resolveChannel(p *Provider, ix *provIndex, ref string) (Channel, bool) {
	if i, ok := ix.channels[ref]; ok {
		return p.Channels[i], true
	}
	return findWinChannel(ref)
}

// dumpedTaskValue recognizes the synthetic task names of PerfView-style
// manifest dumps: "task_<n>" is task n and "None" is task 0.
func dumpedTaskValue(name string) (uint16, bool) {
	if name == "None" {
		return 0, true
	}
	if rest, ok := strings.CutPrefix(name, "task_"); ok {
		if v, err := strconv.ParseUint(rest, 10, 16); err == nil {
			return uint16(v), true
		}
	}
	return 0, false
}
