package decode

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
)

// Provider names a provider by GUID or by name.
type Provider struct {
	GUID uuid.UUID // when IsGUID
	Name string    // otherwise; compared without regard to case
	// IsGUID tells which of the two is set.
	IsGUID bool
}

// ParseProvider parses a provider given by GUID (with or without braces)
// or by name.
func ParseProvider(s string) (Provider, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Provider{}, fmt.Errorf("empty provider")
	}
	t := strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(t) == 36 {
		if g, err := uuid.Parse(t); err == nil {
			return Provider{GUID: g, IsGUID: true}, nil
		}
	}
	return Provider{Name: s}, nil
}

// Matches compares a provider with the event's provider GUID (the class
// GUID of classic events), the provider GUID tracerpt shows for kernel
// events (SystemTraceControlGuid) and the schema's provider name (s may
// be nil).
func (p *Provider) Matches(ev *etl.Event, s *tdh.Event) bool {
	kernel := ev.Header.Kernel() || (s != nil && s.Source == tdh.SourceMOF && s.ProviderName == mof.KernelProviderName)
	if p.IsGUID {
		return ev.ProviderID == p.GUID || (kernel && p.GUID == etl.SystemTraceControlGUID)
	}
	if s != nil && strings.EqualFold(s.ProviderName, p.Name) {
		return true
	}
	return kernel && strings.EqualFold(p.Name, mof.KernelProviderName)
}

// EventName selects events by name: the one vocabulary of the dump's
// --event-name, stacks --event and relog. A name is [PROVIDER/]NAME,
// PROVIDER a provider name or GUID, and NAME any of
//
//   - the schema's event name: a manifest's symbol (GCStart_V1), a MOF
//     class (Process), a TraceLogging event's name;
//   - the symbol without its version suffix _Vn (GCStart);
//   - Task/Opcode as PerfView names events (GC/Start), or a MOF class and
//     its opcode (Process/Start);
//   - the task name alone (GC) or the opcode name alone (SampleProf);
//   - the event id in decimal (manifest-style events only).
//
// All compare without regard to case. A name with a slash is read both
// ways: "GC/Start" is Task/Opcode of any provider, or the event Start of
// provider GC; "Microsoft-Windows-DotNETRuntime/GC/Start" is GC/Start
// of that provider.
type EventName struct {
	// Spec is the name as given.
	Spec string
	alts []nameForm
}

// nameForm is one reading of an EventName: NAME of one provider or of
// any.
type nameForm struct {
	prov    Provider
	hasProv bool
	name    string
	// task and opcode are name cut at its first slash (slash set).
	task, opcode string
	slash        bool
	id           int // the name as an event id, -1 if it is none
}

// ParseEventName parses [PROVIDER/]NAME (see [EventName]).
func ParseEventName(spec string) (EventName, error) {
	s := strings.TrimSpace(spec)
	parts := strings.Split(s, "/")
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return EventName{}, fmt.Errorf("event name %q: want PROVIDER/NAME or NAME (GC/Start, Microsoft-Windows-DotNETRuntime/GC/Start, GCStart_V1)", spec)
		}
	}
	n := EventName{Spec: s}
	if len(parts) <= 2 {
		n.alts = append(n.alts, newNameForm(s))
	}
	if len(parts) >= 2 {
		prov, name, _ := strings.Cut(s, "/")
		p, err := ParseProvider(prov)
		if err != nil {
			return EventName{}, err
		}
		f := newNameForm(strings.TrimSpace(name))
		f.prov, f.hasProv = p, true
		n.alts = append(n.alts, f)
	}
	return n, nil
}

func newNameForm(name string) nameForm {
	f := nameForm{name: name, id: -1}
	if t, o, ok := strings.Cut(name, "/"); ok {
		f.task, f.opcode, f.slash = strings.TrimSpace(t), strings.TrimSpace(o), true
	}
	if id, err := strconv.ParseUint(name, 10, 16); err == nil {
		f.id = int(id)
	}
	return f
}

// Matches reports whether the event ev, whose schema is s (nil when no
// schema decoded it), has the name n.
func (n *EventName) Matches(ev *etl.Event, s *tdh.Event) bool {
	for i := range n.alts {
		if n.alts[i].matches(ev, s) {
			return true
		}
	}
	return false
}

func (f *nameForm) matches(ev *etl.Event, s *tdh.Event) bool {
	if f.hasProv && !f.prov.Matches(ev, s) {
		return false
	}
	if f.id >= 0 && ev.Flags&etl.FlagClassicHeader == 0 && int(ev.Descriptor.ID) == f.id {
		return true
	}
	if s == nil {
		return false
	}
	if f.slash {
		return s.OpcodeName != "" && strings.EqualFold(f.opcode, s.OpcodeName) &&
			(s.TaskName != "" && strings.EqualFold(f.task, s.TaskName) || s.EventName != "" && strings.EqualFold(f.task, s.EventName))
	}
	for _, x := range [...]string{s.EventName, unversioned(s.EventName), s.TaskName, s.OpcodeName} {
		if x != "" && strings.EqualFold(x, f.name) {
			return true
		}
	}
	return false
}

// unversioned returns a manifest symbol without its version suffix _Vn
// (GCStart_V1 → GCStart), or "" when it has none.
func unversioned(sym string) string {
	i := strings.LastIndex(sym, "_V")
	if i <= 0 || i+2 == len(sym) {
		return ""
	}
	for _, c := range sym[i+2:] {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return sym[:i]
}
