package ppc64_test

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/ppc64"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestKernelSigtramp: the kernel's vDSO trampoline (qemu-user's is
// covered by the e2e handler-crash tests on real cores; no real core
// with the vDSO's is at hand, so this lays out what
// arch/powerpc/kernel/signal_64.c and vdso/sigtramp64.S build).
// handle_rt_signal64 puts the ucontext at the start of the rt_sigframe,
// __SIGNAL_FRAMESIZE (128) bytes above the handler's r1, and points the
// sigcontext's regs at its gp_regs; the handler returns, by bctrl's lr,
// to "addi r1,r1,128", which precedes "li r0,172; sc". Stepped at the
// addi (sp below the 128 bytes) and at the li (sp at the ucontext), the
// caller is the interrupted pc with the saved r1, r2 and lr.
func TestKernelSigtramp(t *testing.T) {
	const (
		code  = 0x7fff00000000
		stack = 0x7ffff0000000
		uc    = stack + 128
		gregs = uc + 168 + 64
	)
	le := binary.LittleEndian
	text := make([]byte, 16)
	le.PutUint32(text[0:], 0x4e800421)  // bctrl
	le.PutUint32(text[4:], 0x38210080)  // addi r1,r1,128
	le.PutUint32(text[8:], 0x380000ac)  // li r0,172
	le.PutUint32(text[12:], 0x44000002) // sc
	mem := make([]byte, 1024)
	le.PutUint64(mem[uc-stack+168+56:], gregs)
	put := func(slot int, v uint64) { le.PutUint64(mem[gregs-stack+uint64(slot)*8:], v) }
	put(1, 0x7ffff0004000) // r1
	put(2, 0x10028000)     // r2
	put(32, 0x10000abc)    // nip
	put(36, 0x10000def)    // link
	as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: code, Data: text}, {Addr: stack, Data: mem}}}
	for _, tc := range []struct {
		name   string
		pc, sp uint64
		exact  bool
	}{
		{"returned to the addi", code + 4, stack, false},
		{"at the li", code + 8, uc, true},
		{"in the sc", code + 12, uc, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			callee := unwind.NewFrame(ppc64.NumRegs)
			callee.Set(ppc64.PC, tc.pc, unwind.SaveLoc{})
			callee.Set(ppc64.SP, tc.sp, unwind.SaveLoc{})
			callee.ExactPC = tc.exact
			cache := unwind.NewCache(unwind.CacheGlobal)
			if !(ppc64.Arch{}).IsSignalFrame(as, cache, callee) {
				t.Fatal("not recognized as the signal trampoline")
			}
			caller := unwind.NewFrame(ppc64.NumRegs)
			if res, err := (ppc64.Arch{}).Step(as, cache, callee, caller); err != nil || res != unwind.StepCaller {
				t.Fatalf("step: %v, %v", res, err)
			}
			for _, w := range []struct {
				reg int
				v   uint64
			}{
				{ppc64.PC, 0x10000abc}, {ppc64.SP, 0x7ffff0004000}, {ppc64.TOC, 0x10028000}, {ppc64.LR, 0x10000def},
			} {
				if v, ok := caller.Get(w.reg); !ok || v != w.v {
					t.Errorf("%s = %#x (%v), want %#x", ppc64.RegName(uint64(w.reg)), v, ok, w.v)
				}
			}
			if !caller.ExactPC || caller.Trust != unwind.TrustContext {
				t.Errorf("caller exact %v trust %v, want an exact pc from the context", caller.ExactPC, caller.Trust)
			}
		})
	}
}
