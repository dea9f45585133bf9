package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// Reasons an exported schema does not read back exactly; an
// [*ExportIssue] wraps one of them.
var (
	// ErrExportSource: the schema is not a manifest's (MOF, TraceLogging,
	// WPP); it reads back as a manifest schema, which renders differently
	// where tdh looks at the source (MOF maps on any integer, MOF padding,
	// tracerpt's MOF forms).
	ErrExportSource = errors.New("schema source is not a manifest")
	// ErrExportDuplicate: another schema has the same provider GUID, id and
	// version.
	ErrExportDuplicate = errors.New("another schema has the same provider, id and version")
	// ErrExportProviderName: the provider name differs from the one
	// written for the provider GUID, or has surrounding white space.
	ErrExportProviderName = errors.New("provider name cannot be written")
	// ErrExportText: a name or text a manifest cannot carry: characters
	// XML 1.0 cannot hold, surrounding white space of a name, a value with
	// no name, a message that reads as a $(string.Id) reference.
	ErrExportText = errors.New("text a manifest cannot carry")
	// ErrExportKeywords: no set of keyword masks gives the event's keyword
	// mask and names back.
	ErrExportKeywords = errors.New("keyword names and mask cannot be reproduced")
	// ErrExportInType: the in-type has no manifest spelling.
	ErrExportInType = errors.New("in-type has no manifest spelling")
	// ErrExportOutType: the out-type has no manifest name and is written
	// as its number.
	ErrExportOutType = errors.New("out-type has no manifest name")
	// ErrExportToEnd: an array that runs to the end of the payload
	// (tdh.Property.ToEnd).
	ErrExportToEnd = errors.New("array to the end of the payload")
	// ErrExportOptional: an optional property (tdh.Property.Optional).
	ErrExportOptional = errors.New("optional property")
	// ErrExportAlternates: alternate layouts (tdh.Event.Alternates).
	ErrExportAlternates = errors.New("alternate layouts")
	// ErrExportMap: a map a manifest cannot express as it is.
	ErrExportMap = errors.New("map a manifest cannot express")
	// ErrExportReference: a length or count that refers to a property a
	// manifest cannot name, or that is not a single integer (or, in a
	// nonstandard issue, is a Pointer or a Boolean).
	ErrExportReference = errors.New("length or count reference cannot be written")
	// ErrExportLayout: other property shapes a manifest cannot express
	// (a count on a non-array, members of a non-struct, a struct with an
	// out-type or a map, a fixed length or count next to a reference,
	// structs nested in structs or deeper than Parse reads).
	ErrExportLayout = errors.New("property layout a manifest cannot express")
	// ErrExportTags: TraceLogging event or field tags.
	ErrExportTags = errors.New("TraceLogging tags")
)

// IssueKind tells how an [ExportIssue] affects the exported manifest.
type IssueKind uint8

// Issue kinds.
const (
	// IssueSkipped: the event is not in the manifest.
	IssueSkipped IssueKind = iota + 1
	// IssueApproximated: the event is in the manifest, but importing it
	// gives a schema that differs from the original in what the issue
	// says.
	IssueApproximated
	// IssueNonstandard: the event reads back exactly with this package,
	// but the manifest uses a spelling or construct that mc.exe does not
	// accept.
	IssueNonstandard
)

// String returns "skipped", "approximated" or "nonstandard".
func (k IssueKind) String() string {
	switch k {
	case IssueSkipped:
		return "skipped"
	case IssueApproximated:
		return "approximated"
	case IssueNonstandard:
		return "nonstandard"
	}
	return fmt.Sprintf("IssueKind(%d)", uint8(k))
}

// ExportIssue reports what a manifest could not carry exactly of one
// event's schema, and what [WriteXML] did about it.
type ExportIssue struct {
	Kind         IssueKind
	ProviderName string
	ProviderGUID uuid.UUID
	ID           uint16
	Version      uint8
	EventName    string
	// Field is the dotted path of the property concerned (Values.Name),
	// "" when the problem is the event's.
	Field string
	Msg   string
	Err   error // ErrExportSource, ErrExportToEnd, …
}

// Error formats the issue as
// `kind: provider P event ID version V (EventName): field F: message`.
func (e *ExportIssue) Error() string {
	s := fmt.Sprintf("%s: provider %s event %d version %d", e.Kind, e.ProviderName, e.ID, e.Version)
	if e.EventName != "" {
		s += " (" + e.EventName + ")"
	}
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + ": " + e.Msg
}

// Unwrap returns the reason, one of the ErrExport… variables.
func (e *ExportIssue) Unwrap() error { return e.Err }

// WriteXML writes schemas as one instrumentation manifest that [Parse]
// reads back: one <provider> per provider GUID (named as most of its
// schemas name it; sorted by name, then GUID), each with the channels,
// levels, tasks (with task-local opcodes where one opcode value has
// several names), opcodes, keywords, maps and templates its events use,
// and its events sorted by id and version; every message and display
// name is in an en-US string table. Identical property layouts share one
// template. The output depends only on the schemas: the same schemas
// give the same bytes in any order (but for which of two different
// schemas with the same key comes first).
//
// The package documentation says what reads back as it was written and
// what a manifest cannot carry: each such case is an [*ExportIssue].
//
// The error is the writer's, if any; issues are returned either way.
func WriteXML(w io.Writer, schemas []*tdh.Event) ([]*ExportIssue, error) {
	x := &exporter{strIDs: map[string]bool{}, symbols: map[string]bool{}}
	for _, g := range GroupByProvider(schemas) {
		x.provider(g)
	}
	var b bytes.Buffer
	x.write(&b)
	_, err := w.Write(b.Bytes())
	return x.issues, err
}

// GroupByProvider splits schemas by provider GUID, in the order [WriteXML]
// writes providers (by provider name, the one most of a group's schemas
// have, then by GUID), each group sorted by event id and version, schemas
// with equal keys keeping their input order. Nil schemas are left out.
// Writing each group with WriteXML gives one manifest per provider, named
// with [ExportFileName].
func GroupByProvider(schemas []*tdh.Event) [][]*tdh.Event {
	idx := map[uuid.UUID]int{}
	var groups [][]*tdh.Event
	for _, s := range schemas {
		if s == nil {
			continue
		}
		i, ok := idx[s.ProviderGUID]
		if !ok {
			i = len(groups)
			idx[s.ProviderGUID] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], s)
	}
	for _, g := range groups {
		sort.SliceStable(g, func(i, j int) bool {
			if g[i].ID != g[j].ID {
				return g[i].ID < g[j].ID
			}
			return g[i].Version < g[j].Version
		})
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groupName(groups[i]), groupName(groups[j])
		if a != b {
			return a < b
		}
		return bytes.Compare(groups[i][0].ProviderGUID[:], groups[j][0].ProviderGUID[:]) < 0
	})
	return groups
}

// groupName returns the provider name most schemas of a group have (the
// first such in the group on a tie).
func groupName(g []*tdh.Event) string {
	n := map[string]int{}
	best := ""
	for _, s := range g {
		n[s.ProviderName]++
		if c := n[s.ProviderName]; c > n[best] || c == n[best] && best == s.ProviderName {
			best = s.ProviderName
		}
	}
	return best
}

// ExportFileName returns a file name for the manifest of one provider,
// safe on Windows and Unix file systems and unique per GUID:
// "<name>.<guid>.man", the name with control characters and
// <>:"/\|?* replaced by '_', surrounding dots and spaces removed, cut to
// 100 bytes, and prefixed with '_' when Windows reserves it (CON, NUL,
// COM1, …); "<guid>.man" when no name is left.
func ExportFileName(name string, guid uuid.UUID) string {
	var b strings.Builder
	for _, r := range name {
		if r < 0x20 || r == 0x7F || r == utf8.RuneError || strings.ContainsRune(`<>:"/\|?*`, r) {
			r = '_'
		}
		if b.Len()+utf8.RuneLen(r) > 100 {
			break
		}
		b.WriteRune(r)
	}
	s := strings.Trim(b.String(), " .")
	if s == "" {
		return guid.String() + ".man"
	}
	stem, _, _ := strings.Cut(s, ".")
	switch u := strings.ToUpper(strings.TrimRight(stem, " ")); u {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		s = "_" + s
	default:
		if len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) && u[3] >= '0' && u[3] <= '9' {
			s = "_" + s
		}
	}
	return s + "." + guid.String() + ".man"
}

// Namespaces of names inside one provider.
const (
	nsLevel    = "level"
	nsTask     = "task"
	nsOpcode   = "opcode" // global and task-local: kept unique across both
	nsKeyword  = "keyword"
	nsChannel  = "channel"
	nsMap      = "map"
	nsTemplate = "template"
)

// exporter holds the state of one WriteXML call.
type exporter struct {
	issues  []*ExportIssue
	provs   []*expProv
	strs    []expString
	strIDs  map[string]bool
	symbols map[string]bool // provider symbols
}

type expString struct{ id, value string }

// str adds value to the string table under an id made from hint and
// returns the id.
func (x *exporter) str(hint, value string) string {
	id := takeUnique(x.strIDs, identifier(hint, "s", ".-"))
	x.strs = append(x.strs, expString{id, value})
	return id
}

// expProv is one provider being exported.
type expProv struct {
	x      *exporter
	name   string
	symbol string
	guid   uuid.UUID

	levels    []*expItem
	tasks     []*expItem
	opcodes   []*expItem // global
	keywords  []*expItem
	channels  []*expChannel
	maps      []*expMap
	templates []*expTemplate
	events    []*evState

	used      map[string]map[string]bool      // namespace → names taken
	items     map[string]map[valName]*expItem // levels, tasks, global opcodes
	chans     map[valName]*expChannel
	imports   map[string]bool
	mapByPtr  map[*tdh.Map]*expMap
	mapByKey  map[string]*expMap
	tmplByKey map[string]*expTemplate
}

// valName is a (value, display name) pair.
type valName struct {
	value   uint64
	display string
}

// expItem is a level, task, opcode, keyword or channel declaration.
type expItem struct {
	name  string
	value uint64 // value, or a keyword's mask
	msgID string // string table id of the display name, "" if none
	// exact is false when the declaration does not give the display name
	// back.
	exact bool
	// display is what the declaration reads back as.
	display string
	// A task's local opcodes.
	ops   []*expItem
	opKey map[valName]*expItem
}

// expChannel is a channel declaration: its name, value, message and
// type.
type expChannel struct {
	*expItem
	typ string
}

type expMap struct {
	name    string
	bitMap  bool
	entries []expMapEntry
	issues  []string // per use
}

type expMapEntry struct {
	value uint32
	msgID string
}

type expTemplate struct {
	tid    string
	fields []*expField
}

type expField struct {
	isStruct bool
	name     string
	inType   string
	outType  string
	length   string
	count    string
	mapName  string
	tags     uint32
	members  []*expField
}

// evState is one event being exported.
type evState struct {
	s    *tdh.Event
	task *expItem // the provider task the event refers to, nil if none
	// kwDisplays are the keyword names, made XML-safe; kwMask is the
	// keyword mask written.
	kwDisplays []string
	kwMask     uint64
	seen       map[string]bool // issues already reported

	level, taskRef, opcode, keywords, channel, template, symbol, msgID string
}

func (p *expProv) issue(e *evState, kind IssueKind, field string, reason error, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	k := kind.String() + "\x00" + field + "\x00" + msg
	if e.seen[k] {
		return
	}
	if e.seen == nil {
		e.seen = map[string]bool{}
	}
	e.seen[k] = true
	s := e.s
	p.x.issues = append(p.x.issues, &ExportIssue{Kind: kind, ProviderName: s.ProviderName, ProviderGUID: s.ProviderGUID,
		ID: s.ID, Version: s.Version, EventName: s.EventName, Field: field, Msg: msg, Err: reason})
}

// text returns s made XML-safe, reporting a change.
func (p *expProv) text(e *evState, s, field, what string) string {
	t, changed := xmlText(s)
	if changed {
		p.issue(e, IssueApproximated, field, ErrExportText, "%s %q has characters XML 1.0 cannot carry; written with U+FFFD", what, s)
	}
	return t
}

// provider builds the declarations and events of one provider group
// (sorted by GroupByProvider).
func (x *exporter) provider(group []*tdh.Event) {
	firstIssue := len(x.issues)
	defer func() {
		// The issues of one event together, in the order of the events.
		is := x.issues[firstIssue:]
		sort.SliceStable(is, func(i, j int) bool {
			if is[i].ID != is[j].ID {
				return is[i].ID < is[j].ID
			}
			return is[i].Version < is[j].Version
		})
	}()
	p := &expProv{x: x, guid: group[0].ProviderGUID,
		used: map[string]map[string]bool{}, items: map[string]map[valName]*expItem{},
		chans: map[valName]*expChannel{}, imports: map[string]bool{},
		mapByPtr: map[*tdh.Map]*expMap{}, mapByKey: map[string]*expMap{}, tmplByKey: map[string]*expTemplate{}}
	for _, ns := range []string{nsLevel, nsTask, nsOpcode, nsKeyword, nsChannel, nsMap, nsTemplate} {
		p.used[ns] = map[string]bool{}
	}
	for _, ns := range []string{nsLevel, nsTask, nsOpcode} {
		p.items[ns] = map[valName]*expItem{}
	}
	// A made-up channel must not take the name of a predefined one that
	// an event imports.
	for _, c := range winChannels {
		p.used[nsChannel][c.Name] = true
	}
	name, _ := xmlText(groupName(group))
	p.name = strings.TrimSpace(name)
	sym := identifier(p.name, "Provider", "")
	if p.name == "" {
		sym = "Provider_" + strings.ReplaceAll(p.guid.String(), "-", "")
	}
	p.symbol = takeUnique(x.symbols, sym)

	// One schema per id and version: the first; other ones are reported
	// unless identical.
	for i := 0; i < len(group); {
		j := i + 1
		for j < len(group) && group[j].ID == group[i].ID && group[j].Version == group[i].Version {
			j++
		}
		e := &evState{s: group[i]}
		for _, d := range group[i+1 : j] {
			if !d.Equal(group[i]) {
				p.issue(&evState{s: d}, IssueSkipped, "", ErrExportDuplicate,
					"another schema of provider %s with id %d and version %d comes first", p.guid, d.ID, d.Version)
			}
		}
		i = j
		if msg := badReference(e.s.Properties, ""); msg != "" {
			p.issue(e, IssueSkipped, "", ErrExportReference, "%s", msg)
			continue
		}
		p.events = append(p.events, e)
	}
	for _, e := range p.events {
		p.event(e)
	}
	p.placeOpcodes()
	p.assignKeywords()

	byValue := func(l []*expItem) {
		sort.SliceStable(l, func(i, j int) bool {
			if l[i].value != l[j].value {
				return l[i].value < l[j].value
			}
			return l[i].name < l[j].name
		})
	}
	byValue(p.levels)
	byValue(p.tasks)
	byValue(p.opcodes)
	for _, t := range p.tasks {
		byValue(t.ops)
	}
	sort.SliceStable(p.channels, func(i, j int) bool {
		if p.channels[i].value != p.channels[j].value {
			return p.channels[i].value < p.channels[j].value
		}
		return p.channels[i].name < p.channels[j].name
	})
	sort.SliceStable(p.maps, func(i, j int) bool { return p.maps[i].name < p.maps[j].name })
	x.provs = append(x.provs, p)
}

// badReference returns why a length or count of props (or of a struct's
// members) refers to something that is not a single integer, or "".
func badReference(props []tdh.Property, path string) string {
	for i := range props {
		pr := &props[i]
		name := joinField(path, pr.Name)
		for _, r := range []struct {
			what string
			idx  int
		}{{"length", pr.LengthIndex}, {"count", pr.CountIndex}} {
			if r.idx < 0 || (r.what == "count" && !pr.IsArray) {
				continue
			}
			if r.idx >= i {
				return fmt.Sprintf("%s of %s refers to property index %d, which is not an earlier one", r.what, name, r.idx)
			}
			t := &props[r.idx]
			if t.IsStruct() || t.IsArray || !exportedInType(t).IsInteger() {
				return fmt.Sprintf("%s of %s refers to %s, which is not a single integer", r.what, name, t.Name)
			}
		}
		if pr.IsStruct() {
			if msg := badReference(pr.Members, name); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// event builds everything of one event but its opcode and keywords.
func (p *expProv) event(e *evState) {
	s := e.s
	if s.Source != tdh.SourceManifest {
		msg := fmt.Sprintf("%s schema becomes a manifest schema", s.Source)
		if s.Source == tdh.SourceMOF {
			msg += " (tdh and tracerpt render MOF events in their own way: maps on any integer, padding, MOF forms)"
		}
		p.issue(e, IssueApproximated, "", ErrExportSource, "%s", msg)
	}
	if s.ProviderName != p.name {
		p.issue(e, IssueApproximated, "", ErrExportProviderName, "provider name %q written as %q", s.ProviderName, p.name)
	}
	if len(s.Alternates) > 0 {
		what := "an alternate layout"
		if len(s.Alternates) > 1 {
			what = fmt.Sprintf("%d alternate layouts", len(s.Alternates))
		}
		p.issue(e, IssueApproximated, "", ErrExportAlternates, "%s left out", what)
	}
	if s.Tags != 0 {
		p.issue(e, IssueApproximated, "", ErrExportTags, "event tags %#x left out", s.Tags)
	}
	e.level, _ = p.declare(e, nsLevel, winLevelDefs(), uint64(s.Level), s.LevelName, "level")
	e.taskRef, e.task = p.declare(e, nsTask, winTaskDefs(), uint64(s.Task), s.TaskName, "task")
	p.channel(e)
	if s.EventName != "" {
		n := p.text(e, s.EventName, "", "event name")
		if t := strings.TrimSpace(n); t != n {
			p.issue(e, IssueApproximated, "", ErrExportText, "event name %q written without its surrounding white space", s.EventName)
			n = t
		}
		e.symbol = n
	}
	if s.Properties != nil {
		p.template(e)
	}
	if s.Message != "" {
		m := p.text(e, s.Message, "", "message")
		if isUnresolvedRef(m) {
			p.issue(e, IssueApproximated, "", ErrExportText, "message %q reads as a string reference and is left out", s.Message)
		} else {
			e.msgID = p.x.str(fmt.Sprintf("%s.event.%d.v%d", p.symbol, s.ID, s.Version), m)
		}
	}
}

// predef is a predefined win: level, task, opcode or channel.
type predef struct {
	value         uint64
	name, display string
}

// The predefined values as export refers to them, made when first asked
// for (not at every start of a program that links the package).
var (
	winLevelDefs   = predefs(winLevels, func(l Level) (uint64, string, string) { return uint64(l.Value), l.Name, l.Message })
	winTaskDefs    = predefs(func() []Task { return winTasks }, func(t Task) (uint64, string, string) { return uint64(t.Value), t.Name, t.Message })
	winOpcodeDefs  = predefs(winOpcodes, func(o Opcode) (uint64, string, string) { return uint64(o.Value), o.Name, o.Message })
	winChannelDefs = predefs(func() []Channel { return winChannels }, func(c Channel) (uint64, string, string) { return uint64(c.Value), c.Name, c.Message })
)

// predefs returns a function that makes, once, the predefined values of
// list as export refers to them: each value, name and display name (at).
func predefs[T any](list func() []T, at func(T) (uint64, string, string)) func() []predef {
	return sync.OnceValue(func() []predef {
		l := list()
		out := make([]predef, len(l))
		for i, e := range l {
			v, name, msg := at(e)
			out[i] = predef{v, name, displayName(msg, name)}
		}
		return out
	})
}

// resolveDisplay settles the (value, display name) pair of a level, task,
// opcode or channel: ok is false when there is nothing to write; pre is
// the predefined entry to refer to, if any.
func (p *expProv) resolveDisplay(e *evState, pre []predef, v uint64, raw, what string) (d string, def *predef, ok bool) {
	d = p.text(e, raw, "", what+" name")
	if v == 0 && d == "" {
		return "", nil, false
	}
	if d == "" {
		for i := range pre {
			if pre[i].value == v {
				p.issue(e, IssueApproximated, "", ErrExportText, "%s %d has no name; written as %s (%q)", what, v, pre[i].name, pre[i].display)
				return pre[i].display, &pre[i], true
			}
		}
		d = fmt.Sprintf("%s%d", strings.ToUpper(what[:1])+what[1:], v)
		p.issue(e, IssueApproximated, "", ErrExportText, "%s %d has no name; written as %q", what, v, d)
		return d, nil, true
	}
	for i := range pre {
		if pre[i].value == v && pre[i].display == d {
			return d, &pre[i], true
		}
	}
	return d, nil, true
}

// declare returns what an event's level or task attribute refers to, and
// the provider's declaration (nil for a predefined one).
func (p *expProv) declare(e *evState, ns string, pre []predef, v uint64, raw, what string) (string, *expItem) {
	d, w, ok := p.resolveDisplay(e, pre, v, raw, what)
	if !ok {
		return "", nil
	}
	if w != nil {
		return w.name, nil
	}
	it, created := p.item(ns, v, d, what)
	p.readBack(e, it, d, what)
	if created && ns == nsLevel {
		p.levels = append(p.levels, it)
	} else if created {
		p.tasks = append(p.tasks, it)
	}
	return it.name, it
}

// item returns the declaration of (v, d) in namespace ns, and whether it
// is new.
func (p *expProv) item(ns string, v uint64, d, what string) (*expItem, bool) {
	k := valName{v, d}
	if it, ok := p.items[ns][k]; ok {
		return it, false
	}
	it := p.newItem(ns, v, d, what)
	p.items[ns][k] = it
	return it, true
}

// readBack reports a declaration of display d whose name does not give d
// back.
func (p *expProv) readBack(e *evState, it *expItem, d, what string) {
	if !it.exact {
		p.issue(e, IssueApproximated, "", ErrExportText, "%s name %q reads back as %q", what, d, it.display)
	}
}

// newItem declares a name for display d in namespace ns.
func (p *expProv) newItem(ns string, v uint64, d, what string) *expItem {
	name, withMsg, exact := p.naming(ns, d, strings.ToUpper(what[:1])+what[1:])
	it := &expItem{name: name, value: v, exact: exact, display: name}
	if withMsg {
		it.msgID = p.x.str(p.symbol+"."+what+"."+name, d)
		it.display = d
	}
	return it
}

// naming picks the name that declares display text d in namespace ns, and
// whether d must be its message; exact is false when d cannot come back.
func (p *expProv) naming(ns, d, base string) (name string, withMsg, exact bool) {
	used := p.used[ns]
	if isUnresolvedRef(d) {
		// A message reading as a reference is not used as a display name,
		// so d must be the name itself.
		if strings.TrimSpace(d) == d && !used[d] && (ns != nsKeyword || strings.IndexFunc(d, unicode.IsSpace) < 0) {
			used[d] = true
			return d, false, true
		}
		return p.unique(ns, identifier(d, base, "")), false, false
	}
	if goodName(d, ns == nsChannel) && !used[d] {
		used[d] = true
		return d, false, true
	}
	return p.unique(ns, identifier(d, base, "")), true, true
}

// unique returns s, or s with a number appended, not yet taken in ns.
func (p *expProv) unique(ns, s string) string { return takeUnique(p.used[ns], s) }

// takeUnique returns s, or s with "_2", "_3", … appended, not yet in used,
// and adds it to used.
func takeUnique(used map[string]bool, s string) string {
	if used[s] {
		for n := 2; ; n++ {
			if c := s + "_" + strconv.Itoa(n); !used[c] {
				s = c
				break
			}
		}
	}
	used[s] = true
	return s
}

// goodName reports whether s can be written as a name as it is: an XML
// name without a prefix (a channel name may also hold '/').
func goodName(s string, channel bool) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		case i > 0 && channel && c == '/':
		default:
			return false
		}
	}
	return true
}

// identifier turns s into a name of ASCII letters, digits, '_' and the
// extra bytes, not starting with a digit: other characters become '_'
// (runs collapsed), at most 64 bytes; base when nothing is left.
func identifier(s, base, extra string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && (isIdentByte(byte(r)) || strings.IndexByte(extra, byte(r)) >= 0):
			b = append(b, byte(r))
		case len(b) > 0 && b[len(b)-1] == '_':
		default:
			b = append(b, '_')
		}
		if len(b) >= 64 {
			break
		}
	}
	t := strings.Trim(string(b), "_")
	if t == "" {
		return base
	}
	if t[0] >= '0' && t[0] <= '9' {
		return base + "_" + t
	}
	return t
}

// channel sets the event's channel attribute.
func (p *expProv) channel(e *evState) {
	s := e.s
	d, w, ok := p.resolveDisplay(e, winChannelDefs(), uint64(s.Channel), s.ChannelName, "channel")
	if !ok {
		return
	}
	if w != nil {
		p.imports[w.name] = true
		e.channel = w.name
		return
	}
	k := valName{uint64(s.Channel), d}
	c, ok := p.chans[k]
	if !ok {
		c = &expChannel{expItem: p.newItem(nsChannel, uint64(s.Channel), d, "channel"), typ: channelType(d)}
		p.chans[k] = c
		p.channels = append(p.channels, c)
	}
	p.readBack(e, c.expItem, d, "channel")
	e.channel = c.name
}

// channelType guesses a channel's type from its name, which tdh schemas
// do not carry.
func channelType(name string) string {
	l := strings.ToLower(name)
	for _, t := range []string{"Admin", "Operational", "Analytic", "Debug"} {
		if strings.HasSuffix(l, "/"+strings.ToLower(t)) {
			return t
		}
	}
	return "Operational"
}

// placeOpcodes sets the events' opcode attributes: predefined opcodes
// where value and name match; provider-global opcodes when an opcode value
// has one name in the provider; else task-local ones (global for events
// without a task).
func (p *expProv) placeOpcodes() {
	type use struct {
		e *evState
		v uint64
		d string
	}
	var uses []use
	names := map[uint64]map[string]bool{}
	for _, e := range p.events {
		d, w, ok := p.resolveDisplay(e, winOpcodeDefs(), uint64(e.s.Opcode), e.s.OpcodeName, "opcode")
		if !ok {
			continue
		}
		if w != nil {
			e.opcode = w.name
			continue
		}
		uses = append(uses, use{e, uint64(e.s.Opcode), d})
		if names[uint64(e.s.Opcode)] == nil {
			names[uint64(e.s.Opcode)] = map[string]bool{}
		}
		names[uint64(e.s.Opcode)][d] = true
	}
	for _, u := range uses {
		var it *expItem
		if t := u.e.task; len(names[u.v]) > 1 && t != nil {
			k := valName{u.v, u.d}
			if it = t.opKey[k]; it == nil {
				it = p.newItem(nsOpcode, u.v, u.d, "opcode")
				if t.opKey == nil {
					t.opKey = map[valName]*expItem{}
				}
				t.opKey[k] = it
				t.ops = append(t.ops, it)
			}
		} else {
			var created bool
			if it, created = p.item(nsOpcode, u.v, u.d, "opcode"); created {
				p.opcodes = append(p.opcodes, it)
			}
		}
		p.readBack(u.e, it, u.d, "opcode")
		u.e.opcode = it.name
	}
}

// assignKeywords declares the provider's keywords and sets the events'
// keywords attributes. The mask of each keyword an event names is found
// from the event's mask (names come in the order of their masks' lowest
// bits): a predefined keyword's own bits; the i-th set bit when the event
// has as many set bits as names, not counting the channel bits 56–63
// (which mc.exe sets from an event's channel and no name stands for); a
// mask found so in another event; the bits left, paired the same way; else
// the bits that every event naming it has, less those of the event's other
// keywords, preferring bits 0–47 (those a provider declares). Bits no name
// accounts for join the event's first keyword of its own, so that mask and
// names come back; an event without one leaves channel bits out and gets
// made-up keywords for the others. The result is checked against what
// [Provider.KeywordsByMask] will give back.
func (p *expProv) assignKeywords() {
	slots, cand, known := p.keywordSlots()
	p.resolveKeywordMasks(slots, cand, known)
	p.declareKeywords(slots)
	p.checkKeywords()
}

// kwSlot is one keyword name of an event: its display name, the mask
// found for it so far and, for a predefined keyword, that keyword's name.
type kwSlot struct {
	d    string
	mask uint64
	win  string
}

// pairBits gives the i-th of the slots idx the i-th set bit of m, if they
// match in number and the predefined ones agree.
func pairBits(ss []kwSlot, idx []int, m uint64) bool {
	if len(idx) == 0 || len(idx) != bits.OnesCount64(m) {
		return false
	}
	rest := m
	for _, j := range idx {
		bit := rest & -rest
		rest &^= bit
		if ss[j].win != "" && ss[j].mask != bit {
			return false
		}
	}
	rest = m
	for _, j := range idx {
		bit := rest & -rest
		rest &^= bit
		ss[j].mask = bit
	}
	return true
}

// keywordSlots returns the keyword slots of every event, with the masks of
// predefined keywords and of events whose set bits pair with their names;
// cand is, per display name, the bits every event naming it has; known the
// masks found for it by pairing.
func (p *expProv) keywordSlots() (slots [][]kwSlot, cand map[string]uint64, known map[string][]uint64) {
	slots = make([][]kwSlot, len(p.events))
	cand, known = map[string]uint64{}, map[string][]uint64{}
	for i, e := range p.events {
		m := e.s.Keywords
		ss := make([]kwSlot, len(e.s.KeywordNames))
		for j, n := range e.s.KeywordNames {
			d := p.text(e, n, "", "keyword name")
			e.kwDisplays = append(e.kwDisplays, d)
			ss[j].d = d
			if c, ok := cand[d]; ok {
				cand[d] = c & m
			} else {
				cand[d] = m
			}
			for _, w := range winKeywords() {
				if w.Value != 0 && displayName(w.Message, w.Name) == d && m&w.Value == w.Value {
					ss[j].mask, ss[j].win = w.Value, w.Name
					break
				}
			}
		}
		named := m &^ channelBits
		all := make([]int, len(ss))
		for j := range ss {
			all[j] = j
			named |= m & ss[j].mask
		}
		if pairBits(ss, all, named) {
			for _, sl := range ss {
				if sl.win == "" && !slices.Contains(known[sl.d], sl.mask) {
					known[sl.d] = append(known[sl.d], sl.mask)
				}
			}
		}
		slots[i] = ss
	}
	return slots, cand, known
}

// resolveKeywordMasks gives the slots still without a mask one: a mask
// known from another event, the bits left paired with the names left, or
// the candidate bits; bits no name accounts for join the event's first
// keyword of its own.
func (p *expProv) resolveKeywordMasks(slots [][]kwSlot, cand map[string]uint64, known map[string][]uint64) {
	for i, e := range p.events {
		ss, m := slots[i], e.s.Keywords
		taken := func(except int) uint64 {
			var t uint64
			for k := range ss {
				if k != except {
					t |= ss[k].mask
				}
			}
			return t
		}
		var open []int
		for j := range ss {
			if ss[j].mask != 0 {
				continue
			}
			for _, k := range known[ss[j].d] {
				if m&k == k && k&taken(j) == 0 {
					ss[j].mask = k
					break
				}
			}
			if ss[j].mask == 0 {
				open = append(open, j)
			}
		}
		left := m &^ taken(-1)
		if len(open) > 0 && !pairBits(ss, open, left&^channelBits) && !pairBits(ss, open, left) {
			for _, j := range open {
				c := cand[ss[j].d] & m &^ taken(j)
				if c&ownBits != 0 {
					c &= ownBits
				}
				ss[j].mask = c
			}
		}
		if left := m &^ taken(-1); left != 0 {
			for j := range ss {
				if ss[j].win == "" && ss[j].mask != 0 {
					ss[j].mask |= left
					break
				}
			}
		}
	}
}

// declareKeywords declares a keyword per (mask, display name) of the
// slots and sets each event's keywords attribute and mask; bits of an
// event no slot holds take a keyword of that bit (declared, predefined or
// made up), channel bits are left out.
func (p *expProv) declareKeywords(slots [][]kwSlot) {
	defs := map[valName]*expItem{}
	byMask := map[uint64]string{}
	for i, e := range p.events {
		var refs []string
		var got uint64
		for _, sl := range slots[i] {
			ref := sl.win
			if sl.mask == 0 {
				continue // reported by checkKeywords
			}
			if ref == "" {
				k := valName{sl.mask, sl.d}
				it := defs[k]
				if it == nil {
					it = p.newItem(nsKeyword, sl.mask, sl.d, "keyword")
					defs[k] = it
					p.keywords = append(p.keywords, it)
					if _, ok := byMask[sl.mask]; !ok {
						byMask[sl.mask] = it.name
					}
				}
				ref = it.name
			}
			if !slices.Contains(refs, ref) {
				refs = append(refs, ref)
			}
			got |= sl.mask
		}
		slots[i] = nil
		e.kwMask = e.s.Keywords
		rest := e.s.Keywords &^ got
		if ch := rest & channelBits; ch != 0 {
			e.kwMask &^= ch
			rest &^= ch
			p.issue(e, IssueApproximated, "", ErrExportKeywords,
				"keyword bits %#x have no name: left out (mc.exe sets bits 56–63 from the event's channel)", ch)
		}
		for ; rest != 0; rest &= rest - 1 {
			refs = append(refs, p.bitKeyword(rest&-rest, byMask))
		}
		e.keywords = strings.Join(refs, " ")
	}
}

// bitKeyword returns the keyword that stands for bit alone: one declared
// with that mask, a predefined one, or a new "Keyword_0x…".
func (p *expProv) bitKeyword(bit uint64, byMask map[uint64]string) string {
	if ref, ok := byMask[bit]; ok {
		return ref
	}
	for _, w := range winKeywords() {
		if w.Value == bit {
			return w.Name
		}
	}
	it := &expItem{name: p.unique(nsKeyword, fmt.Sprintf("Keyword_0x%X", bit)), value: bit, exact: true}
	it.display = it.name
	p.keywords = append(p.keywords, it)
	byMask[bit] = it.name
	return it.name
}

// checkKeywords sorts the declared keywords (larger masks first, so that
// a keyword covering another one's bits hides it as it did in the
// original) and reports the events whose keywords will not read back with
// their names ([Provider.KeywordsByMask]).
func (p *expProv) checkKeywords() {
	sort.SliceStable(p.keywords, func(i, j int) bool {
		a, b := p.keywords[i].value, p.keywords[j].value
		if ca, cb := bits.OnesCount64(a), bits.OnesCount64(b); ca != cb {
			return ca > cb
		}
		if a != b {
			return a < b
		}
		return p.keywords[i].name < p.keywords[j].name
	})
	check := &Provider{}
	for _, it := range p.keywords {
		k := Keyword{Name: it.name, Value: it.value}
		if it.msgID != "" {
			k.Message = it.display
		}
		check.Keywords = append(check.Keywords, k)
	}
	for _, e := range p.events {
		var back []string
		for _, k := range check.KeywordsByMask(e.kwMask) {
			back = append(back, displayName(k.Message, k.Name))
		}
		if !slices.Equal(back, e.kwDisplays) {
			p.issue(e, IssueApproximated, "", ErrExportKeywords, "keywords %#x named %q read back named %q", e.s.Keywords, e.kwDisplays, back)
		}
	}
}

// Keyword bits: those a provider declares, and those mc.exe sets from an
// event's channel.
const (
	ownBits     = 1<<48 - 1
	channelBits = 0xFF << 56
)

// template sets the event's template, sharing one per distinct layout.
func (p *expProv) template(e *evState) {
	fields := p.fields(e, e.s.Properties, "", 0)
	var kb bytes.Buffer
	writeFields(&kb, fields, 0)
	key := kb.String()
	t, ok := p.tmplByKey[key]
	if !ok {
		base := fmt.Sprintf("tid_%d_v%d", e.s.ID, e.s.Version)
		if e.symbol != "" {
			base = identifier("tid_"+e.symbol, base, "")
		}
		t = &expTemplate{tid: p.unique(nsTemplate, base), fields: fields}
		p.tmplByKey[key] = t
		p.templates = append(p.templates, t)
	}
	e.template = t.tid
}

// fields converts the properties of one level.
func (p *expProv) fields(e *evState, props []tdh.Property, path string, depth int) []*expField {
	names := make([]string, len(props))
	for i := range props {
		n := p.text(e, props[i].Name, joinField(path, props[i].Name), "property name")
		if t := strings.TrimSpace(n); t != n {
			p.issue(e, IssueApproximated, joinField(path, props[i].Name), ErrExportText, "property name %q written without its surrounding white space", props[i].Name)
			n = t
		}
		names[i] = n
	}
	p.nameTargets(e, props, names, path)
	out := make([]*expField, 0, len(props))
	for i := range props {
		pr := &props[i]
		fpath := joinField(path, pr.Name)
		if pr.ToEnd && pr.IsArray {
			p.issue(e, IssueApproximated, fpath, ErrExportToEnd,
				"array to the end of the payload has no manifest form: left out%s", andAfter(len(props)-i-1))
			break
		}
		f := &expField{name: names[i], tags: pr.Tags}
		if pr.ToEnd {
			p.issue(e, IssueApproximated, fpath, ErrExportToEnd, "ToEnd on a property that is not an array left out")
		}
		if pr.Optional {
			p.issue(e, IssueApproximated, fpath, ErrExportOptional, "optional property written as a required one")
		}
		if pr.Tags != 0 {
			p.issue(e, IssueApproximated, fpath, ErrExportTags, "field tags %#x written as the tags attribute, which Parse does not read", pr.Tags)
		}
		if pr.IsStruct() {
			if depth >= maxStructDepth {
				p.issue(e, IssueApproximated, fpath, ErrExportLayout,
					"struct nested deeper than the %d levels Parse reads: left out%s", maxStructDepth, andAfter(len(props)-i-1))
				break
			}
			f.isStruct = true
			if depth > 0 {
				p.issue(e, IssueNonstandard, fpath, ErrExportLayout, "struct nested in a struct")
			}
			if pr.OutType != tdh.OutTypeNull || pr.Map != nil {
				p.issue(e, IssueApproximated, fpath, ErrExportLayout, "out-type and map of a struct left out")
			}
			f.members = p.fields(e, pr.Members, fpath, depth+1)
		} else {
			if len(pr.Members) > 0 {
				p.issue(e, IssueApproximated, fpath, ErrExportLayout, "members of a property that is not a struct left out")
			}
			if !p.types(e, pr, f, fpath) {
				p.issue(e, IssueApproximated, fpath, ErrExportInType,
					"in-type %v has no manifest form: left out%s", pr.InType, andAfter(len(props)-i-1))
				break
			}
			if pr.Map != nil {
				f.mapName = p.mapRef(e, pr, fpath)
			}
		}
		for _, j := range []int{pr.LengthIndex, pr.CountIndex} {
			if j >= 0 && j < i && (pr.IsArray || j == pr.LengthIndex) && !isLengthInType(exportedInType(&props[j])) {
				p.issue(e, IssueNonstandard, fpath, ErrExportReference,
					"length or count taken from %s, a %v, which Parse warns about and mc.exe does not accept", props[j].Name, props[j].InType)
			}
		}
		if pr.LengthIndex >= 0 {
			f.length = names[pr.LengthIndex]
			if pr.Length != 0 {
				p.issue(e, IssueApproximated, fpath, ErrExportLayout, "fixed length %d left out: the length comes from %s", pr.Length, props[pr.LengthIndex].Name)
			}
		} else if pr.Length != 0 {
			f.length = strconv.Itoa(int(pr.Length))
		}
		switch {
		case pr.IsArray && pr.CountIndex >= 0:
			f.count = names[pr.CountIndex]
			if pr.Count != 0 {
				p.issue(e, IssueApproximated, fpath, ErrExportLayout, "fixed count %d left out: the count comes from %s", pr.Count, props[pr.CountIndex].Name)
			}
		case pr.IsArray:
			f.count = strconv.Itoa(int(pr.Count))
		case pr.Count != 0 || pr.CountIndex >= 0:
			p.issue(e, IssueApproximated, fpath, ErrExportLayout, "count of a property that is not an array left out")
		}
		out = append(out, f)
	}
	return out
}

// andAfter says how many properties after a left-out one go with it.
func andAfter(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", with the property after it"
	}
	return fmt.Sprintf(", with the %d properties after it", n)
}

// nameTargets renames the properties that a length or count refers to
// when the reference could not find them by their names: an empty name,
// one that reads as a number, or one that a property between them
// shares (a reference finds the latest property of that name).
func (p *expProv) nameTargets(e *evState, props []tdh.Property, names []string, path string) {
	for i := range props {
		for _, j := range []int{props[i].LengthIndex, props[i].CountIndex} {
			if j < 0 || j >= i {
				continue
			}
			n := names[j]
			ok := n != ""
			if _, err := parseUint(n, 64); err == nil {
				ok = false
			}
			for k := j + 1; ok && k < i; k++ {
				if names[k] == n {
					ok = false
				}
			}
			if ok {
				continue
			}
			nn := identifier(n, "Field", "")
			for c := 1; ; c++ {
				try := nn
				if c > 1 || nn == n {
					try = nn + "_" + strconv.Itoa(c)
				}
				if !slices.Contains(names, try) {
					nn = try
					break
				}
			}
			p.issue(e, IssueApproximated, joinField(path, props[j].Name), ErrExportReference,
				"renamed %q so that the length or count of %s can refer to it", nn, props[i].Name)
			names[j] = nn
		}
	}
}

// exportedInType returns the in-type a property is written with.
func exportedInType(pr *tdh.Property) tdh.InType {
	switch pr.InType {
	case tdh.InTypeMOFCountedString:
		return tdh.InTypeCountedString
	case tdh.InTypeMOFCountedAnsiString:
		return tdh.InTypeCountedAnsiString
	case tdh.InTypeAnsiChar:
		if pr.Length > 0 || pr.LengthIndex >= 0 {
			return tdh.InTypeAnsiString
		}
		return tdh.InTypeUInt8
	}
	return pr.InType
}

// types sets the in-type and out-type of a non-struct property; false if
// the in-type has no manifest form.
func (p *expProv) types(e *evState, pr *tdh.Property, f *expField, path string) bool {
	in, out := exportedInType(pr), pr.OutType
	if in != pr.InType {
		if pr.InType == tdh.InTypeAnsiChar && in == tdh.InTypeUInt8 && out == tdh.OutTypeNull {
			out = tdh.OutTypeString
		}
		how := in.String()
		if out != pr.OutType {
			how += " shown as " + out.String()
		}
		p.issue(e, IssueApproximated, path, ErrExportInType, "in-type %v written as %s, which decodes and renders the same", pr.InType, how)
	}
	name, standard, ok := inTypeSpelling(in)
	if !ok {
		return false
	}
	if !standard {
		p.issue(e, IssueNonstandard, path, ErrExportInType, "in-type %v written as %s, a spelling Parse reads and mc.exe does not", in, name)
	}
	f.inType = name
	if out != tdh.OutTypeNull {
		name, standard := outTypeSpelling(out)
		if !standard {
			p.issue(e, IssueNonstandard, path, ErrExportOutType, "out-type %v written as its number %s, which Parse reads and mc.exe does not", out, name)
		}
		f.outType = name
	}
	return true
}

// inTypeSpelling returns how in-type t is written and whether mc.exe
// accepts that spelling; ok is false when Parse reads no spelling as t.
func inTypeSpelling(t tdh.InType) (name string, standard, ok bool) {
	if isManifestInType(t) {
		return t.String(), true, true
	}
	switch t {
	case tdh.InTypeUnicodeChar:
		return "win:WChar", false, true
	case tdh.InTypeSizeT:
		return "trace:SizeT", false, true
	case tdh.InTypeWBEMSID:
		return "trace:WBEMSid", false, true
	}
	return "", false, false
}

// outTypeSpelling returns how out-type t is written: its manifest name,
// or its number ("win:301"), which Parse reads but mc.exe does not.
func outTypeSpelling(t tdh.OutType) (name string, standard bool) {
	if n := t.String(); isManifestName(n) {
		if v, ok := typeNamesOnce().outByName[n]; ok && v == t {
			return n, true
		}
	}
	return "win:" + strconv.Itoa(int(t)), false
}

// manifestMappable reports whether tdh applies a map to a manifest
// property of in-type t.
func manifestMappable(t tdh.InType) bool {
	switch t {
	case tdh.InTypeUInt8, tdh.InTypeUInt16, tdh.InTypeUInt32, tdh.InTypeHexInt32:
		return true
	}
	return false
}

// mapRef returns the name of the manifest map written for pr.Map.
func (p *expProv) mapRef(e *evState, pr *tdh.Property, path string) string {
	m := pr.Map
	em, ok := p.mapByPtr[m]
	if !ok {
		em = p.convertMap(m)
		p.mapByPtr[m] = em
	}
	for _, msg := range em.issues {
		p.issue(e, IssueApproximated, path, ErrExportMap, "%s", msg)
	}
	if e.s.Source == tdh.SourceMOF && len(m.Entries) > 0 && !manifestMappable(exportedInType(pr)) {
		p.issue(e, IssueApproximated, path, ErrExportMap, "map %s no longer applies: manifest maps apply to UInt8, UInt16, UInt32 and HexInt32 only", m.Name)
	}
	return em.name
}

// convertMap returns the manifest map for m, shared with an earlier map of
// the same name and entries.
func (p *expProv) convertMap(m *tdh.Map) *expMap {
	var issues []string
	raw, changed := xmlText(m.Name)
	if changed {
		issues = append(issues, fmt.Sprintf("map name %q has characters XML 1.0 cannot carry; written with U+FFFD", m.Name))
	}
	name := strings.TrimSpace(raw)
	if name != raw {
		issues = append(issues, fmt.Sprintf("map name %q written without its surrounding white space", m.Name))
	}
	type entry struct {
		value uint64
		msg   string
	}
	var entries []entry
	bitMap := false
	switch m.Kind {
	case tdh.ValueMap:
	case tdh.BitMap:
		bitMap = true
	case tdh.IndexMap:
		issues = append(issues, fmt.Sprintf("index map %s written as a valueMap (same text)", m.Name))
	case tdh.FlagMap:
		bitMap = true
		issues = append(issues, fmt.Sprintf("flag map %s written as a bitMap (same text)", m.Name))
	default:
		issues = append(issues, fmt.Sprintf("map %s of unknown kind %d written as a valueMap", m.Name, m.Kind))
	}
	dropped := 0
	for _, en := range m.Entries {
		v := en.Value
		if m.Kind == tdh.FlagMap {
			if v < 1 || v > 32 {
				dropped++
				continue
			}
			v = 1 << (v - 1)
		}
		if v > 0xFFFFFFFF {
			dropped++
			continue
		}
		msg, changed := xmlText(en.Message)
		if changed {
			issues = append(issues, fmt.Sprintf("map %s entry %d: %q has characters XML 1.0 cannot carry; written with U+FFFD", m.Name, en.Value, en.Message))
		}
		entries = append(entries, entry{v, msg})
	}
	if dropped > 0 {
		issues = append(issues, fmt.Sprintf("map %s: %d entries beyond 32 bits left out", m.Name, dropped))
	}
	if !sort.SliceIsSorted(entries, func(i, j int) bool { return entries[i].value < entries[j].value }) {
		issues = append(issues, fmt.Sprintf("map %s: entries written sorted by value", m.Name))
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].value < entries[j].value })
	}
	var kb strings.Builder
	fmt.Fprintf(&kb, "%s\x00%t", name, bitMap)
	for _, en := range entries {
		fmt.Fprintf(&kb, "\x00%d\x00%s", en.value, en.msg)
	}
	key := kb.String()
	if em, ok := p.mapByKey[key]; ok {
		return &expMap{name: em.name, bitMap: em.bitMap, entries: em.entries, issues: issues}
	}
	base := name
	if base == "" {
		base = "Map"
	}
	final := p.unique(nsMap, base)
	if final != name {
		issues = append(issues, fmt.Sprintf("map %q written as %q (map names are unique in a manifest and not empty)", m.Name, final))
	}
	em := &expMap{name: final, bitMap: bitMap, issues: issues}
	for _, en := range entries {
		id := p.x.str(fmt.Sprintf("%s.map.%s.%d", p.symbol, final, en.value), en.msg)
		em.entries = append(em.entries, expMapEntry{uint32(en.value), id})
	}
	p.mapByKey[key] = em
	p.maps = append(p.maps, em)
	return em
}

// xmlText returns s with every character XML 1.0 cannot carry, and every
// byte that is not UTF-8, replaced by U+FFFD; changed reports a
// replacement.
func xmlText(s string) (string, bool) {
	// strings.Map passes each byte that is not UTF-8 as utf8.RuneError
	// and writes U+FFFD for it; it returns s itself when nothing changes.
	t := strings.Map(func(r rune) rune {
		if !xmlChar(r) {
			return utf8.RuneError
		}
		return r
	}, s)
	return t, t != s
}

// xmlChar reports whether r is an XML 1.0 Char.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// attrEscaper escapes a double-quoted attribute value: markup characters,
// and the white space that attribute-value normalization would change,
// become references. (encoding/xml's EscapeText spells them &#34;, &#x9;,
// &#xA;, &#xD; and escapes apostrophes too: it would change the bytes of
// every manifest exported so far.)
var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
	"\t", "&#9;", "\n", "&#10;", "\r", "&#13;")

// appendAttrValue appends s escaped for a double-quoted attribute value,
// with the characters XML 1.0 cannot carry (and bytes that are not UTF-8)
// replaced by U+FFFD.
func appendAttrValue(b *bytes.Buffer, s string) {
	t, _ := xmlText(s)
	attrEscaper.WriteString(b, t)
}

// element writes <name a="v" …> (or <name …/> when selfClose), leaving
// out attributes with empty values.
func element(b *bytes.Buffer, depth int, name string, selfClose bool, attrs ...string) {
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
	b.WriteByte('<')
	b.WriteString(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(attrs[i])
		b.WriteString(`="`)
		appendAttrValue(b, attrs[i+1])
		b.WriteByte('"')
	}
	if selfClose {
		b.WriteString("/>\n")
	} else {
		b.WriteString(">\n")
	}
}

func endElement(b *bytes.Buffer, depth int, name string) {
	for i := 0; i < depth; i++ {
		b.WriteString("  ")
	}
	b.WriteString("</" + name + ">\n")
}

func strRef(id string) string {
	if id == "" {
		return ""
	}
	return "$(string." + id + ")"
}

// write writes the manifest.
func (x *exporter) write(b *bytes.Buffer) {
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"` +
		` xmlns:win="` + nsWin + `" xmlns:xs="` + nsXS + `" xmlns:trace="` + nsTrace + `">` + "\n")
	b.WriteString("  <instrumentation>\n    <events>\n")
	for _, p := range x.provs {
		p.write(b)
	}
	b.WriteString("    </events>\n  </instrumentation>\n")
	if len(x.strs) > 0 {
		b.WriteString("  <localization>\n    <resources culture=\"" + DefaultCulture + "\">\n      <stringTable>\n")
		for _, s := range x.strs {
			b.WriteString(`        <string id="`)
			appendAttrValue(b, s.id)
			b.WriteString(`" value="`)
			appendAttrValue(b, s.value)
			b.WriteString("\"/>\n")
		}
		b.WriteString("      </stringTable>\n    </resources>\n  </localization>\n")
	}
	b.WriteString("</instrumentationManifest>\n")
}

func (p *expProv) write(b *bytes.Buffer) {
	const d = 3 // depth of <provider>
	element(b, d, "provider", false, "name", p.name, "guid", "{"+strings.ToUpper(p.guid.String())+"}", "symbol", p.symbol)
	if len(p.channels) > 0 || len(p.imports) > 0 {
		element(b, d+1, "channels", false)
		var imports []string
		for n := range p.imports {
			imports = append(imports, n)
		}
		sort.Strings(imports)
		for _, n := range imports {
			element(b, d+2, "importChannel", true, "name", n, "chid", n)
		}
		for _, c := range p.channels {
			element(b, d+2, "channel", true, "name", c.name, "type", c.typ, "value", strconv.Itoa(int(c.value)), "message", strRef(c.msgID))
		}
		endElement(b, d+1, "channels")
	}
	list := func(outer, inner string, items []*expItem) {
		if len(items) == 0 {
			return
		}
		element(b, d+1, outer, false)
		for _, it := range items {
			v := strconv.FormatUint(it.value, 10)
			attr := "value"
			if inner == "keyword" {
				attr, v = "mask", fmt.Sprintf("0x%X", it.value)
			}
			if len(it.ops) == 0 {
				element(b, d+2, inner, true, "name", it.name, attr, v, "message", strRef(it.msgID))
				continue
			}
			element(b, d+2, inner, false, "name", it.name, attr, v, "message", strRef(it.msgID))
			element(b, d+3, "opcodes", false)
			for _, o := range it.ops {
				element(b, d+4, "opcode", true, "name", o.name, "value", strconv.FormatUint(o.value, 10), "message", strRef(o.msgID))
			}
			endElement(b, d+3, "opcodes")
			endElement(b, d+2, inner)
		}
		endElement(b, d+1, outer)
	}
	list("levels", "level", p.levels)
	list("tasks", "task", p.tasks)
	list("opcodes", "opcode", p.opcodes)
	list("keywords", "keyword", p.keywords)
	if len(p.maps) > 0 {
		element(b, d+1, "maps", false)
		for _, m := range p.maps {
			kind := "valueMap"
			if m.bitMap {
				kind = "bitMap"
			}
			if len(m.entries) == 0 {
				element(b, d+2, kind, true, "name", m.name)
				continue
			}
			element(b, d+2, kind, false, "name", m.name)
			for _, en := range m.entries {
				v := strconv.FormatUint(uint64(en.value), 10)
				if m.bitMap {
					v = fmt.Sprintf("0x%X", en.value)
				}
				element(b, d+3, "map", true, "value", v, "message", strRef(en.msgID))
			}
			endElement(b, d+2, kind)
		}
		endElement(b, d+1, "maps")
	}
	if len(p.templates) > 0 {
		element(b, d+1, "templates", false)
		for _, t := range p.templates {
			if len(t.fields) == 0 {
				element(b, d+2, "template", true, "tid", t.tid)
				continue
			}
			element(b, d+2, "template", false, "tid", t.tid)
			writeFields(b, t.fields, d+3)
			endElement(b, d+2, "template")
		}
		endElement(b, d+1, "templates")
	}
	if len(p.events) > 0 {
		element(b, d+1, "events", false)
		for _, e := range p.events {
			element(b, d+2, "event", true, "value", strconv.Itoa(int(e.s.ID)), "version", strconv.Itoa(int(e.s.Version)),
				"level", e.level, "task", e.taskRef, "opcode", e.opcode, "keywords", e.keywords, "channel", e.channel,
				"template", e.template, "symbol", e.symbol, "message", strRef(e.msgID))
		}
		endElement(b, d+1, "events")
	}
	endElement(b, d, "provider")
}

// writeFields writes template items.
func writeFields(b *bytes.Buffer, fields []*expField, depth int) {
	for _, f := range fields {
		tags := ""
		if f.tags != 0 {
			tags = fmt.Sprintf("0x%X", f.tags)
		}
		if !f.isStruct {
			element(b, depth, "data", true, "name", f.name, "inType", f.inType, "outType", f.outType,
				"length", f.length, "count", f.count, "map", f.mapName, "tags", tags)
			continue
		}
		if len(f.members) == 0 {
			element(b, depth, "struct", true, "name", f.name, "length", f.length, "count", f.count, "tags", tags)
			continue
		}
		element(b, depth, "struct", false, "name", f.name, "length", f.length, "count", f.count, "tags", tags)
		writeFields(b, f.members, depth+1)
		endElement(b, depth, "struct")
	}
}
