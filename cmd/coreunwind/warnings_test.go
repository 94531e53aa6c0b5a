package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// Each warning is said once where a person reads it: in the text
// report's warnings block when it goes to stdout, on stderr otherwise
// (JSON, the hpux style, a report written to -o FILE).
func TestWarningsOnce(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	if err := os.Remove(exe); err != nil { // a warning: the executable is gone
		t.Fatal(err)
	}
	code, js, stderr := runCLI("--format", "json", core)
	if code != exitcode.OK && code != exitcode.Partial {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) == 0 {
		t.Fatal("no warning for a missing executable")
	}
	onStderr := func(name, stderr string, want bool) {
		t.Helper()
		for _, w := range r.Warnings {
			n := strings.Count(stderr, "coreunwind: warning: "+w+"\n")
			if want && n != 1 || !want && n != 0 {
				t.Errorf("%s: warning %q is %d times on stderr:\n%s", name, w, n, stderr)
			}
		}
	}
	onStderr("json", stderr, true)

	_, text, stderr := runCLI(core)
	onStderr("text", stderr, false)
	for _, w := range r.Warnings {
		if strings.Count(text, "\n  "+w+"\n") != 1 {
			t.Errorf("text: warning %q not once in the report's warnings block:\n%s", w, text)
		}
	}
	out := filepath.Join(dir, "report.txt")
	_, stdout, stderr := runCLI(core, "-o", out)
	onStderr("text -o FILE", stderr, true)
	if stdout != "" || !strings.Contains(string(mustRead(t, out)), "\nwarnings:\n") {
		t.Errorf("text -o FILE: stdout %q, or no warnings block in the file", stdout)
	}
	_, _, stderr = runCLI(core, "--style", "hpux")
	onStderr("hpux", stderr, true)
}
