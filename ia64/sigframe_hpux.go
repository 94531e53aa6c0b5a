package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// HP-UX signal trampolines carry the unwind ABI marker P10 abi=1
// (@hpux), context=1 (libunwind's ABI_MARKER_HP_UX_SIGTRAMP). The
// trampoline's stacked r32 points at the ucontext_t the kernel saved,
// and every register of the interrupted frame comes from it (libunwind's
// hpux_sigtramp reads ip, cfm, sp, bsp, bspstore, rnat, pfs, unat, pr,
// lc, fpsr, b1-b5 and the preserved GRs and FRs through HP's __uc_get_*
// accessors).
//
// HP does not publish the ucontext_t layout either: coreunwind assumes
// the interrupted thread's save area, in the layout of the core's
// (hpuxregs.go), at hpuxUCSaveState in the ucontext, after uc_link,
// the signal mask and the signal stack.
const hpuxUCSaveState = 0x40

func (s *script) isHPUXSigtramp() bool { return s.abi == abiHPUXSigtramp }

// stepHPUXSigtramp recovers the interrupted frame from the ucontext the
// trampoline's r32 points at.
func stepHPUXSigtramp(as unwind.AddrSpace, f, c *unwind.Frame) (unwind.StepResult, error) {
	uc, ok := f.Get(32)
	if !ok {
		bsp, ok := f.Get(BSP)
		if !ok {
			return unwind.StepEnd, fmt.Errorf("HP-UX sigtramp: r32: %w", unwind.ErrNoReg)
		}
		var err error
		if uc, err = readWord(as, bsp); err != nil {
			return unwind.StepEnd, fmt.Errorf("HP-UX sigtramp: ucontext pointer at %#x: %w", bsp, err)
		}
	}
	at := uc + hpuxUCSaveState
	buf := make([]byte, HPUXSaveStateSize)
	if err := as.ReadMem(at, buf); err != nil {
		// The FRs may be cut off; the rest is enough to go on.
		buf = buf[:HPUXSaveStateMin]
		if err := as.ReadMem(at, buf); err != nil {
			return unwind.StepEnd, fmt.Errorf("HP-UX sigtramp: ucontext at %#x: %w", uc, err)
		}
	}
	st, err := decodeHPUXSaveStateAt(buf, as.ByteOrder(), &at)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("HP-UX sigtramp: ucontext at %#x: %w", uc, err)
	}
	c.Reset()
	c.CopyFrom(st.frame)
	sp, _ := c.Get(SP)
	c.CFA, c.HasCFA = sp, true
	c.Trust = unwind.TrustContext
	c.ExactPC = true
	n := int64(-1)
	if st.inSyscall {
		cfm, _ := c.Get(CFM)
		n = cfmSOL(cfm)
	}
	fillStackedN(as, c, n)
	return unwind.StepCaller, nil
}
