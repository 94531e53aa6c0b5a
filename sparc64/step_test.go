package sparc64

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// Instruction words of the tests' code, as sparc64-linux-gnu-as
// assembles them.
const (
	insnSave176 = 0x9de3bf50 // save %sp, -176, %sp
	insnCall    = 0x40000010 // call .+64
	insnNop     = 0x01000000
	insnJmplO7  = 0x9fc04000 // jmpl %g1, %o7 (call %g1)
)

func be64(vs ...uint64) []byte {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.BigEndian.PutUint64(b[i*8:], v)
	}
	return b
}

func be32(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.BigEndian.PutUint32(b[i*4:], v)
	}
	return b
}

// A function at fnAddr (save, nop, nop) and, at callAddr, a caller's
// call and delay slot.
const (
	fnAddr   = 0x100000
	callAddr = 0x100400
	stackTop = 0x7ff000000
)

func codeSpace(stack []unwindtest.Region) *unwindtest.Space {
	mem := append([]unwindtest.Region{
		{Addr: fnAddr, Data: be32(insnSave176, insnNop, insnNop, insnNop)},
		{Addr: callAddr, Data: be32(insnCall, insnNop, insnJmplO7, insnNop)},
	}, stack...)
	return &unwindtest.Space{
		Order: binary.BigEndian,
		Mem:   mem,
		Names: func(ip uint64) (string, uint64, error) {
			if ip >= fnAddr && ip < fnAddr+16 {
				return "fn", ip - fnAddr, nil
			}
			return "", 0, unwind.ErrNoInfo
		},
		Code: func(addr uint64) bool { return addr < 0x200000 },
	}
}

// TestStepLeafBeforeSave: a thread stopped at a function's first
// instruction, before its save, runs in its caller's window: the caller
// continues past the call in %o7 with the callee's registers.
func TestStepLeafBeforeSave(t *testing.T) {
	as := codeSpace(nil)
	callee := unwind.NewFrame(NumRegs)
	callee.ExactPC = true
	callee.Set(PC, fnAddr, unwind.SaveLoc{})
	callee.Set(SP, stackTop-0x200-stackBias, unwind.SaveLoc{})
	callee.Set(FP, stackTop-0x100-stackBias, unwind.SaveLoc{})
	callee.Set(O7, callAddr, unwind.SaveLoc{})
	callee.Set(L0+3, 0x33, unwind.SaveLoc{})
	caller := unwind.NewFrame(NumRegs)
	if _, err := (Arch{}).Step(as, unwind.NewCache(unwind.CacheNone), callee, caller); err != nil {
		t.Fatal(err)
	}
	if pc, _ := caller.Get(PC); pc != callAddr+8 {
		t.Errorf("pc = %#x, want %#x (past the call and its delay slot)", pc, callAddr+8)
	}
	if sp, _ := caller.Get(SP); sp != stackTop-0x200-stackBias {
		t.Errorf("sp = %#x, want the callee's", sp)
	}
	if l3, _ := caller.Get(L0 + 3); l3 != 0x33 {
		t.Errorf("l3 = %#x, want the callee's window's", l3)
	}
}

// TestStepSavedWindow: after its save, without CFI, a frame's caller
// has the callee's %i registers as its %o registers, its %l and %i
// registers from the save area at %fp + bias, and continues past %i7.
func TestStepSavedWindow(t *testing.T) {
	fp := uint64(stackTop - 0x100 - stackBias)
	window := make([]uint64, 16)
	for i := range window {
		window[i] = 0x500 + uint64(i)
	}
	window[FP-L0] = stackTop - 0x40 - stackBias // the caller's own %fp
	as := codeSpace([]unwindtest.Region{{Addr: fp + stackBias, Data: be64(window...)}})
	callee := unwind.NewFrame(NumRegs)
	callee.ExactPC = true
	callee.Set(PC, fnAddr+8, unwind.SaveLoc{})
	callee.Set(SP, fp-176, unwind.SaveLoc{})
	for i := 0; i < 8; i++ {
		callee.Set(I0+i, 0x700+uint64(i), unwind.SaveLoc{})
	}
	callee.Set(FP, fp, unwind.SaveLoc{})
	callee.Set(I7, callAddr+8, unwind.SaveLoc{}) // the jmpl
	caller := unwind.NewFrame(NumRegs)
	if _, err := (Arch{}).Step(as, unwind.NewCache(unwind.CacheNone), callee, caller); err != nil {
		t.Fatal(err)
	}
	if pc, _ := caller.Get(PC); pc != callAddr+16 {
		t.Errorf("pc = %#x, want %#x", pc, callAddr+16)
	}
	if sp, _ := caller.Get(SP); sp != fp {
		t.Errorf("sp = %#x, want the callee's fp %#x", sp, fp)
	}
	if o0, _ := caller.Get(O0); o0 != 0x700 {
		t.Errorf("o0 = %#x, want the callee's i0", o0)
	}
	for i := 0; i < 16; i++ {
		if v, _ := caller.Get(L0 + i); v != window[i] {
			t.Errorf("%s = %#x, want %#x from the save area", RegName(uint64(L0+i)), v, window[i])
		}
	}
	if caller.Trust != unwind.TrustFramePointer {
		t.Errorf("trust %v", caller.Trust)
	}
}

// TestStepSigreturn: a frame at glibc's __rt_sigreturn_stub continues at
// the interrupted pc with the globals and outs of the pt_regs inside the
// kernel's rt_signal_frame at %sp + bias, and the %l and %i registers of
// the interrupted window, spilled at its own %sp + bias.
func TestStepSigreturn(t *testing.T) {
	const stub = 0x100800
	sp := uint64(stackTop - 0x1000 - stackBias) // the stub frame's %sp
	isp := uint64(stackTop - 0x400 - stackBias) // the interrupted %sp
	regs := make([]uint64, ptTPC+1)
	for r := 0; r < 16; r++ {
		regs[r] = 0x900 + uint64(r)
	}
	regs[SP] = isp
	regs[ptTPC] = fnAddr + 12
	window := make([]uint64, 16)
	for i := range window {
		window[i] = 0xa00 + uint64(i)
	}
	as := codeSpace([]unwindtest.Region{
		{Addr: stub, Data: be32(insnMovSigreturn, insnTrap64)},
		{Addr: sp + stackBias + sfRegs, Data: be64(regs...)},
		{Addr: isp + stackBias, Data: be64(window...)},
	})
	callee := unwind.NewFrame(NumRegs)
	callee.Set(PC, stub, unwind.SaveLoc{})
	callee.Set(SP, sp, unwind.SaveLoc{})
	caller := unwind.NewFrame(NumRegs)
	if !(Arch{}).IsSignalFrame(as, unwind.NewCache(unwind.CacheNone), callee) {
		t.Fatal("the stub is not a signal frame")
	}
	if _, err := (Arch{}).Step(as, unwind.NewCache(unwind.CacheNone), callee, caller); err != nil {
		t.Fatal(err)
	}
	if pc, _ := caller.Get(PC); pc != fnAddr+12 || !caller.ExactPC {
		t.Errorf("pc = %#x (exact %v), want %#x, exact", pc, caller.ExactPC, fnAddr+12)
	}
	for r := 1; r < 16; r++ {
		if v, _ := caller.Get(r); v != regs[r] {
			t.Errorf("%s = %#x, want %#x", RegName(uint64(r)), v, regs[r])
		}
	}
	for i := 0; i < 16; i++ {
		if v, _ := caller.Get(L0 + i); v != window[i] {
			t.Errorf("%s = %#x, want %#x", RegName(uint64(L0+i)), v, window[i])
		}
	}
	if addr, _ := (Arch{}).SiginfoAddr(as, nil, callee); addr != sp+stackBias+sfSiginfo {
		t.Errorf("siginfo at %#x", addr)
	}
}
