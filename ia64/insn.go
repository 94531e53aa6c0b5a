package ia64

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// The IA-64 instruction decoder for crash analysis, on the bundle
// splitting of listaddr.go: the pc is a bundle address with the slot in
// its low bits; the slot's unit comes from the bundle's template. It
// decodes the M-unit integer loads and stores (M1-M5: ld/st of 1-8
// bytes with their completers and hints, register and immediate
// post-increment, ld8.fill/st8.spill), the semaphores (cmpxchg, xchg,
// fetchadd), the indirect branches (br.cond, br.ret, br.call through a
// branch register) and break.m/i/b. Other slots are reported as not
// decoded, never guessed. Texts are libopcodes' (objdump) without the
// bundle's template and stop marks.

var (
	_ unwind.InsnDecoder  = Arch{}
	_ unwind.InsnCodeAddr = Arch{}
)

// MaxInsnLen: a bundle, the unit instructions are fetched in.
func (Arch) MaxInsnLen() int { return 16 }

// CanonicalAddr: which addresses are implemented depends on the
// processor model (its implemented virtual address bits), which the
// core does not say.
func (Arch) CanonicalAddr(uint64) bool { return true }

// InsnCodeAddr is where the code for pc starts: its bundle.
func (Arch) InsnCodeAddr(pc uint64) uint64 { return pc &^ 0xf }

// DecodeInsn decodes the slot pc&3 of the bundle at the start of code.
// Its length is the bundle's: slots have no bytes of their own. IA-64
// bundles are little-endian whatever the data byte order.
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 16 {
		return in, errors.New("IA-64 bundle: fewer than 16 bytes")
	}
	s := int(pc & 0xf)
	if s > 2 {
		return in, fmt.Errorf("IA-64 pc %#x: slot %d", pc, s)
	}
	b := splitBundle(code)
	units, ok := bundleUnits(b.template)
	if !ok {
		return in, fmt.Errorf("IA-64 bundle at %#x: reserved template %#x", pc&^0xf, b.template)
	}
	x := b.slot[s]
	var d ia64Insn
	switch units[s] {
	case unitM:
		d, ok = decodeM(x)
	case unitI:
		d, ok = decodeBreak(x, "i")
	case unitB:
		d, ok = decodeB(x)
	default:
		ok = false // F, L and X slots
	}
	if !ok {
		return in, fmt.Errorf("IA-64 slot %d (%v unit) at %#x: %011x: %w", s, units[s], pc&^0xf, x, unwind.ErrInsnNotCovered)
	}
	in.Len, in.Text, in.Class, in.Mem = 16, d.text, d.class, d.mem
	if qp := x & 0x3f; qp != 0 {
		in.Text = fmt.Sprintf("(p%02d) %s", qp, in.Text)
	}
	for _, r := range d.regs {
		if r != GR0 {
			in.AddReg(r)
		}
	}
	if d.mem != unwind.MemNone {
		in.MemBase = d.base
		v, ok := reg(d.base)
		if d.base == GR0 {
			v, ok = 0, true
		}
		if ok {
			in.MemAddr, in.HasMemAddr = v, true
		}
	}
	return in, nil
}

// ia64Insn is a decoded slot before its registers are looked up: the
// memory operand is always [base], increments apply after the access.
type ia64Insn struct {
	text  string
	class unwind.InsnClass
	mem   unwind.MemAccess
	base  int
	regs  []int
}

// Slot fields.
func major(x uint64) uint64    { return x >> 37 & 0xf }
func f7(x uint64, lo uint) int { return int(x >> lo & 0x7f) }

var (
	ldTypes   = [12]string{"", ".s", ".a", ".sa", ".bias", ".acq", "", "", ".c.clr", ".c.nc", ".c.clr.acq", ""}
	ldHints   = [4]string{"", ".nt1", "", ".nta"}
	memSizes  = [4]int{1, 2, 4, 8}
	semaNames = map[uint64]string{0x00: "cmpxchg%d.acq", 0x04: "cmpxchg%d.rel", 0x08: "xchg%d"}
)

// decodeM decodes the M-unit forms.
func decodeM(x uint64) (ia64Insn, bool) {
	op, m, xb, x6 := major(x), x>>36&1, x>>27&1, x>>30&0x3f
	r1, r2, r3 := f7(x, 6), f7(x, 13), f7(x, 20)
	hint := ldHints[x>>28&3]
	d := ia64Insn{base: r3}
	switch {
	case op == 0:
		return decodeBreak(x, "m")
	case (op == 4 && xb == 0 || op == 5) && x6 < 0x30:
		// (In op 5, bits 36 and 27 are the immediate's sign and i.)
		// M1 ld r1=[r3]; M2 ld r1=[r3],r2; M3 ld r1=[r3],imm9.
		name := fmt.Sprintf("ld%d%s", memSizes[x6&3], ldTypes[x6>>2])
		switch {
		case x6 == 0x1b:
			name = "ld8.fill"
		case x6>>2 == 6 || x6>>2 == 7 || x6>>2 == 11 || x>>28&3 == 2:
			return d, false
		}
		d.text = fmt.Sprintf("%s%s r%d=[r%d]", name, hint, r1, r3)
		d.mem, d.regs = unwind.MemRead, []int{r1, r3}
		switch {
		case op == 4 && m == 1:
			d.text += fmt.Sprintf(",r%d", r2)
			d.regs = append(d.regs, r2)
		case op == 5:
			imm := int64(x>>13&0x7f) | int64(x>>27&1)<<7 | int64(x>>36&1)<<8
			d.text += fmt.Sprintf(",%d", imm<<55>>55)
		case m == 1:
			return d, false
		}
	case (op == 4 && m == 0 && xb == 0 || op == 5) && x6 >= 0x30:
		// M4 st [r3]=r2; M5 st [r3]=r2,imm9.
		var name string
		switch {
		case x6 <= 0x33:
			name = fmt.Sprintf("st%d", memSizes[x6&3])
		case x6 <= 0x37:
			name = fmt.Sprintf("st%d.rel", memSizes[x6&3])
		case x6 == 0x3b:
			name = "st8.spill"
		default:
			return d, false
		}
		if x>>28&3 == 3 {
			name += ".nta"
		} else if x>>28&3 != 0 {
			return d, false
		}
		d.text = fmt.Sprintf("%s [r%d]=r%d", name, r3, r2)
		if op == 5 {
			imm := int64(x>>6&0x7f) | int64(x>>27&1)<<7 | int64(x>>36&1)<<8
			d.text += fmt.Sprintf(",%d", imm<<55>>55)
		}
		d.mem, d.regs = unwind.MemWrite, []int{r3, r2}
	case op == 4 && m == 0 && xb == 1:
		// M16 cmpxchg, xchg; M17 fetchadd.
		size := memSizes[x6&3]
		switch {
		case semaNames[x6&^3] != "":
			d.text = fmt.Sprintf(semaNames[x6&^3]+"%s r%d=[r%d],r%d", size, hint, r1, r3, r2)
			if x6 < 0x08 {
				d.text += ",ar.ccv"
			}
			d.regs = []int{r1, r3, r2}
		case x6 == 0x12 || x6 == 0x13 || x6 == 0x16 || x6 == 0x17:
			inc := [4]int{16, 8, 4, 1}[x>>13&3]
			if x>>15&1 != 0 {
				inc = -inc
			}
			sem := ".acq"
			if x6 >= 0x16 {
				sem = ".rel"
			}
			d.text = fmt.Sprintf("fetchadd%d%s%s r%d=[r%d],%d", size, sem, hint, r1, r3, inc)
			d.regs = []int{r1, r3}
		default:
			return d, false
		}
		d.mem = unwind.MemReadWrite
	default:
		return d, false
	}
	return d, true
}

// decodeBreak decodes break.m, break.i (major opcode 0, x3 0, x6 0) and
// break.b (opcode 0, x6 0): imm21 is i (bit 36) and imm20 (bits 25..6).
func decodeBreak(x uint64, unit string) (ia64Insn, bool) {
	d := ia64Insn{base: -1}
	if major(x) != 0 || x>>27&0x3f != 0 || (unit != "b" && x>>33&7 != 0) {
		return d, false
	}
	imm := x>>6&0xfffff | (x>>36&1)<<20
	d.text, d.class = fmt.Sprintf("break.%s %#x", unit, imm), unwind.InsnTrap
	return d, true
}

var (
	branchWhether = [4]string{".sptk", ".spnt", ".dptk", ".dpnt"}
	branchHint    = [2]string{".few", ".many"}
)

// decodeB decodes the B-unit forms: B4 (br.cond/br.ia/br.ret through
// b2), B5 (br.call b1=b2) and break.b.
func decodeB(x uint64) (ia64Insn, bool) {
	op, x6, b1, b2 := major(x), x>>27&0x3f, int(x>>6&7), int(x>>13&7)
	wh, ph := branchWhether[x>>33&3], branchHint[x>>12&1]
	clr := ""
	if x>>35&1 != 0 {
		clr = ".clr"
	}
	d := ia64Insn{base: -1}
	switch {
	case op == 0 && x6 == 0:
		return decodeBreak(x, "b")
	case op == 0 && x6 == 0x20 && b1 == 0: // br.cond bN
		d.text, d.class = fmt.Sprintf("br.cond%s%s%s b%d", wh, ph, clr, b2), unwind.InsnJump
		if x&0x3f == 0 && wh == ".sptk" {
			// Unpredicated and statically taken: libopcodes
			// prints the pseudo-op "br".
			d.text = fmt.Sprintf("br%s%s b%d", ph, clr, b2)
		}
		d.regs = []int{BR0 + b2}
	case op == 0 && x6 == 0x21 && b1 == 4: // br.ret bN
		d.text, d.class = fmt.Sprintf("br.ret%s%s%s b%d", wh, ph, clr, b2), unwind.InsnReturn
		d.regs = []int{BR0 + b2}
	case op == 1: // br.call b1=b2
		d.text, d.class = fmt.Sprintf("br.call%s%s%s b%d=b%d", wh, ph, clr, b1, b2), unwind.InsnCall
		d.regs = []int{BR0 + b1, BR0 + b2}
	default:
		return d, false
	}
	return d, true
}
