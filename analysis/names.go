package analysis

import (
	"sync"

	"github.com/etwkit/etw/tdh"
)

// names interns the strings the model keeps (names of methods, types and
// files repeat across events and processes). The model pass's main
// goroutine and, with decode.Ahead, the reader's loaders intern into the
// same table, so a name is stored once whoever met it first.
type names struct {
	mu sync.Mutex
	m  map[string]string
}

// text returns the string property called name of d, interned; "" when d
// has no such string.
func (n *names) text(d *tdh.Decoded, name string) string {
	v, ok := d.Get(name)
	if !ok || v.Prop == nil || v.Kind != tdh.Scalar || !v.Prop.InType.IsString() {
		return ""
	}
	var tmp [128]byte
	buf := tdh.AppendString(tmp[:0], v.Data, v.Prop.InType.IsWide())
	n.mu.Lock()
	defer n.mu.Unlock()
	if s, ok := n.m[string(buf)]; ok {
		return s
	}
	if n.m == nil {
		n.m = map[string]string{}
	}
	s := string(buf)
	n.m[s] = s
	return s
}
