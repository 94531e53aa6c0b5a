package cfi

import "fmt"

// RuleKind says how to recover a register of the caller's frame.
type RuleKind uint8

const (
	// Unspecified: no rule in the row; the architecture decides (x86_64
	// treats callee-saved registers as same value).
	Unspecified RuleKind = iota
	// Undefined: the register has no recoverable value (for the return
	// address column: the outermost frame).
	Undefined
	// SameValue: the caller's value is the current value.
	SameValue
	// Offset: saved at address CFA+Offset.
	Offset
	// ValOffset: the value is CFA+Offset.
	ValOffset
	// Register: the value is in register Reg.
	Register
	// Expression: saved at the address Expr computes (CFA pushed first).
	Expression
	// ValExpression: the value is what Expr computes (CFA pushed first).
	ValExpression
	// Architectural: defined by the architecture, outside DWARF.
	Architectural
)

var ruleKindNames = [...]string{"unspecified", "undefined", "same_value", "offset", "val_offset", "register", "expression", "val_expression", "architectural"}

func (k RuleKind) String() string {
	if int(k) < len(ruleKindNames) {
		return ruleKindNames[k]
	}
	return fmt.Sprintf("RuleKind(%d)", uint8(k))
}

// Rule is one register's recovery rule.
type Rule struct {
	Kind   RuleKind
	Offset int64  // Offset, ValOffset
	Reg    uint64 // Register
	Expr   []byte // Expression, ValExpression (aliases the section data)
}

// CFARule defines the canonical frame address: Reg+Offset, or the value of
// Expr when Expr is non-nil (DW_CFA_def_cfa_expression, nothing pushed).
type CFARule struct {
	Reg    uint64
	Offset int64
	Expr   []byte
}

// Row is the unwind rule set in effect from Loc up to the next row's Loc
// (or the FDE's End).
type Row struct {
	Loc uint64
	CFA CFARule
	// Regs is indexed by DWARF register number; its length is one more
	// than the highest register the CIE or FDE mentioned. Registers at or
	// beyond len(Regs) are Unspecified.
	Regs []Rule
	// WindowSave is true when DW_CFA_GNU_window_save (0x2d) was executed
	// an odd number of times: on SPARC the register window was saved; on
	// AArch64 the same opcode is DW_CFA_AARCH64_negate_ra_state (the
	// return address is signed). x86 never uses it.
	WindowSave bool
}

// Rule returns the rule of register reg (Unspecified beyond Regs).
func (r *Row) Rule(reg uint64) Rule {
	if reg < uint64(len(r.Regs)) {
		return r.Regs[reg]
	}
	return Rule{}
}
