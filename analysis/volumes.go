package analysis

import (
	"strings"

	"github.com/etwkit/etw/tdh"
)

// VolumeMapping is one NT device path and the DOS path it is mounted as
// ("\Device\HarddiskVolume2\" → "C:\"), from KernelTraceControl's
// SysConfig VolumeMapping events, which merged and relogged traces carry
// (xperf -merge, PerfView, pktmon): one event per mapping, logged once.
type VolumeMapping struct {
	NTPath  string `json:"nt_path"`
	DOSPath string `json:"dos_path"`
}

// maxVolumes bounds the mappings kept (a machine has a few dozen).
const maxVolumes = 256

// volumeMap holds a trace's volume mappings.
type volumeMap []VolumeMapping

// observe keeps what a VolumeMapping event maps.
func (v *volumeMap) observe(d *tdh.Decoded) {
	if d == nil {
		return
	}
	nt, ok1 := d.String("NtPath")
	dos, ok2 := d.String("DosPath")
	if ok1 && ok2 {
		v.add(nt, dos)
	}
}

// add keeps a mapping of a device (NtPath under \Device\) to a non-empty
// DOS path; the trace's other mappings ("\SystemRoot\", "\??\", driver
// stores) are not volumes.
func (v *volumeMap) add(nt, dos string) {
	if len(*v) >= maxVolumes || dos == "" || len(nt) <= len(`\Device\`) || !strings.EqualFold(nt[:len(`\Device\`)], `\Device\`) {
		return
	}
	if !strings.HasSuffix(nt, `\`) {
		nt += `\`
	}
	if !strings.HasSuffix(dos, `\`) {
		dos += `\`
	}
	for _, m := range *v {
		if strings.EqualFold(m.NTPath, nt) {
			return
		}
	}
	*v = append(*v, VolumeMapping{NTPath: nt, DOSPath: dos})
}

// Volumes returns the trace's volume mappings (NT device paths under
// \Device\ and their DOS paths), in the trace's order; nil when the trace
// records none.
func (m *Model) Volumes() []VolumeMapping { return m.volumes }

// DOSPath returns p with its NT device prefix replaced by the DOS path
// the trace maps it to ("\Device\HarddiskVolume2\Windows\notepad.exe" →
// "C:\Windows\notepad.exe", "\Device\Mup\server\share" →
// "\\server\share"; the longest mapped prefix wins, matched without
// regard to case), or p unchanged when the trace records no mapping for
// it.
func (m *Model) DOSPath(p string) string {
	best := -1
	for i, vm := range m.volumes {
		nt := vm.NTPath // ends with a backslash
		if len(p) >= len(nt) && strings.EqualFold(p[:len(nt)], nt) || strings.EqualFold(p, nt[:len(nt)-1]) {
			if best < 0 || len(nt) > len(m.volumes[best].NTPath) {
				best = i
			}
		}
	}
	if best < 0 {
		return p
	}
	vm := m.volumes[best]
	if len(p) < len(vm.NTPath) { // the device itself
		return strings.TrimSuffix(vm.DOSPath, `\`)
	}
	return vm.DOSPath + p[len(vm.NTPath):]
}
