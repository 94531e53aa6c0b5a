package ppc64

import (
	"strings"

	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/arch/ppc64/ppc64asm"
)

// trapConds are the extended mnemonics' conditions of the trap
// instructions' TO field, as binutils' objdump (and so gdb) prints them:
// twi 4,r9,0 is tweqi r9,0.
var trapConds = map[ppc64asm.Imm]string{1: "lgt", 2: "llt", 4: "eq", 5: "lge", 6: "lle", 8: "gt", 12: "ge", 16: "lt", 20: "le", 24: "ne", 31: "u"}

// trapInsn classifies tw/twi/td/tdi and writes them as objdump does: a
// TO that asks for less-than, greater-than and equal (signed or
// unsigned) traps always (tw 31,0,0 is "trap"), TO 0 never, any other TO
// when its comparison holds. It returns false for other instructions.
func trapInsn(in *unwind.Insn, inst ppc64asm.Inst, op string) bool {
	if op != "tw" && op != "td" && op != "twi" && op != "tdi" {
		return false
	}
	to, _ := inst.Args[0].(ppc64asm.Imm)
	switch {
	case to&28 == 28 || to&7 == 7:
		in.Class = unwind.InsnTrap
	case to != 0:
		in.Class = unwind.InsnCondTrap
	}
	if cond, ok := trapConds[to]; ok && in.Text != "trap" {
		if _, rest, ok := strings.Cut(in.Text, ","); ok {
			in.Text = op[:2] + cond + op[2:] + " " + rest
		}
	}
	return true
}
