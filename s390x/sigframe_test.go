package s390x_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/s390x"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// frameOffsetsSrc has gcc lay out, for 31-bit code, the signal frames as
// user space sees them (<ucontext.h>, <asm/sigcontext.h>; the rt frame as
// strace declares it: the save area, the svc, siginfo, the ucontext).
const frameOffsetsSrc = `
#include <signal.h>
#include <ucontext.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/sigcontext.h>
typedef struct { uint8_t s[96]; uint16_t svc; siginfo_t info; ucontext_t uc; } rt_sigframe;
const unsigned long offsets[] = {
	offsetof(rt_sigframe, uc.uc_mcontext.psw.addr),
	offsetof(rt_sigframe, uc.uc_mcontext.gregs),
	96 + offsetof(struct sigcontext, sregs),
	offsetof(_sigregs, regs.psw.addr),
	offsetof(_sigregs, regs.gprs),
};
`

// frameOffsets31 compiles frameOffsetsSrc with -m31 -S and reads the
// offsets from the assembly.
func frameOffsets31(t *testing.T) (rtPSWAddr, rtGPRs, sigSregs, srPSWAddr, srGPRs uint64) {
	dir := t.TempDir()
	src, out := filepath.Join(dir, "off.c"), filepath.Join(dir, "off.s")
	if err := os.WriteFile(src, []byte(frameOffsetsSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Build(t, testenv.S390X.CC(), "-m31", "-S", "-o", out, src)
	asm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`offsets:\s+\.long\s+(\d+)\s+\.long\s+(\d+)\s+\.long\s+(\d+)\s+\.long\s+(\d+)\s+\.long\s+(\d+)`).FindSubmatch(asm)
	if m == nil {
		t.Fatalf("no offsets in gcc's assembly:\n%s", asm)
	}
	var v [5]uint64
	for i := range v {
		v[i], _ = strconv.ParseUint(string(m[i+1]), 10, 64)
	}
	return v[0], v[1], v[2], v[3], v[4]
}

// TestSignalFrames31: the 31-bit trampolines' frames, laid out where gcc
// puts the fields for 31-bit code (qemu-s390x cannot run 31-bit
// programs, so no core of one is at hand): "svc 173" with the ucontext's
// mcontext after the save area, the svc and siginfo; "svc 119" with the
// sigcontext's pointer to its _sigregs. The caller is the interrupted
// frame: its pc from the PSW address without the address-mode bit, r14
// and r15 from the saved registers.
func TestSignalFrames31(t *testing.T) {
	rtPSWAddr, rtGPRs, sigSregs, srPSWAddr, srGPRs := frameOffsets31(t)
	arch, err := unwind.LookupArch("s390")
	if err != nil {
		t.Fatal(err)
	}
	const (
		stack   = 0x7fd00000
		code    = 0x00400000
		sigregs = stack + 0x400
		pc      = 0x00400abc
		r14     = 0x80400def
		r15     = 0x7fd01000
	)
	be := binary.BigEndian
	for _, tc := range []struct {
		name      string
		svc       uint16
		addr, gpr uint64 // where the PSW address and r0 are
	}{
		{"rt_sigreturn", 0x0aad, stack + rtPSWAddr, stack + rtGPRs},
		{"sigreturn", 0x0a77, sigregs + srPSWAddr, sigregs + srGPRs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := make([]byte, 0x800)
			be.PutUint32(mem[sigSregs:], sigregs)
			be.PutUint32(mem[tc.addr-stack:], 0x80000000|pc)
			be.PutUint32(mem[tc.gpr-stack+14*4:], r14)
			be.PutUint32(mem[tc.gpr-stack+15*4:], r15)
			text := make([]byte, 2)
			be.PutUint16(text, tc.svc)
			as := &unwindtest.Space{Order: be, Ptr: 4, Mem: []unwindtest.Region{{Addr: code, Data: text}, {Addr: stack, Data: mem}}}
			callee := unwind.NewFrame(s390x.NumRegs)
			callee.Set(s390x.PC, code, unwind.SaveLoc{})
			callee.Set(s390x.SP, stack, unwind.SaveLoc{})
			cache := unwind.NewCache(unwind.CacheGlobal)
			if !arch.IsSignalFrame(as, cache, callee) {
				t.Fatal("not recognized as a signal trampoline")
			}
			caller := unwind.NewFrame(s390x.NumRegs)
			if res, err := arch.Step(as, cache, callee, caller); err != nil || res != unwind.StepCaller {
				t.Fatalf("step: %v, %v", res, err)
			}
			for _, w := range []struct {
				reg int
				v   uint64
			}{{s390x.PC, pc}, {s390x.R14, r14}, {s390x.SP, r15}} {
				if v, ok := caller.Get(w.reg); !ok || v != w.v {
					t.Errorf("%s = %#x (%v), want %#x", s390x.RegName(uint64(w.reg)), v, ok, w.v)
				}
			}
			if !caller.ExactPC || caller.Trust != unwind.TrustContext {
				t.Errorf("caller exact %v trust %v, want an exact pc from the context", caller.ExactPC, caller.Trust)
			}
		})
	}
}
