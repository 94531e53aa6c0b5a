package debuginfod

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// realFile is a real ELF file of this machine with its build ID: the C
// library, and its separate debug file from libc6-dbg.
type realFile struct {
	path, id string
}

var (
	libcOnce        sync.Once
	libc, libcDebug realFile
)

func realFiles(t *testing.T) (realFile, realFile) {
	t.Helper()
	libcOnce.Do(func() {
		for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6"} {
			if o, err := elfx.Open(p); err == nil {
				libc = realFile{p, o.BuildID()}
				o.Close()
				break
			}
		}
		if len(libc.id) > 2 {
			p := filepath.Join("/usr/lib/debug/.build-id", libc.id[:2], libc.id[2:]+".debug")
			if _, err := os.Stat(p); err == nil {
				libcDebug = realFile{p, libc.id}
			}
		}
	})
	if libc.id == "" || libcDebug.path == "" {
		testenv.Unavailable(t, "the C library with a build ID and its libc6-dbg debug file")
	}
	return libc, libcDebug
}

// fileServer is a debuginfod server's URL space over real files, counting
// requests. Paths not in files answer 404.
type fileServer struct {
	files    map[string]string // URL path -> file
	requests atomic.Int64
}

func (s *fileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	p, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	http.ServeFile(w, r, p)
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func testConfig(t *testing.T, urls ...string) Config {
	return Config{URLs: urls, Timeout: 2 * time.Second, CachePath: t.TempDir()}
}

func sameContents(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Fatalf("%s (%d bytes) differs from %s (%d bytes)", a, len(x), b, len(y))
	}
}

// TestFetchIntoSharedCache: a file fetched lands where libdebuginfod keeps
// it (DIR/BUILDID/executable, read-only), and a second client (a later
// run) takes it from there without asking the server.
func TestFetchIntoSharedCache(t *testing.T) {
	lib, dbg := realFiles(t)
	fs := &fileServer{files: map[string]string{
		"/buildid/" + lib.id + "/executable": lib.path,
		"/buildid/" + dbg.id + "/debuginfo":  dbg.path,
	}}
	cfg := testConfig(t, serve(t, fs)+"/") // a trailing slash is allowed
	c := New(cfg)
	exe, err := c.Executable(lib.id)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cfg.CachePath, lib.id, "executable"); exe != want {
		t.Errorf("path %s, want %s", exe, want)
	}
	sameContents(t, exe, lib.path)
	if st, _ := os.Stat(exe); st.Mode().Perm() != 0o400 {
		t.Errorf("mode %v, want 0400", st.Mode())
	}
	dpath, err := c.Debuginfo(dbg.id)
	if err != nil {
		t.Fatal(err)
	}
	sameContents(t, dpath, dbg.path)
	if n := fs.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	// Asked again in the same run, and by a new client on the same cache.
	for _, c := range []*Client{c, New(cfg)} {
		if p, err := c.Executable(lib.id); err != nil || p != exe {
			t.Errorf("again: %q, %v", p, err)
		}
	}
	if n := fs.requests.Load(); n != 2 {
		t.Errorf("%d requests after cache hits, want 2", n)
	}
	// The settings files libdebuginfod creates are there with its defaults.
	if b, _ := os.ReadFile(filepath.Join(cfg.CachePath, cleanIntervalFile)); string(b) != "86400" {
		t.Errorf("%s holds %q", cleanIntervalFile, b)
	}
}

// TestCacheSharedWithElfutils: elfutils' own client (debuginfod-find,
// libdebuginfod 0.188) finds what this client cached, and this client
// finds what debuginfod-find downloaded, without asking a server, and
// both honour each other's negative entries.
func TestCacheSharedWithElfutils(t *testing.T) {
	find := testenv.NeedTool(t, "debuginfod-find")
	lib, dbg := realFiles(t)
	fs := &fileServer{files: map[string]string{
		"/buildid/" + lib.id + "/executable": lib.path,
		"/buildid/" + dbg.id + "/debuginfo":  dbg.path,
	}}
	url := serve(t, fs)
	cache := t.TempDir()
	missing := strings.Repeat("ab", 20)
	// A server that has nothing: a cache hit is the only way to succeed.
	empty := &fileServer{}
	emptyURL := serve(t, empty)
	runFind := func(serverURL string, args ...string) (string, error) {
		cmd := exec.Command(find, args...)
		cmd.Env = append(os.Environ(), EnvURLs+"="+serverURL, EnvCachePath+"="+cache)
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}

	c := New(Config{URLs: []string{url}, Timeout: 2 * time.Second, CachePath: cache})
	ours, err := c.Executable(lib.id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := runFind(emptyURL, "executable", lib.id)
	if err != nil || got != ours {
		t.Errorf("debuginfod-find executable: %q, %v; want our %s", got, err, ours)
	}
	if _, err := c.Executable(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing build ID: %v", err)
	}
	if _, err := runFind(url, "executable", missing); err == nil {
		t.Error("debuginfod-find found a file recorded as missing")
	}

	theirs, err := runFind(url, "debuginfo", dbg.id)
	if err != nil {
		t.Fatalf("debuginfod-find debuginfo: %v", err)
	}
	runFind(url, "debuginfo", missing) // leaves its negative entry
	before := fs.requests.Load()
	c2 := New(Config{URLs: []string{url}, Timeout: 2 * time.Second, CachePath: cache})
	if p, err := c2.Debuginfo(dbg.id); err != nil || p != theirs {
		t.Errorf("our client: %q, %v; want debuginfod-find's %s", p, err, theirs)
	}
	if _, err := c2.Debuginfo(missing); !errors.Is(err, ErrNotFound) {
		t.Errorf("debuginfod-find's negative entry: %v", err)
	}
	if n := fs.requests.Load() - before; n != 0 {
		t.Errorf("%d requests for files already in the cache", n)
	}
}

// TestRefused: a 404 is remembered (an empty file, as libdebuginfod
// does); a file with another build ID, a body cut short or one larger
// than DEBUGINFOD_MAXSIZE is refused and leaves nothing in the cache.
func TestRefused(t *testing.T) {
	lib, dbg := realFiles(t)
	data, err := os.ReadFile(dbg.path)
	if err != nil {
		t.Fatal(err)
	}
	const wrong = "0123456789abcdef0123456789abcdef01234567"
	mux := http.NewServeMux()
	var requests atomic.Int64
	mux.HandleFunc("/buildid/", func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch {
		case strings.HasPrefix(r.URL.Path, "/buildid/"+wrong+"/"):
			// Another build's file under this build ID.
			http.ServeFile(w, r, lib.path)
		case strings.HasSuffix(r.URL.Path, "/debuginfo"):
			// Cut short: Content-Length promises the whole file.
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.Write(data[:len(data)/2])
			panic(http.ErrAbortHandler)
		case strings.HasSuffix(r.URL.Path, "/executable") && r.Header.Get("X-Debuginfod-Maxsize") == fmt.Sprint(len(data)/4):
			// No Content-Length: the size is only known by counting.
			w.Header().Set("Transfer-Encoding", "chunked")
			w.Write(data)
		default:
			http.NotFound(w, r)
		}
	})
	url := serve(t, mux)
	cfg := testConfig(t, url)
	c := New(cfg)
	entries := func(id string) []string {
		ents, _ := os.ReadDir(filepath.Join(cfg.CachePath, id))
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}

	if _, err := c.Executable(wrong); !errors.Is(err, ErrWrongBuildID) {
		t.Errorf("wrong build ID: %v", err)
	}
	if n := entries(wrong); len(n) != 0 {
		t.Errorf("wrong build ID left %v in the cache", n)
	}
	if _, err := c.Debuginfo(dbg.id); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("truncated body: %v", err)
	}
	if n := entries(dbg.id); len(n) != 0 {
		t.Errorf("truncated body left %v in the cache", n)
	}
	// Not found: remembered across runs, not asked again.
	missing := strings.Repeat("cd", 20)
	if _, err := c.Executable(missing); !errors.Is(err, ErrNotFound) {
		t.Errorf("404: %v", err)
	}
	if st, err := os.Stat(filepath.Join(cfg.CachePath, missing, "executable")); err != nil || st.Size() != 0 {
		t.Errorf("no negative entry: %v", err)
	}
	before := requests.Load()
	if _, err := New(cfg).Executable(missing); !errors.Is(err, ErrNotFound) {
		t.Errorf("negative entry: %v", err)
	}
	if requests.Load() != before {
		t.Error("a build ID recorded as missing was asked again")
	}

	small := cfg
	small.MaxSize = int64(len(data) / 4)
	small.CachePath = t.TempDir()
	if _, err := New(small).Executable(dbg.id); !errors.Is(err, ErrTooLarge) {
		t.Errorf("chunked body over DEBUGINFOD_MAXSIZE: %v", err)
	}
	if n := entries(dbg.id); len(n) != 0 {
		t.Errorf("oversized body left %v in the cache", n)
	}
}

// TestTimeBounds: a server that never answers costs DEBUGINFOD_TIMEOUT
// once per run, not once per file, and does not delay a good server
// asked at the same time.
func TestTimeBounds(t *testing.T) {
	lib, _ := realFiles(t)
	// stallingServer answers nothing until the request is given up, and
	// counts the requests it was sent.
	stallingServer := func() (url string, asked *atomic.Int64) {
		asked = new(atomic.Int64)
		return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			<-r.Context().Done()
		})), asked
	}
	stallURL, _ := stallingServer()
	const timeout = time.Second

	// A good server and a stalled one: the good answer wins at once.
	good := &fileServer{files: map[string]string{"/buildid/" + lib.id + "/executable": lib.path}}
	c := New(Config{URLs: []string{stallURL, serve(t, good)}, Timeout: timeout, CachePath: t.TempDir()})
	start := time.Now()
	if _, err := c.Executable(lib.id); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= timeout {
		t.Errorf("a good server's answer took %v behind a stalled one", d)
	}

	// Only a stalled server: twelve modules at once, then twelve more.
	// A server of its own, which the request left behind by the good
	// answer above cannot reach late and be counted.
	stallURL, stalled := stallingServer()
	c = New(Config{URLs: []string{stallURL}, Timeout: timeout, CachePath: t.TempDir()})
	start = time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 24)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Debuginfo(fmt.Sprintf("%040x", i+1))
		}()
	}
	wg.Wait()
	for i := 12; i < 24; i++ {
		_, errs[i] = c.Debuginfo(fmt.Sprintf("%040x", i+1))
	}
	d := time.Since(start)
	for i, err := range errs {
		want := errTimeout
		if i >= 12 {
			want = ErrUnreachable
		}
		if !errors.Is(err, want) {
			t.Errorf("fetch %d: %v, want %v", i, err, want)
		}
	}
	if d < timeout || d > 3*timeout {
		t.Errorf("24 fetches from a stalled server took %v, want about one timeout (%v)", d, timeout)
	}
	if n := stalled.Load(); n > 12 {
		t.Errorf("the stalled server was asked %d times", n)
	}

	// DEBUGINFOD_MAXTIME bounds a lookup even without a timeout.
	c = New(Config{URLs: []string{stallURL}, MaxTime: timeout, CachePath: t.TempDir()})
	start = time.Now()
	if _, err := c.Executable(lib.id); err == nil || time.Since(start) > 3*timeout {
		t.Errorf("max time: %v after %v", err, time.Since(start))
	}
}

// TestOneFetchPerBuildID: concurrent askers for one file share one
// request.
func TestOneFetchPerBuildID(t *testing.T) {
	lib, _ := realFiles(t)
	fs := &fileServer{files: map[string]string{"/buildid/" + lib.id + "/executable": lib.path}}
	c := New(testConfig(t, serve(t, fs)))
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Executable(lib.id); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := fs.requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// TestSections: /section/NAME is asked first; a server that cannot serve
// sections (503) gives the section through the whole debug file. Either
// way the bytes are the section's in the file (debug/elf's reading).
func TestSections(t *testing.T) {
	lib, dbg := realFiles(t)
	want := func(path, name string) []byte {
		ef, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ef.Close()
		b, err := io.ReadAll(io.NewSectionReader(ef.Section(name), 0, int64(ef.Section(name).FileSize)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ehFrame := want(lib.path, ".eh_frame")
	mux := http.NewServeMux()
	mux.HandleFunc("/new/buildid/"+lib.id+"/section/.eh_frame", func(w http.ResponseWriter, r *http.Request) {
		w.Write(ehFrame)
	})
	mux.HandleFunc("/old/buildid/"+dbg.id+"/section/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no sections here", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/old/buildid/"+dbg.id+"/debuginfo", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, dbg.path)
	})
	mux.HandleFunc("/old/buildid/"+lib.id+"/executable", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, lib.path)
	})
	url := serve(t, mux)
	cfg := testConfig(t, url+"/new")
	p, err := New(cfg).Section(lib.id, ".eh_frame")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cfg.CachePath, lib.id, "section-.eh_frame"); p != want {
		t.Errorf("path %s, want %s", p, want)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, ehFrame) {
		t.Error(".eh_frame from the server differs from the file's")
	}
	// The debug file has .symtab; its .eh_frame is NOBITS, so that one
	// comes from the executable.
	c := New(testConfig(t, url+"/old"))
	for _, tc := range []struct{ name, from string }{{".symtab", dbg.path}, {".eh_frame", lib.path}} {
		p, err = c.Section(dbg.id, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, want(tc.from, tc.name)) {
			t.Errorf("%s taken from %s differs", tc.name, tc.from)
		}
	}
}

// TestCacheNotWritable: a cache path that cannot be written is a warning;
// files go to a temporary directory that Close removes.
func TestCacheNotWritable(t *testing.T) {
	lib, _ := realFiles(t)
	fs := &fileServer{files: map[string]string{"/buildid/" + lib.id + "/executable": lib.path}}
	c := New(Config{URLs: []string{serve(t, fs)}, Timeout: 2 * time.Second, CachePath: "/dev/null/cache"})
	p, err := c.Executable(lib.id)
	if err != nil {
		t.Fatal(err)
	}
	sameContents(t, p, lib.path)
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], "not writable") {
		t.Errorf("warnings %q", w)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("%s still there after Close: %v", p, err)
	}
}

// TestCleaning: once cache_clean_interval_s has passed, files not read
// for max_unused_age_s go, with their emptied directories; recent files
// and files outside the layout stay.
func TestCleaning(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	write := func(rel string, when time.Time) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, when, when)
		return p
	}
	write(cleanIntervalFile, old)
	os.WriteFile(filepath.Join(dir, cleanIntervalFile), []byte("3600\n"), 0o600)
	os.Chtimes(filepath.Join(dir, cleanIntervalFile), old, old)
	os.WriteFile(filepath.Join(dir, maxUnusedAgeFile), []byte("60"), 0o600)
	gone := []string{write("aa01/debuginfo", old), write("aa01/executable", old), write("aa02/section-.eh_frame", old)}
	kept := []string{write("aa03/debuginfo", time.Now()), write("notes/debuginfo", old), write("aa04/unrelated", old)}
	os.Chtimes(filepath.Join(dir, "aa01"), old, old)
	os.Chtimes(filepath.Join(dir, "aa02"), old, old)

	(&cache{dir: dir, shared: true}).clean(time.Now())
	for _, p := range gone {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not cleaned", p)
		}
	}
	for _, p := range append(kept, filepath.Join(dir, "aa03")) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s cleaned: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "aa01")); err == nil {
		t.Error("emptied directory aa01 kept")
	}
	// The interval restarts: a second cleaning right away does nothing.
	p := write("aa05/debuginfo", old)
	(&cache{dir: dir, shared: true}).clean(time.Now())
	if _, err := os.Stat(p); err != nil {
		t.Error("cleaned again before the interval passed")
	}
}

// TestConfigFromEnv: libdebuginfod's variables, defaults and cache path
// order.
func TestConfigFromEnv(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	get := func(k string) string { return env[k] }
	cfg := configFrom(get)
	if len(cfg.URLs) != 0 || cfg.Timeout != DefaultTimeout || cfg.CachePath != filepath.Join(home, ".cache/debuginfod_client") {
		t.Errorf("defaults: %+v", cfg)
	}
	env["XDG_CACHE_HOME"] = "/xdg"
	if p := configFrom(get).CachePath; p != "/xdg/debuginfod_client" {
		t.Errorf("XDG: %s", p)
	}
	os.Mkdir(filepath.Join(home, ".debuginfod_client_cache"), 0o700)
	if p := configFrom(get).CachePath; p != filepath.Join(home, ".debuginfod_client_cache") {
		t.Errorf("legacy cache: %s", p)
	}
	env[EnvCachePath] = "/explicit"
	env[EnvURLs] = " http://a  https://b/ "
	env[EnvTimeout] = "5"
	env[EnvMaxSize] = "1000"
	env[EnvMaxTime] = "7s" // atol: 7
	cfg = configFrom(get)
	if cfg.CachePath != "/explicit" || len(cfg.URLs) != 2 || cfg.Timeout != 5*time.Second || cfg.MaxSize != 1000 || cfg.MaxTime != 7*time.Second {
		t.Errorf("from the environment: %+v", cfg)
	}
	if got := requestURL(New(cfg).servers[1].base, KindSection, "ab", ".debug_frame"); got != "https://b/buildid/ab/section/.debug_frame" {
		t.Errorf("URL %s", got)
	}
}

// TestFileURLAndProgress: a file:// URL is a directory laid out as a
// server's URL space (as libdebuginfod takes it); the progress line is
// drawn while a download runs and erased after.
func TestFileURLAndProgress(t *testing.T) {
	lib, _ := realFiles(t)
	root := t.TempDir()
	dst := filepath.Join(root, "buildid", lib.id, "executable")
	os.MkdirAll(filepath.Dir(dst), 0o755)
	data, err := os.ReadFile(lib.path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dst, data, 0o644)
	c := New(Config{URLs: []string{"file://" + root}, CachePath: t.TempDir()})
	var line bytes.Buffer
	c.SetProgress(&line)
	p, err := c.Executable(lib.id)
	if err != nil {
		t.Fatal(err)
	}
	sameContents(t, p, lib.path)
	if s := line.String(); !strings.HasPrefix(s, "\r\033[Kdebuginfod: downloading 1 file(s)") || !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("progress line %q", s)
	}
	if _, err := c.Debuginfo(lib.id); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing file under file://: %v", err)
	}
}
