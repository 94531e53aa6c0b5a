package pa64

// The prologue scan: what a function's entry code did to sp and where it
// stored rp and the callee-saved registers, read from the instructions
// between the region start and the frame's pc (gdb's hppa_frame_cache and
// the Linux kernel's unwind_frame_regs do the same; the table only gives
// counts and the final frame size).

// prologue is the scan's result, offsets relative to the frame base (the
// sp at entry, which is the caller's sp).
type prologue struct {
	size     int64 // bytes added to sp by the instructions executed
	rpOff    int64 // rp's slot (base + rpOff), valid if rpSaved
	rpSaved  bool
	mrpOff   int64 // r31's (the millicode return pointer's) slot, valid if mrpSaved
	mrpSaved bool
	saves    map[int]int64  // general register -> slot offset from the base
	fsaves   map[int]frSlot // floating-point register (FR0+n) -> its save slot
	fpCopied bool           // "copy %sp,%r3" executed: r3 holds the base
}

// frSlot is where the prologue stored a floating-point register: the
// whole 64-bit register (fstd), or one 32-bit half of it (fstw of frNL
// or frNR, which PA 1.1 code may use for single-precision values).
type frSlot struct {
	off  int64
	half frHalf
}

type frHalf uint8

const (
	frWhole frHalf = iota
	frLeft         // the most significant word (frNL)
	frRight        // the least significant word (frNR)
)

// im14 decodes PA-RISC's 14-bit immediate with the sign in the low bit.
func im14(w uint32) int64 {
	v := int64(w&0x3fff) >> 1
	if w&1 != 0 {
		v -= 1 << 13
	}
	return v
}

// im5 decodes the 5-bit short displacement, sign in the low bit.
func im5(w uint32) int64 {
	v := int64(w&0x1f) >> 1
	if w&1 != 0 {
		v -= 1 << 4
	}
	return v
}

// im21 decodes addil/ldil's 21-bit left immediate (assemble_21) as the
// value it adds (already shifted left by 11).
func im21(w uint32) int64 {
	x := w & 0x1fffff
	v := (x&1)<<20 | (x>>1&0x7ff)<<9 | (x>>14&3)<<7 | (x>>16&0x1f)<<2 | (x >> 12 & 3)
	r := int64(v) << 11
	if x&1 != 0 {
		r -= 1 << 32
	}
	return r
}

// std long-displacement offset: ((w >> 4) & 0x3ff) << 3, negative if w&1.
func stdDisp(w uint32) int64 {
	v := int64((w>>4)&0x3ff) << 3
	if w&1 != 0 {
		v -= 1 << 13
	}
	return v
}

const (
	insCopySPR3 = 0x081E0243 // copy %sp,%r3
	insCopyR3R1 = 0x08030241 // copy %r3,%r1
)

// scanPrologue decodes the words of a function from its entry up to (not
// including) the instruction at pc. read returns false when code memory
// is unavailable. Scanning stops at the first branch after its delay
// slot: the prologue is over by then.
func scanPrologue(read func(addr uint64) (uint32, bool), start, pc uint64, wide bool) prologue {
	p := prologue{saves: map[int]int64{}, fsaves: map[int]frSlot{}}
	r1HoldsR3 := false
	// r1 as an address in the frame: gcc points r1 into the register save
	// area ("ldo -80(%sp),%r1") and then saves the floating-point
	// registers with post-incrementing stores through it.
	r1Off, r1Known := int64(0), false
	fstore := func(reg int, off int64, half frHalf) {
		if _, dup := p.fsaves[FR0+reg]; !dup && calleeSaved(FR0+reg) {
			p.fsaves[FR0+reg] = frSlot{off, half}
		}
	}
	pendingL := int64(0)
	branchSeen := false
	const maxScan = 4096 // instructions; prologues are short
	for addr, n := start, 0; addr < pc && n < maxScan; addr, n = addr+4, n+1 {
		w, ok := read(addr)
		if !ok {
			break
		}
		op := w >> 26
		b, r := int(w>>21&31), int(w>>16&31)
		store := func(reg int, off int64) {
			if reg == R1 && r1HoldsR3 {
				reg = R3
			}
			if reg == RP {
				if !p.rpSaved {
					p.rpOff, p.rpSaved = off, true
				}
				return
			}
			if reg == R31 {
				// Millicode with Save_MRP_in_frame keeps its return
				// link in the frame marker (stw %r31,-20(%sp)).
				if !p.mrpSaved {
					p.mrpOff, p.mrpSaved = off, true
				}
				return
			}
			if _, dup := p.saves[reg]; !dup && calleeSaved(reg) {
				p.saves[reg] = off
			}
		}
		switch {
		case w&0xffffc000 == 0x37de0000: // ldo N(%sp),%sp
			p.size += im14(w)
		case w&0xffe00000 == 0x2bc00000: // addil L%x,%sp (result in r1)
			pendingL = im21(w)
			r1Off, r1Known, r1HoldsR3 = p.size+pendingL, true, false
		case w&0xffff0000 == 0x343e0000: // ldo R%x(%r1),%sp
			p.size += pendingL + im14(w)
			pendingL = 0
		case w&0xffff0000 == 0x37c10000: // ldo N(%sp),%r1
			r1Off, r1Known, r1HoldsR3 = p.size+im14(w), true, false
		case w&0xffff0000 == 0x34610000 && p.fpCopied: // ldo N(%r3),%r1
			r1Off, r1Known, r1HoldsR3 = im14(w), true, false
		case w&0xffff0000 == 0x34210000 && r1Known: // ldo N(%r1),%r1
			r1Off += im14(w)
		case (op == 0x0b || op == 0x09) && w&0x1200 == 0x1200 && w&0x180 == 0:
			// fstd / fstw fr,im5(b) with optional ,ma / ,mb (the
			// short-displacement coprocessor store).
			var at *int64
			var zero int64
			switch {
			case b == SP:
				at = &p.size
			case b == R1 && r1Known:
				at = &r1Off
			case b == R3 && p.fpCopied:
				at = &zero // r3 is the base itself
			}
			if at == nil {
				break
			}
			d, slot := im5(w>>16), *at
			switch {
			case w&0x20 != 0 && w&0x2000 == 0: // ,ma: store, then modify
				*at += d
			case w&0x20 != 0: // ,mb: modify, then store
				*at += d
				slot = *at
			default:
				slot += d
			}
			half := frWhole
			if op == 0x09 {
				half = frLeft
				if w&0x40 != 0 {
					half = frRight
				}
			}
			fstore(int(w&31), slot, half)
		case op == 0x1c && w&2 != 0 && (b == SP || b == R1 && r1Known):
			// fstd fr,d(b) long displacement (PA 2.0), optional ,ma / ,mb.
			at := &p.size
			if b == R1 {
				at = &r1Off
			}
			d, slot := stdDisp(w), *at
			switch {
			case w&0x8 != 0 && w&0x4 == 0:
				*at += d
			case w&0x8 != 0:
				*at += d
				slot = *at
			default:
				slot += d
			}
			fstore(r, slot, frWhole)
		case op == 0x1b && b == SP: // stwm r,N(%sp): store at sp, then sp += N
			d := im14(w)
			if d >= 0 {
				store(r, p.size)
			} else {
				store(r, p.size+d)
			}
			p.size += d
		case p.fpCopied && b == R3 && (op == 0x1a || op == 0x1c && w&0xe == 0 || op == 0x03 && w&0x1380 == 0x1280 && w&0x20 == 0):
			// A store through the frame pointer (r3 = the entry sp).
			switch op {
			case 0x1a:
				store(r, im14(w))
			case 0x1c:
				store(r, stdDisp(w))
			default:
				store(r, im5(w))
			}
		case op == 0x1a && b == SP: // stw r,N(%sp)
			store(r, p.size+im14(w))
		case op == 0x1c && b == SP && w&0xe == 0: // std r,N(%sp)
			store(r, p.size+stdDisp(w))
		case op == 0x1c && b == SP && w&0xa == 0x8: // std,ma / std,mb r,N(%sp)
			d := stdDisp(w)
			if w&0x4 == 0 { // ,ma: store at sp, then modify
				store(r, p.size)
			} else {
				store(r, p.size+d)
			}
			p.size += d
		case op == 0x03 && b == SP && w&0x13c0 == 0x12c0 && w&0x20 == 0: // std r,im5(%sp) (short form)
			store(r, p.size+im5(w))
		case op == 0x03 && b == SP && w&0x13c0 == 0x1280 && w&0x20 == 0: // stw r,im5(%sp) (short form)
			store(r, p.size+im5(w))
		case w == insCopySPR3:
			p.fpCopied = true
		case w == insCopyR3R1:
			r1HoldsR3, r1Known = true, false
		}
		if branchSeen {
			break
		}
		if isBranch(w) {
			branchSeen = true
		}
	}
	return p
}

// isBranch reports whether w transfers control (its delay slot is still
// part of the straight-line prologue).
func isBranch(w uint32) bool {
	switch w >> 26 {
	case 0x38, 0x39, 0x3a, 0x3b, // be, be,l, b,l / bv / bve, cmpb..
		0x20, 0x21, 0x22, 0x23, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2f, 0x30, 0x31, 0x32, 0x33:
		return true
	}
	return false
}
