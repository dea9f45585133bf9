// Package tracerpttest provides, for tests only, hand-written schemas of the
// two EventTrace (NT kernel logger header) event types that every trace
// starts with, laid out as wmicore.mof declares them (EventTrace_Header,
// class version 2, type 0; Header_PartitionInfoExtension_TypeGroup, type
// 80). They stand in for the built-in kernel schemas of package mof so that
// the tracerpt writers' MOF rendering can be checked against real tracerpt
// output whether or not the decoder registers kernel schemas.
package tracerpttest

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
)

func prop(name string, in tdh.InType, out tdh.OutType) tdh.Property {
	return tdh.Property{Name: name, InType: in, OutType: out, LengthIndex: -1, CountIndex: -1}
}

// EventTraceSchemas returns the EventTrace Header (type 0) and
// PartitionInfoExtension (type 80) schemas of class version 2.
func EventTraceSchemas() []*tdh.Event {
	u32 := func(n string) tdh.Property { return prop(n, tdh.InTypeUInt32, tdh.OutTypeNull) }
	u64 := func(n string) tdh.Property { return prop(n, tdh.InTypeUInt64, tdh.OutTypeNull) }
	x32 := func(n string) tdh.Property { return prop(n, tdh.InTypeUInt32, tdh.OutTypeHexInt32) }
	ptr := func(n string) tdh.Property { return prop(n, tdh.InTypePointer, tdh.OutTypeNull) }
	tz := prop("TimeZoneInformation", tdh.InTypeUInt8, tdh.OutTypeNoPrint)
	tz.IsArray, tz.Count = true, 176
	header := &tdh.Event{
		Source: tdh.SourceMOF, ProviderName: "MSNT_SystemTrace", ProviderGUID: etl.EventTraceGUID,
		ID: 0, Version: 2, Opcode: 0, EventName: "EventTrace", OpcodeName: "Header",
		Properties: []tdh.Property{
			u32("BufferSize"), u32("Version"), u32("ProviderVersion"), u32("NumberOfProcessors"), u64("EndTime"),
			u32("TimerResolution"), u32("MaxFileSize"), x32("LogFileMode"), u32("BuffersWritten"), u32("StartBuffers"),
			u32("PointerSize"), u32("EventsLost"), u32("CPUSpeed"), ptr("LoggerName"), ptr("LogFileName"), tz,
			u64("BootTime"), u64("PerfFreq"), u64("StartTime"), x32("ReservedFlags"), u32("BuffersLost"),
			prop("SessionNameString", tdh.InTypeUnicodeString, tdh.OutTypeNull),
			prop("LogFileNameString", tdh.InTypeUnicodeString, tdh.OutTypeNull),
		},
	}
	partition := &tdh.Event{
		Source: tdh.SourceMOF, ProviderName: "MSNT_SystemTrace", ProviderGUID: etl.EventTraceGUID,
		ID: 80, Version: 2, Opcode: 80, EventName: "EventTrace", OpcodeName: "PartitionInfoExtension",
		Properties: []tdh.Property{
			prop("EventVersion", tdh.InTypeUInt16, tdh.OutTypeNull), prop("Reserved", tdh.InTypeUInt16, tdh.OutTypeNull),
			u32("PartitionType"), prop("QpcOffsetFromRoot", tdh.InTypeInt64, tdh.OutTypeNull),
			prop("PartitionId", tdh.InTypeGUID, tdh.OutTypeNull), prop("ParentId", tdh.InTypeGUID, tdh.OutTypeNull),
		},
	}
	return []*tdh.Event{header, partition}
}

// HasEventTrace reports whether d already decodes the EventTrace header
// event (once package mof's kernel schemas are registered by decode).
func HasEventTrace(d *decode.Decoder) bool {
	_, ok := d.Registry.Lookup(etl.EventTraceGUID, 0, 2)
	return ok
}

// NewDecoder returns decode.New() with the EventTrace schemas added when
// it does not know them already.
func NewDecoder() *decode.Decoder {
	d := decode.New()
	if !HasEventTrace(d) {
		d.Registry.Add(EventTraceSchemas()...)
	}
	return d
}

// StockWindowsDecoder returns decode.New() without the KernelTraceControl
// classes (SysConfig, ImageID, … that xperf and PerfView merge into
// traces): a Windows machine without the Windows Performance Toolkit has
// no MOF for them, so tracerpt there shows their events unnamed. The
// NT kernel logger's own classes stay.
func StockWindowsDecoder() *decode.Decoder {
	d := NewDecoder()
	reg := tdh.NewRegistry()
	for _, s := range mof.KernelSchemas() {
		if s.ProviderName == mof.KernelProviderName {
			reg.Add(s)
		}
	}
	if !HasEventTraceIn(reg) {
		reg.Add(EventTraceSchemas()...)
	}
	d.Registry = reg
	return d
}

// HasEventTraceIn reports whether reg holds the EventTrace header schema.
func HasEventTraceIn(reg *tdh.Registry) bool {
	_, ok := reg.Lookup(etl.EventTraceGUID, 0, 2)
	return ok
}
