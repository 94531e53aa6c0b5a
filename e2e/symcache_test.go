package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestSymbolCacheProcesses: eight coreunwind processes at once fill one
// symbol cache directory (each writes through a temporary file and a
// rename, merging what the others wrote); every report, and the report a
// later run reads from the cache, is byte for byte the uncached one, and
// no temporary file is left behind.
func TestSymbolCacheProcesses(t *testing.T) {
	needCoreunwind(t)
	c := crashProgram(t, buildProgram(t, "threads"), nil)
	want := runCoreunwind(t, "--format", "json", "--no-cache", c.Core, c.Exe)
	if want.Code != exitOK {
		t.Fatalf("uncached run: exit %d: %s", want.Code, want.Stderr)
	}
	dir := t.TempDir()
	args := []string{"--format", "json", "--cache-dir", dir, c.Core, c.Exe}
	const procs = 8
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout bytes.Buffer
			cmd := exec.Command(coreunwindBin, args...)
			cmd.Stdout = &stdout
			errs[i] = cmd.Run()
			outs[i] = stdout.Bytes()
		}()
	}
	wg.Wait()
	for i := range procs {
		if errs[i] != nil || string(outs[i]) != want.Stdout {
			t.Errorf("process %d: %v; report differs from the uncached one: %v", i, errs[i], string(outs[i]) != want.Stdout)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.cus")); len(files) == 0 {
		t.Error("no cache file written")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if again := runCoreunwind(t, args...); again.Stdout != want.Stdout {
		t.Error("the report read from the cache differs from the uncached one")
	}
}
