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
	return SharedDir(t, "ETL_ATTACK", "attack", "hostile inputs")
}

// SharedDir returns a folder of shared test data: $env, or sibling next to
// $ETL_CORPUS. It skips the test when neither variable is set, or when only
// ETL_CORPUS is and the folder next to it does not exist; what names the
// data in the message.
func SharedDir(t testing.TB, env, sibling, what string) string {
	t.Helper()
	dir, why := sharedDir(env, sibling, what)
	if why != "" {
		t.Skip(why)
	}
	return dir
}

// sharedDir is SharedDir's lookup: the folder, or why there is none.
func sharedDir(env, sibling, what string) (dir, why string) {
	if dir := os.Getenv(env); dir != "" {
		return dir, ""
	}
	c := os.Getenv("ETL_CORPUS")
	if c == "" {
		return "", "neither " + env + " nor ETL_CORPUS is set: no " + what + " to test against"
	}
	dir = filepath.Join(c, "..", sibling)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", "no " + what + " at " + dir + " (set " + env + ")"
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
