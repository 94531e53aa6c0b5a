package ppc64_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/ppc64"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x7ff000000000

// FuzzStep steps through a real ppc64le program's text and CFI with a
// stack and registers from the fuzzer: CFI rows, the TOC reload, the
// trampoline check and its context (the seed puts "li r0,172; sc" and a
// signal context on the stack, which is readable, so a pc there is the
// trampoline), the link register, the back chain and the scan all run
// on hostile input.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.PPC64LE, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	le := binary.LittleEndian
	// A back chain: the frame at the stack's start links to one 64 bytes
	// up, whose lr save slot returns into mid.
	chain := make([]byte, 256)
	le.PutUint64(chain[0:], fuzzStackAddr+64)
	le.PutUint64(chain[64+16:], mid+12)
	// A trampoline and a signal context: code at 0, the ucontext 128
	// bytes up, its regs pointer pointing at its gp_regs.
	sig := make([]byte, 1024)
	le.PutUint32(sig[0:], 0x380000ac)
	le.PutUint32(sig[4:], 0x44000002)
	uc := uint64(128)
	le.PutUint64(sig[uc+168+56:], fuzzStackAddr+uc+168+64)
	le.PutUint64(sig[uc+168+64+32*8:], mid+8) // nip
	le.PutUint64(sig[uc+168+64+1*8:], fuzzStackAddr+512)
	f.Add(chain, leaf, uint64(fuzzStackAddr), mid+8, true)
	f.Add(chain, uint64(0), uint64(fuzzStackAddr), mid+8, true)
	f.Add(chain, mid+20, uint64(fuzzStackAddr+32), uint64(0), false)
	f.Add(sig, uint64(fuzzStackAddr), uint64(fuzzStackAddr), uint64(0), false)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, lr uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		regs := map[int]uint64{ppc64.PC: pc, ppc64.SP: sp, ppc64.LR: lr, ppc64.TOC: 0x10008000}
		fuzzspace.Walk(t, ppc64.Arch{}, as, fuzzspace.Frame(ppc64.Arch{}, exact, regs))
	})
}

// FuzzStepPPC32 is FuzzStep for the 32-bit variant: a real ppc32
// program's text and CFI, a back chain of 4-byte words (lr saved at 4 of
// the caller's frame), and the sigreturn trampoline ("li r0,119; sc")
// with a sigcontext whose regs pointer points at its gregs.
func FuzzStepPPC32(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.PPC, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	arch := lookupArch(f, "ppc")
	be := binary.BigEndian
	const stack = 0x7ff00000
	chain := make([]byte, 256)
	be.PutUint32(chain[0:], stack+64)
	be.PutUint32(chain[64+4:], uint32(mid)+12)
	sig := make([]byte, 1024)
	be.PutUint32(sig[0:], 0x38000077) // li r0,119
	be.PutUint32(sig[4:], 0x44000002) // sc
	sc := uint32(64)
	be.PutUint32(sig[sc+28:], stack+sc+32)
	be.PutUint32(sig[sc+32+32*4:], uint32(mid)+8) // nip
	be.PutUint32(sig[sc+32+1*4:], stack+512)      // r1
	f.Add(chain, leaf, uint64(stack), mid+8, true)
	f.Add(chain, mid+20, uint64(stack+32), uint64(0), false)
	f.Add(sig, uint64(stack), uint64(stack), uint64(0), false)
	f.Fuzz(func(t *testing.T, data []byte, pc, sp, lr uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: data, StackAddr: stack}
		regs := map[int]uint64{ppc64.PC: pc, ppc64.SP: sp, ppc64.LR: lr}
		fuzzspace.Walk(t, arch, as, fuzzspace.Frame(arch, exact, regs))
	})
}

// lookupArch is the registered unwinder called name (the 32-bit variant
// has no exported constructor: the corefile's arch name selects it).
func lookupArch(t testing.TB, name string) unwind.Arch {
	a, err := unwind.LookupArch(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error, in every variant (ppc32 selects the 32-bit one,
// else big selects ppc64 over ppc64le).
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, 48*8)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs, make([]byte, 33*8), false, false)
	f.Add(gregs[:100], []byte(nil), false, false)
	f.Add(gregs[:48*4], make([]byte, 33*8), true, true)
	f.Add(gregs[:100], []byte(nil), true, true)
	f.Fuzz(func(t *testing.T, gregs, fp []byte, big, ppc32 bool) {
		name, order := "ppc64le", binary.ByteOrder(binary.LittleEndian)
		switch {
		case ppc32:
			name, order = "ppc", binary.BigEndian
		case big:
			name, order = "ppc64", binary.BigEndian
		}
		fuzzspace.FrameFromThread(t, lookupArch(t, name), &unwind.ThreadState{GRegs: gregs, FPRegs: fp, Order: order})
	})
}

// FuzzDynListAddr: any code (and descriptor) at _U_dyn_info_list_addr
// gives an address or an error, in every variant.
func FuzzDynListAddr(f *testing.F) {
	f.Add([]byte{0x3c, 0x40, 0x10, 0x0e, 0x38, 0x42, 0x7b, 0x00, 0x38, 0x62, 0xa6, 0xc8, 0x4e, 0x80, 0x00, 0x20}) // lis r2; addi r2; addi r3,r2; blr
	f.Add([]byte{0x42, 0x9f, 0x00, 0x05, 0x7f, 0xc8, 0x02, 0xa6, 0x80, 0x7e, 0x80, 0x00, 0x4e, 0x80, 0x00, 0x20}) // bcl; mflr r30; lwz r3,-32768(r30); blr
	f.Fuzz(func(t *testing.T, code []byte) {
		for _, name := range []string{"ppc64le", "ppc64", "ppc"} {
			as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: 0x10000000, Data: code}}}
			_, _ = lookupArch(t, name).DynListAddr(as, nil, 0, 0x10000000)
		}
	})
}
