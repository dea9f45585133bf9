package compress

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"unicode/utf16"
)

// Test inputs: random, structured and event-like data.

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// smallAlphabet returns n bytes drawn from k symbols: compressible, with
// many short matches.
func smallAlphabet(rng *rand.Rand, n, k int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(rng.IntN(k))
	}
	return b
}

// runsOf returns runs of byte 'a' of each given length, each preceded by a
// distinct separator, so that every run encodes as a literal followed by a
// distance-1 match of exactly length-1 bytes.
func runsOf(lengths ...int) []byte {
	var b []byte
	for i, n := range lengths {
		b = append(b, 0xf0, byte(i), byte(i>>8), 0xf1)
		b = append(b, bytes.Repeat([]byte{'a'}, n)...)
	}
	return b
}

// periodic returns n bytes repeating a random pattern of the given period:
// overlapping matches with distance == period.
func periodic(rng *rand.Rand, n, period int) []byte {
	p := randomBytes(rng, period)
	b := make([]byte, n)
	for i := range b {
		b[i] = p[i%period]
	}
	return b
}

// farRepeats returns random blocks that recur at the given distances, for
// matches near the format's window limit.
func farRepeats(rng *rand.Rand, dists ...int) []byte {
	var b []byte
	for _, d := range dists {
		block := randomBytes(rng, 64)
		b = append(b, block...)
		b = append(b, randomBytes(rng, d-64)...)
		b = append(b, block...)
	}
	return b
}

// syntheticETW returns about n bytes resembling uncompressed ETW buffer
// content: 8-byte aligned event records with EVENT_HEADER-like headers
// (0xC0 marker, provider GUIDs, process/thread ids, increasing timestamps)
// and UTF-16 strings from a small vocabulary.
func syntheticETW(rng *rand.Rand, n int) []byte {
	guids := make([][]byte, 6)
	for i := range guids {
		guids[i] = randomBytes(rng, 16)
	}
	words := []string{
		`C:\Windows\System32\ntdll.dll`, `C:\Windows\System32\kernel32.dll`,
		"Microsoft-Windows-Kernel-Process", "svchost.exe", "explorer.exe",
		`\Device\HarddiskVolume3\Program Files\App\app.exe`, "TCP/IP", "GET /index.html",
	}
	pids := []uint32{4, 612, 1020, 4412, 9876}
	ts := uint64(133_500_000_000_000_000)
	var b []byte
	for len(b) < n {
		var payload []byte
		for range 1 + rng.IntN(3) {
			for _, r := range utf16.Encode([]rune(words[rng.IntN(len(words))])) {
				payload = binary.LittleEndian.AppendUint16(payload, r)
			}
			payload = append(payload, 0, 0)
		}
		for range rng.IntN(4) {
			payload = binary.LittleEndian.AppendUint64(payload, rng.Uint64()>>uint(rng.IntN(64)))
		}
		size := 0x50 + len(payload)
		rec := make([]byte, 0, size+8)
		rec = binary.LittleEndian.AppendUint16(rec, uint16(size))
		rec = append(rec, 0x12, 0xc0) // HeaderType, MarkerFlags: EVENT_HEADER
		rec = binary.LittleEndian.AppendUint16(rec, 0x0240)
		rec = binary.LittleEndian.AppendUint16(rec, 0)
		pid := pids[rng.IntN(len(pids))]
		rec = binary.LittleEndian.AppendUint32(rec, pid+4+uint32(rng.IntN(3))*4)
		rec = binary.LittleEndian.AppendUint32(rec, pid)
		ts += uint64(rng.IntN(5000))
		rec = binary.LittleEndian.AppendUint64(rec, ts)
		rec = append(rec, guids[rng.IntN(len(guids))]...)
		rec = binary.LittleEndian.AppendUint16(rec, uint16(rng.IntN(20)))
		rec = append(rec, 0, 4, 0, 0)
		rec = binary.LittleEndian.AppendUint64(rec, 0x8000000000000000)
		rec = binary.LittleEndian.AppendUint32(rec, uint32(rng.IntN(1000)))
		rec = binary.LittleEndian.AppendUint32(rec, uint32(rng.IntN(100)))
		rec = append(rec, make([]byte, 16)...) // ActivityId
		rec = append(rec, make([]byte, 0x50-len(rec))...)
		rec = append(rec, payload...)
		for len(rec)%8 != 0 {
			rec = append(rec, 0)
		}
		b = append(b, rec...)
	}
	return b[:n]
}

// lznt1Splits returns 4096-byte (chunk-aligned) pieces that make the
// LZNT1 test encoder use, for every displacement/length split M, both the
// longest length (random prefix of U bytes, then a run) and the farthest
// displacement 2^M (random prefix of 2^M bytes, then a copy of its start).
func lznt1Splits(rng *rand.Rand) []byte {
	var b []byte
	for _, u := range []int{17, 33, 65, 129, 257, 513, 1025, 2049} {
		b = append(b, randomBytes(rng, u)...)
		b = append(b, make([]byte, 4096-u)...)
	}
	for k := 4; k <= 11; k++ {
		p := randomBytes(rng, 1<<k)
		piece := append(p, p[:16]...)
		b = append(b, piece...)
		b = append(b, make([]byte, 4096-len(piece))...) // compressible, so not stored
	}
	return b
}

type testInput struct {
	name string
	data []byte
}

// testInputs returns the shared round-trip inputs.
func testInputs() []testInput {
	rng := rand.New(rand.NewPCG(1, 2))
	var lengths []int
	for n := 3; n <= 40; n++ {
		lengths = append(lengths, n)
	}
	for n := 260; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 4095, 4096, 4097, 4098, 4099, 65534, 65535, 65536, 65537, 65538, 65539, 65540, 70000)
	return []testInput{
		{"empty", nil},
		{"one", []byte{42}},
		{"two", []byte{1, 2}},
		{"alphabet", []byte(alphabet)},
		{"abc300", []byte(abc300)},
		{"lznt1-example", []byte(lznt1Example)},
		{"random-1", randomBytes(rng, 1)},
		{"random-100", randomBytes(rng, 100)},
		{"random-70000", randomBytes(rng, 70000)},
		{"alpha4-50000", smallAlphabet(rng, 50000, 4)},
		{"alpha20-150000", smallAlphabet(rng, 150000, 20)},
		{"zeros-1M", make([]byte, 1<<20)},
		{"zeros-65536", make([]byte, 65536)},
		{"runs", runsOf(lengths...)},
		{"period2", periodic(rng, 10000, 2)},
		{"period3", periodic(rng, 10000, 3)},
		{"period7", periodic(rng, 10000, 7)},
		{"period13", periodic(rng, 100000, 13)},
		{"period31", periodic(rng, 20000, 31)},
		{"far", farRepeats(rng, 100, 1000, 4000, 8000, 8100, 8192, 8200, 16384, 40000, 65000, 65535)},
		{"etw-4096", syntheticETW(rng, 4096)},
		{"etw-65535", syntheticETW(rng, 65535)},
		{"etw-65536", syntheticETW(rng, 65536)},
		{"etw-65537", syntheticETW(rng, 65537)},
		{"etw-300000", syntheticETW(rng, 300000)},
		{"etw-1M", syntheticETW(rng, 1<<20)},
		{"lznt1-splits", lznt1Splits(rng)},
		{"mixed", bytes.Join([][]byte{randomBytes(rng, 5000), make([]byte, 70000), syntheticETW(rng, 70000), randomBytes(rng, 3), periodic(rng, 300, 5)}, nil)},
	}
}
