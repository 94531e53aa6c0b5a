package ppc64

import "github.com/coreunwind/coreunwind/unwind"

// restoreTOC gives a returning caller its own TOC pointer (r2). Within a
// module every function shares one TOC, so r2 carries over from the
// callee (preserved). A call that may leave the module (through a PLT
// stub, or a call linked to another module's global entry point) is
// followed by "ld r2,N(r1)": the stub saved the caller's r2 at N(r1),
// N = 24 in ELFv2 and 40 in ELFv1, and the callee's r2 is another
// module's TOC. That instruction is what the caller runs next, so its r2
// is the saved one. The CFI of neither module says so.
func (l *layout) restoreTOC(as unwind.AddrSpace, caller *unwind.Frame) {
	ra, ok1 := caller.Get(PC)
	sp, ok2 := caller.Get(SP)
	if !l.toc || !ok1 || !ok2 || caller.ExactPC {
		return
	}
	insn, ok := readInsn(as, ra)
	if !ok || insn&0xffff0003 != 0xe8410000 { // ld r2,D(r1)
		return
	}
	slot := sp + uint64(int64(int16(insn&0xfffc)))
	if v, err := l.readWord(as, slot); err == nil {
		caller.Set(TOC, v, unwind.SaveLoc{Kind: unwind.LocMem, Addr: slot})
	}
}
