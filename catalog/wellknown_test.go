package catalog

import (
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/mof"
)

// The kernel classes of the table are those of the built-in MOF schemas
// (etl's table of groups and mof's classes say the same GUIDs), and the
// .NET providers those of the generated runtime schemas.
func TestWellKnownGUIDs(t *testing.T) {
	classes := map[uuid.UUID]string{}
	for _, e := range mof.KernelSchemas() {
		classes[e.ProviderGUID] = e.ProviderName
	}
	for name, g := range map[string]uuid.UUID{
		"DiskIo": DiskIoGUID, "Process": ProcessGUID, "FileIo": FileIoGUID, "Thread": ThreadGUID, "TcpIp": TcpIpGUID,
		"UdpIp": UdpIpGUID, "PerfInfo": PerfInfoGUID, "StackWalk": StackWalkGUID, "Image": ImageLoadGUID,
		"EventTraceConfig": EventTraceConfigGUID, "ImageID": ImageIDGUID,
	} {
		if g == (uuid.UUID{}) {
			t.Errorf("%s: nil GUID", name)
			continue
		}
		if _, ok := classes[g]; !ok {
			t.Errorf("%s %v: no built-in kernel class has it", name, g)
		}
	}
	providers := map[uuid.UUID]string{}
	for _, e := range DotNET() {
		providers[e.ProviderGUID] = e.ProviderName
	}
	for g, want := range map[uuid.UUID]string{
		DotNETRuntimeGUID: "Microsoft-Windows-DotNETRuntime", DotNETRundownGUID: "Microsoft-Windows-DotNETRuntimeRundown",
		DotNETPrivateGUID: "Microsoft-Windows-DotNETRuntimePrivate", DotNETStressGUID: "Microsoft-Windows-DotNETRuntimeStress",
	} {
		if providers[g] != want {
			t.Errorf("%v: %q, want %q", g, providers[g], want)
		}
	}
	for _, e := range PktMon() {
		if e.ProviderGUID != PktMonGUID {
			t.Errorf("PktMon schema %d has provider %v", e.ID, e.ProviderGUID)
		}
	}
}
