package corefile

import (
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/minidump"
)

// minidumpSeed is a real minidump: Breakpad's core2md's of a kernel core
// of e2e's mdcrash.c (4 threads, a NULL store).
const minidumpSeed = "../minidump/testdata/core2md-x86_64.dmp"

// TestOpenMinidump: a minidump opens as a core whose threads, registers,
// signal, mappings and module build IDs are the minidump's.
func TestOpenMinidump(t *testing.T) {
	data, err := os.ReadFile(minidumpSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := minidump.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenBytes(data, Options{Sysroot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Format != "minidump" || c.Arch != "x86_64" || c.PtrSize() != 8 || c.OS != "linux" {
		t.Errorf("format %q arch %q ptr %d os %q", c.Format, c.Arch, c.PtrSize(), c.OS)
	}
	if len(c.Threads) != len(d.Threads) {
		t.Fatalf("%d threads, the minidump has %d", len(c.Threads), len(d.Threads))
	}
	for i, th := range c.Threads {
		ctx := d.Threads[i].Context
		if int(d.Threads[i].ID) == c.CrashedTID {
			ctx = d.Exception.Context
		}
		if th.TID != int(d.Threads[i].ID) || c.order.Uint64(th.GRegs[16*8:]) != ctx.PC() || c.order.Uint64(th.GRegs[19*8:]) != ctx.SP() {
			t.Errorf("thread %d: tid %d rip %#x rsp %#x, the minidump: %d %#x %#x", i, th.TID,
				c.order.Uint64(th.GRegs[16*8:]), c.order.Uint64(th.GRegs[19*8:]), d.Threads[i].ID, ctx.PC(), ctx.SP())
		}
		// The stack is readable where the thread's stack pointer is.
		var w [8]byte
		if err := c.ReadMem(c.order.Uint64(th.GRegs[19*8:]), w[:]); err != nil {
			t.Errorf("thread %d: stack: %v", th.TID, err)
		}
	}
	if c.CrashedTID != int(d.Exception.ThreadID) || c.Signal == nil || c.Signal.Number != int(d.Exception.Code) {
		t.Errorf("crashed %d signal %+v, the exception stream: thread %d code %d", c.CrashedTID, c.Signal, d.Exception.ThreadID, d.Exception.Code)
	}
	if c.Signal != nil && c.Signal.Detailed {
		t.Errorf("core2md records no si_code (flags 0): the signal must not claim one")
	}
	if c.PID == 0 || c.CommandLine == "" || len(c.Auxv) == 0 || len(c.Mappings) == 0 {
		t.Errorf("pid %d command %q, %d auxv entries, %d mappings", c.PID, c.CommandLine, len(c.Auxv), len(c.Mappings))
	}
	ids := 0
	for _, m := range c.Modules {
		want := ""
		for _, dm := range d.Modules {
			if dm.Base >= m.Start && dm.Base < m.End {
				want = dm.BuildID()
			}
		}
		if m.BuildID != want {
			t.Errorf("module %s: build ID %q, the module list says %q", m.Path, m.BuildID, want)
		}
		if m.BuildID != "" {
			ids++
		}
	}
	if ids < 2 {
		t.Errorf("%d modules with build IDs, want the executable's, libc's and ld.so's", ids)
	}
}
