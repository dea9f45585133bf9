package catalog

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/manifest"
	"github.com/etwkit/etw/tdh"
)

// The hand-written NDIS-PacketCapture table says what the provider's
// public field list says: ids, levels, tasks, opcodes, keywords and, per
// property, name, in-type, out-type, length and count (property or
// fixed) and map entries. Only the optional trailing Gft fields of the
// fragment event are marked (the list cannot say it), and the event names
// of the packet events are etl2pcapng's.
func TestNDISMatchesFieldList(t *testing.T) {
	path := filepath.Join(schemaDir(t), "dumped", "repnz-Manifests-Win10-18990", "Microsoft-Windows-NDIS-PacketCapture.xml")
	m, err := manifest.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, errs := m.Schemas()
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	got := NDISPacketCapture()
	if len(got) != len(want) {
		t.Fatalf("%d schemas, the field list has %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.ID || g.Version != w.Version || g.Level != w.Level || g.Task != w.Task || g.Opcode != w.Opcode ||
			g.Keywords != w.Keywords || g.ProviderGUID != w.ProviderGUID || g.ProviderName != w.ProviderName ||
			g.LevelName != w.LevelName || g.OpcodeName != w.OpcodeName {
			t.Errorf("event %d: descriptor %+v, want %+v", w.ID, g, w)
			continue
		}
		if w.Task != 0 && g.TaskName != w.TaskName {
			t.Errorf("event %d: task %q, want %q", w.ID, g.TaskName, w.TaskName)
		}
		if len(g.KeywordNames) != len(w.KeywordNames) {
			t.Errorf("event %d: keywords %v, want %v", w.ID, g.KeywordNames, w.KeywordNames)
		}
		if len(g.Properties) != len(w.Properties) {
			t.Errorf("event %d: %d properties, want %d", w.ID, len(g.Properties), len(w.Properties))
			continue
		}
		for j := range w.Properties {
			gp, wp := g.Properties[j], w.Properties[j]
			if gp.Name != wp.Name || gp.InType != wp.InType || gp.EffectiveOutType() != wp.EffectiveOutType() ||
				gp.Length != wp.Length || gp.LengthIndex != wp.LengthIndex || gp.Count != wp.Count ||
				gp.CountIndex != wp.CountIndex || gp.IsArray != wp.IsArray || (gp.Map == nil) != (wp.Map == nil) {
				t.Errorf("event %d property %d: %+v, want %+v", w.ID, j, gp, wp)
				continue
			}
			if gp.Map != nil {
				if len(gp.Map.Entries) != len(wp.Map.Entries) {
					t.Errorf("event %d %s: map %v, want %v", w.ID, gp.Name, gp.Map.Entries, wp.Map.Entries)
					continue
				}
				for k, e := range wp.Map.Entries {
					if gp.Map.Entries[k] != e {
						t.Errorf("event %d %s: map entry %v, want %v", w.ID, gp.Name, gp.Map.Entries[k], e)
					}
				}
			}
			wantOptional := w.ID == NDISEventPacketFragment && j >= 4
			if gp.Optional != wantOptional {
				t.Errorf("event %d %s: optional %v", w.ID, gp.Name, gp.Optional)
			}
		}
	}
}

// The built-in NDIS schemas decode ndiscap payloads: a fragment with and
// without the Gft fields newer Windows versions add, and a VMSwitch
// fragment with its strings, destinations and out-of-band data.
func TestNDISDecodes(t *testing.T) {
	reg := tdh.NewRegistry()
	Register(reg)
	le := binary.LittleEndian
	frame := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 0x08, 0x06}

	frag, ok := reg.Lookup(NDISPacketCaptureGUID, NDISEventPacketFragment, 0)
	if !ok || frag.EventName != "PacketFragment" {
		t.Fatalf("event 1001 not registered: %+v", frag)
	}
	p := le.AppendUint32(nil, 12)
	p = le.AppendUint32(p, 7)
	p = le.AppendUint32(p, uint32(len(frame)))
	p = append(p, frame...)
	var dec tdh.Decoder
	for _, withGft := range []bool{false, true} {
		payload := p
		if withGft {
			payload = le.AppendUint64(le.AppendUint64(append([]byte(nil), p...), 0x1122), 0x3344)
		}
		d, err := dec.Decode(frag, payload, 8)
		if err != nil || len(d.Extra) != 0 {
			t.Fatalf("gft %v: %v, extra %d", withGft, err, len(d.Extra))
		}
		lower, _ := d.Uint("LowerIfIndex")
		got, _ := d.Bytes("Fragment")
		if lower != 7 || string(got) != string(frame) {
			t.Errorf("gft %v: lower %d fragment %x", withGft, lower, got)
		}
		if g, ok := d.Uint("GftFlowEntryId"); ok != withGft || (withGft && g != 0x1122) {
			t.Errorf("gft %v: GftFlowEntryId %#x %v", withGft, g, ok)
		}
	}

	vms, ok := reg.Lookup(NDISPacketCaptureGUID, NDISEventVMSwitchPacketFragment, 0)
	if !ok {
		t.Fatal("event 1003 not registered")
	}
	str := func(b []byte, s string) []byte {
		for _, u := range utf16.Encode([]rune(s)) {
			b = le.AppendUint16(b, u)
		}
		return le.AppendUint16(b, 0)
	}
	v := le.AppendUint32(nil, 3)
	v = le.AppendUint32(v, 9)
	v = le.AppendUint32(v, 0x77)
	v = str(v, "port-a")
	v = str(v, "vm1")
	v = str(v, "Synthetic")
	v = le.AppendUint32(v, 2)
	v = le.AppendUint64(le.AppendUint64(v, 0), 0)
	v = le.AppendUint32(v, uint32(len(frame)))
	v = append(v, frame...)
	oob := make([]byte, 16*8)
	v = le.AppendUint32(v, uint32(len(oob)))
	v = append(v, oob...)
	d, err := dec.Decode(vms, v, 8)
	if err != nil || len(d.Extra) != 0 {
		t.Fatalf("VMSwitch: %v, extra %d", err, len(d.Extra))
	}
	if s, _ := d.String("SourceNicName"); s != "vm1" {
		t.Errorf("SourceNicName %q", s)
	}
	if o, _ := d.Bytes("OOBData"); len(o) != len(oob) {
		t.Errorf("OOBData %d bytes", len(o))
	}
}
