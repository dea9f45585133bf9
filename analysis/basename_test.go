package analysis

import (
	"strings"
	"testing"
)

// TestBaseName: the last element of Windows, slash and mixed paths, as
// strings.LastIndexAny finds it, non-ASCII names included.
func TestBaseName(t *testing.T) {
	for _, p := range []string{"", `ntdll.dll`, `C:\Windows\System32\ntdll.dll`, `\Device\HarddiskVolume3\x.exe`,
		`/usr/lib/libc.so.6`, `a/b\c`, `a\b/c`, `trailing\`, `/`, `\`, `C:\Programme\Büro\ñ.dll`, `日本\語.exe`} {
		want := p
		if i := strings.LastIndexAny(p, `\/`); i >= 0 {
			want = p[i+1:]
		}
		if got := baseName(p); got != want {
			t.Errorf("baseName(%q) = %q, want %q", p, got, want)
		}
	}
}
