package aarch64

import "github.com/coreunwind/coreunwind/unwind"

// Pointer authentication (ARMv8.3 PAC). Code built with
// -mbranch-protection signs the link register on entry (paciasp) and
// authenticates it before returning (autiasp); meanwhile the saved copy
// on the stack, and x30 itself, hold the return address with a
// signature in its unused top bits. CFI marks the signed stretch with
// DW_CFA_AARCH64_negate_ra_state (cfi.Row.WindowSave). A signed address
// is useless as a PC: every return address is stripped before use.
//
// The signature's bits are the thread's instruction mask from
// NT_ARM_PAC_MASK (the kernel's GENMASK(54, vabits): bits 48–54 with a
// 48-bit address space). Cores without the note (qemu-user writes none,
// nor do kernels without PAC) fall back to a 48-bit user address space:
// bits 48–63 are not address bits, covering the signature and a top-byte
// tag alike. Bit 55 selects the half of the address space: a kernel
// address (bit 55 set) has those bits set instead of cleared.
//
// Stripping is applied whether or not the CFI says the address is
// signed: an unsigned return address has the masked bits already clear
// (or set, in the kernel half), so stripping it changes nothing, and
// frame records and stack slots found without CFI may be signed too.

// defaultPACMask is the non-address part of a code pointer without
// NT_ARM_PAC_MASK: bits 48–63 (48-bit virtual addresses).
const defaultPACMask = 0xffff_0000_0000_0000

// stripPAC removes a pointer-authentication code from ra, using the
// mask the frame carries (from the core) or the 48-bit default.
func stripPAC(f *unwind.Frame, ra uint64) uint64 {
	mask := uint64(defaultPACMask)
	if m, ok := f.Get(PACMask); ok && m != 0 {
		// The note's mask covers the PAC field only; the top byte is a
		// tag the hardware ignores in user addresses (TBI) either way.
		mask = m | 0xff00_0000_0000_0000
	}
	if ra&(1<<55) != 0 {
		return ra | mask
	}
	return ra &^ mask
}

// carryPACMask passes the thread's PAC mask on to the caller frame (the
// CFI path carries it as a preserved register; the fallbacks call this).
func carryPACMask(callee, caller *unwind.Frame) {
	if m, ok := callee.Get(PACMask); ok {
		caller.Set(PACMask, m, callee.Locs[PACMask])
	}
}
