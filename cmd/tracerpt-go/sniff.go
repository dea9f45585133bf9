package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/etwkit/etw/etl"
)

// fileKinds are the files people pass for a trace by mistake, by their
// first bytes: what each is and what to do with it.
var fileKinds = []struct {
	magic      string
	kind, hint string
}{
	{"ElfFile\x00", "an EVTX file (a Windows event log)", "read it with wevtutil qe FILE /lf:true or Get-WinEvent -Path; tracerpt-go reads .etl trace files"},
	{"PK\x03\x04", "a zip archive", "extract it first (unzip) and pass the .etl files inside"},
	{"\x1f\x8b", "a gzip file", "decompress it first (gunzip) and pass the .etl file"},
	{"7z\xbc\xaf\x27\x1c", "a 7z archive", "extract it first (7z x) and pass the .etl files inside"},
	{"\x0a\x0d\x0d\x0a", "a pcapng packet capture", "open it with Wireshark; tracerpt-go pcapng turns a PktMon .etl into pcapng"},
	{"\xd4\xc3\xb2\xa1", "a pcap packet capture", "open it with Wireshark or tcpdump"},
	{"\xa1\xb2\xc3\xd4", "a pcap packet capture", "open it with Wireshark or tcpdump"},
	{"MZ", "a Windows executable", "its event schemas are imported with -import FILE; pass the .etl trace as input"},
}

// explainNotETL turns etl.Open's "not an ETL file" into what the file is
// and what to do with it. Other errors are returned as they are.
func explainNotETL(path string, err error) error {
	if !errors.Is(err, etl.ErrNotETL) {
		return err
	}
	kind, hint := sniffFile(path)
	if kind == "" {
		return err
	}
	return fmt.Errorf("%s: this is %s, not an ETL file: %s", path, kind, hint)
}

// sniffFile names the kind of a file that is not an ETL file ("" if it is
// not one it knows).
func sniffFile(path string) (kind, hint string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	b = b[:n]
	for _, k := range fileKinds {
		if bytes.HasPrefix(b, []byte(k.magic)) {
			return k.kind, k.hint
		}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	switch {
	case n == 0:
		return "an empty file", "pass an .etl trace file"
	case bytes.HasPrefix(bytes.TrimSpace(b), []byte("<")) && !bytes.Contains(b, []byte{0}):
		return "an XML file", "a manifest is imported with -import FILE; pass the .etl trace as input"
	case bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && !bytes.Contains(b, []byte{0}):
		return "a JSON file", "tracerpt-go synth makes an .etl file from JSON Lines"
	case !bytes.Contains(b, []byte{0}) && (utf8.Valid(b) || n == 512 && utf8.Valid(b[:n-3])):
		return "a text file", "tracerpt-go reads .etl trace files"
	}
	return "", ""
}
