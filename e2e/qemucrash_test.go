package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// qemuCrash copies a built program into a fresh directory (qemu names its
// cores by program, so parallel crashes must not share one) and crashes it
// under arch's qemu-user.
func qemuCrash(t *testing.T, arch testenv.CrossArch, prog string, args ...string) crash {
	t.Helper()
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	local := filepath.Join(dir, filepath.Base(exe))
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, b, 0o755); err != nil {
		t.Fatal(err)
	}
	core, _ := testenv.CrashUnderQemu(t, arch, local, args...)
	return crash{Dir: dir, Exe: local, Core: core}
}
