package debuginfod

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// endlessBody answers every request with a body that does not end (1 MiB
// chunks, no Content-Length) until the client hangs up, every interval;
// it gives up after stopAfter bytes so a client without a limit fails
// the test instead of filling the disk. It records what it sent and the
// size limit the client announced.
type endlessBody struct {
	interval  time.Duration
	chunk     int
	stopAfter int64
	sent      atomic.Int64
	maxsize   atomic.Value // string
}

func (e *endlessBody) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.maxsize.Store(r.Header.Get("X-Debuginfod-Maxsize"))
	buf := make([]byte, e.chunk)
	copy(buf, "\x7fELF")
	for e.sent.Load() < e.stopAfter {
		n, err := w.Write(buf)
		e.sent.Add(int64(n))
		if err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(e.interval):
		}
	}
	panic(http.ErrAbortHandler) // cut short: a client still reading fails
}

// names lists a directory's entries.
func names(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestEndlessBodyDefaultLimit: without DEBUGINFOD_MAXSIZE a server sending
// an endless body is cut off at the default limit for the kind asked
// (announced to the server), not after gigabytes, and nothing of it
// stays in the cache.
func TestEndlessBodyDefaultLimit(t *testing.T) {
	limit := DefaultMaxSize(KindSection)
	srv := &endlessBody{chunk: 1 << 20, stopAfter: 2 * limit}
	cfg := testConfig(t, serve(t, srv))
	id := strings.Repeat("ab", 20)
	start := time.Now()
	_, err := New(cfg).Section(id, ".debug_frame")
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless body: %v, want %v", err, ErrTooLarge)
	}
	if got := srv.maxsize.Load(); got != strconv.FormatInt(limit, 10) {
		t.Errorf("X-Debuginfod-Maxsize %q, want the default for a section, %d", got, limit)
	}
	// What is in flight when the client hangs up (socket buffers) may
	// still be sent.
	if n := srv.sent.Load(); n > limit+64<<20 {
		t.Errorf("the server sent %d bytes before the client gave up (limit %d)", n, limit)
	}
	if n := names(filepath.Join(cfg.CachePath, id)); len(n) != 0 {
		t.Errorf("the refused body left %v in the cache", n)
	}
	t.Logf("refused after %v", time.Since(start))
}

// TestSlowTrickleMaxTime: a server sending an endless body fast enough
// for DEBUGINFOD_TIMEOUT's low-speed limit but slowly enough never to
// reach the size limit is given up after the lookup's maximum time, which
// has a default when DEBUGINFOD_MAXTIME is not set; the partial file goes.
func TestSlowTrickleMaxTime(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	get := func(k string) string { return env[k] }
	if cfg := configFrom(get); cfg.maxTime() != DefaultMaxTime || DefaultMaxTime <= 0 || DefaultMaxTime > 5*time.Minute {
		t.Errorf("no DEBUGINFOD_MAXTIME: a lookup may take %v, want the default %v", cfg.maxTime(), DefaultMaxTime)
	}
	env[EnvMaxTime] = "0" // libdebuginfod's "no limit"
	if d := configFrom(get).maxTime(); d != 0 {
		t.Errorf("DEBUGINFOD_MAXTIME=0: %v, want no limit", d)
	}
	env[EnvMaxSize] = "0"
	if n := configFrom(get).maxSize(KindDebuginfo); n != HardMaxSize {
		t.Errorf("DEBUGINFOD_MAXSIZE=0: %d, want the hard limit", n)
	}

	// 64 KiB every 100 ms: above 100 KiB/s, so DEBUGINFOD_TIMEOUT never
	// fires; 640 KiB/s takes hours to reach the size limit.
	srv := &endlessBody{interval: 100 * time.Millisecond, chunk: 64 << 10, stopAfter: 1 << 30}
	const maxTime = 2 * time.Second
	cfg := Config{URLs: []string{serve(t, srv)}, Timeout: time.Second, MaxTime: maxTime, CachePath: t.TempDir()}
	id := strings.Repeat("cd", 20)
	start := time.Now()
	_, err := New(cfg).Debuginfo(id)
	d := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "DEBUGINFOD_MAXTIME") {
		t.Errorf("trickling server: %v, want the maximum time reached", err)
	}
	if d < maxTime || d > maxTime+3*time.Second {
		t.Errorf("gave up after %v, want about %v", d, maxTime)
	}
	if n := names(filepath.Join(cfg.CachePath, id)); len(n) != 0 {
		t.Errorf("the abandoned download left %v in the cache", n)
	}
}

// envChildFetch makes the test binary a client that fetches the build ID
// ID from URL into the cache CACHE ("URL ID CACHE"), for
// TestKilledDownloadLeftover to kill midway.
const envChildFetch = "COREUNWIND_TEST_DEBUGINFOD_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(envChildFetch); v != "" {
		f := strings.Fields(v)
		_, err := New(Config{URLs: f[:1], MaxTime: -1, CachePath: f[2]}).Executable(f[1])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// TestKilledDownloadLeftover: a run killed by SIGTERM in the middle of a
// download leaves its partial file. It is never taken for the entry, the
// next run removes it when it opens the cache, and leaves alone the
// partial file of a download still under way.
func TestKilledDownloadLeftover(t *testing.T) {
	lib, _ := realFiles(t)
	dir := t.TempDir()
	trickle := &endlessBody{interval: 50 * time.Millisecond, chunk: 64 << 10, stopAfter: 1 << 30}
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), envChildFetch+"="+serve(t, trickle)+" "+lib.id+" "+dir)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// The child's partial file, once something arrived: anywhere in the
	// cache but the settings files.
	var leftover string
	for deadline := time.Now().Add(20 * time.Second); leftover == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && filepath.Dir(p) != dir {
				if st, err := os.Stat(p); err == nil && st.Size() > 0 {
					leftover = p
				}
			}
			return nil
		})
	}
	child.Process.Signal(syscall.SIGTERM)
	child.Wait()
	if leftover == "" {
		t.Fatal("the child's download never started")
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Fatalf("the killed run left no partial file: %v", err)
	}
	idDir := filepath.Join(dir, lib.id)
	if n := names(idDir); len(n) != 0 {
		t.Errorf("the killed run left %v where entries are looked up", n)
	}

	// A download under way, by a live writer.
	store := &cache{dir: dir, shared: true}
	live, err := store.createPartial(filepath.Join(dir, strings.Repeat("12", 20), string(KindDebuginfo)))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	// The next run.
	good := &fileServer{files: map[string]string{"/buildid/" + lib.id + "/executable": lib.path}}
	p, err := New(Config{URLs: []string{serve(t, good)}, Timeout: 2 * time.Second, CachePath: dir}).Executable(lib.id)
	if err != nil {
		t.Fatal(err)
	}
	sameContents(t, p, lib.path)
	if _, err := os.Stat(leftover); err == nil {
		t.Errorf("the next run left the dead run's partial file %s", leftover)
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("the next run removed a download under way: %v", err)
	}
	if n := names(idDir); len(n) != 1 || n[0] != string(KindExecutable) {
		t.Errorf("the build ID's directory holds %v, want only the entry", n)
	}
}

// TestRefusedAnswerMessage: an answer that is not the file asked for is
// refused with a message saying why, naming the server, not the partial
// file it was written to (removed by then).
func TestRefusedAnswerMessage(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/buildid/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>maintenance</html>")) // 200, but not ELF
	})
	url := serve(t, mux)
	cfg := testConfig(t, url)
	id := strings.Repeat("ab", 20)
	_, err := New(cfg).Executable(id)
	if err == nil {
		t.Fatal("a page of HTML accepted as an executable")
	}
	msg := err.Error()
	if strings.Contains(msg, cfg.CachePath) || !strings.Contains(msg, url) || !strings.Contains(msg, "not an ELF file") {
		t.Errorf("refused answer: %q, want the server named, \"not an ELF file\" and no cache path", msg)
	}
}
