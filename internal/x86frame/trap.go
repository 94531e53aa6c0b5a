package x86frame

import "github.com/coreunwind/coreunwind/unwind"

// x86 exception vectors (the sigcontext's trapno) and the page-fault
// error code's protection bit.
const (
	trapDivide     = 0  // #DE
	trapInvalidOp  = 6  // #UD
	trapGeneral    = 13 // #GP
	trapPageFault  = 14 // #PF
	trapAlignCheck = 17 // #AC
	pfProtection   = 1
)

// Linux signal numbers and si_codes the kernel sends for them
// (arch/x86/kernel/traps.c, arch/x86/mm/fault.c).
const (
	sigILL, sigBUS, sigFPE, sigSEGV = 4, 7, 8, 11
	segvMapErr, segvAccErr          = 1, 2
	illIllOpn, fpeIntDiv, busAdrAln = 2, 1, 1
	siKernel                        = 0x80
)

// TrapSignal maps the exception a signal context records (trapno, the
// error code, cr2, the interrupted ip) to the signal the kernel sent for
// it; ok false for vectors that are not a fault of the instruction.
func TrapSignal(trapno, errCode, cr2, ip uint64) (unwind.SavedTrap, bool) {
	switch trapno {
	case trapPageFault:
		code := segvMapErr
		if errCode&pfProtection != 0 {
			code = segvAccErr
		}
		return unwind.SavedTrap{Signal: sigSEGV, Code: code, Addr: cr2}, true
	case trapGeneral:
		return unwind.SavedTrap{Signal: sigSEGV, Code: siKernel}, true
	case trapDivide:
		return unwind.SavedTrap{Signal: sigFPE, Code: fpeIntDiv, Addr: ip}, true
	case trapInvalidOp:
		return unwind.SavedTrap{Signal: sigILL, Code: illIllOpn, Addr: ip}, true
	case trapAlignCheck:
		return unwind.SavedTrap{Signal: sigBUS, Code: busAdrAln}, true
	}
	return unwind.SavedTrap{}, false
}
