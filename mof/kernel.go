package mof

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/etwkit/etw/tdh"
	"github.com/google/uuid"
)

// KernelProviderName is the provider name tracerpt shows for NT Kernel
// Logger events (the MOF provider class of the kernel event classes).
const KernelProviderName = "MSNT_SystemTrace"

// KernelProviderGUID is MSNT_SystemTrace's GUID (SystemTraceControlGuid):
// tracerpt prints it as the provider of kernel events, whose schemas are
// keyed by their event class GUIDs.
var KernelProviderGUID = uuid.MustParse("9e814aad-3204-11d2-9a82-006008a86939")

// kernel holds the built-in table compiled: by the tests, which check
// kernel_gen.go against it and write it.
type kernel struct {
	schemas []*tdh.Event
	byKey   map[schemaKey]*tdh.Event
	errs    []error // problems in the table itself (a test keeps it empty)
}

// The program does not compile the built-in table: kernel_gen.go holds
// what it compiles to as a literal that the linker lays out
// (kernelSchemas), so that a program's start builds nothing (compiling
// it took 0.5-0.9 ms of every start). The table, kernel_table.go, is its
// source; TestKernelGenerated fails when the two differ and rewrites
// kernel_gen.go with -update:
//
//go:generate go test -run ^TestKernelGenerated$ -update

// KernelSchemas returns the built-in schemas of the NT Kernel Logger event
// classes (MSNT_SystemTrace: EventTrace, Process, Thread, Image, DiskIo,
// FileIo, TcpIp, UdpIp, Registry, PageFault, PerfInfo, SystemConfig,
// StackWalk, ALPC, …, every version), and of the KernelTraceControl
// classes that xperf and PerfView add to merged traces. Each is keyed as
// classic events are looked up: ProviderGUID = event class GUID, ID =
// event type (opcode), Version = class version.
//
// The returned slice is new; the schemas it points to are shared and
// must not be modified. Layouts that share a key with another one
// (EventTrace PartitionInfoExtensionV2) are not in the list; see
// [Alternates].
func KernelSchemas() []*tdh.Event {
	return append([]*tdh.Event(nil), kernelSchemas...)
}

// RegisterKernel adds [KernelSchemas] to reg.
func RegisterKernel(reg *tdh.Registry) {
	reg.Add(kernelSchemas...)
}

// Alternates returns other built-in layouts registered under the same
// class GUID, event type and version as s, to be tried when s does not
// fit a payload (for example the EventTrace PartitionInfoExtensionV2
// layout, whose partition ids are strings, behind PartitionInfoExtension).
// [Decoder] tries them; nil if there are none.
func Alternates(s *tdh.Event) []*tdh.Event {
	if s == nil {
		return nil
	}
	return s.Alternates
}

// The built-in table is a small line language (kernel_table.go):
//
//	provider NAME                   provider name of the classes below
//	struct NAME | FIELDS            a struct type for "@NAME" fields
//	class NAME GUID                 event class (NAME as tracerpt shows it)
//	version N[-M]                   class version(s) of the lines below
//	[alt|tail] T=NAME[,T=NAME…] | FIELDS  event types and their layout
//
// "alt" adds a layout tried when the primary one of the same type and
// version does not fit (see [Alternates]); "tail" marks a layout whose
// trailing fixed-size fields may be missing from a payload (see
// [Decoder]).
//
// FIELDS are "Name type" separated by ";". Types: u8 u16 u32 u64 i8 i16
// i32 i64; x8…x64 (hex); ptr; sizet; bool (4 bytes) and bool8 (1 byte);
// f32 f64; guid; sid (WBEMSID); ip4 ip6 port; wmitime; filetime; str and wstr
// (NUL-terminated 8-bit and UTF-16); str* and wstr* (the rest of the
// payload, unterminated); achar wchar; @STRUCT. A "!" after the type
// makes the field NoPrint; "[N]" a fixed array, "[Field]" an array
// counted by an earlier field, "[]" an array of unknown count. "#"
// starts a comment.

func compileTable(src string) *kernel {
	k := &kernel{byKey: map[schemaKey]*tdh.Event{}}
	structs := map[string][]tdh.Property{}
	provider := KernelProviderName
	var class string
	var guid uuid.UUID
	var versions []int
	fail := func(n int, format string, args ...any) {
		k.errs = append(k.errs, fmt.Errorf("kernel table line %d: %s", n, fmt.Sprintf(format, args...)))
	}
	for n, line := range strings.Split(src, "\n") {
		n++
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "provider":
			provider = rest
			continue
		case "class":
			name, g, _ := strings.Cut(rest, " ")
			u, err := uuid.Parse(strings.TrimSpace(g))
			if err != nil {
				fail(n, "bad GUID %q", g)
				continue
			}
			class, guid, versions = name, u, nil
			continue
		case "version":
			from, to, isRange := strings.Cut(rest, "-")
			a, err1 := strconv.Atoi(from)
			b, err2 := strconv.Atoi(to)
			if !isRange {
				b, err2 = a, err1
			}
			if err1 != nil || err2 != nil || a < 0 || b > 255 || a > b {
				fail(n, "bad version %q", rest)
				continue
			}
			versions = versions[:0]
			for v := a; v <= b; v++ {
				versions = append(versions, v)
			}
			continue
		case "struct":
			name, fields, ok := strings.Cut(rest, "|")
			if !ok {
				fail(n, "struct without fields")
				continue
			}
			props, err := tableFields(fields, structs)
			if err != nil {
				fail(n, "%v", err)
				continue
			}
			structs[strings.TrimSpace(name)] = props
			continue
		}
		alt, tail := false, false
		switch word {
		case "alt":
			alt, line = true, rest
		case "tail":
			tail, line = true, rest
		}
		types, fields, ok := strings.Cut(line, "|")
		if !ok {
			fail(n, "expected TYPES | FIELDS")
			continue
		}
		if class == "" || len(versions) == 0 {
			fail(n, "event types before class and version")
			continue
		}
		props, err := tableFields(fields, structs)
		if err != nil {
			fail(n, "%v", err)
			continue
		}
		for _, version := range versions {
			for _, tn := range strings.Split(types, ",") {
				ts, name, _ := strings.Cut(strings.TrimSpace(tn), "=")
				t, err := strconv.Atoi(ts)
				if err != nil || t < 0 || t > 255 {
					fail(n, "bad event type %q", ts)
					continue
				}
				ev := &tdh.Event{
					Source:       tdh.SourceMOF,
					ProviderName: provider,
					ProviderGUID: guid,
					ID:           uint16(t),
					Version:      uint8(version),
					Opcode:       uint8(t),
					EventName:    class,
					OpcodeName:   strings.TrimSpace(name),
					Properties:   props,
				}
				if tail {
					for i := range ev.Properties {
						ev.Properties[i].Optional = true
					}
				}
				markToEnd(ev)
				key := schemaKey{guid, uint8(t), uint8(version)}
				primary, dup := k.byKey[key]
				switch {
				case alt && dup:
					primary.Alternates = append(primary.Alternates, ev)
				case alt:
					fail(n, "alt layout for type %d version %d before its primary layout", t, version)
				case dup:
					fail(n, "type %d version %d of %s defined twice", t, version, class)
				default:
					k.byKey[key] = ev
					k.schemas = append(k.schemas, ev)
				}
			}
		}
	}
	return k
}

// tableFields compiles the "Name type; …" list of a table line. A name
// "Base{1..N}" stands for the fields Base1 … BaseN.
func tableFields(src string, structs map[string][]tdh.Property) ([]tdh.Property, error) {
	props := make([]tdh.Property, 0, strings.Count(src, ";")+1)
	for f := range strings.SplitSeq(src, ";") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, typ, ok := strings.Cut(f, " ")
		typ = strings.TrimSpace(typ)
		i := strings.IndexByte(name, '{')
		if i < 0 || !strings.HasSuffix(name, "}") {
			if !ok {
				return nil, fmt.Errorf("field %q has no type", f)
			}
			p, err := tableField(name, typ, props, structs)
			if err != nil {
				return nil, err
			}
			props = append(props, p)
			continue
		}
		from, to, _ := strings.Cut(name[i+1:len(name)-1], "..")
		a, err1 := strconv.Atoi(from)
		b, err2 := strconv.Atoi(to)
		if err1 != nil || err2 != nil || a > b || b-a > 1024 {
			return nil, fmt.Errorf("field %s: bad range", name)
		}
		props = slices.Grow(props, b-a+1)
		for n := a; n <= b; n++ {
			p, err := tableField(name[:i]+strconv.Itoa(n), typ, props, structs)
			if err != nil {
				return nil, err
			}
			props = append(props, p)
		}
	}
	if len(props) == 0 {
		return nil, nil // nil for a line without fields, not an empty list
	}
	return props, nil
}

// tableField compiles field name of table type typ ("u32", "@STRUCT",
// "wstr[Count]", …), after the fields props of its line.
func tableField(name, typ string, props []tdh.Property, structs map[string][]tdh.Property) (tdh.Property, error) {
	p := tdh.Property{Name: name, LengthIndex: -1, CountIndex: -1}
	if i := strings.IndexByte(typ, '['); i >= 0 {
		if !strings.HasSuffix(typ, "]") {
			return p, fmt.Errorf("field %s: bad array %q", name, typ)
		}
		dim := typ[i+1 : len(typ)-1]
		typ = typ[:i]
		p.IsArray = true
		switch n, err := strconv.Atoi(dim); {
		case dim == "":
		case err == nil && n > 0 && n <= 0xFFFF:
			p.Count = uint16(n)
		default:
			j := fieldIndex(props, dim)
			if j < 0 {
				return p, fmt.Errorf("field %s: count %q names no earlier field", name, dim)
			}
			p.CountIndex = j
		}
	}
	if strings.HasSuffix(typ, "!") {
		typ = strings.TrimSuffix(typ, "!")
		p.OutType = tdh.OutTypeNoPrint
	}
	if strings.HasPrefix(typ, "@") {
		members, ok := structs[typ[1:]]
		if !ok {
			return p, fmt.Errorf("field %s: unknown struct %s", name, typ[1:])
		}
		p.Members = members
		return p, nil
	}
	t, ok := tableTypes()[typ]
	if !ok {
		return p, fmt.Errorf("field %s: unknown type %q", name, typ)
	}
	p.InType, p.Length = t.in, t.length
	if p.OutType == tdh.OutTypeNull {
		p.OutType = t.out
	}
	return p, nil
}

func fieldIndex(props []tdh.Property, name string) int {
	for i := range props {
		if props[i].Name == name {
			return i
		}
	}
	return -1
}

type tableType struct {
	in     tdh.InType
	out    tdh.OutType
	length uint16
}

var tableTypes = sync.OnceValue(func() map[string]tableType {
	return map[string]tableType{
		"u8": {in: tdh.InTypeUInt8}, "u16": {in: tdh.InTypeUInt16}, "u32": {in: tdh.InTypeUInt32}, "u64": {in: tdh.InTypeUInt64},
		"i8": {in: tdh.InTypeInt8}, "i16": {in: tdh.InTypeInt16}, "i32": {in: tdh.InTypeInt32}, "i64": {in: tdh.InTypeInt64},
		"x8":  {tdh.InTypeUInt8, tdh.OutTypeHexInt8, 0},
		"x16": {tdh.InTypeUInt16, tdh.OutTypeHexInt16, 0},
		"x32": {tdh.InTypeUInt32, tdh.OutTypeHexInt32, 0},
		"x64": {tdh.InTypeUInt64, tdh.OutTypeHexInt64, 0},
		"ptr": {in: tdh.InTypePointer}, "sizet": {in: tdh.InTypeSizeT},
		"bool": {in: tdh.InTypeBoolean}, "bool8": {tdh.InTypeUInt8, tdh.OutTypeBoolean, 0},
		"f32": {in: tdh.InTypeFloat}, "f64": {in: tdh.InTypeDouble},
		"guid": {in: tdh.InTypeGUID}, "sid": {in: tdh.InTypeWBEMSID},
		"ip4":      {tdh.InTypeUInt32, tdh.OutTypeIPv4, 0},
		"ip6":      {tdh.InTypeBinary, tdh.OutTypeIPv6, 16},
		"port":     {tdh.InTypeUInt16, tdh.OutTypePort, 0},
		"wmitime":  {tdh.InTypeUInt64, tdh.OutTypeETWTime, 0},
		"filetime": {in: tdh.InTypeFileTime},
		"str":      {in: tdh.InTypeAnsiString}, "wstr": {in: tdh.InTypeUnicodeString},
		"str*": {in: tdh.InTypeNonNullTerminatedAnsi}, "wstr*": {in: tdh.InTypeNonNullTerminatedString},
		"achar": {in: tdh.InTypeAnsiChar}, "wchar": {in: tdh.InTypeUnicodeChar},
	}
})
