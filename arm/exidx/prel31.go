package exidx

// prel31 is the EHABI's place-relative 31-bit offset: bits 0–30 of word
// are a signed offset from the word's own address; bit 31 belongs to the
// encoding around it (it is zero in a prel31 field).
func prel31(word uint32) int64 { return int64(int32(word<<1) >> 1) }

// Well-known words of an index entry's second word.
const (
	// CantUnwind (EXIDX_CANTUNWIND) says the function cannot be unwound.
	CantUnwind = 0x1
	// inlineBit marks an entry whose second word is the unwind data
	// itself (personality routine 0, up to three opcodes).
	inlineBit = 0x80000000
)
