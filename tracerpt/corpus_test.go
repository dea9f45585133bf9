package tracerpt_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tracerpt"
	"github.com/etwkit/etw/tracerpt/tracerpttest"
)

func corpus(t testing.TB) string {
	dir := os.Getenv("ETL_CORPUS")
	if dir == "" {
		t.Skip("ETL_CORPUS is not set: no real .etl corpus to test against")
	}
	return dir
}

func open(t testing.TB, paths ...string) []*etl.File {
	var files []*etl.File
	for _, p := range paths {
		f, err := etl.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files = append(files, f)
	}
	return files
}

// dump runs the pipeline and returns what it wrote.
func dump(t testing.TB, files []*etl.File, dec *decode.Decoder, f tracerpt.Format, o *tracerpt.Options, workers int) []byte {
	var out bytes.Buffer
	_, err := tracerpt.Run(context.Background(), &tracerpt.Config{
		Files: files, Decoder: dec, Encoder: tracerpt.NewEncoder(f, files, o), Output: &out, Workers: workers,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func enCA(t testing.TB) *tracerpt.Options {
	c, _, err := tracerpt.ParseCulture("en-CA")
	if err != nil {
		t.Fatal(err)
	}
	return &tracerpt.Options{Zone: time.FixedZone("-05:00", -5*3600), Culture: c}
}

// splitEvents cuts an XML dump into its <Event> elements.
func splitEvents(b []byte) []string {
	s := strings.TrimSuffix(strings.TrimPrefix(string(b), "<Events>\n"), "</Events>\n")
	parts := strings.SplitAfter(s, "</Event>\n")
	return parts[:len(parts)-1]
}

// TestCorpusMytrace renders mytrace.etl as tracerpt did on a Windows 10
// machine in en-CA at UTC-05:00 and compares with its XML and CSV dumps
// byte for byte. The two EventTrace header events need the kernel MOF
// schemas; the test supplies stand-ins when the decoder has none yet
// (internal/kerneltest), and also checks what the plain decoder gives.
func TestCorpusMytrace(t *testing.T) {
	dir := filepath.Join(corpus(t), "Marissa1999+Tracing-Application")
	files := open(t, filepath.Join(dir, "mytrace.etl"))
	wantXML, err := os.ReadFile(filepath.Join(dir, "mytrace.xml"))
	if err != nil {
		t.Fatal(err)
	}
	wantCSV, err := os.ReadFile(filepath.Join(dir, "mytrace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		if got := dump(t, files, tracerpttest.NewDecoder(), tracerpt.XML, enCA(t), workers); !bytes.Equal(got, wantXML) {
			t.Errorf("XML (workers %d) differs from mytrace.xml:\n%s", workers, firstDiff(got, wantXML))
		}
		if got := dump(t, files, tracerpttest.NewDecoder(), tracerpt.CSV, enCA(t), workers); !bytes.Equal(got, wantCSV) {
			t.Errorf("CSV (workers %d) differs from mytrace.csv:\n%s", workers, firstDiff(got, wantCSV))
		}
	}

	// The decoder as it is: everything but the header events' payload and
	// RenderingInfo matches. (When decode registers package mof's kernel
	// schemas the whole file does.)
	plain := decode.New()
	got := dump(t, files, plain, tracerpt.XML, enCA(t), 1)
	if tracerpttest.HasEventTrace(plain) {
		if !bytes.Equal(got, wantXML) {
			t.Errorf("XML with the decoder's kernel schemas differs:\n%s", firstDiff(got, wantXML))
		}
		if got := dump(t, files, plain, tracerpt.CSV, enCA(t), 2); !bytes.Equal(got, wantCSV) {
			t.Errorf("CSV with the decoder's kernel schemas differs:\n%s", firstDiff(got, wantCSV))
		}
		return
	}
	ge, we := splitEvents(got), splitEvents(wantXML)
	if len(ge) != len(we) {
		t.Fatalf("%d events, want %d", len(ge), len(we))
	}
	for i := range we {
		if i < 2 {
			// Pending on MOF: EventData and RenderingInfo of EventTrace.
			gs, _, _ := strings.Cut(ge[i], "\t</System>\n")
			ws, _, _ := strings.Cut(we[i], "\t</System>\n")
			if gs != ws {
				t.Errorf("event %d System differs:\n%s", i+1, firstDiff([]byte(gs), []byte(ws)))
			}
			if !strings.Contains(ge[i], "<EventGuid>{68fdd900-4a3e-11d1-84f4-0000f80464e3}</EventGuid>") {
				t.Errorf("event %d lacks its EventGuid", i+1)
			}
			continue
		}
		if ge[i] != we[i] {
			t.Errorf("event %d differs:\n%s", i+1, firstDiff([]byte(ge[i]), []byte(we[i])))
		}
	}
	t.Log("EventTrace header events: EventData and RenderingInfo pending on the kernel MOF schemas (checked with stand-ins)")
}

// TestCorpusPktMonSummary writes the summary of the PktMon capture and
// compares it with the summary.txt tracerpt wrote beside it.
func TestCorpusPktMonSummary(t *testing.T) {
	root := corpus(t)
	dir := filepath.Join(root, "nathaniel-security+microsoft-pktmon-VPN-capture-traffic/history/508f5bc135c8effceef0879693c6de45f2a92012")
	files := open(t, filepath.Join(dir, "PktMon.etl"))
	want, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dec := tracerpttest.StockWindowsDecoder()
	pktmon := filepath.Join(root, "..", "schemas/dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml")
	names := true
	if err := dec.Import(pktmon); err != nil {
		t.Logf("PktMon schema not imported (%v): the PktMon rows will have no name", err)
		names = false
	}
	for _, workers := range []int{1, 2} {
		sum := tracerpt.NewSummary(files, []string{"PktMon.etl"})
		if _, err := tracerpt.Run(context.Background(), &tracerpt.Config{Files: files, Decoder: dec, Summary: sum, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		c, _, _ := tracerpt.ParseCulture("en-US")
		if _, err := sum.WriteTo(&b, &tracerpt.Options{Zone: time.FixedZone("IST", 330*60), Culture: c}); err != nil {
			t.Fatal(err)
		}
		got := b.Bytes()
		if !names {
			got = bytes.ReplaceAll(got, []byte("                        0               0               0               {4d4f"), []byte("Microsoft-Windows-PktMon 0               0               0               {4d4f"))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("summary (workers %d) differs from summary.txt:\n%s", workers, firstDiff(got, want))
		}
		if sum.Events != 4601 || sum.Buffers != 5 {
			t.Errorf("totals: %d events, %d buffers", sum.Events, sum.Buffers)
		}
	}
}

// TestCorpusAllFormats renders every corpus file in every format with one
// and with three workers: the bytes are the same, the XML is well-formed
// with one <Event> per delivered event, and the JSON has one line per
// record.
func TestCorpusAllFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := corpus(t)
	var paths []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".etl") {
			paths = append(paths, p)
		}
		return nil
	})
	for _, p := range paths {
		files := open(t, p)
		st := files[0].Scan()
		records := st.Events - st.HeaderTypes[etl.HeaderError]
		for _, f := range []tracerpt.Format{tracerpt.XML, tracerpt.CSV, tracerpt.JSON} {
			one := dump(t, files, decode.New(), f, nil, 1)
			three := dump(t, files, decode.New(), f, nil, 3)
			if !bytes.Equal(one, three) {
				t.Errorf("%s %s: output depends on the number of workers:\n%s", p, f, firstDiff(three, one))
			}
			switch f {
			case tracerpt.XML:
				n, err := countXMLEvents(one)
				if err != nil || n != records {
					t.Errorf("%s: XML has %d events (%v), want %d", p, n, err, records)
				}
			case tracerpt.CSV:
				if n := bytes.Count(one, []byte("\n")) - 1; n < records {
					t.Errorf("%s: CSV has %d lines, want at least %d", p, n, records)
				}
			case tracerpt.JSON:
				lines := bytes.Split(bytes.TrimSuffix(one, []byte("\n")), []byte("\n"))
				if len(lines) != st.Events {
					t.Errorf("%s: %d JSON lines, want %d", p, len(lines), st.Events)
				}
				for i, l := range lines {
					if !json.Valid(l) {
						t.Fatalf("%s line %d is not JSON: %.200s", p, i+1, l)
					}
				}
			}
		}
	}
}

func countXMLEvents(b []byte) (int, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	n := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Event" {
			n++
		}
	}
}

// firstDiff shows the first differing line of got and want.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(same lines)"
}
