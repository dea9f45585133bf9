package glob

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEscapeMatches: an escaped name matches itself and no other name,
// in the Windows form too (read here by the Unix matcher, which reads
// classes alike).
func TestEscapeMatches(t *testing.T) {
	names := []string{"plain.etl", "a[1].etl", "a1.etl", "star*.etl", "star.etl", "starX.etl", "q?.etl", "qq.etl", `back\slash`, "backslash", "[].etl", "a[b-c]]"}
	for _, windows := range []bool{false, true} {
		for _, n := range names {
			if windows && n == `back\slash` {
				continue // a separator on Windows, never in a name
			}
			pat := escape(n, windows)
			for _, o := range names {
				ok, err := filepath.Match(pat, o)
				if err != nil {
					t.Fatalf("windows %v: pattern %q of %q: %v", windows, pat, n, err)
				}
				if ok != (o == n) {
					t.Errorf("windows %v: pattern %q of %q matches %q: %v", windows, pat, n, o, ok)
				}
			}
		}
	}
}

// TestEscapeGlobFolder: the files of a folder named with '[' and '*' are
// found by a pattern under its escaped name, not those of a folder its
// unescaped name would match.
func TestEscapeGlobFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run[1]*")
	other := filepath.Join(root, "run1x")
	for _, d := range []string{dir, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "t.etl"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := filepath.Glob(filepath.Join(Escape(dir), "*.etl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "t.etl")}; !slices.Equal(got, want) {
		t.Errorf("Glob of the escaped folder: %q, want %q", got, want)
	}
}
