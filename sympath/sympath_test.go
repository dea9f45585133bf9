package sympath_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etwkit/etw/internal/symtest"
	"github.com/etwkit/etw/pdb"
	"github.com/etwkit/etw/sympath"
)

func TestParse(t *testing.T) {
	def := sympath.DefaultCache()
	cases := []struct {
		in   string
		want sympath.Path
		err  string
	}{
		{in: "", want: nil},
		{in: `c:\syms`, want: sympath.Path{{Kind: sympath.Folder, Dir: `c:\syms`}}},
		{in: "/a; ;/b;", want: sympath.Path{{Kind: sympath.Folder, Dir: "/a"}, {Kind: sympath.Folder, Dir: "/b"}}},
		{in: "srv*https://msdl.microsoft.com/download/symbols", want: sympath.Path{{Kind: sympath.Server, URL: "https://msdl.microsoft.com/download/symbols"}}},
		{in: `SRV*c:\cache*https://x/s`, want: sympath.Path{{Kind: sympath.Server, Caches: []string{`c:\cache`}, URL: "https://x/s"}}},
		{in: `srv*c1*c2*\\share\store`, want: sympath.Path{{Kind: sympath.Server, Caches: []string{"c1", "c2"}, URL: `\\share\store`}}},
		{in: "srv**http://x", want: sympath.Path{{Kind: sympath.Server, Caches: []string{def}, URL: "http://x"}}},
		{in: "symsrv*symsrv.dll*/c*http://x", want: sympath.Path{{Kind: sympath.Server, Caches: []string{"/c"}, URL: "http://x"}}},
		{in: "cache*/c;srv*http://x", want: sympath.Path{{Kind: sympath.Cache, Dir: "/c"}, {Kind: sympath.Server, URL: "http://x"}}},
		{in: "cache*", want: sympath.Path{{Kind: sympath.Cache, Dir: def}}},
		{in: "srv*", err: "no server"},
		{in: "cache*a*b", err: "one folder"},
		{in: "symsrv*x", err: "needs a store"},
		{in: "foo*bar", err: "unknown element"},
	}
	for _, c := range cases {
		got, err := sympath.Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) error %v; want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got.String() != c.want.String() || len(got) != len(c.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i].Kind != c.want[i].Kind || got[i].Dir != c.want[i].Dir || got[i].URL != c.want[i].URL ||
				strings.Join(got[i].Caches, "|") != strings.Join(c.want[i].Caches, "|") {
				t.Errorf("Parse(%q)[%d] = %+v; want %+v", c.in, i, got[i], c.want[i])
			}
		}
	}
}

func TestParseID(t *testing.T) {
	g, age, err := sympath.ParseID("12DC0A4FBD7D4F2AA9BE263BACAEB4675")
	if err != nil || g.String() != "{12DC0A4F-BD7D-4F2A-A9BE-263BACAEB467}" || age != 5 {
		t.Errorf("ParseID = %s %d %v", g, age, err)
	}
	id := sympath.Identity{Name: `C:\build\x64\app.pdb`, GUID: g, Age: 0x1A}
	if id.ID() != "12DC0A4FBD7D4F2AA9BE263BACAEB4671A" || id.String() != "app.pdb (12DC0A4FBD7D4F2AA9BE263BACAEB4671A)" {
		t.Errorf("ID = %s", id.ID())
	}
	for _, bad := range []string{"", "12DC0A4FBD7D4F2AA9BE263BACAEB467", "12DC0A4FBD7D4F2AA9BE263BACAEB46Z5", "12DC0A4FBD7D4F2AA9BE263BACAEB467G"} {
		if _, _, err := sympath.ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}

var (
	goodID = sympath.Identity{Name: "app.pdb", GUID: pdb.GUID(symtest.SynthGUID), Age: 3}
)

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFolders(t *testing.T) {
	flat, store := t.TempDir(), t.TempDir()
	// A flat app.pdb of another age, and the right one in the store.
	writeFile(t, filepath.Join(flat, "app.pdb"), symtest.SynthPDB(symtest.SynthGUID, 2))
	want := filepath.Join(store, "app.pdb", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "app.pdb")
	writeFile(t, want, symtest.SynthPDB(symtest.SynthGUID, 3))
	p, err := sympath.Parse(flat + ";" + store)
	if err != nil {
		t.Fatal(err)
	}
	l := &sympath.Locator{Path: p}
	got, err := l.Find(context.Background(), sympath.Identity{Name: `D:\src\app.pdb`, GUID: goodID.GUID, Age: 3})
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
	ms := l.Mismatches()
	if len(ms) != 1 || ms[0].Path != filepath.Join(flat, "app.pdb") || ms[0].Got != "12DC0A4FBD7D4F2AA9BE263BACAEB4672" ||
		!strings.Contains(ms[0].String(), "not 12DC0A4FBD7D4F2AA9BE263BACAEB4673") {
		t.Errorf("mismatches %v", ms)
	}
	// A flat file of the right identity is found too.
	writeFile(t, filepath.Join(flat, "app.pdb"), symtest.SynthPDB(symtest.SynthGUID, 3))
	l = &sympath.Locator{Path: p}
	if got, err := l.Find(context.Background(), goodID); err != nil || got != filepath.Join(flat, "app.pdb") {
		t.Errorf("Find flat = %q, %v", got, err)
	}
	// Only a wrong GUID anywhere: not found, the mismatch named.
	other := goodID
	other.GUID[0] ^= 1
	l = &sympath.Locator{Path: p}
	_, err = l.Find(context.Background(), other)
	if !errors.Is(err, sympath.ErrNotFound) || !strings.Contains(err.Error(), "1 PDBs of another identity") || len(l.Mismatches()) != 1 {
		t.Errorf("wrong GUID: %v, mismatches %v", err, l.Mismatches())
	}
}

// symServer serves a SymSrv store from files (URL path → bytes), counting
// requests and the most in flight at once.
type symServer struct {
	*httptest.Server
	files    map[string][]byte
	delay    time.Duration
	block    bool
	requests atomic.Int32
	inFlight atomic.Int32
	maxSeen  atomic.Int32
}

func newSymServer(t *testing.T, files map[string][]byte) *symServer {
	s := &symServer{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxSeen.Load()
			if n <= m || s.maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		if s.block {
			<-r.Context().Done()
			return
		}
		time.Sleep(s.delay)
		b, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestServer(t *testing.T) {
	good := symtest.SynthPDB(symtest.SynthGUID, 3)
	srv := newSymServer(t, map[string][]byte{
		"/sym/app.pdb/12DC0A4FBD7D4F2AA9BE263BACAEB4673/app.pdb": good,
		// The server answers for age 4 with the age-3 file: refused.
		"/sym/app.pdb/12DC0A4FBD7D4F2AA9BE263BACAEB4674/app.pdb": good,
	})
	cache := t.TempDir()
	p, err := sympath.Parse("srv*" + cache + "*" + srv.URL + "/sym")
	if err != nil {
		t.Fatal(err)
	}
	var progress atomic.Int64
	l := &sympath.Locator{Path: p, Progress: func(url string, done, total int64) { progress.Store(done) }}
	got, err := l.Find(context.Background(), goodID)
	want := filepath.Join(cache, "app.pdb", "12DC0A4FBD7D4F2AA9BE263BACAEB4673", "app.pdb")
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v", got, err)
	}
	if b, _ := os.ReadFile(got); !bytes.Equal(b, good) || l.Downloads() != 1 || progress.Load() != int64(len(good)) {
		t.Errorf("cached file of %d bytes, %d downloads, progress %d", len(b), l.Downloads(), progress.Load())
	}
	// Asked again: the kept answer, no request.
	n := srv.requests.Load()
	if got2, err := l.Find(context.Background(), goodID); err != nil || got2 != got || srv.requests.Load() != n {
		t.Errorf("second Find = %q, %v, %d requests", got2, err, srv.requests.Load()-n)
	}

	// Wrong age from the server: refused, named, not kept in the cache.
	age4 := goodID
	age4.Age = 4
	_, err = l.Find(context.Background(), age4)
	if !errors.Is(err, sympath.ErrNotFound) || len(l.Mismatches()) != 1 || !strings.Contains(l.Mismatches()[0].Path, "12DC0A4FBD7D4F2AA9BE263BACAEB4674") {
		t.Errorf("wrong age: %v, mismatches %v", err, l.Mismatches())
	}
	if _, err := os.Stat(filepath.Join(cache, "app.pdb", "12DC0A4FBD7D4F2AA9BE263BACAEB4674", "app.pdb")); err == nil {
		t.Errorf("mismatched download kept in the cache")
	}

	// Missing on the server: the error names the URL and the status.
	missing := goodID
	missing.Name = "other.pdb"
	_, err = l.Find(context.Background(), missing)
	var de *sympath.DownloadError
	if !errors.As(err, &de) || de.Status != 404 || !strings.Contains(err.Error(), srv.URL+"/sym/other.pdb/12DC0A4FBD7D4F2AA9BE263BACAEB4673/other.pdb: HTTP 404") {
		t.Errorf("missing: %v", err)
	}

	// The server gone: a new run finds the same file in the cache.
	srv.Close()
	l2 := &sympath.Locator{Path: p}
	if got2, err := l2.Find(context.Background(), goodID); err != nil || got2 != got || l2.Downloads() != 0 {
		t.Errorf("after the server: %q, %v", got2, err)
	}
	// And a download from the gone server fails with its URL.
	_, err = l2.Find(context.Background(), age4)
	if !errors.As(err, &de) || de.Status != 0 || !strings.Contains(err.Error(), "/sym/app.pdb/") {
		t.Errorf("gone server: %v", err)
	}
}

func TestOffline(t *testing.T) {
	srv := newSymServer(t, map[string][]byte{"/app.pdb/12DC0A4FBD7D4F2AA9BE263BACAEB4673/app.pdb": symtest.SynthPDB(symtest.SynthGUID, 3)})
	cache := t.TempDir()
	p, _ := sympath.Parse("cache*" + cache + ";srv*" + srv.URL)
	l := &sympath.Locator{Path: p, Offline: true}
	if _, err := l.Find(context.Background(), goodID); !errors.Is(err, sympath.ErrNotFound) || srv.requests.Load() != 0 {
		t.Errorf("offline: %v, %d requests", err, srv.requests.Load())
	}
	// Online, the cache* folder receives the download.
	l = &sympath.Locator{Path: p}
	got, err := l.Find(context.Background(), goodID)
	if err != nil || !strings.HasPrefix(got, cache) {
		t.Errorf("online: %q %v", got, err)
	}
}

func TestCancel(t *testing.T) {
	srv := newSymServer(t, nil)
	srv.block = true
	p, _ := sympath.Parse("srv*" + t.TempDir() + "*" + srv.URL)
	l := &sympath.Locator{Path: p}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := l.Find(ctx, goodID)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled: %v after %v", err, time.Since(start))
	}
	// A per-download timeout does the same without a deadline.
	l = &sympath.Locator{Path: p, Timeout: 100 * time.Millisecond}
	if _, err := l.Find(context.Background(), goodID); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v", err)
	}
}

func TestConcurrentDownloads(t *testing.T) {
	files := map[string][]byte{}
	var ids []sympath.Identity
	for i := 0; i < 8; i++ {
		g := symtest.SynthGUID
		g[15] = byte(i)
		id := sympath.Identity{Name: "app.pdb", GUID: pdb.GUID(g), Age: 3}
		files["/app.pdb/"+id.ID()+"/app.pdb"] = symtest.SynthPDB(g, 3)
		ids = append(ids, id)
	}
	srv := newSymServer(t, files)
	srv.delay = 30 * time.Millisecond
	p, _ := sympath.Parse("srv*" + t.TempDir() + "*" + srv.URL)
	l := &sympath.Locator{Path: p, MaxDownloads: 2}
	var wg sync.WaitGroup
	for _, id := range ids {
		for k := 0; k < 3; k++ { // each asked three times at once
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := l.Find(context.Background(), id); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if srv.requests.Load() != 8 || srv.maxSeen.Load() > 2 || l.Downloads() != 8 {
		t.Errorf("%d requests, %d at once, %d downloads; want 8, ≤ 2, 8", srv.requests.Load(), srv.maxSeen.Load(), l.Downloads())
	}
}

// TestRealPDB finds CppCon.pdb in a store made of the real file.
func TestRealPDB(t *testing.T) {
	src := symtest.File(t, "perfview/CppCon.pdb")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	writeFile(t, filepath.Join(store, "CppCon.pdb", "12DC0A4FBD7D4F2AA9BE263BACAEB4675", "CppCon.pdb"), b)
	g, age, _ := sympath.ParseID("12DC0A4FBD7D4F2AA9BE263BACAEB4675")
	p, _ := sympath.Parse(store)
	l := &sympath.Locator{Path: p}
	got, err := l.Find(context.Background(), sympath.Identity{Name: `C:\PerfViewTestData\CppCon\Release\CppCon.pdb`, GUID: g, Age: age})
	if err != nil || !strings.HasSuffix(got, filepath.Join("12DC0A4FBD7D4F2AA9BE263BACAEB4675", "CppCon.pdb")) {
		t.Errorf("Find = %q, %v", got, err)
	}
}

// TestHostileNames: a trace names the PDB; a name that is not one plain
// file name is refused before any path or URL is made of it, and an odd
// but plain one is escaped in the URL.
func TestHostileNames(t *testing.T) {
	// The handler runs on the server's goroutines: the paths it records
	// are read under the same lock.
	var mu sync.Mutex
	var paths []string
	requested := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(paths)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.EscapedPath())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cache := t.TempDir()
	p, _ := sympath.Parse("srv*" + cache + "*" + srv.URL)
	l := &sympath.Locator{Path: p}
	for _, name := range []string{"", ".", "..", `C:\x\..`, "a\x00b.pdb", "c:evil.pdb", "x/"} {
		id := goodID
		id.Name = name
		if _, err := l.Find(context.Background(), id); err == nil || !strings.Contains(err.Error(), "not a PDB file name") {
			t.Errorf("Find(%q): %v", name, err)
		}
	}
	if paths := requested(); len(paths) != 0 {
		t.Errorf("requests for refused names: %q", paths)
	}
	id := goodID
	id.Name = "my app#1?.pdb"
	if _, err := l.Find(context.Background(), id); !errors.Is(err, sympath.ErrNotFound) {
		t.Errorf("Find: %v", err)
	}
	if paths := requested(); len(paths) != 1 || paths[0] != "/my%20app%231%3F.pdb/12DC0A4FBD7D4F2AA9BE263BACAEB4673/my%20app%231%3F.pdb" {
		t.Errorf("request paths %q", paths)
	}
}

// TestServerNotPDB: a server answering with something else than a PDB
// (a proxy's HTML page) costs that PDB, with an error, and nothing stays
// in the cache.
func TestServerNotPDB(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>sign in first</html>"))
	}))
	defer srv.Close()
	cache := t.TempDir()
	p, _ := sympath.Parse("srv*" + cache + "*" + srv.URL)
	l := &sympath.Locator{Path: p}
	_, err := l.Find(context.Background(), goodID)
	if !errors.Is(err, sympath.ErrNotFound) || !strings.Contains(err.Error(), "not a PDB 7.0") {
		t.Errorf("Find: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "app.pdb", goodID.ID(), "app.pdb")); err == nil {
		t.Errorf("the HTML answer stayed in the cache")
	}
}
