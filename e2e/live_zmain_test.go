package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLiveMainThreadExited: a process whose main thread has exited
// (pthread_exit) runs on in its other threads; its main thread is a
// zombie, and /proc/PID/maps, auxv and exe went with it (gdb -p and
// eu-stack -p refuse it as terminated). coreunwind -p reads it through a
// live thread: the worker's frames, a warning that says the main thread
// exited, and a dump that unwinds the same. (startLive's wait for every
// thread to sleep counts the zombie as the one thread that does not.)
func TestLiveMainThreadExited(t *testing.T) {
	t.Parallel()
	lt := startLive(t, "livezmain", true)
	rep := lt.liveReport(t)
	lt.checkRunning(t, 2*time.Second)
	if len(rep.Threads) != 1 {
		t.Fatalf("%d threads, want the worker", len(rep.Threads))
	}
	expectFunctions(t, &rep.Threads[0], "worker")
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || strings.Contains(w, "main thread ("+strconv.Itoa(lt.pid)+") has exited")
	}
	if !warned {
		t.Errorf("no warning that the main thread exited: %q", rep.Warnings)
	}
	dump := filepath.Join(t.TempDir(), "zmain.core")
	if r := runCoreunwind(t, "gcore", "-o", dump, strconv.Itoa(lt.pid)); r.Code != exitOK {
		t.Fatalf("coreunwind gcore: exit %d, stderr %s", r.Code, r.Stderr)
	}
	lt.checkRunning(t, 2*time.Second)
	fromDump, _ := unwindJSON(t, nil, dump, lt.exe)
	if diff := sameFrames(rep, fromDump); diff != "" {
		t.Errorf("the dump's report differs from the live report: %s", diff)
	}
}
