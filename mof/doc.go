// Package mof provides the schemas of classic (MOF) events: a parser and
// compiler for the WMI MOF classes that describe classic providers, and
// the built-in schemas of the NT Kernel Logger (MSNT_SystemTrace) event
// classes, so that classic and kernel events decode with package tdh the
// way Windows' TDH and tracerpt decode them, without Windows.
//
// # MOF files
//
// [Parse] and [ParseFile] read MOF text (UTF-8 or UTF-16, with or without
// a byte order mark) into a [File]: classes with their superclass,
// qualifiers (values, lists and flavors) and properties, and #pragma
// lines. Instances, qualifier declarations and methods are parsed and
// skipped. A syntax error is a [*ParseError] naming the file, line and
// column.
//
// [File.Schemas] compiles the event type classes into [tdh.Event]s keyed
// as ProcessTrace delivers classic events: ProviderGUID is the event
// class GUID, ID (and Opcode) the event type, Version the class version.
// Classes that cannot be compiled are reported as [*SchemaError]s.
//
// # Kernel events
//
// [KernelSchemas] and [RegisterKernel] provide every class and version of
// the NT Kernel Logger events (EventTrace header events, Process, Thread,
// Image, DiskIo, FileIo, TcpIp, UdpIp, Registry, PageFault, PerfInfo,
// SystemConfig, StackWalk, ALPC, …) plus older releases' layouts and the
// KernelTraceControl classes that xperf and PerfView merge into traces.
// They are this package's own table (kernel_table.go), written from the
// published field lists, with ProviderName "MSNT_SystemTrace" and
// EventName/OpcodeName as tracerpt shows them ("Process"/"DCStart",
// "EventTrace"/"Header"). Kernel SYSTEM and PERFINFO records are looked up
// the same way as classic ones: the reader reports the group's class GUID
// as the event's provider (etl.KernelGroupGUID), the hook's type as its
// opcode and the header's version.
//
//	reg := tdh.NewRegistry()
//	mof.RegisterKernel(reg)
//	var dec mof.Decoder
//	for r.Next() {
//		ev := r.Event()
//		s, ok := reg.Lookup(ev.ProviderID, uint16(ev.Descriptor.Opcode), ev.Descriptor.Version)
//		if !ok {
//			continue
//		}
//		d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
//		…
//	}
//
// # Decoding
//
// A plain [tdh.Decoder] decodes these schemas. [Decoder] adds what MOF
// layouts need beyond a template walk: arrays that run to the end of the
// payload, stack events that carry only the frames captured, alternate
// layouts sharing a type and version ([Alternates]) and, on request,
// repairs for synthetic payloads ([Decoder.Lenient]). Like TDH for MOF
// events, a payload is decoded correctly only when the layout consumes
// it exactly: callers should treat a [tdh.Decoded] with Extra bytes as a
// layout mismatch (tracerpt's error 15005).
package mof
