package arm

import (
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/arm/exidx"
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/unwind"
)

type ruleKind uint8

const (
	ruleNone        ruleKind = iota // nothing known: fall back to heuristics
	ruleCFI                         // a DWARF CFI row
	ruleExidx                       // EHABI unwind opcodes
	ruleCantUnwind                  // EXIDX_CANTUNWIND
	ruleSigreturn                   // the sigreturn trampoline (struct sigframe)
	ruleRTSigreturn                 // the rt_sigreturn trampoline (struct rt_sigframe)
)

// rule is what the unwinder knows about one lookup address, computed once
// and cached.
type rule struct {
	kind   ruleKind
	row    cfi.Row
	signal bool // CIE augmentation 'S'
	raCol  uint64
	ops    []exidx.Op // ruleExidx
	err    error      // why there is no rule, for the report
}

// rules is this arch's rule table in each unwind.Cache.
var rules = unwind.NewRuleKind[*rule]()

// ruleFor returns the rule for lookup address lpc (pc is the frame's PC,
// used to recognize the trampolines by their code).
func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	rc := rules.In(cache)
	if r, ok := rc.Get(lpc); ok {
		return r
	}
	r := computeRule(as, cache, lpc, pc)
	rc.Put(lpc, r)
	return r
}

// computeRule looks at the code first: the trampolines are unwound from
// the signal context, which holds every register. Then the address
// space's unwind info: DWARF CFI, else (the address space asks it after
// CFI, TablesAfterCFI) the EHABI index entry.
func computeRule(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	switch sigreturnAt(as, pc) {
	case 119:
		return &rule{kind: ruleSigreturn}
	case 173:
		return &rule{kind: ruleRTSigreturn}
	}
	pi, err := cache.FindProcInfo(as, lpc)
	switch {
	case err == nil && pi.Format == unwind.FormatCFI:
		fde, ok := pi.Info.(*cfi.FDE)
		if !ok {
			err = fmt.Errorf("pc %#x: CFI proc info carries %T: %w", lpc, pi.Info, unwind.ErrNoInfo)
			break
		}
		row, rerr := fde.RowAt(lpc - pi.Bias)
		if rerr == nil {
			return &rule{kind: ruleCFI, row: row, signal: fde.CIE.Signal, raCol: fde.CIE.RAColumn}
		}
		err = fmt.Errorf("CFI at %#x: %w", lpc, rerr)
	case err == nil && pi.Format == unwind.FormatUnwindTable:
		e, ok := pi.Info.(*exidx.Entry)
		if !ok {
			err = fmt.Errorf("pc %#x: unwind table entry is %T: %w", lpc, pi.Info, unwind.ErrNoInfo)
			break
		}
		u, uerr := e.Unwind()
		if errors.Is(uerr, exidx.ErrCantUnwind) {
			return &rule{kind: ruleCantUnwind}
		}
		if uerr != nil {
			err = fmt.Errorf("pc %#x: %w", lpc, uerr)
			break
		}
		// gdb's checks (arm_exidx_unwind_sniffer), where the function
		// is known from the symbol table (without a symbol there is
		// no prologue to decode either, and the entry is the best
		// guess): an entry that begins before the function belongs to
		// an earlier one (the index marks no ends; ld does not always
		// fill the gaps with EXIDX_CANTUNWIND); and an interrupted
		// frame (lpc == pc: the exact pc) may be in a prologue or
		// epilogue, which the index does not describe, so it is
		// trusted there only when the thread is blocked in a system
		// call (libc guarantees the tables at those, for thread
		// cancellation). Else the prologue and lr decide.
		if _, off, nerr := as.ProcName(lpc); nerr == nil && off <= lpc {
			if start := lpc - off; start > pi.StartIP {
				err = fmt.Errorf("pc %#x: the EXIDX entry at %#x belongs to a function before %#x: %w", lpc, pi.StartIP, start, unwind.ErrNoInfo)
				break
			}
			if lpc == pc && !afterSVC(as, pc) {
				err = fmt.Errorf("pc %#x: EXIDX does not describe an interrupted frame outside a system call: %w", pc, unwind.ErrNoInfo)
				break
			}
		}
		return &rule{kind: ruleExidx, ops: exidx.Decode(u.Code)}
	case err == nil:
		err = fmt.Errorf("pc %#x: unwind info format %v is not decoded for arm: %w", lpc, pi.Format, unwind.ErrNoInfo)
	case errors.Is(err, unwind.ErrNoInfo):
		err = fmt.Errorf("no unwind info for pc %#x: %w", lpc, unwind.ErrNoInfo)
	}
	return &rule{kind: ruleNone, err: err}
}

// afterSVC reports whether the instruction before pc is a supervisor
// call, in Thumb (svc #imm8) or ARM (svc #imm24) code. The pc of an
// interrupted frame does not say its state; both encodings are tried,
// each where its alignment allows.
func afterSVC(as unwind.AddrSpace, pc uint64) bool {
	order := as.ByteOrder()
	var b [4]byte
	if pc >= 2 && as.ReadMem(pc-2, b[:2]) == nil && order.Uint16(b[:])&0xff00 == thumbSvc {
		return true
	}
	return pc >= 4 && pc%4 == 0 && as.ReadMem(pc-4, b[:]) == nil && order.Uint32(b[:])&0x0f000000 == 0x0f000000
}
