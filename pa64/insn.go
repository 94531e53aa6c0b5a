package pa64

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The PA-RISC instruction decoder for crash analysis, on the field
// decoders the prologue scan uses (im14, im5, stdDisp): the integer and
// double-word floating-point loads and stores of a base register plus a
// displacement or an index (long and short displacement, with and
// without base modification), the branches through a register (bv, bve,
// bve,l, be,l), b,l and break. Other words are reported as not decoded,
// never guessed. Texts are libopcodes' (objdump and gdb), which the
// tests check.

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: every PA-RISC instruction is one 4-byte word.
func (Arch) MaxInsnLen() int { return 4 }

// CanonicalAddr: a space-qualified address has no invalid values.
func (Arch) CanonicalAddr(uint64) bool { return true }

// paRegNames are libopcodes' names of the general registers.
var paRegNames = [32]string{"r0", "r1", "rp", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "dp", "ret0", "ret1", "sp", "r31"}

// paDisp prints a displacement as libopcodes does: hex without 0x.
func paDisp(d int64) string {
	if d < 0 {
		return fmt.Sprintf("-%x", -d)
	}
	return fmt.Sprintf("%x", d)
}

// paInsn is a decoded instruction before its registers are looked up.
type paInsn struct {
	text    string
	class   unwind.InsnClass
	mem     unwind.MemAccess
	base    int   // -1: no memory operand
	index   int   // -1: none
	scale   uint  // the index's shift
	disp    int64 // added unless postModify
	postMod bool  // ,ma: the access is at the base, then base += disp
	regs    []int // in operand order
}

// DecodeInsn decodes the word at pc (PA-RISC is big-endian; the pc's low
// two bits are the privilege level, not part of the address).
func (a Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 4 {
		return in, errors.New("PA-RISC instruction: fewer than 4 bytes")
	}
	pc &^= 3
	w := binary.BigEndian.Uint32(code)
	p, ok := decodePA(w, pc)
	if !ok {
		return in, fmt.Errorf("PA-RISC instruction at %#x: %08x: %w", pc, w, unwind.ErrInsnNotCovered)
	}
	in.Len, in.Text, in.Class, in.Mem = 4, p.text, p.class, p.mem
	for _, r := range p.regs {
		in.AddReg(r)
	}
	if p.mem == unwind.MemNone || p.base < 0 {
		return in, nil
	}
	in.MemBase, in.MemIndex = p.base, p.index
	if !p.postMod {
		in.MemDisp = p.disp
	}
	b, okb := reg(p.base)
	if p.base == 0 {
		b, okb = 0, true
	}
	x, okx := uint64(0), true
	if p.index >= 0 {
		x, okx = reg(p.index)
		if p.index == 0 {
			x, okx = 0, true
		}
		x <<= p.scale
	}
	if okb && okx {
		addr := b + x
		if !p.postMod {
			addr += uint64(p.disp)
		}
		if !a.wide {
			addr &= 0xffffffff
		}
		in.MemAddr, in.HasMemAddr = addr, true
	}
	return in, nil
}

var (
	paLongLoads  = map[uint32]string{0x10: "ldb", 0x11: "ldh", 0x12: "ldw", 0x13: "ldw"}
	paLongStores = map[uint32]string{0x18: "stb", 0x19: "sth", 0x1a: "stw", 0x1b: "stw"}
	paSizes      = [4]string{"b", "h", "w", "d"}
)

// decodePA decodes one word.
func decodePA(w uint32, pc uint64) (paInsn, bool) {
	p := paInsn{base: -1, index: -1}
	op := w >> 26
	b, r := int(w>>21&31), int(w>>16&31)
	switch {
	case paLongLoads[op] != "" || paLongStores[op] != "":
		// Long displacement: op b t/r s im14; ldwm/stwm (0x13, 0x1b)
		// modify the base, before the access when the displacement is
		// negative.
		d := im14(w)
		cmpl := ""
		if op == 0x13 || op == 0x1b {
			cmpl = ",ma"
			p.postMod = d >= 0
			if d < 0 {
				cmpl = ",mb"
			}
		}
		p.base, p.disp = b, d
		if name := paLongLoads[op]; name != "" {
			p.mem = unwind.MemRead
			p.text = fmt.Sprintf("%s%s %s(%s),%s", name, cmpl, paDisp(d), paRegNames[b], paRegNames[r])
			p.regs = []int{b, r}
		} else {
			p.mem = unwind.MemWrite
			p.text = fmt.Sprintf("%s%s %s,%s(%s)", paLongStores[op], cmpl, paRegNames[r], paDisp(d), paRegNames[b])
			p.regs = []int{r, b}
		}
	case op == 0x14 || op == 0x1c:
		// PA 2.0 ldd/std and fldd/fstd, long displacement: bit 1
		// selects the floating-point register, bits 3 and 2 (m, a)
		// base modification.
		d := stdDisp(w)
		m, aBit := w&8 != 0, w&4 != 0
		cmpl, ok := p.modify(m, aBit)
		if !ok {
			return p, false
		}
		name, rname, rnum := "ldd", paRegNames[r], r
		if w&2 != 0 {
			if m {
				return p, false
			}
			name, rname, rnum = "fldd", fmt.Sprintf("fr%d", r), FR0+r
		}
		p.base, p.disp = b, d
		if op == 0x14 {
			p.mem = unwind.MemRead
			p.text = fmt.Sprintf("%s%s %s(%s),%s", name, cmpl, paDisp(d), paRegNames[b], rname)
			p.regs = []int{b, rnum}
		} else {
			name = map[string]string{"ldd": "std", "fldd": "fstd"}[name]
			p.mem = unwind.MemWrite
			p.text = fmt.Sprintf("%s%s %s,%s(%s)", name, cmpl, rname, paDisp(d), paRegNames[b])
			p.regs = []int{rnum, b}
		}
	case op == 0x03 || op == 0x0b:
		return decodePAShortIndexed(w, op)
	case op == 0x3a:
		// Branches with a register: ext3 in bits 15..13.
		ext3, t := w>>13&7, r
		switch {
		case ext3 == 6 && w>>12&1 == 0: // bv x(b)
			p.text, p.class = fmt.Sprintf("bv %s(%s)", paRegNames[t], paRegNames[b]), unwind.InsnJump
			if b == RP && t == 0 {
				p.class = unwind.InsnReturn
			}
			p.regs = []int{t, b}
			if t == 0 {
				p.regs = []int{b}
			}
		case ext3 == 6 && w&0x1fff == 0x1000: // bve (b)
			p.text, p.class, p.regs = fmt.Sprintf("bve (%s)", paRegNames[b]), unwind.InsnJump, []int{b}
			if b == RP {
				p.class = unwind.InsnReturn
			}
		case ext3 == 7 && w&0x1fff == 0x1000: // bve,l (b),rp
			p.text, p.class, p.regs = fmt.Sprintf("bve,l (%s),rp", paRegNames[b]), unwind.InsnCall, []int{b}
		case ext3 == 0 && t != 0: // b,l target,t
			off := int64(w>>3&0x3ff)<<1 | int64(w>>2&1)<<11 | int64(w>>16&0x1f)<<12 | int64(w&1)<<17
			off = off << 46 >> 46 // sign-extend 18 bits
			target := pc + 8 + uint64(off<<2)
			p.text, p.class = fmt.Sprintf("b,l %#x,%s", target, paRegNames[t]), unwind.InsnCall
		default:
			return p, false
		}
	case op == 0x39 && w&2 == 0: // be,l d(sr,b),sr0,r31
		s := w >> 13 & 7
		sr := s>>1 | (s&1)<<2 // assemble_3
		off := int64(w>>3&0x3ff)<<1 | int64(w>>2&1)<<11 | int64(w>>16&0x1f)<<12 | int64(w&1)<<17
		off = off << 46 >> 46
		p.text = fmt.Sprintf("be,l %s(sr%d,%s),sr0,r31", paDisp(off<<2), sr, paRegNames[b])
		p.class, p.regs = unwind.InsnCall, []int{b}
	case op == 0 && w>>5&0xff == 0: // break im5,im13
		p.text, p.class = fmt.Sprintf("break %x,%x", w&0x1f, w>>13&0x1fff), unwind.InsnTrap
	default:
		return p, false
	}
	return p, true
}

// modify is a displacement form's base modification and its completer:
// none, ",ma" (the access at the base, then base += disp) or, with before
// (the a or u bit), ",mb" (base += disp, then the access). before without
// m is not decoded.
func (p *paInsn) modify(m, before bool) (cmpl string, ok bool) {
	if !m {
		return "", !before
	}
	p.postMod = !before
	if before {
		return ",mb", true
	}
	return ",ma", true
}

// decodePAShortIndexed decodes the indexed and short-displacement loads
// and stores: op 0x03 (integer; ext4 in bits 9..6: 0-3 ldb..ldd, 8-11
// stb..std) and 0x0b (fldd/fstd, bit 9 a store). Bit 12 selects the short
// displacement (im5) over the index register; bit 13 is the index's
// scaling, or the short form's before/after; bit 5 modification. Forms
// with a cache hint (bits 11..10) are not decoded.
func decodePAShortIndexed(w, op uint32) (paInsn, bool) {
	p := paInsn{base: -1, index: -1}
	b, x := int(w>>21&31), int(w>>16&31)
	short, u, m := w>>12&1 != 0, w>>13&1 != 0, w>>5&1 != 0
	if w>>10&3 != 0 {
		return p, false
	}
	var name string
	store := false
	size := 3
	if op == 0x03 {
		ext4 := int(w >> 6 & 0xf)
		switch {
		case ext4 <= 3:
			name, size = "ld"+paSizes[ext4], ext4
		case ext4 >= 8 && ext4 <= 11 && short:
			name, size, store = "st"+paSizes[ext4-8], ext4-8, true
		default:
			return p, false
		}
	} else {
		if w>>6&7 != 0 { // fldw, fstw and the rest of the coprocessor forms
			return p, false
		}
		store = w>>9&1 != 0
		name = "fldd"
		if store {
			name = "fstd"
		}
	}
	cmpl := ""
	p.base = b
	switch {
	case short:
		if store && op == 0x03 {
			p.disp = im5(w)
		} else {
			p.disp = im5(w >> 16)
		}
		var ok bool
		if cmpl, ok = p.modify(m, u); !ok {
			return p, false
		}
	default:
		if m {
			return p, false // indexed with modification: not worth it
		}
		p.index = x
		if u {
			cmpl = ",s"
			p.scale = uint(size)
		}
	}
	t := int(w & 31)
	tname, tnum := paRegNames[t], t
	if op == 0x0b {
		tname, tnum = fmt.Sprintf("fr%d", t), FR0+t
	}
	addr := fmt.Sprintf("%s(%s)", paDisp(p.disp), paRegNames[b])
	if p.index >= 0 {
		addr = fmt.Sprintf("%s(%s)", paRegNames[x], paRegNames[b])
	}
	switch {
	case store && op == 0x03:
		r := x // the source is in bits 20..16 of a short store
		p.mem = unwind.MemWrite
		p.text = fmt.Sprintf("%s%s %s,%s", name, cmpl, paRegNames[r], addr)
		p.regs = []int{r, b}
	case store:
		p.mem = unwind.MemWrite
		p.text = fmt.Sprintf("%s%s %s,%s", name, cmpl, tname, addr)
		p.regs = []int{tnum, b}
		if p.index >= 0 {
			p.regs = []int{tnum, x, b}
		}
	default:
		p.mem = unwind.MemRead
		p.text = fmt.Sprintf("%s%s %s,%s", name, cmpl, addr, tname)
		p.regs = []int{b, tnum}
		if p.index >= 0 {
			p.regs = []int{x, b, tnum}
		}
	}
	return p, true
}
