package main

import (
	"archive/tar"
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

	"github.com/coreunwind/coreunwind/beam/triagebeam"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// interruptedEnv, set, makes the test binary run the pipeline (embedded)
// on the path it holds, for TestInterruptedLeavesNoTemp.
const interruptedEnv = "COREUNWIND_BEAM_TEST_INTERRUPTED"

// TestInterruptedLeavesNoTemp: a worker extracts archive members into a
// temporary directory named coreunwind-beam-PID-*, as `coreunwind
// triage` names its own; a pipeline interrupted (SIGINT, SIGTERM,
// SIGHUP) while a member is there leaves nothing behind and dies by that
// signal, and what a killed process left there (its pid gone) the next
// worker sweeps. Before, the directory was coreunwind-beam-* with no pid
// (no sweep could tell it from a running worker's) and stayed on a
// signal, with the extracted core in it.
func TestInterruptedLeavesNoTemp(t *testing.T) {
	core, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "cores", "segv-static", "core"))
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "batch.tar")
	writeTar(t, archive, "cores/core.paused", core)

	// A directory a killed worker left: its process is gone.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			stale := filepath.Join(tmp, fmt.Sprintf("coreunwind-beam-%d-1", gone.Process.Pid))
			if err := os.MkdirAll(filepath.Join(stale, "cores"), 0o755); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			os.Chtimes(stale, old, old)

			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), interruptedEnv+"="+archive, triagebeam.PauseOnEnv+"=core.paused", "TMPDIR="+tmp)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "READY\n" {
				t.Fatalf("the pipeline said %q (%v), want READY", line, err)
			}
			left := testenv.LeftTemp(tmp)
			want := fmt.Sprintf("coreunwind-beam-%d-", cmd.Process.Pid)
			if len(left) != 1 || !strings.HasPrefix(filepath.Base(left[0]), want) {
				t.Fatalf("temporary entries %q, want one %s*", left, want)
			}
			if ents, err := os.ReadDir(left[0]); err != nil || len(ents) == 0 {
				t.Errorf("%s holds %v (%v), want the extracted member", left[0], ents, err)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Errorf("the pipeline ended with %v, want death by %v", err, sig)
			}
			if left := testenv.LeftTemp(tmp); len(left) != 0 {
				t.Errorf("left behind: %q", left)
			}
		})
	}
}

// writeTar writes a tar at path holding one file.
func writeTar(t *testing.T, path, name string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	err = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Now(), Typeflag: tar.TypeReg})
	if err == nil {
		_, err = tw.Write(data)
	}
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
