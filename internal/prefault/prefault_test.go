package prefault

// raceEnabled is set when the race detector is on (race_test.go): its
// shadow memory faults too, so the tests that count faults skip.
var raceEnabled bool
