package session

import (
	"io"
	"io/fs"
	"slices"
	"sync"
)

// MemFS keeps log files in memory, for tests and examples: pass its
// Create and Open methods in [SessionOptions]. The zero value is ready
// to use; it is safe for concurrent use.
type MemFS struct {
	mu    sync.Mutex
	files map[string]*MemFile
}

// Create creates or truncates the named file.
func (m *MemFS) Create(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string]*MemFile{}
	}
	f := &MemFile{}
	m.files[name] = f
	return f, nil
}

// Open opens the named file; the error matches fs.ErrNotExist if there
// is none.
func (m *MemFS) Open(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.files[name]
	if f == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f, nil
}

// File returns the named file, or nil.
func (m *MemFS) File(name string) *MemFile {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.files[name]
}

// Bytes returns a copy of the named file's contents (nil if there is no
// such file).
func (m *MemFS) Bytes(name string) []byte {
	if f := m.File(name); f != nil {
		return f.Bytes()
	}
	return nil
}

// Names returns the names of the files, sorted.
func (m *MemFS) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for n := range m.files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// MemFile is a file of a [MemFS]. It is an io.WriterAt, io.ReaderAt and
// io.Closer; closing it keeps its contents.
type MemFile struct {
	mu sync.Mutex
	b  []byte
}

// WriteAt writes p at off, growing the file as needed.
func (f *MemFile) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if end := int(off) + len(p); end > len(f.b) {
		f.b = slices.Grow(f.b, end-len(f.b))[:end]
	}
	return copy(f.b[off:], p), nil
}

// ReadAt reads len(p) bytes at off.
func (f *MemFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off >= int64(len(f.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Size returns the file size.
func (f *MemFile) Size() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.b))
}

// Bytes returns a copy of the contents.
func (f *MemFile) Bytes() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.b)
}

// Close does nothing: the contents stay.
func (f *MemFile) Close() error { return nil }
