package analysis

import (
	"github.com/google/uuid"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// Event classes and providers the model reads. Kernel events are told
// apart by their class (the event GUID ProcessTrace reports) and opcode,
// .NET runtime events by provider GUID and event id: both stay the same
// across versions and schema sources.
var (
	guidProcess    = uuid.MustParse("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c")
	guidThread     = uuid.MustParse("3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c")
	guidFileIo     = uuid.MustParse("90cbdc39-4a3e-11d1-84f4-0000f80464e3")
	guidTcpIp      = uuid.MustParse("9a280ac0-c8e0-11d1-84e2-00c04fb998a2")
	guidUdpIp      = uuid.MustParse("bf3a50c5-a9c9-4988-a005-2df0b7c80f80")
	guidImage      = uuid.MustParse("2cb15d1d-5fc1-11d2-abe1-00a0c911f518")
	guidSysConfig  = uuid.MustParse("01853a65-418f-4f36-aefc-dc0f1d2fd235") // EventTraceConfig
	guidPerfInfo   = uuid.MustParse("ce1dbfb4-137e-4da6-87b0-3f59aa102cbc")
	guidStackWalk  = uuid.MustParse("def2fe46-7bd6-4b80-bd94-f57fe20d0ce3")
	guidImageID    = uuid.MustParse("b3e675d7-2554-4f18-830b-2762732560de") // KernelTraceControl
	guidClrRuntime = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	guidClrRundown = uuid.MustParse("a669021c-c450-4609-a035-5af59af4df18")
	guidClrPrivate = uuid.MustParse("763fd754-7086-4dfe-95eb-c01a46faf4ca")
	guidClrStress  = uuid.MustParse("cc2bcbba-16b6-4cf3-8990-d74c2e8af500")
)

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
	kClrStack   // CLR stack walk
	kClrMethod  // CLR method load/unload/rundown, verbose
	kClrGC      // CLR GC events used by the GC statistics
	kClrRuntime // any other event of the .NET runtime providers
)

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
)

// Method events: Microsoft-Windows-DotNETRuntime MethodLoadVerbose (143),
// MethodUnloadVerbose (144), MethodDCStartVerbose_V2 (139),
// MethodDCEndVerbose_V2 (140); Microsoft-Windows-DotNETRuntimeRundown
// MethodDCStartVerbose (143), MethodDCEndVerbose (144).
const (
	clrMethodLoadVerbose    = 143
	clrMethodUnloadVerbose  = 144
	clrMethodDCStartVerbose = 139
	clrMethodDCEndVerbose   = 140
	clrStackWalkID          = 82  // runtime; 0 rundown, 1 stress, 151 private
	clrPrivateStackWalkID   = 151 // Microsoft-Windows-DotNETRuntimePrivate
)

// GC events of the runtime provider (task GC).
const (
	gcStart          = 1
	gcEnd            = 2
	gcRestartEEEnd   = 3
	gcHeapStats      = 4
	gcRestartEEBegin = 7
	gcSuspendEEEnd   = 8
	gcSuspendEEBegin = 9
)

func classify(ev *etl.Event) kind {
	op := ev.Descriptor.Opcode
	g := ev.ProviderID
	classic := ev.Flags&etl.FlagClassicHeader != 0
	if classic {
		switch g {
		case guidPerfInfo:
			if op == opSampleProf {
				return kSample
			}
		case guidStackWalk:
			switch op {
			case opStack:
				return kStack
			case opStackKeyKern, opStackKeyUser:
				return kStackKey
			case opKeyDelete, opKeyRundown:
				return kKeyDef
			}
		case guidProcess:
			switch op {
			case opStart, opEnd, opDCStart, opDCEnd, opDefunct:
				return kProcess
			case 11, 32, 33: // Terminate, PerfCtr, PerfCtrRundown
				return kProcessCounters
			}
		case guidThread:
			switch op {
			case opStart, opEnd, opDCStart, opDCEnd:
				return kThread
			}
		case guidImage:
			switch op {
			case opLoad, opEnd, opDCStart, opDCEnd:
				return kImage
			}
		case guidImageID:
			switch op {
			case opImageIDInfo:
				return kImageID
			case opRSDS:
				return kImageRSDS
			}
		case guidFileIo:
			switch op {
			case 0, 32, 35, 36:
				return kFileName
			}
		case guidTcpIp, guidUdpIp:
			return kNetwork
		case guidSysConfig:
			if op == 15 {
				return kService
			}
		}
		return kOther
	}
	switch g {
	case guidClrRuntime:
		switch ev.Descriptor.ID {
		case clrStackWalkID:
			return kClrStack
		case clrMethodLoadVerbose, clrMethodUnloadVerbose, clrMethodDCStartVerbose, clrMethodDCEndVerbose:
			return kClrMethod
		case gcStart, gcEnd, gcRestartEEEnd, gcHeapStats, gcRestartEEBegin, gcSuspendEEEnd, gcSuspendEEBegin:
			return kClrGC
		}
		return kClrRuntime
	case guidClrRundown:
		switch ev.Descriptor.ID {
		case 0:
			return kClrStack
		case clrMethodLoadVerbose, clrMethodUnloadVerbose:
			return kClrMethod
		}
		return kClrRuntime
	case guidClrPrivate:
		if ev.Descriptor.ID == clrPrivateStackWalkID {
			return kClrStack
		}
		return kClrRuntime
	case guidClrStress:
		if ev.Descriptor.ID == 1 {
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
	i := 0
	for ; i < len(top); i++ {
		if p := top[i].Prop; p != nil && equalFold(p.Name, name) {
			break
		}
	}
	for i++; i < len(top); i++ {
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
