package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
)

// cliCase is one command line and what it must answer.
type cliCase struct {
	args   []string
	code   int
	stderr string // a substring of standard error ("" : empty stderr)
}

func checkCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || c.stderr == "" && errs != "" || !strings.Contains(errs, c.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d with %q", c.args, code, errs, c.code, c.stderr)
		}
	}
}

func TestTracerptOptionAliases(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"a.etl", "-tmf", "x.tmf", "-tp", "tmfdir", "-gmt"}, []string{"a.etl", "--import=x.tmf", "--import=tmfdir", "--tz=UTC"}},
		{[]string{"a.etl", "-report", "r.html", "-f", "HTML"}, []string{"a.etl", "--report=r.html", "--report-format=HTML"}},
		{[]string{"-?"}, []string{"--help"}},
	} {
		if got := normalizeArgs(c.in, rootLongs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("normalizeArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTracerptOptions(t *testing.T) {
	t.Chdir(t.TempDir())
	checkCases(t, []cliCase{
		{[]string{"-rt", "NT Kernel Logger"}, exitUsage, "-rt: real-time sessions need Windows; tracerpt-go reads .etl files"},
		{[]string{sample, "-pdb", "srv*"}, exitUsage, "--symbols: "},
		{[]string{sample, "-i", "c:\\bin"}, exitUsage, "-i: image paths"},
		{[]string{sample, "-int", "x.txt"}, exitUsage, "-int:"},
		{[]string{sample, "-df", "x"}, exitUsage, "-df:"},
		{[]string{sample, "-rl", "3"}, exitUsage, "-rl:"},
		{[]string{sample, "-export", "x.man"}, exitUsage, "tracerpt-go schemas FILE --export DIR"},
		{[]string{sample, "-config", "c.txt"}, exitUsage, "-config is not supported"},
		{[]string{sample, "-of", "EVTX"}, exitUsage, "not supported"},
		{[]string{sample, "-f", "HTML"}, exitUsage, "add -report"},
		{[]string{sample, "-report", "r.html", "-f", "XML"}, exitUsage, "-f XML: the report is HTML"},
		{[]string{sample, "-report", "r.html", "-f", "HTML", "--quiet"}, exitOK, ""},
		{[]string{sample, "-gmt", "-o", "g.xml", "--quiet"}, exitOK, ""},
		{[]string{sample, "-tmf", "no-such.tmf", "-o", "t.xml"}, exitInput, "no-such.tmf"},
	})
	if _, err := os.Stat("r.html"); err != nil {
		t.Errorf("-report r.html -f HTML: %v", err)
	}
	if out, _, code := runCLI(t, "-?"); code != 0 || !strings.Contains(out, "Usage") {
		t.Errorf("-?: exit %d, %q", code, out)
	} else {
		for _, opt := range []string{"--event-name", "--process", "--report-format"} {
			if !strings.Contains(out, opt) {
				t.Errorf("--help does not mention %s", opt)
			}
		}
	}
}

func TestNotETLInputsNamed(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pad := strings.Repeat("\x00", 200)
	checkCases(t, []cliCase{
		{[]string{write("System.evtx", "ElfFile\x00"+pad)}, exitInput, "this is an EVTX file"},
		{[]string{write("t.zip", "PK\x03\x04"+pad)}, exitInput, "this is a zip archive"},
		{[]string{write("t.etl.gz", "\x1f\x8b\x08"+pad)}, exitInput, "this is a gzip file"},
		{[]string{write("t.7z", "7z\xbc\xaf\x27\x1c"+pad)}, exitInput, "this is a 7z archive"},
		{[]string{write("c.pcapng", "\x0a\x0d\x0d\x0a"+pad)}, exitInput, "this is a pcapng packet capture"},
		{[]string{write("notes.etl", "these are my notes\n")}, exitInput, "this is a text file"},
		{[]string{"info", write("s.evtx", "ElfFile\x00"+pad)}, exitInput, "this is an EVTX file"},
	})
}

func TestInapplicableFlagsReported(t *testing.T) {
	t.Chdir(t.TempDir())
	checkCases(t, []cliCase{
		{[]string{sample, "--raw", "-o", "a.xml", "--quiet"}, exitOK, "--raw adds user_data to JSON and Parquet; -of XML has no such field"},
		{[]string{sample, "-rts", "-of", "CSV", "-o", "a.csv", "--quiet"}, exitOK, "-rts adds RawTime to the XML dump; -of CSV"},
		{[]string{sample, "-en", "Unicode", "-of", "JSON", "-o", "a.json", "--quiet"}, exitOK, "-en sets the CSV encoding; -of JSON"},
		{[]string{sample, "-summary", "s.txt", "-of", "JSON", "--quiet"}, exitOK, "-summary without -o writes only the summary"},
		{[]string{sample, "-o", "a.xml", "-o", "b.xml"}, exitUsage, "-o given 2 times (a.xml, b.xml)"},
		{[]string{sample, "--start", "+1s", "--end", "+0s"}, exitUsage, "--start +1s is not before --end +0s"},
		{[]string{sample, "-o", "out.json", "--quiet"}, exitOK, ""},
		{[]string{sample, "-o", "out.txt", "--quiet"}, exitOK, "-o out.txt: .txt names no dump format; writing XML"},
		{[]string{sample, "-of", "CSV", "-o", "x.json", "--quiet"}, exitOK, "-o x.json: writing CSV as -of says, not JSON"},
		{[]string{sample, "-summary", "-", "-o", "-"}, exitUsage, "cannot both go to standard output"},
	})
	for name, prefix := range map[string]string{"out.json": "{", "out.txt": "<"} {
		b, err := os.ReadFile(name)
		if err != nil || !strings.HasPrefix(string(b), prefix) {
			t.Errorf("%s: %v, starts %.20q; want %q", name, err, b, prefix)
		}
	}
	for ext, magic := range map[string]string{".csv": "  Event Name", ".parquet": "PAR1"} {
		mustRun(t, sample, "-o", "inferred"+ext, "--quiet")
		if b, _ := os.ReadFile("inferred" + ext); !strings.HasPrefix(string(b), magic) {
			t.Errorf("-o inferred%s: starts %.20q, want %q", ext, b, magic)
		}
	}
	out, errs, code := runCLI(t, sample, "-summary", "-", "--quiet")
	if code != 0 || errs != "" || !strings.Contains(out, "Files Processed") {
		t.Errorf("-summary -: exit %d, stderr %q, stdout %.200q", code, errs, out)
	}
}

func TestFiltersThatMatchNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	none := func(args ...string) []string {
		return append([]string{sample, "-of", "JSON", "-o", "-", "--quiet"}, args...)
	}
	checkCases(t, []cliCase{
		{none("--provider", "etwkit-shp"), exitOK, "no provider named etwkit-shp in this trace; known: MSNT_SystemTrace, etwkit-shop, {"},
		{none("--provider", "{11111111-2222-3333-4444-555555555555}"), exitOK, "no provider {11111111-2222-3333-4444-555555555555} in this trace"},
		{none("--provider", "My-Unknown-Provider"), exitOK, "(no schema: filter by GUID or -import its manifest)"},
		{none("--event-id", "999"), exitOK, "no event matched the filters"},
		{none("--event-name", "etwkit-shop/NoSuchEvent"), exitOK, "no event matched the filters"},
		{none("--process", "calc.exe"), exitOK, "no process named calc.exe in this trace; known: notepad.exe"},
		{none("--provider", "etwkit-shop"), exitOK, ""},
		{none("--level", "warn"), exitOK, ""},
		{none("--event-name", "bad/"), exitUsage, "--event-name"},
		{[]string{sample, "--process", "calc", "-o", "p.xml", "--quiet"}, exitOK, "no process named calc"},
	})
	if b, err := os.ReadFile("p.xml"); err != nil || strings.Contains(string(b), "<Event ") {
		t.Errorf("--process with no match: %v, %q", err, b)
	}
	if _, errs, _ := runCLI(t, none("--process", "calc")...); strings.Count(errs, "\n") != 1 {
		t.Errorf("--process with no match: stderr %q, want one line", errs)
	}
	count := func(args ...string) int {
		t.Helper()
		out, errs, code := runCLI(t, none(args...)...)
		if code != 0 || errs != "" {
			t.Fatalf("%q: exit %d, %s", args, code, errs)
		}
		return strings.Count(out, "\n")
	}
	if w, n := count("--level", "warn"), count("--level", "warning"); w != n || w == 0 {
		t.Errorf("--level warn: %d events, --level warning: %d", w, n)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--event-name", "etwkit-shop/Checkout"}, 1},
		{[]string{"--event-name", "MSNT_SystemTrace/Process/Start"}, 1},
		{[]string{"--event-name", "Checkout,EventTrace"}, 3},
		// 8 events whose header names notepad.exe's process, and the CPU
		// sample the analysis attributes it (the JSON's pid: 836)
		{[]string{"--process", "notepad.exe"}, 9},
		{[]string{"--process", "NOTEPAD"}, 9},
	} {
		if n := count(c.args...); n != c.want {
			t.Errorf("%q: %d events, want %d", c.args, n, c.want)
		}
	}
}

func TestInfoLongPathAndTimeZone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("a-very-long-directory-name-", 4))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sample.etl")
	os.WriteFile(p, b, 0o644)
	out, errs, code := runCLI(t, "info", p)
	if code != 0 || errs != "" {
		t.Fatalf("info: exit %d, %s", code, errs)
	}
	if !strings.HasPrefix(out, "File: "+p+"\n") {
		t.Errorf("info does not name the file above the table:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n")[1:] {
		if len([]rune(line)) >= len(p) {
			t.Errorf("a table line as long as the path (%d): %q", len(p), line)
		}
	}
	if !strings.Contains(out, "Eastern Standard Time (bias 300 min, UTC-05:00)") {
		t.Errorf("info time zone:\n%s", out)
	}
	for _, c := range []struct {
		name string
		bias int32
		want string
	}{
		{"@tzres.dll,-212", 480, "Pacific Standard Time (bias 480 min, UTC-08:00)"},
		{"@tzres.dll,-112", 300, "Eastern Standard Time (bias 300 min, UTC-05:00)"},
		{"@tzres.dll,-492", -330, "India Standard Time (bias -330 min, UTC+05:30)"},
		{"@tzres.dll,-352", -120, "bias -120 min, UTC+02:00"}, // not in the table
		{"@tzres.dll,-212", 0, "bias 0 min, UTC+00:00"},       // the bias disagrees
		{"Pacific Standard Time", 480, "Pacific Standard Time (bias 480 min, UTC-08:00)"},
		{"", 0, "bias 0 min, UTC+00:00"},
	} {
		if got := timeZoneText(etl.TimeZone{StandardName: c.name, Bias: c.bias}); got != c.want {
			t.Errorf("timeZoneText(%q, %d) = %q, want %q", c.name, c.bias, got, c.want)
		}
	}
}

// TestCorpusTimeZoneName: info --json and the report name the zone as
// Windows shows it, not by its tzres.dll reference.
func TestCorpusTimeZoneName(t *testing.T) {
	in := etltest.CorpusFile(t, "microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl")
	var fi fileInfo
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", in)), &fi); err != nil {
		t.Fatal(err)
	}
	if fi.TimeZoneName != "Pacific Standard Time" {
		t.Errorf("info --json: time_zone_name %q", fi.TimeZoneName)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	mustRun(t, "report", "--json", in, "-o", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"time_zone_name":"Pacific Standard Time"`)) || bytes.Contains(b, []byte("@tzres")) {
		t.Errorf("report --json does not name the zone Pacific Standard Time")
	}
}

// shellWords splits a command line as sh does for the README's simple
// quoting: words, '…' and "…".
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// readmeRecipes returns the command lines of the README's Recipes section.
func readmeRecipes(t *testing.T) []string {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(b), "\n## Recipes\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	var lines []string
	inBlock := false
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			inBlock = !inBlock
		case inBlock && strings.TrimSpace(l) != "":
			if i := strings.Index(l, "  # "); i >= 0 {
				l = l[:i]
			}
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return lines
}

func TestReadmeRecipes(t *testing.T) {
	lines := readmeRecipes(t)
	if len(lines) < 10 {
		t.Fatalf("README recipes: %d command lines", len(lines))
	}
	dir := t.TempDir()
	t.Chdir(dir)
	b, _ := os.ReadFile(sample)
	for _, name := range []string{"trace.etl", "before.etl", "after.etl"} { // after.etl, before.etl: the comparison's
		os.WriteFile(name, b, 0o644)
	}
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			var out string
			rest := line
			if strings.HasPrefix(line, "tracerpt-go ") {
				cmdPart, pipe, _ := strings.Cut(line, " | ")
				stdout, errs, code := runCLI(t, shellWords(cmdPart)[1:]...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				out, rest = stdout, pipe
			}
			if rest == "" {
				return
			}
			tool := shellWords(rest)[0]
			if _, err := exec.LookPath(tool); err != nil {
				if tool == "duckdb" {
					readmeDuckDB(t, rest, dir)
					return
				}
				t.Skipf("%s is not installed: not run", tool)
			}
			c := exec.Command("sh", "-c", rest)
			c.Stdin = strings.NewReader(out)
			got, err := c.CombinedOutput()
			if err != nil || len(got) == 0 && strings.Contains(line, "jq") {
				t.Errorf("%s: %v, output %q", rest, err, got)
			}
		})
	}
	// The completion script the Install section names.
	if out, _, code := runCLI(t, "completion", "bash"); code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d, %.100q", code, out)
	}
}

// parquetName is a quoted Parquet file name in a recipe's SQL.
var parquetName = regexp.MustCompile(`'([^'/][^']*\.parquet)'`)

// readmeDuckDB runs a README recipe's `duckdb -c "SQL"` with the DuckDB
// engine of the npm package the other DuckDB checks use (the duckdb
// command is rarely installed; the engine is the same): its relative
// file names are made absolute in dir, where the recipes ran. The query
// must succeed and return rows.
func readmeDuckDB(t *testing.T, line, dir string) {
	w := shellWords(line)
	if len(w) != 3 || w[1] != "-c" {
		t.Fatalf("a duckdb recipe is `duckdb -c \"SQL\"`: %q", line)
	}
	sql := parquetName.ReplaceAllStringFunc(w[2], func(m string) string {
		return sqlString(filepath.Join(dir, strings.Trim(m, "'")))
	})
	res := duckDB(t)([]string{sql})
	var rows []map[string]any
	if err := json.Unmarshal(res[0], &rows); err != nil {
		t.Fatalf("%s: %s", sql, res[0])
	}
	if len(rows) == 0 {
		t.Errorf("%s: no rows", sql)
	}
}

// TestDumpRefusesETLOutput: an .etl name after the dump's -o or -summary
// is a usage error that points at relog; it is never read as another
// input, and no default output (dumpfile.*, summary.txt) appears.
func TestDumpRefusesETLOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	existing := filepath.Join(dir, "out.etl")
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(existing, b, 0o644); err != nil {
		t.Fatal(err)
	}
	checkCases(t, []cliCase{
		{[]string{sample, "-of", "JSON", "-o", "new.etl"}, exitUsage, "relog"},
		{[]string{sample, "-of", "JSON", "-o", existing, "-y"}, exitUsage, "relog"},
		{[]string{sample, "-o=x.ETL"}, exitUsage, "relog"},
		{[]string{sample, "-summary", "x.etl"}, exitUsage, "relog"},
	})
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 1 || left[0] != existing {
		t.Errorf("files left: %v", left)
	}
	if after, _ := os.ReadFile(existing); !bytes.Equal(after, b) {
		t.Error("out.etl was changed")
	}
}

// TestReadmeUse runs the README "Use" section's go run command lines on
// the files they name (the bundled fixtures), from the repository root:
// every one must succeed, except the Windows binary that stands for one
// of the reader's. Lines in backquotes count too.
func TestReadmeUse(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, use, _ := strings.Cut(string(b), "\n## Use\n")
	use, _, _ = strings.Cut(use, "\n## ")
	out := t.TempDir()
	t.Chdir("../..")
	n := 0
	for _, l := range strings.Split(use, "\n") {
		l = strings.Trim(l, "` ")
		line, _, _ := strings.Cut(l, "`")
		if !strings.HasPrefix(line, "go run ./cmd/tracerpt-go ") {
			continue
		}
		line, _, _ = strings.Cut(line, "  # ")
		words := shellWords(strings.TrimPrefix(line, "go run ./cmd/tracerpt-go "))
		if strings.Contains(line, "C:/Windows") {
			continue
		}
		for i, w := range words {
			if i > 0 && words[i-1] == "-o" && w != "-" || i > 0 && words[i-1] == "--export" {
				words[i] = filepath.Join(out, filepath.Base(w))
			}
		}
		n++
		if _, errs, code := runCLI(t, words...); code != 0 {
			t.Errorf("%s: exit %d: %s", line, code, errs)
		}
	}
	if n < 6 {
		t.Errorf("README Use: %d command lines run", n)
	}
}

// TestInfoLikeTheOthers: info expands quoted globs as the other commands
// do, prints each damaged buffer with -v, and --strict ends with exit
// status 5 on a damaged file (0 on a clean one).
func TestInfoLikeTheOthers(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.etl", "b.etl"} {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := mustRun(t, "info", "--json", "--strict", filepath.Join(dir, "*.etl"))
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("info of a glob matching two files: %d objects", n)
	}
	checkCases(t, []cliCase{{[]string{"info", filepath.Join(dir, "none*.etl")}, exitInput, "no file matches"}})
	damaged := etltest.AttackFile(t, "doubled.etl")
	_, errs, code := runCLI(t, "info", "--strict", "-v", damaged)
	if code != exitCorrupt || strings.Count(errs, "warning: "+damaged+": offset 0x") != 3 {
		t.Errorf("info --strict -v of doubled.etl: exit %d, stderr %q", code, errs)
	}
}
