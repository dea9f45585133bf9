package pdb

import "testing"

// CheckUndecorated is checkUndecorated for the external tests.
func CheckUndecorated(t *testing.T, names []string) int { return checkUndecorated(t, names) }
