// Package x86_64 unwinds x86-64 (AMD64) stacks: the register file in DWARF
// numbering, the Linux core register set, DWARF CFI stepping, the
// rt_sigreturn trampoline, and the frame-pointer and stack-scan fallbacks
// for code without CFI. It registers itself with package unwind as
// "x86_64"; import it for its side effect.
package x86_64

import "github.com/coreunwind/coreunwind/unwind"

func init() {
	unwind.Register(Arch{})
	unwind.Register(Arch{x32: true})
}
