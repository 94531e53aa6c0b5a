package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTracerEndDetaches: a thread seized and never stopped (which ptrace
// cannot detach) is let go when the tracer closes, as its thread ends;
// the tracer's thread is never the main thread, which the Go runtime
// does not end.
func TestTracerEndDetaches(t *testing.T) {
	for i := 0; i < 20; i++ {
		cmd := exec.Command("sleep", "100")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		tr := newTracer()
		var tid int
		var err error
		tr.do(func() { tid, err = unix.Gettid(), unix.PtraceSeize(pid) })
		if err != nil {
			t.Fatal(err)
		}
		if tid == os.Getpid() {
			t.Fatalf("the tracer runs on the main thread")
		}
		tr.close()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			st, err := readStatus(filepath.Join(procDir(pid), "status"))
			if err != nil {
				t.Fatal(err)
			}
			if st.TracerPID == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still traced by %d after the tracer closed", st.TracerPID)
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
}
