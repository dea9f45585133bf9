package manifest

// provIndex holds the name and value lookups of one provider while its
// events are resolved, so that resolution stays linear in the input size.
// Every map keeps the first definition in document order.
type provIndex struct {
	levels   map[string]int
	tasks    map[string]int
	taskVals map[uint16]int
	localOps []map[string]int // per task, its task-local opcodes
	opcodes  map[string]int
	keywords map[string]int
	channels map[string]int // channel name or chid → first channel
}

func newProvIndex() *provIndex {
	return &provIndex{levels: map[string]int{}, tasks: map[string]int{}, taskVals: map[uint16]int{},
		opcodes: map[string]int{}, keywords: map[string]int{}, channels: map[string]int{}}
}

// addFirst records key → i unless key is already present; it reports
// whether key was new.
func addFirst[K comparable](m map[K]int, key K, i int) bool {
	if _, dup := m[key]; dup {
		return false
	}
	m[key] = i
	return true
}

// refScope is one level of a template (the top level or a struct) during
// reference resolution: the fields seen so far, by exact and normalized
// name, the latest one winning.
type refScope struct {
	exact  map[string]*Field
	norm   map[string]*Field
	parent *refScope
}

func (s *refScope) add(f *Field) {
	s.exact[f.Name] = f
	if n := normalizeName(f.Name); n != "" {
		s.norm[n] = f
	}
}

// normalizeName keeps only ASCII letters, digits and underscores.
func normalizeName(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isIdentByte(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
