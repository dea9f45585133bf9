// Package analysis turns the events of a trace into what the machine did:
// processes, threads, the images and .NET methods loaded in each process,
// and, per event, the process it belongs to and its call stack resolved to
// module + offset or managed method. It is an offline equivalent of
// TraceEvent's TraceLog, for Linux, macOS and Windows.
//
// A [Model] is built from one pass over the events in time order
// ([Build], or a [Builder] fed event by event) from the decoded payloads
// of the kernel's Process, Thread, Image, PerfInfo and StackWalk events,
// KernelTraceControl's ImageID/DbgID_RSDS events and the .NET runtime's
// method, stack and GC events. Properties are read by name from
// [decode.Decoder] results, so every schema source works (the built-in
// kernel classes, imported MOF files or manifests, TraceLogging); .NET
// events are recognised by provider GUID and event id, which do not change
// between manifest versions.
//
// The model answers time-aware questions: which process a pid named at an
// instant ([Model.ProcessAt]), which process a thread belonged to
// ([Model.ThreadPID]), which module or method an address was
// ([Model.ResolveFrame]). An [Enricher] then walks the events again and
// gives each its process and stack ([Annotation]): stacks logged after their
// event (StackWalk events, kernel/user stack keys, CLR stack walks) are
// attached to the event they belong to through a bounded window of recent
// events, so memory does not grow with the file.
//
//	m, err := analysis.Build(files, dec, nil)
//	for _, p := range m.Processes() {
//		fmt.Println(p.PID, p.Name, p.CommandLine, p.Events, p.CPUSamples)
//	}
//
// No PDB symbols are read: a frame resolves to its module and offset, or
// to the .NET method that the runtime's method events place there. Each
// [Image] keeps its PDB identity (name, GUID, age) for a later symbol step.
package analysis
