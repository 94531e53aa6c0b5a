package cfirow

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

// Kind says what an arch unwinding by DWARF CFI knows about a lookup
// address.
type Kind uint8

const (
	// KindNone: nothing known; the arch falls back to its heuristics.
	KindNone Kind = iota
	// KindCFI: a CFI row.
	KindCFI
	// KindTrampoline: a signal trampoline recognized by its code. An
	// arch with several kinds of trampoline numbers them from here.
	KindTrampoline
)

// Rule is what is known about one lookup address, computed once and kept
// in the address space's cache: the rule of every arch whose only unwind
// format is DWARF CFI (aarch64, ppc64, s390x, riscv64).
type Rule struct {
	Kind     Kind
	Row      cfi.Row
	Signal   bool   // CIE augmentation 'S': the frame is a signal trampoline
	RAColumn uint64 // the CIE's return-address column
	Err      error  // why there is no CFI row, for the report
}

// ErrNoCFI: the address has unwind info, but not DWARF CFI.
var ErrNoCFI = errors.New("no CFI")

// rules is the table of Rules in each unwind.Cache (a cache belongs to
// one address space, so to one arch).
var rules = unwind.NewRuleKind[*Rule]()

// Trampoline recognizes a signal trampoline by the code at pc: a kind
// from KindTrampoline on, or KindNone.
type Trampoline func(as unwind.AddrSpace, pc uint64) Kind

// RuleFor returns the rule for lookup address lpc of arch (its name, for
// messages); pc is the frame's PC, where trampoline looks at the code.
// The code comes first: a sigreturn trampoline is unwound from the
// signal context the kernel saved, which holds every register, whatever
// CFI its page has.
func RuleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64, arch string, trampoline Trampoline) *Rule {
	rc := rules.In(cache)
	if r, ok := rc.Get(lpc); ok {
		return r
	}
	r := computeRule(as, cache, lpc, pc, arch, trampoline)
	rc.Put(lpc, r)
	return r
}

func computeRule(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64, arch string, trampoline Trampoline) *Rule {
	if k := trampoline(as, pc); k != KindNone {
		return &Rule{Kind: k}
	}
	pi, err := cache.FindProcInfo(as, lpc)
	switch {
	case err == nil && pi.Format == unwind.FormatCFI:
		fde, ok := pi.Info.(*cfi.FDE)
		if !ok {
			err = fmt.Errorf("pc %#x: CFI proc info carries %T: %w", lpc, pi.Info, ErrNoCFI)
			break
		}
		row, rerr := fde.RowAt(lpc - pi.Bias)
		if rerr == nil {
			return &Rule{Kind: KindCFI, Row: row, Signal: fde.CIE.Signal, RAColumn: fde.CIE.RAColumn}
		}
		err = fmt.Errorf("CFI at %#x: %w", lpc, rerr)
	case err == nil:
		// libunwind's dynamic unwind info (JIT code) is applied on
		// x86-64, IA-64 and PA-RISC only.
		err = fmt.Errorf("pc %#x: unwind info format %v is not decoded for %s: %w", lpc, pi.Format, arch, unwind.ErrNoInfo)
	case errors.Is(err, unwind.ErrNoInfo):
		err = fmt.Errorf("no CFI for pc %#x: %w", lpc, unwind.ErrNoInfo)
	}
	return &Rule{Kind: KindNone, Err: err}
}

// IsSignalFrame reports whether a frame with this rule is a signal
// trampoline: its CIE has the 'S' augmentation or its code is one.
func (r *Rule) IsSignalFrame() bool { return r.Signal || r.Kind >= KindTrampoline }

// Stepper is what an arch supplies to StepKnown: how it applies a CFI
// row (the return address, pointer authentication, its ABI's stack
// pointer) and how it unwinds a trampoline of kind k from the signal
// context.
type Stepper interface {
	StepCFI(as unwind.AddrSpace, r *Rule, callee, caller *unwind.Frame) (unwind.StepResult, error)
	StepTrampoline(as unwind.AddrSpace, k Kind, callee, caller *unwind.Frame) error
}

// StepKnown is the first half of every CFI arch's Step: the rule for
// callee's lookup address, applied when it is a CFI row or a
// trampoline. done reports that res and err are the step's; otherwise
// the arch's fallbacks follow, r is the rule and why says why it did not
// do (nil when nothing was known). Generic over the arch so that the
// calls are direct.
func StepKnown[S Stepper](s S, as unwind.AddrSpace, cache *unwind.Cache, arch string, trampoline Trampoline, pcReg int, callee, caller *unwind.Frame) (res unwind.StepResult, done bool, r *Rule, why error) {
	pc, _ := callee.Get(pcReg)
	r = RuleFor(as, cache, callee.LookupPC(pcReg), pc, arch, trampoline)
	switch {
	case r.Kind == KindCFI:
		res, err := s.StepCFI(as, r, callee, caller)
		if err == nil {
			return res, true, r, nil
		}
		why = err
	case r.Kind >= KindTrampoline:
		err := s.StepTrampoline(as, r.Kind, callee, caller)
		if err == nil {
			return unwind.StepCaller, true, r, nil
		}
		why = err
	default:
		why = r.Err
	}
	caller.Reset()
	return unwind.StepEnd, false, r, why
}

// NoZeroReg is StepLinkRegister's zero for an arch without a register
// that always reads 0 (SuperH).
const NoZeroReg = -1

// StepLinkRegister applies r's CFI row for arches whose caller's pc is
// the value of the return-address column (a link register: riscv64's
// ra, loongarch64's ra, MIPS's $31, SuperH's pr), and whose register
// zero always reads 0 (NoZeroReg: none): Apply, then the caller's pc
// from that column, its stack pointer the CFA (Regs.SP). A row without a rule for the column (a
// leaf, a prologue) leaves the return address in the register. An
// undefined return address, or a zero one (glibc's _start and thread
// entries clear the link register before their first call), is the
// outermost frame.
func StepLinkRegister(as unwind.AddrSpace, r *Rule, regs Regs, pc, zero int, callee, caller *unwind.Frame) (unwind.StepResult, error) {
	cfa, raDefined, err := Apply(as, &r.Row, r.RAColumn, regs, callee, caller)
	if err != nil {
		return unwind.StepEnd, err
	}
	if !raDefined {
		return unwind.StepEnd, nil
	}
	ra, _ := caller.Get(int(r.RAColumn))
	if ra == 0 {
		return unwind.StepEnd, nil
	}
	caller.Set(pc, ra, caller.Locs[r.RAColumn])
	if zero != NoZeroReg {
		caller.Set(zero, 0, unwind.SaveLoc{Kind: unwind.LocValue})
	}
	SetCaller(caller, cfa, r.Signal)
	return unwind.StepCaller, nil
}
