package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestMain keeps the commands' symbol cache out of the user's ~/.cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "coreunwind-cmd-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestSymbolCacheFlags: --cache-dir receives the symbol cache and a second
// run from it prints the same report; --no-cache and COREUNWIND_NO_CACHE
// leave the directory alone; an unusable --cache-dir is no error.
func TestSymbolCacheFlags(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O2", "-g")
	core, _ := testenv.Crash(t, exe)
	report := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(append([]string{"--format", "json", core, exe}, args...)...)
		if code != exitcode.OK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		return stdout
	}
	files := func(d string) []string {
		f, _ := filepath.Glob(filepath.Join(d, "*.cus"))
		return f
	}
	cache := filepath.Join(dir, "cache")
	uncached := report("--no-cache", "--cache-dir", cache)
	if f := files(cache); len(f) != 0 {
		t.Fatalf("--no-cache wrote %v", f)
	}
	t.Setenv(elfx.NoCacheEnv, "1")
	report("--cache-dir", cache)
	if f := files(cache); len(f) != 0 {
		t.Fatalf("%s=1 wrote %v", elfx.NoCacheEnv, f)
	}
	t.Setenv(elfx.NoCacheEnv, "")
	if got := report("--cache-dir", cache); got != uncached {
		t.Error("the report that fills the cache differs from the uncached one")
	}
	if len(files(cache)) == 0 {
		t.Fatal("--cache-dir: no cache file written")
	}
	if got := report("--cache-dir", cache); got != uncached {
		t.Error("the report from the cache differs from the uncached one")
	}
	notDir := filepath.Join(dir, "r.json")
	os.WriteFile(notDir, nil, 0o600)
	if got := report("--cache-dir", filepath.Join(notDir, "sub")); got != uncached {
		t.Error("the report with an unusable cache directory differs")
	}
}
