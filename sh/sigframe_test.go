package sh

import (
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestSigreturnLayouts: the kernel's trampoline form (the vDSO's "mov.w
// 1f,r3; trapa #0x10", five "or r0,r0", the number) with its rt frame
// (uc_mcontext at 20 in the ucontext, as gdb and libunwind read it), and
// an old frame under qemu's form; the interrupted pc, sp and pr come from
// the sigcontext. qemu-user 7.2's rt frame (uc_mcontext 8 bytes further)
// is what the e2e tests' cores hold.
func TestSigreturnLayouts(t *testing.T) {
	const (
		code  = 0x10000 // the interrupted function
		tramp = 0x20000
		sp    = 0x80000
	)
	kernelTramp := func(nr uint16) []byte {
		hw := []uint16{0x9305, 0xc310, 0x200b, 0x200b, 0x200b, 0x200b, 0x200b, nr}
		b := make([]byte, 2*len(hw))
		for i, h := range hw {
			b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		}
		return b
	}
	qemuTramp := []byte{0x00, 0x93, 0x10, 0xc3, 119, 0}
	for _, tc := range []struct {
		name   string
		tramp  []byte
		kind   cfirow.Kind
		regsAt uint64 // sc_gregs
	}{
		{"kernel-rt", kernelTramp(173), kindRTSigreturn, sp + 128 + 20 + 4},
		{"kernel-old", kernelTramp(119), kindSigreturn, sp + 4},
		{"qemu-old", qemuTramp, kindSigreturn, sp + 4},
		{"qemu-rt", []byte{0x00, 0x93, 0x10, 0xc3, 173, 0}, kindRTSigreturn, sp + 128 + 28 + 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &unwindtest.Space{Ptr: 4, Code: func(a uint64) bool { return a >= code && a < tramp+0x100 }}
			s.Mem = append(s.Mem, unwindtest.Region{Addr: tramp, Data: tc.tramp}, unwindtest.Region{Addr: code, Data: make([]byte, 0x100)})
			stack := make([]uint64, 128)
			regs := (tc.regsAt - sp) / 4
			for i := 0; i < 16; i++ {
				stack[regs+uint64(i)] = 0x1000 + uint64(i)
			}
			stack[regs+15] = sp + 0x400  // r15
			stack[regs+16] = code + 0x42 // pc
			stack[regs+17] = code + 0x10 // pr
			s.Mem = append(s.Mem, s.Words(sp, stack...))
			if k := trampolineKind(s, tramp); k != tc.kind {
				t.Fatalf("trampoline kind %d, want %d", k, tc.kind)
			}
			callee := unwind.NewFrame(NumRegs)
			callee.Set(PC, tramp, unwind.SaveLoc{Kind: unwind.LocValue})
			callee.Set(SP, sp, unwind.SaveLoc{Kind: unwind.LocValue})
			caller := unwind.NewFrame(NumRegs)
			if err := stepSigreturn(s, tc.kind, callee, caller); err != nil {
				t.Fatal(err)
			}
			for r, want := range map[int]uint64{PC: code + 0x42, SP: sp + 0x400, PR: code + 0x10, 8: 0x1008} {
				if v, ok := caller.Get(r); !ok || v != want {
					t.Errorf("%s = %#x (%v), want %#x", RegName(uint64(r)), v, ok, want)
				}
			}
			if caller.Trust != unwind.TrustContext || !callee.Signal {
				t.Errorf("trust %v, callee signal %v", caller.Trust, callee.Signal)
			}
		})
	}
}
