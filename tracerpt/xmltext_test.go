package tracerpt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/tdh"
)

// TestXMLSchemaTextCached: each event of the fixtures (and of the corpus,
// with ETL_CORPUS), rendered twice (its schema then has its text), renders
// the same through an encoder that keeps its schemas' text as through one
// that renders the schema's <Data> openings and <RenderingInfo> elements
// itself, and escapes each message after its expansion.
func TestXMLSchemaTextCached(t *testing.T) {
	dir := "../testdata/etl"
	paths := []string{filepath.Join(dir, "manifest-types.etl"), filepath.Join(dir, "classic.etl"), filepath.Join(dir, "sample.etl")}
	if os.Getenv("ETL_CORPUS") != "" {
		traces := etltest.CorpusTraces(t)
		paths = append(paths, traces...)
	}
	dec := decode.New()
	dec.Import(filepath.Join(dir, "manifest-types.man"), filepath.Join(dir, "classic.mof"))
	withText, messages := 0, 0
	for _, path := range paths {
		files := etltest.OpenFiles(t, path)
		cached := NewXMLEncoder(files, nil)
		fresh := NewXMLEncoder(files, nil)
		fresh.noTexts = true
		r := etl.NewReader(files, nil)
		n, withMessage := 0, 0
		for ; r.Next(); n++ {
			ev := r.Event()
			res := dec.Decode(ev)
			// The first events, and those of schemas with a message
			// (most come late: rundowns), a few thousand a trace.
			if s := schemaOf(res); n >= 5000 && (s == nil || s.Message == "" || withMessage >= 3000) {
				continue
			}
			cached.AppendEvent(nil, ev, res, nil)
			got := string(cached.AppendEvent(nil, ev, res, nil))
			want := string(fresh.AppendEvent(nil, ev, res, nil))
			if s := schemaOf(res); s != nil && cached.texts.get(s) != nil {
				withText++
			}
			if strings.Contains(got, "<Message>") {
				messages++
				withMessage++
			}
			if got != want {
				r.Close()
				t.Fatalf("%s, event %d:\n got %s\nwant %s", filepath.Base(path), n, got, want)
			}
		}
		r.Close()
	}
	t.Logf("%d events rendered with their schema's text, %d with a message", withText, messages)
	if withText < 20 || messages < 2 || (os.Getenv("ETL_CORPUS") != "" && messages < 1000) {
		t.Fatalf("%d events rendered with their schema's text, %d with a message: the comparison compared too little", withText, messages)
	}
}

// TestXMLSchemaTextNames: the openings a schema's text keeps are each
// property's own, escaped, and its RenderingInfo parts those the encoder
// renders, for names that need escaping.
func TestXMLSchemaTextNames(t *testing.T) {
	s := &tdh.Event{LevelName: "L&1", TaskName: "<T>", ChannelName: `C"h`, ProviderName: "P",
		KeywordNames: []string{"k1", "k&2"}, Message: "m"}
	for _, name := range []string{"Plain", `Q"uote`, "a&b<c>", "", "Ünï", "LongEnoughToTakeSeveralWords\t\n"} {
		s.Properties = append(s.Properties, tdh.Property{Name: name})
	}
	var c xmlTextCache
	if c.get(s) != nil {
		t.Fatal("a schema met once has its text")
	}
	txt := c.get(s)
	if txt == nil {
		t.Fatal("a schema met twice in a row has no text")
	}
	for i, p := range s.Properties {
		if got, want := string(txt.dataOpen(i)), string(appendDataOpen(nil, p.Name)); got != want {
			t.Errorf("property %d: opening %q, want %q", i, got, want)
		}
	}
	if got, want := string(txt.head), string(appendInfoHead(nil, s)); got != want || got == "" {
		t.Errorf("head %q, want %q", got, want)
	}
	if got, want := string(txt.tail), string(appendInfoTail(nil, s)); got != want {
		t.Errorf("tail %q, want %q", got, want)
	}
	if c.get(s) != txt {
		t.Error("the text is made again for the same schema")
	}
}
