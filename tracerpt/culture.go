package tracerpt

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Culture is what tracerpt takes from the machine's locale: the name
// written in RenderingInfo/@Culture and the long date format of the
// summary's Start Time and End Time lines.
type Culture struct {
	// Name is the culture name, e.g. "en-US".
	Name string
	// LongDate is the Windows long date pattern (dddd, MMMM, d, dd, M,
	// MM, yyyy, 'quoted literals').
	LongDate string
	// Days are the day names from Sunday; Months the month names from
	// January.
	Days   [7]string
	Months [12]string
}

var (
	enDays   = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	enMonths = [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	deDays   = [7]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"}
	deMonths = [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}
	frDays   = [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}
	frMonths = [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"}
	esDays   = [7]string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}
	esMonths = [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}
	itDays   = [7]string{"domenica", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato"}
	itMonths = [12]string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"}
	nlDays   = [7]string{"zondag", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag"}
	nlMonths = [12]string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"}
	ptDays   = [7]string{"domingo", "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado"}
	ptMonths = [12]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"}
)

// cultures are the long date patterns of Windows 10 for the cultures
// this package knows; others fall back to invariantLongDate.
var cultures = sync.OnceValue(func() map[string]Culture {
	return map[string]Culture{
		"en-us": {"en-US", "dddd, MMMM d, yyyy", enDays, enMonths},
		"en-ca": {"en-CA", "MMMM d, yyyy", enDays, enMonths},
		"en-gb": {"en-GB", "dd MMMM yyyy", enDays, enMonths},
		"en-au": {"en-AU", "dddd, d MMMM yyyy", enDays, enMonths},
		"en-nz": {"en-NZ", "dddd, d MMMM yyyy", enDays, enMonths},
		"en-ie": {"en-IE", "dddd d MMMM yyyy", enDays, enMonths},
		"en-in": {"en-IN", "dd MMMM yyyy", enDays, enMonths},
		"de-de": {"de-DE", "dddd, d. MMMM yyyy", deDays, deMonths},
		"fr-fr": {"fr-FR", "dddd d MMMM yyyy", frDays, frMonths},
		"fr-ca": {"fr-CA", "d MMMM yyyy", frDays, frMonths},
		"es-es": {"es-ES", "dddd, d' de 'MMMM' de 'yyyy", esDays, esMonths},
		"it-it": {"it-IT", "dddd d MMMM yyyy", itDays, itMonths},
		"nl-nl": {"nl-NL", "dddd d MMMM yyyy", nlDays, nlMonths},
		"pt-br": {"pt-BR", "dddd, d' de 'MMMM' de 'yyyy", ptDays, ptMonths},
		"ja-jp": {"ja-JP", "yyyy'年'M'月'd'日'", enDays, enMonths},
		"zh-cn": {"zh-CN", "yyyy'年'M'月'd'日'", enDays, enMonths},
	}
})

// invariantLongDate is the invariant culture's long date pattern.
const invariantLongDate = "dddd, dd MMMM yyyy"

// DefaultCulture is the culture used when none is given: en-US.
const DefaultCulture = "en-US"

// ParseCulture returns the culture named name (case-insensitive, e.g.
// "en-CA"). A well-formed name this package has no date table for keeps
// its name (RenderingInfo shows it) and formats dates with the invariant
// culture's English pattern; known reports whether the name was known.
func ParseCulture(name string) (c Culture, known bool, err error) {
	if name == "" {
		name = DefaultCulture
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return Culture{}, false, fmt.Errorf("culture %q: want a name like en-US", name)
		}
	}
	if c, ok := cultures()[strings.ToLower(strings.ReplaceAll(name, "_", "-"))]; ok {
		return c, true, nil
	}
	return Culture{Name: name, LongDate: invariantLongDate, Days: enDays, Months: enMonths}, false, nil
}

// FormatLongDate formats t (already in the wanted zone) with the
// culture's long date pattern, as Windows' GetDateFormat(DATE_LONGDATE).
func (c *Culture) FormatLongDate(t time.Time) string {
	var b strings.Builder
	p := c.LongDate
	for i := 0; i < len(p); {
		ch := p[i]
		if ch == '\'' {
			j := strings.IndexByte(p[i+1:], '\'')
			if j < 0 {
				b.WriteString(p[i+1:])
				break
			}
			b.WriteString(p[i+1 : i+1+j])
			i += j + 2
			continue
		}
		n := 1
		for i+n < len(p) && p[i+n] == ch {
			n++
		}
		switch ch {
		case 'd':
			switch {
			case n >= 4:
				b.WriteString(c.Days[t.Weekday()])
			case n == 3:
				b.WriteString(abbrev(c.Days[t.Weekday()]))
			case n == 2:
				fmt.Fprintf(&b, "%02d", t.Day())
			default:
				fmt.Fprintf(&b, "%d", t.Day())
			}
		case 'M':
			switch {
			case n >= 4:
				b.WriteString(c.Months[t.Month()-1])
			case n == 3:
				b.WriteString(abbrev(c.Months[t.Month()-1]))
			case n == 2:
				fmt.Fprintf(&b, "%02d", int(t.Month()))
			default:
				fmt.Fprintf(&b, "%d", int(t.Month()))
			}
		case 'y':
			if n <= 2 {
				fmt.Fprintf(&b, "%02d", t.Year()%100)
			} else {
				fmt.Fprintf(&b, "%04d", t.Year())
			}
		default:
			b.WriteString(p[i : i+n])
		}
		i += n
	}
	return b.String()
}

func abbrev(s string) string {
	r := []rune(s)
	if len(r) > 3 {
		r = r[:3]
	}
	return string(r)
}
