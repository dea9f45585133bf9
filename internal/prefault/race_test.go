//go:build race

package prefault

func init() { raceEnabled = true }
