package x86frame_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/internal/x86frame"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// i386 registers in DWARF numbering, as the i386 package has them.
const (
	eip, esp, ebp, ebx, esi, edi = 8, 4, 5, 3, 6, 7
)

var regs32 = x86frame.Regs{PC: eip, SP: esp, FP: ebp, Word: 4, Saved: []int{ebx, esi, edi}, NumRegs: 9}

// TestFallbackUnseenVsyscall: a thread blocked in i386's
// __kernel_vsyscall, as a minidump holds it: the vDSO is code (its
// module is listed) but none of its bytes are in the dump. The stack
// holds what __kernel_vsyscall pushed (ebp, edx, ecx) and then the
// return address into read, after its call *%gs:0x10; ebp is still the
// caller's caller's, a frame record that leads past read and its caller
// (clone's). The caller must be read's return address, found by the
// scan, not the frame record's.
func TestFallbackUnseenVsyscall(t *testing.T) {
	const (
		vdso     = 0xf7ee0000
		libc     = 0xf7d00000
		stack    = 0xf74ae000
		sp       = stack + 0x320
		fp       = stack + 0x428
		readRet  = libc + 0x100 + 7 // after call *%gs:0x10
		cloneRet = libc + 0x200 + 2 // after call *%eax
	)
	s := &unwindtest.Space{Ptr: 4}
	text := make([]byte, 0x300)
	copy(text[0x100:], []byte{0x65, 0xff, 0x15, 0x10, 0x00, 0x00, 0x00}) // call *%gs:0x10
	copy(text[0x200:], []byte{0xff, 0xd0})                               // call *%eax
	s.Mem = append(s.Mem, unwindtest.Region{Addr: libc, Data: text})
	words := make([]uint64, 0x200)
	words[0], words[1], words[2], words[3] = fp, 1, sp+0x4f, readRet // ebp, edx, ecx, return address
	words[(fp-sp)/4], words[(fp-sp)/4+1] = 0, cloneRet               // the frame record ebp points at
	s.Mem = append(s.Mem, s.Words(sp, words...))
	s.Code = func(addr uint64) bool {
		return addr-vdso < 0x2000 || addr-libc < uint64(len(text))
	}
	callee := unwind.NewFrame(9)
	same := unwind.SaveLoc{Kind: unwind.LocSame}
	callee.Set(eip, vdso+0x5e9, same)
	callee.Set(esp, sp, same)
	callee.Set(ebp, fp, same)
	callee.ExactPC = true
	caller := unwind.NewFrame(9)
	res, err := x86frame.Fallback(s, &regs32, callee, caller, true, nil)
	if err != nil || res != unwind.StepCaller {
		t.Fatalf("Fallback: %v, %v", res, err)
	}
	if pc, _ := caller.Get(eip); pc != readRet {
		t.Errorf("caller pc %#x (trust %v), want read's return address %#x", pc, caller.Trust, uint64(readRet))
	}
	if v, _ := caller.Get(esp); v != sp+16 {
		t.Errorf("caller sp %#x, want %#x", v, uint64(sp+16))
	}
}
