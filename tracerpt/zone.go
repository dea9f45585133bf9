package tracerpt

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etwkit/etw/etl"
)

// ParseZone parses a time zone for rendered times (the -tz option):
//
//	""  "UTC"  "Z"            UTC, written with a "Z" suffix
//	"+05:30" "-0500" "-05"    a fixed offset from UTC
//	"local"                   the zone of the machine running the program
//	"America/Toronto"         an IANA zone name (offsets follow daylight time)
func ParseZone(s string) (*time.Location, error) {
	switch strings.ToLower(s) {
	case "", "utc", "z", "gmt":
		return time.UTC, nil
	case "local":
		return time.Local, nil
	}
	if s[0] == '+' || s[0] == '-' {
		digits := strings.ReplaceAll(s[1:], ":", "")
		var h, m int
		var err error
		switch len(digits) {
		case 1, 2:
			h, err = strconv.Atoi(digits)
		case 3, 4:
			h, err = strconv.Atoi(digits[:len(digits)-2])
			if err == nil {
				m, err = strconv.Atoi(digits[len(digits)-2:])
			}
		default:
			err = fmt.Errorf("bad length")
		}
		if err != nil || h > 14 || m > 59 || strings.Count(s, ":") > 1 {
			return nil, fmt.Errorf("time zone %q: want an offset like -05:00 or +0530", s)
		}
		off := h*3600 + m*60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(s, off), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %v (want UTC, local, an offset like -05:00 or an IANA name)", s, err)
	}
	return loc, nil
}

// timeFormatter renders FILETIMEs in one zone, caching the zone offset
// for the span in which it holds, so that formatting allocates nothing and
// rarely consults the zone database.
type timeFormatter struct {
	loc        *time.Location
	utc        bool
	from, till int64 // Unix seconds during which off holds
	off        int   // seconds east of UTC
}

func newTimeFormatter(loc *time.Location) *timeFormatter {
	if loc == nil {
		loc = time.UTC
	}
	return &timeFormatter{loc: loc, utc: loc == time.UTC}
}

// offset returns the zone offset at Unix second sec.
func (f *timeFormatter) offset(sec int64) int {
	if f.utc {
		return 0
	}
	if f.till > f.from && sec >= f.from && sec < f.till {
		return f.off
	}
	t := time.Unix(sec, 0).In(f.loc)
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	f.off = off
	f.from, f.till = minUnix, maxUnix
	if !start.IsZero() {
		f.from = start.Unix()
	}
	if !end.IsZero() {
		f.till = end.Unix()
	}
	return off
}

const (
	minUnix = -1 << 62
	maxUnix = 1<<62 - 1
)

// filetimeEpochDelta is 1601-01-01 → 1970-01-01 in 100 ns units.
const filetimeEpochDelta = etl.UnixEpochFiletime

// split returns the local civil time of FILETIME ft: Unix seconds shifted
// by the zone offset, the 100 ns remainder and the offset.
func (f *timeFormatter) split(ft int64) (local int64, frac int64, off int) {
	u := ft - filetimeEpochDelta
	sec := floorDiv(u, 10_000_000)
	frac = u - sec*10_000_000
	off = f.offset(sec)
	return sec + int64(off), frac, off
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's algorithm).
func civil(days int64) (y, m, d int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	dd := doy - (153*mp+2)/5 + 1
	mm := mp + 3
	if mm > 12 {
		mm -= 12
	}
	if mm <= 2 {
		yy++
	}
	return int(yy), int(mm), int(dd)
}

// appendTimeCreated appends FILETIME ft as tracerpt's TimeCreated:
// "2020-01-29T10:44:23.860963400-05:00" (9 fractional digits, the last
// two always 00; "Z" in UTC).
func (f *timeFormatter) appendTimeCreated(b []byte, ft int64) []byte {
	local, frac, off := f.split(ft)
	b = appendDateTime7(b, local, frac)
	b = append(b, '0', '0')
	return appendOffset(b, off, f.utc)
}

// appendDateTime7 appends "YYYY-MM-DDThh:mm:ss.fffffff" for a count of
// seconds since 1970 and a fraction in 100 ns units.
func appendDateTime7(b []byte, secs, frac int64) []byte {
	days := floorDiv(secs, 86400)
	sod := secs - days*86400
	y, mo, d := civil(days)
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, mo, 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, int(sod/3600), 2)
	b = append(b, ':')
	b = appendDigits(b, int(sod/60%60), 2)
	b = append(b, ':')
	b = appendDigits(b, int(sod%60), 2)
	b = append(b, '.')
	return appendDigits(b, int(frac), 7)
}

// appendOffset appends a zone offset as "Z" (utc) or "±HH:MM".
func appendOffset(b []byte, off int, utc bool) []byte {
	if utc {
		return append(b, 'Z')
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	b = append(b, sign)
	b = appendDigits(b, off/3600, 2)
	b = append(b, ':')
	return appendDigits(b, off/60%60, 2)
}

// localTime returns FILETIME ft as a time.Time in the formatter's zone.
func (f *timeFormatter) localTime(ft int64) time.Time {
	return etl.FiletimeToTime(ft).In(f.loc)
}
