package tdh

import "sync"

// English system message texts for the error codes that win:Win32Error,
// win:NTSTATUS and win:HResult properties render as (decoding.md §2.3).
// Windows takes them from the system message tables (FormatMessage with
// FORMAT_MESSAGE_FROM_SYSTEM, ntdll.dll's table for NTSTATUS); we carry a
// small table of the common codes instead.
//
// Sources: Win32 texts from Microsoft Learn "System Error Codes (0-499)",
// "(500-999)", "(1000-1299)" and "(1300-1699)"; NTSTATUS and HRESULT texts
// from the MessageText comments of the SDK's ntstatus.h and winerror.h, which
// are generated from the same .mc sources as the message tables.
//
// Choices where the sources leave room [?]:
//   - The message tables end every text with CR LF and keep the line breaks
//     of multi-line texts ("{Access Denied}\r\nA process has…"); we drop
//     the final CR LF and join the lines with one space, as Learn prints
//     them.
//   - Texts with printf inserts (STATUS_ACCESS_VIOLATION) keep them
//     verbatim, as FormatMessage does with FORMAT_MESSAGE_IGNORE_INSERTS.
//   - An HRESULT of FACILITY_WIN32 (0x8007xxxx) renders with the text of
//     the Win32 code in its low word, which is what FormatMessage returns
//     for it (0x80070005 → "Access is denied.", not winerror.h's "General
//     access denied error").

// win32Messages maps Win32 error codes to their system message text.
var win32Messages = sync.OnceValue(func() map[uint32]string {
	return map[uint32]string{
		0:     "The operation completed successfully.",
		1:     "Incorrect function.",
		2:     "The system cannot find the file specified.",
		3:     "The system cannot find the path specified.",
		4:     "The system cannot open the file.",
		5:     "Access is denied.",
		6:     "The handle is invalid.",
		8:     "Not enough memory resources are available to process this command.",
		13:    "The data is invalid.",
		14:    "Not enough storage is available to complete this operation.",
		32:    "The process cannot access the file because it is being used by another process.",
		50:    "The request is not supported.",
		53:    "The network path was not found.",
		87:    "The parameter is incorrect.",
		122:   "The data area passed to a system call is too small.",
		183:   "Cannot create a file when that file already exists.",
		234:   "More data is available.",
		259:   "No more data is available.",
		995:   "The I/O operation has been aborted because of either a thread exit or an application request.",
		997:   "Overlapped I/O operation is in progress.",
		1168:  "Element not found.",
		1223:  "The operation was canceled by the user.",
		1460:  "This operation returned because the timeout period expired.",
		15005: "The event data raised by the publisher is not compatible with the event template definition in the publisher's manifest.",
	}
})

// ntstatusMessages maps NTSTATUS values to ntdll.dll's message text.
var ntstatusMessages = sync.OnceValue(func() map[uint32]string {
	return map[uint32]string{
		0x00000000: "The operation completed successfully.",
		0x00000103: "The operation that was requested is pending completion.",
		0x80000005: "{Buffer Overflow} The data was too large to fit into the specified buffer.",
		0xC0000001: "{Operation Failed} The requested operation was unsuccessful.",
		0xC0000002: "{Not Implemented} The requested operation is not implemented.",
		0xC0000005: "The instruction at 0x%p referenced memory at 0x%p. The memory could not be %s.",
		0xC0000008: "An invalid HANDLE was specified.",
		0xC000000D: "An invalid parameter was passed to a service or function.",
		0xC0000017: "{Not Enough Quota} Not enough virtual memory or paging file quota is available to complete the specified operation.",
		0xC0000022: "{Access Denied} A process has requested access to an object, but has not been granted those access rights.",
		0xC0000023: "{Buffer Too Small} The buffer is too small to contain the entry. No information has been written to the buffer.",
		0xC0000034: "Object Name not found.",
		0xC000009A: "Insufficient system resources exist to complete the API.",
		0xC00000BB: "The request is not supported.",
		0xC0000120: "The I/O request was canceled.",
		0xC0000225: "The object was not found.",
	}
})

// hresultMessages maps HRESULTs that are not FACILITY_WIN32 wrappers to
// their system message text.
var hresultMessages = sync.OnceValue(func() map[uint32]string {
	return map[uint32]string{
		0x00000000: "The operation completed successfully.", // S_OK (same message id as ERROR_SUCCESS)
		0x80004001: "Not implemented",                       // E_NOTIMPL
		0x80004002: "No such interface supported",           // E_NOINTERFACE
		0x80004003: "Invalid pointer",                       // E_POINTER
		0x80004004: "Operation aborted",                     // E_ABORT
		0x80004005: "Unspecified error",                     // E_FAIL
		0x8000FFFF: "Catastrophic failure",                  // E_UNEXPECTED
	}
})

// win32ErrorText returns the system message text of a Win32 error code, if
// the built-in table knows it.
func win32ErrorText(code uint32) (string, bool) {
	s, ok := win32Messages()[code]
	return s, ok
}

// ntstatusText returns the message text of an NTSTATUS value.
func ntstatusText(code uint32) (string, bool) {
	s, ok := ntstatusMessages()[code]
	return s, ok
}

// hresultText returns the message text of an HRESULT; HRESULT_FROM_WIN32
// values (0x8007xxxx) use the Win32 table (E_ACCESSDENIED, E_INVALIDARG,
// E_OUTOFMEMORY and E_HANDLE are such values).
func hresultText(code uint32) (string, bool) {
	if s, ok := hresultMessages()[code]; ok {
		return s, true
	}
	if code&0xFFFF0000 == 0x80070000 && code&0xFFFF != 0 {
		return win32ErrorText(code & 0xFFFF)
	}
	return "", false
}
