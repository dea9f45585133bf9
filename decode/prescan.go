package decode

import (
	"errors"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/internal/cores"
	"github.com/etwkit/etw/tdh"
)

// Prescan reads the events of files and registers the schemas they carry,
// so that events logged before their schema decode too: the manifests
// .NET EventSource providers log, and the TDH metadata (TRACE_EVENT_INFO
// and EVENT_MAP_INFO of the KernelTraceControl MetaData events) that
// relogging and merging add. The schemas of each file are registered
// with their own [tdh.Origin] (kind trace, the file's index as order), so
// two files' schemas for one event both stay candidates.
//
// The error joins the payloads that could not be used: manifests that do
// not parse, metadata that does not parse or contradicts itself.
// Properties naming a map the trace does not carry render their raw
// values, as TDH does; they are not errors. TDH metadata names no
// manifest event and gives tasks and opcodes by name: such a schema takes
// the event, task and opcode names of the built-in schema for the same
// event, when there is one.
func (d *Decoder) Prescan(files []*etl.File) error {
	var errs []error
	for i, f := range files {
		p := d.NewPrescanner()
		r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
		for r.Next() {
			ev := r.Event()
			ev.File = i
			p.Observe(ev)
		}
		r.Close()
		if err := p.Finish(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// A Prescanner is [Decoder.Prescan] fed one event at a time, so that a
// pass that reads the trace for another purpose (the analysis model)
// registers its schemas too:
//
//	p := dec.NewPrescanner()
//	for r.Next() {
//		p.Observe(r.Event())
//		…
//	}
//	err := p.Finish()
//
// EventSource manifests are registered as soon as they are complete; the
// TDH metadata of each file (by [etl.Event.File]) at Finish. With more
// than one processor (GOMAXPROCS), a complete manifest whose GUIDs are
// all the logging provider's is parsed on a goroutine of its own, and
// decoding is as though it had been registered at once: the decoder's
// Decode, Pin and PeekUint of that provider's events, an [Ahead]'s Get,
// Fork, ImportFiles and Finish wait for the registration. Reading the
// registry directly before Finish may not find it yet.
type Prescanner struct {
	d    *Decoder
	sets []*eventinfo.Set // per file index
	errs []error
	jobs []*parseJob // manifests parsed apart, their errors' places in errs
}

// NewPrescanner returns a Prescanner that registers into d's registry.
func (d *Decoder) NewPrescanner() *Prescanner { return &Prescanner{d: d} }

// maxPrescanFiles bounds the file indexes a Prescanner keeps apart (a
// Reader numbers its files from 0); the TDH metadata of files past it is
// registered as file 0's.
const maxPrescanFiles = 1 << 16

// Observe takes one event.
func (p *Prescanner) Observe(ev *etl.Event) {
	switch {
	case eventinfo.IsMetadata(ev):
		i := ev.File
		if i < 0 || i >= maxPrescanFiles {
			i = 0
		}
		for len(p.sets) <= i {
			p.sets = append(p.sets, nil)
		}
		if p.sets[i] == nil {
			p.sets[i] = eventinfo.NewSet()
		}
		p.sets[i].AddEvent(ev) // problems come back from Set.Schemas
	case isManifest(ev):
		if err := p.manifest(ev); err != nil {
			p.errs = append(p.errs, err)
		}
	}
}

// manifest takes an EventSource manifest chunk: a manifest it completes
// is registered at once, or with several processors parsed on a
// goroutine of its own (see parseAsync), its error then kept a place in
// p.errs. A manifest that may not be parsed apart (declaresOnly, the
// queue's bound) takes its turn after those parsed apart, and manifest
// waits for it: another goroutine's eventSources.add of the same
// manifest waits for the registration too.
func (p *Prescanner) manifest(ev *etl.Event) error {
	es := p.d.es
	if !cores.Several() {
		return es.add(p.d.Registry, ev)
	}
	es.mu.Lock()
	xml, err := es.assemble(ev)
	if xml == nil {
		es.mu.Unlock()
		return err
	}
	apart := declaresOnly(xml, ev.ProviderID) && es.queues(len(xml))
	j := es.parseAsync(p.d.Registry, xml, ev.ProviderID)
	es.mu.Unlock()
	if !apart {
		return j.wait()
	}
	j.slot = len(p.errs)
	p.errs = append(p.errs, nil)
	p.jobs = append(p.jobs, j)
	return nil
}

// Finish registers the TDH metadata observed and returns what could not
// be used (see [Decoder.Prescan]).
func (p *Prescanner) Finish() error {
	d := p.d
	for _, j := range p.jobs {
		p.errs[j.slot] = j.wait()
	}
	p.jobs = nil
	errs := p.errs
	for i, set := range p.sets {
		if set == nil {
			continue
		}
		schemas, problems := set.Schemas()
		for _, s := range schemas {
			// TRACE_EVENT_INFO names no manifest event, and recording
			// machines give tasks and opcodes by their names
			// (GarbageCollection) where manifests display their messages
			// (GC): when the catalog has the same event, its display names
			// are used, the layout stays the trace's.
			for _, c := range d.Registry.Candidates(s.ProviderGUID, s.ID, s.Version) {
				if c.Origin.Kind != tdh.OriginBuiltIn || c.Schema.Source != s.Source {
					continue
				}
				b := c.Schema
				if b.EventName != "" {
					s.EventName = b.EventName
				}
				if b.TaskName != "" && b.Task == s.Task {
					s.TaskName = b.TaskName
				}
				if b.OpcodeName != "" && b.Opcode == s.Opcode {
					s.OpcodeName = b.OpcodeName
				}
				break
			}
			// Providers whose manifests name no event (PktMon) get the
			// catalog's names, so that --event-name can select them.
			if s.EventName == "" && s.TaskName == "" && s.OpcodeName == "" {
				s.EventName = catalog.EventName(s.ProviderGUID, s.ID)
			}
		}
		d.Registry.AddFrom(tdh.Origin{Kind: tdh.OriginTrace, Order: i, Name: originTraceName}, schemas...)
		for _, pr := range problems {
			if !errors.Is(pr, eventinfo.ErrUnboundMap) && !errors.Is(pr, eventinfo.ErrSkippedSource) {
				errs = append(errs, pr)
			}
		}
	}
	errs = append(errs, d.es.warnings()...)
	p.sets, p.errs = nil, nil
	return errors.Join(errs...)
}

// originTraceName labels the schemas of relogging's TDH metadata.
const originTraceName = "trace"

// TraceSchemas returns the schemas files carry (EventSource manifests and
// relogging's TDH metadata), sorted by provider, id and version.
func TraceSchemas(files []*etl.File) ([]*tdh.Event, error) {
	d := newWithRegistry(tdh.NewRegistry())
	err := d.Prescan(files)
	var out []*tdh.Event
	for _, c := range d.Registry.All() {
		out = append(out, c.Schema)
	}
	return out, err
}
