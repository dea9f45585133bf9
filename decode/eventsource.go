package decode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

// eventSources reassembles the manifests that .NET EventSource providers
// log about themselves: event 0xFFFE, whose payload is an 8-byte envelope
// {u8 Format, u8 MajorVersion, u8 MinorVersion, u8 Magic 0x5B,
// u16 TotalChunks, u16 ChunkNumber} followed by a chunk of UTF-8 XML.
type eventSources struct {
	mu      sync.Mutex
	pending map[uuid.UUID]*chunks
	seen    map[string]bool // manifests already registered, by content
	names   map[uuid.UUID]string
}

type chunks struct {
	total int
	parts map[int][]byte
}

const envelopeSize = 8

func newEventSources() *eventSources {
	return &eventSources{pending: map[uuid.UUID]*chunks{}, seen: map[string]bool{}, names: map[uuid.UUID]string{}}
}

func (es *eventSources) add(reg *tdh.Registry, ev *etl.Event) error {
	b := ev.UserData
	if len(b) < envelopeSize || b[3] != 0x5B {
		return fmt.Errorf("EventSource manifest event of %v: no manifest envelope", ev.ProviderID)
	}
	if b[0] != 1 {
		return fmt.Errorf("EventSource manifest event of %v: format %d is not XML", ev.ProviderID, b[0])
	}
	total := int(binary.LittleEndian.Uint16(b[4:]))
	n := int(binary.LittleEndian.Uint16(b[6:]))
	if total == 0 || n >= total {
		return fmt.Errorf("EventSource manifest event of %v: chunk %d of %d", ev.ProviderID, n, total)
	}
	es.mu.Lock()
	defer es.mu.Unlock()
	c := es.pending[ev.ProviderID]
	if c == nil || c.total != total || n == 0 {
		c = &chunks{total: total, parts: map[int][]byte{}}
		es.pending[ev.ProviderID] = c
	}
	c.parts[n] = bytes.Clone(b[envelopeSize:])
	if len(c.parts) < total {
		return nil
	}
	delete(es.pending, ev.ProviderID)
	var xml []byte
	for i := 0; i < total; i++ {
		xml = append(xml, c.parts[i]...)
	}
	if es.seen[string(xml)] {
		return nil
	}
	es.seen[string(xml)] = true
	m, err := manifest.Parse(bytes.NewReader(xml), fmt.Sprintf("EventSource manifest of %v", ev.ProviderID))
	if err != nil {
		return err
	}
	for _, p := range m.Providers {
		es.names[p.GUID] = p.Name
	}
	schemas, errs := m.Schemas()
	reg.AddFrom(originEventSource, schemas...)
	if len(errs) > 0 {
		return fmt.Errorf("EventSource manifest of %v: %d events not imported: %v", ev.ProviderID, len(errs), errs[0])
	}
	return nil
}

// name returns the provider name a reassembled manifest gave, or "".
func (es *eventSources) name(g uuid.UUID) string {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.names[g]
}

// eventSourceManifestSchema describes the manifest event itself.
func eventSourceManifestSchema(ev *etl.Event, provider string) *tdh.Event {
	return &tdh.Event{
		Source: tdh.SourceManifest, ProviderGUID: ev.ProviderID, ProviderName: provider, ID: eventSourceManifestID, Version: ev.Descriptor.Version,
		Opcode: eventSourceManifestOpcode, EventName: "ManifestData", OpcodeName: "ManifestData",
		Properties: []tdh.Property{
			{Name: "Format", InType: tdh.InTypeUInt8, LengthIndex: -1, CountIndex: -1},
			{Name: "MajorVersion", InType: tdh.InTypeUInt8, LengthIndex: -1, CountIndex: -1},
			{Name: "MinorVersion", InType: tdh.InTypeUInt8, LengthIndex: -1, CountIndex: -1},
			{Name: "Magic", InType: tdh.InTypeUInt8, OutType: tdh.OutTypeHexInt8, LengthIndex: -1, CountIndex: -1},
			{Name: "TotalChunks", InType: tdh.InTypeUInt16, LengthIndex: -1, CountIndex: -1},
			{Name: "ChunkNumber", InType: tdh.InTypeUInt16, LengthIndex: -1, CountIndex: -1},
			{Name: "Data", InType: tdh.InTypeNonNullTerminatedAnsi, OutType: tdh.OutTypeUTF8, LengthIndex: -1, CountIndex: -1},
		},
	}
}
