package arm

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The sigreturn trampolines: "mov r7, #nr; svc" in ARM code (glibc's
// __default_sa_restorer, the kernel's and qemu's retcode) or "movs r7,
// #nr; svc" in Thumb code, with nr 119 (__NR_sigreturn) or 173
// (__NR_rt_sigreturn). The svc's immediate is ignored (the kernel's
// ARM retcode has the OABI number in it).
const (
	armMovR7   = 0xe3a07000 // mov r7, #imm8 (no rotation)
	thumbMovR7 = 0x2700     // movs r7, #imm8
	thumbSvc   = 0xdf00     // svc #imm8
	thumbMovW  = 0xf04f     // mov.w rd, #const (first halfword)
)

// sigreturnAt returns 119 or 173 when pc is a sigreturn trampoline's
// first instruction or its svc (a thread interrupted in the system
// call), else 0.
func sigreturnAt(as unwind.AddrSpace, pc uint64) int {
	order := as.ByteOrder()
	var b [8]byte                                // ARM: two words; Thumb-2: three halfwords
	for _, start := range []uint64{pc, pc - 4} { // ARM
		if start%4 == 0 && as.ReadMem(start, b[:]) == nil {
			mov, svc := order.Uint32(b[:]), order.Uint32(b[4:])
			if mov&0xffffff00 == armMovR7 && svc&0xff000000 == 0xef000000 {
				if nr := int(mov & 0xff); nr == 119 || nr == 173 {
					return nr
				}
			}
		}
	}
	for _, start := range []uint64{pc, pc - 2} { // Thumb: movs r7, #nr; svc
		if start%2 == 0 && as.ReadMem(start, b[:4]) == nil {
			mov, svc := thumbHalf(order, b[:]), thumbHalf(order, b[2:])
			if mov&0xff00 == thumbMovR7 && svc&0xff00 == thumbSvc {
				if nr := int(mov & 0xff); nr == 119 || nr == 173 {
					return nr
				}
			}
		}
	}
	// Thumb-2: "mov.w r7, #nr; svc 0", glibc's __default_sa_restorer and
	// __default_rt_sa_restorer on armhf.
	for _, start := range []uint64{pc, pc - 4} {
		if start%2 == 0 && as.ReadMem(start, b[:6]) == nil {
			hw1, hw2, svc := thumbHalf(order, b[:]), thumbHalf(order, b[2:]), thumbHalf(order, b[4:])
			if hw1 == thumbMovW && hw2&0xff00 == 0x0700 && svc&0xff00 == thumbSvc {
				if nr := int(hw2 & 0xff); nr == 119 || nr == 173 {
					return nr
				}
			}
		}
	}
	return 0
}

// thumbHalf reads a Thumb halfword (instructions are little-endian on
// ARMv7 even in big-endian data mode, BE8; a BE32 target stores them in
// its data order, which is what order gives for older cores too).
func thumbHalf(order binary.ByteOrder, b []byte) uint16 { return order.Uint16(b) }

// The kernel's signal frames (arch/arm/kernel/signal.c): struct
// sigframe is { struct ucontext uc; unsigned long retcode[4]; } and
// struct rt_sigframe is { struct siginfo info (128 bytes); struct
// sigframe sig; }. In struct ucontext, uc_mcontext (struct sigcontext,
// asm/sigcontext.h) follows uc_flags, uc_link and uc_stack (20 bytes);
// it holds trap_no, error_code, oldmask, then arm_r0..arm_r10, arm_fp,
// arm_ip, arm_sp, arm_lr, arm_pc, arm_cpsr. When the handler returns
// into the trampoline, sp is the frame's address.
const (
	ucRegsOff = 20 + 12 // r0 in struct ucontext
	siginfo   = 128
)

// stepSigreturn recovers the interrupted frame from the signal context:
// r0–r15 and cpsr, the pc exact.
func stepSigreturn(as unwind.AddrSpace, rt bool, callee, caller *unwind.Frame) error {
	sp, ok := callee.Get(SP)
	if !ok {
		return fmt.Errorf("signal frame: %w: sp", unwind.ErrNoReg)
	}
	base := sp + ucRegsOff
	if rt {
		base += siginfo
	}
	var buf [17 * 4]byte
	if err := as.ReadMem(base, buf[:]); err != nil {
		return fmt.Errorf("signal frame at %#x: %w", sp, err)
	}
	order := as.ByteOrder()
	for r := 0; r <= CPSR; r++ {
		caller.Set(r, uint64(order.Uint32(buf[r*4:])), unwind.SaveLoc{Kind: unwind.LocMem, Addr: base + uint64(r)*4})
	}
	callee.Signal = true
	caller.CFA, caller.HasCFA = sp, true
	caller.ExactPC = true
	caller.Trust = unwind.TrustContext
	return nil
}

// SiginfoAddr is the siginfo the kernel saved in signal frame f
// (unwind.SiginfoArch): struct rt_sigframe begins with it, at sp; the
// old-style struct sigframe has none.
func (Arch) SiginfoAddr(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) (uint64, bool) {
	pc, _ := f.Get(PC)
	if ruleFor(as, cache, f.LookupPC(PC), pc).kind != ruleRTSigreturn {
		return 0, false
	}
	return f.Get(SP)
}

// StepSignalHandler reads the SA_SIGINFO signal frame (struct
// rt_sigframe) of a signal handler whose CFA is cfa
// (unwind.SignalFrameArch). The handler FrameSignalHandler names on
// arm, Go's runtime.sigtramp, pushes r4–r11 with one MOVM its CFI does
// not count: its entry sp, where the frame is, is 32 bytes above its
// CFA (the siginfo pointer it saves for runtime.sigtrampgo says so).
func (Arch) StepSignalHandler(as unwind.AddrSpace, cfa uint64, caller *unwind.Frame) error {
	return stepSigreturn(as, true, unwind.TrampolineFrame(NumRegs, SP, cfa+goSigtrampPushed), caller)
}

// goSigtrampPushed is what runtime.sigtramp's "MOVM.DB.W [R4-R11], (R13)"
// pushes.
const goSigtrampPushed = 8 * 4
