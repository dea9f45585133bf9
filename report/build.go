package report

import (
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/pipeline"
)

// collector is the second pass: every event decoded, with its process and
// stack, counted by provider and handed to the views that observe events.
// It holds what the views share: the model, the time axis of the
// timeline's buckets, the provider counts, the CPU profile and the
// damaged buffers and records.
type collector struct {
	o     *Options
	m     *analysis.Model
	files []*etl.File
	t1    int64 // FILETIME of the last event
	// axis is the time axis of the views and of their aggregates (the
	// time dimension a time range selects from): Start is the first
	// event's FILETIME, Width the bucket width (100 ns), Buckets 0
	// without events.
	axis analysis.TimeAxis

	pc        decode.ProviderCounter
	prof      *analysis.Profile     // tprof's profile
	tprof     *analysis.TimeProfile // the CPU samples by stack and bucket
	withStack int
	usage     *analysis.CPUUsage // the CPU samples by process and bucket
	readErrs  []error

	views     []finisher // one per view, in the order of views
	observers []observer // the views that observe the events
}

func build(files []*etl.File, dec *decode.Decoder, o *Options) (*Data, error) {
	d, _, err := buildCollected(files, dec, o)
	return d, err
}

// buildCollected is build that returns the collector too, for the
// comparison of two traces (view_diff.go).
func buildCollected(files []*etl.File, dec *decode.Decoder, o *Options) (*Data, *collector, error) {
	var warnings []error
	// One pass builds the model and registers the schemas the trace
	// carries (a prescan). The model's own reader meets the same damaged
	// buffers as the pass below, which reports them.
	m, _, prescanErr := pipeline.Prepare(files, dec)
	if o.Symbolizer != nil {
		m.SetSymbolizer(o.Symbolizer)
	}
	if prescanErr != nil {
		warnings = append(warnings, prescanErr)
	}
	d := &Data{Title: o.Title, maxRows: o.MaxRows}
	if d.Title == "" {
		var names []string
		for i := range files {
			names = append(names, filepath.Base(fileName(files, o, i)))
		}
		d.Title = strings.Join(names, ", ")
	}
	c := &collector{o: o, m: m, files: files}
	c.prepare()
	c.readErrs = c.pass(dec)
	for _, f := range c.views {
		f.finish(d)
	}
	return d, c, etl.ErrorList(append(c.readErrs, warnings...)).Err()
}

func fileName(files []*etl.File, o *Options, i int) string {
	if i < len(o.Names) && o.Names[i] != "" {
		return o.Names[i]
	}
	if files[i].Name != "" {
		return files[i].Name
	}
	return "file " + strconv.Itoa(i+1)
}

// niceWidth returns the timeline's bucket width, in 100 ns: the
// smallest 1, 2 or 5 × 10^k (at least 1 µs) that covers span in at most
// maxBuckets buckets.
// A span too long for any such width gives the largest int64.
func niceWidth(span int64, maxBuckets int) int64 {
	least := etl.AddTime(span/int64(max(maxBuckets, 1)), 1)
	for w := int64(1); w <= math.MaxInt64/10; w *= 10 {
		for _, f := range []int64{1, 2, 5} {
			if w*f >= least && w*f >= 10 {
				return w * f
			}
		}
	}
	return math.MaxInt64
}

// prepare sets the time axis (the first event and the buckets' width
// and number) and starts the views' collectors.
func (c *collector) prepare() {
	defer func() {
		for _, v := range views {
			f := v.collect(c)
			c.views = append(c.views, f)
			if ob, ok := f.(observer); ok {
				c.observers = append(c.observers, ob)
			}
		}
	}()
	if c.m.Events == 0 {
		return
	}
	t0, t1 := c.m.TimeRange()
	span := max(etl.SubTime(t1, t0), 0)
	width := niceWidth(span, c.o.Buckets)
	c.t1, c.axis = t1, analysis.TimeAxis{Start: t0, Width: width, Buckets: int(span/width) + 1}
}

// sec returns a FILETIME as seconds from the first event.
func (c *collector) sec(t int64) float64 { return float64(etl.SubTime(t, c.axis.Start)) / 1e7 }

func (c *collector) pass(dec *decode.Decoder) []error {
	c.tprof, c.usage = analysis.NewTimeProfile(c.axis), analysis.NewCPUUsage(c.axis)
	c.prof = c.tprof.Profile
	sample := func(a *analysis.Annotation) error { // CPU samples
		c.tprof.Add(a, 1)
		c.usage.Add(a, 1)
		if a.Stack != nil {
			c.withStack++
		}
		return nil
	}
	var err error
	if splitPass() {
		err = c.passShared(dec, sample)
	} else {
		opts := &analysis.CollectOptions{NeedsSchema: true, Observe: c.observe}
		_, err = c.m.EachSelected(c.files, dec, opts, sample)
	}
	var damage etl.ErrorList
	if errors.As(err, &damage) {
		return damage
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// observe takes every event, decoded, in time order.
func (c *collector) observe(ev *etl.Event, res *decode.Result) { c.observeWith(ev, res, c.observers) }

// observeWith is observe with the observers obs (of c.observers).
func (c *collector) observeWith(ev *etl.Event, res *decode.Result, obs []observer) {
	c.pc.Add(ev, res)
	c.usage.Observe(ev, res)
	for _, o := range obs {
		o.observe(ev, res)
	}
}

func rfc3339(t int64) string {
	return etl.FiletimeToTime(t).Format("2006-01-02T15:04:05.0000000Z")
}
