package texttable

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The headers the command line prints.
var headers = [][]string{
	{"PID", "Name", "Start", "End", "Events", "CPU samples", "CPU %", "CPU ms", "CPU precise ms", "GC count", "GC pause total ms", "GC pause max ms", "Command line"},
	{"Field", "Value"},
	{"Provider", "GUID", "Events", "Decoded", "Source"},
}

// randomCell returns a cell of printable ASCII, now and then with spaces
// around it, mixed case, digits and the characters tablewriter's header
// formatting treats apart ('_', '.', '%').
func randomCell(r *rand.Rand) string {
	const alphabet = "abcXYZ019 _.%-(){}:/\\,'\"~!"
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
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// tablewriterOut is what tablewriter writes for the table.
func tablewriterOut(t *testing.T, header []string, rows [][]string) string {
	t.Helper()
	var want bytes.Buffer
	if err := render(&want, header, rows); err != nil {
		t.Fatal(err)
	}
	return want.String()
}

func TestLayoutMatchesTablewriter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	laid := 0
	for n := range 3000 {
		var header []string
		if n < len(headers) {
			header = headers[n]
		} else {
			header = make([]string, 1+r.IntN(8))
			for i := range header {
				header[i] = randomCell(r)
			}
		}
		rows := make([][]string, 1+r.IntN(6))
		for i := range rows {
			rows[i] = make([]string, len(header))
			for j := range rows[i] {
				rows[i][j] = randomCell(r)
			}
		}
		got, ok := layout(header, rows)
		if !ok {
			t.Fatalf("table %d: plain ASCII not laid out here:\n%q\n%q", n, header, rows)
		}
		laid++
		if len(got) != cap(got) {
			t.Errorf("table %d: %d bytes in %d made", n, len(got), cap(got))
		}
		if want := tablewriterOut(t, header, rows); string(got) != want {
			t.Fatalf("table %d, header %q, rows %q:\ngot\n%s\nwant\n%s", n, header, rows, got, want)
		}
	}
	t.Logf("%d tables laid out as tablewriter draws them", laid)
}

func TestWriteOthersThroughTablewriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		rows   [][]string
	}{
		{"tab", []string{"A", "B"}, [][]string{{"x\ty", "z"}}},
		{"line break", []string{"A", "B"}, [][]string{{"x\ny", "z"}}},
		{"wide", []string{"Name"}, [][]string{{"進程.exe"}}},
		{"accent", []string{"Name"}, [][]string{{"café.exe"}}},
		{"escape", []string{"Name"}, [][]string{{"\x1b[31mred\x1b[0m"}}},
		{"no rows", []string{"A", "B"}, nil},
		{"short row", []string{"A", "B"}, [][]string{{"x"}}},
	} {
		if _, ok := layout(tc.header, tc.rows); ok {
			t.Errorf("%s: laid out here, not by tablewriter", tc.name)
		}
		var got bytes.Buffer
		if err := Write(&got, tc.header, tc.rows); err != nil {
			t.Fatal(err)
		}
		if want := tablewriterOut(t, tc.header, tc.rows); got.String() != want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got.String(), want)
		}
	}
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
	return headers[0], rows
}

// BenchmarkWrite writes stats' table of net.4.5.2's size here and
// through tablewriter.
func BenchmarkWrite(b *testing.B) {
	header, rows := statsTable()
	for _, bc := range []struct {
		name  string
		write func(io.Writer, []string, [][]string) error
	}{{"texttable", Write}, {"tablewriter", render}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bc.write(io.Discard, header, rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
