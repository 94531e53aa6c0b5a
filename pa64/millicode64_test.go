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

// TestMillicode64 runs hppa64 gcc -O1 output that divides by zero: gcc
// calls libgcc's millicode $$divU with b,l $$divU,%rp (PA 2.0W millicode
// returns through rp, as its bv,n r0(rp) shows; 32-bit millicode uses
// r31), and $$divU traps on the zero divisor (addi,tc). The frame in the
// millicode routine has a Millicode unwind entry and no frame; coreunwind
// must return from it through rp to quot, then walk to _start, as the
// interpreter made the calls — from both the HP-UX and the Linux core.
func TestMillicode64(t *testing.T) {
	hppa.PA64.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/milli64.c")
	prog := hppa.PA64.Build(t, dir, "milli64", src, append([]string{"-g", "-O1"}, append(hppa.Freestanding, "-lgcc")...)...)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := hppa.NewMachine(f, pa64StackLo, pa64StackSize)
	if err != nil {
		t.Fatal(err)
	}
	divU := symbolAddr(t, f, "$$divU")
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrTrap) || m.PC < divU || m.PC >= divU+0x20 {
		t.Fatalf("interpreter: %v at pc %#x; want the zero-divisor trap at the start of $$divU (%#x)", err, m.PC, divU)
	}
	for _, e := range hppa.PA64.ReadelfUnwind(t, prog) {
		if e.Start <= m.PC && m.PC <= e.End && (len(e.Flags) != 1 || e.Flags[0] != "Millicode") {
			t.Fatalf("readelf -u: the trap's entry %+v is not a plain Millicode entry", e)
		}
	}

	linux := filepath.Join(dir, "core")
	if err := os.WriteFile(linux, hppa.LinuxCore64(m, f, prog, 8), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, core := range []string{hpuxCoreOf(t, m, dir), linux} {
		r, err := analyze.Analyze(core, analyze.Options{Executable: prog})
		if err != nil {
			t.Fatal(err)
		}
		th := r.Threads[0]
		want := m.ExpectedPCs()
		names := []string{"$$divU", "quot", "scale", "_start"}
		if len(th.Frames) != len(want) {
			var got []uint64
			for _, fr := range th.Frames {
				got = append(got, uint64(fr.PC))
			}
			t.Fatalf("%s: frames %#x, interpreter %#x (error %s)", r.Core.OS, got, want, deref(th.Error))
		}
		for i, fr := range th.Frames {
			if uint64(fr.PC) != want[i] || name(fr) != names[i] {
				t.Errorf("%s frame %d: %#x %s, interpreter %#x %s", r.Core.OS, i, uint64(fr.PC), name(fr), want[i], names[i])
			}
		}
		if th.Error != nil {
			t.Errorf("%s: thread error %s", r.Core.OS, *th.Error)
		}
	}
}
