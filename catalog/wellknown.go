package catalog

import (
	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// Well-known providers and events: the GUIDs and event ids that more than
// one package (analysis, report, pcapng, tables) matches events by;
// opcodes only one package reads stay beside it (analysis/kinds.go,
// analysis/threads.go). Kernel
// events are told apart by their class (the event GUID ProcessTrace
// reports, from etl's table of kernel groups) and opcode; manifest
// providers (the .NET runtime, PktMon, NDIS packet capture) by provider
// GUID and event id. Both stay the same across Windows and runtime
// versions and whatever schema source decodes the events.

// Kernel event classes (NT Kernel Logger), by their HookId group.
var (
	DiskIoGUID           = etl.KernelGroupGUID(0x01 << 8)
	ProcessGUID          = etl.KernelGroupGUID(0x03 << 8)
	FileIoGUID           = etl.KernelGroupGUID(0x04 << 8)
	ThreadGUID           = etl.KernelGroupGUID(0x05 << 8)
	TcpIpGUID            = etl.KernelGroupGUID(0x06 << 8)
	UdpIpGUID            = etl.KernelGroupGUID(0x08 << 8)
	EventTraceConfigGUID = etl.KernelGroupGUID(0x0B << 8) // SystemConfig
	PerfInfoGUID         = etl.KernelGroupGUID(0x0F << 8)
	ImageLoadGUID        = etl.KernelGroupGUID(0x14 << 8)
	StackWalkGUID        = etl.KernelGroupGUID(0x18 << 8)
)

// Other classic providers.
var (
	// ImageIDGUID is KernelTraceControl's ImageID class (ImageID,
	// DbgID_RSDS: the PDB identity of loaded images).
	ImageIDGUID = uuid.MustParse("b3e675d7-2554-4f18-830b-2762732560de")
	// SysConfigGUID is KernelTraceControl's SysConfig class (BuildInfo,
	// SystemPaths, VolumeMapping: what a merged or relogged trace says of
	// the machine).
	SysConfigGUID = uuid.MustParse("9b79ee91-b5fd-41c0-a243-4248e266e9d0")
	// RTLostEventGUID is RT_LostEvent, the records a real-time session
	// logs for lost events, buffers and files.
	RTLostEventGUID = uuid.MustParse("6a399ae0-4bc6-4de9-870b-3657f8947e7e")
)

// The .NET runtime providers.
var (
	DotNETRuntimeGUID = uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4") // Microsoft-Windows-DotNETRuntime
	DotNETRundownGUID = uuid.MustParse("a669021c-c450-4609-a035-5af59af4df18") // Microsoft-Windows-DotNETRuntimeRundown
	DotNETPrivateGUID = uuid.MustParse("763fd754-7086-4dfe-95eb-c01a46faf4ca") // Microsoft-Windows-DotNETRuntimePrivate
	DotNETStressGUID  = uuid.MustParse("cc2bcbba-16b6-4cf3-8990-d74c2e8af500") // Microsoft-Windows-DotNETRuntimeStress
)

// Packet capture providers.
var (
	// NDISPacketCaptureGUID is Microsoft-Windows-NDIS-PacketCapture's
	// provider GUID.
	NDISPacketCaptureGUID = uuid.MustParse("2ed6006e-4729-4609-b423-3ee7bcd678ef")
	// PktMonGUID is Microsoft-Windows-PktMon's provider GUID (its schemas
	// come with the trace: pktmon relogs its captures with TDH metadata).
	PktMonGUID = uuid.MustParse("4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac")
)

// Opcodes of DiskIo and FileIo.
const (
	DiskIoRead  = 10
	DiskIoWrite = 11

	FileIoName    = 0
	FileIoCreate  = 32 // FileCreate: a file object's name
	FileIoDelete  = 35 // FileDelete: likewise
	FileIoRundown = 36
	FileIoOpen    = 64 // Create (an open): OpenPath
	FileIoRead    = 67
	FileIoWrite   = 68
	FileIoOpEnd   = 76
)

// IsFileIoName reports whether a FileIo opcode names a file object
// (Name, FileCreate, FileDelete, FileRundown: FileObject and FileName).
func IsFileIoName(op uint8) bool {
	return op == FileIoName || op == FileIoCreate || op == FileIoDelete || op == FileIoRundown
}

// Opcodes of RT_LostEvent.
const (
	RTLostEvents = 32
	RTLostBuffer = 33
	RTLostFile   = 34
)

// Event ids of the .NET runtime providers. Method events:
// Microsoft-Windows-DotNETRuntime MethodLoad (141), MethodLoadVerbose
// (143), MethodUnloadVerbose (144), MethodDCStartVerbose_V2 (139),
// MethodDCEndVerbose_V2 (140); Microsoft-Windows-DotNETRuntimeRundown
// MethodDCStartVerbose (143) and MethodDCEndVerbose (144), the same ids.
const (
	DotNETAllocTick            = 10
	DotNETMethodDCStartVerbose = 139
	DotNETMethodDCEndVerbose   = 140
	DotNETMethodLoad           = 141
	DotNETMethodLoadVerbose    = 143
	DotNETMethodUnloadVerbose  = 144
	DotNETStackWalk            = 82  // runtime; 0 in rundown, 1 in stress
	DotNETRundownStackWalk     = 0   // Microsoft-Windows-DotNETRuntimeRundown
	DotNETStressStackWalk      = 1   // Microsoft-Windows-DotNETRuntimeStress
	DotNETPrivateStackWalk     = 151 // Microsoft-Windows-DotNETRuntimePrivate
	DotNETMethodFlagJitted     = 0x8 // MethodFlags: Jitted
	DotNETGCStart              = 1
	DotNETGCEnd                = 2
	DotNETGCRestartEEEnd       = 3
	DotNETGCHeapStats          = 4
	DotNETGCRestartEEBegin     = 7
	DotNETGCSuspendEEEnd       = 8
	DotNETGCSuspendEEBegin     = 9
)

// Microsoft-Windows-PktMon event ids.
const (
	PktMonComponent     = 20  // Id, Type, Name, Description
	PktMonPropUint32    = 30  // ComponentId, Type, Value u32 (IfIndex, MiniportIfIndex, …)
	PktMonPropIPv4      = 65  // ComponentId, Type, IpAddress (IPv4)
	PktMonPropIPv6      = 66  // ComponentId, Type, IpAddress (IPv6)
	PktMonPropMAC       = 70  // ComponentId, Type, Size, Value[Size]
	PktMonFlow          = 160 // packet
	PktMonDrop          = 170 // dropped packet
	PktMonFlowV4        = 200 // packet without group id, parsed IPv4 addresses
	PktMonDropV4        = 210
	PktMonFlowV6        = 220 // packet without group id, parsed IPv6 addresses
	PktMonDropV6        = 230
	PktMonDuplicateDrop = 240 // drop of a packet already reported
)
