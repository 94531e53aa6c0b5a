package analyze

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// crashTimes crashes exe n times, each in a directory of its own under
// dir, and returns the cores: a batch's cores of one executable, for the
// tests of what a batch reads once per binary.
func crashTimes(t *testing.T, dir, exe string, n int, env []string) []string {
	t.Helper()
	var cores []string
	for i := range n {
		d := filepath.Join(dir, string(rune('a'+i)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		core, _ := testenv.CrashIn(t, d, exe, env)
		cores = append(cores, core)
	}
	return cores
}

// buildGo builds the Go program source in dir (a new temporary one
// when empty) and returns dir and the executable.
func buildGo(t *testing.T, dir, source string) (string, string) {
	t.Helper()
	gotool := testenv.NeedTool(t, "go")
	if dir == "" {
		dir = t.TempDir()
	}
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	if out, err := exec.Command(gotool, "build", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir, exe
}
