package etltest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// AttackDir returns the folder of hostile inputs (the attack run's
// reproducers): $ETL_ATTACK, or "attack" next to $ETL_CORPUS. It skips the
// test when neither variable is set, or when only ETL_CORPUS is and the
// folder next to it does not exist.
func AttackDir(t testing.TB) string {
	t.Helper()
	dir, why := attackDir()
	if why != "" {
		t.Skip(why)
	}
	return dir
}

// attackDir returns the folder of hostile inputs, or why there is none.
func attackDir() (dir, why string) {
	if dir := os.Getenv("ETL_ATTACK"); dir != "" {
		return dir, ""
	}
	c := os.Getenv("ETL_CORPUS")
	if c == "" {
		return "", "neither ETL_ATTACK nor ETL_CORPUS is set: no hostile inputs to test against"
	}
	dir = filepath.Join(c, "..", "attack")
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", "no hostile inputs at " + dir + " (set ETL_ATTACK)"
	}
	return dir, ""
}

// AttackFile returns the path of the hostile input name (a path relative
// to [AttackDir], e.g. "schemas/mof_cycle.mof"). The test fails when the
// folder exists but the file does not.
func AttackFile(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(AttackDir(t), filepath.FromSlash(name))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("hostile input missing: %v", err)
	}
	return p
}
