package eventinfo

import "github.com/etwkit/etw/tdh"

// MetaSchemas returns schemas for the MetaData events themselves, so that
// a dump of a trace shows what each of them describes. They are keyed as
// classic events are (ProviderGUID [MetadataGUID], ID and Opcode the event
// type, version 0, the version the events carry) and named as TraceEvent
// names them: provider "KernelTraceControl", event "MetaData", opcodes
// "EventInfo" and "EventMapInfo".
//
//   - EventInfo (32): the fixed part of TRACE_EVENT_INFO — ProviderGuid,
//     EventGuid, the EVENT_DESCRIPTOR members (Id, Version, Channel,
//     Level, Opcode, Task, Keyword), DecodingSource (mapped to its
//     DECODING_SOURCE name), the name and message offsets, PropertyCount,
//     TopLevelPropertyCount and Flags — then Data, the property array and
//     strings, as bytes to the end of the payload.
//   - EventMapInfo (33): ProviderGuid, the EVENT_MAP_INFO header (NameOffset,
//     Flag mapped to its MAP_FLAGS names, EntryCount, MapEntryValueType)
//     then Data, the entries and strings, as bytes.
//
// Data is one binary value running to the end of the payload (rendered
// as hex).
// Each call returns new schemas.
func MetaSchemas() []*tdh.Event {
	u8 := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUInt8) }
	u16 := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUInt16) }
	u32 := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeUInt32) }
	guid := func(name string) tdh.Property { return tdh.ScalarProperty(name, tdh.InTypeGUID) }
	hex32 := func(name string) tdh.Property {
		p := u32(name)
		p.OutType = tdh.OutTypeHexInt32
		return p
	}
	data := tdh.ScalarProperty("Data", tdh.InTypeBinary)
	data.ToEnd = true

	keyword := tdh.ScalarProperty("Keyword", tdh.InTypeUInt64)
	keyword.OutType = tdh.OutTypeHexInt64
	source := u32("DecodingSource")
	source.Map = &tdh.Map{Name: "DECODING_SOURCE", Kind: tdh.ValueMap, Entries: []tdh.MapEntry{
		{Value: 0, Message: "DecodingSourceXMLFile"}, {Value: 1, Message: "DecodingSourceWbem"},
		{Value: 2, Message: "DecodingSourceWPP"}, {Value: 3, Message: "DecodingSourceTlg"},
	}}
	eventInfo := &tdh.Event{
		Source: tdh.SourceMOF, ProviderName: "KernelTraceControl", ProviderGUID: MetadataGUID,
		ID: OpcodeEventInfo, Opcode: OpcodeEventInfo, EventName: "MetaData", TaskName: "MetaData", OpcodeName: "EventInfo",
		Properties: []tdh.Property{
			guid("ProviderGuid"), guid("EventGuid"),
			u16("Id"), u8("Version"), u8("Channel"), u8("Level"), u8("Opcode"), u16("Task"), keyword,
			source,
			u32("ProviderNameOffset"), u32("LevelNameOffset"), u32("ChannelNameOffset"), u32("KeywordsNameOffset"),
			u32("TaskNameOffset"), u32("OpcodeNameOffset"), u32("EventMessageOffset"), u32("ProviderMessageOffset"),
			u32("BinaryXMLOffset"), u32("BinaryXMLSize"), u32("EventNameOffset"), u32("EventAttributesOffset"),
			u32("PropertyCount"), u32("TopLevelPropertyCount"), hex32("Flags"),
			data,
		},
	}
	flag := hex32("Flag")
	flag.Map = &tdh.Map{Name: "MAP_FLAGS", Kind: tdh.BitMap, Entries: []tdh.MapEntry{
		{Value: mapManifestValueMap, Message: "EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP"},
		{Value: mapManifestBitMap, Message: "EVENTMAP_INFO_FLAG_MANIFEST_BITMAP"},
		{Value: mapManifestPatternMap, Message: "EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP"},
		{Value: mapWBEMValueMap, Message: "EVENTMAP_INFO_FLAG_WBEM_VALUEMAP"},
		{Value: mapWBEMBitMap, Message: "EVENTMAP_INFO_FLAG_WBEM_BITMAP"},
		{Value: mapWBEMFlag, Message: "EVENTMAP_INFO_FLAG_WBEM_FLAG"},
		{Value: mapWBEMNoMap, Message: "EVENTMAP_INFO_FLAG_WBEM_NO_MAP"},
	}}
	mapInfo := &tdh.Event{
		Source: tdh.SourceMOF, ProviderName: "KernelTraceControl", ProviderGUID: MetadataGUID,
		ID: OpcodeEventMapInfo, Opcode: OpcodeEventMapInfo, EventName: "MetaData", TaskName: "MetaData", OpcodeName: "EventMapInfo",
		Properties: []tdh.Property{
			guid("ProviderGuid"), u32("NameOffset"), flag, u32("EntryCount"), u32("MapEntryValueType"),
			data,
		},
	}
	return []*tdh.Event{eventInfo, mapInfo}
}
