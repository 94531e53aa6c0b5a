package analyze

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/coreunwind/coreunwind/elfx/breakpadsym"
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// A symbol file's STACK CFI records are the DWARF CFI dump_syms read,
// rewritten as postfix expressions. The forms it writes for DWARF's own
// rules are turned back into call frame instructions, so that a module
// without its binary unwinds by the same arch steppers as one with it:
//
//	.cfa: $REG N +         DW_CFA_def_cfa REG, N   (N - : negative)
//	REG: .cfa N + ^        DW_CFA_offset_extended_sf REG, N
//	REG: .cfa N +          DW_CFA_val_offset_sf REG, N
//	REG: $REG2             DW_CFA_register (same_value when REG2 is REG)
//
// (.ra is the return-address column). A range with any other expression
// is not used: the walk falls back as where there is no CFI.

// breakpadRegs are Breakpad's register names and their DWARF numbers,
// with the return-address column, by arch: maps built by the first
// symbol file's CFI, not by every process at start.
var breakpadRegs = sync.OnceValue(func() map[string]breakpadArch {
	return map[string]breakpadArch{
		"x86_64": {ra: 16, regs: map[string]uint64{"$rax": 0, "$rdx": 1, "$rcx": 2, "$rbx": 3, "$rsi": 4, "$rdi": 5,
			"$rbp": 6, "$rsp": 7, "$r8": 8, "$r9": 9, "$r10": 10, "$r11": 11, "$r12": 12, "$r13": 13, "$r14": 14,
			"$r15": 15, "$rip": 16}},
		"i386": {ra: 8, regs: map[string]uint64{"$eax": 0, "$ecx": 1, "$edx": 2, "$ebx": 3, "$esp": 4, "$ebp": 5,
			"$esi": 6, "$edi": 7, "$eip": 8}},
		"aarch64": {ra: 30, regs: aarch64BreakpadRegs()},
		"arm": {ra: 14, regs: map[string]uint64{"$r0": 0, "$r1": 1, "$r2": 2, "$r3": 3, "$r4": 4, "$r5": 5, "$r6": 6,
			"$r7": 7, "$r8": 8, "$r9": 9, "$r10": 10, "$r11": 11, "$r12": 12, "$sp": 13, "$lr": 14, "$pc": 15}},
	}
})

// breakpadArch is one arch's Breakpad register names.
type breakpadArch struct {
	regs map[string]uint64
	ra   uint64
}

func aarch64BreakpadRegs() map[string]uint64 {
	m := map[string]uint64{"$sp": 31, "$fp": 29, "$lr": 30}
	for i := uint64(0); i <= 30; i++ {
		m["$x"+strconv.FormatUint(i, 10)] = i
	}
	return m
}

// DWARF call frame instructions used.
const (
	dwCFAAdvanceLoc4     = 0x04
	dwCFAUndefined       = 0x07
	dwCFASameValue       = 0x08
	dwCFARegister        = 0x09
	dwCFADefCFA          = 0x0c
	dwCFAOffsetExtSF     = 0x11
	dwCFADefCFASF        = 0x12
	dwCFAValOffsetSF     = 0x15
	maxBreakpadCFIDeltas = 4096 // records in one range: a function's pushes and pops
)

// symbolFileProcInfo is the unwind info for ip from the symbol file of
// m, nil when there is none or it cannot be expressed as DWARF CFI.
func (t *target) symbolFileProcInfo(m *module, ip uint64) *unwind.ProcInfo {
	f := t.symbolFile(m)
	arch, ok := breakpadRegs()[t.core.Arch]
	if f == nil || !ok || ip < m.core.Base {
		return nil
	}
	r, ok := f.CFI(ip - m.core.Base)
	if !ok || len(r.Deltas) > maxBreakpadCFIDeltas {
		return nil
	}
	init, err := cfiInstructions(nil, r.Init, arch.regs, arch.ra)
	if err != nil {
		return nil
	}
	var body []byte
	at := r.Addr
	for _, d := range r.Deltas {
		if d.Addr < at || d.Addr-at > 0xffffffff {
			return nil
		}
		body = append(body, dwCFAAdvanceLoc4)
		body = binary.LittleEndian.AppendUint32(body, uint32(d.Addr-at))
		at = d.Addr
		if body, err = cfiInstructions(body, d.Rules, arch.regs, arch.ra); err != nil {
			return nil
		}
	}
	fde := cfi.Synthesize(arch.ra, t.ByteOrder(), t.PtrSize(), r.Addr, r.Addr+r.Size, init, body)
	return &unwind.ProcInfo{StartIP: r.Addr + m.core.Base, EndIP: r.Addr + r.Size + m.core.Base,
		Format: unwind.FormatCFI, Module: m.core.Path, Bias: m.core.Base, Info: fde}
}

// cfiInstructions appends the instructions of one record's rules.
func cfiInstructions(out []byte, rules string, regs map[string]uint64, ra uint64) ([]byte, error) {
	var err error
	perr := breakpadsym.ParseRules(rules, func(name, expr string) {
		if err != nil {
			return
		}
		out, err = cfiRule(out, name, strings.Fields(expr), regs, ra)
	})
	if perr != nil {
		return nil, perr
	}
	return out, err
}

func cfiRule(out []byte, name string, expr []string, regs map[string]uint64, ra uint64) ([]byte, error) {
	num := func(s string) (int64, bool) {
		v, err := strconv.ParseInt(s, 0, 64)
		return v, err == nil
	}
	if name == ".cfa" {
		base, ok := regs[expr[0]]
		switch {
		case !ok:
		case len(expr) == 1:
			return appendULEB(appendULEB(append(out, dwCFADefCFA), base), 0), nil
		case len(expr) == 3 && (expr[2] == "+" || expr[2] == "-"):
			n, ok := num(expr[1])
			if !ok {
				break
			}
			if expr[2] == "-" {
				n = -n
			}
			return appendSLEB(appendULEB(append(out, dwCFADefCFASF), base), n), nil
		}
		return nil, fmt.Errorf(".cfa: %q", expr)
	}
	reg, ok := regs[name]
	if name == ".ra" {
		reg, ok = ra, true
	}
	if !ok {
		return nil, fmt.Errorf("register %q", name)
	}
	switch {
	case len(expr) == 1 && expr[0] == ".undef":
		return appendULEB(append(out, dwCFAUndefined), reg), nil
	case len(expr) == 1:
		src, ok := regs[expr[0]]
		if !ok {
			break
		}
		if src == reg {
			return appendULEB(append(out, dwCFASameValue), reg), nil
		}
		return appendULEB(appendULEB(append(out, dwCFARegister), reg), src), nil
	case (len(expr) == 3 || len(expr) == 4) && expr[0] == ".cfa" && (expr[2] == "+" || expr[2] == "-"):
		n, ok := num(expr[1])
		if !ok {
			break
		}
		if expr[2] == "-" {
			n = -n
		}
		op := byte(dwCFAValOffsetSF)
		if len(expr) == 4 {
			if expr[3] != "^" {
				break
			}
			op = dwCFAOffsetExtSF
		}
		return appendSLEB(appendULEB(append(out, op), reg), n), nil
	}
	return nil, fmt.Errorf("%s: %q", name, expr)
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
