package i386_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/i386"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// regsProg keeps values in the callee-saved registers across calls (-O2
// puts a, b and c in ebx, esi and edi, saved by each prologue) and
// crashes three calls deep.
const regsProg = `
volatile int sink;
__attribute__((noinline)) int leaf(int *p, int a) { *p = a; return a + sink; }
__attribute__((noinline)) int mid(int *p, int x) {
	int a = x * 3 + sink, b = x * 5 + sink, c = x * 7 + sink;
	int r = leaf(p, a ^ b ^ c);
	return r + a + b + c;
}
__attribute__((noinline)) int outer(int *p, int x) {
	int a = x + 11 + sink, b = x + 13 + sink, c = x + 17 + sink;
	int r = mid(p, a * b * c);
	return r * a * b * c;
}
int main(int argc, char **argv) { return outer(argc > 9 ? &argc : 0, argc); }
`

var gdbRegRE = regexp.MustCompile(`(?m)^(eax|ecx|edx|ebx|esp|ebp|esi|edi|eip)\s+0x([0-9a-f]+)`)

// TestFrameRegisters: frame 0's nine registers from NT_PRSTATUS, and the
// registers CFI recovers in the callers (esp, eip and the callee-saved
// ebx, esi, edi, ebp), are gdb's ("info registers" in each frame).
func TestFrameRegisters(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb")
	dir := t.TempDir()
	exe := testenv.BuildCross(t, testenv.I386, dir, "regs", regsProg, "-g", "-O2", "-static")
	core, _ := testenv.Crash(t, exe)
	const frames = 4
	gdbRegs, _ := testenv.GDBFrameRegisters(t, gdb, nil, exe, core, frames, gdbRegRE)
	s, err := analyze.Open(core, analyze.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cur, err := s.Cursor(s.Core.CrashedTID, 0)
	if err != nil {
		t.Fatal(err)
	}
	regNum := map[string]int{}
	for r := 0; r < i386.NumRegs; r++ {
		regNum[i386.RegName(uint64(r))] = r
	}
	for i, regs := range gdbRegs {
		checked := 0
		for name, want := range regs {
			r := regNum[name]
			if i > 0 && (r == i386.EAX || r == i386.ECX || r == i386.EDX) {
				continue // clobbered by calls: gdb shows the callee's value, coreunwind none
			}
			got, err := cur.Reg(r)
			if err != nil || got != want {
				t.Errorf("frame %d %s: coreunwind %#x (%v), gdb %#x", i, name, got, err, want)
			}
			checked++
		}
		if (i == 0 && checked != 9) || (i > 0 && checked != 6) {
			t.Errorf("frame %d: %d registers compared; gdb printed %v", i, checked, regs)
		}
		if i+1 < frames {
			if more, err := cur.Step(); !more {
				t.Fatalf("walk stopped after frame %d: %v", i, err)
			}
		}
	}
	if name, _, _ := cur.ProcName(); strings.TrimSpace(name) != "main" {
		t.Errorf("frame %d is %q, want main", frames-1, name)
	}
}
