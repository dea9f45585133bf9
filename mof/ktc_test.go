package mof

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/etl/compress"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// The KernelTraceControl classes checked here (kernel_table.go).
var (
	ktcSysConfig = uuid.MustParse("9b79ee91-b5fd-41c0-a243-4248e266e9d0")
	ktcWinSat    = uuid.MustParse("ed54dff8-c409-4cf6-bf83-05e1e61a09c4")
	ktcPerfTrack = uuid.MustParse("bf6ef1cb-89b5-490a-80ac-b180cfbcff0f")
)

// ktcFiles are the corpus files holding SysConfig NetworkInterface (36)
// and WinSat events, with how many of each they hold.
var ktcFiles = []struct {
	path          string
	netIf, winSat int
	sysConfig37   int // left undecoded: no public layout
}{
	{"Kesiya24+final-project/PktMon.etl", 37, 3, 1},
	{"NeoChenjf+Finguard/PktMon.etl", 44, 3, 1},
	{"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl", 46, 3, 1},
	{"microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/Regression/SelfDescribingSingleEvent.etl", 0, 3, 1},
	{"trailofbits+RpcInvestigator/UnitTests/data/trace_files/ms-rpc-capture-arrays.etl", 0, 3, 1},
}

// ktcEvent is a decoded SysConfig or WinSat event kept for the checks.
type ktcEvent struct {
	file   string
	opcode uint8
	name   string
	v      map[string]tdhValue
	bytes  map[string][]byte // raw bytes of array values
}

// TestCorpusKernelTraceControl decodes every SysConfig and WinSat event
// of the corpus files that hold them with the built-in layouts: every
// event whose type has a layout must decode with no error and no bytes
// left over, and only SysConfig type 37 may lack one. It then checks
// values read off the payloads: network interfaces (MIB_IF_ROW2) whose
// fields agree with each other, and WinSat XML that decompresses to
// exactly UncompressedLength.
func TestCorpusKernelTraceControl(t *testing.T) {
	dir := etltest.CorpusDir(t)
	reg := tdh.NewRegistry()
	RegisterKernel(reg)
	var dec Decoder
	var events []ktcEvent
	for _, f := range ktcFiles {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("corpus file %s: %v", f.path, err)
		}
		netIf, winSat, undecoded := 0, 0, 0
		etltest.ForEachEvent(t, path, func(_ *etl.File, ev *etl.Event) {
			if ev.ProviderID == ktcPerfTrack {
				t.Errorf("%s: a PerfTrack MetaData event (type %d): this corpus had none, check it for a layout", f.path, ev.Descriptor.Opcode)
			}
			if ev.ProviderID != ktcSysConfig && ev.ProviderID != ktcWinSat {
				return
			}
			op := ev.Descriptor.Opcode
			s, ok := reg.Lookup(ev.ProviderID, uint16(op), ev.Descriptor.Version)
			if !ok {
				if ev.ProviderID == ktcSysConfig && op == 37 {
					undecoded++
					if len(ev.UserData) != 16 {
						t.Errorf("%s: SysConfig type 37 payload of %d bytes, the corpus has 16", f.path, len(ev.UserData))
					}
					return
				}
				t.Errorf("%s: no layout for %v type %d version %d", f.path, ev.ProviderID, op, ev.Descriptor.Version)
				return
			}
			d, err := dec.Decode(s, ev.UserData, ev.PointerSize())
			if err != nil || len(d.Extra) != 0 {
				t.Errorf("%s: %s/%s: err %v, %d bytes left over", f.path, s.EventName, s.OpcodeName, err, len(d.Extra))
				return
			}
			switch {
			case ev.ProviderID == ktcSysConfig && op == 36:
				netIf++
			case ev.ProviderID == ktcWinSat:
				winSat++
			default:
				return
			}
			e := ktcEvent{file: f.path, opcode: op, name: s.EventName + "/" + s.OpcodeName, v: values(d), bytes: map[string][]byte{}}
			for i := range d.Top() {
				v := &d.Values[i]
				if v.Kind == tdh.Array {
					e.bytes[v.Prop.Name] = append([]byte(nil), d.Payload[v.Offset:v.Offset+arrayBytes(d, v)]...)
				}
			}
			events = append(events, e)
		})
		if netIf != f.netIf || winSat != f.winSat || undecoded != f.sysConfig37 {
			t.Errorf("%s: %d NetworkInterface, %d WinSat, %d SysConfig type 37 events; want %d, %d, %d",
				f.path, netIf, winSat, undecoded, f.netIf, f.winSat, f.sysConfig37)
		}
		t.Logf("%s: %d NetworkInterface, %d WinSat decoded; %d SysConfig type 37 left undecoded", f.path, netIf, winSat, undecoded)
	}
	checkNetworkInterfaces(t, events)
	checkWinSat(t, events)
}

// arrayBytes is the payload size of array value v (fixed-size elements).
func arrayBytes(d *tdh.Decoded, v *tdh.Value) int {
	n := 0
	for _, c := range d.Children(v) {
		n += len(c.Data)
	}
	return n
}

func checkNetworkInterfaces(t *testing.T, events []ktcEvent) {
	t.Helper()
	n := 0
	found := map[string]bool{}
	for _, e := range events {
		if e.opcode != 36 {
			continue
		}
		n++
		v := e.v
		if e.name != "SysConfig/NetworkInterface" {
			t.Errorf("%s: type 36 is %s", e.file, e.name)
		}
		// NET_LUID keeps the interface type in its top 16 bits.
		luid, typ := v["InterfaceLuid"].n, v["Type"].n
		pal := v["PhysicalAddressLength"].n
		if luid>>48 != typ || pal > 32 || v["Alias"].text == "" || v["Description"].text == "" ||
			v["InterfaceIndex"].n == 0 || v["OperStatus"].n < 1 || v["OperStatus"].n > 7 ||
			v["AdminStatus"].n < 1 || v["AdminStatus"].n > 3 || v["MediaConnectState"].n > 2 {
			t.Errorf("%s: implausible interface: luid %#x type %d physical address length %d alias %q description %q index %d oper %d admin %d media %d",
				e.file, luid, typ, pal, v["Alias"].text, v["Description"].text, v["InterfaceIndex"].n,
				v["OperStatus"].n, v["AdminStatus"].n, v["MediaConnectState"].n)
		}
		// The address bytes past PhysicalAddressLength and the struct's
		// alignment gaps are zero.
		if !allZero(e.bytes["PhysicalAddress"][pal:]) || !allZero(e.bytes["PermanentPhysicalAddress"][pal:]) ||
			!allZero(e.bytes["Padding1"]) || v["Padding2"].n != 0 {
			t.Errorf("%s: %q: non-zero bytes after the address or in padding", e.file, v["Alias"].text)
		}
		key := e.file + "|" + v["Alias"].text
		found[key] = true
		got := fmt.Sprintf("%s|%d|%#x|%d|%x|%d|%d|%d", v["Description"].text, v["InterfaceIndex"].n, luid, typ,
			e.bytes["PhysicalAddress"][:pal], v["Mtu"].n, v["TransmitLinkSpeed"].n, v["ReceiveLinkSpeed"].n)
		if want, ok := ktcInterfaces[key]; ok && got != want {
			t.Errorf("%s: %q: %s, want %s", e.file, v["Alias"].text, got, want)
		}
	}
	for key := range ktcInterfaces {
		if !found[key] {
			t.Errorf("interface %s not found", key)
		}
	}
	if n != 127 {
		t.Errorf("%d NetworkInterface events, want 127", n)
	}
}

// ktcInterfaces are values read off the payloads (hex dumps) of a few
// interfaces: Description|InterfaceIndex|InterfaceLuid|Type|
// PhysicalAddress|Mtu|TransmitLinkSpeed|ReceiveLinkSpeed.
var ktcInterfaces = map[string]string{
	"Kesiya24+final-project/PktMon.etl|Wi-Fi":                       "Realtek 8821CE Wireless LAN 802.11ac PCI-E NIC|9|0x47008000000000|71|809d65edea9c|1500|72200000|72200000",
	"Kesiya24+final-project/PktMon.etl|Loopback Pseudo-Interface 1": "Software Loopback Interface 1|1|0x18000000000000|24||1500|1073741824|1073741824",
	"NeoChenjf+Finguard/PktMon.etl|以太网":                             "Realtek PCIe GbE Family Controller|9|0x6008001000000|6|e89c2591c710|1500|0|0",
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func checkWinSat(t *testing.T, events []ktcEvent) {
	t.Helper()
	root := map[uint8]string{33: "<WinSPR>", 35: "<Metrics>", 37: "<SystemConfig>"}
	n := 0
	xml := map[string]string{}
	for _, e := range events {
		if e.opcode == 36 {
			continue
		}
		n++
		raw, err := lznt1Decompress(e.bytes["CompressedXml"], e.v["UncompressedLength"].n)
		if err != nil || uint64(len(raw)) != e.v["UncompressedLength"].n || len(raw)%2 != 0 || e.v["State"].n != 1 {
			t.Errorf("%s: %s: state %d, %d bytes decompressed (%v), UncompressedLength %d", e.file, e.name,
				e.v["State"].n, len(raw), err, e.v["UncompressedLength"].n)
			continue
		}
		u := make([]uint16, len(raw)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		s, _, _ := strings.Cut(string(utf16.Decode(u)), "\x00")
		if !strings.HasPrefix(s, root[e.opcode]) {
			t.Errorf("%s: %s: XML starts %.40q, want %s", e.file, e.name, s, root[e.opcode])
		}
		xml[e.file+"|"+e.name] = s
	}
	if n != 15 {
		t.Errorf("%d WinSat events, want 15", n)
	}
	var keys []string
	for k := range ktcWinSatValues {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s := xml[k]; !strings.Contains(s, ktcWinSatValues[k]) {
			t.Errorf("%s: XML has no %s", k, ktcWinSatValues[k])
		}
	}
}

// ktcWinSatValues are pieces of the decompressed WinSat XML.
var ktcWinSatValues = map[string]string{
	"Kesiya24+final-project/PktMon.etl|WinSat/WinSPR":       "<SystemScore>8</SystemScore><MemoryScore>9.1</MemoryScore>",
	"Kesiya24+final-project/PktMon.etl|WinSat/SystemConfig": "<OSName><![CDATA[Windows 11 Home]]></OSName><BuildLab>26100.ge_release.240331-1435</BuildLab>",
	"Kesiya24+final-project/PktMon.etl|WinSat/Metrics":      `<Bandwidth units="MB/s">20883.11318</Bandwidth>`,
	"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl|WinSat/WinSPR": "<SystemScore>7.4</SystemScore>",
}

// lznt1Decompress expands LZNT1 data (MS-XCA 2.5), the format of the
// WinSat XML (TraceEvent decompresses it with RtlDecompressBuffer), with
// room for more than the expected size so that a longer result shows.
func lznt1Decompress(src []byte, want uint64) ([]byte, error) {
	dst := make([]byte, want+4096)
	n, err := compress.DecompressLZNT1(dst, src)
	return dst[:n], err
}
