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
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/pipeline"
	"github.com/etwkit/etw/tracerpt"
	"github.com/etwkit/etw/tracerpt/tracerpttest"
)

func corpus(t testing.TB) string { return etltest.CorpusDir(t) }

func open(t testing.TB, paths ...string) []*etl.File { return etltest.OpenFiles(t, paths...) }

// dump runs the pipeline and returns what it wrote.
func dump(t testing.TB, files []*etl.File, dec *decode.Decoder, f tracerpt.Format, o *tracerpt.Options, workers int) []byte {
	var out bytes.Buffer
	_, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{
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
// byte for byte, with decode.New() as the command line uses it: nothing
// is added to its registry, so the two EventTrace header events (Header,
// PartitionInfoExtension) are rendered from the decoder's built-in kernel
// schemas, and losing those fails the comparison.
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
		if got := dump(t, files, decode.New(), tracerpt.XML, enCA(t), workers); !bytes.Equal(got, wantXML) {
			t.Errorf("XML (workers %d) differs from mytrace.xml:\n%s", workers, firstDiff(got, wantXML))
		}
		if got := dump(t, files, decode.New(), tracerpt.CSV, enCA(t), workers); !bytes.Equal(got, wantCSV) {
			t.Errorf("CSV (workers %d) differs from mytrace.csv:\n%s", workers, firstDiff(got, wantCSV))
		}
	}
	// The header events are decoded, not shown as raw data.
	for i, ev := range splitEvents(dump(t, files, decode.New(), tracerpt.XML, enCA(t), 1))[:2] {
		if !strings.Contains(ev, "<EventData>") || !strings.Contains(ev, "<RenderingInfo") {
			t.Errorf("header event %d is not decoded:\n%s", i+1, ev)
		}
	}
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
	// The PktMon manifest, as on the machine that wrote summary.txt (it
	// names the Microsoft-Windows-PktMon rows).
	pktmon := filepath.Join(root, "..", "schemas/dumped/nasbench-EVTX-ETW-Resources-W11-22H2/Microsoft-Windows-PktMon.xml")
	if err := dec.Import(pktmon); err != nil {
		t.Fatalf("PktMon schema: %v", err)
	}
	for _, workers := range []int{1, 2} {
		sum := tracerpt.NewSummary(files, []string{"PktMon.etl"})
		if _, err := pipeline.Run(context.Background(), &pipeline.Config[byte]{Files: files, Decoder: dec, Counter: sum, Workers: workers}); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		c, _, _ := tracerpt.ParseCulture("en-US")
		if _, err := sum.WriteTo(&b, &tracerpt.Options{Zone: time.FixedZone("IST", 330*60), Culture: c}); err != nil {
			t.Fatal(err)
		}
		got := b.Bytes()
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
	paths := etltest.CorpusTraces(t)
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
