package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	core, out := testenv.CrashUnderQemu(t, arch, local, args...)
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
