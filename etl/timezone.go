package etl

import (
	"strconv"
	"strings"
)

// tzresNames are the names of common Windows time zones by their
// tzres.dll string ids (a header says "@tzres.dll,-212" where Windows
// shows "Pacific Standard Time"), with the zone's bias in minutes. A
// table, not a map: it is data in the binary, with nothing to build at
// the program's start.
var tzresNames = [...]struct {
	id   int
	name string
	bias int32
}{
	{111, "Eastern Daylight Time", 300}, {112, "Eastern Standard Time", 300},
	{161, "Central Daylight Time", 360}, {162, "Central Standard Time", 360},
	{191, "Mountain Daylight Time", 420}, {192, "Mountain Standard Time", 420},
	{211, "Pacific Daylight Time", 480}, {212, "Pacific Standard Time", 480},
	{261, "GMT Daylight Time", 0}, {262, "GMT Standard Time", 0},
	{301, "Romance Daylight Time", -60}, {302, "Romance Standard Time", -60},
	{321, "W. Europe Daylight Time", -60}, {322, "W. Europe Standard Time", -60},
	{491, "India Daylight Time", -330}, {492, "India Standard Time", -330},
	{571, "China Daylight Time", -480}, {572, "China Standard Time", -480},
}

// Name returns the zone's standard name as Windows shows it: a tzres.dll
// reference ("@tzres.dll,-212") is resolved to the zone's name when it is
// a well-known zone whose bias agrees with the header's; any other name
// is returned as stored. ok reports whether the result is a name rather
// than an unresolved reference.
func (tz *TimeZone) Name() (name string, ok bool) {
	id, isRef := strings.CutPrefix(strings.ToLower(tz.StandardName), "@tzres.dll,-")
	if !isRef {
		return tz.StandardName, tz.StandardName != ""
	}
	if n, err := strconv.Atoi(id); err == nil {
		for _, z := range tzresNames {
			if z.id == n && z.bias == tz.Bias {
				return z.name, true
			}
		}
	}
	return tz.StandardName, false
}
