package decode

import (
	"bytes"
	"slices"

	"github.com/google/uuid"

	"github.com/etwkit/etw/internal/panicerr"
	"github.com/etwkit/etw/tdh"
)

// An EventSource manifest that a Prescanner completes is parsed on a
// goroutine of its own when more than one runs at a time: parsing takes
// milliseconds (net.4.5.2's manifests ~7 ms a run, on the model pass's
// reading goroutine, its slower side) and the reading goroutine goes on.
// Decoding is as though the manifest had been registered at once:
//
//   - the manifests are parsed and registered one at a time, in the order
//     they completed: one that may not be parsed apart (below, or past
//     maxQueuedXML) takes its turn and the Prescanner waits for it, and
//     eventSources.add waits for those before it;
//   - until a manifest is registered, decoding an event of the provider
//     that logged it waits for the registration (guard, wherever schemas
//     are looked up or a value found before is reused: candidates, which
//     Decode and Pin call, PeekUint's memo and Ahead.Get), and
//     forking, importing and Finish wait for every parse (waitParsed);
//   - only a manifest whose GUIDs are all that provider's is parsed apart
//     (declaresOnly): another GUID's events could be decoded before its
//     registration.

// maxQueuedXML bounds the XML of the manifests waiting to be parsed
// apart: past it the Prescanner waits for them and for the next one, so
// that a trace of many large manifests holds no more than one manifest
// beyond it, and parses one at a time as it did when each was parsed at
// once.
var maxQueuedXML = 16 << 20 // a variable for the tests

// parseHook, when set (tests), runs before each manifest parsed on a
// job's goroutine (parseAsync).
var parseHook func()

// A parseJob is one manifest parsed on its own goroutine.
type parseJob struct {
	done chan struct{} // closed once registered (or failed) and every job before it too
	err  error         // what registering returned; a panic as a *panicerr.Error
	slot int           // its error's place among the Prescanner's
}

// wait waits until j's manifest is registered and returns what
// registering returned; a panic while parsing or registering is raised
// again, on the caller's goroutine, where it can be recovered.
func (j *parseJob) wait() error {
	<-j.done
	if pe, ok := j.err.(*panicerr.Error); ok {
		panic(pe)
	}
	return j.err
}

// queues reports whether a manifest of n bytes of XML may be parsed
// apart now. The caller holds es.mu.
func (es *eventSources) queues(n int) bool { return es.queued+n <= maxQueuedXML }

// parseAsync parses xml, the manifest provider g logged, on a goroutine,
// after the manifests started before it, and registers it with reg. The
// caller holds es.mu.
func (es *eventSources) parseAsync(reg *tdh.Registry, xml []byte, g uuid.UUID) *parseJob {
	j := &parseJob{done: make(chan struct{})}
	prev := es.last
	es.last = j.done
	es.queued += len(xml)
	var now []uuid.UUID
	if p := es.parsing.Load(); p != nil {
		now = slices.Clone(*p)
	}
	now = append(now, g)
	es.parsing.Store(&now)
	go func() {
		if prev != nil {
			<-prev
		}
		j.err = es.parseRegister(reg, xml, g)
		es.mu.Lock()
		es.queued -= len(xml)
		if p := es.parsing.Load(); p != nil {
			left := slices.Clone(*p)
			if i := slices.Index(left, g); i >= 0 {
				left = slices.Delete(left, i, i+1)
			}
			if len(left) == 0 {
				es.parsing.Store(nil)
			} else {
				es.parsing.Store(&left)
			}
		}
		es.mu.Unlock()
		close(j.done)
	}()
	return j
}

// parseRegister parses one manifest, then registers it holding es.mu; a
// panic comes back as a *panicerr.Error.
func (es *eventSources) parseRegister(reg *tdh.Registry, xml []byte, g uuid.UUID) (err error) {
	defer panicerr.Recover(&err)
	if parseHook != nil {
		parseHook()
	}
	m, err := parseManifest(xml, g)
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.register(reg, m, err, g)
}

// guard waits, when a manifest that provider g logged is being parsed,
// until it is registered (see parseAsync). Without parses under way it
// costs one atomic load (inlined).
func (es *eventSources) guard(g uuid.UUID) {
	if es.parsing.Load() != nil {
		es.guardParsing(g)
	}
}

// guardParsing is guard's wait, apart so that guard inlines.
func (es *eventSources) guardParsing(g uuid.UUID) {
	if p := es.parsing.Load(); p != nil && slices.Contains(*p, g) {
		es.waitParsed()
	}
}

// waitParsed waits until every manifest being parsed is registered.
func (es *eventSources) waitParsed() {
	es.mu.Lock()
	last := es.last
	es.mu.Unlock()
	if last != nil {
		<-last
	}
}

// declaresOnly reports whether every GUID the manifest parser could read
// from xml is g: then the manifest's schemas are all g's, and only
// decoding g's events needs to wait for them. The parser reads GUIDs from
// attributes (a provider's guid, a task's eventGUID, any namespace
// prefix) and from <Guid> elements (Windows Events Providers Explorer's
// format). So every "guid", in any case and wherever it is (text and
// values included), followed by "=" must be an attribute whose value is
// g, and none may name an element (after "<", "</" or "<prefix:");
// "win:GUID" types and names like ActivityGuid in values are neither.
// UTF-16 text is not looked into: false.
func declaresOnly(xml []byte, g uuid.UUID) bool {
	if bytes.IndexByte(xml, 0) >= 0 || bytes.HasPrefix(xml, []byte{0xFF, 0xFE}) || bytes.HasPrefix(xml, []byte{0xFE, 0xFF}) {
		return false // UTF-16, which the parser transcodes first
	}
	for i := 0; ; {
		k := indexGUIDFold(xml[i:])
		if k < 0 {
			return true
		}
		start := i + k
		i = start + len("guid")
		if j := skipSpace(xml, i); j >= len(xml) || xml[j] != '=' {
			if elementName(xml, start) {
				return false
			}
			continue // not a name
		}
		v, n, ok := attrValue(xml[i:])
		if !ok {
			return false
		}
		id, err := uuid.ParseBytes(v)
		if err != nil || id != g {
			return false
		}
		i += n
	}
}

// elementName reports whether the name at xml[start:] may be an
// element's: after "<", "</", or a prefix and ":" after one of those.
func elementName(xml []byte, start int) bool {
	j := start - 1
	if j >= 0 && xml[j] == ':' {
		for j--; j >= 0 && nameByte(xml[j]); j-- {
		}
	}
	return j >= 0 && (xml[j] == '<' || xml[j] == '/')
}

// nameByte reports whether c may be in an XML name's prefix (any byte of
// a multi-byte character too).
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c >= 0x80
}

// indexGUIDFold returns the index of the first "guid" in b, in any case,
// or -1 (~1.2 GB/s: BenchmarkDeclaresOnly).
func indexGUIDFold(b []byte) int {
	for i := 0; i+4 <= len(b); i++ {
		if b[i]|0x20 == 'g' && b[i+1]|0x20 == 'u' && b[i+2]|0x20 == 'i' && b[i+3]|0x20 == 'd' {
			return i
		}
	}
	return -1
}

// attrValue reads `= "VALUE"` (or single quotes, spaces around =) at the
// start of b: the value's raw bytes and the length read.
func attrValue(b []byte) (v []byte, n int, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '=' {
		return nil, 0, false
	}
	i = skipSpace(b, i+1)
	if i >= len(b) || b[i] != '"' && b[i] != '\'' {
		return nil, 0, false
	}
	q := b[i]
	end := bytes.IndexByte(b[i+1:], q)
	if end < 0 {
		return nil, 0, false
	}
	return b[i+1 : i+1+end], i + 2 + end, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
