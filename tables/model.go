package tables

import (
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
)

// writeModel writes the processes, threads, images, methods and GCs of
// the trace's model, giving each its id.
func (t *traceState) writeModel() error {
	m, w := t.m, t.w
	procs := m.Processes()
	for _, p := range procs {
		w.upid++
		t.upids[p] = w.upid
	}
	for _, p := range procs {
		upid := t.upids[p]
		r := ProcessRow{Trace: t.id, Upid: upid, PID: p.PID, Name: p.Name, ImageFileName: p.ImageFileName,
			CommandLine: p.CommandLine, Start: ns(p.Start()), End: ns(p.End()), ParentPID: p.ParentPID,
			Exited: p.Exited, ExitStatus: p.ExitStatus, Events: int64(p.Events), CPUSamples: int64(p.CPUSamples)}
		at := p.Start()
		if at.IsZero() {
			at = m.Start()
		}
		if pp := m.ProcessAt(p.ParentPID, at); pp != nil && pp != p && p.ParentPID != p.PID {
			r.ParentUpid = t.upids[pp]
		}
		if err := w.processes.add(&r); err != nil {
			return err
		}
		for _, th := range p.Threads() {
			w.utid++
			t.utids[th] = w.utid
			if err := w.threads.add(&ThreadRow{Trace: t.id, Utid: w.utid, TID: th.TID, Upid: upid,
				Start: ns(th.Start()), End: ns(th.End()), Name: th.Name}); err != nil {
				return err
			}
		}
		for _, im := range p.Images() {
			if _, err := t.imageID(im, upid); err != nil {
				return err
			}
		}
		for _, me := range p.Methods() {
			if _, err := t.methodID(me, upid); err != nil {
				return err
			}
		}
		if p.GC != nil {
			for i := range p.GC.GCs {
				g := &p.GC.GCs[i]
				if err := w.gcs.add(&GCRow{Trace: t.id, Upid: upid, Number: g.Number, Generation: g.Generation,
					Reason: g.Reason, Type: g.Type, Start: ns(g.Start), PauseMS: ms(g.Pause.Nanoseconds()),
					DurationMS: ms(g.Duration.Nanoseconds())}); err != nil {
					return err
				}
			}
		}
	}
	for _, im := range m.KernelImages() {
		if _, err := t.imageID(im, 0); err != nil {
			return err
		}
	}
	return nil
}

// ms converts nanoseconds to milliseconds.
func ms(ns int64) float64 { return float64(ns) / 1e6 }

// imageID returns the id of image im, writing its row the first time
// (of process upid, 0 for the kernel's or an unknown process).
func (t *traceState) imageID(im *analysis.Image, upid int64) (int64, error) {
	id, isNew := assign(t.images, im, &t.w.image)
	if !isNew {
		return id, nil
	}
	load, unload := im.Loaded()
	r := ImageRow{Trace: t.id, ImageID: id, Upid: upid, Kernel: t.m.IsKernelAddress(im.Base), Base: im.Base, Size: im.Size,
		Path: im.Path, FileName: im.FileName(), TimeDateStamp: im.TimeDateStamp, Checksum: im.Checksum,
		PDBName: im.PDB.Name, PDBAge: im.PDB.Age, Load: ns(load), Unload: ns(unload)}
	if im.PDB.GUID != uuid.Nil {
		r.PDBGUID = strings.ToUpper(im.PDB.GUID.String())
	}
	return id, t.w.images.add(&r)
}

// methodID returns the id of method me, writing its row the first time
// (of process upid, 0 when unknown).
func (t *traceState) methodID(me *analysis.Method, upid int64) (int64, error) {
	id, isNew := assign(t.methods, me, &t.w.method)
	if !isNew {
		return id, nil
	}
	return id, t.w.methods.add(&MethodRow{Trace: t.id, MethodID: id, Upid: upid, Address: me.Start, Size: me.Size,
		Name: me.FullName(), Namespace: me.Namespace, MethodName: me.Name, Signature: me.Signature,
		Token: me.Token, CLRMethodID: me.ID, CLRModuleID: me.ModuleID})
}

// assign returns the id of k in ids, giving it the id after *last when it
// has none yet (isNew).
func assign[K comparable](ids map[K]int64, k K, last *int64) (id int64, isNew bool) {
	if id, ok := ids[k]; ok {
		return id, false
	}
	*last++
	ids[k] = *last
	return *last, true
}
