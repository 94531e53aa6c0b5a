package x86_64

import "github.com/coreunwind/coreunwind/unwind"

// maxFrameSize bounds how far a frame pointer may lie above the stack
// pointer before the chain is considered broken (8 MiB: the default
// stack size limit).
const maxFrameSize = 8 << 20

// stepFramePointer follows the rbp chain: the caller's rip is at rbp+8,
// its rbp at rbp, its rsp just above them. It is used where there is no
// CFI, so everything is checked: rbp aligned and above rsp, the return
// address in code, the stack moving toward older frames.
func stepFramePointer(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	fp, ok1 := callee.Get(RBP)
	sp, ok2 := callee.Get(RSP)
	if !ok1 || !ok2 || fp == 0 || fp%8 != 0 || fp < sp || fp-sp > maxFrameSize {
		return false
	}
	var b [16]byte
	if as.ReadMem(fp, b[:]) != nil {
		return false
	}
	order := as.ByteOrder()
	savedFP, ra := order.Uint64(b[0:]), order.Uint64(b[8:])
	if ra == 0 || !isCode(as, ra) {
		return false
	}
	// The next frame pointer must lie in an older frame; anything else
	// is not a frame-pointer chain (or the end of one).
	chains := savedFP > fp && savedFP%8 == 0 && savedFP-fp <= maxFrameSize
	if !chains {
		savedFP = 0
	}
	// A frame record is believed when its return address follows a call,
	// or when the chain goes on plausibly: code that enters frames by
	// jumps (HotSpot's interpreter returns through addresses that follow
	// a jmp) still keeps the chain intact, and eu-stack follows it.
	if !chains && !afterCall(as, ra) {
		return false
	}
	caller.Set(RIP, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp + 8})
	caller.Set(RSP, fp+16, unwind.SaveLoc{Kind: unwind.LocValue})
	if savedFP != 0 {
		caller.Set(RBP, savedFP, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
	}
	for _, r := range []int{RBX, R12, R13, R14, R15} {
		if v, ok := callee.Get(r); ok {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.CFA, caller.HasCFA = fp+16, true
	caller.Trust = unwind.TrustFramePointer
	return true
}

// stepBadCall recovers the caller of a frame whose pc is not code: a
// call through a null or wild function pointer. The call pushed its
// return address and nothing ran since, so the caller's pc is at rsp and
// its registers are the callee's (gdb makes the same assumption). The
// frame pointer still belongs to the caller, so following it would skip
// the caller. The return address must follow a call instruction: a
// corrupted stack that "returned" into garbage gets no such frame.
func stepBadCall(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(RSP)
	if !ok {
		return false
	}
	ra, err := readWord(as, sp)
	if err != nil || !isCode(as, ra) || !afterCall(as, ra) {
		return false
	}
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && r != RIP && r != RSP {
			caller.Set(r, v, callee.Locs[r])
		}
	}
	caller.Set(RIP, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: sp})
	caller.Set(RSP, sp+8, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.CFA, caller.HasCFA = sp+8, true
	caller.Trust = unwind.TrustScan
	return true
}

// scanWords bounds the stack scan, as minidump-stackwalk's: how many
// words above the stack pointer are tried as return addresses.
const scanWords = 512

// stepScan looks for the first word above the stack pointer that points
// into code just after a call instruction, the way minidump-stackwalk
// recovers frames with no other information. At frame 0 the slot at rsp
// is tried as well (a crash right after a call or in a frameless leaf).
func stepScan(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(RSP)
	if !ok {
		return false
	}
	var buf [scanWords * 8]byte
	n := len(buf)
	for n > 0 && as.ReadMem(sp, buf[:n]) != nil {
		n /= 2 // the stack may end within the window
	}
	order := as.ByteOrder()
	for i := 0; i+8 <= n; i += 8 {
		ra := order.Uint64(buf[i:])
		if ra < 0x1000 || !isCode(as, ra) || !afterCall(as, ra) {
			continue
		}
		slot := sp + uint64(i)
		caller.Set(RIP, ra, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
		caller.Set(RSP, slot+8, unwind.SaveLoc{Kind: unwind.LocValue})
		// A frame-pointer prologue pushes rbp just below the return
		// address: if the callee's rbp points at that slot, recover it.
		if fp, ok := callee.Get(RBP); ok && fp == slot-8 {
			if v, err := readWord(as, fp); err == nil {
				caller.Set(RBP, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: fp})
			}
		} else if ok {
			caller.Set(RBP, fp, callee.Locs[RBP])
		}
		caller.CFA, caller.HasCFA = slot+8, true
		caller.Trust = unwind.TrustScan
		return true
	}
	return false
}

// afterCall reports whether the bytes before ra end with a call
// instruction: call rel32 (e8), or an indirect call (ff /2) through a
// register or memory operand in any of its encodings up to 8 bytes
// (with an optional REX prefix).
func afterCall(as unwind.AddrSpace, ra uint64) bool {
	var b [8]byte
	if ra < 8 || as.ReadMem(ra-8, b[:]) != nil {
		return false
	}
	if b[3] == 0xe8 { // e8 rel32: 5 bytes
		return true
	}
	// ff /2 with ModRM at b[k+1]; the instruction length decides where
	// the ModRM byte must sit.
	for k := 0; k <= 6; k++ {
		if b[k] != 0xff {
			continue
		}
		modrm := b[k+1]
		if modrm&0x38 != 0x10 {
			continue
		}
		if callLen(modrm, b[k+2:]) == 8-k {
			return true
		}
	}
	return false
}

// callLen is the length of "ff /2" with the given ModRM and following
// bytes (rest starts at the SIB byte, if any).
func callLen(modrm byte, rest []byte) int {
	mod, rm := modrm>>6, modrm&7
	n := 2
	if mod != 3 && rm == 4 { // SIB
		n++
		if mod == 0 && len(rest) > 0 && rest[0]&7 == 5 {
			n += 4
		}
	}
	switch mod {
	case 0:
		if rm == 5 {
			n += 4 // rip-relative
		}
	case 1:
		n++
	case 2:
		n += 4
	}
	return n
}
