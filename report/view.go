package report

import (
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// A view is one section of the report, written in one file (view_*.go):
// what it collects in the pass over the events, the part of [Data] it
// fills, and its part of the page (its template and the charts it draws).
// A new view is a file that declares one and a line in views.
type view struct {
	// id and title name the section and its tab.
	id, title string
	// collect returns what the view collects for one report; when it is
	// an observer too, it sees every event of the pass.
	collect func(c *collector) finisher
	// present reports whether d holds anything for the view (else the
	// page has no tab and no section for it).
	present func(d *Data) bool
	// page returns what the view's template reads for d: a struct with
	// the field D (d) and the view's charts.
	page func(d *Data) (any, error)
	// tmpl is the section's template (html/template, with the page's
	// functions).
	tmpl string
}

// views are the report's sections, in the order of the page's tabs.
var views = []*view{overviewView, utilizationView, timelineView, processesView, cpuView, dotnetView, ioView, networkView, threadsView, providersView, eventsView, diffView}

// finisher fills a view's part of the report's data once the pass is
// over. Views finish in the order of views (the timeline places the
// damaged buffers the overview lists; the events table links the
// processes table's rows to its processes, see linkProcesses).
type finisher interface{ finish(d *Data) }

// observer is a view's collector that sees every event of the pass,
// decoded, in time order.
type observer interface {
	observe(ev *etl.Event, res *decode.Result)
}

// finishFunc is a finisher of a view that reads only the model and what
// the collector shares.
type finishFunc func(d *Data)

func (f finishFunc) finish(d *Data) { f(d) }
