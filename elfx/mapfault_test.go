package elfx

import (
	"errors"
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestObjectTruncatedWhileOpen truncates an object's file while it is
// open (a library upgraded during a triage run). The object is mapped, so
// its reads fault; under mapfault.Catch (as analyze reads objects) the
// fault is an error naming the file, also when it happens on the
// goroutine Warm starts, where it used to kill the process. In a child
// process: a regression kills it.
func TestObjectTruncatedWhileOpen(t *testing.T) {
	if !testenv.InChild(t) {
		return
	}
	bin := compile(t, t.TempDir(), "gcc", "prog", "c", cProgram, "-O2", "-g")
	o, o2 := mustOpen(t, bin), mustOpen(t, bin)
	defer o.Close()
	defer o2.Close()
	if err := os.Truncate(bin, 0); err != nil {
		t.Fatal(err)
	}
	err := mapfault.Catch(o.Warm)
	var fault *mapfault.Fault
	if !errors.As(err, &fault) || fault.Path != bin {
		t.Errorf("Warm of a truncated object: %v, want a fault naming %s", err, bin)
	}
	// A fault leaves what was being built half done: the second object
	// has read nothing yet.
	// The parsers' own recovers (hostile bytes make "malformed DWARF")
	// hand a fault on: it is not the bytes' doing.
	err = mapfault.Catch(func() { o2.SourceFrames(o2.ELF().Entry) })
	if !errors.Is(err, mapfault.ErrFault) {
		t.Errorf("SourceFrames of a truncated object: %v, want a fault", err)
	}
}
