package decode

import (
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// ProviderStat counts the events of one provider (or, for classic
// events, one event class) of a trace and says where their schemas came
// from.
type ProviderStat struct {
	// GUID is the provider GUID of the events (the class GUID for classic
	// and kernel events, the message GUID for WPP).
	GUID uuid.UUID
	// Name is the provider name the schemas give ("" when none decoded).
	Name string
	// Class is the event class name of classic and kernel events (MOF
	// schemas), e.g. "Process".
	Class string
	// Events and Decoded count the provider's events and those that
	// decoded with no error.
	Events, Decoded int
	// Sources lists where the schemas of the decoded events came from,
	// in the order of [Decoder]'s precedence: "import:<file>", "trace",
	// "eventsource", "built-in", "tracelogging"; empty when none decoded.
	Sources []string
}

// Source returns the sources joined with "+", or "none".
func (p *ProviderStat) Source() string {
	if len(p.Sources) == 0 {
		return "none"
	}
	return strings.Join(p.Sources, "+")
}

// ProviderCounter gathers [ProviderStat]s from decode results.
type ProviderCounter struct {
	byGUID map[uuid.UUID]*ProviderStat
}

// Add counts one event and the result of decoding it.
func (c *ProviderCounter) Add(ev *etl.Event, res *Result) {
	if c.byGUID == nil {
		c.byGUID = map[uuid.UUID]*ProviderStat{}
	}
	p := c.byGUID[ev.ProviderID]
	if p == nil {
		p = &ProviderStat{GUID: ev.ProviderID}
		c.byGUID[ev.ProviderID] = p
	}
	p.Events++
	if res == nil || res.Schema == nil || res.Err != nil {
		return
	}
	p.Decoded++
	if p.Name == "" {
		p.Name = res.Schema.ProviderName
		if res.Schema.Source == tdh.SourceMOF {
			p.Class = res.Schema.EventName
		}
	}
	src := res.Origin.String()
	if !slices.Contains(p.Sources, src) {
		p.Sources = append(p.Sources, src)
		slices.SortStableFunc(p.Sources, func(a, b string) int { return sourceRank(a) - sourceRank(b) })
	}
}

func sourceRank(s string) int {
	switch {
	case strings.HasPrefix(s, "import:"):
		return 0
	case s == "trace" || s == "eventsource" || s == "tracelogging":
		return 1
	}
	return 2
}

// Providers returns the counts, by number of events (most first), then
// name and GUID.
func (c *ProviderCounter) Providers() []ProviderStat {
	out := make([]ProviderStat, 0, len(c.byGUID))
	for _, p := range c.byGUID {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b ProviderStat) int {
		if a.Events != b.Events {
			return b.Events - a.Events
		}
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		return strings.Compare(a.GUID.String(), b.GUID.String())
	})
	return out
}

// CountProviders decodes every event of files with d (after
// [Decoder.Prescan]) and returns the provider counts and the damaged
// buffers the reader reported.
func CountProviders(d *Decoder, files []*etl.File) ([]ProviderStat, []error) {
	var errs []error
	if err := d.Prescan(files); err != nil {
		errs = append(errs, err)
	}
	var c ProviderCounter
	r := etl.NewReader(files, &etl.ReaderOptions{Order: etl.FileOrder})
	defer r.Close()
	for r.Next() {
		ev := r.Event()
		c.Add(ev, d.Decode(ev))
	}
	return c.Providers(), append(errs, r.Errors()...)
}
