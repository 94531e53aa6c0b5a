package aarch64_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/coreunwind/coreunwind/aarch64"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
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
	obj, err := elfx.Open(exe)
	if err != nil {
		f.Fatal(err)
	}
	defer obj.Close()
	code, textAddr, err := fuzzspace.Text(obj)
	if err != nil {
		f.Fatal(err)
	}
	leafSym, _ := obj.LookupSymbol("leaf")
	midSym, _ := obj.LookupSymbol("mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[0:], fuzzspace.StackAddr+64) // a frame record
	binary.LittleEndian.PutUint64(seed[8:], 0x0035000000000000|(midSym.Addr+12))
	f.Add(seed, leafSym.Addr, uint64(fuzzspace.StackAddr), uint64(fuzzspace.StackAddr), midSym.Addr+8, true)
	f.Add(seed, uint64(0), uint64(fuzzspace.StackAddr+8), uint64(fuzzspace.StackAddr), midSym.Addr+8, true)
	f.Add(seed, midSym.Addr+20, uint64(fuzzspace.StackAddr+32), uint64(0), uint64(0), false)
	arch := aarch64.Arch{}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, lr uint64, exact bool) {
		as := &fuzzspace.Space{Obj: obj, Text: code, TextAddr: textAddr, Stack: stack}
		cache := unwind.NewCache(unwind.CacheGlobal)
		callee := unwind.NewFrame(aarch64.NumRegs)
		callee.Set(aarch64.PC, pc, unwind.SaveLoc{})
		callee.Set(aarch64.SP, sp, unwind.SaveLoc{})
		callee.Set(aarch64.X29, fp, unwind.SaveLoc{})
		callee.Set(aarch64.X30, lr, unwind.SaveLoc{})
		callee.ExactPC = exact
		// Step itself, not through the cursor (which turns panics into
		// errors): a panic here is a bug to fix.
		for depth := 0; depth < 64; depth++ {
			caller := unwind.NewFrame(aarch64.NumRegs)
			res, err := arch.Step(as, cache, callee, caller, depth)
			if err != nil || res == unwind.StepEnd {
				if err != nil && errors.Is(err, unwind.ErrReadOnly) {
					t.Fatal("a step tried to write")
				}
				return
			}
			pc, ok := caller.Get(aarch64.PC)
			if !ok {
				t.Fatalf("depth %d: a caller without a pc and no error", depth)
			}
			if !caller.ExactPC && pc>>48 != 0 && pc>>55&1 == 0 {
				t.Fatalf("depth %d: caller pc %#x still carries a pointer authentication code", depth, pc)
			}
			callee = caller
		}
	})
}

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
		as := &fuzzspace.Space{Stack: code}
		_, _ = aarch64.Arch{}.DynListAddr(as, nil, 0, fuzzspace.StackAddr)
	})
}
