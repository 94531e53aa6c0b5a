package ia64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// preserved lists the frame registers a caller keeps unless the callee's
// unwind state says where they were saved: r1 (gp, same within a
// module), r4..r7, r13 (thread pointer), b1..b5, the preserved FRs and
// application registers.
var preserved = func() []int {
	p := []int{1, 4, 5, 6, 7, 13, PR, UNAT, LC, FPSR, RNAT, BSPSTORE, PRIUNAT}
	for b := 1; b <= 5; b++ {
		p = append(p, BR0+b)
	}
	for i := 0; i < 20; i++ {
		p = append(p, FR2+i)
	}
	return p
}()

// Step finds callee's caller from the unwind state at callee's ip: the
// return pointer gives the caller's ip, the saved ar.pfs its frame
// marker, psp its sp, and the caller's register frame ends where the
// callee's begins, sol registers lower in the backing store.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	ip, ok := callee.Get(IP)
	if !ok || ip == 0 {
		return unwind.StepEnd, nil
	}
	s, _, err := scriptFor(as, cache, callee)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("ip %#x: %w", ip, err)
	}
	if s.isSigtramp() {
		return stepSigtramp(as, callee, caller)
	}
	if s.isHPUXSigtramp() {
		return stepHPUXSigtramp(as, callee, caller)
	}
	return stepScript(as, s, callee, caller)
}

// stepScript applies a script: frame state first, then the registers.
func stepScript(as unwind.AddrSpace, s *script, f, c *unwind.Frame) (unwind.StepResult, error) {
	sp, ok := f.Get(SP)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("sp: %w", unwind.ErrNoReg)
	}
	bsp, ok := f.Get(BSP)
	if !ok {
		return unwind.StepEnd, fmt.Errorf("bsp: %w", unwind.ErrNoReg)
	}
	r := reader{as: as, f: f, sp: sp, psp: sp}
	psp := sp + uint64(s.pspAdd)
	pspLoc := unwind.SaveLoc{Kind: unwind.LocValue}
	if s.pspLoc.where != whereNone {
		v, l, err := r.read(s.pspLoc)
		if err != nil {
			return unwind.StepEnd, fmt.Errorf("saved sp: %w", err)
		}
		psp, pspLoc = v, l
	}
	r.psp = psp

	rp, rpLoc, err := r.read(s.rp)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("return pointer: %w", err)
	}
	var pfs uint64
	pfsLoc := unwind.SaveLoc{Kind: unwind.LocReg, Reg: PFS}
	if s.pfs.where != whereNone {
		pfs, pfsLoc, err = r.read(s.pfs)
	} else if v, ok := f.Get(PFS); ok {
		pfs = v
	} else {
		err = unwind.ErrNoReg
	}
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("ar.pfs: %w", err)
	}
	if rp == 0 {
		// A zero return link ends the chain (_start clears b0).
		return unwind.StepEnd, nil
	}
	if rp&0xc != 0 {
		return unwind.StepEnd, fmt.Errorf("return pointer %#x is not a bundle slot: %w", rp, unwind.ErrBadFrame)
	}
	base := bsp
	if s.bsp.where != whereNone {
		// The procedure switched backing stores: the caller's frame
		// ends at the saved ar.bsp.
		if v, _, err := r.read(s.bsp); err == nil {
			base = v
		}
	}
	cfm := pfs & cfmMask

	c.Reset()
	for _, reg := range preserved {
		if v, ok := f.Get(reg); ok {
			c.Set(reg, v, unwind.SaveLoc{Kind: unwind.LocSame})
		}
	}
	c.Set(IP, rp, rpLoc)
	c.Set(SP, psp, pspLoc)
	c.Set(CFM, cfm, pfsLoc)
	c.Set(EC, pfs>>52&0x3f, pfsLoc)
	c.Set(BSP, RSESkipRegs(base, -cfmSOL(cfm)), unwind.SaveLoc{Kind: unwind.LocValue})
	for _, rl := range s.regs {
		v, l, err := r.read(rl.l)
		if err != nil {
			// The value is lost, not the frame: mark it unknown.
			c.Valid[rl.dst] = false
			continue
		}
		c.Set(rl.dst, v, l)
	}
	c.CFA, c.HasCFA = psp, true
	c.Trust = unwind.TrustUnwindTable
	if s.dynamic {
		c.Trust = unwind.TrustDynamic
	}
	fillStacked(as, c)
	return unwind.StepCaller, nil
}

// fillStacked reads frame c's stacked registers r32..r32+sof-1 from the
// backing store, where the core's RSE flush left them.
func fillStacked(as unwind.AddrSpace, c *unwind.Frame) { fillStackedN(as, c, -1) }

// fillStackedN reads the first n stacked registers (n < 0: sof of them).
func fillStackedN(as unwind.AddrSpace, c *unwind.Frame, n int64) {
	bsp, ok1 := c.Get(BSP)
	cfm, ok2 := c.Get(CFM)
	if !ok1 || !ok2 {
		return
	}
	if n < 0 || n > cfmSOF(cfm) {
		n = cfmSOF(cfm)
	}
	for i := int64(0); i < n && 32+i < 128; i++ {
		a := RSESkipRegs(bsp, i)
		if v, err := readWord(as, a); err == nil {
			c.Set(int(32+i), v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: a})
		}
	}
}

// reader resolves save locations against the frame being unwound.
type reader struct {
	as      unwind.AddrSpace
	f       *unwind.Frame
	sp, psp uint64
}

func (r *reader) read(l loc) (uint64, unwind.SaveLoc, error) {
	switch l.where {
	case whereGR:
		n := int(l.val)
		if n == 0 {
			return 0, unwind.SaveLoc{Kind: unwind.LocValue}, nil
		}
		if n < 32 {
			v, ok := r.f.Get(n)
			if !ok {
				return 0, unwind.SaveLoc{}, fmt.Errorf("r%d: %w", n, unwind.ErrNoReg)
			}
			return v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: n}, nil
		}
		// Stacked registers are physical numbers of the frame: their
		// home is the backing store.
		bsp, ok := r.f.Get(BSP)
		if !ok || n >= 128 {
			return 0, unwind.SaveLoc{}, fmt.Errorf("r%d: %w", n, unwind.ErrNoReg)
		}
		a := RSESkipRegs(bsp, int64(n-32))
		v, err := readWord(r.as, a)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: a}, err
	case whereBR:
		n := BR0 + int(l.val&7)
		v, ok := r.f.Get(n)
		if !ok {
			return 0, unwind.SaveLoc{}, fmt.Errorf("b%d: %w", l.val&7, unwind.ErrNoReg)
		}
		return v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: n}, nil
	case whereFR:
		n := FRReg(int(l.val))
		v, ok := r.f.Get(n)
		if n < 0 || !ok {
			return 0, unwind.SaveLoc{}, fmt.Errorf("f%d: %w", l.val, unwind.ErrNoReg)
		}
		return v, unwind.SaveLoc{Kind: unwind.LocReg, Reg: n}, nil
	case whereSPRel, wherePSPRel:
		a := r.sp + uint64(l.val)
		if l.where == wherePSPRel {
			a = r.psp + uint64(l.val)
		}
		v, err := readWord(r.as, a)
		return v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: a}, err
	}
	return 0, unwind.SaveLoc{}, fmt.Errorf("no save location: %w", unwind.ErrNoReg)
}

// readWord reads a 64-bit word in the target's byte order.
func readWord(as unwind.AddrSpace, addr uint64) (uint64, error) {
	var b [8]byte
	if err := as.ReadMem(addr, b[:]); err != nil {
		return 0, err
	}
	return as.ByteOrder().Uint64(b[:]), nil
}

// IsSignalFrame reports whether f is a signal trampoline: its unwind
// info carries the Linux or the HP-UX sigtramp ABI marker.
func (Arch) IsSignalFrame(as unwind.AddrSpace, cache *unwind.Cache, f *unwind.Frame) bool {
	s, _, err := scriptFor(as, cache, f)
	return err == nil && (s.isSigtramp() || s.isHPUXSigtramp())
}
