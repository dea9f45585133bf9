package tracelogging

import (
	"crypto/sha1"
	"strings"
	"unicode/utf16"

	"github.com/google/uuid"

	"github.com/etwkit/etw/etl"
)

// providerNamespace is the namespace EventSource and TraceLogging hash
// provider names in (decoding.md §4.6).
var providerNamespace = [16]byte{0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8, 0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB}

// ProviderGUID returns the provider GUID that .NET EventSource and
// TraceLogging derive from a provider name: SHA-1 over a fixed 16-byte
// namespace followed by the upper-cased name in UTF-16BE (no NUL), the
// first 16 bytes of the hash with the version nibble set to 5, read as a
// GUID in Windows (little-endian) layout. "VanierEventSource" gives
// {b16a7b93-dd65-561c-90f3-eeae62570a8b}.
//
// Providers may register an explicit GUID instead; [NameMatchesGUID] tells
// whether a provider's GUID follows the rule.
func ProviderGUID(name string) uuid.UUID {
	h := sha1.New()
	h.Write(providerNamespace[:])
	var buf [128]byte
	b := buf[:0]
	for _, c := range utf16.Encode([]rune(strings.ToUpper(name))) {
		b = append(b, byte(c>>8), byte(c))
		if len(b) == len(buf) {
			h.Write(b)
			b = buf[:0]
		}
	}
	h.Write(b)
	var sum [sha1.Size]byte
	h.Sum(sum[:0])
	sum[7] = sum[7]&0x0F | 0x50
	return etl.GUIDFromWindows(sum[:16])
}

// NameMatchesGUID reports whether guid is the GUID derived from the
// provider name by [ProviderGUID]. It is false for an empty name.
// Compiled schemas carry both: NameMatchesGUID(s.ProviderName,
// s.ProviderGUID); [Cache.NameMatchesGUID] remembers the answer per
// schema.
func NameMatchesGUID(name string, guid uuid.UUID) bool {
	return name != "" && ProviderGUID(name) == guid
}
