package s390x

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/s390x/s390xasm"
)

var _ unwind.InsnDecoder = Arch{}

// MaxInsnLen: z/Architecture instructions are 2, 4 or 6 bytes.
func (Arch) MaxInsnLen() int { return 6 }

// CanonicalAddr: every 64-bit address is a valid virtual address.
func (Arch) CanonicalAddr(uint64) bool { return true }

// TrapPCAfter: an operation, a monitor-call or a data exception
// (SIGILL, SIGTRAP, SIGFPE) leaves the PSW past the instruction; the
// kernel finds it with the interruption's length code, which NT_PRSTATUS
// does not hold. (Access exceptions, SIGSEGV, nullify: the PSW is the
// instruction's.)
func (Arch) TrapPCAfter() bool { return true }

// DecodeInsn decodes one instruction with s390xasm and works out its
// first memory operand, D(X,B) or D(B) (register 0 as base or index
// names none), or pc + 2*I for the relative-long loads and stores. The
// address-computing instructions (la, lay, larl), branches on a
// computed address and the shifts (whose D(B) is an amount) access no
// memory.
func (Arch) DecodeInsn(code []byte, pc uint64, reg func(r int) (uint64, bool)) (in unwind.Insn, err error) {
	in = unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}
	if len(code) < 2 {
		return in, errors.New("s390x instruction: fewer than 2 bytes")
	}
	defer func() {
		// s390xasm indexes its argument list while printing some
		// malformed encodings: not an instruction.
		if r := recover(); r != nil {
			in, err = unwind.Insn{MemBase: -1, MemIndex: -1, Divisor: -1}, fmt.Errorf("s390x instruction at %#x: undecodable (%v)", pc, r)
		}
	}()
	inst, err := s390xasm.Decode(code)
	if err != nil {
		return in, fmt.Errorf("s390x instruction at %#x: %w", pc, err)
	}
	if inst.Op == 0 {
		return in, fmt.Errorf("s390x instruction at %#x: not an instruction", pc)
	}
	in.Len = inst.Len
	in.Text = s390xasm.GNUSyntax(inst, pc)
	op := inst.Op.String()
	access := accessOf(op)
	// A load ("l...": l, lg, llgc, lgr...) loads into its first
	// register, a load multiple (lm, lmg) into the range its first two
	// name: they are not read.
	loaded := 0
	if access == unwind.MemRead && strings.HasPrefix(op, "l") {
		loaded = 1
		if strings.HasPrefix(op, "lm") {
			loaded = 2
		}
	}
	var disp int64
	base, index, memSeen := -1, -1, false
	for _, arg := range inst.Args {
		switch x := arg.(type) {
		case s390xasm.Reg:
			if loaded > 0 {
				loaded--
				continue // what a load loads into
			}
			if x <= s390xasm.R15 {
				in.AddReg(int(x - s390xasm.R0))
			} else if x >= s390xasm.F0 && x <= s390xasm.F15 {
				in.AddReg(fprReg(int(x - s390xasm.F0)))
			}
		case s390xasm.Disp12:
			if !memSeen {
				disp = int64(x)
			}
		case s390xasm.Disp20:
			if !memSeen {
				disp = int64(int32(uint32(x)<<12) >> 12)
			}
		case s390xasm.Index:
			if x != s390xasm.X0 {
				if !memSeen {
					index = int(x - s390xasm.X0)
				}
				in.AddReg(int(x - s390xasm.X0))
			}
		case s390xasm.Base:
			// The first operand's base is the one analysed (mvc's
			// second operand is named, not computed).
			if x != s390xasm.B0 {
				if !memSeen {
					base = int(x - s390xasm.B0)
				}
				in.AddReg(int(x - s390xasm.B0))
			}
			memSeen = true
		case s390xasm.RegIm32:
			if access != unwind.MemNone && strings.HasSuffix(op, "rl") && !memSeen {
				memSeen = true
				base, disp = PC, 2*int64(int32(x))
			}
		}
	}
	if memSeen && access != unwind.MemNone {
		in.Mem = access
		in.MemBase, in.MemIndex, in.MemDisp = base, index, disp
		b, okb := uint64(0), true
		switch {
		case base == PC:
			b = pc
		case base >= 0:
			b, okb = reg(base)
		}
		x, okx := uint64(0), true
		if index >= 0 {
			x, okx = reg(index)
		}
		if okb && okx {
			in.MemAddr, in.HasMemAddr = b+x+uint64(disp), true
		}
	}
	classify(&in, op, inst)
	return in, nil
}

// accessOf says how an instruction uses a storage operand, by its
// mnemonic: stores (st*, the move-immediates, the and/or/xor-immediate
// and move-character forms) write, the rest read; address arithmetic,
// branches, shifts and the execute instructions access none (of their
// D(X,B), which is an address or an amount).
func accessOf(op string) unwind.MemAccess {
	switch op {
	case "la", "lay", "larl", "lae", "laey", "ex", "exrl", "bc", "bal", "bas", "bct", "bctg", "b",
		"sll", "srl", "sla", "sra", "sldl", "srdl", "slda", "srda", "sllg", "srlg", "slag", "srag",
		"sllk", "srlk", "slak", "srak", "rll", "rllg", "stck", "stckf", "stcke", "brasl", "brcl", "bras", "brc", "j", "jg":
		return unwind.MemNone
	case "mvi", "mviy", "mvhi", "mvghi", "mvhhi", "xc":
		return unwind.MemWrite
	case "mvc", "ni", "oi", "xi", "niy", "oiy", "xiy", "nc", "oc", "asi", "agsi", "alsi", "algsi":
		return unwind.MemReadWrite
	}
	switch {
	case strings.HasPrefix(op, "st"):
		return unwind.MemWrite
	case strings.HasPrefix(op, "laa") || strings.HasPrefix(op, "lan") || strings.HasPrefix(op, "lao") || strings.HasPrefix(op, "lax") ||
		strings.HasPrefix(op, "cs") || strings.HasPrefix(op, "cds"):
		return unwind.MemReadWrite // interlocked access, compare and swap
	case strings.HasPrefix(op, "j") || strings.HasPrefix(op, "b"):
		return unwind.MemNone
	}
	return unwind.MemRead
}

// classify sets the class of calls (bras, brasl, basr, bas: they set a
// link register), branches through a register (br, "bcr 15,rN") and
// returns (br %r14).
func classify(in *unwind.Insn, op string, inst s390xasm.Inst) {
	switch op {
	case "bras", "brasl", "basr", "bas", "balr", "bal":
		in.Class = unwind.InsnCall
	case "bcr":
		// bcr M1,R2: with mask 15 an unconditional branch to R2; r0
		// there branches nowhere.
		m, ok1 := inst.Args[0].(s390xasm.Mask)
		r, ok2 := inst.Args[1].(s390xasm.Reg)
		if ok1 && ok2 && m == 15 && r != s390xasm.R0 {
			in.Class = unwind.InsnJump
			if r == s390xasm.R14 {
				in.Class = unwind.InsnReturn
			}
		}
	}
}
