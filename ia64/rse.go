package ia64

// Register Stack Engine backing-store arithmetic (the kernel's asm/rse.h,
// libunwind's rse.h): 8 bytes per stacked register, and every 64th
// doubleword — address bits 8:3 all set — holds a NaT collection instead.

func rseSlotNum(a uint64) int64 { return int64(a>>3) & 0x3f }

// RSEIsRNaTSlot reports whether a is a NaT-collection slot.
func RSEIsRNaTSlot(a uint64) bool { return rseSlotNum(a) == 0x3f }

// RSERNaTAddr is the NaT-collection word of a's 512-byte group.
func RSERNaTAddr(a uint64) uint64 { return a | 0x3f<<3 }

// RSENumRegs counts the registers stored in [bspstore, bsp).
func RSENumRegs(bspstore, bsp uint64) int64 {
	slots := int64(bsp-bspstore) >> 3
	return slots - (rseSlotNum(bspstore)+slots)/0x40
}

// RSESkipRegs is the address of the register n registers after (n < 0:
// before) the one at a, not counting NaT-collection slots.
func RSESkipRegs(a uint64, n int64) uint64 {
	delta := rseSlotNum(a) + n
	if n < 0 {
		delta -= 0x3e
	}
	return a + uint64((n+delta/0x3f)<<3)
}

// Frame marker fields (CFM, and ar.pfs's pfm).
func cfmSOF(cfm uint64) int64 { return int64(cfm & 0x7f) }
func cfmSOL(cfm uint64) int64 { return int64(cfm >> 7 & 0x7f) }

const cfmMask = 1<<38 - 1
