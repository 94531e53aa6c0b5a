package s390x_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/s390x"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// fuzzSource is fuzzspace.Source with a leaf that needs a frame, which
// -O2 then keeps r15 in f0 for.
const fuzzSource = `
#include <stdio.h>
__attribute__((noinline)) int leaf(int *p) { volatile char b[32]; b[0] = 1; return *p + b[0]; }
__attribute__((noinline)) int mid(int *p, int n) { char buf[64]; snprintf(buf, sizeof buf, "%d", n); return leaf(p) + buf[0]; }
int main(int argc, char **argv) { return mid(argc > 9 ? &argc : 0, argc); }
`

// FuzzStep steps through a real s390x program's text and CFI (-O2: a
// leaf that keeps r15 in f0, -mbackchain: frames with back chains) with a
// stack and registers from the fuzzer: CFI rows, the trampolines, the
// link register, the back chain and the scan all run on hostile input.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.S390X, f.TempDir(), "prog", fuzzSource, "-O2", "-static", "-mbackchain")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 512)
	binary.BigEndian.PutUint64(seed[0:], fuzzStackAddr+256)     // a back chain
	binary.BigEndian.PutUint64(seed[256+112:], mid+0x20)        // r14 in its save area
	binary.BigEndian.PutUint64(seed[160:], 0x0aad0000_00000000) // an svc 173 on the stack
	f.Add(seed, leaf+4, uint64(fuzzStackAddr), mid+0x20, uint64(fuzzStackAddr), true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr), mid+0x20, uint64(0), true)
	f.Add(seed, mid+0x20, uint64(fuzzStackAddr+8), uint64(0), uint64(0), false)
	f.Add(seed, uint64(fuzzStackAddr+160), uint64(fuzzStackAddr), uint64(0), uint64(0), true)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, r14, f0 uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		regs := map[int]uint64{s390x.PC: pc, s390x.SP: sp, s390x.R14: r14, s390x.F0: f0}
		fuzzspace.Walk(t, s390x.Arch{}, as, fuzzspace.Frame(s390x.Arch{}, exact, regs))
	})
}

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x3ff00000000

// FuzzStepS390 is FuzzStep for the 31-bit variant: a real 31-bit program
// (s390x-linux-gnu-gcc -m31, -mbackchain), a back chain of 4-byte words
// (r14 at 56 of the caller's frame, with the address-mode bit), and an
// svc 119 trampoline whose sigcontext points at a _sigregs.
func FuzzStepS390(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.S390X, f.TempDir(), "prog", fuzzSource, "-m31", "-O2", "-static", "-mbackchain")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	arch, err := unwind.LookupArch("s390")
	if err != nil {
		f.Fatal(err)
	}
	const stack = 0x7fd00000
	be := binary.BigEndian
	seed := make([]byte, 512)
	be.PutUint32(seed[0:], stack+256)                        // a back chain
	be.PutUint32(seed[256+56:], 0x80000000|uint32(mid)+0x20) // r14 in its save area
	be.PutUint16(seed[300:], 0x0a77)                         // svc 119
	be.PutUint32(seed[300+96+8:], stack+384)                 // sigcontext's sregs
	be.PutUint32(seed[384+4:], 0x80000000|uint32(mid)+8)     // its PSW address
	f.Add(seed, leaf+4, uint64(stack), mid+0x20, true)
	f.Add(seed, uint64(0), uint64(stack), mid+0x20|0x80000000, true)
	f.Add(seed, mid+0x20, uint64(stack+8), uint64(0), false)
	f.Add(seed, uint64(stack+300), uint64(stack+300), uint64(0), false)
	f.Fuzz(func(t *testing.T, data []byte, pc, sp, r14 uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: data, StackAddr: stack}
		regs := map[int]uint64{s390x.PC: pc, s390x.SP: sp, s390x.R14: r14}
		fuzzspace.Walk(t, arch, as, fuzzspace.Frame(arch, exact, regs))
	})
}

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error, 64-bit or (esa) 31-bit.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, 216)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs, make([]byte, 136), false)
	f.Add(gregs[:100], []byte{1, 2, 3}, false)
	f.Add(gregs[:140], make([]byte, 136), true)
	f.Add(gregs[:139], []byte(nil), true)
	f.Fuzz(func(t *testing.T, gregs, fp []byte, esa bool) {
		name := "s390x"
		if esa {
			name = "s390"
		}
		arch, err := unwind.LookupArch(name)
		if err != nil {
			t.Fatal(err)
		}
		fuzzspace.FrameFromThread(t, arch, &unwind.ThreadState{GRegs: gregs, Notes: map[uint32][]byte{2: fp}, Order: binary.BigEndian})
	})
}

// FuzzDynListAddr: any code at _U_dyn_info_list_addr gives an address or
// an error.
func FuzzDynListAddr(f *testing.F) {
	f.Add([]byte{0xc0, 0x20, 0x00, 0x00, 0x00, 0x10, 0x07, 0xfe})                         // larl %r2; br %r14
	f.Add([]byte{0xc4, 0x28, 0xff, 0xff, 0xff, 0xfc, 0x07, 0xfe})                         // lgrl %r2; br %r14
	f.Add([]byte{0xc0, 0x10, 0x00, 0x00, 0x00, 0x10, 0x58, 0x20, 0x10, 0x00, 0x07, 0xfe}) // larl %r1; l %r2,0(%r1); br %r14
	s390, err := unwind.LookupArch("s390")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code []byte) {
		as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: fuzzStackAddr, Data: code}}}
		_, _ = s390x.Arch{}.DynListAddr(as, nil, 0, fuzzStackAddr)
		_, _ = s390.DynListAddr(as, nil, 0, fuzzStackAddr)
	})
}
