package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"
)

// MaxRecordSize is the largest record ETW can log (MAX_ETW_EVENT_SIZE).
const MaxRecordSize = 0xFFFF

// ErrRecordTooLarge is returned for an event that does not fit in one
// record.
var ErrRecordTooLarge = errors.New("etl: event larger than the 65535-byte record limit")

// AppendRecord appends the on-disk record of ev (without trailing
// padding) to dst. It is the inverse of the record parser: reading the
// result gives back ev's header fields, extended items and user data.
// Fields a header kind does not store are ignored; consumer-side flags
// (32/64-bit, classic, processor index) follow from ev.Header. Instance
// records are written in the EVENT_INSTANCE_GUID_HEADER form.
func AppendRecord(dst []byte, ev *Event) ([]byte, error) {
	start := len(dst)
	le := binary.LittleEndian
	put16 := func(off int, v uint16) { le.PutUint16(dst[start+off:], v) }
	grow := func(n int) { dst = append(dst, make([]byte, n)...) }
	t := ev.Header
	switch t {
	case HeaderSystem32, HeaderSystem64, HeaderCompact32, HeaderCompact64, HeaderPerfInfo32, HeaderPerfInfo64:
		hs := systemHeaderSize
		switch t {
		case HeaderCompact32, HeaderCompact64:
			hs = compactHeaderSize
		case HeaderPerfInfo32, HeaderPerfInfo64:
			hs = perfinfoHeaderSize
		}
		ver := ev.ClassVersion
		if ver == 0 {
			ver = uint16(ev.Descriptor.Version)
		}
		ver &^= pebsFlag | pmcCountMask<<pmcCountShift
		var extras [][]byte
		for _, x := range ev.Extended {
			switch x.Type {
			case ExtPEBSIndex:
				if len(x.Data) != 8 {
					return dst[:start], fmt.Errorf("etl: PEBS index item of %d bytes, want 8", len(x.Data))
				}
				ver |= pebsFlag
				extras = append([][]byte{x.Data}, extras...)
			case ExtPMCCounters:
				n := len(x.Data) / 8
				if len(x.Data)%8 != 0 || n > pmcCountMask {
					return dst[:start], fmt.Errorf("etl: %d bytes of PMC counters (up to %d u64)", len(x.Data), pmcCountMask)
				}
				ver |= uint16(n) << pmcCountShift
				extras = append(extras, x.Data)
			default:
				return dst[:start], fmt.Errorf("etl: %v records carry only PEBS and PMC items, not %v", t, x.Type)
			}
		}
		grow(hs)
		put16(0, ver)
		dst[start+2], dst[start+3] = byte(t), 0xC0
		hook := ev.HookID
		put16(6, hook)
		if hs == perfinfoHeaderSize {
			le.PutUint64(dst[start+8:], uint64(ev.Timestamp))
		} else {
			le.PutUint32(dst[start+8:], ev.ThreadID)
			le.PutUint32(dst[start+12:], ev.ProcessID)
			le.PutUint64(dst[start+16:], uint64(ev.Timestamp))
			if hs == systemHeaderSize {
				le.PutUint32(dst[start+24:], ev.KernelTime)
				le.PutUint32(dst[start+28:], ev.UserTime)
			}
		}
		for _, x := range extras {
			dst = append(dst, x...)
		}
		dst = append(dst, ev.UserData...)
		if len(dst)-start > MaxRecordSize {
			return dst[:start], ErrRecordTooLarge
		}
		put16(4, uint16(len(dst)-start))
	case HeaderClassic32, HeaderClassic64, HeaderInstance32, HeaderInstance64:
		hs := classicHeaderSize
		if t == HeaderInstance32 || t == HeaderInstance64 {
			hs = instanceHeaderSize
		}
		grow(hs)
		dst[start+2], dst[start+3] = byte(t), 0xC0
		dst[start+4], dst[start+5] = ev.Descriptor.Opcode, ev.Descriptor.Level
		ver := ev.ClassVersion
		if ver == 0 {
			ver = uint16(ev.Descriptor.Version)
		}
		put16(6, ver)
		le.PutUint32(dst[start+8:], ev.ThreadID)
		le.PutUint32(dst[start+12:], ev.ProcessID)
		le.PutUint64(dst[start+16:], uint64(ev.Timestamp))
		PutGUIDWindows(dst[start+0x18:], ev.ProviderID)
		putCPUTimes(dst[start+0x28:], ev)
		if hs == instanceHeaderSize {
			le.PutUint32(dst[start+0x30:], ev.InstanceID)
			le.PutUint32(dst[start+0x34:], ev.ParentInstanceID)
			PutGUIDWindows(dst[start+0x38:], ev.ParentGUID)
		}
		dst = append(dst, ev.UserData...)
		if len(dst)-start > MaxRecordSize {
			return dst[:start], ErrRecordTooLarge
		}
		put16(0, uint16(len(dst)-start))
	case HeaderEvent32, HeaderEvent64, HeaderError:
		grow(eventHeaderSize)
		flags := ev.Flags & flagProducerMask &^ (FlagExtendedInfo | Flag32BitHeader | Flag64BitHeader)
		if t == HeaderError {
			flags |= ev.Flags & (Flag32BitHeader | Flag64BitHeader)
		}
		if len(ev.Extended) > 0 {
			flags |= FlagExtendedInfo
		}
		put16(2, 0xC000|uint16(t))
		put16(4, flags)
		put16(6, ev.EventProperty)
		le.PutUint32(dst[start+8:], ev.ThreadID)
		le.PutUint32(dst[start+12:], ev.ProcessID)
		le.PutUint64(dst[start+16:], uint64(ev.Timestamp))
		PutGUIDWindows(dst[start+0x18:], ev.ProviderID)
		d := &ev.Descriptor
		put16(0x28, d.ID)
		dst[start+0x2A], dst[start+0x2B], dst[start+0x2C], dst[start+0x2D] = d.Version, d.Channel, d.Level, d.Opcode
		put16(0x2E, d.Task)
		le.PutUint64(dst[start+0x30:], d.Keyword)
		putCPUTimes(dst[start+0x38:], ev)
		PutGUIDWindows(dst[start+0x40:], ev.ActivityID)
		for i, x := range ev.Extended {
			total := (extItemHeaderSize + len(x.Data) + 7) &^ 7
			if total > MaxRecordSize {
				return dst[:start], ErrRecordTooLarge
			}
			p := len(dst)
			grow(total)
			le.PutUint16(dst[p:], uint16(total))
			le.PutUint16(dst[p+2:], uint16(x.Type))
			if i < len(ev.Extended)-1 {
				le.PutUint16(dst[p+4:], 1)
			}
			le.PutUint16(dst[p+6:], uint16(len(x.Data)))
			copy(dst[p+extItemHeaderSize:], x.Data)
		}
		dst = append(dst, ev.UserData...)
		if len(dst)-start > MaxRecordSize {
			return dst[:start], ErrRecordTooLarge
		}
		put16(0, uint16(len(dst)-start))
	case HeaderMessage:
		grow(messageHeaderSize)
		dst[start+3] = 0x90
		put16(4, ev.Descriptor.ID)
		opt := ev.MessageFlags
		put16(6, opt)
		if opt&wppSequence != 0 {
			dst = le.AppendUint32(dst, ev.SequenceNumber)
		}
		if opt&wppComponentID != 0 {
			dst = le.AppendUint32(dst, ev.ComponentID)
		} else if opt&wppGUID != 0 {
			p := len(dst)
			grow(16)
			PutGUIDWindows(dst[p:], ev.ProviderID)
		}
		if opt&(wppTimestamp|wppPerfTimestamp) != 0 {
			dst = le.AppendUint64(dst, uint64(ev.Timestamp))
		}
		if opt&wppSystemInfo != 0 {
			dst = le.AppendUint32(dst, ev.ThreadID)
			dst = le.AppendUint32(dst, ev.ProcessID)
		}
		dst = append(dst, ev.UserData...)
		if len(dst)-start > MaxRecordSize {
			return dst[:start], ErrRecordTooLarge
		}
		put16(0, uint16(len(dst)-start))
	default:
		return dst, fmt.Errorf("etl: cannot encode header type %v", t)
	}
	return dst, nil
}

func putCPUTimes(b []byte, ev *Event) {
	if ev.Flags&FlagPrivateSession != 0 || (ev.ProcessorTime != 0 && ev.KernelTime == 0 && ev.UserTime == 0) {
		binary.LittleEndian.PutUint64(b, ev.ProcessorTime)
		return
	}
	binary.LittleEndian.PutUint32(b, ev.KernelTime)
	binary.LittleEndian.PutUint32(b[4:], ev.UserTime)
}

// AppendLogfileHeader appends the TRACE_LOGFILE_HEADER of h (64-bit layout
// if h.Is64, else 32-bit) followed by the logger and log-file names, as the
// payload of the log-file header event.
func AppendLogfileHeader(dst []byte, h *LogfileHeader) []byte {
	size, ptr := tlh32Size, 4
	if h.Is64 {
		size, ptr = tlh64Size, 8
	}
	start := len(dst)
	dst = append(dst, make([]byte, size)...)
	b := dst[start:]
	le := binary.LittleEndian
	le.PutUint32(b[0:], h.BufferSize)
	b[4], b[5], b[6], b[7] = h.MajorVersion, h.MinorVersion, h.SubVersion, h.SubMinorVersion
	le.PutUint32(b[0x08:], h.ProviderVersion)
	le.PutUint32(b[0x0C:], h.NumberOfProcessors)
	le.PutUint64(b[0x10:], uint64(h.EndTime))
	le.PutUint32(b[0x18:], h.TimerResolution)
	le.PutUint32(b[0x1C:], h.MaximumFileSize)
	le.PutUint32(b[0x20:], h.LogFileMode)
	le.PutUint32(b[0x24:], h.BuffersWritten)
	le.PutUint32(b[0x28:], h.StartBuffers)
	le.PutUint32(b[0x2C:], h.PointerSize)
	le.PutUint32(b[0x30:], h.EventsLost)
	le.PutUint32(b[0x34:], h.CPUSpeedMHz)
	o := 0x38
	if ptr == 8 {
		le.PutUint64(b[o:], h.LoggerNameField)
		le.PutUint64(b[o+8:], h.LogFileNameField)
	} else {
		le.PutUint32(b[o:], uint32(h.LoggerNameField))
		le.PutUint32(b[o+4:], uint32(h.LogFileNameField))
	}
	o += 2 * ptr
	putTimeZone(b[o:o+tzSize], &h.TimeZone)
	o += tzSize + 4
	le.PutUint64(b[o:], uint64(h.BootTime))
	le.PutUint64(b[o+8:], uint64(h.PerfFreq))
	le.PutUint64(b[o+16:], uint64(h.StartTime))
	le.PutUint32(b[o+24:], h.ReservedFlags)
	le.PutUint32(b[o+28:], h.BuffersLost)
	dst = appendUTF16Z(dst, h.LoggerName)
	return appendUTF16Z(dst, h.LogFileName)
}

func putTimeZone(b []byte, tz *TimeZone) {
	le := binary.LittleEndian
	st := func(b []byte, s *SystemTime) {
		for i, v := range []uint16{s.Year, s.Month, s.DayOfWeek, s.Day, s.Hour, s.Minute, s.Second, s.Milliseconds} {
			le.PutUint16(b[2*i:], v)
		}
	}
	name := func(b []byte, s string) {
		u := utf16.Encode([]rune(s))
		if len(u) > 31 {
			u = u[:31]
		}
		for i, c := range u {
			le.PutUint16(b[2*i:], c)
		}
	}
	le.PutUint32(b, uint32(tz.Bias))
	name(b[4:0x44], tz.StandardName)
	st(b[0x44:], &tz.StandardDate)
	le.PutUint32(b[0x54:], uint32(tz.StandardBias))
	name(b[0x58:0x98], tz.DaylightName)
	st(b[0x98:], &tz.DaylightDate)
	le.PutUint32(b[0xA8:], uint32(tz.DaylightBias))
}

func appendUTF16Z(dst []byte, s string) []byte {
	for _, c := range utf16.Encode([]rune(s)) {
		dst = binary.LittleEndian.AppendUint16(dst, c)
	}
	return append(dst, 0, 0)
}

// AppendBufferHeader appends the 0x48-byte WMI_BUFFER_HEADER h.
func AppendBufferHeader(dst []byte, h *BufferHeader) []byte {
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, h.BufferSize)
	dst = le.AppendUint32(dst, h.SavedOffset)
	dst = le.AppendUint32(dst, h.CurrentOffset)
	dst = le.AppendUint32(dst, uint32(h.ReferenceCount))
	dst = le.AppendUint64(dst, uint64(h.TimeStamp))
	dst = le.AppendUint64(dst, uint64(h.SequenceNumber))
	dst = le.AppendUint64(dst, h.ClockField)
	dst = le.AppendUint32(dst, h.ClientContext)
	dst = le.AppendUint32(dst, h.State)
	dst = le.AppendUint32(dst, h.Offset)
	dst = le.AppendUint16(dst, h.Flags)
	dst = le.AppendUint16(dst, h.Type)
	return append(dst, make([]byte, 16)...)
}
