package tracerpt

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// TestJSONHeadCached: the start of each event's object (appendHead, from
// "time" to the schema's names) that an encoder renders from the text it
// keeps is what a one-shot encoder renders from scratch, over events that
// share and do not share what the kept texts depend on: times crossing a
// millisecond, second, minute, day and year, going back; raw timestamps;
// providers with the same event ids, descriptors differing in one field,
// kernel headers and hook ids; threads of one id in two processes, on
// several processors, a process renamed; schemas of two providers with the
// same id, of two versions, with and without a level name. There are more
// threads and shapes than an encoder's caches have slots.
func TestJSONHeadCached(t *testing.T) {
	const newYear = 132539040000000000 - 7_000 // 2021-01-01T00:00:00Z, less 0.7 ms
	provA := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	provB := uuid.MustParse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e5")
	schemas := []*tdh.Event{
		{ProviderName: "A", ProviderGUID: provA, ID: 10, Version: 0, EventName: "E10", TaskName: "T", OpcodeName: "O", LevelName: "Verbose"},
		{ProviderName: "A", ProviderGUID: provA, ID: 10, Version: 1, EventName: "E10_V1", TaskName: "T", LevelName: "Verbose"},
		{ProviderName: "B", ProviderGUID: provB, ID: 10, Version: 0, EventName: "Other", OpcodeName: "O"},
		{ProviderName: "B", ProviderGUID: provB, ID: 11, Version: 0, EventName: "NoLevel"},
	}
	procs := []*analysis.Process{
		{PID: 4, ImageFileName: "System"},
		{PID: 100, ImageFileName: "a.exe"},
		{PID: 100, ImageFileName: "a.exe"}, // the same pid, another process record
		{PID: 200},                         // no name
	}
	headers := []etl.HeaderType{etl.HeaderSystem64, etl.HeaderPerfInfo64, etl.HeaderClassic64, etl.HeaderEvent64, etl.HeaderInstance64, etl.HeaderCompact32}
	for _, c := range []struct {
		start     int64
		multiFile bool
	}{{0, false}, {newYear - 25_000_000, false}, {newYear + 3, true}} {
		r := rand.New(rand.NewPCG(7, uint64(c.start)))
		cached := &JSONEncoder{start: c.start, multiFile: c.multiFile}
		fresh := &JSONEncoder{start: c.start, multiFile: c.multiFile, oneShot: true}
		ft, raw := int64(newYear-60*filetimeSecond-3*86400*filetimeSecond), int64(1942608875)
		for i := range 40000 {
			switch k := r.IntN(100); {
			case k < 30: // the same time
			case k < 80:
				ft += r.Int64N(3_000)
			case k < 95:
				ft += r.Int64N(30_000_000)
			case k < 97:
				ft -= r.Int64N(20_000) // not in order
			default:
				ft += 86400 * filetimeSecond // a day (and at the end, a year)
			}
			if r.IntN(4) > 0 {
				raw += r.Int64N(9_000)
			}
			if i == 20000 {
				ft, raw = newYear, 9_990 // around 10^4, and the new year
			}
			ev := etl.Event{
				Header:    headers[r.IntN(len(headers))],
				Flags:     uint16(r.IntN(3)) * 0x40,
				Time:      ft,
				Timestamp: raw,
				ProcessID: uint32(r.IntN(3)) * 100,
				ThreadID:  uint32(r.IntN(600)),
				Processor: uint16(r.IntN(12)),
				HookID:    uint16(r.IntN(3)),
				File:      r.IntN(2),
			}
			if r.IntN(2) == 0 {
				ev.ProviderID = provA
			} else {
				ev.ProviderID = provB
			}
			ev.Descriptor = etl.EventDescriptor{ID: uint16(r.IntN(300)), Version: uint8(r.IntN(2)), Level: uint8(r.IntN(6)), Opcode: uint8(r.IntN(2)), Task: uint16(r.IntN(2)), Channel: uint8(r.IntN(2)), Keyword: uint64(r.IntN(2)) << 63}
			if r.IntN(50) == 0 {
				ev.ActivityID[0] = 1
			}
			if r.IntN(400) == 0 {
				ev.ThreadID, ev.ProcessID = analysis.NoID, analysis.NoID
			}
			var res *decode.Result
			if k := r.IntN(len(schemas) + 1); k < len(schemas) {
				res = &decode.Result{Schema: schemas[k], Exact: r.IntN(8) > 0, Fallback: r.IntN(8) == 0}
			}
			var a *analysis.Annotation
			if r.IntN(10) > 0 {
				p := procs[r.IntN(len(procs))]
				a = &analysis.Annotation{PID: p.PID, TID: ev.ThreadID, Process: p}
				if r.IntN(5) == 0 {
					a.TID = uint32(r.IntN(600)) // another thread than the header's
				}
				if r.IntN(20) == 0 {
					a.Process = nil
				}
			}
			if i == 30000 {
				procs[1].ImageFileName = string([]byte("b.exe")) // renamed, the same length
			}
			got := string(cached.appendHead([]byte("x"), &ev, res, a))
			want := string(fresh.appendHead([]byte("x"), &ev, res, a))
			if got != want {
				t.Fatalf("start %d, event %d:\n got %s\nwant %s", c.start, i, got, want)
			}
		}
	}
}
