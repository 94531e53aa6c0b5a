// Package i386 unwinds 32-bit x86 (IA-32) Linux stacks: the register file
// in DWARF numbering, the NT_PRSTATUS register set of i386 cores, DWARF
// CFI stepping (the row application is internal/cfistep's), the signal
// trampolines (the vDSO's __kernel_sigreturn and __kernel_rt_sigreturn,
// glibc's __restore and __restore_rt) and the frame-pointer and
// stack-scan fallbacks it shares with x86_64 (internal/x86frame). It
// registers itself with package unwind as "i386"; import it for its side
// effect.
package i386
