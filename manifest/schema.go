package manifest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// Reasons an event does not compile into a TDH schema; a [*SchemaError]
// wraps one of them, or [tdh.ErrOuterReference] or [tdh.ErrBadReference].
var (
	// ErrDumpArtifact: a field's in-type is a manifest dumper artifact
	// (win:Struct, win:28, …) rather than a type: the struct layout it
	// stood for was lost.
	ErrDumpArtifact = errors.New("in-type is a dump artifact, not a type")
	// ErrMissingTemplate: the event names a template the provider does not
	// define.
	ErrMissingTemplate = errors.New("template not defined")
	// ErrDuplicateEvent: an earlier event of the provider has the same id
	// and version; the first one is compiled (as [Provider.Event] finds
	// it).
	ErrDuplicateEvent = errors.New("duplicate event id and version")
	// ErrLayout: the template repeats an item that takes no payload bytes
	// (an array of empty structs) or nests deeper than tdh.MaxDepth
	// (tdh.Validate), which would cost work out of proportion to the
	// payload.
	ErrLayout = errors.New("layout repeats items of no size or nests too deep")
)

// SchemaError reports an event that [Provider.Schemas] could not compile.
type SchemaError struct {
	Provider     string // provider name
	ProviderGUID uuid.UUID
	ID           uint16
	Version      uint8
	Symbol       string // the event's symbol ("" if none)
	// Field is the dotted path of the offending field (Values.Name), ""
	// when the problem is the event's.
	Field string
	Msg   string
	Err   error // tdh.ErrOuterReference, tdh.ErrBadReference, ErrDumpArtifact, …
}

// Error formats the error as
// `provider P event ID version V (Symbol): field F: message`.
func (e *SchemaError) Error() string {
	s := fmt.Sprintf("provider %s event %d version %d", e.Provider, e.ID, e.Version)
	if e.Symbol != "" {
		s += " (" + e.Symbol + ")"
	}
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + ": " + e.Msg
}

// Unwrap returns the reason, one of the Err… variables.
func (e *SchemaError) Unwrap() error { return e.Err }

// Schemas compiles the provider's events into TDH schemas (one per event
// id+version). Events whose template cannot be expressed are skipped and
// reported in errs (one [*SchemaError] per event, naming provider, event
// id/version and the field), never silently dropped; so are events that
// repeat an earlier id and version.
//
// Display names are the localized messages, falling back to the names as
// written: TaskName is the task's message, else the task attribute ("" when
// the event has none); LevelName, OpcodeName and ChannelName likewise, the
// predefined win: values giving winmeta.xml's English messages (level 4 is
// "Information", opcode 1 "Start"). KeywordNames are those of
// [Provider.KeywordsByMask]. EventName is the event's symbol. A message
// that stayed an unresolved $(string.X) reference is not used.
//
// Each template field becomes a tdh.Property in payload order, a struct
// with its members; the length and count indexes are converted from
// [Field.LengthIndex]'s flat TDH numbering to tdh's index among the same
// level's properties. Properties sharing a manifest map share one *tdh.Map.
func (p *Provider) Schemas() (schemas []*tdh.Event, errs []error) {
	c := &schemaCompiler{p: p, maps: map[*Map]*tdh.Map{}}
	seen := map[eventKey]bool{}
	for _, e := range p.Events {
		k := eventKey{e.ID, e.Version}
		if seen[k] {
			errs = append(errs, c.errorf(e, "", ErrDuplicateEvent, "an earlier event has the same id and version (first kept)"))
			continue
		}
		seen[k] = true
		s, err := c.event(e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		schemas = append(schemas, s)
	}
	return schemas, errs
}

// Schemas compiles every provider of the manifest (see
// [Provider.Schemas]).
func (m *Manifest) Schemas() ([]*tdh.Event, []error) {
	var schemas []*tdh.Event
	var errs []error
	for _, p := range m.Providers {
		s, e := p.Schemas()
		schemas = append(schemas, s...)
		errs = append(errs, e...)
	}
	return schemas, errs
}

// schemaCompiler holds the state of one Provider.Schemas call.
type schemaCompiler struct {
	p    *Provider
	maps map[*Map]*tdh.Map // one tdh map per manifest map
}

func (c *schemaCompiler) errorf(e *Event, field string, reason error, format string, args ...any) *SchemaError {
	return &SchemaError{Provider: c.p.Name, ProviderGUID: c.p.GUID, ID: e.ID, Version: e.Version, Symbol: e.Symbol,
		Field: field, Msg: fmt.Sprintf(format, args...), Err: reason}
}

func (c *schemaCompiler) event(e *Event) (*tdh.Event, error) {
	s := &tdh.Event{
		Source:       tdh.SourceManifest,
		ProviderName: c.p.Name,
		ProviderGUID: c.p.GUID,
		ID:           e.ID,
		Version:      e.Version,
		Level:        e.Level,
		Opcode:       e.Opcode,
		Task:         e.Task,
		Keywords:     e.Keywords,
		Channel:      e.Channel,
		EventName:    e.Symbol,
		TaskName:     displayName(e.TaskMessage, e.TaskName),
		OpcodeName:   displayName(e.OpcodeMessage, e.OpcodeName),
		LevelName:    displayName(e.LevelMessage, e.LevelName),
		ChannelName:  displayName(e.ChannelMessage, e.ChannelName),
	}
	if !isUnresolvedRef(e.Message) {
		s.Message = e.Message
	}
	for _, k := range c.p.KeywordsByMask(e.Keywords) {
		s.KeywordNames = append(s.KeywordNames, displayName(k.Message, k.Name))
	}
	if e.TemplateID != "" && e.Template == nil {
		return nil, c.errorf(e, "", ErrMissingTemplate, "template %q not defined", e.TemplateID)
	}
	if e.Template != nil {
		props, err := c.level(e, e.Template, e.Template.Fields, "")
		if err != nil {
			return nil, err
		}
		s.Properties = props
	}
	if err := tdh.Validate(s); err != nil {
		field := ""
		if se, ok := err.(*tdh.SchemaError); ok {
			field = se.Property
			err = errors.New(se.Msg)
		}
		return nil, c.errorf(e, field, ErrLayout, "%v", err)
	}
	return s, nil
}

// level converts the fields of one level (a template's top-level fields or
// a struct's members).
func (c *schemaCompiler) level(e *Event, t *Template, fields []*Field, path string) ([]tdh.Property, error) {
	props := make([]tdh.Property, 0, len(fields))
	for i, f := range fields {
		name := path + f.Name
		pr := tdh.Property{
			Name:    f.Name,
			InType:  f.InType,
			OutType: f.OutType,
			Length:  f.Length,
			Count:   f.Count,
			IsArray: f.HasCount,
		}
		var err error
		if pr.LengthIndex, err = c.sibling(e, t, fields, i, "length", f.LengthIndex, name); err != nil {
			return nil, err
		}
		if pr.CountIndex, err = c.sibling(e, t, fields, i, "count", f.CountIndex, name); err != nil {
			return nil, err
		}
		if f.IsStruct() {
			pr.InType, pr.OutType = tdh.InTypeNull, tdh.OutTypeNull
			if pr.Members, err = c.level(e, t, f.Struct, name+"."); err != nil {
				return nil, err
			}
		} else {
			if f.suspect {
				return nil, c.errorf(e, name, ErrDumpArtifact,
					"in-type %q (%d) is a dump artifact, not a type (a struct whose members were lost)", f.InTypeName, f.InType)
			}
			if f.Map != nil {
				pr.Map = c.tdhMap(f.Map)
			}
		}
		props = append(props, pr)
	}
	return props, nil
}

// sibling converts the flat TDH index of the field giving fields[i] its
// length or count to its index among fields, or reports why it cannot.
func (c *schemaCompiler) sibling(e *Event, t *Template, fields []*Field, i int, what string, flat int, name string) (int, error) {
	if flat < 0 {
		return -1, nil
	}
	f := fields[i]
	for j, r := range fields[:i] {
		if r.Index != flat {
			continue
		}
		if r.IsStruct() || r.HasCount || !r.InType.IsInteger() {
			return -1, c.errorf(e, name, tdh.ErrBadReference, "%s of %s refers to %s, which is not a single integer", what, f.Name, r.Name)
		}
		return j, nil
	}
	ref := "#" + fmt.Sprint(flat)
	if flat < len(t.Properties) {
		ref = t.Properties[flat].Name
	}
	return -1, c.errorf(e, name, tdh.ErrOuterReference, "%s of %s refers to outer field %s; not supported", what, f.Name, ref)
}

// tdhMap returns the tdh form of a manifest map, converting it once.
func (c *schemaCompiler) tdhMap(m *Map) *tdh.Map {
	if tm, ok := c.maps[m]; ok {
		return tm
	}
	tm := &tdh.Map{Name: m.Name, Kind: tdh.ValueMap, Entries: make([]tdh.MapEntry, len(m.Entries))}
	if m.Kind == BitMap {
		tm.Kind = tdh.BitMap
	}
	for i, en := range m.Entries {
		tm.Entries[i] = tdh.MapEntry{Value: uint64(en.Value), Message: en.Message}
	}
	tm.Sort()
	c.maps[m] = tm
	return tm
}

// displayName returns the localized message, or the name as written when
// there is none (or it is an unresolved $(string.X) reference).
func displayName(msg, name string) string {
	if msg != "" && !isUnresolvedRef(msg) {
		return msg
	}
	return name
}

// isUnresolvedRef reports whether a message is a $(string.X) or $(mc.X)
// reference the parser could not resolve (it keeps those raw).
func isUnresolvedRef(s string) bool {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "$(") || !strings.HasSuffix(t, ")") {
		return false
	}
	return strings.HasPrefix(t, "$(string.") || strings.HasPrefix(t, "$(mc.")
}
