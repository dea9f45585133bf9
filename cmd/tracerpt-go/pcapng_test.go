package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/capfixture"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pcapng"
)

// readPcapng reads a pcapng file back with package pcapng's strict
// reader.
func readPcapng(t *testing.T, b []byte) ([]pcapng.Packet, []pcapng.Interface) {
	t.Helper()
	r := pcapng.NewReader(bytes.NewReader(b))
	var out []pcapng.Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			return out, r.Interfaces()
		}
		if err != nil {
			t.Fatalf("the output does not read back: %v", err)
		}
		q := *p
		q.Data = append([]byte(nil), p.Data...)
		out = append(out, q)
	}
}

// tsharkReads checks, when tshark is installed, that it reads path with
// no error or warning and sees n packets.
func tsharkReads(t *testing.T, path string, n int) {
	t.Helper()
	ts, err := exec.LookPath("tshark")
	if err != nil {
		t.Log("tshark is not installed (Debian package tshark): the Wireshark check is skipped")
		return
	}
	for _, args := range [][]string{{"-r", path, "-q"}, {"-r", path, "-T", "fields", "-e", "frame.number"}} {
		cmd := exec.Command(ts, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		errText := strings.TrimSpace(strings.ReplaceAll(stderr.String(), `Running as user "root" and group "root". This could be dangerous.`, ""))
		if err != nil || errText != "" {
			t.Fatalf("tshark %q: %v: %s", args, err, errText)
		}
		if len(args) > 3 {
			if got := strings.Count(stdout.String(), "\n"); got != n {
				t.Errorf("tshark reads %d packets, want %d", got, n)
			}
		}
	}
}

func writeFixture(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tracerpt-go pcapng converts an NDIS capture (written by the session
// emulator) to the packets it holds, with nothing imported, and warns
// about what it could not write.
func TestPcapngNDIS(t *testing.T) {
	fx, err := capfixture.NDIS(false)
	if err != nil {
		t.Fatal(err)
	}
	in := writeFixture(t, "ndiscap.etl", fx.ETL)
	out := filepath.Join(t.TempDir(), "out.pcapng")
	_, errs, code := runCLI(t, "pcapng", in, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"warning: 4 NDIS packets whose fragments did not all arrive left out", "warning: 1 PktMon packets of a type with no pcapng link type"} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	pkts, ifaces := readPcapng(t, b)
	if len(pkts) != len(fx.Packets) {
		t.Fatalf("%d packets, want %d", len(pkts), len(fx.Packets))
	}
	for i, p := range pkts {
		w := fx.Packets[i]
		if !bytes.Equal(p.Data, w.Data) || p.OriginalLength != w.Original || ifaces[p.Interface].Name != w.Interface || p.Comment != w.Comment {
			t.Errorf("packet %d (%s): %+v on %s", i, w.What, p, ifaces[p.Interface].Name)
		}
	}
	tsharkReads(t, out, len(fx.Packets))

	// -o - writes to standard output (not a terminal here); -v says what
	// was written.
	stdout, errs, code := runCLI(t, "pcapng", in, "-o", "-", "-v")
	if code != 0 || !bytes.Equal([]byte(stdout), b) || !strings.Contains(errs, "12 packets (2 PktMon, 0 of them drops; 10 NDIS) on 7 interfaces to standard output") {
		t.Errorf("-o -: exit %d, %d bytes (file %d), stderr %s", code, len(stdout), len(b), errs)
	}
}

// The packet options are pktmon's: no drops by default, --drop-only,
// --component-id (repeatable or a list), plus --include-drops.
func TestPcapngOptions(t *testing.T) {
	fx, err := capfixture.NDIS(false)
	if err != nil {
		t.Fatal(err)
	}
	in := writeFixture(t, "ndiscap.etl", fx.ETL)
	count := func(args ...string) int {
		t.Helper()
		stdout, errs, code := runCLI(t, append([]string{"pcapng", in, "-o", "-"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		pkts, _ := readPcapng(t, []byte(stdout))
		return len(pkts)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, 12},
		{[]string{"--drop-only"}, 2},
		{[]string{"--include-drops"}, 14},
		{[]string{"--component-id", "101"}, 1},
		{[]string{"--component-id", "101", "--include-drops"}, 3},
		{[]string{"--component-id", "7,101"}, 2},
		{[]string{"--component-id", "7", "--component-id", "101"}, 2},
		{[]string{"--component-id", "0x65", "--drop-only"}, 2},
		{[]string{"--component-id", "9"}, 0},
	} {
		if got := count(c.args...); got != c.want {
			t.Errorf("%q: %d packets, want %d", c.args, got, c.want)
		}
	}
	if _, errs, _ := runCLI(t, "pcapng", in, "-o", "-", "--component-id", "9"); !strings.Contains(errs, "no packets written: the options leave out all") {
		t.Errorf("no warning when the options leave out everything: %s", errs)
	}
}

func TestPcapngErrors(t *testing.T) {
	fx, err := capfixture.NDIS(false)
	if err != nil {
		t.Fatal(err)
	}
	in := writeFixture(t, "ndiscap.etl", fx.ETL)
	existing := writeFixture(t, "existing.pcapng", []byte("keep"))
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"pcapng", in}, exitUsage, "needs -o"},
		{[]string{"pcapng"}, exitUsage, "no input file"},
		{[]string{"pcapng", in, "-o", "-", "--drop-only", "--include-drops"}, exitUsage, "cannot be used together"},
		{[]string{"pcapng", in, "-o", "-", "--component-id", "70000"}, exitUsage, "not a component id"},
		{[]string{"pcapng", in, "-o", "-", "--bogus"}, exitUsage, "unknown flag"},
		{[]string{"pcapng", in, "-o", existing}, exitExists, "already exists"},
		{[]string{"pcapng", in, "-o=" + in, "-y"}, exitUsage, "refusing to write over an input"},
		{[]string{"pcapng", filepath.Join(t.TempDir(), "missing.etl"), "-o", "-"}, exitInput, "missing.etl"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep" {
		t.Error("an existing output was overwritten without -y")
	}
	if b, _ := os.ReadFile(in); !bytes.Equal(b, fx.ETL) {
		t.Error("the input was written over")
	}
	// With -y the existing file is replaced.
	if _, errs, code := runCLI(t, "pcapng", in, "-o", existing, "-y"); code != 0 {
		t.Errorf("-y: exit %d: %s", code, errs)
	}
}

// A damaged buffer is a warning naming the file and offset; the packets
// of the other buffers are written. With --strict it is exit status 5 and
// no output file is left.
func TestPcapngDamaged(t *testing.T) {
	b, err := capfixture.Stream(300, 100)
	if err != nil {
		t.Fatal(err)
	}
	f, err := etl.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	victim := f.Buffers()[len(f.Buffers())/2]
	binary.LittleEndian.PutUint16(b[victim.FileOffset+72:], 0xFFF8) // first record's size past the buffer
	in := writeFixture(t, "damaged.etl", b)
	out := filepath.Join(t.TempDir(), "out.pcapng")
	_, errs, code := runCLI(t, "pcapng", in, "-o", out)
	if code != 0 || !strings.Contains(errs, "warning: ") || !strings.Contains(errs, "damaged.etl") || !strings.Contains(errs, "offset 0x") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	data, _ := os.ReadFile(out)
	pkts, _ := readPcapng(t, data)
	if len(pkts) == 0 || len(pkts) >= 300 {
		t.Errorf("%d packets of 300 written", len(pkts))
	}
	tsharkReads(t, out, len(pkts))
	os.Remove(out)
	if _, errs, code := runCLI(t, "pcapng", in, "-o", out, "--strict"); code != exitCorrupt || !strings.Contains(errs, "damaged") {
		t.Errorf("--strict: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--strict left a partial output")
	}
	// The output is written under a temporary name: an existing file is
	// replaced only when the conversion succeeds, and a failed one leaves
	// nothing behind.
	if err := os.WriteFile(out, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := runCLI(t, "pcapng", in, "-o", out, "--strict", "-y"); code != exitCorrupt {
		t.Errorf("--strict -y: exit %d, stderr %q", code, errs)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Errorf("a failed conversion changed the existing output: %.40q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// Every PktMon capture of the corpus converts with each option to the
// number of packet events pktmon exports, and tshark reads the files.
func TestCorpusPcapng(t *testing.T) {
	dir := etltest.CorpusDir(t)
	for _, c := range []struct {
		path                    string
		flows, drops, component int
		componentID             string
	}{
		{"Kesiya24+final-project/PktMon.etl", 0, 0, 0, "7"},
		{"NeoChenjf+Finguard/PktMon.etl", 378, 28, 38, "12"},
		{"nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012/PktMon.etl", 3646, 0, 291, "79"},
	} {
		in := filepath.Join(dir, c.path)
		if _, err := os.Stat(in); err != nil {
			t.Fatalf("corpus file missing: %v", err)
		}
		for _, o := range []struct {
			args []string
			want int
		}{
			{nil, c.flows},
			{[]string{"--drop-only"}, c.drops},
			{[]string{"--include-drops"}, c.flows + c.drops},
			{[]string{"--component-id", c.componentID}, c.component},
		} {
			out := filepath.Join(t.TempDir(), "out.pcapng")
			_, errs, code := runCLI(t, append([]string{"pcapng", in, "-o", out}, o.args...)...)
			if code != 0 {
				t.Fatalf("%s %q: exit %d: %s", c.path, o.args, code, errs)
			}
			if o.want > 0 && errs != "" {
				t.Errorf("%s %q: stderr %s", c.path, o.args, errs)
			}
			b, _ := os.ReadFile(out)
			pkts, _ := readPcapng(t, b)
			if len(pkts) != o.want {
				t.Errorf("%s %q: %d packets, want %d", c.path, o.args, len(pkts), o.want)
			}
			tsharkReads(t, out, o.want)
		}
	}
}
