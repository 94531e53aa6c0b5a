// Package stackscan holds what the arch packages' fallback unwinders
// (frame chains and stack scanning, for code without unwind info) share:
// whether an address is code, how far a frame may be, whether two
// addresses are in one procedure, and the bounded scan of the stack for a
// word an arch accepts as a return address.
package stackscan

import (
	"slices"

	"github.com/coreunwind/coreunwind/unwind"
)

// IsCode reports whether addr is in executable memory. Address spaces
// that cannot tell accept every readable address.
func IsCode(as unwind.AddrSpace, addr uint64) bool {
	if cc, ok := as.(unwind.CodeChecker); ok {
		return cc.IsCode(addr)
	}
	var b [1]byte
	return as.ReadMem(addr, b[:]) == nil
}

// MaxFrameSize bounds how far a frame (a frame record, a back chain
// link, a saved return address) may lie above the stack pointer before a
// chain is considered broken: 8 MiB, the default stack size limit.
const MaxFrameSize = 8 << 20

// SameProc reports whether a and b are known to lie in one procedure:
// a register's return address that does is stale (the return address of
// a call the procedure made earlier), not its caller.
func SameProc(as unwind.AddrSpace, a, b uint64) bool {
	na, oa, err1 := as.ProcName(a)
	nb, ob, err2 := as.ProcName(b)
	return err1 == nil && err2 == nil && na == nb && a-oa == b-ob
}

// InFunction reports whether addr is in a procedure with one of names:
// how the fallbacks recognize an entry point (_start, thread_start),
// above which a scan finds only stale return addresses.
func InFunction(as unwind.AddrSpace, addr uint64, names ...string) bool {
	name, _, err := as.ProcName(addr)
	return err == nil && slices.Contains(names, name)
}

// Words bounds a scan, as minidump-stackwalk's: how many words above the
// stack pointer are tried as return addresses.
const Words = 512

// Find returns the first pointer-sized word at or above sp (within
// Words) that accept turns into a return address, and the slot it was
// read from. The window shrinks where the stack ends before it.
func Find(as unwind.AddrSpace, sp uint64, accept func(word uint64) (ra uint64, ok bool)) (slot, ra uint64, found bool) {
	var buf [Words * 8]byte
	w := as.PtrSize()
	if w != 4 {
		w = 8
	}
	n := Words * w
	for n > 0 && as.ReadMem(sp, buf[:n]) != nil {
		n /= 2
	}
	order := as.ByteOrder()
	for i := 0; i+w <= n; i += w {
		word := uint64(order.Uint32(buf[i:]))
		if w == 8 {
			word = order.Uint64(buf[i:])
		}
		if ra, ok := accept(word); ok {
			return sp + uint64(i), ra, true
		}
	}
	return 0, 0, false
}

// LinkRegister describes, for StepLinkRegister, an arch whose calls
// leave the return address in a register: its register numbers, the
// general registers a frame shares with its caller when it has saved
// nothing (0 to NGPR-1), and the arch's test that the instruction
// before a return address links it.
type LinkRegister struct {
	LR, SP, PC, NGPR int
	AfterCall        func(as unwind.AddrSpace, ra uint64) bool
}

// StepLinkRegister finds the caller of an interrupted frame without CFI
// or a readable prologue (frame 0, or the frame a signal interrupted) in
// the link register: a leaf, or a call through a null or wild pointer
// (the pc is not code), has not saved it, and nothing else says where it
// returns. The return address must follow a call and not point back into
// the function the pc is in (the stale return address of an earlier
// call). The caller keeps the callee's general registers.
func StepLinkRegister(as unwind.AddrSpace, l LinkRegister, callee, caller *unwind.Frame) bool {
	ra, ok1 := callee.Get(l.LR)
	sp, ok2 := callee.Get(l.SP)
	if !ok1 || !ok2 || ra == 0 || !IsCode(as, ra) || !l.AfterCall(as, ra) {
		return false
	}
	if pc, _ := callee.Get(l.PC); IsCode(as, pc) && SameProc(as, pc, ra-4) {
		return false
	}
	for r := 0; r < l.NGPR; r++ {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(l.PC, ra, unwind.SaveLoc{Kind: unwind.LocReg, Reg: l.LR})
	caller.CFA, caller.HasCFA = sp, true
	caller.Trust = unwind.TrustScan
	return true
}
