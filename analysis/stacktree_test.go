package analysis

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestStackTree: a few samples in two processes over four buckets give
// the prefix tree, frame table and (bucket, node, weight) triples worked
// out by hand; the exclusive and inclusive weights of ranges add up; the
// tree's folded lines are the profile's.
func TestStackTree(t *testing.T) {
	app := &Process{PID: 7, Name: "app"}
	sys := &Process{PID: 4, Name: "System"}
	a := &Image{Path: `C:\w\a.dll`}
	k := &Image{Path: `C:\w\k.exe`}
	fa := Frame{Image: a, Symbol: &Symbol{Function: "f"}}
	ga := Frame{Image: a, Symbol: &Symbol{Function: "g"}}
	kk := Frame{Image: k}
	axis := TimeAxis{Start: 1000, Width: 10, Buckets: 4}
	tp := NewTimeProfile(axis)
	add := func(p *Process, ft int64, stack ...Frame) { // stack innermost first
		tp.Add(&Annotation{Process: p, PID: p.PID, Stack: stack, ft: ft}, 1)
	}
	add(app, 1000, ga, fa) // app;a.dll!f;a.dll!g, bucket 0
	add(app, 1005, ga, fa) // same, bucket 0
	add(app, 1012, fa)     // app;a.dll!f, bucket 1
	add(app, 1031, kk, kk, ga, fa)
	add(sys, 1020, kk) // System;k.exe, bucket 2
	add(sys, 1099)     // System alone, past the end: the last bucket
	tr := tp.Tree()

	if tr.BucketSec != 1e-6 || tr.Buckets != 4 || tr.Total != 6 {
		t.Errorf("bucket %g s, %d buckets, total %d", tr.BucketSec, tr.Buckets, tr.Total)
	}
	// Pre-order in the folded lines' order: "System (4)" < "app (7)".
	wantFrames := []string{"System (4)", "k.exe", "app (7)", "a.dll!f", "a.dll!g"}
	wantParent := []int32{-1, 0, -1, 2, 3, 4}
	wantFrame := []int32{0, 1, 2, 3, 4, 1}
	if !slices.Equal(tr.Frames, wantFrames) || !slices.Equal(tr.Parent, wantParent) || !slices.Equal(tr.Frame, wantFrame) {
		t.Errorf("frames %q parent %v frame %v", tr.Frames, tr.Parent, tr.Frame)
	}
	wantSamples := []int64{0, 4, 2, 1, 3, 1, 2, 1, 1, 3, 0, 1, 3, 5, 1}
	if !slices.Equal(tr.Samples, wantSamples) {
		t.Errorf("samples %v, want %v", tr.Samples, wantSamples)
	}
	if got := tr.Exclusive(0, 2); !slices.Equal(got, []int64{0, 0, 0, 1, 2, 0}) {
		t.Errorf("exclusive [0,2): %v", got)
	}
	if got := tr.Inclusive(0, 2); !slices.Equal(got, []int64{0, 0, 3, 3, 2, 0}) {
		t.Errorf("inclusive [0,2): %v", got)
	}
	if got := tr.Inclusive(2, 4); !slices.Equal(got, []int64{2, 1, 1, 1, 1, 1}) {
		t.Errorf("inclusive [2,4): %v", got)
	}
	if got := tr.Path(5); !slices.Equal(got, []string{"app (7)", "a.dll!f", "a.dll!g", "k.exe"}) {
		t.Errorf("path of node 5: %q", got)
	}
	var fromTree, fromProfile bytes.Buffer
	if err := tr.WriteFolded(&fromTree); err != nil {
		t.Fatal(err)
	}
	if err := tp.Profile.WriteFolded(&fromProfile); err != nil {
		t.Fatal(err)
	}
	if fromTree.String() != fromProfile.String() {
		t.Errorf("tree folded:\n%s\nprofile folded:\n%s", fromTree.String(), fromProfile.String())
	}

	// Coarser buckets: the same weights, merged pairwise.
	c := tr.Coarsen(2)
	if c.Buckets != 2 || c.BucketSec != 2e-6 || !slices.Equal(c.Samples, []int64{0, 3, 1, 0, 4, 2, 1, 0, 1, 1, 1, 1, 1, 5, 1}) {
		t.Errorf("coarsened by 2: %d buckets of %g s, samples %v", c.Buckets, c.BucketSec, c.Samples)
	}
	if got := c.Inclusive(0, 2); !slices.Equal(got, tr.Inclusive(0, 4)) {
		t.Errorf("coarsened inclusive %v, want %v", got, tr.Inclusive(0, 4))
	}
	if tr.Coarsen(1) != tr || tr.Coarsen(8).Triples() != 5 || tr.Coarsen(8).Buckets != 1 {
		t.Errorf("coarsen by 1 or past the axis: %+v", tr.Coarsen(8))
	}

	// An empty profile is an empty tree, with empty (not null) lists.
	empty := NewTimeProfile(TimeAxis{}).Tree()
	if empty.Len() != 0 || empty.Frames == nil || empty.Samples == nil || empty.BucketSec != 0 {
		t.Errorf("empty tree %+v", empty)
	}
}

// TestCorpusNetStackTree: on net.4.5.2.x64 the tree of the CPU samples
// written folded is, line for line, what Model.Collect's profile (the
// `stacks` command's) writes; every node's inclusive weight is the sum
// of the folded lines under its path; the buckets of any split of the
// axis add up to the whole; and each process's weight per bucket is its
// CPU utilisation series.
func TestCorpusNetStackTree(t *testing.T) {
	files := openCorpus(t, netFile)
	dec := clrDecoder(t)
	m, err := Build(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, _, err := m.Collect(files, dec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var folded bytes.Buffer
	if err := ref.WriteFolded(&folded); err != nil {
		t.Fatal(err)
	}
	t0, t1 := m.TimeRange()
	axis := TimeAxis{Start: t0, Width: (t1-t0)/250 + 1, Buckets: 250}
	tp, u := NewTimeProfile(axis), NewCPUUsage(axis)
	if _, err := m.EachSelected(files, dec, nil, func(a *Annotation) error {
		tp.Add(a, 1)
		u.Add(a, 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	tr := tp.Tree()
	var got bytes.Buffer
	if err := tr.WriteFolded(&got); err != nil {
		t.Fatal(err)
	}
	want := strings.Split(folded.String(), "\n")
	lines := strings.Split(got.String(), "\n")
	if len(want) < 100 {
		t.Fatalf("only %d folded lines", len(want))
	}
	if len(lines) != len(want) {
		t.Errorf("%d lines from the tree, %d folded", len(lines), len(want))
	}
	for i := range min(len(lines), len(want)) {
		if lines[i] != want[i] {
			t.Fatalf("line %d: tree %q, folded %q", i+1, lines[i], want[i])
		}
	}
	// Inclusive weights from the folded lines: every prefix of a line.
	prefix := map[string]int64{}
	for _, l := range want {
		if l == "" {
			continue
		}
		sp := strings.LastIndexByte(l, ' ')
		n, _ := strconv.ParseInt(l[sp+1:], 10, 64)
		path := l[:sp]
		for {
			prefix[path] += n
			i := strings.LastIndexByte(path, ';')
			if i < 0 {
				break
			}
			path = path[:i]
		}
	}
	incl := tr.Inclusive(0, tr.Buckets)
	if len(prefix) != tr.Len() {
		t.Errorf("%d distinct prefixes, %d nodes", len(prefix), tr.Len())
	}
	for n := range tr.Len() {
		if p := strings.Join(tr.Path(n), ";"); prefix[p] != incl[n] {
			t.Errorf("node %d %q: inclusive %d, folded %d", n, p, incl[n], prefix[p])
		}
	}
	// Ranges: [0,a) + [a,b) + [b,end) is the whole.
	whole := tr.Exclusive(0, tr.Buckets)
	x, y, z := tr.Exclusive(0, 60), tr.Exclusive(60, 170), tr.Exclusive(170, 250)
	for n := range whole {
		if x[n]+y[n]+z[n] != whole[n] {
			t.Fatalf("node %d: %d+%d+%d, whole %d", n, x[n], y[n], z[n], whole[n])
		}
	}
	// Per process and bucket: the CPU utilisation.
	for _, s := range u.Series() {
		root := slices.Index(tr.Frames, s.Name)
		for b, want := range s.Samples {
			var got int64
			inc := tr.Inclusive(b, b+1)
			for n, p := range tr.Parent {
				if p < 0 && int(tr.Frame[n]) == root {
					got += inc[n]
				}
			}
			if got != want {
				t.Fatalf("%s, bucket %d: tree %d, utilisation %d", s.Name, b, got, want)
			}
		}
	}
	if tr.Total != ref.Total {
		t.Errorf("total %d, folded %d", tr.Total, ref.Total)
	}
}
