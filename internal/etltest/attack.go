package etltest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/etwkit/etw/internal/etlcorpus"
)

// AttackDir returns the folder of hostile inputs (the attack run's
// reproducers): $ETL_ATTACK, or "attack" next to $ETL_CORPUS. It skips the
// test when neither variable is set, or when only ETL_CORPUS is and the
// folder next to it does not exist ([etlcorpus.AttackDir]).
func AttackDir(t testing.TB) string {
	t.Helper()
	return etlcorpus.AttackDir(t)
}

// SharedDir returns a folder of shared test data: $env, or sibling next to
// $ETL_CORPUS. It skips the test when neither variable is set, or when only
// ETL_CORPUS is and the folder next to it does not exist; what names the
// data in the message ([etlcorpus.FindShared]).
func SharedDir(t testing.TB, env, sibling, what string) string {
	t.Helper()
	dir, why := etlcorpus.FindShared(env, sibling, what)
	if why != "" {
		t.Skip(why)
	}
	return dir
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
