package riscv64

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// FuzzStep steps through a real riscv64 program's text and CFI with a
// stack and registers from the fuzzer: CFI rows, the trampoline check,
// the prologue decoder, ra, the frame-pointer chain and the scan all run
// on hostile input.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.RISCV64, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static", "-fno-omit-frame-pointer")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[48:], fuzzStackAddr+128) // a caller's s0 at fp-16
	binary.LittleEndian.PutUint64(seed[56:], mid+12)            // ra at fp-8
	f.Add(seed, leaf+2, uint64(fuzzStackAddr), uint64(fuzzStackAddr+64), mid+8, true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(fuzzStackAddr), mid+8, true)
	f.Add(seed, mid+20, uint64(fuzzStackAddr+32), uint64(fuzzStackAddr+64), uint64(0), false)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, ra uint64, exact bool) {
		as := fuzzspace.Named{Space: &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}}
		regs := map[int]uint64{PC: pc, SP: sp, FP: fp, RA: ra}
		fuzzspace.Walk(t, Arch{}, as, fuzzspace.Frame(Arch{}, exact, regs), func(t *testing.T, depth int, caller *unwind.Frame) {
			if v, ok := caller.Get(X0); ok && v != 0 {
				t.Fatalf("depth %d: x0 = %#x", depth, v)
			}
		})
	})
}

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x3fff000000

// FuzzReadPrologue: any code at a function's start decodes to a frame
// description or nothing, never a panic or a save slot outside the frame.
func FuzzReadPrologue(f *testing.F) {
	f.Add([]byte{0x19, 0x71, 0x86, 0xfc, 0xa2, 0xf8, 0x00, 0x01, 0x82, 0x80}) // addi sp,-128; sd ra; sd s0; addi s0,sp,128 (c.addi4spn); ret
	f.Add([]byte{0x01, 0x11, 0xfd, 0x72, 0x22, 0xe8, 0x06, 0xec, 0x16, 0x91}) // addi sp,-32; lui t0,-1; sd s0; sd ra; add sp,sp,t0
	f.Fuzz(func(t *testing.T, code []byte) {
		const start = 0x10000
		as := &unwindtest.Space{
			Mem:   []unwindtest.Region{{Addr: start, Data: code}},
			Names: func(ip uint64) (string, uint64, error) { return "f", ip - start, nil },
		}
		p, ok := readPrologue(as, start+uint64(len(code)))
		if !ok {
			return
		}
		for r, off := range p.saved {
			if off >= 0 || uint64(-off) > p.size {
				t.Fatalf("%s saved at cfa%+d, outside the %d-byte frame", RegName(uint64(r)), off, p.size)
			}
		}
	})
}

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, 32*8)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs, make([]byte, 32*8+4))
	f.Add(gregs[:100], []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, gregs, fp []byte) {
		fuzzspace.FrameFromThread(t, Arch{}, &unwind.ThreadState{GRegs: gregs, FPRegs: fp, Order: binary.LittleEndian})
	})
}
