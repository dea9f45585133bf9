package analysis

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
	"github.com/etwkit/etw/internal/prefault"
)

// NoID is the process or thread id of an event that names none
// (0xFFFFFFFF, as perfinfo records carry).
const NoID = 0xFFFFFFFF

// Bounds of the time ranges: a process, thread, image or method that
// existed when the trace started (rundown) has no known start; one still
// alive at the end has no end.
const (
	minTime = math.MinInt64
	maxTime = math.MaxInt64
)

// Model is what a trace says about the machine: processes, their threads,
// images and .NET methods, the kernel's images, the stack-key definitions,
// and per-process counts and .NET GC statistics. Build it with [Build] or
// a [Builder]. Its lookups are safe for concurrent use once building is
// finished.
type Model struct {
	ptrSize    int
	start, end int64 // FILETIMEs of the first and last event

	procs  []*Process
	byPID  map[uint32][]*Process // records of a pid in creation order
	byTID  map[uint32][]*Thread  // records of a tid in creation order
	kernel imageList             // images at kernel addresses (drivers)

	keys     map[uint64][]keyDef // stack key definitions, by key value
	keyOwner map[uint64]uint32   // process that last referenced a key
	volumes  volumeMap           // NT device paths → drive letters
	arena    []uint64            // frames of the key definitions

	// Events is the number of events observed; Unattributed the number
	// of them no process could be given to.
	Events, Unattributed int
	// CPUSamples is the number of CPU samples [IsCPUSample] selects
	// (other threads' samples, and the idle thread's in DPCs and
	// interrupts): what shares of CPU are taken of.
	CPUSamples int
	// StackKeys is the number of stack-key definitions (KeyDelete and
	// KeyRundown events) observed.
	StackKeys int

	sym Symbolizer // names code in images; nil: none (see SetSymbolizer)

	// late, if not nil, is still adding the .NET methods (Options.LateMethods).
	late *methodQueue

	// build is the builder's cache of byPID and byTID while it builds
	// (see idcache.go); nil once built.
	build *idCache
}

// WaitMethods waits until every .NET method of the trace is added to the
// model, which [Options.LateMethods] lets [Build] return before. It
// returns at once for other models (and a nil one). It may be called
// more than once, from any goroutine; a panic of the goroutine adding the
// methods is raised again on each call.
func (m *Model) WaitMethods() {
	if m != nil && m.late != nil {
		m.late.wait()
	}
}

// methodsPending reports whether the model's methods are still being
// added (see WaitMethods).
func (m *Model) methodsPending() bool { return m.late != nil && m.late.pending() }

func newModel() *Model {
	return &Model{
		byPID:    map[uint32][]*Process{},
		byTID:    map[uint32][]*Thread{},
		keys:     map[uint64][]keyDef{},
		keyOwner: map[uint64]uint32{},
		start:    maxTime,
		end:      minTime,
	}
}

// Process is one process, from its kernel Process events (Start, End and
// the DCStart/DCEnd rundown), or a placeholder for a pid that events name
// without any Process event. A pid reused during the trace gives several
// records, told apart by Index.
type Process struct {
	PID, ParentPID uint32
	// Index is unique in the trace: records in creation order.
	Index int
	// ImageFileName is the image name the kernel logs ("Test.x64.exe",
	// "System"); Name is it without directory and extension, as
	// TraceEvent names processes ("Test.x64").
	ImageFileName, Name string
	CommandLine         string
	// ExitStatus is set with Exited, from the End event.
	ExitStatus int32
	Exited     bool
	// Events and CPUSamples count the events attributed to the process
	// and, of them, the PerfInfo SampleProf CPU samples.
	Events, CPUSamples int
	// CLR is set when .NET runtime events were logged by the process; GC
	// then holds its garbage-collection statistics.
	CLR bool
	GC  *GCStats

	start, end int64 // minTime: before the trace or unknown; maxTime: alive at the end
	known      bool  // a Process event described it
	threads    []*Thread
	images     imageList
	methods    methodList
	methodByID *methodIndex // while building (nil once the model is finished)
}

// Start returns the time the process started, or the zero time when it
// was already running when the trace began (or the trace does not say).
func (p *Process) Start() time.Time { return ftTime(p.start) }

// End returns the time the process exited, or the zero time when it was
// still running when the trace ended.
func (p *Process) End() time.Time { return ftTime(p.end) }

// Threads returns the process's threads, in creation order.
func (p *Process) Threads() []*Thread { return p.threads }

// Images returns the images loaded in the process, by base address.
func (p *Process) Images() []*Image { return p.images.sorted() }

// Methods returns the .NET methods the runtime placed in the process's
// memory, by start address.
func (p *Process) Methods() []*Method { return p.methods.sorted() }

// String returns "Name (pid)".
func (p *Process) String() string {
	if p == nil {
		return ""
	}
	name := p.Name
	if name == "" {
		name = "Process"
	}
	return name + " (" + strconv.FormatUint(uint64(p.PID), 10) + ")"
}

// Thread is one thread: its id and process over a time range.
type Thread struct {
	TID, PID uint32
	Process  *Process
	Name     string

	start, end int64
	learned    bool // from event headers, not from a Thread event
}

// Start returns when the thread started (zero when before the trace).
func (t *Thread) Start() time.Time { return ftTime(t.start) }

// End returns when the thread ended (zero when alive at the end).
func (t *Thread) End() time.Time { return ftTime(t.end) }

// PDB identifies the program database of an image (KernelTraceControl's
// DbgID_RSDS): what a symbol server lookup needs.
type PDB struct {
	Name string
	GUID uuid.UUID
	Age  uint32
}

// Image is one image (executable or DLL) mapped into a process, or a
// kernel driver.
type Image struct {
	Base, Size uint64
	// Path is the file name the kernel logs (a drive path or a device
	// path such as \Device\HarddiskVolume2\Windows\System32\ntdll.dll).
	Path string
	PID  uint32

	// The model holds one record per image per process (a trace of many
	// short processes holds hundreds of thousands): what identifies the
	// file besides its path is kept once for all the records that share
	// it, and the file name is found in Path when asked, so that a record
	// takes 64 bytes of heap (TestRecordSizes).
	id           *imageIdentity // nil: none known
	load, unload int64
}

// imageIdentity is what identifies an image's file besides its path: the
// PE header's time stamp and checksum, and its PDB. The Builder interns
// them (Builder.identify).
type imageIdentity struct {
	stamp, checksum uint32
	pdb             PDB
}

// identity returns im's identity (zero when none is known).
func (im *Image) identity() imageIdentity {
	if im == nil || im.id == nil {
		return imageIdentity{}
	}
	return *im.id
}

// TimeDateStamp returns the time stamp of the image's PE header, as the
// Image event or KernelTraceControl's ImageID event gives it (0 if none).
func (im *Image) TimeDateStamp() uint32 { return im.identity().stamp }

// Checksum returns the checksum of the image's PE header, as the Image
// event gives it.
func (im *Image) Checksum() uint32 { return im.identity().checksum }

// PDB returns the image's debug identity, when the trace carries it
// (zero otherwise).
func (im *Image) PDB() PDB { return im.identity().pdb }

// FileName returns the last element of Path ("ntdll.dll").
func (im *Image) FileName() string {
	if im == nil {
		return ""
	}
	return baseName(im.Path)
}

// Loaded returns the load and unload times; zero when the image was
// loaded before the trace or never unloaded in it.
func (im *Image) Loaded() (load, unload time.Time) { return ftTime(im.load), ftTime(im.unload) }

// Method is a .NET method whose code the runtime placed at Start (JIT
// compiled, or precompiled and reported by rundown).
type Method struct {
	ID, ModuleID uint64
	Start        uint64
	Size         uint32
	Token, Flags uint32
	// Namespace is the method's type ("System.Collections.Generic.List`1[System.__Canon]").
	Namespace, Name, Signature string

	load, unload int64
}

// FullName returns "Namespace.Name", the method's type and name.
func (m *Method) FullName() string {
	if m == nil {
		return ""
	}
	if m.Namespace == "" {
		return m.Name
	}
	return string(m.appendFullName(nil))
}

func (m *Method) appendFullName(dst []byte) []byte {
	if m.Namespace != "" {
		dst = append(dst, m.Namespace...)
		dst = append(dst, '.')
	}
	return append(dst, m.Name...)
}

// span is what a rangeList holds: an address range with a lifetime.
type span interface {
	*Image | *Method
	bounds() (start, size uint64, load, unload int64)
}

func (im *Image) bounds() (uint64, uint64, int64, int64) { return im.Base, im.Size, im.load, im.unload }
func (m *Method) bounds() (uint64, uint64, int64, int64) {
	return m.Start, uint64(m.Size), m.load, m.unload
}

// rangeList is a list of images or methods sorted by start address on
// demand.
type rangeList[T span] struct {
	list    []T
	dirty   bool
	maxSize uint64
}

type (
	imageList  = rangeList[*Image]
	methodList = rangeList[*Method]
)

func (l *rangeList[T]) add(x T) {
	l.list = append(l.list, x)
	l.dirty = true
	_, size, _, _ := x.bounds()
	l.maxSize = max(l.maxSize, size)
}

func (l *rangeList[T]) sorted() []T {
	if l.dirty {
		slices.SortStableFunc(l.list, func(a, b T) int {
			as, _, al, _ := a.bounds()
			bs, _, bl, _ := b.bounds()
			if c := cmp.Compare(as, bs); c != 0 {
				return c
			}
			return cmp.Compare(al, bl)
		})
		l.dirty = false
	}
	return l.list
}

// find returns the item holding addr at time ft: one alive then if any,
// else the one whose lifetime is closest (among equals, the one of the
// highest start address, then the latest loaded).
// stable reports that the answer is the same at any time (no other item
// ever held addr, or the answer was alive at all times and is preferred
// to the others).
func (l *rangeList[T]) find(addr uint64, ft int64) (best T, stable bool) {
	best, lo, hi := l.findSpan(addr, ft)
	return best, allTimes(lo, hi)
}

// allTimes reports whether [lo, hi] is every time: an answer that holds
// for it does not depend on the time.
func allTimes(lo, hi int64) bool { return lo == minTime && hi == maxTime }

// findSpan is find, with the times [lo, hi] (ft among them) at all of
// which find gives the same answer: all times when no other item ever
// held addr; else, when the answer is alive at ft, its lifetime less the
// lifetimes of the items that find prefers to it when alive together;
// else ft alone.
func (l *rangeList[T]) findSpan(addr uint64, ft int64) (best T, lo, hi int64) {
	list := l.sorted()
	i, _ := slices.BinarySearchFunc(list, addr, func(x T, a uint64) int {
		if start, _, _, _ := x.bounds(); start <= a {
			return -1
		}
		return 1
	})
	var bestGap uint64 = math.MaxUint64
	holders := 0
	// end and start are the nearest ends below ft and starts above it of
	// the lifetimes of the holders found so far that were not alive at
	// ft. A holder found before the answer wins a tie, so an answer alive
	// at ft (gap 0, found once: nothing is nearer) holds only where none
	// of those found before it is alive: its lifetime less theirs.
	end, start := int64(minTime), int64(maxTime)
	var lo0, hi0 int64 // that answer's lifetime, so narrowed
	for j := i - 1; j >= 0; j-- {
		start0, size, load, unload := list[j].bounds()
		if addr-start0 >= l.maxSize {
			break
		}
		if addr < start0 || addr-start0 >= size {
			continue
		}
		holders++
		if gap := timeGap(ft, load, unload); gap < bestGap {
			best, bestGap = list[j], gap
			if gap == 0 {
				lo0, hi0 = load, unload
				if end != minTime {
					lo0 = max(lo0, end+1)
				}
				if start != maxTime {
					hi0 = min(hi0, start-1)
				}
			}
		}
		if unload < ft {
			end = max(end, unload)
		} else if load > ft {
			start = min(start, load)
		}
	}
	switch {
	case holders == 0 || holders == 1 && bestGap != math.MaxUint64:
		// (One holder found but not returned, a time gap beyond any
		// FILETIME, would depend on the time after all.)
		return best, minTime, maxTime
	case bestGap != 0:
		return best, ft, ft
	}
	return best, lo0, hi0
}

// timeGap returns how far ft lies outside [from, to] (0 inside).
func timeGap(ft, from, to int64) uint64 {
	switch {
	case ft < from:
		return uint64(from) - uint64(ft)
	case ft > to:
		return uint64(ft) - uint64(to)
	}
	return 0
}

// Processes returns every process record, by pid and then start.
func (m *Model) Processes() []*Process {
	out := slices.Clone(m.procs)
	slices.SortStableFunc(out, func(a, b *Process) int {
		if c := cmp.Compare(a.PID, b.PID); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return out
}

// KernelImages returns the images loaded at kernel addresses (the kernel
// and its drivers), by base address.
func (m *Model) KernelImages() []*Image { return m.kernel.sorted() }

// Start and End return the times of the first and last events observed.
func (m *Model) Start() time.Time { return ftTime(m.start) }

// End returns the time of the last event observed.
func (m *Model) End() time.Time { return ftTime(m.end) }

// TimeRange returns the FILETIMEs of the first and last events observed
// (first > last when there were none). Unlike Start and End, it keeps
// the extreme values a damaged record can hold.
func (m *Model) TimeRange() (first, last int64) { return m.start, m.end }

// ProcessAt returns the record of process pid at time t: the newest one
// that had started by then (or that events named by then), nil if none.
func (m *Model) ProcessAt(pid uint32, t time.Time) *Process {
	return m.processAt(pid, timeFT(t))
}

func (m *Model) processAt(pid uint32, ft int64) *Process {
	return processIn(m.pidRecs(m.build, pid), ft)
}

// processIn returns the record of recs (a pid's) at ft: the latest one
// started by then, else the first.
func processIn(recs []*Process, ft int64) *Process {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].start <= ft {
			return recs[i]
		}
	}
	if len(recs) > 0 {
		return recs[0]
	}
	return nil
}

// ThreadPID returns the process of thread tid at time t. Thread 0 is the
// idle thread of every processor: pid 0.
func (m *Model) ThreadPID(tid uint32, t time.Time) (uint32, bool) {
	return m.threadPID(tid, timeFT(t))
}

func (m *Model) threadPID(tid uint32, ft int64) (uint32, bool) {
	return threadPIDIn(m.tidRecs(m.build, tid), tid, ft)
}

// threadPIDIn is Model.threadPID with recs the records of tid.
func threadPIDIn(recs []*Thread, tid uint32, ft int64) (uint32, bool) {
	if th := threadIn(recs, ft); th != nil {
		return th.PID, true
	}
	if tid == 0 {
		return 0, true
	}
	return NoID, false
}

func (m *Model) threadAt(tid uint32, ft int64) *Thread {
	return threadIn(m.tidRecs(m.build, tid), ft)
}

// threadIn returns the record of recs (a tid's) at ft.
func threadIn(recs []*Thread, ft int64) *Thread {
	if i := threadIndex(recs, ft); i >= 0 {
		return recs[i]
	}
	// A thread whose records all start later: none. (Rundown and
	// end-only records, whose start is unknown, start at minTime.)
	return nil
}

// Thread returns the record of thread tid at time t, or nil.
func (m *Model) Thread(tid uint32, t time.Time) *Thread { return m.threadAt(tid, timeFT(t)) }

// IsKernelAddress reports whether addr lies in kernel space: at or above
// 0xFFFF800000000000 (x64's canonical kernel half), or, in a trace of a
// 32-bit system, at or above 0x80000000.
func (m *Model) IsKernelAddress(addr uint64) bool {
	if addr >= 0xFFFF800000000000 {
		return true
	}
	return m.ptrSize == 4 && addr >= 0x80000000 && addr <= math.MaxUint32
}

// ResolveFrame names the code address addr of process pid at time t:
// kernel addresses through the kernel's images, others through the
// process's images and .NET methods.
func (m *Model) ResolveFrame(pid uint32, addr uint64, t time.Time) Frame {
	return m.resolve(m.processAt(pid, timeFT(t)), addr, timeFT(t))
}

func (m *Model) resolve(p *Process, addr uint64, ft int64) Frame {
	f, _, _ := m.resolveSpan(p, addr, ft)
	return f
}

// resolveStable is resolve, and reports whether the frame is the same at
// any time (resolveSpan gives every time).
func (m *Model) resolveStable(p *Process, addr uint64, ft int64) (Frame, bool) {
	f, lo, hi := m.resolveSpan(p, addr, ft)
	return f, allTimes(lo, hi)
}

// resolveSpan is resolve, with the times [lo, hi] (ft among them) at all
// of which the frame is the same (rangeList.findSpan).
func (m *Model) resolveSpan(p *Process, addr uint64, ft int64) (f Frame, lo, hi int64) {
	f = Frame{Address: addr}
	lo, hi = minTime, maxTime
	if m.IsKernelAddress(addr) {
		f.Image, lo, hi = m.kernel.findSpan(addr, ft)
	} else if p != nil {
		var lo2, hi2 int64
		f.Image, lo, hi = p.images.findSpan(addr, ft)
		f.Method, lo2, hi2 = p.methods.findSpan(addr, ft)
		lo, hi = max(lo, lo2), min(hi, hi2)
	}
	if f.Image != nil {
		f.Offset = addr - f.Image.Base
		if f.Method == nil && m.sym != nil {
			f.Symbol = symbolize(m.sym, f.Image, f.Offset)
		}
	}
	return f, lo, hi
}

// frameCache remembers resolved frames with the times they hold for
// (resolveSpan: all times for most), per goroutine: a stack's addresses
// repeat across the events of a trace, which come in time order. It is
// direct-mapped (a colliding address takes the slot), so a lookup costs a
// multiplication and a few comparisons.
type frameCache struct {
	slots []cachedFrame
	bits  uint8  // 2^bits slots; 0: frameCacheBits
	m     *Model // the model of the frames in slots (see resolveAll)
}

type cachedFrame struct {
	p      *Process // nil for kernel addresses
	frame  Frame    // frame.Address 0: empty slot
	lo, hi int64    // the times the frame holds for
}

// frameCacheBits sizes a frameCache: 2^frameCacheBits slots of 64 bytes
// (512 KiB). With 2^14 (1 MiB, half the 2 MiB L2 of a processor of the
// host measured, for one table probed at random) `stacks` of net.4.5.2
// took 5–6 % more wall and `report` 2–4 % more (three and two sets of
// alternated rounds, 2026-11-29); the JSON dump and the in-process
// benchmarks were within noise either way, and the scale inputs (×16,
// 16 and 64 inputs, the kernel trace ×64: one run each) no slower with
// 2^12.
const frameCacheBits = 13

// resolveTo is m.resolveStable through the cache: it stores the frame in
// *dst and reports whether it is the same at any time. A frame that
// depends on the time (an address that several images or methods held,
// as when one trace session's files each log the rundown of the same
// ones) is kept with the times it holds for, and found again for an
// event among them.
func (c *frameCache) resolveTo(dst *Frame, m *Model, p *Process, addr uint64, ft int64) bool {
	if m.IsKernelAddress(addr) {
		p = nil
	} else if p == nil {
		*dst = Frame{Address: addr}
		return true // no process: nothing to look in
	}
	if addr == 0 {
		var stable bool
		*dst, stable = m.resolveStable(p, addr, ft) // address 0 marks an empty slot
		return stable
	}
	h := addr * 0x9E3779B97F4A7C15
	if p != nil {
		h ^= uint64(p.Index+1) * 0xC2B2AE3D27D4EB4F
	}
	if c.slots == nil {
		if c.bits == 0 {
			c.bits = frameCacheBits
		}
		c.slots = prefault.Make[cachedFrame](1 << c.bits) // probed before written
	}
	slot := &c.slots[h>>(64-c.bits)]
	if slot.frame.Address == addr && slot.p == p && slot.lo <= ft && ft <= slot.hi {
		*dst = slot.frame
		return allTimes(slot.lo, slot.hi)
	}
	f, lo, hi := m.resolveSpan(p, addr, ft)
	if lo < hi {
		*slot = cachedFrame{p, f, lo, hi}
	}
	*dst = f
	return allTimes(lo, hi)
}

// baseName returns the last element of a Windows or slash path. The
// separators are looked for a byte at a time from the end (they are
// ASCII: no byte of a multi-byte UTF-8 sequence is one): strings.LastIndexAny
// builds its set of bytes at every call, and the Parquet dump names a
// frame's module through here (19 M of its 3,285 M instructions).
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if c := p[i]; c == '\\' || c == '/' {
			return p[i+1:]
		}
	}
	return p
}

// stem returns a file name without directory and extension.
func stem(p string) string {
	b := baseName(p)
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		return b[:i]
	}
	return b
}

func ftTime(ft int64) time.Time {
	if ft == minTime || ft == maxTime {
		return time.Time{}
	}
	return etl.FiletimeToTime(ft)
}

// timeFT returns t as a FILETIME; the zero time is the end of time.
func timeFT(t time.Time) int64 {
	if t.IsZero() {
		return maxTime
	}
	return etl.TimeToFiletime(t)
}
