package e2e

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestGcore: a core that gdb's gcore wrote of a live, healthy process.
// gcore lays cores out differently from the kernel: notes at the end,
// section headers, and no program headers at all for file-backed text,
// which coreunwind must still find in the mapped files. The same for a
// 32-bit (i386) process.
func TestGcore(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gcore")
	for _, prog := range []string{"sleeper", "i386-sleeper"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			gcoreSleeper(t, prog)
		})
	}
}

func gcoreSleeper(t *testing.T, prog string) {
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	cmd := exec.Command(exe)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("sleeper did not get ready: %q %v", line, err)
	}
	prefix := filepath.Join(dir, "gcore")
	pid := strconv.Itoa(cmd.Process.Pid)
	if b, err := exec.Command("gcore", "-o", prefix, pid).CombinedOutput(); err != nil {
		t.Fatalf("gcore: %v\n%s", err, b)
	}
	cmd.Process.Kill()
	cmd.Wait()
	c := &crashCase{crash: crash{Dir: dir, Exe: exe, Core: prefix + "." + pid}}
	c.references(t)
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	if len(c.Report.Threads) != 3 {
		t.Fatalf("%d threads, want 3", len(c.Report.Threads))
	}
	for _, th := range c.Report.Threads {
		if th.Error != nil {
			t.Errorf("thread %d: %s", th.TID, *th.Error)
		}
		if th.Crashed {
			t.Errorf("thread %d is marked crashed in a snapshot of a healthy process (signal %+v)", th.TID, c.Report.Core.Signal)
		}
	}
	if c.Report.Core.CrashedTID != 0 {
		t.Errorf("crashed_tid %d in a snapshot of a healthy process", c.Report.Core.CrashedTID)
	}
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	main := c.Report.thread(cmd.Process.Pid)
	if main == nil {
		t.Fatalf("no thread %d", cmd.Process.Pid)
	}
	expectFunctions(t, main, "nap", "idle_loop", "main")
}
