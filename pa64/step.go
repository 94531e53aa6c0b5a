package pa64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Step finds callee's caller. The order: a Linux signal trampoline (by
// its code), an HP-UX interrupt marker, the unwind table entry with the
// prologue scan, and for a pc without an entry the leaf rule (caller pc
// in rp, sp unchanged) — only trustworthy for the innermost frame, or
// for the gateway page where a thread sits in a system call and r31 is
// the return point.
func (a Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(PC)
	sp, ok := callee.Get(SP)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("pc %#x: %w: sp", pc, unwind.ErrNoReg)
	}
	if sc, ok := a.linuxSigcontext(as, callee); ok {
		if err := a.stepSigcontext(as, sc, callee, caller); err != nil {
			return unwind.StepEnd, err
		}
		return unwind.StepCaller, nil
	}
	if res, ok, err := a.stepDynamic(as, cache, callee, caller); ok {
		return res, err // registered dynamic info (dynamic.go)
	}
	r := a.ruleFor(as, cache, callee.LookupPC(PC), pc)
	switch {
	case r.entry != nil && r.entry.Desc.HPUXInterruptMarker():
		if err := a.stepHPUXInterrupt(as, sp, caller); err != nil {
			return unwind.StepEnd, err
		}
		return unwind.StepCaller, nil
	case r.entry != nil:
		return a.stepTable(as, r, callee, caller)
	case pc < gatewayPageEnd && callee.ExactPC:
		// In the kernel's gateway page: a system call made with
		// be,l 0x100(%sr2,%r0),%sr0,%r31 returns to r31.
		return a.stepLink(callee, caller, R31)
	case callee.ExactPC || callee.Trust == unwind.TrustContext:
		// A pc with no entry is a leaf that has not touched rp or sp.
		return a.stepLink(callee, caller, RP)
	case isEntryPoint(as, callee.LookupPC(PC)):
		// crt1's _start has no unwind entry and no caller.
		return unwind.StepEnd, nil
	}
	return unwind.StepEnd, fmt.Errorf("pc %#x: %w (no .PARISC.unwind entry, and rp is not known above the innermost frame)", pc, r.errOr(unwind.ErrNoInfo))
}

// gatewayPageEnd bounds the Linux gateway page at address 0, where a
// thread in a system call is stopped.
const gatewayPageEnd = 0x1000

// stepLink: the caller returns to the address in link (rp or r31) and
// shares the callee's sp.
func (a Arch) stepLink(callee, caller *unwind.Frame, link int) (unwind.StepResult, error) {
	ra, ok := callee.Get(link)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("%w: %s", unwind.ErrNoReg, RegName(link))
	}
	a.inherit(callee, caller)
	sp, _ := callee.Get(SP)
	caller.Set(SP, sp, unwind.SaveLoc{Kind: unwind.LocSame})
	caller.Set(PC, ra&privMask, unwind.SaveLoc{Kind: unwind.LocReg, Reg: link})
	caller.Trust = unwind.TrustUnwindTable
	return unwind.StepCaller, nil
}

// inherit copies the registers a call preserves from callee to caller.
func (a Arch) inherit(callee, caller *unwind.Frame) {
	for r := 0; r < NumRegs; r++ {
		if v, ok := callee.Get(r); ok && calleeSaved(r) {
			caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocSame})
		}
	}
}

// stepTable applies the table entry and the prologue scan.
func (a Arch) stepTable(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	pc, _ := callee.Get(PC)
	sp, _ := callee.Get(SP)
	d := r.entry.Desc
	p := r.prologue
	base := sp - uint64(p.size)
	if r3, ok := callee.Get(R3); ok && r3 != 0 && p.fpCopied && (d.SaveSP() || d.PseudoSPSet() || d.LargeFrame()) {
		// A frame-pointer frame (alloca, variable or large frames):
		// r3 holds the entry sp once the prologue copied it there.
		base = r3
		if d.PseudoSPSet() && !d.SaveSP() {
			base = r3 - d.FrameBytes()
		}
	}
	a.inherit(callee, caller)
	for reg, off := range p.saves {
		addr := base + uint64(off)
		v, err := a.readWord(as, addr)
		if err != nil {
			continue
		}
		caller.Set(reg, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr})
	}
	for reg, slot := range p.fsaves {
		a.restoreFR(as, callee, caller, reg, base+uint64(slot.off), slot.half)
	}
	var ra uint64
	var loc unwind.SaveLoc
	switch {
	case d.Millicode() && p.mrpSaved:
		// Save_MRP_in_frame: r31 was stored in the frame before the
		// routine reused it (gdb uses the slot whenever the scan found it).
		addr := base + uint64(p.mrpOff)
		v, err := a.readWord(as, addr)
		if err != nil {
			return unwind.StepEnd, fmt.Errorf("millicode at %#x: mrp saved at %#x: %w", pc, addr, err)
		}
		ra, loc = v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}
		if v, ok := callee.Get(RP); ok {
			caller.Set(RP, v, unwind.SaveLoc{Kind: unwind.LocSame})
		}
	case d.Millicode():
		mrp := a.millicodeReturnReg()
		v, ok := callee.Get(mrp)
		if !ok {
			return unwind.StepEnd, fmt.Errorf("millicode at %#x: %w: %s", pc, unwind.ErrNoReg, RegName(mrp))
		}
		ra, loc = v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: mrp}
		// 32-bit millicode keeps rp; the caller may still need it.
		if v, ok := callee.Get(RP); ok && mrp != RP {
			caller.Set(RP, v, unwind.SaveLoc{Kind: unwind.LocSame})
		}
	case p.rpSaved:
		addr := base + uint64(p.rpOff)
		v, err := a.readWord(as, addr)
		if err != nil {
			return unwind.StepEnd, fmt.Errorf("pc %#x: rp saved at %#x: %w", pc, addr, err)
		}
		ra, loc = v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}
	default:
		v, ok := callee.Get(RP)
		if !ok {
			return unwind.StepEnd, fmt.Errorf("pc %#x: %w: rp (not saved by the prologue)", pc, unwind.ErrNoReg)
		}
		ra, loc = v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: RP}
	}
	if ra&privMask == 0 {
		return unwind.StepEnd, nil
	}
	caller.Set(SP, base, unwind.SaveLoc{Kind: unwind.LocValue})
	caller.Set(PC, ra&privMask, loc)
	caller.CFA, caller.HasCFA = base, false
	caller.Trust = unwind.TrustUnwindTable
	return unwind.StepCaller, nil
}

// restoreFR sets the caller's floating-point register reg from its save
// slot at addr: all 64 bits, or one 32-bit half with the other half as
// the callee has it (a single-precision save leaves that half alone).
func (a Arch) restoreFR(as unwind.AddrSpace, callee, caller *unwind.Frame, reg int, addr uint64, half frHalf) {
	order := as.ByteOrder()
	if half == frWhole {
		var b [8]byte
		if as.ReadMem(addr, b[:]) == nil {
			caller.Set(reg, order.Uint64(b[:]), unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr})
		}
		return
	}
	var b [4]byte
	if as.ReadMem(addr, b[:]) != nil {
		return
	}
	cur, ok := callee.Get(reg)
	if !ok {
		return // the other half is unknown: leave the register unknown
	}
	w := uint64(order.Uint32(b[:]))
	if half == frLeft {
		cur = cur&0xffffffff | w<<32
	} else {
		cur = cur&^0xffffffff | w
	}
	caller.Set(reg, cur, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr})
}

// millicodeReturnReg is the millicode return pointer (MRP): r31 in 32-bit
// code (b,l $$divU,%r31; the routine returns with bv 0(%r31)), rp in PA
// 2.0W code, where gcc calls millicode with b,l $$divU,%rp and libgcc's
// 64-bit millicode returns with bv,n 0(%rp) (seen in hppa64 libgcc 12).
func (a Arch) millicodeReturnReg() int {
	if a.wide {
		return RP
	}
	return R31
}
