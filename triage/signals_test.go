package triage_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/triage"
)

// helperEnv, set, makes the test binary a batch (interruptedBatch) on
// the path it holds.
const helperEnv = "TRIAGE_TEST_INTERRUPTED_BATCH"

// interruptedBatch triages the path in helperEnv and, with the first
// result in hand (its archive member extracted in the batch's temporary
// directory), prints "READY <extracted file>" and waits to be killed.
func interruptedBatch() {
	triage.Run([]string{os.Getenv(helperEnv)}, triage.Config{Jobs: 1}, func(r *triage.Result) {
		fmt.Printf("READY %s\n", r.Input.Path)
		time.Sleep(time.Minute)
	})
	fmt.Println("not interrupted")
	os.Exit(3)
}

// TestTriageInterruptedLeavesNoTemp: a batch killed while an archive
// member is extracted in its temporary directory leaves nothing there
// when the signal can be caught (and dies by that signal); what SIGKILL
// leaves, the next batch in that directory removes.
func TestTriageInterruptedLeavesNoTemp(t *testing.T) {
	testenv.NeedTool(t, "tar")
	dir := t.TempDir()
	core := crashBugs(t, dir, "null")[0]
	archive := filepath.Join(dir, "batch.tar")
	sh(t, dir, "tar", "-cf", archive, filepath.Base(core.path))

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+archive, "TMPDIR="+tmp)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line, err := bufio.NewReader(out).ReadString('\n')
			extracted, ok := strings.CutPrefix(strings.TrimSpace(line), "READY ")
			if err != nil || !ok {
				t.Fatalf("helper said %q (%v), want READY and the extracted member", line, err)
			}
			runDir := filepath.Dir(extracted)
			wantName := fmt.Sprintf("coreunwind-triage-%d-", cmd.Process.Pid)
			if filepath.Dir(runDir) != tmp || !strings.HasPrefix(filepath.Base(runDir), wantName) {
				t.Errorf("member extracted to %s, want it in %s/%s*", extracted, tmp, wantName)
			}
			if _, err := os.Stat(extracted); err != nil {
				t.Fatalf("extracted member: %v", err)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Errorf("helper ended with %v, want death by %v", err, sig)
			}
			left := testenv.LeftTemp(tmp)
			if sig != syscall.SIGKILL {
				if len(left) != 0 {
					t.Errorf("%v left %v", sig, left)
				}
				return
			}
			if len(left) != 1 || left[0] != runDir {
				t.Fatalf("SIGKILL left %v, want the run's directory %s", left, runDir)
			}
			// The next batch sweeps it (its process is gone), and leaves
			// alone what looks the same but belongs to a live process.
			live := filepath.Join(tmp, "coreunwind-triage-1-live")
			os.Mkdir(live, 0o755)
			past := time.Now().Add(-time.Minute)
			os.Chtimes(live, past, past)
			os.Chtimes(runDir, past, past)
			sigs, failed := runTriage(t, triage.Config{TempDir: tmp}, dir, archive)
			if len(sigs) != 1 || len(failed) != 0 {
				t.Errorf("next batch: %v, failures %v", sigs, failed)
			}
			if left := testenv.LeftTemp(tmp); len(left) != 1 || left[0] != live {
				t.Errorf("after the next batch %v is left, want only %s", left, live)
			}
		})
	}
}
