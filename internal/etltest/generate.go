package etltest

// The fixtures of testdata/etl other than sample.etl are written through
// the session emulator by internal/fixturegen (see docs/fixtures.md).
//go:generate go run ../fixturegen -out ../../testdata/etl
