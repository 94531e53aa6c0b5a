package aarch64_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/aarch64"
	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// FuzzStep steps through a real aarch64 program's text and CFI (built
// with pointer authentication, so rows carry negate_ra_state) with a stack
// and registers from the fuzzer: CFI rows, the trampoline check, the link
// register, frame records and the scan all run on hostile input.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.AArch64, f.TempDir(), "prog", `
#include <stdio.h>
__attribute__((noinline)) int leaf(int *p) { return *p; }
__attribute__((noinline)) int mid(int *p, int n) { char buf[64]; snprintf(buf, sizeof buf, "%d", n); return leaf(p) + buf[0]; }
int main(int argc, char **argv) { return mid(argc > 9 ? &argc : 0, argc); }
`, "-O2", "-static", "-mbranch-protection=standard")
	prog := fuzzspace.Open(f, exe)
	leafSym, _ := prog.Obj.LookupSymbol("leaf")
	midSym, _ := prog.Obj.LookupSymbol("mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[0:], fuzzStackAddr+64) // a frame record
	binary.LittleEndian.PutUint64(seed[8:], 0x0035000000000000|(midSym.Addr+12))
	f.Add(seed, leafSym.Addr, uint64(fuzzStackAddr), uint64(fuzzStackAddr), midSym.Addr+8, true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(fuzzStackAddr), midSym.Addr+8, true)
	f.Add(seed, midSym.Addr+20, uint64(fuzzStackAddr+32), uint64(0), uint64(0), false)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, lr uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		callee := unwind.NewFrame(aarch64.NumRegs)
		callee.Set(aarch64.PC, pc, unwind.SaveLoc{})
		callee.Set(aarch64.SP, sp, unwind.SaveLoc{})
		callee.Set(aarch64.X29, fp, unwind.SaveLoc{})
		callee.Set(aarch64.X30, lr, unwind.SaveLoc{})
		callee.ExactPC = exact
		fuzzspace.Walk(t, aarch64.Arch{}, as, callee, func(t *testing.T, depth int, caller *unwind.Frame) {
			if pc, _ := caller.Get(aarch64.PC); !caller.ExactPC && pc>>48 != 0 && pc>>55&1 == 0 {
				t.Fatalf("depth %d: caller pc %#x still carries a pointer authentication code", depth, pc)
			}
		})
	})
}

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x7ff000000000

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, 34*8)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs, make([]byte, 528), make([]byte, 16))
	f.Add(gregs[:100], []byte(nil), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, gregs, fp, pac []byte) {
		th := &unwind.ThreadState{GRegs: gregs, FPRegs: fp, Notes: map[uint32][]byte{0x406: pac}, Order: binary.LittleEndian}
		fr, err := aarch64.Arch{}.FrameFromThread(th)
		if err != nil {
			return
		}
		if _, ok := fr.Get(aarch64.PC); !ok {
			t.Fatal("frame 0 without a pc")
		}
	})
}

// FuzzDynListAddr: any code at _U_dyn_info_list_addr gives an address or
// an error.
func FuzzDynListAddr(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x91, 0xc0, 0x03, 0x5f, 0xd6}) // adrp; add; ret
	f.Add([]byte{0x1f, 0x20, 0x03, 0xd5, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x40, 0xf9}) // nop; adrp; ldr
	f.Fuzz(func(t *testing.T, code []byte) {
		as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: fuzzStackAddr, Data: code}}}
		_, _ = aarch64.Arch{}.DynListAddr(as, nil, 0, fuzzStackAddr)
	})
}
