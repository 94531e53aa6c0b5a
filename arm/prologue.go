package arm

import (
	"math/bits"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/stackscan"
)

// maxPrologueInsns bounds how many instructions of a function's start are
// decoded.
const maxPrologueInsns = 32

// prologue is what a function's first instructions did to the stack: the
// registers pushed (bit n: rn, stored ascending from the lowest address)
// and the bytes allocated below them (sub sp, vpush).
type prologue struct {
	push  uint16
	below uint64
}

// readPrologue decodes the prologue of the function containing pc (its
// start from the symbol table), in the instruction set thumb says, as
// gdb's prologue analyzer does for code without unwind info (the code
// ld marks EXIDX_CANTUNWIND because it was compiled without tables, most
// of Debian's armhf libc): pushes of core registers (push, push.w,
// str lr, [sp, #-4]!), vpush, and sub sp. It stops at a branch, at pc,
// or after maxPrologueInsns; other instructions are stepped over. ok is
// false when no push of lr was seen.
func readPrologue(as unwind.AddrSpace, pc uint64, thumb bool) (p prologue, ok bool) {
	_, off, err := as.ProcName(pc)
	if err != nil || off > pc || off > 1<<20 {
		return p, false
	}
	start := (pc - off) &^ 1
	order := as.ByteOrder()
	var b [4]byte
	for a, n := start, 0; a < pc && n < maxPrologueInsns; n++ {
		if as.ReadMem(a, b[:]) != nil {
			return p, false
		}
		if !thumb {
			insn := order.Uint32(b[:])
			a += 4
			switch {
			case insn&0xffff0000 == 0xe92d0000: // push {mask}
				p.push |= uint16(insn)
				p.below = 0
			case insn == 0xe52de004: // str lr, [sp, #-4]!
				p.push |= 1 << LR
			case insn&0xfffff000 == 0xe24dd000: // sub sp, sp, #imm
				rot := (insn >> 8 & 0xf) * 2
				p.below += uint64(bits.RotateLeft32(insn&0xff, -int(rot)))
			case insn&0xffbf0f00 == 0xed2d0b00: // vpush {d..}
				p.below += uint64(insn&0xff) * 4
			case insn&0x0e000000 == 0x0a000000 || insn&0x0ffffff0 == 0x012fff10 || insn&0x0ffffff0 == 0x012fff30:
				return p, p.push&(1<<LR) != 0 // b, bl, bx, blx
			}
			continue
		}
		hw1, hw2 := order.Uint16(b[:]), order.Uint16(b[2:])
		if hw1&0xe000 == 0xe000 && hw1&0x1800 != 0 { // a 32-bit instruction
			a += 4
			switch {
			case hw1 == 0xe92d: // push.w {mask}
				p.push |= hw2
			case hw1 == 0xf84d && hw2 == 0xed04: // str.w lr, [sp, #-4]!
				p.push |= 1 << LR
			case hw1&0xfbef == 0xf1ad && hw2&0x8f00 == 0x0d00: // sub.w sp, sp, #const
				p.below += uint64(thumbExpandImm(uint32(hw1>>10&1)<<11 | uint32(hw2>>12&7)<<8 | uint32(hw2&0xff)))
			case hw1&0xfbff == 0xf2ad && hw2&0x8f00 == 0x0d00: // subw sp, sp, #imm12
				p.below += uint64(hw1>>10&1)<<11 | uint64(hw2>>12&7)<<8 | uint64(hw2&0xff)
			case hw1 == 0xed2d && hw2&0x0f00 == 0x0b00: // vpush {d..}
				p.below += uint64(hw2&0xff) * 4
			case hw1&0xf800 == 0xf000 && hw2&0x8000 == 0x8000: // b.w, bl, blx
				return p, p.push&(1<<LR) != 0
			}
			continue
		}
		a += 2
		switch {
		case hw1&0xfe00 == 0xb400: // push {r0-r7[, lr]}
			p.push |= hw1 & 0xff
			if hw1&0x100 != 0 {
				p.push |= 1 << LR
			}
		case hw1&0xff80 == 0xb080: // sub sp, #imm7*4
			p.below += uint64(hw1&0x7f) * 4
		case hw1&0xf000 == 0xd000 || hw1&0xf800 == 0xe000 || hw1&0xff00 == 0x4700: // b<c>, b, bx/blx
			return p, p.push&(1<<LR) != 0
		}
	}
	return p, p.push&(1<<LR) != 0
}

// thumbExpandImm is the ARM ARM's ThumbExpandImm for a 12-bit modified
// immediate.
func thumbExpandImm(imm12 uint32) uint32 {
	if imm12>>10 == 0 {
		v := imm12 & 0xff
		switch imm12 >> 8 & 3 {
		case 0:
			return v
		case 1:
			return v<<16 | v
		case 2:
			return v<<24 | v<<8
		}
		return v<<24 | v<<16 | v<<8 | v
	}
	return bits.RotateLeft32(0x80|imm12&0x7f, -int(imm12>>7))
}

// stepPrologue unwinds a caller frame (past its prologue: it made a call)
// by what its prologue pushed: the saved registers are above the bytes it
// allocated, lr highest, and the caller's sp is above them. The return
// address must follow a call.
func stepPrologue(as unwind.AddrSpace, callee, caller *unwind.Frame) bool {
	sp, ok := callee.Get(SP)
	pc, _ := callee.Get(PC)
	cpsr, _ := callee.Get(CPSR)
	if !ok {
		return false
	}
	p, ok := readPrologue(as, pc, cpsr&cpsrThumb != 0)
	if !ok || p.below > stackscan.MaxFrameSize {
		return false
	}
	slot := sp + p.below
	var ra uint64
	var raLoc unwind.SaveLoc
	for r := 0; r < 16; r++ {
		if p.push&(1<<r) == 0 {
			continue
		}
		v, err := readWord(as, slot)
		if err != nil {
			return false
		}
		if r == LR {
			ra, raLoc = v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot}
		} else if r != SP && r != PC {
			caller.Set(r, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
		}
		slot += 4
	}
	if ra&^1 == 0 || !stackscan.IsCode(as, ra&^1) || !isReturnAddress(as, ra) {
		return false
	}
	for r := 4; r <= 11; r++ {
		if _, set := caller.Get(r); !set {
			if v, ok := callee.Get(r); ok {
				caller.Set(r, v, callee.Locs[r])
			}
		}
	}
	caller.Set(SP, slot&0xffffffff, unwind.SaveLoc{Kind: unwind.LocValue})
	setReturn(callee, caller, ra, raLoc)
	caller.CFA, caller.HasCFA = slot&0xffffffff, true
	caller.Trust = unwind.TrustScan
	return true
}
