package arm_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/arm"
	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// exidxSpace is the fuzz space with the program's .ARM.exidx behind its
// CFI, as the core target asks them (unwind.TablesAfterCFI).
type exidxSpace struct{ *fuzzspace.Space }

func (s exidxSpace) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	if pi, err := s.Space.FindProcInfo(ip); err == nil {
		return pi, nil
	}
	return arm.Arch{}.FindTableEntry(s.Obj.ELF(), ip)
}

// FuzzStep steps through a real armhf program's text and EXIDX tables
// (built without -g: no CFI, so every step runs EHABI opcodes, the
// prologue decoder, the trampolines' check, the fp chain or the scan)
// with a stack and registers from the fuzzer.
func FuzzStep(f *testing.F) {
	exe := testenv.BuildCross(f, testenv.ARMHF, f.TempDir(), "prog", fuzzspace.Source, "-O2", "-static")
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "leaf"), prog.Sym(f, "mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint32(seed[4:], uint32(mid+9))
	binary.LittleEndian.PutUint32(seed[76:], uint32(mid+21))
	f.Add(seed, leaf&^1, uint64(fuzzStackAddr), uint64(fuzzStackAddr+64), mid+9, uint64(0x20), true)
	f.Add(seed, mid+20, uint64(fuzzStackAddr+8), uint64(0), uint64(0), uint64(0x20), false)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr), uint64(fuzzStackAddr+4), uint64(0), uint64(0), true)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp, lr, cpsr uint64, exact bool) {
		as := exidxSpace{&fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}}
		w := func(v uint64) uint64 { return v & 0xffffffff }
		regs := map[int]uint64{arm.PC: w(pc), arm.SP: w(sp), arm.R11: w(fp), arm.R7: w(fp), arm.LR: w(lr), arm.CPSR: w(cpsr)}
		fuzzspace.Walk(t, arm.Arch{}, as, fuzzspace.Frame(arm.Arch{}, exact, regs), func(t *testing.T, depth int, caller *unwind.Frame) {
			for r := 0; r < arm.NumRegs; r++ {
				if v, ok := caller.Get(r); ok && v>>32 != 0 {
					t.Fatalf("depth %d: %s = %#x does not fit 32 bits", depth, arm.RegName(uint64(r)), v)
				}
			}
			if pc, _ := caller.Get(arm.PC); pc&1 != 0 {
				t.Fatalf("depth %d: caller pc %#x keeps the Thumb bit", depth, pc)
			}
		})
	})
}

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x7ff00000

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, 18*4)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs)
	f.Add(gregs[:40])
	f.Fuzz(func(t *testing.T, gregs []byte) {
		fuzzspace.FrameFromThread(t, arm.Arch{}, &unwind.ThreadState{GRegs: gregs, Order: binary.LittleEndian})
	})
}
