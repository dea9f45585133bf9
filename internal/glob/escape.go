// Package glob quotes file names for filepath.Glob and filepath.Match.
package glob

import (
	"os"
	"strings"
)

// Escape returns a pattern of filepath.Match that matches s only: each
// '*', '?' and '[' becomes a class of itself ("[*]"), which both the
// Unix and the Windows matchers read (Windows has no '\' escape), and on
// other systems than Windows a '\' is escaped ("\\"). A pattern built as
// Escape(dir) + "/*.etl" matches the files of dir whatever dir's name.
func Escape(s string) string {
	return escape(s, os.PathSeparator == '\\')
}

// escape is Escape for Windows (windows) or the other systems.
func escape(s string, windows bool) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '*' || r == '?' || r == '[':
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		case r == '\\' && !windows:
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
