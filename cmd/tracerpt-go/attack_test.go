package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// TestAttackDamagedSizes: buffer sizes that run past the end of the file
// or over the next buffers, a file cut at a buffer boundary, data ends and
// a log-file header buffer size that disagree with the other fields,
// repeated buffers are reported on standard error with the offset,
// counted by info, fatal with --strict (exit 5); what the other fields
// support is dumped.
func TestAttackDamagedSizes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events int
		msg    string
	}{
		{"bufsize_past_eof.etl", 27, "offset 0x0: buffer size 0x100000 exceeds the log's buffer size"},
		{"bufsize_swallows_next.etl", 27, "offset 0x10000: buffer size 0x20000 exceeds the log's buffer size"},
		{"trunc_at_buffer_boundary.etl", 1, "2 buffers (131072 bytes) not in the file"},
		{"compressed_bufsize_swallows_next.etl", 1400, "offset 0x62b: compressed buffer size 0x7bae runs over the buffer header at 0x76a7"},
		{"wu-151-silentloss.etl", 82, "offset 0x6000: invalid buffer header: data end 0x48 disagrees with SavedOffset 0xdf0"},
		{"shutdown-253-silentloss.etl", 17078, "offset 0x40000: invalid buffer header: data end 0x48 disagrees with SavedOffset 0xffa0"},
		{"trunc_circular_gc_64k.etl", 2, "4 buffers (262144 bytes) not in the file"},
		{"lf_buffersize_0x49_wu.etl", 82, "offset 0x68: log-file header buffer size 0x49 disagrees with the buffers' own size 0x1000"},
		{"buf0_dataend_0x47_wpp.etl", 17, "offset 0x0: invalid buffer header: data end 0x47 lies inside the buffer header"},
		{"buf2_dataend_0x10001_classic.etl", 27, "offset 0x20000: invalid buffer header: data end 0x10001 exceeds"},
		{"doubled.etl", 27, "offset 0x30000: buffer repeats the one at 0x0 byte for byte"},
	} {
		p := etltest.AttackFile(t, tc.name)
		out, errs, code := runCLI(t, p, "-of", "JSON", "-o", "-", "--no-analysis")
		if code != 0 || !strings.Contains(errs, tc.msg) || strings.Count(out, "\n") != tc.events {
			t.Errorf("%s: exit %d, %d events (want %d), stderr %q", tc.name, code, strings.Count(out, "\n"), tc.events, errs)
		}
		if _, errs, code := runCLI(t, p, "-of", "JSON", "-o", "-", "--no-analysis", "--strict"); code != exitCorrupt {
			t.Errorf("%s --strict: exit %d, stderr %q", tc.name, code, errs)
		}
		_, msg, _ := strings.Cut(tc.msg, ": ") // info shows the offset in a column of its own
		if !strings.HasPrefix(tc.msg, "offset") {
			msg = tc.msg
		}
		if out, _, _ := runCLI(t, "info", p); !strings.Contains(out, msg) {
			t.Errorf("%s: info does not list the error:\n%s", tc.name, out)
		}
	}
}

// TestAttackMessageBombCLI: the dump of es_msgbomb_3c is complete (it
// came out empty with exit 0), in every format and with several workers,
// and the summary counts every event.
func TestAttackMessageBombCLI(t *testing.T) {
	p := etltest.AttackFile(t, "es_msgbomb_3c.etl")
	dir := t.TempDir()
	for _, workers := range []string{"1", "2"} {
		out, errs, code := runCLI(t, p, "-of", "JSON", "-o", "-", "--workers", workers)
		if code != 0 || strings.Count(out, "\n") != 6 || strings.Count(out, "[truncated]") != 3 || len(out) > 4<<20 {
			t.Errorf("workers %s: exit %d, %d lines, %d bytes, stderr %q", workers, code, strings.Count(out, "\n"), len(out), errs)
		}
		sum := filepath.Join(dir, "summary-"+workers+".txt")
		mustRun(t, p, "-of", "XML", "-o", filepath.Join(dir, "d.xml"), "-summary", sum, "-y", "--workers", workers)
		if b, _ := os.ReadFile(sum); !bytes.Contains(b, []byte("Total Events  Processed 6")) && !bytes.Contains(b, []byte("Events Processed        6")) {
			t.Errorf("workers %s: summary:\n%s", workers, b)
		}
	}
}

// writable copies the sample to a temporary folder and returns its path
// and bytes.
func writable(t *testing.T) (string, []byte) {
	t.Helper()
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "in.etl")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, b
}

// TestOutputIsInput: no output path may name an input, under its own name,
// through a symbolic or a hard link, -y or not: exit status 2 and the
// input unchanged.
func TestOutputIsInput(t *testing.T) {
	in, orig := writable(t)
	dir := filepath.Dir(in)
	t.Chdir(dir) // default outputs (dumpfile.xml) land here if a case goes wrong
	sym := filepath.Join(dir, "sym.etl")
	hard := filepath.Join(dir, "hard.etl")
	if err := os.Symlink(in, sym); err != nil {
		t.Skip(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Skip(err)
	}
	jsonl := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"time":"2024-05-01T10:00:00Z","provider_name":"P","event_name":"E","properties":{"A":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, sym, hard} {
		// (The dump refuses any .etl output before it looks at the
		// inputs: either refusal is exit status 2.)
		for _, args := range [][]string{
			{in, "-of", "JSON", "-o=" + out, "-y"},
			{in, "-of", "XML", "--o=" + out},
			{in, "-summary=" + out, "-y"},
			{in, "-o", filepath.Join(dir, "ok.xml"), "--summary=" + out, "-y"},
			{"relog", in, "-o", out, "-y"},
			{"stacks", in, "-o", out, "-y"},
		} {
			_, errs, code := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(errs, "input") && !strings.Contains(errs, ".etl file") {
				t.Errorf("%q: exit %d, stderr %q", args, code, errs)
			}
			if b, _ := os.ReadFile(in); !bytes.Equal(b, orig) {
				t.Fatalf("%q overwrote the input", args)
			}
		}
	}
	if _, errs, code := runCLI(t, "synth", jsonl, "-o", jsonl, "-y"); code != exitUsage {
		t.Errorf("synth onto its input: exit %d, stderr %q", code, errs)
	}
	if _, _, code := runCLI(t, in, "-o", filepath.Join(dir, "ok.xml"), "-y"); code != 0 {
		t.Errorf("a distinct output: exit %d", code)
	}
}

// TestEndAtEpoch: --end at the FILETIME epoch keeps no event (it was
// ignored).
func TestEndAtEpoch(t *testing.T) {
	out, errs, code := runCLI(t, sample, "-of", "JSON", "-o", "-", "--end", "1601-01-01T00:00:00Z", "--no-analysis")
	if code != 0 || out != "" {
		t.Errorf("exit %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
	}
}

// TestWorkersBound: --workers takes 0 (one per CPU) to 256.
func TestWorkersBound(t *testing.T) {
	for _, w := range []string{"10000000", "257", "-1"} {
		if _, errs, code := runCLI(t, sample, "-of", "JSON", "-o", "-", "--workers", w); code != exitUsage || !strings.Contains(errs, "256") {
			t.Errorf("--workers %s: exit %d, stderr %q", w, code, errs)
		}
	}
	if _, errs, code := runCLI(t, sample, "-of", "JSON", "-o", "-", "--workers", "256"); code != 0 {
		t.Errorf("--workers 256: exit %d, stderr %q", code, errs)
	}
}

// TestAttackRelogDoubled: doubled.etl repeats its buffers. Read, each
// repeat is reported and its events given once; a repeat that differs in
// one byte of its fill is read, so a processor's events go back in time:
// relog finishes (it stopped with exit 1 and a partial file), warns, and
// its output reads back with every event.
func TestAttackRelogDoubled(t *testing.T) {
	in := etltest.AttackFile(t, "doubled.etl")
	count := func(p string) (int, int) {
		f, err := etl.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st := f.Scan()
		n := 0
		for h, c := range st.HeaderTypes {
			if h == etl.HeaderClassic32 {
				n += c
			}
		}
		return n, len(st.Errors)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "relogged.etl")
	if _, errs, code := runCLI(t, "relog", in, "-o", out); code != 0 || !strings.Contains(errs, "offset 0x30000: buffer repeats the one at 0x0") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if nIn, _ := count(in); nIn != 26 {
		t.Errorf("%d classic events read from doubled.etl, want each of the 26 once", nIn)
	}
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	b[0x5F000] ^= 1 // the fill of the last repeat
	in = writeFixture(t, "doubled-changed.etl", b)
	_, errs, code := runCLI(t, "relog", in, "-o", out, "-y")
	if code != 0 || !strings.Contains(errs, "started a new buffer") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	nIn, _ := count(in)
	nOut, errsOut := count(out)
	if nOut != nIn || errsOut != 0 {
		t.Errorf("relogged %d classic events of %d, %d errors", nOut, nIn, errsOut)
	}
}

// TestNoPartialOutput: relog and synth that fail leave no file behind
// (not even their temporary one), and an existing output stays as it was.
func TestNoPartialOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.etl")
	// A buffer size that is not a multiple of 1 KiB fails once the
	// output is created.
	if _, _, code := runCLI(t, "relog", sample, "-o", out, "--buffer-size", "1536"); code == 0 {
		t.Fatal("relog into 1.5 KiB buffers succeeded")
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"time":"2024-05-01T10:00:00Z","provider_name":"P","event_name":"E","properties":{"A":1}}`+"\n{oops\n"), 0o644)
	if _, errs, code := runCLI(t, "synth", bad, "-o", out); code != exitMalformed || !strings.Contains(errs, ":2:") && !strings.Contains(errs, "line 2") {
		t.Errorf("synth: exit %d, stderr %q", code, errs)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "bad.jsonl" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	os.WriteFile(out, []byte("keep"), 0o644)
	runCLI(t, "synth", bad, "-o", out, "-y")
	if b, _ := os.ReadFile(out); string(b) != "keep" {
		t.Errorf("a failed synth -y replaced the existing output")
	}
}

// failingWriter takes n bytes, then fails every write.
type failingWriter struct{ n int }

var errFull = syscall.ENOSPC

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= f.n {
		f.n -= len(p)
		return len(p), nil
	}
	k := f.n
	f.n = 0
	return k, errFull
}

// outputCommands are commands that write their results to standard
// output, each with its arguments.
func outputCommands() map[string][]string {
	trace := filepath.Join(fixtureDir, "manifest-types.etl")
	return map[string][]string{
		"info":         {"info", trace},
		"info --json":  {"info", "--json", trace},
		"providers":    {"providers", trace},
		"providers -j": {"providers", "--json", trace},
		"stats":        {"stats", trace},
		"stats --json": {"stats", "--json", trace},
		"schemas":      {"schemas", filepath.Join(fixtureDir, "manifest-types.man")},
		"schemas -j":   {"schemas", "--json", filepath.Join(fixtureDir, "manifest-types.man")},
		"dump":         {trace, "-of", "CSV", "-o", "-"},
		"stacks":       {"stacks", filepath.Join(fixtureDir, "sample.etl")},
	}
}

// TestOutputLost: a command whose standard output cannot be written exits
// 1 with the reason (info, providers and stats exited 0 with their output
// lost), whether the first write fails or a later one.
func TestOutputLost(t *testing.T) {
	for name, args := range outputCommands() {
		var whole bytes.Buffer
		if code := run(args, &whole, &bytes.Buffer{}); code != exitOK || whole.Len() == 0 {
			t.Errorf("%s: exit %d with %d bytes of output", name, code, whole.Len())
			continue
		}
		for _, after := range []int{0, whole.Len() / 2, whole.Len() - 1} {
			var stderr bytes.Buffer
			code := run(args, &failingWriter{n: after}, &stderr)
			if code != exitFailure || !strings.Contains(stderr.String(), errFull.Error()) {
				t.Errorf("%s, write failing after %d of %d bytes: exit %d, %q", name, after, whole.Len(), code, stderr.String())
			}
		}
	}
}

// TestDevFull: the same with standard output on /dev/full.
func TestDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	for name, args := range outputCommands() {
		var stderr bytes.Buffer
		if code := run(args, full, &stderr); code != exitFailure || !strings.Contains(stderr.String(), "no space left") {
			t.Errorf("%s > /dev/full: exit %d, %q", name, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	args := []string{filepath.Join(fixtureDir, "manifest-types.etl"), "-summary", "/dev/full", "-y"}
	if code := run(args, &bytes.Buffer{}, &stderr); code != exitFailure || !strings.Contains(stderr.String(), "no space left") {
		t.Errorf("-summary /dev/full: exit %d, %q", code, stderr.String())
	}
}

// panickingWriter panics on the first write, as a bug in a command would.
type panickingWriter struct{}

func (panickingWriter) Write([]byte) (int, error) { panic("test panic") }

// TestPanicIsInternalError: a panic in a command is an internal error
// that names the input, exit status 1, never the runtime's 2 (which
// means a bad command line).
func TestPanicIsInternalError(t *testing.T) {
	trace := filepath.Join(fixtureDir, "manifest-types.etl")
	for _, args := range [][]string{{"info", trace}, {"stats", trace}, {"schemas", filepath.Join(fixtureDir, "manifest-types.man")}} {
		var stderr bytes.Buffer
		code := run(args, panickingWriter{}, &stderr)
		if code != exitFailure || !strings.Contains(stderr.String(), "internal error while reading "+args[1]) || !strings.Contains(stderr.String(), "test panic") {
			t.Errorf("%q: exit %d, %q", args, code, stderr.String())
		}
	}
}

// TestWorkerPanicIsInternalError: a panic on a library goroutine (here
// the pipeline's writer, which writes a dump bigger than the driver's
// buffer when there are several workers) comes back as an error and is
// the same internal error naming the input, not the runtime's exit 2.
func TestWorkerPanicIsInternalError(t *testing.T) {
	trace := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	var stderr bytes.Buffer
	code := run([]string{trace, "-of", "CSV", "-o", "-", "--workers", "3"}, panickingWriter{}, &stderr)
	msg := stderr.String()
	if code != exitFailure || !strings.Contains(msg, "internal error while reading "+trace+": test panic") {
		t.Errorf("exit %d, %q", code, msg)
	}
}
