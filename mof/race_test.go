//go:build race

package mof

func init() { raceEnabled = true }
