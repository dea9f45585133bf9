package analysis

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

func TestImageOfRoot(t *testing.T) {
	for in, want := range map[string]string{
		"Test.x64 (3012)": "Test.x64",
		"Process (12)":    "Process",
		"Unknown":         "Unknown",
		"a (b) (7)":       "a (b)",
		"odd (x)":         "odd (x)",
		"Idle (0)":        "Idle",
	} {
		if got := imageOfRoot(in); got != want {
			t.Errorf("imageOfRoot(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ImageName(&Process{PID: 4, Name: "System"}, 4); got != "System" {
		t.Errorf("ImageName = %q", got)
	}
	if got := ImageName(nil, 17); got != "Process" {
		t.Errorf("ImageName(nil, 17) = %q", got)
	}
	if got := ImageName(nil, NoID); got != "Unknown" {
		t.Errorf("ImageName(nil, NoID) = %q", got)
	}
}

func TestAppendMS(t *testing.T) {
	for v, want := range map[int64]string{0: "0", 10000: "1", 12345: "1.2345", 1220: "0.122", 5: "0.0005", -15000: "-1.5"} {
		if got := string(AppendMS(nil, v)); got != want {
			t.Errorf("AppendMS(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestDiffProfilesSynthetic pairs two small profiles whose processes of
// one program have different pids.
func TestDiffProfilesSynthetic(t *testing.T) {
	a := &Image{Path: `C:\a.dll`, Base: 0x1000, Size: 0x1000}
	b := &Image{Path: `C:\b.dll`, Base: 0x2000, Size: 0x1000}
	st := func(ims ...*Image) []Frame { // innermost first
		var f []Frame
		for _, im := range ims {
			f = append(f, Frame{Address: im.Base, Image: im})
		}
		return f
	}
	before, after := NewProfile(), NewProfile()
	p1, p2, p3 := &Process{PID: 10, Name: "app"}, &Process{PID: 20, Name: "app"}, &Process{PID: 30, Name: "app"}
	before.Add(p1, 10, st(b, a), 3)
	before.Add(p1, 10, st(a), 2)
	after.Add(p2, 20, st(b, a), 1)
	after.Add(p3, 30, st(b, a), 4) // a second process of the program
	after.Add(&Process{PID: 40, Name: "new"}, 40, nil, 6)
	d := DiffProfiles(before, after)
	var out bytes.Buffer
	if err := d.WriteFolded(&out, nil); err != nil {
		t.Fatal(err)
	}
	want := "app;a.dll 2 0\napp;a.dll;b.dll 3 5\nnew 0 6\n"
	if out.String() != want {
		t.Errorf("diff folded:\n%s\nwant:\n%s", out.String(), want)
	}
	if d.Before != 5 || d.After != 11 {
		t.Errorf("totals %d %d", d.Before, d.After)
	}
	root := d.Tree()
	checkDiffTree(t, root)
	if root.Before != 5 || root.After != 11 || len(root.Children) != 2 {
		t.Errorf("root %+v", root)
	}
	fr := d.ByFrame()
	if len(fr) != 2 || fr[0] != (FrameDelta{Name: "b.dll", Before: 3, After: 5, SelfBefore: 3, SelfAfter: 5}) ||
		fr[1] != (FrameDelta{Name: "a.dll", Before: 5, After: 5, SelfBefore: 2}) {
		t.Errorf("by frame %+v", fr)
	}
	if app := root.Children[0]; app.Name != "app" || app.Before != 5 || app.After != 5 || app.Children[0].Children[0].Name != "b.dll" {
		t.Errorf("app %+v", app)
	}
}

// checkDiffTree checks that every node holds at least its children's
// weights.
func checkDiffTree(t *testing.T, n *DiffNode) {
	t.Helper()
	var b, a int64
	for _, c := range n.Children {
		b, a = b+c.Before, a+c.After
		checkDiffTree(t, c)
	}
	if b > n.Before || a > n.After {
		t.Errorf("%s: children hold %d/%d of %d/%d", n.Name, b, a, n.Before, n.After)
	}
}

func TestDiffProcesses(t *testing.T) {
	before := map[string]ProcessTotals{"a": {Processes: 1, CPUSamples: 10, DiskBytes: 5}, "gone": {Processes: 1, CPUSamples: 3}}
	after := map[string]ProcessTotals{"a": {Processes: 2, CPUSamples: 4, DiskBytes: 9, GCs: 2, GCPauseMS: 1.5}, "new": {Processes: 1, CPUSamples: 1}}
	got := DiffProcesses(before, after)
	var names []string
	for _, d := range got {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "a,gone,new" {
		t.Fatalf("order %v", names)
	}
	if d := got[0].Delta; d.Processes != 1 || d.CPUSamples != -6 || d.DiskBytes != 4 || d.GCs != 2 || d.GCPauseMS != 1.5 {
		t.Errorf("a: %+v", d)
	}
	if d := got[1]; d.After != (ProcessTotals{}) || d.Delta.CPUSamples != -3 {
		t.Errorf("gone: %+v", d)
	}
	if d := got[2]; d.Before != (ProcessTotals{}) || d.Delta != d.After {
		t.Errorf("new: %+v", d)
	}
}

// diffSide is one real trace read as the report and the stacks command
// read it: the model, the I/O of the second pass, the CPU profile.
type diffSide struct {
	m    *Model
	io   *IOStats
	prof *Profile
}

func readDiffSide(t *testing.T, rel string) diffSide {
	t.Helper()
	files := openCorpus(t, rel)
	dec := decode.New()
	m, err := Build(files, dec, nil)
	if err != nil {
		t.Logf("%s: %v", rel, err)
	}
	io := NewIOStats(m, files, TimeAxis{})
	prof, _, _ := m.Collect(files, dec, &CollectOptions{Decode: func(*etl.Event) bool { return true },
		Observe: func(ev *etl.Event, res *decode.Result) { io.Observe(ev, res) }})
	return diffSide{m, io, prof}
}

// foldedByImage adds up the lines of p's folded output by stack, its
// root's pid left out: the column of a diff-folded file.
func foldedByImage(t *testing.T, p *Profile) map[string]int64 {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteFolded(&b); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		n, err := strconv.ParseInt(l[i+1:], 10, 64)
		if err != nil {
			t.Fatal(l)
		}
		root, rest, _ := strings.Cut(l[:i], ";")
		if j := strings.LastIndex(root, " ("); j >= 0 {
			root = root[:j]
		}
		if rest != "" {
			root += ";" + rest
		}
		out[root] += n
	}
	return out
}

// statsByImage adds up what the model says of each process (as
// tracerpt-go stats prints it) by image name.
func statsByImage(m *Model) map[string]ProcessTotals {
	out := map[string]ProcessTotals{}
	for _, p := range m.Processes() {
		if p.Events == 0 && p.ImageFileName == "" {
			continue
		}
		name := p.Name
		if name == "" {
			name = "Process"
		}
		t := out[name]
		t.Processes++
		t.CPUSamples += int64(p.CPUSamples)
		if p.GC != nil {
			t.GCs += int64(p.GC.Count)
			t.GCPauseMS += p.GC.PauseTotal.Seconds() * 1000
		}
		out[name] = t
	}
	return out
}

func summaryRows(s *IOSummary) []IORow {
	if s == nil {
		return nil
	}
	return s.ByProcess
}

// checkDiffSides compares the diff of two real traces with what each
// one's model, I/O rows and folded output say on their own.
func checkDiffSides(t *testing.T, before, after diffSide) []ProcessDelta {
	t.Helper()
	deltas := DiffProcesses(TotalsByImage(before.m, before.io), TotalsByImage(after.m, after.io))
	sb, sa := statsByImage(before.m), statsByImage(after.m)
	ioBy := func(s diffSide) (disk, file map[string][2]int64) {
		disk, file = map[string][2]int64{}, map[string][2]int64{}
		for _, r := range summaryRows(s.io.Disk(1 << 30)) {
			v := disk[imageOfRoot(r.Name)]
			disk[imageOfRoot(r.Name)] = [2]int64{v[0] + int64(r.Reads+r.Writes), v[1] + int64(r.ReadBytes+r.WriteBytes)}
		}
		for _, r := range summaryRows(s.io.File(1 << 30)) {
			v := file[imageOfRoot(r.Name)]
			file[imageOfRoot(r.Name)] = [2]int64{v[0] + int64(r.Reads+r.Writes), v[1] + int64(r.ReadBytes+r.WriteBytes)}
		}
		return
	}
	db, fb := ioBy(before)
	da, fa := ioBy(after)
	seen := map[string]bool{}
	for _, d := range deltas {
		seen[d.Name] = true
		b, a := sb[d.Name], sa[d.Name]
		if d.Delta.Processes != a.Processes-b.Processes || d.Delta.CPUSamples != a.CPUSamples-b.CPUSamples || d.Delta.GCs != a.GCs-b.GCs {
			t.Errorf("%s: delta %+v, stats before %+v after %+v", d.Name, d.Delta, b, a)
		}
		if diff := d.Delta.GCPauseMS - (a.GCPauseMS - b.GCPauseMS); diff > 1e-3 || diff < -1e-3 {
			t.Errorf("%s: GC pause delta %v, stats %v − %v", d.Name, d.Delta.GCPauseMS, a.GCPauseMS, b.GCPauseMS)
		}
		if d.Delta.DiskOps != da[d.Name][0]-db[d.Name][0] || d.Delta.DiskBytes != da[d.Name][1]-db[d.Name][1] ||
			d.Delta.FileOps != fa[d.Name][0]-fb[d.Name][0] || d.Delta.FileBytes != fa[d.Name][1]-fb[d.Name][1] {
			t.Errorf("%s: I/O delta %+v, rows disk %v→%v file %v→%v", d.Name, d.Delta, db[d.Name], da[d.Name], fb[d.Name], fa[d.Name])
		}
	}
	for name := range sb {
		if !seen[name] {
			t.Errorf("%s of the baseline missing from the diff", name)
		}
	}
	for name := range sa {
		if !seen[name] {
			t.Errorf("%s missing from the diff", name)
		}
	}
	// The stacks: each column is the side's folded output by image.
	pd := DiffProfiles(before.prof, after.prof)
	fb2, fa2 := foldedByImage(t, before.prof), foldedByImage(t, after.prof)
	keys := map[string]bool{}
	for _, s := range pd.Stacks() {
		key := strings.Join(s.Frames, ";")
		keys[key] = true
		if s.Before != fb2[key] || s.After != fa2[key] {
			t.Errorf("%s: %d %d, folded %d %d", key, s.Before, s.After, fb2[key], fa2[key])
		}
	}
	for _, m := range []map[string]int64{fb2, fa2} {
		for key := range m {
			if !keys[key] {
				t.Errorf("folded stack %s missing from the diff", key)
			}
		}
	}
	checkDiffTree(t, pd.Tree())
	return deltas
}

// TestCorpusDiffSelf diffs net.4.5.2.x64 against itself: every delta is
// zero and the diff-folded columns are the folded output by image.
func TestCorpusDiffSelf(t *testing.T) {
	s := readDiffSide(t, netFile)
	deltas := checkDiffSides(t, s, s)
	var cpu int64
	for _, d := range deltas {
		if d.Delta != (ProcessTotals{}) || d.Before != d.After {
			t.Errorf("%s: %+v", d.Name, d)
		}
		cpu += d.After.CPUSamples
	}
	if cpu == 0 {
		t.Fatal("no CPU samples in the self-diff")
	}
	var b bytes.Buffer
	pd := DiffProfiles(s.prof, s.prof)
	if err := pd.WriteFolded(&b, nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		f := strings.Fields(l)
		if f[len(f)-1] != f[len(f)-2] {
			t.Fatalf("self-diff line %q", l)
		}
	}
	if pd.Before != s.prof.Total || pd.After != s.prof.Total || pd.Tree().After != s.prof.Total {
		t.Errorf("totals %d %d, profile %d", pd.Before, pd.After, s.prof.Total)
	}
}

// TestCorpusDiffTwo diffs two different real traces: the kernel
// shutdown trace (processes, disk and file I/O, no CPU samples) as the
// baseline of net.4.5.2.x64 (CPU samples, .NET GCs). The corpus holds no
// two traces of one program.
func TestCorpusDiffTwo(t *testing.T) {
	before, after := readDiffSide(t, largestInput), readDiffSide(t, netFile)
	deltas := checkDiffSides(t, before, after)
	var both, gcs, io int
	for _, d := range deltas {
		if d.Before.Processes > 0 && d.After.Processes > 0 {
			both++
		}
		if d.Delta.GCs != 0 {
			gcs++
		}
		if d.Delta.DiskBytes != 0 || d.Delta.FileBytes != 0 {
			io++
		}
	}
	t.Logf("%d image names, %d in both traces, %d with a GC delta, %d with an I/O delta", len(deltas), both, gcs, io)
	if both == 0 || gcs == 0 || io == 0 {
		t.Errorf("the two traces should share processes (%d) and differ in GCs (%d) and I/O (%d)", both, gcs, io)
	}
}
