package analysis

import (
	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Events are matched by the well-known GUIDs and ids of package catalog:
// kernel events by class (the event GUID ProcessTrace reports) and
// opcode, .NET runtime events by provider GUID and event id.

// kind is what the model does with an event.
type kind uint8

const (
	kOther kind = iota
	kProcess
	kProcessCounters // PerfCtr, PerfCtrRundown, Terminate: payload ProcessId
	kThread
	kImage
	kImageID // KernelTraceControl ImageID
	kImageRSDS
	kSample     // PerfInfo SampleProf
	kStack      // StackWalk Stack
	kStackKey   // StackKeyKernel, StackKeyUser
	kKeyDef     // KeyDelete, KeyRundown
	kFileName   // FileIo Name, FileCreate, FileDelete, FileRundown
	kNetwork    // TcpIp, UdpIp: payload PID
	kService    // SystemConfig Services: the service's ProcessId
	kVolume     // KernelTraceControl SysConfig VolumeMapping
	kClrStack   // CLR stack walk
	kClrMethod  // CLR method load/unload/rundown, verbose
	kClrGC      // CLR GC events used by the GC statistics
	kClrRuntime // any other event of the .NET runtime providers

	numKinds // the count of kinds above (a kind set is a uint32)
)

// A set of kinds (Builder.skipKinds) is a uint32: this fails to compile
// past 32 kinds.
var _ [32 - numKinds]struct{}

// Opcodes of the kernel classes.
const (
	opStart        = 1
	opEnd          = 2
	opDCStart      = 3
	opDCEnd        = 4
	opLoad         = 10
	opDefunct      = 39
	opSampleProf   = 46
	opStack        = 32
	opKeyDelete    = 35
	opKeyRundown   = 36
	opStackKeyKern = 37
	opStackKeyUser = 38
	opImageIDInfo  = 0
	opRSDS         = 36

	opVolumeMapping = 35 // SysConfig
)

func classify(ev *etl.Event) kind {
	op := ev.Descriptor.Opcode
	g := ev.ProviderID
	classic := ev.Flags&etl.FlagClassicHeader != 0
	if classic {
		switch g {
		case catalog.PerfInfoGUID:
			if op == opSampleProf {
				return kSample
			}
		case catalog.StackWalkGUID:
			switch op {
			case opStack:
				return kStack
			case opStackKeyKern, opStackKeyUser:
				return kStackKey
			case opKeyDelete, opKeyRundown:
				return kKeyDef
			}
		case catalog.ProcessGUID:
			switch op {
			case opStart, opEnd, opDCStart, opDCEnd, opDefunct:
				return kProcess
			case 11, 32, 33: // Terminate, PerfCtr, PerfCtrRundown
				return kProcessCounters
			}
		case catalog.ThreadGUID:
			switch op {
			case opStart, opEnd, opDCStart, opDCEnd:
				return kThread
			}
		case catalog.ImageLoadGUID:
			switch op {
			case opLoad, opEnd, opDCStart, opDCEnd:
				return kImage
			}
		case catalog.ImageIDGUID:
			switch op {
			case opImageIDInfo:
				return kImageID
			case opRSDS:
				return kImageRSDS
			}
		case catalog.FileIoGUID:
			if catalog.IsFileIoName(op) {
				return kFileName
			}
		case catalog.TcpIpGUID, catalog.UdpIpGUID:
			return kNetwork
		case catalog.EventTraceConfigGUID:
			if op == 15 {
				return kService
			}
		case catalog.SysConfigGUID:
			if op == opVolumeMapping {
				return kVolume
			}
		}
		return kOther
	}
	switch g {
	case catalog.DotNETRuntimeGUID:
		switch ev.Descriptor.ID {
		case catalog.DotNETStackWalk:
			return kClrStack
		case catalog.DotNETMethodLoadVerbose, catalog.DotNETMethodUnloadVerbose, catalog.DotNETMethodDCStartVerbose, catalog.DotNETMethodDCEndVerbose:
			return kClrMethod
		case catalog.DotNETGCStart, catalog.DotNETGCEnd, catalog.DotNETGCRestartEEEnd, catalog.DotNETGCHeapStats, catalog.DotNETGCRestartEEBegin, catalog.DotNETGCSuspendEEEnd, catalog.DotNETGCSuspendEEBegin:
			return kClrGC
		}
		return kClrRuntime
	case catalog.DotNETRundownGUID:
		switch ev.Descriptor.ID {
		case catalog.DotNETRundownStackWalk:
			return kClrStack
		case catalog.DotNETMethodLoadVerbose, catalog.DotNETMethodUnloadVerbose:
			return kClrMethod
		}
		return kClrRuntime
	case catalog.DotNETPrivateGUID:
		if ev.Descriptor.ID == catalog.DotNETPrivateStackWalk {
			return kClrStack
		}
		return kClrRuntime
	case catalog.DotNETStressGUID:
		if ev.Descriptor.ID == catalog.DotNETStressStackWalk {
			return kClrStack
		}
	}
	return kOther
}

// needsPayload reports whether the model reads the payload of events of
// kind k (the others are attributed from their header alone).
func needsPayload(ev *etl.Event, k kind) bool {
	switch k {
	case kOther, kClrRuntime, kFileName:
		// Kernel events without a thread in their header may name one in
		// their payload (DiskIo completions, page faults, …).
		return ev.ThreadID == NoID && ev.Flags&etl.FlagClassicHeader != 0 && k != kClrRuntime
	}
	return true
}

// decoded returns the decoded payload of res, or nil when it did not
// decode. Properties that decoded before an error are kept for trailing
// fields that failed (the CLR stack walk's template is short).
func decoded(res *decode.Result) *tdh.Decoded {
	if res == nil || res.Schema == nil || res.Decoded == nil {
		return nil
	}
	return res.Decoded
}

func getU(d *tdh.Decoded, names ...string) (uint64, bool) {
	if d == nil {
		return 0, false
	}
	for _, n := range names {
		if v, ok := d.Uint(n); ok {
			return v, true
		}
	}
	return 0, false
}

func getS(d *tdh.Decoded, names ...string) string {
	if d == nil {
		return ""
	}
	for _, n := range names {
		if v, ok := d.String(n); ok {
			return v
		}
	}
	return ""
}

// pointersAfter returns the pointer values that follow the top-level
// property called name: scalars (Stack1, Stack2, …) and array elements
// (StackFrame[]), appended to dst.
func pointersAfter(d *tdh.Decoded, name string, dst []uint64) []uint64 {
	if d == nil {
		return dst
	}
	top := d.Top()
	for i := topIndex(top, name) + 1; i < len(top); i++ {
		v := &top[i]
		switch v.Kind {
		case tdh.Scalar:
			if n, ok := ptrValue(v); ok {
				dst = append(dst, n)
			}
		case tdh.Array:
			for _, c := range d.Children(v) {
				if n, ok := ptrValue(&c); ok {
					dst = append(dst, n)
				}
			}
		}
	}
	return dst
}

// topIndex returns the index of top-level property name (any case) in
// top, or len(top) if there is none.
func topIndex(top []tdh.Value, name string) int {
	for i := range top {
		if p := top[i].Prop; p != nil && equalFold(p.Name, name) {
			return i
		}
	}
	return len(top)
}

// lastPointerAfter returns the last of the values pointersAfter would
// gather, without gathering them, and false when there is none.
func lastPointerAfter(d *tdh.Decoded, name string) (uint64, bool) {
	if d == nil {
		return 0, false
	}
	top := d.Top()
	i := topIndex(top, name)
	for j := len(top) - 1; j > i; j-- {
		v := &top[j]
		switch v.Kind {
		case tdh.Scalar:
			if n, ok := ptrValue(v); ok {
				return n, true
			}
		case tdh.Array:
			c := d.Children(v)
			for k := len(c) - 1; k >= 0; k-- {
				if n, ok := ptrValue(&c[k]); ok {
					return n, true
				}
			}
		}
	}
	return 0, false
}

func ptrValue(v *tdh.Value) (uint64, bool) {
	if v.Prop == nil {
		return 0, false
	}
	switch v.Prop.InType {
	case tdh.InTypePointer, tdh.InTypeUInt64, tdh.InTypeHexInt64, tdh.InTypeUInt32, tdh.InTypeHexInt32, tdh.InTypeSizeT:
		return v.Uint()
	}
	return 0, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
