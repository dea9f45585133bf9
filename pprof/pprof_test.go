package pprof_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/etwkit/etw/pprof"
)

// randomProfile makes a profile of every kind of field, some zero, some
// not, from r: labels with several values and keys, numeric labels with
// and without units, samples of 0 to 5 locations and 1 to 4 values
// (negative ones too), mappings, locations with 0 to 3 lines.
func randomProfile(r *rand.Rand) *pprof.Profile {
	str := func(n int) string {
		if r.IntN(4) == 0 {
			return ""
		}
		return "s" + strconv.Itoa(r.IntN(n))
	}
	num := func() int64 {
		switch r.IntN(5) {
		case 0:
			return 0
		case 1:
			return -r.Int64N(1 << 40)
		case 2:
			return math.MaxInt64 - r.Int64N(8)
		}
		return r.Int64N(300)
	}
	p := &pprof.Profile{
		DefaultSampleType: str(5), DropFrames: str(5), KeepFrames: str(5),
		TimeNanos: num(), DurationNanos: num(), Period: num(), DocURL: str(5),
	}
	nv := 1 + r.IntN(4)
	for range nv {
		p.SampleType = append(p.SampleType, &pprof.ValueType{Type: str(6), Unit: str(6)})
	}
	if r.IntN(3) != 0 {
		p.PeriodType = &pprof.ValueType{Type: str(3), Unit: str(3)}
	}
	for range r.IntN(4) {
		p.Comments = append(p.Comments, str(9))
	}
	for i := range r.IntN(5) {
		p.Mapping = append(p.Mapping, &pprof.Mapping{ID: uint64(i + 1), Start: uint64(num()), Limit: uint64(num()),
			Offset: uint64(num()), File: str(20), BuildID: str(20), HasFunctions: r.IntN(2) == 0,
			HasFilenames: r.IntN(2) == 0, HasLineNumbers: r.IntN(2) == 0, HasInlineFrames: r.IntN(2) == 0})
	}
	for i := range 1 + r.IntN(6) {
		p.Function = append(p.Function, &pprof.Function{ID: uint64(i + 1), Name: str(30), SystemName: str(30),
			Filename: str(30), StartLine: num()})
	}
	for i := range 1 + r.IntN(8) {
		l := &pprof.Location{ID: uint64(i + 1), Address: uint64(num()), IsFolded: r.IntN(3) == 0}
		if len(p.Mapping) > 0 && r.IntN(4) != 0 {
			l.Mapping = p.Mapping[r.IntN(len(p.Mapping))]
		}
		for range r.IntN(4) {
			ln := pprof.Line{Line: num(), Column: num()}
			if r.IntN(4) != 0 {
				ln.Function = p.Function[r.IntN(len(p.Function))]
			}
			l.Line = append(l.Line, ln)
		}
		p.Location = append(p.Location, l)
	}
	for range r.IntN(12) {
		s := &pprof.Sample{}
		for range r.IntN(6) {
			s.Location = append(s.Location, p.Location[r.IntN(len(p.Location))])
		}
		for range nv {
			s.Value = append(s.Value, num())
		}
		if r.IntN(3) != 0 {
			s.Label = map[string][]string{}
			for range 1 + r.IntN(3) {
				k := str(4)
				for range 1 + r.IntN(2) {
					s.Label[k] = append(s.Label[k], str(40))
				}
			}
		}
		if r.IntN(3) != 0 {
			s.NumLabel = map[string][]int64{}
			withUnits := r.IntN(2) == 0
			if withUnits {
				s.NumUnit = map[string][]string{}
			}
			for range 1 + r.IntN(3) {
				k := str(4)
				for range 1 + r.IntN(3) {
					s.NumLabel[k] = append(s.NumLabel[k], num())
					if withUnits {
						s.NumUnit[k] = append(s.NumUnit[k], str(3))
					}
				}
			}
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// google returns p as github.com/google/pprof/profile's Profile.
func google(p *pprof.Profile) *profile.Profile {
	q := &profile.Profile{DefaultSampleType: p.DefaultSampleType, DropFrames: p.DropFrames, KeepFrames: p.KeepFrames,
		TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos, Period: p.Period, DocURL: p.DocURL,
		Comments: p.Comments}
	for _, t := range p.SampleType {
		q.SampleType = append(q.SampleType, &profile.ValueType{Type: t.Type, Unit: t.Unit})
	}
	if p.PeriodType != nil {
		q.PeriodType = &profile.ValueType{Type: p.PeriodType.Type, Unit: p.PeriodType.Unit}
	}
	maps := map[*pprof.Mapping]*profile.Mapping{}
	for _, m := range p.Mapping {
		qm := &profile.Mapping{ID: m.ID, Start: m.Start, Limit: m.Limit, Offset: m.Offset, File: m.File,
			BuildID: m.BuildID, HasFunctions: m.HasFunctions, HasFilenames: m.HasFilenames,
			HasLineNumbers: m.HasLineNumbers, HasInlineFrames: m.HasInlineFrames}
		maps[m] = qm
		q.Mapping = append(q.Mapping, qm)
	}
	funcs := map[*pprof.Function]*profile.Function{}
	for _, f := range p.Function {
		qf := &profile.Function{ID: f.ID, Name: f.Name, SystemName: f.SystemName, Filename: f.Filename, StartLine: f.StartLine}
		funcs[f] = qf
		q.Function = append(q.Function, qf)
	}
	locs := map[*pprof.Location]*profile.Location{}
	for _, l := range p.Location {
		ql := &profile.Location{ID: l.ID, Mapping: maps[l.Mapping], Address: l.Address, IsFolded: l.IsFolded}
		for _, ln := range l.Line {
			ql.Line = append(ql.Line, profile.Line{Function: funcs[ln.Function], Line: ln.Line, Column: ln.Column})
		}
		locs[l] = ql
		q.Location = append(q.Location, ql)
	}
	for _, s := range p.Sample {
		qs := &profile.Sample{Value: s.Value, Label: s.Label, NumLabel: s.NumLabel, NumUnit: s.NumUnit}
		for _, l := range s.Location {
			qs.Location = append(qs.Location, locs[l])
		}
		q.Sample = append(q.Sample, qs)
	}
	return q
}

// TestSameBytesAsGooglePprof holds Write to the bytes
// github.com/google/pprof/profile writes for the same profile, over
// random profiles, and Marshal to its uncompressed ones.
func TestSameBytesAsGooglePprof(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		p := randomProfile(r)
		var got, want bytes.Buffer
		if err := p.Write(&got); err != nil {
			t.Fatal(err)
		}
		if err := google(p).Write(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			var raw bytes.Buffer
			_ = google(p).WriteUncompressed(&raw)
			t.Fatalf("profile %d: Write differs from google/pprof's\n got % x\nwant % x", i, p.Marshal(), raw.Bytes())
		}
		var raw bytes.Buffer
		if err := p.WriteUncompressed(&raw); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(raw.Bytes(), p.Marshal()) {
			t.Fatalf("profile %d: WriteUncompressed is not Marshal", i)
		}
	}
}

// TestParsedBack reads a profile Write wrote with google/pprof's parser
// and checks what it reads.
func TestParsedBack(t *testing.T) {
	fn := &pprof.Function{ID: 1, Name: "ntdll.dll!0x1A2B", SystemName: "ntdll.dll!0x1A2B"}
	m := &pprof.Mapping{ID: 1, Start: 0x7ff800000000, Limit: 0x7ff800200000, File: `C:\Windows\System32\ntdll.dll`, BuildID: "ABC1"}
	loc := &pprof.Location{ID: 1, Mapping: m, Address: 0x7ff800001a2b, Line: []pprof.Line{{Function: fn}}}
	p := &pprof.Profile{
		SampleType:        []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		PeriodType:        &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            1_000_000,
		Mapping:           []*pprof.Mapping{m},
		Location:          []*pprof.Location{loc},
		Function:          []*pprof.Function{fn},
		Sample: []*pprof.Sample{{Location: []*pprof.Location{loc, loc, loc}, Value: []int64{1, 1_000_000},
			Label: map[string][]string{"process": {"a.exe (4)"}}, NumLabel: map[string][]int64{"pid": {4}}}},
		Comments: []string{"sampling interval 1ms"},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	q, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.CheckValid(); err != nil {
		t.Fatal(err)
	}
	s := q.Sample[0]
	if len(s.Location) != 3 || s.Location[0].Mapping.File != m.File || s.Location[0].Line[0].Function.Name != fn.Name ||
		s.Value[1] != 1_000_000 || s.Label["process"][0] != "a.exe (4)" || s.NumLabel["pid"][0] != 4 ||
		q.DefaultSampleType != "cpu" || q.Period != 1_000_000 || q.Comments[0] != "sampling interval 1ms" {
		t.Errorf("read back: %v", q)
	}
}
