package analysis

import (
	"fmt"
	"testing"
)

// TestCorpusVolumes: the corpus files that record KernelTraceControl's
// SysConfig VolumeMapping events (merged and relogged traces: net.4.5.2,
// the three PktMon captures, SelfDescribingSingleEvent, the RPC capture)
// give their \Device\ paths' DOS paths; the raw kernel logger file
// records none, and DOSPath leaves paths as they are.
func TestCorpusVolumes(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want string // the mappings, as fmt prints them
	}{
		{netFile, `[{\Device\HarddiskVolume2\ C:\} {\Device\Floppy0\ A:\} {\Device\CdRom0\ D:\} {\Device\LanmanRedirector\ \\} {\Device\Mup\ \\} {\Device\vmsmb\ \\?\VMSMB\}]`},
		{"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl",
			`[{\Device\HarddiskVolume3\ C:\} {\Device\HarddiskVolume6\ D:\} {\Device\HarddiskVolume7\ E:\} {\Device\HarddiskVolume5\ G:\} {\Device\CdRom0\ F:\} {\Device\LanmanRedirector\ \\} {\Device\Mup\ \\} {\Device\vmsmb\ \\?\VMSMB\}]`},
		{"trailofbits+RpcInvestigator/UnitTests/data/trace_files/ms-rpc-capture-arrays.etl",
			`[{\Device\HarddiskVolume3\ C:\} {\Device\Volume{4426ba11-ffa8-3470-9da0-b061c3870f1e}\ C:\Downloads\Google Drive\} {\Device\LanmanRedirector\ \\} {\Device\Mup\ \\} {\Device\vmsmb\ \\?\VMSMB\}]`},
		{largestInput, `[]`},
	} {
		files := openCorpus(t, c.rel)
		m, err := Build(files, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.rel, err)
		}
		if got := fmt.Sprint(m.Volumes()); got != c.want {
			t.Errorf("%s: volumes %s, want %s", c.rel, got, c.want)
		}
		p := `\Device\HarddiskVolume2\Windows\System32\ntdll.dll`
		want := p
		if c.rel == netFile {
			want = `C:\Windows\System32\ntdll.dll`
		}
		if got := m.DOSPath(p); got != want {
			t.Errorf("%s: %s → %s, want %s", c.rel, p, got, want)
		}
	}
}

// TestDOSPath: the longest mapped prefix wins, case aside, and only at a
// path separator; mappings that are not \Device\ paths are not kept.
func TestDOSPath(t *testing.T) {
	m := newModel()
	for _, mp := range [][2]string{
		{`\Device\HarddiskVolume1\`, `C:\`},
		{`\Device\HarddiskVolume1\Mount\`, `D:\`},
		{`\Device\HarddiskVolume11\`, `E:\`},
		{`\SystemRoot\`, `C:\Windows\`},
		{`\??\`, ``},
		{`\Device\Mup\`, ``},
		{`\Device\LanmanRedirector\`, `\\`},
		{`\Device\Floppy0`, `A:`},
	} {
		m.volumes.add(mp[0], mp[1])
	}
	if got := fmt.Sprint(m.Volumes()); got != `[{\Device\HarddiskVolume1\ C:\} {\Device\HarddiskVolume1\Mount\ D:\} {\Device\HarddiskVolume11\ E:\} {\Device\LanmanRedirector\ \\} {\Device\Floppy0\ A:\}]` {
		t.Errorf("volumes %s", got)
	}
	for in, want := range map[string]string{
		`\Device\HarddiskVolume1\a.txt`:       `C:\a.txt`,
		`\device\harddiskvolume1\a.txt`:       `C:\a.txt`,
		`\Device\HarddiskVolume1\Mount\b.txt`: `D:\b.txt`,
		`\Device\HarddiskVolume11\c.txt`:      `E:\c.txt`,
		`\Device\HarddiskVolume1`:             `C:`,
		`\Device\HarddiskVolume12\d.txt`:      `\Device\HarddiskVolume12\d.txt`,
		`\SystemRoot\System32\ntoskrnl.exe`:   `\SystemRoot\System32\ntoskrnl.exe`,
		`C:\already.txt`:                      `C:\already.txt`,
	} {
		if got := m.DOSPath(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}
