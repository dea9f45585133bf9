package analysis

import (
	"time"

	"github.com/etwkit/etw/catalog"
	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/tdh"
)

// GCStats summarises the garbage collections of a .NET process, with
// pauses as TraceEvent's GCStats defines them: a GC's pause runs from the
// SuspendEEBegin (reason SuspendForGC or SuspendForGCPrep) that stopped
// the managed threads for it to the RestartEEEnd that let them run again;
// background GCs add up the pauses of every suspension they make.
type GCStats struct {
	// Count is the number of GCs (GCStart events with a new GC number:
	// runtimes that log two GCStart versions per GC count once).
	Count int
	// PauseTotal and PauseMax are the sum and the longest of the GCs'
	// pauses.
	PauseTotal, PauseMax time.Duration
	// GCs lists each GC in order.
	GCs []GC
}

// GC is one garbage collection.
type GC struct {
	Number     uint32 // the runtime's GC count
	Generation uint32 // GCStart's Depth
	Reason     uint32 // GCStart's Reason (0 AllocSmall, 1 Induced, …)
	Type       uint32 // 0 blocking, 1 background, 2 foreground
	Start      time.Time
	// Pause is the time the managed threads were stopped for the GC
	// (0 when the trace lacks the suspension or the restart).
	Pause time.Duration
	// Duration runs from GCStart to GCEnd (0 without a GCEnd).
	Duration time.Duration

	start, pauseStart, lastRestart int64
	paused, ended                  bool
}

// gcState follows one process's suspensions.
type gcState struct {
	suspendTID uint32
	suspendFT  int64
	pending    bool // a suspension for a GC has no GC yet
	cur        *GC
}

// Reasons of SuspendEEBegin that suspend for a GC.
const (
	suspendForGC     = 1
	suspendForGCPrep = 6
)

func (b *Builder) gcEvent(ev *etl.Event, p *Process, tid uint32, d *tdh.Decoded) {
	st := b.gc[p]
	if st == nil {
		st = &gcState{}
		b.gc[p] = st
	}
	if p.GC == nil {
		p.GC = &GCStats{}
	}
	ft := ev.Time
	switch ev.Descriptor.ID {
	case catalog.DotNETGCSuspendEEBegin:
		st.suspendTID = tid
		if r, ok := getU(d, "Reason"); ok && (r == suspendForGC || r == suspendForGCPrep) {
			st.suspendFT, st.pending = ft, true
		}
	case catalog.DotNETGCStart:
		n, ok := getU(d, "Count")
		if !ok {
			return
		}
		if st.cur != nil && st.cur.Number == uint32(n) {
			return // the same GC logged again (GCStart_V1 and _V2)
		}
		gc := GC{Number: uint32(n), start: ft, pauseStart: ft}
		if v, ok := getU(d, "Depth"); ok {
			gc.Generation = uint32(v)
		}
		if v, ok := getU(d, "Reason"); ok {
			gc.Reason = uint32(v)
		}
		if v, ok := getU(d, "Type"); ok {
			gc.Type = uint32(v)
		}
		if st.pending {
			gc.pauseStart = st.suspendFT
			st.pending = false
		}
		p.GC.GCs = append(p.GC.GCs, gc)
		st.cur = &p.GC.GCs[len(p.GC.GCs)-1]
	case catalog.DotNETGCEnd:
		if g := st.cur; g != nil && !g.ended {
			if n, ok := getU(d, "Count"); !ok || uint32(n) == g.Number {
				g.Duration = etl.FiletimeDuration(g.start, ft)
				g.ended = true
			}
		}
	case catalog.DotNETGCRestartEEEnd:
		g := st.cur
		if g == nil || tid != st.suspendTID {
			return
		}
		switch {
		case !g.paused:
			g.Pause = etl.FiletimeDuration(g.pauseStart, ft)
			g.paused, g.lastRestart = true, ft
		case g.Type == 1 && st.suspendFT > g.lastRestart:
			// A background GC suspends again (for its ephemeral GCs and
			// its final phase): each suspension adds to its pause.
			g.Pause = time.Duration(etl.AddTime(int64(g.Pause), int64(etl.FiletimeDuration(st.suspendFT, ft))))
			g.lastRestart = ft
		}
	}
}

// finish totals the GCs of p.
func (st *gcState) finish(p *Process) {
	s := p.GC
	if s == nil {
		return
	}
	s.Count = len(s.GCs)
	s.PauseTotal, s.PauseMax = 0, 0
	for i := range s.GCs {
		g := &s.GCs[i]
		g.Start = ftTime(g.start)
		s.PauseTotal = time.Duration(etl.AddTime(int64(s.PauseTotal), int64(g.Pause)))
		s.PauseMax = max(s.PauseMax, g.Pause)
	}
}
