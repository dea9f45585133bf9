package etl

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// ExtType is an extended data item type (EVENT_HEADER_EXT_TYPE_*).
type ExtType uint16

// Extended data item types.
const (
	ExtRelatedActivityID ExtType = 0x0001
	ExtSID               ExtType = 0x0002
	ExtTSID              ExtType = 0x0003
	ExtInstanceInfo      ExtType = 0x0004
	ExtStackTrace32      ExtType = 0x0005
	ExtStackTrace64      ExtType = 0x0006
	ExtPEBSIndex         ExtType = 0x0007
	ExtPMCCounters       ExtType = 0x0008
	ExtPSMKey            ExtType = 0x0009
	ExtEventKey          ExtType = 0x000A
	ExtEventSchemaTL     ExtType = 0x000B
	ExtProvTraits        ExtType = 0x000C
	ExtProcessStartKey   ExtType = 0x000D
	ExtControlGUID       ExtType = 0x000E
	ExtQPCDelta          ExtType = 0x000F
	ExtContainerID       ExtType = 0x0010
	ExtStackKey32        ExtType = 0x0011
	ExtStackKey64        ExtType = 0x0012
)

var extNames = [...]string{
	ExtRelatedActivityID: "related_activity_id",
	ExtSID:               "sid",
	ExtTSID:              "ts_id",
	ExtInstanceInfo:      "instance_info",
	ExtStackTrace32:      "stack_trace32",
	ExtStackTrace64:      "stack_trace64",
	ExtPEBSIndex:         "pebs_index",
	ExtPMCCounters:       "pmc_counters",
	ExtPSMKey:            "psm_key",
	ExtEventKey:          "event_key",
	ExtEventSchemaTL:     "event_schema_tl",
	ExtProvTraits:        "prov_traits",
	ExtProcessStartKey:   "process_start_key",
	ExtControlGUID:       "control_guid",
	ExtQPCDelta:          "qpc_delta",
	ExtContainerID:       "container_id",
	ExtStackKey32:        "stack_key32",
	ExtStackKey64:        "stack_key64",
}

// String returns the item type's short name (for example "sid",
// "stack_trace64"), or "ext(N)" for a type this package does not know.
func (t ExtType) String() string {
	if int(t) < len(extNames) && extNames[t] != "" {
		return extNames[t]
	}
	return fmt.Sprintf("ext(%d)", uint16(t))
}

// ExtendedItem is one extended data item of an event. Data is the item's
// payload, without the 8-byte in-buffer item header.
type ExtendedItem struct {
	Type ExtType
	Data []byte
}

// SID is a Windows security identifier.
type SID struct {
	Revision       uint8
	Authority      uint64 // 48-bit identifier authority
	SubAuthorities []uint32
}

// String renders the SID in its S-R-I-S-S… form.
func (s SID) String() string {
	var b strings.Builder
	b.WriteString("S-")
	b.WriteString(strconv.Itoa(int(s.Revision)))
	b.WriteByte('-')
	if s.Authority >= 1<<32 {
		fmt.Fprintf(&b, "0x%012x", s.Authority)
	} else {
		b.WriteString(strconv.FormatUint(s.Authority, 10))
	}
	for _, a := range s.SubAuthorities {
		b.WriteByte('-')
		b.WriteString(strconv.FormatUint(uint64(a), 10))
	}
	return b.String()
}

// ParseSID decodes a binary SID and returns it with the number of bytes it
// occupies.
func ParseSID(b []byte) (SID, int, error) {
	if len(b) < 8 {
		return SID{}, 0, fmt.Errorf("SID needs at least 8 bytes, have %d", len(b))
	}
	n := int(b[1])
	size := 8 + 4*n
	if n > 15 || len(b) < size {
		return SID{}, 0, fmt.Errorf("SID with %d sub-authorities needs %d bytes, have %d", n, size, len(b))
	}
	s := SID{Revision: b[0], SubAuthorities: make([]uint32, n)}
	for i := 2; i < 8; i++ {
		s.Authority = s.Authority<<8 | uint64(b[i])
	}
	for i := range s.SubAuthorities {
		s.SubAuthorities[i] = binary.LittleEndian.Uint32(b[8+4*i:])
	}
	return s, size, nil
}

// InstanceInfo is the payload of an instance-info extended item.
type InstanceInfo struct {
	InstanceID       uint32    `json:"instance_id"`
	ParentInstanceID uint32    `json:"parent_instance_id"`
	ParentGUID       uuid.UUID `json:"parent_guid"`
}

// StackTrace is the payload of a stack-trace extended item (32- or 64-bit
// addresses, widened).
type StackTrace struct {
	MatchID   uint64   `json:"match_id"`
	Addresses []uint64 `json:"addresses"`
}

// StackKey is the payload of a stack-key extended item.
type StackKey struct {
	MatchID  uint64 `json:"match_id"`
	StackKey uint64 `json:"stack_key"`
}

// ProviderTraits is the payload of a provider-traits extended item: the
// provider name and its traits.
type ProviderTraits struct {
	Name   string  `json:"name"`
	Traits []Trait `json:"traits,omitempty"`
}

// Provider trait types (ETW_PROVIDER_TRAIT_TYPE).
const (
	TraitGroup      = 1 // provider group GUID
	TraitDecodeGUID = 2
)

// Trait is one provider trait. GUID is set for the group and decode-GUID
// traits.
type Trait struct {
	Type uint8      `json:"type"`
	GUID *uuid.UUID `json:"guid,omitempty"`
	Data []byte     `json:"data,omitempty"`
}

// ParseProviderTraits decodes a provider-traits blob: a u16 total size, a
// NUL-terminated UTF-8 provider name, then traits of {u16 size, u8 type,
// data}.
func ParseProviderTraits(b []byte) (ProviderTraits, error) {
	var pt ProviderTraits
	if len(b) < 2 {
		return pt, fmt.Errorf("provider traits need 2 bytes, have %d", len(b))
	}
	total := int(binary.LittleEndian.Uint16(b))
	if total > len(b) || total < 2 {
		return pt, fmt.Errorf("provider traits size %d outside the %d-byte item", total, len(b))
	}
	b = b[2:total]
	end := 0
	for end < len(b) && b[end] != 0 {
		end++
	}
	pt.Name = string(b[:end])
	if end == len(b) {
		return pt, fmt.Errorf("provider name is not NUL-terminated")
	}
	b = b[end+1:]
	for len(b) > 0 {
		if len(b) < 3 {
			return pt, fmt.Errorf("trait header needs 3 bytes, have %d", len(b))
		}
		size := int(binary.LittleEndian.Uint16(b))
		if size < 3 || size > len(b) {
			return pt, fmt.Errorf("trait size %d outside the %d bytes left", size, len(b))
		}
		tr := Trait{Type: b[2]}
		data := b[3:size]
		if (tr.Type == TraitGroup || tr.Type == TraitDecodeGUID) && len(data) == 16 {
			g := GUIDFromWindows(data)
			tr.GUID = &g
		} else {
			tr.Data = append([]byte(nil), data...)
		}
		pt.Traits = append(pt.Traits, tr)
		b = b[size:]
	}
	return pt, nil
}

// Value decodes the item into a typed value:
//
//	related_activity_id, control_guid, container_id: uuid.UUID
//	sid: SID
//	ts_id: uint32
//	instance_info: InstanceInfo
//	stack_trace32, stack_trace64: StackTrace
//	stack_key32, stack_key64: StackKey
//	pebs_index, psm_key, event_key, process_start_key, qpc_delta: uint64
//	pmc_counters: []uint64
//	prov_traits: ProviderTraits
//	event_schema_tl and unknown types: []byte (a copy of the raw data)
//
// A payload too short for its type gives an error.
func (x ExtendedItem) Value() (any, error) {
	le := binary.LittleEndian
	d := x.Data
	need := func(n int) error {
		if len(d) < n {
			return fmt.Errorf("%v item has %d bytes, needs %d", x.Type, len(d), n)
		}
		return nil
	}
	switch x.Type {
	case ExtRelatedActivityID, ExtControlGUID, ExtContainerID:
		if err := need(16); err != nil {
			return nil, err
		}
		return GUIDFromWindows(d), nil
	case ExtSID:
		s, _, err := ParseSID(d)
		return s, err
	case ExtTSID:
		if err := need(4); err != nil {
			return nil, err
		}
		return le.Uint32(d), nil
	case ExtInstanceInfo:
		if err := need(24); err != nil {
			return nil, err
		}
		return InstanceInfo{le.Uint32(d), le.Uint32(d[4:]), GUIDFromWindows(d[8:])}, nil
	case ExtStackTrace32, ExtStackTrace64:
		if err := need(8); err != nil {
			return nil, err
		}
		st := StackTrace{MatchID: le.Uint64(d)}
		w := 8
		if x.Type == ExtStackTrace32 {
			w = 4
		}
		rest := d[8:]
		st.Addresses = make([]uint64, len(rest)/w)
		for i := range st.Addresses {
			if w == 4 {
				st.Addresses[i] = uint64(le.Uint32(rest[4*i:]))
			} else {
				st.Addresses[i] = le.Uint64(rest[8*i:])
			}
		}
		return st, nil
	case ExtStackKey32:
		if err := need(12); err != nil {
			return nil, err
		}
		return StackKey{le.Uint64(d), uint64(le.Uint32(d[8:]))}, nil
	case ExtStackKey64:
		if err := need(16); err != nil {
			return nil, err
		}
		return StackKey{le.Uint64(d), le.Uint64(d[8:])}, nil
	case ExtPEBSIndex, ExtPSMKey, ExtEventKey, ExtProcessStartKey, ExtQPCDelta:
		if err := need(8); err != nil {
			return nil, err
		}
		return le.Uint64(d), nil
	case ExtPMCCounters:
		c := make([]uint64, len(d)/8)
		for i := range c {
			c[i] = le.Uint64(d[8*i:])
		}
		return c, nil
	case ExtProvTraits:
		return ParseProviderTraits(d)
	}
	return append([]byte(nil), d...), nil
}
