// Package x86insn decodes x86 instructions (golang.org/x/arch's x86asm)
// into what crash analysis asks of them (unwind.Insn): the x86_64 and
// i386 packages' unwind.InsnDecoder, which differ in mode and register
// numbering only.
package x86insn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/x86/x86asm"
)

// MaxLen is the architectural limit of an x86 instruction.
const MaxLen = 15

// Mode is one x86 mode's decoding parameters.
type Mode struct {
	Bits int // 64 or 32
	// Regs numbers the general registers in hardware order (ax cx dx bx
	// sp bp si di, then r8..r15 in 64-bit mode) as the arch does.
	Regs   []int
	PC, SP int // the arch's numbers of the instruction and stack pointers
}

// Decode decodes one instruction with x86asm, and works out what it
// does to memory and which registers it uses.
func (md *Mode) Decode(code []byte, pc uint64, reg func(r int) (uint64, bool)) (unwind.Insn, error) {
	in := unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	word := uint64(md.Bits / 8)
	// x86asm misreads these (dependencies.md): endbr64 as rep + garbage,
	// vzeroupper/vzeroall with length 4.
	for _, s := range []struct {
		b    []byte
		text string
	}{{[]byte{0xf3, 0x0f, 0x1e, 0xfa}, "endbr64"}, {[]byte{0xc5, 0xf8, 0x77}, "vzeroupper"}, {[]byte{0xc5, 0xfc, 0x77}, "vzeroall"}} {
		if bytes.HasPrefix(code, s.b) {
			in.Len, in.Text = len(s.b), s.text
			return in, nil
		}
	}
	inst, err := x86asm.Decode(code, md.Bits)
	if err != nil {
		return in, fmt.Errorf("x86 instruction at %#x: %w", pc, err)
	}
	if inst.Len <= 0 || inst.Len > len(code) {
		return in, errors.New("x86 instruction: bad length")
	}
	in.Len = inst.Len
	for i, a := range inst.Args {
		// x86asm keeps a 32-bit displacement unsigned; the CPU
		// sign-extends it (and gdb prints -0x204(%rbp), not 0xfffffdfc).
		if m, ok := a.(x86asm.Mem); ok && m.Disp >= 1<<31 && m.Disp < 1<<32 && (m.Base != 0 || m.Index != 0 || md.Bits == 64) {
			m.Disp = int64(int32(m.Disp))
			inst.Args[i] = m
		}
	}
	in.Text = gdbMnemonic(gnuSyntax(inst, pc))
	addReg := func(r int) {
		for _, x := range in.Regs {
			if x == r {
				return
			}
		}
		in.Regs = append(in.Regs, r)
	}
	memArg := -1
	for i, a := range inst.Args {
		switch a := a.(type) {
		case nil:
		case x86asm.Reg:
			// The instruction's inputs only: a destination it
			// overwrites (mov %eax,%ebp's ebp) held a value nothing
			// used.
			if r, ok := md.reg(a); ok && (i > 0 || !writeOnlyDest(inst.Op)) {
				addReg(r)
			}
		case x86asm.Mem:
			memArg = i
			in.MemDisp = a.Disp
			addr, known := uint64(a.Disp), true
			if a.Base != 0 {
				if r, ok := md.reg(a.Base); ok {
					in.MemBase = r
					addReg(r)
					v, ok := regValue(a.Base, r, reg)
					if a.Base == x86asm.RIP || a.Base == x86asm.EIP {
						v, ok = pc+uint64(inst.Len), true
					}
					addr, known = addr+v, known && ok
				} else {
					known = false
				}
			}
			if a.Index != 0 {
				if r, ok := md.reg(a.Index); ok {
					in.MemIndex = r
					addReg(r)
					v, ok := regValue(a.Index, r, reg)
					addr, known = addr+v*uint64(a.Scale), known && ok
				} else {
					known = false
				}
			}
			if a.Segment == x86asm.FS || a.Segment == x86asm.GS {
				known = false // the segment base (fs_base, gs_base) is not in the frame
			}
			if inst.AddrSize == 32 || md.Bits == 32 {
				addr &= 0xffffffff
			}
			in.MemAddr, in.HasMemAddr = addr, known
		}
	}
	in.Class = classOf(inst.Op)
	switch {
	case memArg >= 0:
		in.Mem = accessOf(inst.Op, memArg)
	case in.Class == unwind.InsnPush || in.Class == unwind.InsnCall:
		// The implicit store of the pushed value or return address.
		in.Mem = unwind.MemWrite
		in.MemBase = md.SP
		in.MemDisp = -int64(word)
		if sp, ok := reg(md.SP); ok {
			in.MemAddr, in.HasMemAddr = (sp-word)&md.mask(), true
		}
		addReg(md.SP)
	case inst.Op == x86asm.POP || in.Class == unwind.InsnReturn:
		in.Mem, in.MemBase = unwind.MemRead, md.SP
		if sp, ok := reg(md.SP); ok {
			in.MemAddr, in.HasMemAddr = sp&md.mask(), true
		}
		addReg(md.SP)
	}
	if in.Class == unwind.InsnCall && memArg >= 0 {
		in.Mem = unwind.MemRead // the target pointer; the push comes after
	}
	if in.Class == unwind.InsnDivide {
		in.DivisorBits = inst.MemBytes * 8
		if r, ok := inst.Args[0].(x86asm.Reg); ok {
			if d, ok := md.reg(r); ok {
				in.Divisor, in.DivisorBits = d, regBits(r)
			}
		}
	}
	return in, nil
}

func classOf(op x86asm.Op) unwind.InsnClass {
	switch op {
	case x86asm.UD2, x86asm.UD1, x86asm.UD0, x86asm.INT, x86asm.INTO:
		return unwind.InsnTrap
	case x86asm.DIV, x86asm.IDIV:
		return unwind.InsnDivide
	case x86asm.CALL, x86asm.LCALL:
		return unwind.InsnCall
	case x86asm.JMP, x86asm.LJMP:
		return unwind.InsnJump
	case x86asm.RET, x86asm.LRET:
		return unwind.InsnReturn
	case x86asm.PUSH, x86asm.PUSHF, x86asm.PUSHFQ:
		return unwind.InsnPush
	}
	return unwind.InsnOther
}

// accessOf says how op uses a memory operand in argument position i
// (x86asm puts the destination first).
func accessOf(op x86asm.Op, i int) unwind.MemAccess {
	if op == x86asm.LEA || op == x86asm.NOP || op == x86asm.PREFETCHT0 || op == x86asm.PREFETCHT1 ||
		op == x86asm.PREFETCHT2 || op == x86asm.PREFETCHNTA || op == x86asm.PREFETCHW {
		return unwind.MemNone
	}
	if i > 0 {
		return unwind.MemRead
	}
	switch op {
	case x86asm.CMP, x86asm.TEST, x86asm.BT, x86asm.UCOMISS, x86asm.UCOMISD, x86asm.COMISS, x86asm.COMISD,
		x86asm.PUSH, x86asm.CALL, x86asm.JMP, x86asm.DIV, x86asm.IDIV, x86asm.MUL, x86asm.IMUL:
		return unwind.MemRead
	}
	if writeOnlyDest(op) {
		return unwind.MemWrite
	}
	return unwind.MemReadWrite
}

// writeOnlyDest reports whether op only writes its first operand (x86asm
// puts the destination first): the instruction does not read what was
// there.
func writeOnlyDest(op x86asm.Op) bool {
	switch op {
	case x86asm.LEA, x86asm.MOVZX, x86asm.MOVSX, x86asm.MOVSXD,
		x86asm.MOV, x86asm.MOVAPS, x86asm.MOVAPD, x86asm.MOVUPS, x86asm.MOVUPD, x86asm.MOVDQA, x86asm.MOVDQU,
		x86asm.MOVQ, x86asm.MOVD, x86asm.MOVSS, x86asm.MOVSD_XMM, x86asm.MOVNTI, x86asm.MOVNTDQ, x86asm.MOVNTPS,
		x86asm.MOVLPS, x86asm.MOVHPS, x86asm.MOVLPD, x86asm.MOVHPD, x86asm.POP, x86asm.STOSB, x86asm.STOSW,
		x86asm.STOSD, x86asm.STOSQ, x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ,
		x86asm.SETA, x86asm.SETAE, x86asm.SETB, x86asm.SETBE, x86asm.SETE, x86asm.SETG, x86asm.SETGE,
		x86asm.SETL, x86asm.SETLE, x86asm.SETNE, x86asm.SETNO, x86asm.SETNP, x86asm.SETNS, x86asm.SETO,
		x86asm.SETP, x86asm.SETS, x86asm.FSTP, x86asm.FST, x86asm.FISTP, x86asm.FIST, x86asm.FNSTCW, x86asm.FNSTSW,
		x86asm.STMXCSR, x86asm.FXSAVE, x86asm.FXSAVE64, x86asm.XSAVE, x86asm.XSAVE64:
		return true
	}
	return false
}

// reg maps an x86asm general register of any width to the arch's
// number (eax, ax, al and ah are all parts of rax).
func (md *Mode) reg(r x86asm.Reg) (int, bool) {
	i := -1
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		i = int(r - x86asm.RAX)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		i = int(r - x86asm.EAX)
	case r >= x86asm.AX && r <= x86asm.R15W:
		i = int(r - x86asm.AX)
	case r >= x86asm.AL && r <= x86asm.BL:
		i = int(r - x86asm.AL)
	case r >= x86asm.AH && r <= x86asm.BH:
		i = int(r - x86asm.AH)
	case r >= x86asm.SPB && r <= x86asm.R15B:
		i = int(r-x86asm.SPB) + 4
	case r == x86asm.RIP || r == x86asm.EIP || r == x86asm.IP:
		return md.PC, true
	}
	if i < 0 || i >= len(md.Regs) {
		return 0, false
	}
	return md.Regs[i], true
}

func (md *Mode) mask() uint64 {
	if md.Bits == 32 {
		return 0xffffffff
	}
	return ^uint64(0)
}

// regBits is the width of a general register.
func regBits(r x86asm.Reg) int {
	switch {
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return 32
	case r >= x86asm.AX && r <= x86asm.R15W:
		return 16
	case r >= x86asm.AL && r <= x86asm.R15B:
		return 8
	}
	return 64
}

// regValue is the value of register x86r (DWARF number r) at its width.
func regValue(x86r x86asm.Reg, r int, reg func(int) (uint64, bool)) (uint64, bool) {
	v, ok := reg(r)
	switch {
	case x86r >= x86asm.EAX && x86r <= x86asm.R15L:
		v &= 0xffffffff
	case x86r >= x86asm.AX && x86r <= x86asm.R15W:
		v &= 0xffff
	}
	return v, ok
}

// absZero stands in for the displacement of an absolute memory operand
// at address 0 while x86asm formats it (gnuSyntax): no instruction
// encodes a displacement this large.
const absZero = 0x7e57ab5e0000dead

// gnuSyntax is x86asm's GNU syntax, but with an absolute memory operand
// at address 0 written as gdb does (movl $0x0,0x0): x86asm prints no
// displacement when it is 0, and with neither base nor index nothing is
// left of the operand.
func gnuSyntax(inst x86asm.Inst, pc uint64) string {
	zero := false
	for i, a := range inst.Args {
		if m, ok := a.(x86asm.Mem); ok && m.Base == 0 && m.Index == 0 && m.Disp == 0 {
			m.Disp, zero = absZero, true
			inst.Args[i] = m
		}
	}
	text := x86asm.GNUSyntax(inst, pc, nil)
	if zero {
		text = strings.Replace(text, fmt.Sprintf("%#x", absZero), "0x0", 1)
	}
	return text
}

// gdbMnemonic writes ret and call as gdb and objdump do (x86asm's GNU
// syntax says retq, callq).
func gdbMnemonic(text string) string {
	for _, m := range [...]struct{ from, to string }{{"retq", "ret"}, {"callq", "call"}} {
		if text == m.from {
			return m.to
		}
		if rest, ok := strings.CutPrefix(text, m.from+" "); ok {
			return m.to + " " + rest
		}
	}
	return text
}
