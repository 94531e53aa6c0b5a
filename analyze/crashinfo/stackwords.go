package crashinfo

// The frames below a frame of interest (the one that panicked, the one
// that threw) are the runtime's machinery, whose values (a panic's
// location, an exception's header) are found on their stack by what
// they are.

// maxStackScan bounds the bytes of stack searched.
const maxStackScan = 256 << 10

// stackBelow is the stack of the frames before frame i: from frame 0's
// stack pointer to frame i's.
func (a *analysis) stackBelow(i int) (lo, hi uint64, ok bool) {
	fs := a.in.Frames
	if i <= 0 || i >= len(fs) || fs[0].SP == nil || fs[i].SP == nil {
		return 0, 0, false
	}
	lo, hi = uint64(*fs[0].SP), uint64(*fs[i].SP)
	if hi <= lo {
		return 0, 0, false
	}
	ps := uint64(a.in.Mem.PtrSize())
	return lo &^ (ps - 1), min(hi, lo+maxStackScan), true
}

// stackPtrWords reads the pointer-sized words of [lo, hi), as far as the
// core has them.
func (a *analysis) stackPtrWords(lo, hi uint64) []uint64 {
	m := a.in.Mem
	ps := m.PtrSize()
	b := readUpTo(m, lo, int(hi-lo))
	words := make([]uint64, len(b)/ps)
	for i := range words {
		if ps == 4 {
			words[i] = uint64(m.ByteOrder().Uint32(b[4*i:]))
		} else {
			words[i] = m.ByteOrder().Uint64(b[8*i:])
		}
	}
	return words
}
