// Package catalog holds the event schemas compiled into the program, so
// that common traces decode with nothing imported: every event and
// version of the .NET runtime providers (Microsoft-Windows-DotNETRuntime,
// -Rundown, -Private, -Stress and the Mono profiler provider), generated
// from the runtime's own manifest, ClrEtwAll.man of dotnet/runtime (MIT
// licence).
//
// It also holds Microsoft-Windows-NDIS-PacketCapture (ndiscap, the packet
// capture of "netsh trace start capture=yes"), written by hand from the
// provider's public field list ([NDISPacketCapture]).
//
// The NT Kernel Logger classes, KernelTraceControl and WinSat are built
// into package [mof] ([mof.KernelSchemas]); [Register] adds them all.
//
// The generated tables are Go literals that the linker lays out
// (internal/schemagen): a program's start builds no schema. They are
// regenerated with
//
//	ETL_SCHEMAS=../shared/schemas go generate ./catalog
package catalog

import (
	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
)

//go:generate go run ./internal/gencatalog -o dotnet_gen.go -var dotnet -source " dotnet/runtime@68813511 src/coreclr/vm/ClrEtwAll.man (MIT)" $ETL_SCHEMAS/authored/dotnet-runtime/ClrEtwAll.man

// DotNET returns the schemas of the .NET runtime providers. The slice is
// new; the schemas are shared and must not be modified.
func DotNET() []*tdh.Event {
	return append([]*tdh.Event(nil), dotnetSchemas...)
}

// Origin is the origin [Register] gives the built-in schemas.
var Origin = tdh.Origin{Kind: tdh.OriginBuiltIn}

// Register adds every built-in schema to reg with [Origin]: the kernel
// and KernelTraceControl classes of package mof, the KernelTraceControl
// MetaData events themselves (package eventinfo), the .NET runtime
// providers and NDIS packet capture.
func Register(reg *tdh.Registry) {
	// The schemas are literals the linker lays out (dotnet_gen.go and
	// package mof's kernel_gen.go): registering them is all there is to
	// do at a program's start.
	reg.AddFrom(Origin, mof.KernelSchemas()...)
	reg.AddFrom(Origin, eventinfo.MetaSchemas()...)
	reg.AddFrom(Origin, dotnetSchemas...)
	reg.AddFrom(Origin, ndis()...)
}
