package riscv64

import (
	"debug/elf"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestPrologueMatchesCFI decodes the prologue of every function of a
// static riscv64 program (its own code and the cross C library's, built
// by gcc at -O2) that has an FDE, up to its first call, and compares what
// the decoder claims with the CFI row gcc wrote for that call: the frame
// size (CFA = sp + n) and the slot of every register the decoder found
// saved. The CFI is the oracle; the decoder may know less (it stops at
// the first branch: shrink-wrapped saves), never something else.
func TestPrologueMatchesCFI(t *testing.T) {
	exe := testenv.BuildCross(t, testenv.RISCV64, t.TempDir(), "prog", `
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) int fill(char *b, int n) { return snprintf(b, n, "%d", n); }
__attribute__((noinline)) int big(int n) { char buf[3000]; memset(buf, n, sizeof buf); return fill(buf, n) + buf[n]; }
__attribute__((noinline)) int many(int a, int b) { int x = fill(0, a), y = fill(0, b), z = fill(0, a + b); return x * y + z + fill(0, x - y); }
int main(int argc, char **argv) { return big(argc) + many(argc, argc + 1); }
`, "-O2", "-static", "-fno-omit-frame-pointer")
	obj, err := elfx.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	text := obj.ELF().Section(".text")
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	as := &unwindtest.Space{
		Mem: []unwindtest.Region{{Addr: text.Addr, Data: code}},
		Names: func(ip uint64) (string, uint64, error) {
			s, ok := obj.Symbol(ip)
			if !ok {
				return "", 0, unwind.ErrNoInfo
			}
			return s.Name, ip - s.Addr, nil
		},
	}
	syms, err := obj.ELF().Symbols()
	if err != nil {
		t.Fatal(err)
	}
	checked, agreed := 0, 0
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 || s.Value < text.Addr || s.Value+s.Size > text.Addr+uint64(len(code)) {
			continue
		}
		call := firstCall(as, s.Value, s.Value+s.Size)
		if call == 0 {
			continue
		}
		fde, err := obj.FindFDE(call)
		if err != nil {
			continue
		}
		row, err := fde.RowAt(call)
		if err != nil || row.CFA.Expr != nil {
			continue
		}
		p, ok := readPrologue(as, call)
		if !ok || p.size == 0 {
			continue
		}
		checked++
		if row.CFA.Reg == SP && row.CFA.Offset == 0 {
			// An FDE without instructions: glibc's hand-written
			// _dl_runtime_resolve lowers sp by 144 and saves ra, but its
			// FDE says nothing (readelf shows only DW_CFA_nop). The
			// decoder is right there; the CFI is not an oracle.
			t.Logf("%s at %#x: empty CFI (CFA = sp), decoder: frame of %d bytes", s.Name, call, p.size)
			continue
		}
		// CFI's CFA is sp+N or, once the frame pointer is set, s0+k.
		var cfaOff int64
		switch {
		case row.CFA.Reg == SP:
			cfaOff = int64(p.size)
		case row.CFA.Reg == FP && p.fpSet:
			cfaOff = int64(p.fpCFA)
		default:
			t.Errorf("%s: CFA is r%d%+d at %#x, the decoder found no such base (size %d, fp %v)", s.Name, row.CFA.Reg, row.CFA.Offset, call, p.size, p.fpSet)
			continue
		}
		if row.CFA.Offset != cfaOff {
			t.Errorf("%s at %#x: CFA offset %d from %s, the decoder says %d", s.Name, call, row.CFA.Offset, RegName(row.CFA.Reg), cfaOff)
			continue
		}
		bad := false
		for r, off := range p.saved {
			rl := row.Rule(uint64(r))
			if rl.Kind != cfi.Offset || rl.Offset != off {
				t.Errorf("%s at %#x: %s saved at cfa%+d by the decoder, CFI says %+v", s.Name, call, RegName(uint64(r)), off, rl)
				bad = true
			}
		}
		if !bad {
			agreed++
		}
	}
	if checked < 150 {
		t.Errorf("only %d functions decoded and checked, want hundreds (static glibc)", checked)
	}
	t.Logf("%d of %d decoded prologues agree with the CFI", agreed, checked)
}

// firstCall is the address of the first "jal ra" or "jalr ra" in
// [start, end), or 0.
func firstCall(as unwind.AddrSpace, start, end uint64) uint64 {
	for a := start; a+4 <= end; {
		insn, ok := readInsn(as, a)
		if !ok {
			return 0
		}
		if insn&3 != 3 {
			if c := insn & 0xffff; c&0xf07f == 0x9002 && c>>7&0x1f != 0 {
				return a
			}
			a += 2
			continue
		}
		if insn&0xfff == 0x0ef || insn&0x7fff == 0x00e7 {
			return a
		}
		a += 4
	}
	return 0
}
