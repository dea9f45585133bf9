//go:build race

package tdh

func init() { raceEnabled = true }
