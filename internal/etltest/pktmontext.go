package etltest

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"unicode/utf16"
)

// PktmonMessages returns the message of every Microsoft-Windows-PktMon
// event in a pktmon etl2txt output file (UTF-16LE), in file order: the
// text after "[Microsoft-Windows-PktMon] " of each event line (packet
// dumps are indented continuation lines, left out), trailing spaces
// trimmed.
func PktmonMessages(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimPrefix(b, []byte{0xFF, 0xFE})
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	const tag = "[Microsoft-Windows-PktMon] "
	var out []string
	for _, line := range strings.Split(string(utf16.Decode(u)), "\n") {
		if !strings.HasPrefix(line, "[") {
			continue
		}
		if _, msg, ok := strings.Cut(line, tag); ok {
			out = append(out, strings.TrimRight(msg, " \r"))
		}
	}
	return out, nil
}
