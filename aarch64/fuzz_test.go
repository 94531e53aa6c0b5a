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
	exe := testenv.BuildCross(f, testenv.AArch64, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static", "-mbranch-protection=standard")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[0:], fuzzStackAddr+64) // a frame record
	binary.LittleEndian.PutUint64(seed[8:], 0x0035000000000000|(mid+12))
	f.Add(seed, leaf, uint64(fuzzStackAddr), uint64(fuzzStackAddr), mid+8, true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(fuzzStackAddr), mid+8, true)
	f.Add(seed, mid+20, uint64(fuzzStackAddr+32), uint64(0), uint64(0), false)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, lr uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		regs := map[int]uint64{aarch64.PC: pc, aarch64.SP: sp, aarch64.X29: fp, aarch64.X30: lr}
		fuzzspace.Walk(t, aarch64.Arch{}, as, fuzzspace.Frame(aarch64.Arch{}, exact, regs), func(t *testing.T, depth int, caller *unwind.Frame) {
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
		fuzzspace.FrameFromThread(t, aarch64.Arch{}, th)
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
