package ppc64_test

import (
	"debug/elf"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/ppc64"
	"github.com/coreunwind/coreunwind/unwind"
)

// regsProg keeps values in callee-saved registers across calls (-O2
// puts a, b and c in r29–r31 or so, saved by each prologue) and crashes
// three calls deep.
const regsProg = `
volatile long sink;
__attribute__((noinline)) long leaf(long *p, long a) { *p = a; return a + sink; }
__attribute__((noinline)) long mid(long *p, long x) {
	long a = x * 3 + sink, b = x * 5 + sink, c = x * 7 + sink;
	long r = leaf(p, a ^ b ^ c);
	return r + a + b + c;
}
__attribute__((noinline)) long outer(long *p, long x) {
	long a = x + 11 + sink, b = x + 13 + sink, c = x + 17 + sink;
	long r = mid(p, a * b * c);
	return r * a * b * c;
}
int main(int argc, char **argv) { return outer(argc > 9 ? (long *)&argc : 0, argc); }
`

var gdbRegRE = regexp.MustCompile(`(?m)^(r\d+|pc|lr|ctr|cr|xer)\s+0x([0-9a-f]+)`)

// gdbFrameRegs runs gdb-multiarch on a core of arch and returns "info registers"
// of frames 0..n-1, and what the extra commands print.
func gdbFrameRegs(t *testing.T, arch testenv.CrossArch, exe, core string, n int, extra ...string) ([]map[string]uint64, string) {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	return testenv.GDBFrameRegisters(t, gdb, []string{"-iex", "set sysroot " + arch.Sysroot()}, exe, core, n, gdbRegRE, extra...)
}

// regNums maps gdb's register names to ppc64's numbers.
func regNums() map[string]int {
	m := map[string]int{}
	for r := 0; r < ppc64.NumRegs; r++ {
		m[ppc64.RegName(uint64(r))] = r
	}
	return m
}

// openCursor opens core and a cursor on its crashed thread.
func openCursor(t *testing.T, core string, opts analyze.Options) *unwind.Cursor {
	t.Helper()
	s, err := analyze.Open(core, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cur, err := s.Cursor(s.Core.CrashedTID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// TestFrameRegisters: frame 0's registers from NT_PRSTATUS (r0–r31, pc,
// lr, ctr, cr, xer) and the registers CFI recovers in the callers (r1,
// r2, r14–r31, pc) are gdb-multiarch's ("info registers" in each frame)
// on qemu-user cores of a static -O2 program, little- and big-endian, and
// 32-bit (the 32-bit pt_regs, 4-byte saves).
func TestFrameRegisters(t *testing.T) {
	for _, arch := range []testenv.CrossArch{testenv.PPC64LE, testenv.PPC64, testenv.PPC} {
		t.Run(arch.Name, func(t *testing.T) {
			dir := t.TempDir()
			exe := testenv.BuildCross(t, arch, dir, "regs", regsProg, "-g", "-O2", "-static")
			core, _ := testenv.CrashUnderQemu(t, arch, exe)
			const frames = 4
			gdb, _ := gdbFrameRegs(t, arch, exe, core, frames)
			cur := openCursor(t, core, analyze.Options{Executable: exe})
			nums := regNums()
			for i, regs := range gdb {
				checked := 0
				for name, want := range regs {
					r := nums[name]
					if i > 0 && !(r == ppc64.PC || r == ppc64.SP || r == ppc64.TOC || r >= 14 && r <= 31) {
						continue // not preserved by calls: gdb shows the callee's value, coreunwind none
					}
					got, err := cur.Reg(r)
					if err != nil || got != want {
						t.Errorf("frame %d %s: coreunwind %#x (%v), gdb %#x", i, name, got, err, want)
					}
					checked++
				}
				if (i == 0 && checked != 37) || (i > 0 && checked != 21) {
					t.Errorf("frame %d: %d registers compared, gdb printed %v", i, checked, regs)
				}
				if i+1 < frames {
					if more, err := cur.Step(); !more {
						t.Fatalf("walk stopped after frame %d: %v", i, err)
					}
				}
			}
			if name, _, _ := cur.ProcName(); name != "main" {
				t.Errorf("frame %d is %q, want main", frames-1, name)
			}
		})
	}
}

// tocProg calls abort in the C library through a PLT stub: the stub
// saves the executable's TOC pointer at 24(r1) and the call is followed
// by "ld r2,24(r1)".
const tocProg = `
#include <stdlib.h>
volatile int sink;
__attribute__((noinline)) void die(int x) { if (x >= 0) abort(); sink = x; }
int main(int argc, char **argv) { die(argc); return sink; }
`

// TestTOCAcrossModules: in a dynamic program that dies in abort, every
// frame's r2 is the TOC pointer of the module its pc is in: the C
// library's (frame 0's r2, from the core) in libc's frames, the
// executable's in die and main (plus the load bias gdb applied: its
// .TOC. symbol in ELFv2, the TOC word of main's function descriptor in
// ELFv1). The call to abort goes through a PLT stub that saves r2 at
// 24(r1) (ELFv2) or 40(r1) (ELFv1) and is followed by "ld r2,N(r1)".
// gdb-multiarch itself shows libc's TOC in die and main.
func TestTOCAcrossModules(t *testing.T) {
	for _, arch := range []testenv.CrossArch{testenv.PPC64LE, testenv.PPC64} {
		t.Run(arch.Name, func(t *testing.T) {
			dir := t.TempDir()
			exe := testenv.BuildCross(t, arch, dir, "toc", tocProg, "-g", "-O1", "-Wl,-z,separate-code")
			core, _ := testenv.CrashUnderQemu(t, arch, exe)
			gdb, tail := gdbFrameRegs(t, arch, exe, core, 1, "p/x (long)&main")
			m := regexp.MustCompile(`\$1 = 0x([0-9a-f]+)`).FindStringSubmatch(tail)
			if m == nil {
				t.Fatalf("gdb printed no address of main:\n%s", tail)
			}
			mainAddr, _ := strconv.ParseUint(m[1], 16, 64)
			mainCode, toc := linkTimeTOC(t, exe)
			exeTOC, libcTOC := toc+mainAddr-mainCode, gdb[0]["r2"]
			if exeTOC == libcTOC {
				t.Fatalf("executable's TOC %#x, libc's %#x: the test cannot tell them apart", exeTOC, libcTOC)
			}
			cur := openCursor(t, core, analyze.Options{Executable: exe, Sysroot: arch.Sysroot()})
			var seen []string
			for {
				name, _, _ := cur.ProcName()
				want := libcTOC
				if name == "die" || name == "main" {
					want = exeTOC
				}
				if got, err := cur.Reg(ppc64.TOC); err != nil || got != want {
					t.Errorf("frame %d (%s, pc %#x): r2 %#x (%v), want %#x", cur.Depth(), name, cur.PC(), got, err, want)
				}
				seen = append(seen, name)
				if more, _ := cur.Step(); !more {
					break
				}
			}
			if s := strings.Join(seen, ","); !strings.Contains(s, ",abort,die,main,") || !strings.HasSuffix(s, "__libc_start_main") {
				t.Errorf("frames %s, want abort, die, main, then libc's start code", s)
			}
		})
	}
}

// linkTimeTOC reads an executable's link-time address of main's code
// and its TOC pointer: ELFv2 has the .TOC. symbol and main's symbol is
// its code; in ELFv1 main's symbol is a function descriptor in .opd
// holding both.
func linkTimeTOC(t *testing.T, path string) (mainCode, toc uint64) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]uint64{}
	for _, s := range syms {
		vals[s.Name] = s.Value
	}
	if v, ok := vals[".TOC."]; ok {
		return vals["main"], v
	}
	opd := f.Section(".opd")
	if opd == nil {
		t.Fatalf("%s has neither .TOC. nor .opd", path)
	}
	data, err := opd.Data()
	off := vals["main"] - opd.Addr
	if err != nil || vals["main"] < opd.Addr || off+16 > uint64(len(data)) {
		t.Fatalf("main's descriptor at %#x is not in .opd (%v)", vals["main"], err)
	}
	return f.ByteOrder.Uint64(data[off:]), f.ByteOrder.Uint64(data[off+8:])
}
