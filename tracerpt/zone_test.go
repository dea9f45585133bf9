package tracerpt

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the machine has (the CLI embeds them too)
)

// The rule: TimeCreated in an IANA zone carries the offset in force at
// that instant, so the offset (and the civil time) change at every
// daylight-saving transition, also for one formatter that has already
// rendered times on the other side of it (the offset is cached per zone
// period).

// wantTimeCreated is TimeCreated computed by the standard library.
func wantTimeCreated(ft int64, loc *time.Location) string {
	u := ft - filetimeEpochDelta
	tm := time.Unix(floorDiv(u, 1e7), (u-floorDiv(u, 1e7)*1e7)*100).In(loc)
	return tm.Format("2006-01-02T15:04:05.0000000") + "00" + tm.Format("-07:00")
}

func filetimeOf(tm time.Time) int64 {
	return tm.Unix()*1e7 + int64(tm.Nanosecond()/100) + filetimeEpochDelta
}

func TestTimeCreatedAcrossDST(t *testing.T) {
	// Worked by hand: the 2021 transitions.
	for _, c := range []struct {
		zone string
		utc  string
		want string
	}{
		// New York springs forward at 02:00 EST (07:00Z): 01:59:59 is followed by 03:00:00.
		{"America/New_York", "2021-03-14T06:59:59.9999999Z", "2021-03-14T01:59:59.999999900-05:00"},
		{"America/New_York", "2021-03-14T07:00:00Z", "2021-03-14T03:00:00.000000000-04:00"},
		// and falls back at 02:00 EDT (06:00Z): 01:00–02:00 comes twice.
		{"America/New_York", "2021-11-07T05:59:59.9999999Z", "2021-11-07T01:59:59.999999900-04:00"},
		{"America/New_York", "2021-11-07T06:00:00Z", "2021-11-07T01:00:00.000000000-05:00"},
		// Berlin springs forward at 02:00 CET (01:00Z).
		{"Europe/Berlin", "2021-03-28T00:59:59.9999999Z", "2021-03-28T01:59:59.999999900+01:00"},
		{"Europe/Berlin", "2021-03-28T01:00:00Z", "2021-03-28T03:00:00.000000000+02:00"},
		// and falls back at 03:00 CEST (01:00Z).
		{"Europe/Berlin", "2021-10-31T00:59:59.9999999Z", "2021-10-31T02:59:59.999999900+02:00"},
		{"Europe/Berlin", "2021-10-31T01:00:00Z", "2021-10-31T02:00:00.000000000+01:00"},
		// Sydney: the southern hemisphere, back at 03:00 AEDT (16:00Z the day before).
		{"Australia/Sydney", "2021-04-03T15:59:59Z", "2021-04-04T02:59:59.000000000+11:00"},
		{"Australia/Sydney", "2021-04-03T16:00:00Z", "2021-04-04T02:00:00.000000000+10:00"},
	} {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		tm, err := time.Parse(time.RFC3339Nano, c.utc)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(newTimeFormatter(loc).appendTimeCreated(nil, filetimeOf(tm))); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.zone, c.utc, got, c.want)
		}
	}

	// One formatter per zone walks across every transition of 2019–2024,
	// forwards as a trace is written and then backwards, each instant
	// checked against the standard library.
	for _, zone := range []string{"America/New_York", "Europe/Berlin", "Australia/Sydney", "America/St_Johns"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		var transitions []time.Time
		for tm := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC); tm.Year() < 2025; {
			_, end := tm.In(loc).ZoneBounds()
			if end.IsZero() {
				break
			}
			transitions = append(transitions, end)
			tm = end
		}
		if len(transitions) < 12 {
			t.Fatalf("%s: %d transitions in 2019–2024, want 12", zone, len(transitions))
		}
		var fts []int64
		for _, tr := range transitions {
			ft := filetimeOf(tr)
			for _, d := range []int64{-2 * 3600e7, -1e7, -1, 0, 1, 1e7, 2 * 3600e7} {
				fts = append(fts, ft+d)
			}
		}
		f := newTimeFormatter(loc)
		check := func(ft int64) {
			t.Helper()
			if got, want := string(f.appendTimeCreated(nil, ft)), wantTimeCreated(ft, loc); got != want {
				t.Fatalf("%s: FILETIME %d: %s, want %s", zone, ft, got, want)
			}
		}
		for _, ft := range fts {
			check(ft)
		}
		for i := len(fts) - 1; i >= 0; i-- {
			check(fts[i])
		}
	}
}
