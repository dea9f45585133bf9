package manifest

import (
	"strconv"
	"strings"
	"sync"

	"github.com/etwkit/etw/tdh"
)

// The TDH in-type and out-type numbers, their names and default out-types
// are package tdh's ([tdh.InType], [tdh.OutType]). This file keeps only
// what is manifest-specific: the spellings real manifests use.

// inTypeReserved24 is TDH_INTYPE_RESERVED24, which tdh does not name:
// TraceLogging uses 24 for a struct, and PerfView-style dumps write it as
// win:Struct.
const inTypeReserved24 tdh.InType = 24

// typeSpec is what an in-type spelling means: the TDH in-type plus, for a
// few dumper aliases, an implied out-type and fixed length.
type typeSpec struct {
	inType  tdh.InType
	outType tdh.OutType // implied out-type when the field has none; 0 = none
	length  uint16      // implied fixed length when the field has none; 0 = none
	suspect bool        // a dumper artifact rather than a real type (see inTypeAliases)
}

// inTypeAliases are non-standard spellings found in real manifests, mostly
// those regenerated from TDH metadata (decoding.md §1.10):
//
//   - fox-it dissect.etl kernel dumps (MOF classes written as manifests):
//     win:SInt8/16/32/64, win:WString, win:String, win:WChar, win:SizeT,
//     win:IPAddrV4, win:IPAddrV6;
//   - PerfView-style dumps (repnz): win:CountedUtf16String,
//     win:CountedMbcsString, win:Struct and raw numbers such as win:33.
//     The dumper printed EVENT_PROPERTY_INFO.InType through an enum without
//     checking PropertyStruct, so for struct properties the "in-type" is
//     really StructStartIndex; those fields are flagged in the warnings;
//   - PerfView's kernel parser manifest: trace:SizeT, trace:WBEMSid.
var inTypeAliases = map[string]typeSpec{
	"win:SInt8":              {inType: tdh.InTypeInt8},
	"win:SInt16":             {inType: tdh.InTypeInt16},
	"win:SInt32":             {inType: tdh.InTypeInt32},
	"win:SInt64":             {inType: tdh.InTypeInt64},
	"win:WString":            {inType: tdh.InTypeUnicodeString},
	"win:String":             {inType: tdh.InTypeAnsiString},
	"win:WChar":              {inType: tdh.InTypeUnicodeChar},
	"win:SizeT":              {inType: tdh.InTypeSizeT},
	"trace:SizeT":            {inType: tdh.InTypeSizeT},
	"trace:WBEMSid":          {inType: tdh.InTypeWBEMSID},
	"win:IPAddrV4":           {inType: tdh.InTypeUInt32, outType: tdh.OutTypeIPv4},
	"win:IPAddrV6":           {inType: tdh.InTypeBinary, outType: tdh.OutTypeIPv6, length: 16},
	"win:CountedUtf16String": {inType: tdh.InTypeCountedString},
	"win:CountedMbcsString":  {inType: tdh.InTypeCountedAnsiString},
	"win:Struct":             {inType: inTypeReserved24, suspect: true},
}

// typeNames are the type names' lookup tables, made when a manifest
// first needs them (not at every start of a program that links the
// package).
type typeNames struct {
	inByName  map[string]tdh.InType  // standard spelling → in-type
	inByLower map[string]tdh.InType  // lower-cased local part → in-type
	outByName map[string]tdh.OutType // standard spelling → out-type
	outLower  map[string]tdh.OutType // lower-cased local part → out-type
}

var typeNamesOnce = sync.OnceValue(makeTypeNames)

// isManifestName reports whether a tdh type name is one manifests use
// (win: or xs:, not tdh's trace: names of MOF-only types).
func isManifestName(n string) bool {
	return strings.HasPrefix(n, "win:") || strings.HasPrefix(n, "xs:")
}

func makeTypeNames() *typeNames {
	n := &typeNames{inByName: map[string]tdh.InType{}, inByLower: map[string]tdh.InType{},
		outByName: map[string]tdh.OutType{}, outLower: map[string]tdh.OutType{}}
	// The manifest in-types are 1–25 (24 has no name); 300–310 are MOF-only
	// and named trace:… by tdh, so only their aliases above are accepted.
	// win:Null (0) is not a type a field can have.
	addIn := func(t tdh.InType) {
		if name := t.String(); t != tdh.InTypeNull && isManifestName(name) {
			n.inByName[name] = t
			n.inByLower[strings.ToLower(localPart(name))] = t
		}
	}
	for t := tdh.InType(0); t <= 25; t++ {
		addIn(t)
	}
	for t := tdh.InType(300); t <= 310; t++ {
		addIn(t)
	}
	addOut := func(t tdh.OutType) {
		if name := t.String(); t != tdh.OutTypeNull && isManifestName(name) {
			n.outByName[name] = t
			n.outLower[strings.ToLower(localPart(name))] = t
		}
	}
	for t := tdh.OutType(0); t <= 38; t++ {
		addOut(t)
	}
	addOut(tdh.OutTypeReducedString)
	addOut(tdh.OutTypeNoPrint)
	return n
}

// isManifestInType reports whether t has a standard manifest spelling.
func isManifestInType(t tdh.InType) bool {
	_, ok := typeNamesOnce().inByName[t.String()]
	return ok
}

// localPart returns the part of a QName after the colon.
func localPart(q string) string {
	if i := strings.LastIndexByte(q, ':'); i >= 0 {
		return q[i+1:]
	}
	return q
}

// lookupInType resolves an in-type spelling (already normalized to the
// "win:" prefix when the manifest bound another prefix to the win
// namespace).
func lookupInType(name string) (typeSpec, bool) {
	name = strings.TrimSpace(name)
	if v, ok := typeNamesOnce().inByName[name]; ok {
		return typeSpec{inType: v}, true
	}
	if s, ok := inTypeAliases[name]; ok {
		return s, true
	}
	local := localPart(name)
	// Raw numbers: win:33, or a bare 33.
	if n, err := strconv.ParseUint(local, 10, 16); err == nil && local != "" {
		v := tdh.InType(n)
		return typeSpec{inType: v, suspect: !isManifestInType(v)}, true
	}
	// Same name with another prefix or letter case (e.g. xs:HexInt32).
	if v, ok := typeNamesOnce().inByLower[strings.ToLower(local)]; ok {
		return typeSpec{inType: v}, true
	}
	return typeSpec{}, false
}

// InTypeByName returns the TDH in-type for a manifest in-type name. It
// accepts the standard win: names of winmeta.xml (win:UInt32, …,
// win:CountedBinary; see [tdh.InType.String]), the aliases written by
// TDH-based manifest dumpers (win:SInt32 → Int32, win:WString →
// UnicodeString, win:String → AnsiString, win:WChar → UnicodeChar (306),
// win:SizeT → SizeT (308), win:IPAddrV4 → UInt32, win:IPAddrV6 → Binary,
// win:CountedUtf16String → 22, win:CountedMbcsString → 23, win:Struct →
// 24, trace:SizeT, trace:WBEMSid), raw numbers (win:33 → 33), and a
// standard name under another prefix or letter case.
func InTypeByName(name string) (tdh.InType, bool) {
	s, ok := lookupInType(name)
	return s.inType, ok
}

// OutTypeByName returns the TDH out-type for a manifest out-type name
// (xs:string … win:DateTimeUtc; see [tdh.OutType.String]). A standard name
// under another prefix or letter case (xs:HexInt32, win:NTStatus, both seen
// in real manifests) is accepted too, as are raw numbers (win:18).
func OutTypeByName(name string) (tdh.OutType, bool) {
	name = strings.TrimSpace(name)
	if v, ok := typeNamesOnce().outByName[name]; ok {
		return v, true
	}
	local := localPart(name)
	if n, err := strconv.ParseUint(local, 10, 16); err == nil && local != "" {
		return tdh.OutType(n), true
	}
	v, ok := typeNamesOnce().outLower[strings.ToLower(local)]
	return v, ok
}

// isLengthInType reports whether a field of in-type t can hold a length or
// count as manifests use them: an integer, but not a Pointer or Boolean
// (which tdh's IsInteger also accepts).
func isLengthInType(t tdh.InType) bool {
	return t.IsInteger() && t != tdh.InTypePointer && t != tdh.InTypeBoolean
}
