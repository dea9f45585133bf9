package decode

import (
	"errors"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
)

// Prescan reads the events of files and registers the schemas they carry
// (the manifests .NET EventSource providers log, and the TDH metadata
// that relogging adds), so that events logged before their schema decode
// too.
func (d *Decoder) Prescan(files []*etl.File) error {
	r := etl.NewReader(files, &etl.ReaderOptions{Order: etl.FileOrder})
	defer r.Close()
	var errs []error
	for r.Next() {
		ev := r.Event()
		if ev.Descriptor.ID == eventSourceManifestID && ev.Descriptor.Opcode == eventSourceManifestOpcode &&
			(ev.Header == etl.HeaderEvent32 || ev.Header == etl.HeaderEvent64) {
			if err := d.es.add(d.Registry, ev); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// traceMeta collects the TDH metadata a trace carries.
type traceMeta struct{}

func newTraceMeta() *traceMeta { return &traceMeta{} }

// TraceSchemas returns the schemas files carry (EventSource manifests and
// relogging's TDH metadata), sorted by provider, id and version.
func TraceSchemas(files []*etl.File) ([]*tdh.Event, error) {
	d := &Decoder{Registry: tdh.NewRegistry(), tl: &tracelogging.Cache{}, es: newEventSources(), meta: newTraceMeta(), imports: &importState{}}
	err := d.Prescan(files)
	var out []*tdh.Event
	for _, c := range d.Registry.All() {
		out = append(out, c.Schema)
	}
	return out, err
}
