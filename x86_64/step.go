package x86_64

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/cfirow"
)

// stepCFI applies a CFI rule: its compact form, or the full row.
func stepCFI(as unwind.AddrSpace, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	if r.full != nil {
		return stepFull(as, r.full, r, callee, caller)
	}
	cs, ok1 := regFile(callee)
	ps, ok2 := regFile(caller)
	if !ok1 || !ok2 {
		return unwind.StepEnd, fmt.Errorf("%w: frames of %d and %d registers, want %d", unwind.ErrBadFrame, len(callee.Regs), len(caller.Regs), NumRegs)
	}
	if !cs.valid[r.cfaReg] {
		return unwind.StepEnd, fmt.Errorf("CFA base %s: %w", RegName(uint64(r.cfaReg)), unwind.ErrNoReg)
	}
	cfa := uint64(int64(cs.regs[r.cfaReg]) + int64(r.cfaOff))
	m := slotReader{as: as, buf: caller.Scratch()}
	m.fill(uint64(int64(cfa)+int64(r.lo)), int(r.span))
	for i := range savedRegs { // not range over the array: that copies it
		reg := savedRegs[i]
		if r.saved&(1<<i) == 0 {
			if cs.valid[reg] {
				ps.regs[reg], ps.valid[reg], ps.locs[reg] = cs.regs[reg], true, cs.locs[reg]
			}
			continue
		}
		addr := uint64(int64(cfa) + int64(r.slot[i]))
		if v, err := m.word(addr); err == nil {
			ps.regs[reg], ps.valid[reg], ps.locs[reg] = v, true, unwind.SaveLoc{Kind: unwind.LocMem, Addr: addr}
		} // a lost callee-saved register does not stop the walk
	}
	raAddr := uint64(int64(cfa) + int64(r.raOff))
	ra, err := m.word(raAddr)
	if err != nil {
		return unwind.StepEnd, fmt.Errorf("return address: %w", err)
	}
	ps.regs[RIP], ps.valid[RIP], ps.locs[RIP] = ra, true, unwind.SaveLoc{Kind: unwind.LocMem, Addr: raAddr}
	ps.regs[RSP], ps.valid[RSP], ps.locs[RSP] = cfa, true, unwind.SaveLoc{Kind: unwind.LocValue}
	finishCFI(r, cfa, caller)
	return unwind.StepCaller, nil
}

// regs is a frame's register file as arrays: indexing them needs no
// check of three slice lengths per register.
type regs struct {
	regs  *[NumRegs]uint64
	valid *[NumRegs]bool
	locs  *[NumRegs]unwind.SaveLoc
}

// regFile returns f's register file; ok is false when f does not have
// NumRegs registers (the Arch contract says it does).
func regFile(f *unwind.Frame) (r regs, ok bool) {
	if len(f.Regs) != NumRegs || len(f.Valid) != NumRegs || len(f.Locs) != NumRegs {
		return r, false
	}
	return regs{(*[NumRegs]uint64)(f.Regs), (*[NumRegs]bool)(f.Valid), (*[NumRegs]unwind.SaveLoc)(f.Locs)}, true
}

// cfiRegs is what CFI leaves to the x86-64 psABI: the callee-saved
// registers keep their values where the row says nothing.
var cfiRegs = cfirow.Regs{N: NumRegs, SP: RSP, Word: 8, Name: RegName,
	Preserved: func(r int) bool { return r < len(calleeSaved) && calleeSaved[r] }}

// stepFull applies a whole CFI row (unwind/cfirow: the CFA, then every
// register's rule; an undefined return address marks the outermost
// frame, _start or clone): the rare rows the compact form cannot hold.
func stepFull(as unwind.AddrSpace, f *fullRule, r *rule, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	res, err := cfirow.Step(as, &f.row, f.raCol, cfiRegs, RIP, callee, caller)
	if err != nil || res != unwind.StepCaller {
		return res, err
	}
	finishCFI(r, caller.CFA, caller)
	return res, nil
}

// finishCFI records what every CFI step says of the caller frame: its
// CFA and trust, which a rule from dynamic unwind info names itself.
func finishCFI(r *rule, cfa uint64, caller *unwind.Frame) {
	cfirow.SetCaller(caller, cfa, r.signal)
	if r.trust != unwind.TrustNone && !r.signal {
		caller.Trust = r.trust
	}
}

// slotReader reads the words a step needs into the caller frame's
// scratch buffer (a local buffer would escape through the AddrSpace
// interface: an allocation per read). fill reads a block of save slots at
// once; word serves from it, or reads one word when the block is not
// there. Words are little-endian, as x86-64 is, not in the address
// space's ByteOrder: comparing interfaces per word costs more than the
// rest of the read.
type slotReader struct {
	as   unwind.AddrSpace
	buf  []byte
	base uint64 // target address of buf[0] when n > 0
	n    int    // bytes of buf holding target memory from base
}

// fill reads n bytes at addr into the buffer, if they fit and are all
// readable; otherwise word reads word by word (one unreadable slot must
// not lose the others).
func (m *slotReader) fill(addr uint64, n int) {
	m.n = 0
	if n <= len(m.buf) && m.as.ReadMem(addr, m.buf[:n]) == nil {
		m.base, m.n = addr, n
	}
}

// word returns the target word at addr.
func (m *slotReader) word(addr uint64) (uint64, error) {
	d := addr - m.base
	if m.n < 8 || d > uint64(m.n-8) {
		m.n, d = 0, 0 // the block is overwritten
		if err := m.as.ReadMem(addr, m.buf[:8]); err != nil {
			return 0, err
		}
	}
	return binary.LittleEndian.Uint64(m.buf[d:]), nil
}
