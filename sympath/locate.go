package sympath

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/etwkit/etw/pdb"
)

// ErrNotFound is returned (wrapped) when no element of the path holds a
// PDB of the identity asked for.
var ErrNotFound = errors.New("PDB not found")

// Identity names a PDB: its file name (a path is reduced to its last
// element) and the GUID and age a trace or a PE's debug directory gives.
type Identity struct {
	Name string
	GUID pdb.GUID
	Age  uint32
}

// ID returns the store folder name: [pdb.GUID.Hex] then the age in hex.
func (id Identity) ID() string { return pdb.StoreID(id.GUID, id.Age) }

// String returns "name.pdb (id)".
func (id Identity) String() string { return id.file() + " (" + id.ID() + ")" }

// file is the PDB's base name (both / and \ separate).
func (id Identity) file() string {
	n := id.Name
	if i := strings.LastIndexAny(n, `/\`); i >= 0 {
		n = n[i+1:]
	}
	return n
}

// ParseID reads a store folder name: 32 hex digits of GUID, then the age
// in hex (1 to 8 digits).
func ParseID(s string) (pdb.GUID, uint32, error) {
	if len(s) < 33 || len(s) > 40 {
		return pdb.GUID{}, 0, fmt.Errorf("sympath: id %q: want 32 hex digits of GUID and 1 to 8 of age", s)
	}
	g, err := pdb.ParseGUID(s[:32])
	if err != nil {
		return pdb.GUID{}, 0, fmt.Errorf("sympath: id %q: %w", s, err)
	}
	age, err := strconv.ParseUint(s[32:], 16, 32)
	if err != nil {
		return pdb.GUID{}, 0, fmt.Errorf("sympath: id %q: age: %w", s, err)
	}
	return g, uint32(age), nil
}

// Mismatch is a PDB of the right name whose identity is not the one asked
// for: it was not used.
type Mismatch struct {
	Path string   // where it was found (a file, or the URL it came from)
	Want Identity // asked for
	Got  string   // its identity, as Identity.ID spells it
}

// String describes the mismatch for a person.
func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %s has id %s, not %s", m.Path, m.Want.file(), m.Got, m.Want.ID())
}

// DownloadError is a failed download from a symbol server.
type DownloadError struct {
	URL    string
	Status int // HTTP status; 0 when the request failed before one
	Err    error
}

// Error names the URL and the status or cause.
func (e *DownloadError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("sympath: %s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("sympath: %s: %v", e.URL, e.Err)
}

// Unwrap returns the cause.
func (e *DownloadError) Unwrap() error { return e.Err }

// Defaults of a [Locator].
const (
	DefaultTimeout      = 2 * time.Minute
	DefaultMaxDownloads = 4
	DefaultMaxBytes     = 4 << 30
)

// Locator finds PDBs through a symbol path. Its methods may be called
// from several goroutines; a PDB asked for twice is searched for once
// (the answer is kept), and downloads run at most MaxDownloads at a time.
type Locator struct {
	Path Path
	// Offline forbids the network: server elements search their caches
	// (and store folders) only.
	Offline bool
	// Client makes the requests (http.DefaultClient if nil).
	Client *http.Client
	// Timeout bounds each download (DefaultTimeout if 0).
	Timeout time.Duration
	// MaxDownloads bounds concurrent downloads (DefaultMaxDownloads if 0).
	MaxDownloads int
	// MaxBytes bounds one downloaded file (DefaultMaxBytes if 0).
	MaxBytes int64
	// Progress, if set, is called as a download proceeds (total -1 when
	// the server does not say).
	Progress func(url string, done, total int64)

	once       sync.Once
	sem        chan struct{}
	mu         sync.Mutex
	calls      map[string]*call
	mismatches []Mismatch
	downloads  int
}

type call struct {
	done chan struct{}
	path string
	err  error
}

func (l *Locator) init() {
	l.once.Do(func() {
		n := l.MaxDownloads
		if n <= 0 {
			n = DefaultMaxDownloads
		}
		l.sem = make(chan struct{}, n)
		l.calls = map[string]*call{}
	})
}

// Mismatches returns the PDBs found with the right name and another
// identity, in the order found.
func (l *Locator) Mismatches() []Mismatch {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Mismatch(nil), l.mismatches...)
}

// Downloads returns how many files were downloaded (with the right
// identity or not).
func (l *Locator) Downloads() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.downloads
}

// Find returns the path of the PDB of an identity: the first element of
// the path that has it, searching local folders and caches without the
// network and downloading from servers (unless Offline) into the cache.
// The error wraps [ErrNotFound] when nothing has it, and names the failed
// downloads ([*DownloadError]) and the mismatches met.
func (l *Locator) Find(ctx context.Context, id Identity) (string, error) {
	l.init()
	if err := checkName(id.file()); err != nil {
		return "", err
	}
	key := strings.ToLower(id.file()) + "/" + id.ID()
	l.mu.Lock()
	c, ok := l.calls[key]
	if !ok {
		c = &call{done: make(chan struct{})}
		l.calls[key] = c
	}
	l.mu.Unlock()
	if ok {
		select {
		case <-c.done:
			return c.path, c.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	c.path, c.err = l.find(ctx, id)
	if c.err != nil && ctx.Err() != nil {
		// A cancelled search is not an answer: forget it.
		l.mu.Lock()
		delete(l.calls, key)
		l.mu.Unlock()
	}
	close(c.done)
	return c.path, c.err
}

func (l *Locator) find(ctx context.Context, id Identity) (string, error) {
	var errs []error
	nMismatch := 0
	defaultCache := DefaultCache()
	check := func(p string) (bool, error) {
		ok, got, err := matches(p, id)
		if err != nil || ok {
			return ok, err
		}
		if got != "" {
			l.addMismatch(Mismatch{Path: p, Want: id, Got: got})
			nMismatch++
		}
		return false, nil
	}
	for _, e := range l.Path {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		switch e.Kind {
		case Folder, Cache:
			if e.Kind == Cache {
				defaultCache = e.Dir
			}
			for _, p := range []string{filepath.Join(e.Dir, id.file()), storePath(e.Dir, id)} {
				if ok, err := check(p); ok {
					return p, nil
				} else if err != nil {
					errs = append(errs, err)
				}
			}
		case Server:
			caches := e.Caches
			if len(caches) == 0 {
				caches = []string{defaultCache}
			}
			for _, dir := range caches {
				p := storePath(dir, id)
				if ok, err := check(p); ok {
					return p, nil
				} else if err != nil {
					errs = append(errs, err)
				}
			}
			if !e.IsHTTP() {
				p := storePath(e.URL, id)
				if ok, err := check(p); ok {
					return p, nil
				} else if err != nil {
					errs = append(errs, err)
				}
				continue
			}
			if l.Offline {
				continue
			}
			p, err := l.download(ctx, e.URL, caches[0], id)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if ok, err := check(p); ok {
				return p, nil
			} else if err != nil {
				errs = append(errs, err)
			}
			// The server's file is not the PDB asked for: not kept.
			os.Remove(p)
		}
	}
	msg := fmt.Sprintf("sympath: %s: %v", id, ErrNotFound)
	if nMismatch > 0 {
		msg += fmt.Sprintf(" (%d PDBs of another identity)", nMismatch)
	}
	return "", &notFound{msg: msg, errs: errs}
}

type notFound struct {
	msg  string
	errs []error
}

func (e *notFound) Error() string {
	s := e.msg
	for _, err := range e.errs {
		s += "; " + err.Error()
	}
	return s
}

func (e *notFound) Unwrap() []error { return append([]error{ErrNotFound}, e.errs...) }

func (l *Locator) addMismatch(m Mismatch) {
	l.mu.Lock()
	l.mismatches = append(l.mismatches, m)
	l.mu.Unlock()
}

// checkName refuses PDB names that are not one plain file name: a trace
// names the PDB, and the name becomes a path in the cache.
func checkName(n string) error {
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "\x00:") || len(n) > 255 {
		return fmt.Errorf("sympath: %q is not a PDB file name", n)
	}
	return nil
}

// storePath is DIR/name.pdb/<id>/name.pdb.
func storePath(dir string, id Identity) string {
	return filepath.Join(dir, id.file(), id.ID(), id.file())
}

// matches opens a candidate: ok when its identity is id's; got is its
// identity when it is another PDB; a missing file is neither.
func matches(path string, id Identity) (ok bool, got string, err error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false, "", nil
	}
	f, err := pdb.Open(path)
	if err != nil {
		return false, "", fmt.Errorf("sympath: %w", err)
	}
	defer f.Close()
	if f.GUID == id.GUID && f.Age == id.Age {
		return true, "", nil
	}
	return false, f.ID(), nil
}

// download fetches URL/name.pdb/<id>/name.pdb into the cache's store
// layout, through a temporary file renamed into place.
func (l *Locator) download(ctx context.Context, server, cache string, id Identity) (string, error) {
	name := neturl.PathEscape(id.file())
	url := strings.TrimRight(server, "/") + "/" + name + "/" + id.ID() + "/" + name
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return "", &DownloadError{URL: url, Err: ctx.Err()}
	}
	defer func() { <-l.sem }()
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", &DownloadError{URL: url, Err: err}
	}
	req.Header.Set("User-Agent", "Microsoft-Symbol-Server/10.0.0.0 (etwkit)")
	client := l.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", &DownloadError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", &DownloadError{URL: url, Status: resp.StatusCode}
	}
	limit := l.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if resp.ContentLength > limit {
		return "", &DownloadError{URL: url, Err: fmt.Errorf("%d bytes (at most %d)", resp.ContentLength, limit)}
	}
	dest := storePath(cache, id)
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", &DownloadError{URL: url, Err: err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), id.file()+".*.tmp")
	if err != nil {
		return "", &DownloadError{URL: url, Err: err}
	}
	var body io.Reader = io.LimitReader(resp.Body, limit+1)
	if l.Progress != nil {
		body = &progressReader{r: body, url: url, total: resp.ContentLength, fn: l.Progress}
	}
	n, err := io.Copy(tmp, body)
	if err == nil && n > limit {
		err = fmt.Errorf("more than %d bytes", limit)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", &DownloadError{URL: url, Err: err}
	}
	l.mu.Lock()
	l.downloads++
	l.mu.Unlock()
	return dest, nil
}

type progressReader struct {
	r     io.Reader
	url   string
	done  int64
	total int64
	fn    func(string, int64, int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	p.fn(p.url, p.done, p.total)
	return n, err
}
