package manifest

import (
	"fmt"
	"sync"
)

// The predefined values of winmeta.xml, which every manifest may use
// without declaring them. Display strings are the en-US ones of the SDK's
// winmeta.xml; the reserved placeholders have none. Channels 11 and 12 come
// from newer SDKs (winmeta.h / winmeta.xml 10.0.10240+).

var winLevels = sync.OnceValue(func() []Level {
	l := []Level{
		{Name: "win:LogAlways", Value: 0, Message: "Log Always", Symbol: "WINEVENT_LEVEL_LOG_ALWAYS"},
		{Name: "win:Critical", Value: 1, Message: "Critical", Symbol: "WINEVENT_LEVEL_CRITICAL"},
		{Name: "win:Error", Value: 2, Message: "Error", Symbol: "WINEVENT_LEVEL_ERROR"},
		{Name: "win:Warning", Value: 3, Message: "Warning", Symbol: "WINEVENT_LEVEL_WARNING"},
		{Name: "win:Informational", Value: 4, Message: "Information", Symbol: "WINEVENT_LEVEL_INFO"},
		{Name: "win:Verbose", Value: 5, Message: "Verbose", Symbol: "WINEVENT_LEVEL_VERBOSE"},
	}
	for v := 6; v <= 15; v++ {
		l = append(l, Level{Name: fmt.Sprintf("win:ReservedLevel%d", v), Value: uint8(v),
			Symbol: fmt.Sprintf("WINEVENT_LEVEL_RESERVED_%d", v)})
	}
	return l
})

var winTasks = []Task{
	{Name: "win:None", Value: 0, Message: "None", Symbol: "WINEVENT_TASK_NONE"},
}

var winOpcodes = sync.OnceValue(func() []Opcode {
	o := []Opcode{
		{Name: "win:Info", Value: 0, Message: "Info", Symbol: "WINEVENT_OPCODE_INFO"},
		{Name: "win:Start", Value: 1, Message: "Start", Symbol: "WINEVENT_OPCODE_START"},
		{Name: "win:Stop", Value: 2, Message: "Stop", Symbol: "WINEVENT_OPCODE_STOP"},
		{Name: "win:DC_Start", Value: 3, Message: "DCStart", Symbol: "WINEVENT_OPCODE_DC_START"},
		{Name: "win:DC_Stop", Value: 4, Message: "DCStop", Symbol: "WINEVENT_OPCODE_DC_STOP"},
		{Name: "win:Extension", Value: 5, Message: "Extension", Symbol: "WINEVENT_OPCODE_EXTENSION"},
		{Name: "win:Reply", Value: 6, Message: "Reply", Symbol: "WINEVENT_OPCODE_REPLY"},
		{Name: "win:Resume", Value: 7, Message: "Resume", Symbol: "WINEVENT_OPCODE_RESUME"},
		{Name: "win:Suspend", Value: 8, Message: "Suspend", Symbol: "WINEVENT_OPCODE_SUSPEND"},
		{Name: "win:Send", Value: 9, Message: "Send", Symbol: "WINEVENT_OPCODE_SEND"},
		{Name: "win:Receive", Value: 240, Message: "Receive", Symbol: "WINEVENT_OPCODE_RECEIVE"},
	}
	for v := 241; v <= 255; v++ {
		o = append(o, Opcode{Name: fmt.Sprintf("win:ReservedOpcode%d", v), Value: uint8(v),
			Symbol: fmt.Sprintf("WINEVENT_OPCODE_RESERVED_%d", v)})
	}
	return o
})

var winKeywords = sync.OnceValue(func() []Keyword {
	k := []Keyword{
		{Name: "win:AnyKeyword", Value: 0, Message: "AnyKeyword", Symbol: "WINEVT_KEYWORD_ANY"},
		{Name: "win:ResponseTime", Value: 1 << 48, Message: "Response Time", Symbol: "WINEVENT_KEYWORD_RESPONSE_TIME"},
		// Win7 name of bit 49; newer SDKs call it win:ReservedKeyword49.
		{Name: "win:WDIContext", Value: 1 << 49, Message: "WDI Context", Symbol: "WINEVENT_KEYWORD_WDI_CONTEXT"},
		{Name: "win:ReservedKeyword49", Value: 1 << 49, Symbol: "WINEVENT_KEYWORD_RESERVED_49"},
		{Name: "win:WDIDiag", Value: 1 << 50, Message: "WDI Diag", Symbol: "WINEVENT_KEYWORD_WDI_DIAG"},
		{Name: "win:SQM", Value: 1 << 51, Message: "SQM", Symbol: "WINEVENT_KEYWORD_SQM"},
		{Name: "win:AuditFailure", Value: 1 << 52, Message: "Audit Failure", Symbol: "WINEVENT_KEYWORD_AUDIT_FAILURE"},
		{Name: "win:AuditSuccess", Value: 1 << 53, Message: "Audit Success", Symbol: "WINEVENT_KEYWORD_AUDIT_SUCCESS"},
		{Name: "win:CorrelationHint", Value: 1 << 54, Message: "Correlation Hint", Symbol: "WINEVENT_KEYWORD_CORRELATION_HINT"},
		{Name: "win:EventlogClassic", Value: 1 << 55, Message: "Classic", Symbol: "WINEVENT_KEYWORD_EVENTLOG_CLASSIC"},
	}
	for b := 56; b <= 63; b++ {
		k = append(k, Keyword{Name: fmt.Sprintf("win:ReservedKeyword%d", b), Value: 1 << uint(b),
			Symbol: fmt.Sprintf("WINEVENT_KEYWORD_RESERVED_%d", b)})
	}
	return k
})

var winChannels = []Channel{
	{Name: "TraceClassic", Value: 0, Type: "Debug", Message: "TraceClassic", Symbol: "WINEVENT_CHANNEL_CLASSIC_TRACE"},
	{Name: "System", Value: 8, Type: "Admin", Message: "System", Symbol: "WINEVENT_CHANNEL_GLOBAL_SYSTEM"},
	{Name: "Application", Value: 9, Type: "Admin", Message: "Application", Symbol: "WINEVENT_CHANNEL_GLOBAL_APPLICATION"},
	{Name: "Security", Value: 10, Type: "Admin", Message: "Security", Symbol: "WINEVENT_CHANNEL_GLOBAL_SECURITY"},
	{Name: "TraceLogging", Value: 11, Type: "Debug", Message: "TraceLogging", Symbol: "WINEVENT_CHANNEL_TRACELOGGING"},
	{Name: "ProviderMetadata", Value: 12, Type: "Debug", Message: "ProviderMetadata", Symbol: "WINEVENT_CHANNEL_PROVIDERMETADATA"},
}

// PredefinedLevels returns the win: levels of winmeta.xml (win:LogAlways 0
// … win:Verbose 5, win:ReservedLevel6 … 15).
func PredefinedLevels() []Level { return append([]Level(nil), winLevels()...) }

// PredefinedTasks returns the win: tasks of winmeta.xml (win:None 0).
func PredefinedTasks() []Task { return append([]Task(nil), winTasks...) }

// PredefinedOpcodes returns the win: opcodes of winmeta.xml (win:Info 0 …
// win:Send 9, win:Receive 240, win:ReservedOpcode241 … 255).
func PredefinedOpcodes() []Opcode { return append([]Opcode(nil), winOpcodes()...) }

// PredefinedKeywords returns the win: keywords of winmeta.xml
// (win:AnyKeyword 0, win:ResponseTime bit 48 … win:EventlogClassic bit 55,
// win:ReservedKeyword56 … 63). Bit 49 appears under both its Windows 7 name
// win:WDIContext and its later name win:ReservedKeyword49.
func PredefinedKeywords() []Keyword { return append([]Keyword(nil), winKeywords()...) }

// PredefinedChannels returns the channels every provider may use without
// declaring them: TraceClassic 0, System 8, Application 9, Security 10,
// TraceLogging 11 and ProviderMetadata 12.
func PredefinedChannels() []Channel { return append([]Channel(nil), winChannels...) }

func findLevel(l []Level, name string) (Level, bool) {
	for _, x := range l {
		if x.Name == name {
			return x, true
		}
	}
	return Level{}, false
}

func findOpcode(o []Opcode, name string) (Opcode, bool) {
	for _, x := range o {
		if x.Name == name {
			return x, true
		}
	}
	return Opcode{}, false
}

func findKeyword(k []Keyword, name string) (Keyword, bool) {
	for _, x := range k {
		if x.Name == name {
			return x, true
		}
	}
	return Keyword{}, false
}

func findTask(t []Task, name string) (*Task, bool) {
	for i := range t {
		if t[i].Name == name {
			return &t[i], true
		}
	}
	return nil, false
}

func findWinChannel(name string) (Channel, bool) {
	for _, c := range winChannels {
		if c.Name == name {
			return c, true
		}
	}
	return Channel{}, false
}
