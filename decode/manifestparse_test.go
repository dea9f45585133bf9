package decode

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/etltest"
	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/manifest"
)

func TestDeclaresOnly(t *testing.T) {
	g := uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
	other := "{8e9f5090-2d75-4d03-8a81-e5afbf85daf1}"
	for _, tc := range []struct {
		xml  string
		want bool
	}{
		{`<provider name="P" guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}" symbol="P">`, true},
		{`<provider name="P" guid = '2E5DBA47-A3D2-4D16-8EE0-6671FFDCD7B5'>`, true},
		{`<provider guid="2e5dba47a3d24d168ee06671ffdcd7b5"/><task name="T" eventGUID="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}"/>`, true},
		{`<events/>`, true}, // declares nothing
		{`<provider guid="` + other + `">`, false},
		{`<provider guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}"/><provider guid="` + other + `"/>`, false},
		{`<provider guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}"><task eventGUID="` + other + `"/>`, false},
		{`<provider guid="&#123;2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}">`, false}, // a character reference
		{`<provider guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}"><data name="ActivityGuid" inType="win:GUID"/><string value="a GUID: see below"/>`, true},
		{`<provider guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}"><string value="guid=&quot;x&quot;"/>`, false}, // looks like one: conservative
		{`<provider x:guid="` + other + `">`, false},
		{`<provider guid` + "\r\n\t" + `= "` + other + `">`, false},
		{`<provider name="P" guid=>`, false},
		{`<provider name="P" guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}`, false}, // unterminated
		{`<provider name="P" Guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}">`, true},
		{"<Providers><Provider><Meta><Name>P</Name><Guid>" + other + "</Guid>", false}, // WEPExplorer's format
		{"<w:Guid a='1'>" + other + "</w:Guid>", false},
		{`<data name="x" inType="win:GUID"/>`, true},
		{"\xff\xfe<\x00p\x00", false}, // UTF-16: the GUIDs are not looked for
		{"<\x00p\x00", false},
	} {
		if got := declaresOnly([]byte(tc.xml), g); got != tc.want {
			t.Errorf("declaresOnly(%s) = %v, want %v", tc.xml, got, tc.want)
		}
	}
}

// FuzzDeclaresOnly checks declaresOnly's promise: when it holds and the
// manifest parses, every schema is the given provider's.
func FuzzDeclaresOnly(f *testing.F) {
	g := uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
	f.Add([]byte(`<instrumentationManifest><instrumentation><events><provider name="P" guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}" symbol="P"><tasks><task name="T" value="1" eventGUID="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}"/></tasks><events><event value="1" task="T" level="win:Informational"/></events></provider></events></instrumentation></instrumentationManifest>`))
	f.Add([]byte(`<Providers><Provider><Metadata><Name>P</Name><Guid>{8e9f5090-2d75-4d03-8a81-e5afbf85daf1}</Guid></Metadata><Events><Event><Value>1</Value><Version>0</Version></Event></Events></Provider></Providers>`))
	f.Fuzz(func(t *testing.T, xml []byte) {
		if !declaresOnly(xml, g) {
			return
		}
		m, err := manifest.Parse(bytes.NewReader(xml), "fuzz")
		if err != nil {
			return
		}
		schemas, _ := m.Schemas()
		for _, s := range schemas {
			if s.ProviderGUID != g {
				t.Fatalf("declaresOnly held, and the manifest has a schema of %v", s.ProviderGUID)
			}
		}
		for _, p := range m.Providers {
			if p.GUID != g {
				t.Fatalf("declaresOnly held, and the manifest declares provider %v", p.GUID)
			}
			for _, k := range p.Tasks {
				if k.EventGUID != (uuid.UUID{}) && k.EventGUID != g {
					t.Fatalf("declaresOnly held, and a task has eventGUID %v", k.EventGUID)
				}
			}
		}
	})
}

// prescanDecode reads f in time order as the analysis model's pass
// does: each event observed by a Prescanner, then decoded. It returns a
// digest of the decoding of every event of a provider that logs a
// manifest, the Prescanner's error, the registry's schemas and the
// manifests parsed apart.
func prescanDecode(f *etl.File, procs int) (digests []uint64, finish string, schemas []string, apart int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	d := New()
	p := d.NewPrescanner()
	loggers := map[uuid.UUID]bool{}
	r := etl.NewReader([]*etl.File{f}, nil)
	for r.Next() {
		ev := r.Event()
		if isManifest(ev) {
			loggers[ev.ProviderID] = true
		}
		p.Observe(ev)
		apart = max(apart, len(p.jobs))
		res := d.Decode(ev)
		if !loggers[ev.ProviderID] {
			continue
		}
		h := fnv.New64a()
		fmt.Fprint(h, res.Err, res.Exact, res.Fallback, res.Origin)
		if res.Schema != nil {
			fmt.Fprint(h, res.Schema.EventName, res.Schema.ProviderName, res.Schema.Version)
		}
		if res.Decoded != nil {
			for _, v := range res.Decoded.Values {
				fmt.Fprint(h, v.Prop.Name, v.Kind, v.Data, v.Offset, v.First, v.N)
			}
			fmt.Fprint(h, len(res.Decoded.Values), res.Decoded.Extra)
		}
		digests = append(digests, h.Sum64())
	}
	r.Close()
	if err := p.Finish(); err != nil {
		finish = err.Error()
	}
	for _, c := range d.Registry.All() {
		s := c.Schema
		schemas = append(schemas, fmt.Sprintf("%v %v/%d/%d %s %s %d", c.Origin, s.ProviderGUID, s.ID, s.Version, s.ProviderName, s.EventName, len(s.Properties)))
	}
	return digests, finish, schemas, apart
}

// logsManifests reports whether f has EventSource manifest chunks.
func logsManifests(f *etl.File) bool {
	r := etl.NewReader([]*etl.File{f}, &etl.ReaderOptions{Order: etl.FileOrder})
	defer r.Close()
	for r.Next() {
		if isManifest(r.Event()) {
			return true
		}
	}
	return false
}

// TestManifestsParsedApart checks that the manifests a Prescanner parses
// on goroutines of their own (with two processors) leave the decoding of
// the events of the providers that log manifests, the errors and the
// registry as parsing them at once does (one processor), on the corpus
// and the hostile traces. In these traces no event of a manifest's
// provider comes while its parse is under way: the wait for it is
// TestGuardWaitsForRegistration's to check.
func TestManifestsParsedApart(t *testing.T) {
	apartTotal := 0
	etltest.EachOpened(etltest.CorpusAndAttackTraces(t), func(path string, f *etl.File) {
		if testing.Short() && f.Size() > 64<<10 || !logsManifests(f) {
			return // -short (.ci/run, under the race detector): the traces up to 64 KB
		}
		d1, e1, s1, _ := prescanDecode(f, 1)
		d2, e2, s2, apart := prescanDecode(f, 2)
		apartTotal += apart
		if e1 != e2 {
			t.Errorf("%s: Finish: %q apart, %q at once", path, e2, e1)
		}
		if strings.Join(s1, "\n") != strings.Join(s2, "\n") {
			t.Errorf("%s: the registries differ: %d schemas apart, %d at once", path, len(s2), len(s1))
		}
		if len(d1) != len(d2) {
			t.Fatalf("%s: %d events apart, %d at once", path, len(d2), len(d1))
		}
		for i := range d1 {
			if d1[i] != d2[i] {
				t.Errorf("%s: event %d of a manifest's provider decodes otherwise apart", path, i)
				break
			}
		}
	})
	if apartTotal == 0 {
		t.Fatal("no manifest was parsed apart")
	}
	t.Logf("%d manifests parsed apart", apartTotal)
}

// TestManifestsQueueBound checks that past maxQueuedXML the manifests are
// parsed at once, after those parsed apart, with the same decodings.
func TestManifestsQueueBound(t *testing.T) {
	defer func(n int) { maxQueuedXML = n }(maxQueuedXML)
	checked := 0
	etltest.EachOpened(etltest.CorpusAndAttackTraces(t), func(path string, f *etl.File) {
		if f.Size() > 64<<10 || !logsManifests(f) {
			return
		}
		maxQueuedXML = 16 << 20
		d1, e1, s1, apart := prescanDecode(f, 2)
		if apart == 0 {
			return
		}
		maxQueuedXML = 0
		d2, e2, s2, apart2 := prescanDecode(f, 2)
		if apart2 != 0 {
			t.Errorf("%s: %d manifests parsed apart past the bound", path, apart2)
		}
		if e1 != e2 || strings.Join(s1, "\n") != strings.Join(s2, "\n") || fmt.Sprint(d1) != fmt.Sprint(d2) {
			t.Errorf("%s: decoding differs past the bound", path)
		}
		checked++
	})
	if checked == 0 {
		t.Fatal("no trace with manifests parsed apart")
	}
}

// TestGuardWaitsForRegistration checks that while a manifest is parsed
// apart, decoding an event of its provider waits for the registration
// (and then finds the manifest's schema), and decoding another
// provider's event does not wait.
func TestGuardWaitsForRegistration(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	f, err := etl.Open(etltest.AttackFile(t, "es_msgbomb_3c.etl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var chunks []*etl.Event
	var later, other *etl.Event // an event of the manifest's provider, and of another
	r := etl.NewReader([]*etl.File{f}, nil)
	for r.Next() {
		ev := *r.Event()
		ev.UserData = bytes.Clone(ev.UserData)
		switch {
		case isManifest(&ev):
			chunks = append(chunks, &ev)
		case len(chunks) > 0 && ev.ProviderID == chunks[0].ProviderID && later == nil:
			later = &ev
		case len(chunks) > 0 && ev.ProviderID != chunks[0].ProviderID && other == nil:
			other = &ev
		}
	}
	r.Close()
	if len(chunks) == 0 || later == nil {
		t.Fatalf("%d manifest chunks, an event after them: %v", len(chunks), later != nil)
	}
	release := make(chan struct{})
	parseHook = func() { <-release }
	defer func() { parseHook = nil }()
	d := New()
	p := d.NewPrescanner()
	for _, ev := range chunks {
		p.Observe(ev)
	}
	if len(p.jobs) == 0 {
		t.Fatal("the manifest was not parsed apart")
	}
	if other != nil {
		otherDone := make(chan struct{})
		go func() { d.Clone().Decode(other); close(otherDone) }()
		select {
		case <-otherDone: // not the provider being parsed: no wait
		case <-time.After(10 * time.Second):
			t.Error("another provider's event waited for the manifest")
		}
	}
	done := make(chan *Result)
	go func() { done <- d.Clone().Decode(later) }()
	select {
	case <-done:
		t.Fatal("an event of the provider decoded before its manifest was registered")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	res := <-done
	if res.Schema == nil || res.Origin.Kind != "eventsource" {
		t.Errorf("decoded with %v from %v, want the manifest's schema", res.Schema, res.Origin)
	}
	if err := p.Finish(); err != nil {
		t.Logf("Finish: %v", err)
	}
}

// TestFallbackTakesItsTurn checks that a manifest the Prescanner may not
// parse apart (it names another GUID) is registered after the one parsed
// apart before it, and that another goroutine's add of the same
// manifest waits while it is being parsed and returns once it is
// registered.
func TestFallbackTakesItsTurn(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	g1 := uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
	g2 := uuid.MustParse("8e9f5090-2d75-4d03-8a81-e5afbf85daf1")
	manifestOf := func(g uuid.UUID, eventGUID string) []byte {
		return []byte(`<instrumentationManifest><instrumentation><events><provider name="P" guid="{` + g.String() +
			`}" symbol="P"><tasks><task name="T" value="1" eventGUID="{` + eventGUID +
			`}"/></tasks><events><event value="1" task="T" level="win:Informational"/></events></provider></events></instrumentation></instrumentationManifest>`)
	}
	first := manifestOf(g1, g1.String())
	second := manifestOf(g2, "11111111-2222-3333-4444-555555555555") // another GUID: not parsed apart
	if !declaresOnly(first, g1) || declaresOnly(second, g2) {
		t.Fatal("the test's manifests are not what it means")
	}
	// Each parse is held until released; the parses run one at a time.
	releases := []chan struct{}{make(chan struct{}), make(chan struct{})}
	started := make(chan int, 2)
	parses := 0
	parseHook = func() {
		i := parses
		parses++
		started <- i
		if i < len(releases) {
			<-releases[i]
		}
	}
	defer func() { parseHook = nil }()
	wait := func(what string) int {
		select {
		case i := <-started:
			return i
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no parse started", what)
			return -1
		}
	}
	d := New()
	p := d.NewPrescanner()
	p.Observe(chunkEvent(g1, 1, 0, first))
	if len(p.jobs) != 1 {
		t.Fatalf("%d manifests parsed apart, want the first", len(p.jobs))
	}
	wait("the first manifest")
	observed := make(chan error)
	go func() { observed <- p.manifest(chunkEvent(g2, 1, 0, second)) }()
	select {
	case <-observed:
		t.Fatal("the second manifest was registered before the first")
	case <-time.After(50 * time.Millisecond):
	}
	close(releases[0])
	if i := wait("the second manifest"); i != 1 {
		t.Fatalf("parse %d started, want the second", i)
	}
	added := make(chan error)
	go func() { added <- d.es.add(d.Registry, chunkEvent(g2, 1, 0, second)) }()
	select {
	case <-added:
		t.Fatal("add of the same manifest returned while it was being parsed")
	case <-observed:
		t.Fatal("the Prescanner returned while its manifest was being parsed")
	case <-time.After(50 * time.Millisecond):
	}
	close(releases[1])
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	if len(d.Registry.Schemas(g2)) == 0 {
		t.Error("add of the second manifest returned before it was registered")
	}
	if err := <-observed; err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if len(d.Registry.Schemas(g1)) == 0 {
		t.Error("the first manifest is not registered after Finish")
	}
}

// TestManifestParsePanic checks that a panic while a manifest is parsed
// apart reaches the goroutine that calls Finish.
func TestManifestParsePanic(t *testing.T) {
	es := newEventSources()
	g := uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
	xml := []byte(`<instrumentationManifest><instrumentation><events><provider name="P" guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}" symbol="P"><events><event value="1" level="win:Informational"/></events></provider></events></instrumentation></instrumentationManifest>`)
	es.mu.Lock()
	j := es.parseAsync(nil, xml, g) // a nil registry: registering panics
	es.mu.Unlock()
	es.guard(g) // waits for it
	if es.parsing.Load() != nil {
		t.Error("the provider is still being parsed after guard")
	}
	<-j.done
	var pe *panicerr.Error
	if !errors.As(j.err, &pe) {
		t.Fatalf("job error %v, want a panic", j.err)
	}
	p := &Prescanner{d: &Decoder{es: es}, jobs: []*parseJob{j}, errs: []error{nil}}
	defer func() {
		if r := recover(); r != pe {
			t.Errorf("Finish panicked with %v, want the job's panic", r)
		}
	}()
	p.Finish()
	t.Error("Finish did not panic")
}

func BenchmarkDeclaresOnly(b *testing.B) {
	g := uuid.MustParse("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5")
	row := `<event value="%d" version="0" level="win:Informational" symbol="EventName%d" message="$(string.event_%d)" task="Task%d" opcode="win:Info" template="T_Message_String"/>` + "\n" +
		`<template tid="T%d"><data name="ActivityGuid" inType="win:GUID"/><data name="Message" inType="win:UnicodeString"/></template>` + "\n"
	var sb strings.Builder
	sb.WriteString(`<provider name="P" guid="{2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5}">`)
	for i := 0; sb.Len() < 100<<10; i++ {
		fmt.Fprintf(&sb, row, i, i, i, i, i)
	}
	xml := []byte(sb.String())
	b.SetBytes(int64(len(xml)))
	for b.Loop() {
		if !declaresOnly(xml, g) {
			b.Fatal("false")
		}
	}
}
