//go:build race

package session_test

func init() { raceEnabled = true }
