package corefile

import (
	"errors"
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// TestFilesTruncatedWhileOpen truncates, while the core is open, the
// program whose file fills the core's read-only data and then the core
// itself (a binary upgraded, a core rewritten during a triage run). Both
// are mapped: a read of a page past the new end raises SIGBUS, which
// killed the whole process. Now each read fails with an error that names
// the file. In a child process: a regression kills it.
func TestFilesTruncatedWhileOpen(t *testing.T) {
	if !testenv.InChild(t) {
		return
	}
	prog := buildC(t, t.TempDir(), "crash")
	core, facts := crash(t, prog, "segv", "1")
	c, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, len(facts.Rodata))
	if c.readCore(facts.RodataAddr, buf) == nil {
		t.Fatalf("read-only data at %#x is in the core: the test needs it from the file", facts.RodataAddr)
	}
	if err := os.Truncate(prog, 0); err != nil {
		t.Fatal(err)
	}
	err = c.ReadMem(facts.RodataAddr, buf)
	if !errors.Is(err, mapfault.ErrFault) || !errors.Is(err, unwind.ErrUnavailable) {
		t.Errorf("read of the truncated program's data: %v, want a fault that makes the memory unavailable", err)
	}
	if err := os.Truncate(core, 0); err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	err = c.ReadMem(facts.GlobalAddr, b[:])
	if !errors.Is(err, mapfault.ErrFault) || !errors.Is(err, unwind.ErrUnavailable) {
		t.Errorf("read of the truncated core's data: %v, want a fault that makes the memory unavailable", err)
	}
}
