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
// The generated tables are regenerated with
//
//	ETL_SCHEMAS=../shared/schemas go generate ./catalog
package catalog

import (
	"runtime"
	"sync"

	"github.com/etwkit/etw/eventinfo"
	"github.com/etwkit/etw/mof"
	"github.com/etwkit/etw/tdh"
)

//go:generate go run ./internal/gencatalog -o dotnet_gen.go -var dotnet -source " dotnet/runtime@68813511 src/coreclr/vm/ClrEtwAll.man (MIT)" $ETL_SCHEMAS/authored/dotnet-runtime/ClrEtwAll.man

// dotnet builds the shared .NET schemas on first use.
var dotnet = sync.OnceValue(dotnetSchemas)

// DotNET returns the schemas of the .NET runtime providers. The slice is
// new; the schemas are shared and must not be modified.
func DotNET() []*tdh.Event {
	return append([]*tdh.Event(nil), dotnet()...)
}

// Origin is the origin [Register] gives the built-in schemas.
var Origin = tdh.Origin{Kind: tdh.OriginBuiltIn}

// Register adds every built-in schema to reg with [Origin]: the kernel
// and KernelTraceControl classes of package mof, the KernelTraceControl
// MetaData events themselves (package eventinfo), the .NET runtime
// providers and NDIS packet capture.
func Register(reg *tdh.Registry) {
	// The kernel classes and the .NET schemas are made on first use, at
	// a program's start: with several processors, on two goroutines at
	// once (the first decode.New 2.96 → 2.49 ms on two, medians of 100).
	var made sync.WaitGroup
	if runtime.GOMAXPROCS(0) > 1 {
		made.Go(func() { dotnet() })
	}
	kernel := mof.KernelSchemas()
	made.Wait()
	reg.AddFrom(Origin, kernel...)
	reg.AddFrom(Origin, eventinfo.MetaSchemas()...)
	reg.AddFrom(Origin, dotnet()...)
	reg.AddFrom(Origin, ndis()...)
}
