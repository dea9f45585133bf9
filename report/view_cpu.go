package report

import (
	"cmp"
	"encoding/json"
	"html/template"
	"slices"

	"github.com/etwkit/etw/analysis"
)

func (c *collector) cpu(d *Data) {
	if c.prof.Total == 0 {
		return
	}
	root, frames := flameTree(c.prof)
	kept := prune(root, c.o.FlameMinFraction)
	d.CPU = &CPU{Samples: root.Value, WithStack: c.withStack, MinFraction: c.o.FlameMinFraction,
		Frames: frames, Kept: kept, Root: root, Profile: boundTriples(c.tprof.Tree(), maxProfileTriples)}
}

// maxProfileTriples bounds the profile's (bucket, node, samples) triples
// in the report (about 11 bytes each in the page): a trace with many
// distinct stacks spread over its time gets coarser buckets instead of a
// larger page.
const maxProfileTriples = 200_000

// boundTriples returns tr with its buckets merged 2, 4, 8… at a time until
// it holds at most limit triples (or has one bucket).
func boundTriples(tr *analysis.StackTree, limit int) *analysis.StackTree {
	for tr.Triples() > limit && tr.Buckets > 1 {
		tr = tr.Coarsen(2)
	}
	return tr
}

// flameTree builds the flame-graph tree of prof's stacks (in the order
// of its folded lines): the root ("all") has the processes as children.
// It returns the root and the number of nodes below it.
func flameTree(prof *analysis.Profile) (*FlameNode, int) {
	root := &FlameNode{Name: "all"}
	var path []*FlameNode // path[i]: the node of frame i of the previous stack
	var prev []string
	nodes := 0
	prof.EachStack(func(frames []string, n int64) {
		if n <= 0 {
			return
		}
		// Stacks are sorted: a prefix shared with the previous stack is
		// the same path, and a path left is never met again.
		common := 0
		for common < len(frames) && common < len(prev) && frames[common] == prev[common] {
			common++
		}
		path = path[:common]
		root.Value += n
		for i, f := range frames {
			if i >= common {
				parent := root
				if i > 0 {
					parent = path[i-1]
				}
				node := &FlameNode{Name: f}
				parent.Children = append(parent.Children, node)
				path = append(path, node)
				nodes++
			}
			path[i].Value += n
		}
		prev = append(prev[:0], frames...)
	})
	// Processes by samples, most first; frames stay in name order.
	slices.SortStableFunc(root.Children, func(a, b *FlameNode) int { return cmp.Compare(b.Value, a.Value) })
	return root, nodes
}

// prune drops the frames below each process that hold less than frac of
// the process's samples (their samples stay counted in their parent) and
// returns the number of nodes kept below the root. Processes are all
// kept.
func prune(root *FlameNode, frac float64) int {
	kept := 0
	var walk func(n *FlameNode, min float64)
	walk = func(n *FlameNode, min float64) {
		out := n.Children[:0]
		for _, ch := range n.Children {
			if float64(ch.Value) >= min {
				out = append(out, ch)
				kept++
				walk(ch, min)
			}
		}
		clear(n.Children[len(out):])
		n.Children = out
		if len(n.Children) == 0 {
			n.Children = nil
		}
	}
	for _, p := range root.Children {
		kept++
		walk(p, frac*float64(p.Value))
	}
	return kept
}

// cpuView: the flame graph of the sampled CPU stacks (the profile the
// pass collects).
var cpuView = &view{id: "cpu", title: "CPU", tmpl: cpuTmpl,
	present: func(d *Data) bool { return d.CPU != nil },
	collect: func(c *collector) finisher { return finishFunc(c.cpu) },
	page: func(d *Data) (any, error) {
		b, err := json.Marshal(d.CPU.Profile) // escapes <, > and & for the script element
		if err != nil {
			return nil, err
		}
		return &struct {
			D       *Data
			Profile template.JS // the profile by time, for the script
		}{d, template.JS(b)}, nil
	},
}

// cpuTmpl is the section's template. The flame graph, the call tree and
// the callers and callees are drawn by the page's script (profile.js)
// from the profile, for the time range selected on the time charts.
const cpuTmpl = `{{with .D.CPU}}
<section id="cpu" class="sect">
<h2>CPU: sampled stacks</h2>
<p class="note">{{thousands .Samples}} CPU samples (the idle thread's left out, except in DPCs and interrupts), {{thousands .WithStack}} of them with a stack: what <code>tracerpt-go stacks</code> writes, as a flame graph with the callers on top, a call tree and the callers and callees of any function. Frames are modules, or .NET methods; native functions with <code>--symbols</code>. The flame graph leaves out frames holding less than {{pct .MinFraction 1}} of their process's samples ({{thousands .Kept}} of {{thousands .Frames}} frames kept for the whole trace). Click a frame to zoom into it, a frame above to zoom out; search highlights matching frames. Everything here shows the time range selected on any time chart: <span class="zoomview"></span>.</p>
<div class="toolbar"><label>Process <select id="flame-proc"><option value="">All processes</option></select></label>
<input type="search" id="flame-search" placeholder="Search frames (text or /regex/)" aria-label="Search frames">
<button type="button" id="flame-reset">Reset zoom</button><span id="flame-info"></span></div>
<div id="flame" class="flame" data-chart="flame" data-min-fraction="{{.MinFraction}}"{{with $.D.CPUUtilization}}{{if .IntervalMS}} data-interval-ms="{{.IntervalMS}}"{{end}}{{end}}><noscript><p>The flame graph is drawn by the page's script: enable JavaScript to see it.</p></noscript></div>
<h3>Call tree</h3>
<p class="note">Top down, per process: inclusive samples (the function and what it calls) and exclusive samples (the function's own), in % of the samples in the range{{with $.D.CPUUtilization}}{{if .IntervalMS}} and in ms of CPU ({{.IntervalMS}} ms a sample, from {{.IntervalFrom}}){{end}}{{end}}. Click ▸ to expand, a name for its callers and callees.</p>
<div class="toolbar"><input type="search" id="tree-search" placeholder="Find frames (text or /regex/)" aria-label="Find frames in the call tree">
<button type="button" id="tree-hot">Expand the hot path</button><button type="button" id="tree-collapse">Collapse all</button><span id="tree-info" class="info"></span></div>
<div class="scrollbox"><table id="calltree" class="calltree"><thead><tr><th>Frame</th><th>Inclusive</th><th>%</th><th>ms</th><th>Exclusive</th><th>%</th><th>ms</th></tr></thead><tbody></tbody></table></div>
<h3>Callers and callees</h3>
<p class="note">Of one function, merged over every stack and process it appears in (a recursive call counts once, at its outermost frame): who called it, and what it called, with the samples spent in it.</p>
<div class="toolbar"><input type="search" id="bf-search" list="bf-names" placeholder="Function (pick from the call tree, or type its name)" aria-label="Function"><datalist id="bf-names"></datalist><span id="bf-info" class="info"></span></div>
<div id="butterfly" class="butterfly"></div>
<script type="application/json" id="profile-data">{{$.Profile}}</script>
</section>
{{end}}`
