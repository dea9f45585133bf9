package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/etwkit/etw/analysis"
)

// rangeSpan is the buckets [b0, b1) of width w a range overlaps, as the
// page's script rounds them.
func rangeSpan(from, to, w float64) (b0, b1 int) {
	b0 = int(math.Floor(from/w + 1e-9))
	if math.IsInf(to, 1) {
		return b0, math.MaxInt
	}
	return b0, max(b0+1, int(math.Ceil(to/w-1e-9)))
}

// sumCells adds up the n values of each row's cells in [b0, b1).
func sumCells(rows []SeriesRow, w, from, to float64, n int) [][]float64 {
	b0, b1 := rangeSpan(from, to, w)
	out := make([][]float64, len(rows))
	for i, r := range rows {
		out[i] = make([]float64, n)
		for _, c := range r.Cells {
			if b := int(c[0]); b >= b0 && b < b1 {
				for k := range n {
					out[i][k] += c[k+1]
				}
			}
		}
	}
	return out
}

// rankRows keeps the rows whose values keep says, ranked by less, the
// first max; each as [name, values…].
func rankRows(rows []SeriesRow, sums [][]float64, keep func([]float64) bool, order func(a, b []float64) int, n int) [][]any {
	idx := []int{}
	for i := range rows {
		if keep(sums[i]) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(order(sums[a], sums[b]), strings.Compare(rows[a].Name, rows[b].Name))
	})
	var out [][]any
	for _, i := range idx[:min(len(idx), n)] {
		r := []any{rows[i].Name}
		for _, v := range sums[i] {
			r = append(r, v)
		}
		out = append(out, r)
	}
	return out
}

// sameRows compares the rows the page gives (JSON) with want.
func sameRows(t *testing.T, what string, page json.RawMessage, want [][]any) {
	t.Helper()
	var got [][]any
	if err := json.Unmarshal(page, &got); err != nil {
		t.Fatalf("%s: %v in %.200s", what, err, page)
	}
	if len(got) != len(want) {
		t.Errorf("%s: the page shows %d rows, the library's series give %d (page %.300s)", what, len(got), len(want), page)
		return
	}
	for i := range want {
		for k := range want[i] {
			g, w := got[i][k], want[i][k]
			if wf, ok := w.(float64); ok {
				if gf, _ := g.(float64); gf != wf {
					t.Errorf("%s row %d (%v): value %d is %v, want %v", what, i, want[i][0], k, g, w)
				}
			} else if g != w {
				t.Errorf("%s row %d: %v, want %v", what, i, g, w)
			}
		}
	}
}

// checkRangeTables checks the tables that follow a range [from, to)
// against the series the report kept (the library's aggregates, counted
// over the buckets the range overlaps), or, for the whole trace, that
// they show what the Go side wrote: the I/O by process and by file, the
// allocations and JIT compilations by type and by process, the GC
// pauses by generation, the processes' events.
func checkRangeTables(t *testing.T, p *tab, d *Data, from, to float64) {
	t.Helper()
	whole := from <= 0 && math.IsInf(to, 1)
	maxR := d.maxRows
	if io := d.IO; io != nil {
		for _, k := range []struct {
			kind string
			ot   *IOOverTime
			sum  *IOSummary
		}{{"disk", io.DiskOverTime, io.Disk}, {"file", io.FileOverTime, io.File}} {
			if k.ot == nil {
				continue
			}
			var got struct {
				Range string
				Names []string
				Bars  int
			}
			if err := p.eval(`(() => { const b = document.querySelector('.io-kind[data-kind=`+k.kind+`]');
				return {Range: b.getAttribute('data-range') || '', Names: Array.from(b.querySelectorAll('table tbody tr'), r => r.cells[0].textContent),
					Bars: b.querySelectorAll('svg[data-chart=`+k.kind+`-file] g').length}; })()`, &got); err != nil {
				t.Fatal(err)
			}
			if whole {
				var want []string
				for _, r := range k.sum.ByFile {
					want = append(want, r.Name)
				}
				if got.Range != "" || !slices.Equal(got.Names, want) || got.Bars != len(want) {
					t.Errorf("%s I/O after the reset: range %q, files %d (%d bars), want the whole trace's %d", k.kind, got.Range, len(got.Names), got.Bars, len(want))
				}
				continue
			}
			order := func(a, b []float64) int {
				return cmp.Or(cmp.Compare(b[2]+b[3], a[2]+a[3]), cmp.Compare(b[0]+b[1], a[0]+a[1]))
			}
			ops := func(v []float64) bool { return v[0]+v[1] > 0 }
			four := func(rows [][]any) [][]any {
				for i := range rows {
					rows[i] = rows[i][:5]
				}
				return rows
			}
			var shown struct{ Procs, Files json.RawMessage }
			json.Unmarshal([]byte(got.Range), &shown)
			procs := four(rankRows(k.ot.ByProcess, sumCells(k.ot.ByProcess, k.ot.BucketSec, from, to, 7), ops, order, maxR))
			files := four(rankRows(k.ot.ByFile, sumCells(k.ot.ByFile, k.ot.BucketSec, from, to, 7), ops, order, maxR))
			sameRows(t, k.kind+" I/O by process", shown.Procs, procs)
			sameRows(t, k.kind+" I/O by file", shown.Files, files)
			if len(got.Names) != len(files) || max(1, len(files)) != got.Bars && len(files) > 0 {
				t.Errorf("%s I/O in the range: table of %d files, %d bars; want %d", k.kind, len(got.Names), got.Bars, len(files))
			}
			for i := range min(len(got.Names), len(files)) {
				if got.Names[i] != files[i][0] {
					t.Errorf("%s I/O in the range, file %d: %q, want %q", k.kind, i, got.Names[i], files[i][0])
				}
			}
			t.Logf("range %g..%g: %s I/O of %d processes and %d files (of %d and %d kept over time)", from, to, k.kind, len(procs), len(files), len(k.ot.ByProcess), len(k.ot.ByFile))
		}
	}
	if dn := d.DotNet; dn != nil && dn.OverTime != nil {
		var got struct {
			Range string
			Cells [][3]string // the processes' JIT, ticks and bytes (data-v)
			PIDs  []int
		}
		if err := p.eval(`(() => { const s = document.getElementById('dotnet-range-data'); const t = document.getElementById('dotnet-table');
			return {Range: s ? s.textContent : '', PIDs: Array.from(t.tBodies[0].rows, r => +r.dataset.i),
				Cells: Array.from(t.tBodies[0].rows, r => [r.cells[5].textContent, r.cells[6].textContent, r.cells[7].dataset.v || ''])}; })()`, &got); err != nil {
			t.Fatal(err)
		}
		ot := dn.OverTime
		procs := sumCells(ot.Processes, ot.BucketSec, from, to, 3)
		for i, row := range got.Cells {
			dp := dn.Processes[got.PIDs[i]]
			want := [3]string{thousands(int64(dp.Jitted)), thousands(int64(dp.AllocTicks)), jsonNum(float64(dp.AllocBytes))}
			if !whole {
				v := procs[got.PIDs[i]]
				want = [3]string{thousands(int64(v[0])), thousands(int64(v[1])), jsonNum(v[2])}
			}
			if row != want {
				t.Errorf("range %g..%g: .NET process %d shows JIT, ticks, bytes %q, want %q", from, to, dp.PID, row, want)
			}
		}
		if whole {
			if got.Range != "" {
				t.Errorf(".NET tables after the reset: %q", got.Range)
			}
		} else {
			var shown struct{ Alloc, JIT, Gens json.RawMessage }
			json.Unmarshal([]byte(got.Range), &shown)
			alloc := rankRows(ot.Allocations, sumCells(ot.Allocations, ot.BucketSec, from, to, 2), func(v []float64) bool { return v[0] > 0 },
				func(a, b []float64) int { return cmp.Or(cmp.Compare(b[1], a[1]), cmp.Compare(b[0], a[0])) }, maxR)
			jit := rankRows(ot.JIT, sumCells(ot.JIT, ot.BucketSec, from, to, 1), func(v []float64) bool { return v[0] > 0 },
				func(a, b []float64) int { return cmp.Compare(b[0], a[0]) }, maxR)
			sameRows(t, "allocations by type", shown.Alloc, alloc)
			sameRows(t, "JIT by namespace", shown.JIT, jit)
			if len(dn.GCs) > 0 {
				gens := map[uint32]float64{}
				for _, g := range dn.GCs {
					if g.T >= from && g.T < to {
						gens[g.Generation]++
					}
				}
				var want [][]any
				for _, g := range slices.Sorted(maps.Keys(gens)) {
					want = append(want, []any{float64(g), gens[g]})
				}
				var gotG [][]any
				json.Unmarshal(shown.Gens, &gotG)
				if len(gotG) != len(want) || len(want) > 0 && !slices.EqualFunc(gotG, want, func(a, b []any) bool { return a[0] == b[0] && a[1] == b[1] }) {
					t.Errorf("range %g..%g: GCs by generation %v, want %v", from, to, gotG, want)
				}
			}
			t.Logf("range %g..%g: %d allocated types, %d namespaces", from, to, len(alloc), len(jit))
		}
	}
	if d.Processes != nil && d.Events != nil {
		var rows [][2]int64 // evp, events shown (data-v)
		if err := p.eval(`(() => { const t = document.getElementById('proc-table'); const c = Array.from(t.tHead.rows[0].cells).findIndex(h => h.textContent === 'Events');
			return Array.from(t.tBodies[0].rows, r => [+(r.dataset.evp || 0), +r.cells[c].dataset.v]); })()`, &rows); err != nil {
			t.Fatal(err)
		}
		e := d.Events
		b0, b1 := rangeSpan(from, to, e.BucketSec)
		by := make([]int64, len(e.Processes))
		for i := 0; i+2 < len(e.Counts); i += 3 {
			if b := e.Counts[i+1]; b >= b0 && b < b1 {
				by[e.Groups[e.Counts[i]][2]] += int64(e.Counts[i+2])
			}
		}
		var inRange int64
		differ, off := 0, int64(0) // rows whose whole-trace count the two passes attribute differently, by how many events
		for i, r := range rows {
			pr := d.Processes.List[i]
			want := int64(pr.Events)
			if whole && pr.evp > 0 && by[pr.evp-1] != want {
				differ++
				off += max(by[pr.evp-1]-want, want-by[pr.evp-1])
			}
			if !whole {
				want = 0
				if pr.evp > 0 {
					want = by[pr.evp-1]
				}
			}
			if r[0] != int64(pr.evp) || r[1] != want {
				t.Errorf("range %g..%g: processes table row %d (%s): events process %d, %d events; want %d, %d", from, to, i, pr.Root, r[0], r[1], pr.evp, want)
			}
			inRange += r[1]
		}
		t.Logf("range %g..%g: %d events in the processes table (%d rows whose events-table count differs from the model's, by %d events in all)", from, to, inRange, differ, off)
	}
}

// jsonNum writes v as the page's script writes a number in data-v.
func jsonNum(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestBoundIO: the I/O rows over time of both kinds together are kept
// under maxPageCells, both kinds' buckets made as wide (the merge itself
// is analysis.CoarsenRows', tested there); a kind the trace lacks is nil.
func TestBoundIO(t *testing.T) {
	rows := func(n, cells int) []analysis.RowSeries[IORow] {
		var rs []analysis.RowSeries[IORow]
		for r := range n {
			rr := analysis.RowSeries[IORow]{Name: fmt.Sprint(r)}
			for i := range cells {
				rr.Cells = append(rr.Cells, analysis.Cell[IORow]{Bucket: i, Value: IORow{Reads: 1, MaxMS: float64(i % 11)}})
			}
			rs = append(rs, rr)
		}
		return rs
	}
	disk := &analysis.IOOverTime{Factor: 1, ByProcess: rows(3, 5000), ByFile: rows(2, 5000)}
	file := &analysis.IOOverTime{Factor: 2, ByProcess: rows(1, 3000)}
	boundIO(disk, nil, file)
	n, reads := 0, 0
	for _, rs := range [][]analysis.RowSeries[IORow]{disk.ByProcess, disk.ByFile, file.ByProcess} {
		for _, r := range rs {
			n += len(r.Cells)
			for _, c := range r.Cells {
				reads += c.Value.Reads
			}
		}
	}
	if disk.Factor != 2 || file.Factor != 4 || n > maxPageCells || reads != 5*5000+3000 {
		t.Errorf("factors %d and %d, %d cells, %d reads", disk.Factor, file.Factor, n, reads)
	}
	if ot := ioOverTime(file, 0.5); ot.BucketSec != 2 || len(ot.ByProcess[0].Cells) != 1500 {
		t.Errorf("file I/O on the page: %g s buckets, %d cells", ot.BucketSec, len(ot.ByProcess[0].Cells))
	}
}
