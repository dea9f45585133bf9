package tables

import (
	"strings"

	"github.com/google/uuid"

	"github.com/etwkit/etw/analysis"
)

// modelRows are the model's records with the ids Add gave them, for the
// rows writeModel writes while the second pass runs.
type modelRows struct {
	procs   []*analysis.Process
	images  []idOf[*analysis.Image]
	methods []idOf[*analysis.Method]
}

// idOf is a record with its id and its process's upid (0: the kernel's
// or unknown).
type idOf[T any] struct {
	rec      T
	id, upid int64
}

// assignModel gives the processes, threads, images and methods of the
// trace's model their ids (the second pass needs them) and returns what
// writeModel writes. It sorts the model's lists (Process.Images, …),
// after which the model is only read: writeModel may run beside the
// second pass.
func (t *traceState) assignModel() *modelRows {
	m, w := t.m, t.w
	mr := &modelRows{procs: m.Processes()}
	for _, p := range mr.procs {
		w.upid++
		t.upids[p] = w.upid
	}
	for _, p := range mr.procs {
		upid := t.upids[p]
		for _, th := range p.Threads() {
			w.utid++
			t.utids[th] = w.utid
		}
		for _, im := range p.Images() {
			if id, isNew := assign(t.images, im, &w.image); isNew {
				mr.images = append(mr.images, idOf[*analysis.Image]{im, id, upid})
			}
		}
		for _, me := range p.Methods() {
			if id, isNew := assign(t.methods, me, &w.method); isNew {
				mr.methods = append(mr.methods, idOf[*analysis.Method]{me, id, upid})
			}
		}
	}
	for _, im := range m.KernelImages() {
		if id, isNew := assign(t.images, im, &w.image); isNew {
			mr.images = append(mr.images, idOf[*analysis.Image]{im, id, 0})
		}
	}
	return mr
}

// writeModel writes the processes, threads, images, methods and GCs of
// the trace's model with the ids assignModel gave them. It reads the
// model and the process and thread ids, and writes only those five
// tables: it runs beside the second pass, which holds back the rows of
// the images and methods it is the first to meet (lateRows).
func (t *traceState) writeModel(mr *modelRows) error {
	m, w := t.m, t.w
	for _, p := range mr.procs {
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
			if err := w.threads.add(&ThreadRow{Trace: t.id, Utid: t.utids[th], TID: th.TID, Upid: upid,
				Start: ns(th.Start()), End: ns(th.End()), Name: th.Name}); err != nil {
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
	for _, im := range mr.images {
		r := t.imageRow(im.rec, im.id, im.upid)
		if err := w.images.add(&r); err != nil {
			return err
		}
	}
	for _, me := range mr.methods {
		r := t.methodRow(me.rec, me.id, me.upid)
		if err := w.methods.add(&r); err != nil {
			return err
		}
	}
	return nil
}

// ms converts nanoseconds to milliseconds.
func ms(ns int64) float64 { return float64(ns) / 1e6 }

// lateRows are the rows of the images and methods the second pass's
// frames are the first to name (none of the model's processes has them),
// written after the model's.
type lateRows struct {
	images  []ImageRow
	methods []MethodRow
}

// imageID returns the id of image im, giving it one the first time (a
// frame's image that no process of the model has: its row waits in
// t.late).
func (t *traceState) imageID(im *analysis.Image) int64 {
	id, isNew := assign(t.images, im, &t.w.image)
	if isNew {
		t.late.images = append(t.late.images, t.imageRow(im, id, 0))
	}
	return id
}

// methodID returns the id of method me, giving it one the first time (as
// imageID).
func (t *traceState) methodID(me *analysis.Method) int64 {
	id, isNew := assign(t.methods, me, &t.w.method)
	if isNew {
		t.late.methods = append(t.late.methods, t.methodRow(me, id, 0))
	}
	return id
}

// writeLate writes the rows of t.late, after the model's.
func (t *traceState) writeLate() error {
	for i := range t.late.images {
		if err := t.w.images.add(&t.late.images[i]); err != nil {
			return err
		}
	}
	for i := range t.late.methods {
		if err := t.w.methods.add(&t.late.methods[i]); err != nil {
			return err
		}
	}
	t.late = lateRows{}
	return nil
}

// imageRow returns the row of image im (of process upid, 0 for the
// kernel's or an unknown process).
func (t *traceState) imageRow(im *analysis.Image, id, upid int64) ImageRow {
	load, unload := im.Loaded()
	pdb := im.PDB()
	r := ImageRow{Trace: t.id, ImageID: id, Upid: upid, Kernel: t.m.IsKernelAddress(im.Base), Base: im.Base, Size: im.Size,
		Path: im.Path, FileName: im.FileName(), TimeDateStamp: im.TimeDateStamp(), Checksum: im.Checksum(),
		PDBName: pdb.Name, PDBAge: pdb.Age, Load: ns(load), Unload: ns(unload)}
	if pdb.GUID != uuid.Nil {
		r.PDBGUID = strings.ToUpper(pdb.GUID.String())
	}
	return r
}

// methodRow returns the row of method me (of process upid, 0 when
// unknown).
func (t *traceState) methodRow(me *analysis.Method, id, upid int64) MethodRow {
	return MethodRow{Trace: t.id, MethodID: id, Upid: upid, Address: me.Start, Size: me.Size,
		Name: me.FullName(), Namespace: me.Namespace, MethodName: me.Name, Signature: me.Signature,
		Token: me.Token, CLRMethodID: me.ID, CLRModuleID: me.ModuleID}
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
