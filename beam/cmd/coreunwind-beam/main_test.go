package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"

	"github.com/coreunwind/coreunwind/beam/triagebeam"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/internal/triagetest"
	"github.com/coreunwind/coreunwind/triage"
)

// poolEnv makes the test binary a worker pool on the port it names (the
// worker-kill test runs its workers in a process of their own).
const poolEnv = "COREUNWIND_BEAM_TEST_POOL"

func TestMain(m *testing.M) {
	if port := os.Getenv(poolEnv); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		beam.Init()
		os.Exit(servePool(n, os.Stderr))
	}
	if path := os.Getenv(interruptedEnv); path != "" {
		os.Exit(run([]string{"--format", "json", "-o", os.DevNull, path}, io.Discard, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestPipeline triages one archive of real kernel cores (plain,
// compressed, systemd-named, in tars; with a core cut in its headers, one
// cut in its notes and a garbage member in the middle of a tar) with
// `coreunwind triage` (the built command) and with the pipeline:
// embedded, submitted to prism running as a job service of its own on
// 127.0.0.1, and with its workers in a process that dies mid-run. The
// outputs must be the same bytes (JSON, text; jsonl lines as sets, as
// triage writes them in completion order).
func TestPipeline(t *testing.T) {
	a := triagetest.BuildArchive(t)
	dir := t.TempDir()
	coreunwind := buildCoreunwind(t, dir)
	args := []string{"--binaries", a.Binaries, a.Root}

	local := map[string][]byte{}
	for _, format := range []string{"json", "text", "jsonl"} {
		out := filepath.Join(dir, "local."+format)
		cmd := exec.Command(coreunwind, append([]string{"triage", "--format", format, "-o", out}, args...)...)
		b, err := cmd.CombinedOutput()
		if code := exitCode(err); code != exitcode.Partial {
			t.Fatalf("coreunwind triage --format %s: exit %d (%v), want %d (some cores failed)\n%s", format, code, err, exitcode.Partial, b)
		}
		local[format] = readOutput(t, out, format)
	}
	checkSummary(t, a, local["json"])

	// pipeline runs coreunwind-beam in this process with args and more
	// flags; it returns the exit status and stderr.
	pipeline := func(t *testing.T, format string, more ...string) (int, []byte, string) {
		out := filepath.Join(t.TempDir(), "beam."+format)
		var stderr bytes.Buffer
		code := run(append(append([]string{"--format", format, "-o", out}, args...), more...), io.Discard, &stderr)
		b, err := os.ReadFile(out)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err == nil {
			b = readOutput(t, out, format)
		}
		return code, b, stderr.String()
	}
	same := func(t *testing.T, more ...string) {
		for _, format := range []string{"json", "text", "jsonl"} {
			code, got, stderr := pipeline(t, format, more...)
			if code != exitcode.Partial {
				t.Fatalf("--format %s %v: exit %d, want %d\n%s", format, more, code, exitcode.Partial, stderr)
			}
			if !bytes.Equal(got, local[format]) {
				t.Errorf("--format %s %v: output differs from coreunwind triage's\n%s\nwant:\n%s", format, more, got, local[format])
			}
		}
	}

	// Beam's loopback runners (the embedded prism, and a job service's
	// LOOPBACK environment) leave an empty beamloopbackworker-* file in
	// TMPDIR on every run; the command must leave nothing there.
	noneLeft := func(t *testing.T) {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		t.Cleanup(func() {
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				var names []string
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Errorf("the run left %s in TMPDIR", strings.Join(names, " "))
			}
		})
	}
	t.Run("embedded", func(t *testing.T) {
		noneLeft(t)
		same(t)
	})

	// An archive with no core: the summary is still written (the Go
	// SDK's global combine emits nothing for no input), exit 2.
	t.Run("empty", func(t *testing.T) {
		empty := t.TempDir()
		want, err := exec.Command(coreunwind, "triage", "--format", "json", empty).Output()
		if code := exitCode(err); code != exitcode.NoCore {
			t.Fatalf("coreunwind triage of an empty directory: exit %d, want %d", code, exitcode.NoCore)
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{"--format", "json", empty}, &stdout, &stderr); code != exitcode.NoCore {
			t.Fatalf("exit %d, want %d\n%s", code, exitcode.NoCore, stderr.String())
		}
		out := filepath.Join(t.TempDir(), "out.json")
		run([]string{"--format", "json", "-o", out, empty}, io.Discard, io.Discard)
		got, _ := os.ReadFile(out)
		if !bytes.Equal(got, want) {
			t.Errorf("summary of an empty directory:\n%s\nwant:\n%s", got, want)
		}
	})

	// The archive in an object store (Beam's memfs: the worker is in this
	// process): listed by globs, each object downloaded to a file. The
	// summary is triage's with the names of the store, but for first
	// and last seen (an object's time is its upload's).
	t.Run("objectstore", func(t *testing.T) {
		err := filepath.WalkDir(a.Root, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			memfs.Write("memfs://crashes"+strings.TrimPrefix(p, a.Root), b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out.json")
		var stderr bytes.Buffer
		code := run([]string{"--format", "json", "-o", out, "--binaries", a.Binaries, "memfs://crashes/*", "memfs://crashes/*/*"}, io.Discard, &stderr)
		if code != exitcode.Partial {
			t.Fatalf("exit %d, want %d\n%s", code, exitcode.Partial, stderr.String())
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(string(withoutTimes(t, local["json"])), a.Root, "memfs://crashes")
		if g := string(withoutTimes(t, got)); g != want {
			t.Errorf("summary from the object store:\n%s\nwant:\n%s", g, want)
		}
	})

	prism := startPrism(t)
	t.Run("jobservice", func(t *testing.T) {
		noneLeft(t)
		same(t, "--runner", "universal", "--endpoint", prism)
	})

	// The worker pool's process kills itself (SIGKILL) on the first core
	// of the tar's second half. prism does not retry a bundle whose
	// worker is lost: the job must fail loudly and write nothing; a
	// re-run on a healthy pool gives the whole result.
	t.Run("workerkilled", func(t *testing.T) {
		victim := filepath.Join(a.Root, "batch.tar") + ":cores/core.garbage"
		external := func(pool string) []string {
			return []string{"--runner", "universal", "--endpoint", prism, "--environment_type", "EXTERNAL", "--environment_config", pool}
		}
		pool, dead := startPool(t, triagebeam.DieOnEnv+"="+strings.TrimPrefix(victim, a.Root))
		code, got, stderr := pipeline(t, "json", external(pool)...)
		if code != exitcode.Pipeline || got != nil || !strings.Contains(stderr, "worker disconnected") {
			t.Fatalf("worker killed: exit %d, output %q; want %d, no output, the lost worker named\n%s", code, got, exitcode.Pipeline, stderr)
		}
		select {
		case <-dead:
		case <-time.After(10 * time.Second):
			t.Fatalf("the worker pool was not killed: the fault was not reached\n%s", stderr)
		}
		pool, _ = startPool(t)
		code, got, stderr = pipeline(t, "json", external(pool)...)
		if code != exitcode.Partial || !bytes.Equal(got, local["json"]) {
			t.Errorf("re-run on a new pool: exit %d, output differs from coreunwind triage's: %v\n%s\n%s", code, !bytes.Equal(got, local["json"]), got, stderr)
		}
	})
}

// withoutTimes is a JSON summary without its buckets' first and last
// seen times.
func withoutTimes(t *testing.T, js []byte) []byte {
	t.Helper()
	var s triage.Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatal(err)
	}
	for _, b := range s.Buckets {
		b.FirstSeen, b.LastSeen = nil, nil
	}
	var out bytes.Buffer
	if err := triage.WriteJSON(&out, &s); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// checkSummary checks the local summary the pipeline is compared with:
// every good core in a bucket, exactly the bad ones failed.
func checkSummary(t *testing.T, a *triagetest.Archive, js []byte) {
	t.Helper()
	var s triage.Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range s.Failures {
		failed = append(failed, f.Core)
	}
	slices.Sort(failed)
	bad := slices.Sorted(slices.Values(a.Bad))
	n := 0
	for _, b := range s.Buckets {
		n += b.Count
	}
	if !slices.Equal(failed, bad) || s.CoresAnalyzed != len(a.BugOf) || n != len(a.BugOf) {
		t.Fatalf("coreunwind triage: failed %v (want %v), %d analyzed and %d in buckets (want %d)", failed, bad, s.CoresAnalyzed, n, len(a.BugOf))
	}
}

// readOutput reads an output; jsonl lines are sorted (both write them in
// completion order).
func readOutput(t *testing.T, path, format string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if format != "jsonl" {
		return b
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	slices.Sort(lines)
	return []byte(strings.Join(lines, "\n"))
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// buildCoreunwind builds the main module's coreunwind command.
func buildCoreunwind(t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "coreunwind")
	cmd := exec.Command("go", "build", "-o", exe, "./cmd/coreunwind")
	cmd.Dir = "../../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build coreunwind: %v\n%s", err, b)
	}
	return exe
}

// freePort is a port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startPrism starts prism as a job service of its own (the module's
// pinned tool: go tool prism), stopped when the test ends; it returns
// its endpoint.
func startPrism(t *testing.T) string {
	t.Helper()
	testenv.NeedTool(t, "go")
	b, err := exec.Command("go", "tool", "-n", "prism").Output()
	if err != nil {
		testenv.Unavailable(t, fmt.Sprintf("go tool -n prism: %v", err))
	}
	port := freePort(t)
	cmd := exec.Command(strings.TrimSpace(string(b)), "--job_port", strconv.Itoa(port), "--serve_http=false", "--log_level", "warn")
	return startServer(t, cmd, port)
}

// startPool starts the test binary as a worker pool with more
// environment; dead is closed when its process ends.
func startPool(t *testing.T, env ...string) (endpoint string, dead chan struct{}) {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), poolEnv+"="+strconv.Itoa(port)), env...)
	ep := startServer(t, cmd, port)
	dead = make(chan struct{})
	go func() { cmd.Wait(); close(dead) }()
	return ep, dead
}

// startServer starts cmd, which will listen on port, kills it at the end
// of the test, and waits until it accepts connections.
func startServer(t *testing.T, cmd *exec.Cmd, port int) string {
	t.Helper()
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not listening on %s after 60s\n%s", cmd.Path, addr, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Crash reports (minidumps, systemd journal entries, apport .crash
// files, ABRT problem directories) go through the pipeline as through
// `coreunwind triage`: the same summary, one bucket per bug (four) with
// what the reports record.
func TestPipelineCrashReports(t *testing.T) {
	cr := triagetest.BuildCrashReports(t)
	dir := t.TempDir()
	coreunwind := buildCoreunwind(t, dir)
	args := []string{"--format", "json", "--binaries", cr.Binaries, cr.Root}
	localOut := filepath.Join(dir, "local.json")
	b, err := exec.Command(coreunwind, append([]string{"triage", "-o", localOut}, args...)...).CombinedOutput()
	if code := exitCode(err); code != exitcode.OK {
		t.Fatalf("coreunwind triage: exit %d (%v)\n%s", code, err, b)
	}
	local := readOutput(t, localOut, "json")
	beamOut := filepath.Join(dir, "beam.json")
	var stderr bytes.Buffer
	if code := run(append([]string{"-o", beamOut}, args...), io.Discard, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	got := readOutput(t, beamOut, "json")
	if !bytes.Equal(got, local) {
		t.Errorf("output differs from coreunwind triage's\n%s\nwant:\n%s", got, local)
	}
	var s triage.Summary
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if s.CoresAnalyzed != cr.Inputs || len(s.Buckets) != len(cr.Fns) {
		t.Fatalf("%d analyzed, %d buckets; want %d, %d", s.CoresAnalyzed, len(s.Buckets), cr.Inputs, len(cr.Fns))
	}
	for _, bk := range s.Buckets {
		if !slices.Equal(bk.Sources, []string{"abrt", "apport", "core", "journal", "minidump"}) || len(bk.Units) != 1 || len(bk.Hostnames) != 2 {
			t.Errorf("bucket %s: sources %q units %q hosts %q", bk.ID, bk.Sources, bk.Units, bk.Hostnames)
		}
	}
}
