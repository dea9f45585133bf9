package eventinfo

import (
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// MAP_FLAGS.
const (
	mapManifestValueMap   = 0x1
	mapManifestBitMap     = 0x2
	mapManifestPatternMap = 0x4
	mapWBEMValueMap       = 0x8
	mapWBEMBitMap         = 0x10
	mapWBEMFlag           = 0x20
	mapWBEMNoMap          = 0x40
)

// MAP_VALUETYPE.
const mapValueTypeString = 1

// ParseMapInfo converts the payload of a MetaData EventMapInfo event (a
// provider GUID, then one EVENT_MAP_INFO whose offsets count from payload
// byte 16) into the provider GUID and a [tdh.Map]. An error is a
// [*FormatError] with its offset in the whole payload.
//
// Map kinds follow MAP_FLAGS:
//
//   - EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP: a value map;
//     EVENTMAP_INFO_FLAG_MANIFEST_BITMAP: a bit map. Entry texts lose the
//     trailing space TDH leaves on manifest strings.
//   - EVENTMAP_INFO_FLAG_WBEM_VALUEMAP: a value map (MOF ValueMap/Values);
//     with EVENTMAP_INFO_FLAG_WBEM_FLAG a bit map whose values are masks
//     (ValueType("flag")); with EVENTMAP_INFO_FLAG_WBEM_NO_MAP an index map
//     (Values without ValueMap: entry i is value i), and with both a flag
//     map (entry i is bit i, as package mof compiles ValueType("flag")
//     without ValueMap). When MapEntryValueType is
//     EVENTMAP_ENTRY_VALUETYPE_STRING the values are the decimal or 0x-hex
//     texts at InputOffset; entries whose text is not a number (CIM ranges)
//     are left out, as package mof does.
//   - EVENTMAP_INFO_FLAG_WBEM_BITMAP: a bit map whose values are masks;
//     with EVENTMAP_INFO_FLAG_WBEM_NO_MAP (BitValues without BitMap) entry
//     i is bit i.
//   - EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP maps strings to strings, which
//     a tdh.Map cannot hold: the error wraps [ErrUnsupported]. So does any
//     other combination of flags.
func ParseMapInfo(b []byte) (provider uuid.UUID, m *tdh.Map, err error) {
	if len(b) < guidSize+mapInfoHeaderSize {
		r := newBuf(b, 0)
		return uuid.Nil, nil, r.errf(len(b), "EVENT_MAP_INFO", ErrTruncated,
			"payload of %d bytes is shorter than a GUID and the %d-byte EVENT_MAP_INFO header", len(b), mapInfoHeaderSize)
	}
	provider = etl.GUIDFromWindows(b)
	r := newBuf(b[guidSize:], guidSize)
	name, err := r.str(r.u32(0), 0, "EVENT_MAP_INFO.NameOffset")
	if err != nil {
		return provider, nil, err
	}
	flag, n, valueType := r.u32(4), r.u32(8), r.u32(12)
	if need := uint64(mapInfoHeaderSize) + uint64(n)*mapEntrySize; need > uint64(len(r.b)) {
		return provider, nil, r.errf(8, "EVENT_MAP_INFO.EntryCount", ErrTruncated,
			"%d entries need %d bytes, the map has %d", n, need, len(r.b))
	}
	m = &tdh.Map{Name: name}
	manifest := false
	index, flagIndex, stringValues := false, false, false
	switch {
	case flag&mapManifestPatternMap != 0:
		return provider, nil, r.errf(4, "EVENT_MAP_INFO.Flag", ErrUnsupported,
			"map %q is a pattern map (strings to strings), which a tdh.Map cannot hold", name)
	case flag == mapManifestValueMap:
		m.Kind, manifest = tdh.ValueMap, true
	case flag == mapManifestBitMap:
		m.Kind, manifest = tdh.BitMap, true
	case flag == mapWBEMValueMap:
		m.Kind, stringValues = tdh.ValueMap, valueType == mapValueTypeString
	case flag == mapWBEMValueMap|mapWBEMFlag:
		m.Kind, stringValues = tdh.BitMap, valueType == mapValueTypeString
	case flag == mapWBEMValueMap|mapWBEMNoMap:
		m.Kind, index = tdh.IndexMap, true
	case flag == mapWBEMValueMap|mapWBEMFlag|mapWBEMNoMap:
		m.Kind, index = tdh.FlagMap, true
	case flag == mapWBEMBitMap:
		m.Kind, stringValues = tdh.BitMap, valueType == mapValueTypeString
	case flag == mapWBEMBitMap|mapWBEMNoMap:
		m.Kind, flagIndex = tdh.BitMap, true
	default:
		return provider, nil, r.errf(4, "EVENT_MAP_INFO.Flag", ErrUnsupported, "map %q has unknown flags %#x", name, flag)
	}
	m.Entries = make([]tdh.MapEntry, 0, n)
	for i := 0; i < int(n); i++ {
		e := mapInfoHeaderSize + mapEntrySize*i
		field := "MapEntryArray[" + strconv.Itoa(i) + "]"
		text, err := r.str(r.u32(e), e, field+".OutputOffset")
		if err != nil {
			return provider, nil, err
		}
		if manifest {
			text = trimSpace(text)
		}
		v := uint64(r.u32(e + 4))
		switch {
		case index && m.Kind == tdh.FlagMap:
			v = uint64(i) + 1
		case index:
			v = uint64(i)
		case flagIndex:
			if i >= 64 {
				continue // no such bit
			}
			v = 1 << uint(i)
		case stringValues:
			s, err := r.str(uint32(v), e+4, field+".InputOffset")
			if err != nil {
				return provider, nil, err
			}
			var ok bool
			if v, ok = parseMOFInteger(s); !ok {
				continue // CIM ranges ("1..5") and other non-numbers
			}
		}
		m.Entries = append(m.Entries, tdh.MapEntry{Value: v, Message: text})
	}
	m.Sort()
	return provider, m, nil
}

// parseMOFInteger reads a MOF ValueMap text: a decimal number, possibly
// negative (taken as a 32-bit two's complement, as the ULONG TDH compares
// it with), or 0x-hex.
func parseMOFInteger(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		v, err := strconv.ParseUint(s[2:], 16, 64)
		return v, err == nil
	}
	if strings.HasPrefix(s, "-") {
		v, err := strconv.ParseInt(s, 10, 32)
		return uint64(uint32(int32(v))), err == nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}
