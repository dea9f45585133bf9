package decode

import (
	"errors"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/eventinfo"
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
		if err := d.prescanFile(i, f); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (d *Decoder) prescanFile(i int, f *etl.File) error {
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
	defer r.Close()
	var errs []error
	set := eventinfo.NewSet()
	for r.Next() {
		ev := r.Event()
		switch {
		case eventinfo.IsMetadata(ev):
			set.AddEvent(ev) // problems come back from set.Schemas
		case ev.Descriptor.ID == eventSourceManifestID && ev.Descriptor.Opcode == eventSourceManifestOpcode &&
			(ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64):
			if err := d.es.add(d.Registry, ev); err != nil {
				errs = append(errs, err)
			}
		}
	}
	schemas, problems := set.Schemas()
	for _, s := range schemas {
		// TRACE_EVENT_INFO names no manifest event, and recording machines
		// give tasks and opcodes by their names (GarbageCollection) where
		// manifests display their messages (GC): when the catalog has the
		// same event, its display names are used, the layout stays the
		// trace's.
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
	}
	d.Registry.AddFrom(tdh.Origin{Kind: tdh.OriginTrace, Order: i, Name: originTraceName}, schemas...)
	for _, p := range problems {
		if !errors.Is(p, eventinfo.ErrUnboundMap) && !errors.Is(p, eventinfo.ErrSkippedSource) {
			errs = append(errs, p)
		}
	}
	errs = append(errs, d.es.warnings()...)
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
