package pa64_test

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
)

// The 32-bit run's stack: below 2 GiB, so the interpreter's 64-bit
// registers hold the same addresses the 32-bit code computes.
const (
	pa32StackLo   = 0x40000000
	pa32StackSize = 0x10000
)

// TestHPUXInterruptMarker32 is TestHPUXInterruptMarker64 for 32-bit code
// (hppa-linux-gnu-gcc output, PA 1.1 conventions: rp at -20, the
// trampoline calls the handler with ble 0(%sr4,%r22) as $$dyncall does)
// in the 32-bit HP-UX corehead core format: the save_state_t (narrow
// image) 1352 bytes below the trampoline's sp.
func TestHPUXInterruptMarker32(t *testing.T) {
	hppa.PA32.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/hpuxsig32.c")
	tramp, _ := filepath.Abs("testdata/progs/hpuxtramp32.S")
	prog := hppa.PA32.Build(t, dir, "hpuxsig32", src, append([]string{"-g", "-O1", tramp}, hppa.Freestanding...)...)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	assertInterruptMarker(t, hppa.PA32, prog, "sigtramp_hpux32")

	m, err := hppa.NewMachine(f, pa32StackLo, pa32StackSize)
	if err != nil {
		t.Fatal(err)
	}
	// The 32-bit data pointer: without crt0's $global$, ld bases dp at
	// the start of the data segment (sink, the second word of .bss, is
	// addressed as L%0(dp) + 4).
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0 {
			m.GR[27] = p.Vaddr
			break
		}
	}
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrSegv) || m.FaultAddr != 0 {
		t.Fatalf("interpreter: %v at pc %#x; want victim's null store", err, m.PC)
	}
	victim := symbolAddr(t, f, "victim")
	if m.PC < victim || m.PC >= victim+0xc {
		t.Fatalf("first fault at %#x, not in victim (%#x)", m.PC, victim)
	}
	in := m.DeliverHPUXSignal(symbolAddr(t, f, "sigtramp_hpux32"), symbolAddr(t, f, "handler"), 11, false)
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrSegv) || m.FaultAddr != 0 {
		t.Fatalf("interpreter after the signal: %v at pc %#x; want hleaf's null store", err, m.PC)
	}

	core := filepath.Join(dir, "core.hpux")
	if err := os.WriteFile(core, hppa.MachineCorehead(m, f, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	if r.Core.OS != "hpux" || r.Core.Arch != "hppa" {
		t.Errorf("os %s arch %s", r.Core.OS, r.Core.Arch)
	}
	checkInterruptedWalk(t, r, m, in,
		[]string{"hleaf", "handler", "sigtramp_hpux32", "victim", "work", "work", "work", "_start"})
}
