package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// startParked starts cmd, which prints one line once every thread of
// it is parked where the test knows, and stops it when the test ends.
func startParked(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if !bufio.NewScanner(out).Scan() {
		t.Fatalf("%s printed nothing", cmd.Path)
	}
	return cmd.Process.Pid
}

// liveJSON is coreunwind --format json -p PID, decoded.
func liveJSON(t *testing.T, pid int) *report {
	t.Helper()
	r := runCoreunwind(t, "--format", "json", "-p", strconv.Itoa(pid))
	if r.Code != exitOK {
		t.Fatalf("coreunwind -p %d: exit %d\n%s", pid, r.Code, truncate(r.Stderr, 4000))
	}
	rep, err := decodeReport(r.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// pyParked is a Python program whose main thread and two workers sleep
// at known lines once it has printed "ready".
const pyParked = `import threading, time
def worker(n):
    def inner():
        time.sleep(600)
    inner()
for i in range(2):
    threading.Thread(target=worker, args=(i,), daemon=True).start()
def main_loop():
    print("ready", flush=True)
    time.sleep(600)
time.sleep(0.2)
main_loop()
`

// TestLivePython: coreunwind -p on Debian's python3.11 gives each
// thread's Python frames where they are known to be (the main thread in
// main_loop at line 10 called from line 12, each worker in inner at
// line 4 called from worker at line 5), spliced among the native frames,
// and the process runs on.
func TestLivePython(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, debianPython)
	script := filepath.Join(t.TempDir(), "parked.py")
	if err := os.WriteFile(script, []byte(pyParked), 0o644); err != nil {
		t.Fatal(err)
	}
	pid := startParked(t, exec.Command(debianPython, script))
	rep := liveJSON(t, pid)
	var workers int
	for _, th := range rep.Threads {
		var py []string
		for _, f := range th.Frames {
			if f.Language == "python" {
				py = append(py, f.Function+":"+strconv.Itoa(f.Line))
			}
		}
		got := strings.Join(py, " ")
		switch {
		case th.TID == pid:
			if got != "main_loop:10 <module>:12" {
				t.Errorf("main thread's Python frames %q, want main_loop:10 <module>:12", got)
			}
		case strings.HasPrefix(got, "worker.<locals>.inner:4 worker:5 "):
			workers++
		default:
			t.Errorf("thread %d: Python frames %q", th.TID, got)
		}
	}
	if workers != 2 {
		t.Errorf("%d workers in inner, want 2", workers)
	}
	if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err != nil {
		t.Errorf("the process did not run on: %v", err)
	}
}

// goParked is a Go program with three goroutines blocked receiving from
// a channel and main sleeping, once it has printed "ready".
const goParked = `package main

import (
	"fmt"
	"time"
)

func worker(c chan int) { <-c }

func main() {
	c := make(chan int)
	for i := 0; i < 3; i++ {
		go worker(c)
	}
	time.Sleep(100 * time.Millisecond)
	fmt.Println("ready")
	time.Sleep(time.Hour)
}
`

// TestLiveGo: coreunwind -p on a Go program lists its goroutines as the
// runtime keeps them: three in chan receive in main.worker, main asleep
// in main.main, each walked to runtime.goexit.
func TestLiveGo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goParked), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "parked")
	build := exec.Command(goTool(), "build", "-o", exe, "main.go")
	build.Dir = dir
	build.Env = append(os.Environ(), "GO111MODULE=off", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pid := startParked(t, exec.Command(exe))
	rep := liveJSON(t, pid)
	var receivers, sleeper int
	for _, g := range rep.Goroutines {
		fns := map[string]bool{}
		for _, f := range g.Frames {
			fns[f.Function] = true
		}
		if g.Error != nil {
			t.Errorf("goroutine %d: %s", g.ID, *g.Error)
		}
		if n := len(g.Frames); n == 0 || g.Frames[n-1].Function != "runtime.goexit" {
			t.Errorf("goroutine %d does not end at runtime.goexit: %+v", g.ID, g.Frames)
		}
		switch {
		case g.State == "chan receive" && fns["main.worker"]:
			receivers++
		case g.ID == 1 && g.State == "sleep" && fns["main.main"]:
			sleeper++
		}
	}
	if receivers != 3 || sleeper != 1 {
		t.Errorf("%d goroutines in chan receive in main.worker (want 3), %d main asleep (want 1); %d goroutines", receivers, sleeper, len(rep.Goroutines))
	}
}
