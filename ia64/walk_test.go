package ia64

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// coreSpace is a minimal address space over a core of a static program:
// memory from the core, unwind tables from the executable.
func coreSpace(c *corefile.Core, exe *elf.File) *unwindtest.Space {
	return &unwindtest.Space{Order: c.ByteOrder(), Read: c.ReadMem,
		Procs: func(ip uint64) (*unwind.ProcInfo, error) { return Arch{}.FindTableEntry(exe, ip) }}
}

// runToCore assembles walk.s, runs it in the interpreter to its fault and
// writes a Linux core.
func runToCore(t *testing.T, be bool) (m *crossia64.Machine, exe, core string) {
	t.Helper()
	src, err := os.ReadFile("testdata/walk.s")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe = crossia64.Build(t, dir, "walk", string(src), be, true, "_start")
	objdump := testenv.NeedTool(t, "ia64-linux-gnu-objdump")
	m, err = crossia64.NewMachine(objdump, exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(10000); err != nil {
		t.Fatal(err)
	}
	if m.Fault != "load" || m.FaultAt != 0 {
		t.Fatalf("stopped by %q at %#x, want the NULL load", m.Fault, m.FaultAt)
	}
	core = filepath.Join(dir, "core")
	if err := m.WriteLinuxCore(core, exe, 4242, 11); err != nil {
		t.Fatal(err)
	}
	return m, exe, core
}

// preservedPR are the preserved predicates p1-p5 and p16-p63.
const preservedPR = 0x3e | 0xffffffffffff0000

// TestWalkInterpretedCore: every frame's ip, sp, bsp, cfm and preserved
// registers as the interpreter left them, recovered from the core
// through the unwind tables, in both byte orders.
func TestWalkInterpretedCore(t *testing.T) {
	for _, be := range []bool{false, true} {
		t.Run(fmt.Sprint("be=", be), func(t *testing.T) {
			m, exe, core := runToCore(t, be)
			c, err := corefile.Open(core, corefile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Arch != "ia64" || len(c.Threads) != 1 {
				t.Fatalf("arch %q, %d threads", c.Arch, len(c.Threads))
			}
			ef, err := elf.Open(exe)
			if err != nil {
				t.Fatal(err)
			}
			defer ef.Close()
			as := coreSpace(c, ef)
			if len(m.Shadow) < 12 {
				t.Fatalf("the program made %d calls; the test wants a deep chain", len(m.Shadow))
			}
			// Some frame must lie near a NaT-collection slot of the
			// backing store, or the walk does not test the RSE arithmetic.
			crossed := m.BSP>>3&0x3f > 0x30
			for _, s := range m.Shadow {
				crossed = crossed || s.BSP>>3&0x3f > 0x30
			}
			walkAgainstShadow(t, m, as, c, nil)
			if !crossed {
				t.Errorf("no frame near a NaT-collection slot: the test lost its RSE coverage")
			}
		})
	}
}
