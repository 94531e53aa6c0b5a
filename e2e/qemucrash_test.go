package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/refbt"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// qemuCrash copies a built program into a fresh directory (qemu names its
// cores by program, so parallel crashes must not share one) and crashes it
// under arch's qemu-user.
func qemuCrash(t *testing.T, arch testenv.CrossArch, prog string, args ...string) crash {
	t.Helper()
	return qemuCrashEnv(t, arch, nil, prog, args...)
}

// qemuCrashEnv is qemuCrash with env added to the guest's environment.
func qemuCrashEnv(t *testing.T, arch testenv.CrossArch, env []string, prog string, args ...string) crash {
	t.Helper()
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	local := filepath.Join(dir, filepath.Base(exe))
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, b, 0o755); err != nil {
		t.Fatal(err)
	}
	core, out := testenv.CrashUnderQemuEnv(t, arch, env, local, args...)
	return crash{Dir: dir, Exe: local, Core: core, Output: string(out)}
}

// qemuLiveStops runs exe under arch's qemu-user gdbstub and gdb-multiarch,
// continues stops times and returns the current thread's backtrace at
// each stop (a signal arriving). One gdb connects once: qemu's stub
// serves a single connection.
func qemuLiveStops(t *testing.T, arch testenv.CrossArch, exe string, args []string, stops int) [][]refbt.Frame {
	t.Helper()
	qemu := testenv.NeedTool(t, arch.Qemu)
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	q := exec.Command(qemu, append([]string{"-g", strconv.Itoa(port), exe}, args...)...)
	q.Dir = filepath.Dir(exe)
	q.Env = append(os.Environ(), "QEMU_LD_PREFIX="+arch.Sysroot())
	if err := q.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		q.Process.Kill()
		q.Wait()
	}()
	// gdb retries the connection for tcp connect-timeout seconds while
	// qemu starts listening. Each stop's backtrace is printed under a
	// "Thread N (LWP N):" header so that parseGDB reads it as thread N.
	gargs := []string{"-batch", "-nx", "-iex", "set print frame-arguments none",
		"-ex", "set tcp connect-timeout 30", "-ex", fmt.Sprintf("target remote 127.0.0.1:%d", port)}
	for i := 1; i <= stops; i++ {
		gargs = append(gargs, "-ex", "continue", "-ex", fmt.Sprintf(`echo Thread %d (LWP %d):\n`, i, i),
			"-ex", "bt -frame-info location-and-address")
	}
	gargs = append(gargs, exe)
	start := time.Now()
	out := runTool(t, gdb, gargs...)
	threads := refbt.ParseGDB(out)
	var res [][]refbt.Frame
	for i := 1; i <= stops; i++ {
		th := threads[i]
		if th == nil || len(th.Frames) == 0 {
			t.Fatalf("live gdb printed no backtrace at stop %d (after %v):\n%s", i, time.Since(start), out)
		}
		res = append(res, th.Frames)
	}
	return res
}

// expectSignalHandlerFrames checks th, the crashed thread of c, a core
// whose SIGUSR1 handler crashed, against a live gdb stopped twice in the
// same run (qemuLiveStops; qemu-user has no address randomization): when
// SIGSEGV arrived in the handler (inHandler) and when SIGUSR1 arrived
// (interrupted: the thread's frames then, as far as the caller trusts
// gdb's). Frames 0 and 1 must be gdb's in the handler; frame 2 the
// trampoline, whose first two instruction words gdb reads from the core
// as trampoline ("0xd2801168\t0xd4000001"); then exactly the interrupted
// frames, the first with its registers from the signal context.
func expectSignalHandlerFrames(t *testing.T, c crash, th *reportThread, inHandler, interrupted []refbt.Frame, trampoline string) {
	t.Helper()
	if th == nil || len(inHandler) < 2 || len(interrupted) < 4 {
		t.Fatalf("crashed thread %v; live gdb in the handler %v, at the signal %v", th, inHandler, interrupted)
	}
	want := append(append(pcList(inHandler[:2]), 0), pcList(interrupted)...)
	if len(th.Frames) != len(want) {
		t.Fatalf("crashed thread has %d frames, want %d (2 in the handler, the trampoline, %d interrupted):\n%s",
			len(th.Frames), len(want), len(interrupted), formatFrames(th, 20))
	}
	for i, f := range th.Frames {
		pc, _ := f.pc()
		if i != 2 && pc != want[i] {
			t.Errorf("frame %d: pc %#x, live gdb %#x\n%s", i, pc, want[i], formatFrames(th, 20))
		}
	}
	// Without frame arguments: printing frame 0's as it loads an aarch64
	// core makes gdb spin on qemu's signal frame.
	tramp, _ := th.Frames[2].pc()
	mem := runTool(t, testenv.NeedTool(t, "gdb-multiarch"), "-batch", "-nx", "-iex", "set print frame-arguments none",
		"-ex", fmt.Sprintf("x/2wx %#x", tramp), c.Exe, c.Core)
	if !strings.Contains(mem, trampoline) {
		t.Errorf("frame 2 (pc %#x) is not the trampoline (%s); gdb reads:\n%s", tramp, trampoline, mem)
	}
	if f := th.Frames[3]; f.Trust != "context" {
		t.Errorf("the interrupted frame's trust = %q, want context (registers from the signal context)", f.Trust)
	}
}
