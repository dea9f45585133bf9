package pcapng

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// haveTshark reports whether Wireshark's tshark is installed, and says
// in the test's log when it is not: the Wireshark checks are then left
// out and the rest of the test runs.
func haveTshark(t testing.TB) bool {
	t.Helper()
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Log("tshark is not installed (Debian package tshark): the Wireshark checks are skipped")
		return false
	}
	return true
}

// rootNotice is the one line tshark prints on standard error whenever it
// runs as root, whatever it reads; it says nothing about the file.
const rootNotice = `Running as user "root" and group "root". This could be dangerous.`

// runTshark runs tshark (installed: see haveTshark) with args and returns its standard output; the
// test fails on a non-zero exit status or on anything on standard error
// (an error or warning about the file).
func runTshark(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("tshark", args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var other []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" && l != rootNotice {
			other = append(other, l)
		}
	}
	if err != nil || len(other) > 0 {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, strings.Join(other, "\n"))
	}
	return stdout.Bytes()
}

// tsharkClean checks that tshark reads path with no error or warning
// (tshark -r path -q: exit status 0, nothing on standard error). It
// returns false, having said so, when tshark is not installed.
func tsharkClean(t testing.TB, path string) bool {
	t.Helper()
	if !haveTshark(t) {
		return false
	}
	runTshark(t, "-r", path, "-q")
	return true
}

// tsharkFrame is what tshark says about one frame.
type tsharkFrame struct {
	Len, CapLen int
	Raw         []byte
	Interface   string
	Comment     string
}

// tsharkFrames returns every frame of path as tshark reads it (-T json -x).
func tsharkFrames(t testing.TB, path string) []tsharkFrame {
	t.Helper()
	out := runTshark(t, "-r", path, "-T", "json", "-x")
	var pkts []struct {
		Source struct {
			Layers struct {
				FrameRaw []json.RawMessage `json:"frame_raw"`
				Frame    struct {
					Len       string `json:"frame.len"`
					CapLen    string `json:"frame.cap_len"`
					Interface struct {
						Name string `json:"frame.interface_name"`
					} `json:"frame.interface_id_tree"`
				} `json:"frame"`
				Comment struct {
					Comment string `json:"frame.comment"`
				} `json:"pkt_comment"`
			} `json:"layers"`
		} `json:"_source"`
	}
	if err := json.Unmarshal(out, &pkts); err != nil {
		t.Fatalf("tshark JSON: %v", err)
	}
	frames := make([]tsharkFrame, len(pkts))
	for i, p := range pkts {
		l := p.Source.Layers
		f := &frames[i]
		f.Len, _ = strconv.Atoi(l.Frame.Len)
		f.CapLen, _ = strconv.Atoi(l.Frame.CapLen)
		f.Interface, f.Comment = l.Frame.Interface.Name, l.Comment.Comment
		if len(l.FrameRaw) > 0 {
			var h string
			if err := json.Unmarshal(l.FrameRaw[0], &h); err != nil {
				t.Fatalf("frame %d: frame_raw: %v", i+1, err)
			}
			f.Raw, _ = hex.DecodeString(h)
		}
	}
	return frames
}

// tsharkFields returns the values of fields per frame (-T fields, first
// occurrence of each).
func tsharkFields(t testing.TB, path string, fields ...string) [][]string {
	t.Helper()
	args := []string{"-r", path, "-T", "fields", "-E", "occurrence=f", "-E", "separator=\t"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	out := runTshark(t, args...)
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if l == "" && len(out) == 0 {
			break
		}
		rows = append(rows, strings.Split(l, "\t"))
	}
	return rows
}
