package tdh

import (
	"strconv"
	"sync"
)

// InType is a TDH in-type (TDH_INTYPE_*): how a property's bytes are
// encoded. Values 1–25 are the winmeta.xml numbers used by manifests;
// 300–310 exist only for MOF classes. TraceLogging's own numbering is
// translated to these by its decoder.
type InType uint16

// In-types.
const (
	InTypeNull                      InType = 0
	InTypeUnicodeString             InType = 1
	InTypeAnsiString                InType = 2
	InTypeInt8                      InType = 3
	InTypeUInt8                     InType = 4
	InTypeInt16                     InType = 5
	InTypeUInt16                    InType = 6
	InTypeInt32                     InType = 7
	InTypeUInt32                    InType = 8
	InTypeInt64                     InType = 9
	InTypeUInt64                    InType = 10
	InTypeFloat                     InType = 11
	InTypeDouble                    InType = 12
	InTypeBoolean                   InType = 13
	InTypeBinary                    InType = 14
	InTypeGUID                      InType = 15
	InTypePointer                   InType = 16
	InTypeFileTime                  InType = 17
	InTypeSystemTime                InType = 18
	InTypeSID                       InType = 19
	InTypeHexInt32                  InType = 20
	InTypeHexInt64                  InType = 21
	InTypeCountedString             InType = 22 // MANIFEST_COUNTEDSTRING: u16 byte count + UTF-16
	InTypeCountedAnsiString         InType = 23 // MANIFEST_COUNTEDANSISTRING
	InTypeCountedBinary             InType = 25 // MANIFEST_COUNTEDBINARY
	InTypeMOFCountedString          InType = 300
	InTypeMOFCountedAnsiString      InType = 301
	InTypeReversedCountedString     InType = 302
	InTypeReversedCountedAnsiString InType = 303
	InTypeNonNullTerminatedString   InType = 304
	InTypeNonNullTerminatedAnsi     InType = 305
	InTypeUnicodeChar               InType = 306
	InTypeAnsiChar                  InType = 307
	InTypeSizeT                     InType = 308
	InTypeHexDump                   InType = 309
	InTypeWBEMSID                   InType = 310
)

// OutType is a TDH out-type (TDH_OUTTYPE_*): how a value is rendered.
type OutType uint16

// Out-types.
const (
	OutTypeNull                       OutType = 0
	OutTypeString                     OutType = 1
	OutTypeDateTime                   OutType = 2
	OutTypeByte                       OutType = 3
	OutTypeUnsignedByte               OutType = 4
	OutTypeShort                      OutType = 5
	OutTypeUnsignedShort              OutType = 6
	OutTypeInt                        OutType = 7
	OutTypeUnsignedInt                OutType = 8
	OutTypeLong                       OutType = 9
	OutTypeUnsignedLong               OutType = 10
	OutTypeFloat                      OutType = 11
	OutTypeDouble                     OutType = 12
	OutTypeBoolean                    OutType = 13
	OutTypeGUID                       OutType = 14
	OutTypeHexBinary                  OutType = 15
	OutTypeHexInt8                    OutType = 16
	OutTypeHexInt16                   OutType = 17
	OutTypeHexInt32                   OutType = 18
	OutTypeHexInt64                   OutType = 19
	OutTypePID                        OutType = 20
	OutTypeTID                        OutType = 21
	OutTypePort                       OutType = 22
	OutTypeIPv4                       OutType = 23
	OutTypeIPv6                       OutType = 24
	OutTypeSocketAddress              OutType = 25
	OutTypeCIMDateTime                OutType = 26
	OutTypeETWTime                    OutType = 27
	OutTypeXML                        OutType = 28
	OutTypeErrorCode                  OutType = 29
	OutTypeWin32Error                 OutType = 30
	OutTypeNTStatus                   OutType = 31
	OutTypeHResult                    OutType = 32
	OutTypeCultureInsensitiveDateTime OutType = 33
	OutTypeJSON                       OutType = 34
	OutTypeUTF8                       OutType = 35
	OutTypePKCS7WithTypeInfo          OutType = 36
	OutTypeCodePointer                OutType = 37
	OutTypeDateTimeUTC                OutType = 38
	OutTypeReducedString              OutType = 300
	OutTypeNoPrint                    OutType = 301
)

var inTypeNames = sync.OnceValue(func() map[InType]string {
	return map[InType]string{
		InTypeNull: "win:Null", InTypeUnicodeString: "win:UnicodeString", InTypeAnsiString: "win:AnsiString",
		InTypeInt8: "win:Int8", InTypeUInt8: "win:UInt8", InTypeInt16: "win:Int16", InTypeUInt16: "win:UInt16",
		InTypeInt32: "win:Int32", InTypeUInt32: "win:UInt32", InTypeInt64: "win:Int64", InTypeUInt64: "win:UInt64",
		InTypeFloat: "win:Float", InTypeDouble: "win:Double", InTypeBoolean: "win:Boolean", InTypeBinary: "win:Binary",
		InTypeGUID: "win:GUID", InTypePointer: "win:Pointer", InTypeFileTime: "win:FILETIME", InTypeSystemTime: "win:SYSTEMTIME",
		InTypeSID: "win:SID", InTypeHexInt32: "win:HexInt32", InTypeHexInt64: "win:HexInt64",
		InTypeCountedString: "win:CountedUnicodeString", InTypeCountedAnsiString: "win:CountedAnsiString",
		InTypeCountedBinary:    "win:CountedBinary",
		InTypeMOFCountedString: "trace:CountedString", InTypeMOFCountedAnsiString: "trace:CountedAnsiString",
		InTypeReversedCountedString: "trace:ReversedCountedString", InTypeReversedCountedAnsiString: "trace:ReversedCountedAnsiString",
		InTypeNonNullTerminatedString: "trace:NonNullTerminatedString", InTypeNonNullTerminatedAnsi: "trace:NonNullTerminatedAnsiString",
		InTypeUnicodeChar: "trace:UnicodeChar", InTypeAnsiChar: "trace:AnsiChar", InTypeSizeT: "trace:SizeT",
		InTypeHexDump: "trace:HexDump", InTypeWBEMSID: "trace:WBEMSid",
	}
})

var outTypeNames = sync.OnceValue(func() map[OutType]string {
	return map[OutType]string{
		OutTypeNull: "", OutTypeString: "xs:string", OutTypeDateTime: "xs:dateTime", OutTypeByte: "xs:byte",
		OutTypeUnsignedByte: "xs:unsignedByte", OutTypeShort: "xs:short", OutTypeUnsignedShort: "xs:unsignedShort",
		OutTypeInt: "xs:int", OutTypeUnsignedInt: "xs:unsignedInt", OutTypeLong: "xs:long", OutTypeUnsignedLong: "xs:unsignedLong",
		OutTypeFloat: "xs:float", OutTypeDouble: "xs:double", OutTypeBoolean: "xs:boolean", OutTypeGUID: "xs:GUID",
		OutTypeHexBinary: "xs:hexBinary", OutTypeHexInt8: "win:HexInt8", OutTypeHexInt16: "win:HexInt16",
		OutTypeHexInt32: "win:HexInt32", OutTypeHexInt64: "win:HexInt64", OutTypePID: "win:PID", OutTypeTID: "win:TID",
		OutTypePort: "win:Port", OutTypeIPv4: "win:IPv4", OutTypeIPv6: "win:IPv6", OutTypeSocketAddress: "win:SocketAddress",
		OutTypeCIMDateTime: "win:CIMDateTime", OutTypeETWTime: "win:ETWTIME", OutTypeXML: "win:Xml",
		OutTypeErrorCode: "win:ErrorCode", OutTypeWin32Error: "win:Win32Error", OutTypeNTStatus: "win:NTSTATUS",
		OutTypeHResult: "win:HResult", OutTypeCultureInsensitiveDateTime: "win:DateTimeCultureInsensitive",
		OutTypeJSON: "win:Json", OutTypeUTF8: "win:Utf8", OutTypePKCS7WithTypeInfo: "win:Pkcs7WithTypeInfo",
		OutTypeCodePointer: "win:CodePointer", OutTypeDateTimeUTC: "win:DateTimeUtc",
		OutTypeReducedString: "trace:ReducedString", OutTypeNoPrint: "trace:NoPrint",
	}
})

// String returns the manifest name of the in-type ("win:UInt32"), or
// "InType(N)".
func (t InType) String() string {
	if s, ok := inTypeNames()[t]; ok {
		return s
	}
	return "InType(" + strconv.Itoa(int(t)) + ")"
}

// String returns the manifest name of the out-type ("xs:string"), or
// "OutType(N)"; the null out-type is "".
func (t OutType) String() string {
	if s, ok := outTypeNames()[t]; ok {
		return s
	}
	return "OutType(" + strconv.Itoa(int(t)) + ")"
}

// FixedSize returns the encoded size of one value of the in-type, with
// pointer-sized types taking ptrSize, or 0 for variable-size types.
func (t InType) FixedSize(ptrSize int) int {
	switch t {
	case InTypeInt8, InTypeUInt8, InTypeAnsiChar:
		return 1
	case InTypeInt16, InTypeUInt16, InTypeUnicodeChar:
		return 2
	case InTypeInt32, InTypeUInt32, InTypeFloat, InTypeBoolean, InTypeHexInt32:
		return 4
	case InTypeInt64, InTypeUInt64, InTypeDouble, InTypeFileTime, InTypeHexInt64:
		return 8
	case InTypeGUID, InTypeSystemTime:
		return 16
	case InTypePointer, InTypeSizeT:
		return ptrSize
	}
	return 0
}

// IsInteger reports whether values of the in-type are integers (and so can
// give another property its length or count, or index a map).
func (t InType) IsInteger() bool {
	switch t {
	case InTypeInt8, InTypeUInt8, InTypeInt16, InTypeUInt16, InTypeInt32, InTypeUInt32,
		InTypeInt64, InTypeUInt64, InTypeHexInt32, InTypeHexInt64, InTypePointer, InTypeSizeT, InTypeBoolean:
		return true
	}
	return false
}

// IsSigned reports whether the in-type is a signed integer.
func (t InType) IsSigned() bool {
	switch t {
	case InTypeInt8, InTypeInt16, InTypeInt32, InTypeInt64:
		return true
	}
	return false
}

// IsString reports whether the in-type is a string of any encoding.
func (t InType) IsString() bool {
	switch t {
	case InTypeUnicodeString, InTypeAnsiString, InTypeCountedString, InTypeCountedAnsiString,
		InTypeMOFCountedString, InTypeMOFCountedAnsiString, InTypeReversedCountedString,
		InTypeReversedCountedAnsiString, InTypeNonNullTerminatedString, InTypeNonNullTerminatedAnsi:
		return true
	}
	return false
}

// IsWide reports whether a string in-type is UTF-16 (else 8-bit).
func (t InType) IsWide() bool {
	switch t {
	case InTypeUnicodeString, InTypeCountedString, InTypeMOFCountedString, InTypeReversedCountedString,
		InTypeNonNullTerminatedString, InTypeUnicodeChar:
		return true
	}
	return false
}

// DefaultOutType returns the out-type a property of this in-type renders
// with when its schema names none.
func (t InType) DefaultOutType() OutType {
	switch t {
	case InTypeUnicodeString, InTypeAnsiString, InTypeCountedString, InTypeCountedAnsiString, InTypeSID,
		InTypeMOFCountedString, InTypeMOFCountedAnsiString, InTypeReversedCountedString,
		InTypeReversedCountedAnsiString, InTypeNonNullTerminatedString, InTypeNonNullTerminatedAnsi,
		InTypeUnicodeChar, InTypeAnsiChar, InTypeWBEMSID:
		return OutTypeString
	case InTypeInt8:
		return OutTypeByte
	case InTypeUInt8:
		return OutTypeUnsignedByte
	case InTypeInt16:
		return OutTypeShort
	case InTypeUInt16:
		return OutTypeUnsignedShort
	case InTypeInt32:
		return OutTypeInt
	case InTypeUInt32:
		return OutTypeUnsignedInt
	case InTypeInt64:
		return OutTypeLong
	case InTypeUInt64:
		return OutTypeUnsignedLong
	case InTypeFloat:
		return OutTypeFloat
	case InTypeDouble:
		return OutTypeDouble
	case InTypeBoolean:
		return OutTypeBoolean
	case InTypeBinary, InTypeCountedBinary, InTypeHexDump:
		return OutTypeHexBinary
	case InTypeGUID:
		return OutTypeGUID
	case InTypePointer, InTypeHexInt64, InTypeSizeT:
		return OutTypeHexInt64
	case InTypeFileTime, InTypeSystemTime:
		return OutTypeDateTime
	case InTypeHexInt32:
		return OutTypeHexInt32
	}
	return OutTypeNull
}
