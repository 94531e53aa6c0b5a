package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestDebuginfod: a core from "another machine". The program and its
// plugin are stripped as a distribution ships them; their debug files,
// and the system's libraries with libc6-dbg's debug files, sit behind
// elfutils' own debuginfod server (-F: a directory of ELF and debug
// files) on loopback; the local files are gone, --sysroot and --debug-dir
// point at empty directories (and --no-default-debug-dirs leaves
// /usr/lib/debug out). With DEBUGINFOD_URLS naming the server the
// report must be the one made with every file local. A second run with
// the server stopped gets the same report from the cache alone, and a
// triage batch of two cores asks for each file once.
func TestDebuginfod(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "debuginfod")
	testenv.NeedTool(t, "objcopy")
	testenv.NeedTool(t, "strip")
	testenv.NeedTool(t, "ldd")
	exe := privateCopy(t, buildProgram(t, "dlopen"), "libplugin.so")
	plugin := filepath.Join(filepath.Dir(exe), "libplugin.so")
	c := crashProgram(t, exe, nil, plugin)
	want := runCoreunwind(t, c.Core, exe)
	if want.Code != exitOK || !strings.Contains(want.Stdout, "plugin_deep") {
		t.Fatalf("with local files: exit %d\n%s\n%s", want.Code, want.Stdout, want.Stderr)
	}

	// The server's directory: stripped binaries and their debug files,
	// the libraries as installed and their installed debug files.
	srv := filepath.Join(t.TempDir(), "srv")
	var ids, served []string // build IDs; what the server must have scanned
	for _, f := range []string{exe, plugin} {
		base := filepath.Join(srv, filepath.Base(f))
		os.MkdirAll(srv, 0o755)
		for _, step := range [][]string{
			{"objcopy", "--only-keep-debug", f, base + ".debug"},
			{"strip", "--strip-all", "-o", base, f},
		} {
			if out, err := exec.Command(step[0], step[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", step, err, out)
			}
		}
		ids = append(ids, buildID(t, f))
		served = append(served, ids[len(ids)-1]+"/executable", ids[len(ids)-1]+"/debuginfo")
	}
	seen := map[string]bool{}
	for _, lib := range sharedLibraries(t, exe) {
		real, err := filepath.EvalSymlinks(lib)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		copyFile(t, real, filepath.Join(srv, filepath.Base(real)))
		id := buildID(t, real)
		served = append(served, id+"/executable")
		if dbg := filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug"); fileExists(dbg) {
			copyFile(t, dbg, filepath.Join(srv, filepath.Base(real)+".debug"))
			served = append(served, id+"/debuginfo")
		}
		ids = append(ids, id)
	}
	// The core's recorded paths no longer hold the program or plugin.
	os.Remove(exe)
	os.Remove(plugin)

	server := startDebuginfod(t, srv, served)
	counts := &requestCounter{n: map[string]int{}}
	proxy := httptest.NewServer(counts.wrap(httputil.NewSingleHostReverseProxy(server.url)))
	defer proxy.Close()

	empty := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	env := []string{"DEBUGINFOD_URLS=" + proxy.URL, "DEBUGINFOD_CACHE_PATH=" + cache, "DEBUGINFOD_TIMEOUT=20"}
	flags := []string{"--sysroot", empty, "--debug-dir", empty, "--no-default-debug-dirs"}
	got := runCoreunwindEnv(t, env, append(flags, c.Core)...)
	if got.Code != exitOK || got.Stdout != want.Stdout {
		t.Fatalf("through debuginfod: exit %d, report differs from the local one\n--- local\n%s\n--- debuginfod\n%s\n--- stderr\n%s",
			got.Code, want.Stdout, got.Stdout, got.Stderr)
	}
	if got.Stderr != "" {
		t.Errorf("warnings through debuginfod:\n%s", got.Stderr)
	}
	t.Logf("through debuginfod, %d requests:\n%s", counts.total(), got.Stdout)
	for _, id := range ids {
		if !fileExists(filepath.Join(cache, id, "executable")) {
			t.Errorf("build ID %s: no executable in the cache", id)
		}
	}

	// --no-debuginfod: nothing is asked; the modules are missing.
	before := counts.total()
	off := runCoreunwindEnv(t, env, append(flags, "--no-debuginfod", c.Core)...)
	// (A text report on stdout carries its warnings itself.)
	if counts.total() != before || !strings.Contains(off.Stdout, "not found") {
		t.Errorf("--no-debuginfod: %d requests; report:\n%s", counts.total()-before, off.Stdout)
	}

	// The server gone, the cache alone answers.
	server.stop()
	again := runCoreunwindEnv(t, env, append(flags, c.Core)...)
	if again.Stdout != want.Stdout {
		t.Errorf("from the cache: report differs\n%s\n%s", again.Stdout, again.Stderr)
	}

	// A batch: two cores, a fresh cache, one request per file.
	server = startDebuginfod(t, srv, served)
	counts.reset()
	proxy2 := httptest.NewServer(counts.wrap(httputil.NewSingleHostReverseProxy(server.url)))
	defer proxy2.Close()
	batch := t.TempDir()
	copyFile(t, c.Core, filepath.Join(batch, "core.1"))
	copyFile(t, c.Core, filepath.Join(batch, "core.2"))
	env = []string{"DEBUGINFOD_URLS=" + proxy2.URL, "DEBUGINFOD_CACHE_PATH=" + filepath.Join(t.TempDir(), "cache"), "DEBUGINFOD_TIMEOUT=20"}
	tr := runCoreunwindEnv(t, env, append([]string{"triage", "-j", "2"}, append(flags, batch)...)...)
	if tr.Code != exitOK || !strings.Contains(tr.Stdout, "plugin_deep") {
		t.Errorf("triage: exit %d\n%s\n%s", tr.Code, tr.Stdout, tr.Stderr)
	}
	for path, n := range counts.snapshot() {
		if n != 1 {
			t.Errorf("triage asked for %s %d times", path, n)
		}
	}
	if counts.total() == 0 {
		t.Error("triage asked the server nothing")
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// requestCounter counts the requests a handler serves, by path.
type requestCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (rc *requestCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.n[r.URL.Path]++
		rc.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (rc *requestCounter) snapshot() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string]int{}
	for k, v := range rc.n {
		out[k] = v
	}
	return out
}

func (rc *requestCounter) total() int {
	n := 0
	for _, v := range rc.snapshot() {
		n += v
	}
	return n
}

func (rc *requestCounter) reset() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.n = map[string]int{}
}

// debuginfodServer is a running elfutils debuginfod.
type debuginfodServer struct {
	url  *url.URL
	cmd  *exec.Cmd
	once sync.Once
}

func (s *debuginfodServer) stop() {
	s.once.Do(func() {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
}

// startDebuginfod serves dir (-F) on a free loopback port and waits,
// within a bound, until the server has scanned the files it must serve
// (each of served, "ID/executable" or "ID/debuginfo", answers
// /buildid/...). It is killed when the test ends.
func startDebuginfod(t *testing.T, dir string, served []string) *debuginfodServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logPath := filepath.Join(t.TempDir(), "debuginfod.log")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("debuginfod", "-F", "-p", fmt.Sprint(port), "-d", filepath.Join(t.TempDir(), "db.sqlite"), "-g", "0", "-c", "2", dir)
	// No upstream servers: the server must answer from dir alone.
	cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS=")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &debuginfodServer{url: &url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}, cmd: cmd}
	t.Cleanup(s.stop)
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: 5 * time.Second}
	for _, p := range served {
		for {
			resp, err := client.Get(s.url.String() + "/buildid/" + p)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				s.stop()
				b, _ := os.ReadFile(logPath)
				t.Fatalf("debuginfod did not serve %s within 60s (last: %v)\n%s", p, err, b)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return s
}
