package hppa

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Sysroot is where Debian's cross packages put the hppa libraries.
const Sysroot = "/usr/hppa-linux-gnu"

// dumpScript is the gdb command that records a stopped process.
func dumpScript(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the gdb script")
	}
	return filepath.Join(filepath.Dir(file), "testdata", "dump_process.py")
}

// CrashUnderGDB runs prog under qemu-hppa with gdb-multiarch attached until
// it dies of a signal, records gdb's live backtrace of every thread
// (dir/live-bt.txt) and the process state (coreunwind-dump), and returns
// dir. WriteCore turns the state into a core.
func CrashUnderGDB(t testing.TB, dir, prog string, args ...string) string {
	t.Helper()
	return CrashUnderGDBWith(t, dir, prog, GDBOptions{}, args...)
}

// GDBOptions adds to what CrashUnderGDB records.
type GDBOptions struct {
	// RecordEntryFRs names functions whose floating-point registers are
	// recorded at their first instruction (EntryFRs reads them back).
	RecordEntryFRs []string
	// Commands run after the backtrace is recorded, their output saved
	// in dir/extra.txt.
	Commands []string
	// Backtrace replaces "thread apply all bt" (deep stacks: "bt 60").
	Backtrace string
	// QemuArgs go before the program (e.g. "-s", "1M" for the stack size).
	QemuArgs []string
}

// CrashUnderGDBWith is CrashUnderGDB with more recorded.
func CrashUnderGDBWith(t testing.TB, dir, prog string, opt GDBOptions, args ...string) string {
	t.Helper()
	qemu := testenv.NeedTool(t, "qemu-hppa")
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	if _, err := os.Stat(filepath.Join(Sysroot, "lib", "libc.so.6")); err != nil {
		testenv.Unavailable(t, "libc6-hppa-cross is not installed: "+err.Error())
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	qargs := append(append([]string{"-g", port}, opt.QemuArgs...), prog)
	q := exec.Command(qemu, append(qargs, args...)...)
	q.Env = append(os.Environ(), "QEMU_LD_PREFIX="+Sysroot)
	q.Dir = dir
	if err := q.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { q.Process.Kill(); q.Wait() }()
	// The qemu stub takes exactly one connection: gdb's target remote
	// retries a refused one, so there is no probe here.
	bt := filepath.Join(dir, "live-bt.txt")
	gdbArgs := []string{"-nx", "-batch",
		"-ex", "set sysroot " + Sysroot, "-ex", "set pagination off", "-ex", "set confirm off",
		"-ex", "handle SIGUSR1 SIGUSR2 SIGALRM SIGCHLD SIGPIPE nostop noprint pass",
		"-ex", "source " + dumpScript(t),
		"-ex", "file " + prog, "-ex", "target remote 127.0.0.1:" + port}
	if len(opt.RecordEntryFRs) > 0 {
		gdbArgs = append(gdbArgs, "-ex", "coreunwind-record-entry "+strings.Join(opt.RecordEntryFRs, " "))
	}
	btCmd := "thread apply all bt"
	if opt.Backtrace != "" {
		btCmd = opt.Backtrace
	}
	gdbArgs = append(gdbArgs, "-ex", "continue",
		"-ex", "python open('"+bt+"','w').write(gdb.execute("+strconv.Quote(btCmd)+", to_string=True))")
	if len(opt.Commands) > 0 {
		var py strings.Builder
		py.WriteString("python open('" + filepath.Join(dir, "extra.txt") + "','w').write(''")
		for _, c := range opt.Commands {
			py.WriteString("+gdb.execute(" + strconv.Quote(c) + ", to_string=True)")
		}
		py.WriteString(")")
		gdbArgs = append(gdbArgs, "-ex", py.String())
	}
	gdbArgs = append(gdbArgs, "-ex", "coreunwind-dump "+filepath.Join(dir, "dump"), "-ex", "kill")
	cmd := exec.Command(gdb, gdbArgs...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "coreunwind-dump:") {
		t.Fatalf("gdb-multiarch: %v\n%s", err, out)
	}
	return dir
}
