package parquetout

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/etwkit/etw/tdh"
)

// SplitWriter writes one Parquet file per (provider, event name): the
// "tidy tables" of an event type, with a few header columns and one typed
// column per top-level property (docs/cli.md, "--split-by-event"):
// DIR/<provider>/<event>.parquet. Events that no schema decodes go to
// DIR/_undecoded.parquet, in the events table's columns. Like Writer, it
// is the io.Writer that pipeline.Run writes the Encoder's records to.
type SplitWriter struct {
	dir     string
	o       Options
	enc     *Encoder
	rr      recordReader
	bySchem []*splitTable            // by schema number - 1 (the schema set numbers from 1)
	byName  map[string][]*splitTable // provider/event → its layouts
	names   map[string]bool          // files in use
	tables  []*splitTable
	undec   *Writer
	undecF  *lazyFile
	err     error
	held    int // bytes held in row groups across tables
}

// Split tables are many and small: row groups are encoded at once, and
// their bytes bounded per table and in total.
const (
	splitRowGroupBytes = 8 << 20
	splitHeldBytes     = 64 << 20
)

// NewSplitWriter writes the tables of enc's records under dir (created if
// needed). It switches enc to writing each event's typed values.
func NewSplitWriter(dir string, enc *Encoder, o *Options) (*SplitWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	enc.split = true
	w := &SplitWriter{dir: dir, enc: enc, byName: map[string][]*splitTable{}, names: map[string]bool{}}
	if o != nil {
		w.o = *o
	}
	if w.o.RowGroupBytes <= 0 || w.o.RowGroupBytes > splitRowGroupBytes {
		w.o.RowGroupBytes = splitRowGroupBytes
	}
	return w, nil
}

// splitTable is one file: its table and how record values map to columns.
type splitTable struct {
	path   string
	file   *lazyFile
	t      *table
	stack  stackColumns
	sig    string
	props  []propColumn // per typed value of a record
	msgCol int          // the "message" column
}

// propColumn is where a property's value goes.
type propColumn struct {
	col, nameCol int // nameCol -1 when the property has no name column
	t            tdh.DataType
	width        int
	float32      bool
}

// The header columns of a split table, in order.
const (
	hTime = iota
	hTimeNS
	hRelMS
	hFiletime
	hFile
	hCPU
	hPID
	hTID
	hProcessName
	hEventIDCol
	hVersionCol
	hOpcodeCol
	hTaskCol
	hLevelCol
	hKeywordsCol
	hActivityIDCol
	hSplitHeader
)

// splitHeaderFields returns the columns every per-event-type table starts
// with (h* order): the events table's columns of these names. Made at
// the first split dump, not at every program's start.
var splitHeaderFields = sync.OnceValue(func() []field {
	return pickFields(mainFields(), "time", "time_ns", "rel_ms", "filetime", "file", "cpu", "pid", "tid",
		"process_name", "event_id", "version", "opcode", "task", "level", "keywords", "activity_id")
})

// pickFields returns the fields of these names, in their order.
func pickFields(fields []field, names ...string) []field {
	out := make([]field, len(names))
	for i, n := range names {
		j := slices.IndexFunc(fields, func(f field) bool { return f.name == n })
		out[i] = fields[j]
	}
	return out
}

// Write takes records from the pipeline.
func (w *SplitWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.err = w.rr.each(p, w.row); w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

func (w *SplitWriter) row(r *rec) error {
	id := r.u32(offSchemaID)
	if id == 0 || !r.typed {
		return w.undecoded(r)
	}
	var st *splitTable
	if int(id) <= len(w.bySchem) {
		st = w.bySchem[id-1]
	}
	if st == nil {
		s := w.enc.schemas.get(id)
		if s == nil {
			return errRecord
		}
		var err error
		if st, err = w.table(s); err != nil {
			return err
		}
		if int(id) > len(w.bySchem) {
			w.bySchem = append(w.bySchem, make([]*splitTable, int(id)-len(w.bySchem))...)
		}
		w.bySchem[id-1] = st
	}
	if len(r.props) != len(st.props) {
		return errRecord
	}
	t := st.t
	c := t.cur
	before := c.arena.size
	ft := int64(r.u64(offTime))
	appendTimes(c, hTime, ft, w.enc.start, r.present&hasRelMS != 0)
	c.int(hFiletime, ft, 64, false)
	c.uint(hFile, uint64(r.u32(offFile)), 32, false)
	c.uint(hCPU, uint64(r.u16(offCPU)), 16, false)
	c.uint(hPID, uint64(r.u32(offPID)), 32, false)
	c.uint(hTID, uint64(r.u32(offTID)), 32, false)
	optStr(c, hProcessName, r, sProcessName)
	c.uint(hEventIDCol, uint64(r.u16(offEventID)), 16, false)
	c.uint(hVersionCol, uint64(r.u8(offVersion)), 8, false)
	c.uint(hOpcodeCol, uint64(r.u8(offOpcode)), 8, false)
	c.uint(hTaskCol, uint64(r.u16(offTask)), 16, false)
	c.uint(hLevelCol, uint64(r.u8(offLevel)), 8, false)
	c.uint(hKeywordsCol, r.u64(offKeywords), 64, false)
	optStr(c, hActivityIDCol, r, sActivityID)
	for i := range r.props {
		v, pc := &r.props[i], &st.props[i]
		w.value(c, pc, v)
		if pc.nameCol >= 0 {
			if v.named {
				c.bytes(pc.nameCol, v.name, true)
			} else {
				c.null(pc.nameCol)
			}
		}
	}
	optStr(c, st.msgCol, r, sMessage)
	if _, ok := c.stackRecord(st.stack, r.b, r.framesAt); !ok {
		return errRecord // not expected: r was parsed
	}
	w.held += c.arena.size - before
	rows := t.cur.rows
	if err := t.endRow(); err != nil {
		return err
	}
	if t.cur.rows != rows+1 { // the row group went out
		w.recount()
	}
	if w.held > splitHeldBytes {
		return w.flushAll()
	}
	return nil
}

// recount recomputes the bytes held across tables: the row groups being
// written and the rows not yet given to them.
func (w *SplitWriter) recount() {
	w.held = 0
	for _, st := range w.tables {
		w.held += st.t.rgBytes + st.t.cur.arena.size
	}
}

// flushAll writes the row groups of every table (memory bound).
func (w *SplitWriter) flushAll() error {
	for _, st := range w.tables {
		if err := st.t.flush(); err != nil {
			return err
		}
		if err := st.file.flush(); err != nil {
			return err
		}
	}
	w.held = 0
	return nil
}

// value appends one typed value to its column.
func (w *SplitWriter) value(t *chunk, pc *propColumn, v *propValue) {
	c := pc.col
	switch v.tag {
	case tagNull:
		t.null(c)
	case tagInt:
		t.int(c, int64(v.n), pc.width, true)
	case tagUint:
		t.uint(c, v.n, pc.width, true)
	case tagFloat:
		f := math.Float64frombits(v.n)
		if pc.float32 {
			t.put(c, parquet.FloatValue(float32(f)), true)
		} else {
			t.put(c, parquet.DoubleValue(f), true)
		}
	case tagBool:
		t.put(c, parquet.BooleanValue(v.n != 0), true)
	case tagTime:
		t.put(c, parquet.Int64Value(int64(v.n)), true)
	case tagBytes:
		t.bytes(c, v.b, true)
	default:
		t.null(c)
	}
}

// table returns the table of schema s: the one of its (provider, event
// name) with the same columns, or a new one.
func (w *SplitWriter) table(s *tdh.Event) (*splitTable, error) {
	fields := append([]field(nil), splitHeaderFields()...)
	used := map[string]bool{"message": true, "stack": true}
	for _, f := range fields {
		used[f.name] = true
	}
	unique := func(name string) string {
		if name == "" {
			name = "_"
		}
		for used[name] {
			name += "_"
		}
		used[name] = true
		return name
	}
	var props []propColumn
	var sig strings.Builder
	for i := range s.Properties {
		p := &s.Properties[i]
		if !tdh.Printable(p) {
			continue
		}
		pc := propColumn{col: len(fields), nameCol: -1, t: p.DataType(), width: intWidth(p)}
		var node parquet.Node
		switch pc.t {
		case tdh.DataInt:
			node = parquet.Int(pc.width)
		case tdh.DataUint:
			node = parquet.Uint(pc.width)
		case tdh.DataFloat:
			pc.float32 = p.InType == tdh.InTypeFloat
			node = parquet.Leaf(parquet.DoubleType)
			if pc.float32 {
				node = parquet.Leaf(parquet.FloatType)
			}
		case tdh.DataBool:
			node = parquet.Leaf(parquet.BooleanType)
		case tdh.DataString:
			node = parquet.String()
		case tdh.DataBinary:
			node = parquet.Leaf(parquet.ByteArrayType)
		case tdh.DataTime:
			node = timestampMicros()
		default:
			node = parquet.JSON()
		}
		name := unique(p.Name)
		fields = append(fields, field{name, opt(keepBounds(node))})
		fmt.Fprintf(&sig, "%s:%s;", name, node.Type())
		if hasNameColumn(p) {
			pc.nameCol = len(fields)
			fields = append(fields, field{unique(name + "_name"), opt(dictString())})
		}
		props = append(props, pc)
	}
	msgCol := len(fields)
	fields = append(fields, field{"message", opt(keepBounds(parquet.String()))}, stackField())
	key := fileName(s.ProviderName, s.ProviderGUID.String()) + "/" + fileName(eventName(s), "")
	for _, st := range w.byName[key] {
		if st.sig == sig.String() {
			return st, nil
		}
	}
	path := key + ".parquet"
	for n := 2; w.names[path]; n++ {
		path = key + "." + strconv.Itoa(n) + ".parquet"
	}
	w.names[path] = true
	full := filepath.Join(w.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return nil, err
	}
	f, err := newLazyFile(full)
	if err != nil {
		return nil, err
	}
	meta := metadata()
	meta["etwkit.provider_name"], meta["etwkit.provider_guid"], meta["etwkit.event_name"] = s.ProviderName, "{"+s.ProviderGUID.String()+"}", eventName(s)
	st := &splitTable{path: full, file: f, t: newTable(f, "event", fields, &w.o, meta, false), sig: sig.String(), props: props, msgCol: msgCol}
	st.stack = st.t.stackColumns()
	w.byName[key] = append(w.byName[key], st)
	w.tables = append(w.tables, st)
	return st, nil
}

// undecoded writes an event no schema decoded to _undecoded.parquet.
func (w *SplitWriter) undecoded(r *rec) error {
	if w.undec == nil {
		f, err := newLazyFile(filepath.Join(w.dir, "_undecoded.parquet"))
		if err != nil {
			return err
		}
		w.undecF = f
		w.undec = newSyncWriter(f, w.enc.start, &w.o)
	}
	return w.undec.row(r)
}

// Close finishes every file.
func (w *SplitWriter) Close() error {
	err := w.err
	if len(w.rr.carry) > 0 && err == nil {
		err = errRecord
	}
	keep := func(e error) {
		if err == nil {
			err = e
		}
	}
	for _, st := range w.tables {
		keep(st.t.close())
		keep(st.file.Close())
	}
	if w.undec != nil {
		keep(w.undec.t.close())
		keep(w.undecF.Close())
	}
	return err
}

// Files returns the paths of the files written, tables first.
func (w *SplitWriter) Files() []string {
	var out []string
	for _, st := range w.tables {
		out = append(out, st.path)
	}
	if w.undecF != nil {
		out = append(out, w.undecF.path)
	}
	return out
}

// intWidth is the bit width of an integer property's column.
func intWidth(p *tdh.Property) int {
	switch p.InType {
	case tdh.InTypePointer, tdh.InTypeSizeT:
		return 64
	}
	switch p.InType.FixedSize(8) {
	case 1:
		return 8
	case 2:
		return 16
	case 4:
		return 32
	}
	return 64
}

// eventName names an event type: its event name, else task and opcode
// names, else its id.
func eventName(s *tdh.Event) string {
	switch {
	case s.EventName != "":
		return s.EventName
	case s.TaskName != "" && s.OpcodeName != "":
		return s.TaskName + "_" + s.OpcodeName
	case s.TaskName != "":
		return s.TaskName
	}
	return "event_" + strconv.Itoa(int(s.ID))
}

// fileName makes a safe file name of name (or of alt when name is empty).
func fileName(name, alt string) string {
	if name == "" {
		name = alt
	}
	var b strings.Builder
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), ".")
	if s == "" {
		s = "_"
	}
	return s
}

// lazyFile is an output file written in large appends, opened only while
// it is written to, so that hundreds of tables need no open descriptors.
type lazyFile struct {
	path    string
	buf     []byte
	created bool
}

const lazyFileBuffer = 1 << 20

func newLazyFile(path string) (*lazyFile, error) {
	f := &lazyFile{path: path}
	// Create (or truncate) it now, so that errors show at once.
	if err := f.flush(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *lazyFile) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	if len(f.buf) >= lazyFileBuffer {
		if err := f.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (f *lazyFile) flush() error {
	if len(f.buf) == 0 && f.created {
		return nil
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if !f.created {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	out, err := os.OpenFile(f.path, flag, 0o644)
	if err != nil {
		return err
	}
	f.created = true
	_, err = out.Write(f.buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	f.buf = f.buf[:0]
	return err
}

// Close writes what is buffered.
func (f *lazyFile) Close() error {
	err := f.flush()
	f.buf = nil
	return err
}
