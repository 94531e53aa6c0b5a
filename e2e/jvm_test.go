package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestJVM: a large real program with code generated at run time and no
// CFI for it. The core of an aborted JVM (15 threads, a thread in
// JIT-compiled code, others in the interpreter and in libjvm) must agree
// with gdb and eu-stack wherever they agree.
func TestJVM(t *testing.T) {
	t.Parallel()
	java, javac := testenv.NeedTool(t, "java"), testenv.NeedTool(t, "javac")
	testenv.NeedCores(t)
	dir := t.TempDir()
	src := filepath.Join(repoRoot, "e2e", "testdata", "progs", "Spin.java")
	if out, err := exec.Command(javac, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.Command("sh", "-c", `ulimit -c unlimited; exec "$0" -Xmx32m -XX:+UseSerialGC -cp . Spin`, java)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the JVM did not get ready: %q %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGABRT)
	cmd.Wait()
	core := filepath.Join(dir, "core")
	testenv.WaitForCore(t, core)
	exe, err := filepath.EvalSymlinks(java)
	if err != nil {
		t.Fatal(err)
	}
	c := &crashCase{crash: crash{Dir: dir, Exe: exe, Core: core}}
	c.references(t, "-n", "0")
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	if len(c.Report.Threads) < 10 {
		t.Fatalf("%d threads; a JVM has more", len(c.Report.Threads))
	}
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	os.Remove(core) // large: do not keep it until the temp dir goes
}
