package pa64_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestCrashInstruction32: a NULL field read and write of a real hppa-linux
// program (faults.c, -O0) under qemu-hppa, the core written from the
// process state gdb-multiarch recorded at the signal. The report's
// faulting instruction must be the live gdb's x/i $pc, its registers
// gdb's info registers, and its operand's address the field's offset
// (gdb's print of it). The recorded state has no siginfo, so the
// analysis concludes nothing from a fault address.
func TestCrashInstruction32(t *testing.T) {
	hppa.PA32.Need(t)
	src, _ := filepath.Abs(filepath.Join("testdata", "progs", "faults.c"))
	build := t.TempDir()
	prog := hppa.PA32.Build(t, build, "faults", src, "-g", "-O0")
	for _, mode := range []string{"read", "write"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			hppa.CrashUnderGDBWith(t, dir, prog, hppa.GDBOptions{Commands: []string{
				"x/i $pc", "info registers", "print/x (unsigned long)&((struct record *)0)->count"}}, mode)
			core := hppa.WriteCore(t, dir)
			extra, err := os.ReadFile(filepath.Join(dir, "extra.txt"))
			if err != nil {
				t.Fatal(err)
			}
			gdb := string(extra)
			r, err := analyze.Analyze(core, analyze.Options{Executable: prog, Sysroot: hppa.Sysroot})
			if err != nil {
				t.Fatal(err)
			}
			c := r.Crash
			if c == nil || c.Instruction == nil {
				t.Fatalf("no faulting instruction: %+v\ngdb:\n%s", c, gdb)
			}
			m := regexp.MustCompile(`=> 0x([0-9a-f]+)(?: <[^>]*>)?:\s*(.*)`).FindStringSubmatch(gdb)
			if m == nil {
				t.Fatalf("gdb printed no x/i line:\n%s", gdb)
			}
			if fmt.Sprintf("%x", uint64(c.Instruction.Address)) != m[1] || unwindtest.NormInsn(c.Instruction.Text) != unwindtest.NormInsn(m[2]) {
				t.Errorf("instruction %#x %q; gdb: %s", uint64(c.Instruction.Address), c.Instruction.Text, m[0])
			}
			wantOp := "st"
			if mode == "read" {
				wantOp = "ld"
			}
			if !strings.HasPrefix(c.Instruction.Text, wantOp) {
				t.Errorf("instruction %q is not a %s", c.Instruction.Text, mode)
			}
			off := regexp.MustCompile(`(?m)^\$\d+ = (0x[0-9a-f]+)$`).FindStringSubmatch(gdb)
			if off == nil || c.Instruction.MemoryAddress == nil || fmt.Sprintf("%#x", uint64(*c.Instruction.MemoryAddress)) != off[1] {
				t.Errorf("memory address %v; gdb says the field is at %v", c.Instruction.MemoryAddress, off)
			}
			checkInsnRegs(t, c.Instruction.Registers, gdb)
		})
	}
}

// gdbRegNames are the general registers gdb names otherwise than the
// report (which says rp, dp and sp as gdb does).
var gdbRegNames = map[string]string{"r28": "ret0", "r29": "ret1"}

// checkInsnRegs compares the instruction's registers with gdb's info
// registers.
func checkInsnRegs(t *testing.T, regs []report.Register, gdb string) {
	t.Helper()
	gv := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^(\w+)\s+(0x[0-9a-f]+)`).FindAllStringSubmatch(gdb, -1) {
		gv[m[1]] = m[2]
	}
	if len(regs) == 0 {
		t.Errorf("the instruction names no registers")
	}
	for _, r := range regs {
		name := r.Name
		if g, ok := gdbRegNames[name]; ok {
			name = g
		}
		want, ok := gv[name]
		if !ok {
			t.Errorf("register %s: gdb has none:\n%s", r.Name, gdb)
			continue
		}
		if fmt.Sprintf("%#x", uint64(r.Value)) != want {
			t.Errorf("register %s = %#x, gdb says %s", r.Name, uint64(r.Value), want)
		}
	}
}
