// Package decode ties the reader to the schema sources: it finds the
// schema of each [etl.Event] (TraceLogging metadata carried by the event,
// manifests imported from files or carried by the trace itself, MOF
// classes) and lays out its payload with the shared [tdh] engine.
//
//	d := decode.New()
//	if err := d.Import("ClrEtwAll.man"); err != nil { ... }
//	for r.Next() {
//		res := d.Decode(r.Event())
//		if res.Schema != nil && res.Err == nil {
//			fmt.Println(string(tdh.AppendPropertiesJSON(nil, res.Decoded)))
//		}
//	}
package decode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
	"github.com/etwkit/etw/tracelogging"
	"github.com/etwkit/etw/wpp"
)

// Decoder finds schemas for events and decodes their payloads. Its
// scratch storage is reused between calls: use one Decoder per goroutine
// (they may share a Registry).
type Decoder struct {
	// Registry holds manifest (and MOF) schemas.
	Registry *tdh.Registry
	// Nearest lets an event whose exact version has no schema decode with
	// the nearest registered version (TDH would refuse it).
	Nearest bool

	tl     *tracelogging.Cache
	es     *eventSources
	dec    tdh.Decoder
	result Result
}

// New returns a Decoder whose registry holds the built-in NT Kernel Logger
// (MSNT_SystemTrace) classes.
func New() *Decoder {
	reg := tdh.NewRegistry()
	mof.RegisterKernel(reg)
	return &Decoder{Registry: reg, tl: &tracelogging.Cache{}, es: newEventSources()}
}

// Clone returns a Decoder sharing d's registry and caches, for use on
// another goroutine.
func (d *Decoder) Clone() *Decoder {
	return &Decoder{Registry: d.Registry, Nearest: d.Nearest, tl: d.tl, es: d.es}
}

// Result is the outcome of decoding one event. Decoded and its values are
// valid until the next call to [Decoder.Decode].
type Result struct {
	// Schema is nil when no schema is known for the event.
	Schema  *tdh.Event
	Decoded *tdh.Decoded
	// Exact is false when the schema is of another version (Nearest).
	Exact bool
	// Err is set when the payload does not fit the schema; Decoded then
	// holds the properties decoded before the failure.
	Err error
}

// EventSource manifest events: id 0xFFFE, opcode 0xFE.
const (
	eventSourceManifestID     = 0xFFFE
	eventSourceManifestOpcode = 0xFE
)

// Decode finds the schema of ev and lays out its payload.
func (d *Decoder) Decode(ev *etl.Event) *Result {
	r := &d.result
	*r = Result{}
	schema, exact, err := d.schema(ev)
	if err != nil {
		r.Err = err
		return r
	}
	if schema == nil {
		return r
	}
	r.Schema, r.Exact = schema, exact
	r.Decoded, r.Err = d.dec.Decode(schema, ev.UserData, ev.PointerSize())
	return r
}

func (d *Decoder) schema(ev *etl.Event) (*tdh.Event, bool, error) {
	if s, ok, err := d.tl.Schema(ev); ok {
		return s, true, err
	}
	switch ev.Header {
	case etl.HeaderEvent32, etl.HeaderEvent64:
		if ev.Descriptor.ID == eventSourceManifestID && ev.Descriptor.Opcode == eventSourceManifestOpcode {
			if err := d.es.add(d.Registry, ev); err != nil {
				return nil, false, err
			}
			return eventSourceManifestSchema(ev, d.es.name(ev.ProviderID)), true, nil
		}
	case etl.HeaderMessage:
		// WPP: TMF schemas are keyed by message GUID and number.
		s, exact := d.Registry.LookupNearest(ev.ProviderID, ev.Descriptor.ID, 0)
		return s, exact, nil
	case etl.HeaderError:
		return nil, false, nil
	}
	id := ev.Descriptor.ID
	if ev.Flags&etl.FlagClassicHeader != 0 {
		id = uint16(ev.Descriptor.Opcode) // classic events: class GUID + type + version
	}
	if s, ok := d.Registry.Lookup(ev.ProviderID, id, ev.Descriptor.Version); ok {
		return s, true, nil
	}
	if d.Nearest {
		if s, exact := d.Registry.LookupNearest(ev.ProviderID, id, ev.Descriptor.Version); s != nil {
			return s, exact, nil
		}
	}
	return nil, false, nil
}

// Prescan reads the events of files and registers the EventSource
// manifests they carry, so that events logged before their provider's
// manifest decode too.
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

// Import registers the schemas of manifest (.man, .xml, including
// WEPExplorer exports), MOF (.mof) and WPP trace message format (.tmf)
// files, or of every such file under a folder. Files under a folder that are not manifests are skipped;
// anything else that fails is returned (joined), after the rest has been
// imported.
func (d *Decoder) Import(paths ...string) error {
	var errs []error
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !st.IsDir() {
			errs = append(errs, d.importFile(p, false))
			continue
		}
		filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			ext := strings.ToLower(filepath.Ext(path))
			if !e.IsDir() && (ext == ".man" || ext == ".xml" || ext == ".mof" || ext == ".tmf") {
				errs = append(errs, d.importFile(path, true))
			}
			return nil
		})
	}
	return errors.Join(errs...)
}

func (d *Decoder) importFile(path string, skipNonManifest bool) error {
	if strings.EqualFold(filepath.Ext(path), ".tmf") {
		f, err := wpp.ParseFile(path)
		if err != nil {
			return err
		}
		schemas, errs := f.Schemas()
		d.Registry.Add(schemas...)
		if len(errs) > 0 {
			return fmt.Errorf("%s: %d messages not imported: %w", path, len(errs), errors.Join(errs...))
		}
		return nil
	}
	if strings.EqualFold(filepath.Ext(path), ".mof") {
		f, err := mof.ParseFile(path)
		if err != nil {
			return err
		}
		schemas, errs := f.Schemas()
		d.Registry.Add(schemas...)
		if len(errs) > 0 {
			return fmt.Errorf("%s: %d classes not imported: %w", path, len(errs), errors.Join(errs...))
		}
		return nil
	}
	m, err := manifest.ParseFile(path)
	if err != nil {
		if skipNonManifest && errors.Is(err, manifest.ErrNotManifest) {
			return nil
		}
		return err
	}
	schemas, errs := m.Schemas()
	d.Registry.Add(schemas...)
	if len(errs) > 0 {
		return fmt.Errorf("%s: %d events not imported: %w", path, len(errs), errors.Join(errs...))
	}
	return nil
}
