package i386

import (
	"bytes"
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/x86/x86asm"
)

// maxListAddrInsns bounds the instructions evaluated: gcc's bodies of
// "return &var" are one to four instructions.
const maxListAddrInsns = 8

// endbr32 starts functions built with -fcf-protection; x86asm does not
// know it.
var endbr32 = []byte{0xf3, 0x0f, 0x1e, 0xfb}

// DynListAddr is unwind.DynListArch: what libunwind's exported
// _U_dyn_info_list_addr (at fn) returns, by evaluating its code the way
// gcc writes "return &_U_dyn_info_list" on i386: position-dependent,
// "mov $list,%eax; ret"; position-independent, a call to a pc thunk
// (__x86.get_pc_thunk.REG: "mov (%esp),REG; ret"), "add $GOT-.,REG",
// then "lea list@GOTOFF(REG),%eax" (a hidden variable) or "mov
// list@GOT(REG),%eax" (a load from the GOT).
func (Arch) DynListAddr(as unwind.AddrSpace, _ *elf.File, _, fn uint64) (uint64, error) {
	regs := map[x86asm.Reg]uint64{}
	pc := fn
	for i := 0; i < maxListAddrInsns; i++ {
		inst, err := decodeAt(as, pc)
		if err != nil {
			return 0, err
		}
		if inst.Op == 0 { // endbr32
			pc += uint64(len(endbr32))
			continue
		}
		next := (pc + uint64(inst.Len)) & 0xffffffff
		dst, _ := inst.Args[0].(x86asm.Reg)
		switch inst.Op {
		case x86asm.RET:
			if v, ok := regs[x86asm.EAX]; ok {
				return v, nil
			}
			return 0, fmt.Errorf("at %#x: returns before %%eax is known", pc)
		case x86asm.CALL:
			rel, ok := inst.Args[0].(x86asm.Rel)
			if !ok {
				return 0, fmt.Errorf("at %#x: %v is not a pc thunk call", pc, inst)
			}
			reg, err := pcThunkReg(as, (next+uint64(int64(rel)))&0xffffffff)
			if err != nil {
				return 0, fmt.Errorf("at %#x: %w", pc, err)
			}
			regs[reg] = next
		case x86asm.MOV, x86asm.LEA, x86asm.ADD:
			v, err := evalOperand(as, inst, regs)
			if err != nil || dst < x86asm.EAX || dst > x86asm.EDI {
				return 0, fmt.Errorf("at %#x: %v: not evaluated (%v)", pc, inst, err)
			}
			regs[dst] = v
		default:
			return 0, fmt.Errorf("at %#x: %v: not evaluated", pc, inst)
		}
		pc = next
	}
	return 0, fmt.Errorf("_U_dyn_info_list_addr at %#x: no return within %d instructions", fn, maxListAddrInsns)
}

// decodeAt decodes the 32-bit instruction at pc; an endbr32 comes back as
// an instruction with Op 0.
func decodeAt(as unwind.AddrSpace, pc uint64) (x86asm.Inst, error) {
	var code [16]byte
	n := len(code)
	for n > 0 && as.ReadMem(pc, code[:n]) != nil {
		n /= 2 // the function may end at the end of a mapping
	}
	if n == 0 {
		return x86asm.Inst{}, fmt.Errorf("code at %#x: %w", pc, unwind.ErrUnavailable)
	}
	if bytes.HasPrefix(code[:n], endbr32) {
		return x86asm.Inst{}, nil
	}
	inst, err := x86asm.Decode(code[:n], 32)
	if err != nil {
		return x86asm.Inst{}, fmt.Errorf("at %#x: %w", pc, err)
	}
	return inst, nil
}

// evalOperand is the value a mov, lea or add leaves in its destination.
func evalOperand(as unwind.AddrSpace, inst x86asm.Inst, regs map[x86asm.Reg]uint64) (uint64, error) {
	var v uint64
	switch src := inst.Args[1].(type) {
	case x86asm.Imm:
		v = uint64(src)
	case x86asm.Mem:
		base, ok := regs[src.Base]
		if !ok || src.Index != 0 || src.Segment != 0 {
			return 0, fmt.Errorf("operand %v", src)
		}
		ea := (base + uint64(src.Disp)) & 0xffffffff
		switch inst.Op {
		case x86asm.LEA:
			v = ea
		case x86asm.MOV:
			var w [4]byte
			if err := as.ReadMem(ea, w[:]); err != nil {
				return 0, fmt.Errorf("GOT slot %#x: %w", ea, err)
			}
			v = uint64(as.ByteOrder().Uint32(w[:]))
		default:
			return 0, fmt.Errorf("operand %v", src)
		}
	default:
		return 0, fmt.Errorf("operand %v", src)
	}
	if inst.Op == x86asm.ADD {
		dst, _ := inst.Args[0].(x86asm.Reg)
		cur, ok := regs[dst]
		if !ok {
			return 0, fmt.Errorf("%v unknown", dst)
		}
		v += cur
	}
	return v & 0xffffffff, nil
}

// pcThunkReg checks that the code at addr is gcc's pc thunk, "mov
// (%esp),REG; ret", and returns REG.
func pcThunkReg(as unwind.AddrSpace, addr uint64) (x86asm.Reg, error) {
	mov, err := decodeAt(as, addr)
	if err != nil {
		return 0, err
	}
	reg, _ := mov.Args[0].(x86asm.Reg)
	src, _ := mov.Args[1].(x86asm.Mem)
	if mov.Op != x86asm.MOV || reg < x86asm.EAX || reg > x86asm.EDI || src.Base != x86asm.ESP || src.Index != 0 || src.Disp != 0 || src.Segment != 0 {
		return 0, fmt.Errorf("call to %#x, which is not a pc thunk", addr)
	}
	ret, err := decodeAt(as, addr+uint64(mov.Len))
	if err != nil || ret.Op != x86asm.RET {
		return 0, fmt.Errorf("call to %#x, which is not a pc thunk", addr)
	}
	return reg, nil
}
