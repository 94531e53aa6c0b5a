package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestDebuginfodFlags: --debuginfod needs a server in DEBUGINFOD_URLS and
// cannot be combined with --no-debuginfod; with every file local (a
// program built with -g, libc6-dbg installed) the servers are not asked
// at all and the report is the one without them.
func TestDebuginfodFlags(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	t.Setenv("DEBUGINFOD_URLS", "")
	t.Setenv("DEBUGINFOD_CACHE_PATH", t.TempDir())
	for _, args := range [][]string{
		{"--debuginfod", core, exe},
		{"--debuginfod", "--no-debuginfod", core, exe},
		{"triage", "--debuginfod", dir},
	} {
		if code, _, stderr := runCLI(args...); code != exitcode.Usage || !strings.Contains(stderr, "debuginfod") {
			t.Errorf("%q: exit %d, stderr %s", args, code, stderr)
		}
	}
	code, want, stderr := runCLI(core, exe)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	t.Setenv("DEBUGINFOD_URLS", srv.URL)
	for _, args := range [][]string{{core, exe}, {"--debuginfod", core, exe}} {
		code, got, stderr := runCLI(args...)
		if code != exitcode.OK || got != want || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q, report differs: %v", args, code, stderr, got != want)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests with every file local", n)
	}
}
