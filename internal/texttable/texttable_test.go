package texttable

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// The tables of the command line, with the bytes tablewriter v1.1.5 drew
// for them (testdata/*.txt, written by it before it was left out).
var drawn = []struct {
	name   string
	header []string
	rows   [][]string
}{
	{"stats", []string{"PID", "Name", "Start", "End", "Events", "CPU samples", "CPU  %", "CPU ms", "CPU precise ms", "GC count", "GC pause total ms", "GC pause max ms", "Command line"},
		[][]string{{"4", "System", "", "", "1204", "35", "0.4", "35.000", "12.250", "", "", "", ""},
			{"5128", "Test.x64.exe", "+0.512s", "+3.876s", "80211", "2101", "27.3", "2101.000", "2087.125", "12", "21.330", "4.125", `"C:\Test\Test.x64.exe" --iterations 50`}}},
	{"info", []string{"Field", "Value"}, [][]string{{"File", "net.etl"}, {"Buffers", "359"}}},
	{"providers", []string{"Provider", "GUID", "Events", "Decoded", "Source"},
		[][]string{{"Microsoft-Windows-DotNETRuntime", "{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}", "71412", "71412", "built-in"}}},
	{"empty", []string{"A", "B"}, nil},
	{"short", []string{"A", "B"}, [][]string{{"x"}}},
	{"accent", []string{"Name"}, [][]string{{"café.exe"}, {"進程.exe"}}},
}

func TestAsTablewriterDrew(t *testing.T) {
	for _, tc := range drawn {
		want, err := os.ReadFile(filepath.Join("testdata", tc.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := Write(&got, tc.header, tc.rows); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got.String(), want)
		}
	}
}

func TestEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\tb", `a\tb`},
		{"x\ny\r\n", `x\ny`}, // trimmed first, as every cell
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"\x07bell\x7f", `\abell\x7f`},
		{"cod\u202Eexe.txt", `cod\u202eexe.txt`},
		{"svc\u200Bhost.exe", `svc\u200bhost.exe`},
		{"x\u0085next", `x\u0085next`},
		{"bad\xffbyte\xc3", `bad\xffbyte\xc3`},
		{"café 進程 \ufffd", "café 進程 \ufffd"},
	} {
		if got := shown(tc.in).text; got != tc.want {
			t.Errorf("%q: shown as %q, want %q", tc.in, got, tc.want)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, []string{"Name", "Command line"}, [][]string{{"a\nb", "\x1b]0;title\x07x\ty"}}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 5 {
		t.Errorf("%d lines, want 5 (a row is one line):\n%s", n, b.String())
	}
	if strings.ContainsAny(b.String(), "\x1b\x07\t") {
		t.Errorf("controls written raw: %q", b.String())
	}
}

func TestWidths(t *testing.T) {
	var b bytes.Buffer
	rows := [][]string{{"進程.exe", "1"}, {"e\u0301t\u00e9", "2"}, {"🙂 ok", "3"}, {"plain", "4"}, {"tab\there", "5"}}
	if err := Write(&b, []string{"Name", "N"}, rows); err != nil {
		t.Fatal(err)
	}
	const want = `┌───────────┬───┐
│   NAME    │ N │
├───────────┼───┤
│ 進程.exe  │ 1 │
│ été       │ 2 │
│ 🙂 ok     │ 3 │
│ plain     │ 4 │
│ tab\there │ 5 │
└───────────┴───┘
`
	if got := strings.ReplaceAll(b.String(), "e\u0301", "é"); got != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// randomCell returns a cell of printable ASCII, now and then with spaces
// around it or long, or with a character outside ASCII, a wide one or a
// control.
func randomCell(r *rand.Rand) string {
	const alphabet = "abcXYZ019 _.%-(){}:/\\,'\"~!"
	others := []string{"é", "進", "🙂", "\t", "\n", "\x1b", "\u202e", "\xff", "e\u0301"}
	n := r.IntN(12)
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return "   "
	}
	if r.IntN(8) == 0 {
		n = 40 + r.IntN(600)
	}
	var b strings.Builder
	for range n {
		if r.IntN(20) == 0 {
			b.WriteString(others[r.IntN(len(others))])
		} else {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
	}
	return b.String()
}

// TestRandomTables checks the shape of random tables (checkShape).
func TestRandomTables(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		header := make([]string, 1+r.IntN(8))
		for i := range header {
			header[i] = randomCell(r)
		}
		rows := make([][]string, r.IntN(6))
		for i := range rows {
			rows[i] = make([]string, len(header))
			for j := range rows[i] {
				rows[i][j] = randomCell(r)
			}
		}
		checkShape(t, header, rows)
	}
}

// checkShape lays out the table and checks its shape: every line as wide
// as the top rule, one line a row, each cell's text in its row, the
// bytes made exactly.
func checkShape(t *testing.T, header []string, rows [][]string) {
	t.Helper()
	got := layout(header, rows)
	if len(got) != cap(got) {
		t.Errorf("%q %q: %d bytes in %d made", header, rows, len(got), cap(got))
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	want := 4 + len(rows)
	if len(rows) == 0 {
		want = 3
	}
	if len(lines) != want {
		t.Fatalf("%q %q: %d lines, want %d:\n%s", header, rows, len(lines), want, got)
	}
	w := uniseg.StringWidth(lines[0])
	for i, l := range lines {
		if lw := uniseg.StringWidth(l); lw != w {
			t.Fatalf("%q %q: line %d is %d columns wide, the top rule %d:\n%s", header, rows, i, lw, w, got)
		}
	}
	for i, row := range rows {
		for j, c := range row {
			if s := shown(c).text; j < len(header) && !strings.Contains(lines[3+i], s) {
				t.Fatalf("%q %q: row %d lacks %q:\n%s", header, rows, i, s, lines[3+i])
			}
		}
	}
}

// FuzzWrite lays out tables of two columns and two rows from any strings
// (a trace's process names and command lines are anyone's bytes).
func FuzzWrite(f *testing.F) {
	f.Add("Name", "Command line", "a\tb", "\x1b[31m", "進程.exe", "e\u0301\xff")
	f.Fuzz(func(t *testing.T, h1, h2, a, b, c, d string) {
		checkShape(t, []string{h1, h2}, [][]string{{a, b}, {c, d}})
	})
}

// countingWriter counts the calls to Write.
type countingWriter struct {
	bytes.Buffer
	calls int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.calls++
	return c.Buffer.Write(p)
}

func TestWriteOneCall(t *testing.T) {
	rows := [][]string{{"1", "a"}, {"2", "b"}, {"3", "c"}}
	for _, rows := range [][][]string{rows, {{"1", "é"}}} {
		var w countingWriter
		if err := Write(&w, []string{"N", "V"}, rows); err != nil {
			t.Fatal(err)
		}
		if w.calls != 1 {
			t.Errorf("%q: %d writes, want 1", rows, w.calls)
		}
	}
}

// statsTable is a table like stats' of net.4.5.2: 38 rows of 13
// columns, numbers, short names and a long command line.
func statsTable() ([]string, [][]string) {
	rows := make([][]string, 38)
	for i := range rows {
		n := strconv.Itoa(i * 97)
		rows[i] = []string{n, "process" + n + ".exe", "+0.123s", "+9.876s", n + "1", n + "2", "1.5", n + ".000", "12.500", "3", "4.125", "1.250",
			`"C:\\Program Files\\Some Vendor\\process` + n + `.exe" --flag=value --another-flag "C:\\Users\\someone\\AppData\\Local\\Temp\\file.txt"`}
	}
	return drawn[0].header, rows
}

// BenchmarkWrite writes stats' table of net.4.5.2's size.
func BenchmarkWrite(b *testing.B) {
	header, rows := statsTable()
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, header, rows); err != nil {
			b.Fatal(err)
		}
	}
}
