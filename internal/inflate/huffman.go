package inflate

import "math/bits"

// A decode table maps the next rootBits bits of the stream to an entry
// (uint32) that says what they start with, so that one lookup gives a
// literal, or a length or distance base together with how many extra
// bits follow it. Codes longer than rootBits go through a pointer entry
// to a subtable indexed by the bits after the root ones.
//
//	bits  0-5   bits to consume: the code's length plus its extra bits
//	            (a pointer: the root bits)
//	bits  8-11  the code's length (a pointer: the subtable's index bits)
//	bit  12     pointer to a subtable at value
//	bit  13     end of block
//	bit  14     invalid: no code, or a symbol DEFLATE does not define
//	bit  15     literal byte value
//	bits 16-31  value: the literal, the length or distance base, the
//	            code-length symbol, or the subtable's offset
//
// Consuming code and extra bits at once, the extra bits' value is
// (bits & (1<<total - 1)) >> codeLen.
const (
	entrySub     = 1 << 12
	entryEOB     = 1 << 13
	entryInvalid = 1 << 14
	entryLiteral = 1 << 15
)

// Root table sizes: 11 bits holds almost every literal/length code of
// real streams with the table in L1; distance codes are shorter.
const (
	litlenRootBits  = 11
	distRootBits    = 8
	precodeRootBits = 7 // code-length codes are at most 7 bits: no subtables
	maxCodeLen      = 15
)

// Tables are arrays as large as any code can need (the root, and for
// each symbol at most one subtable as wide as the bits left of the
// longest code), so that the hot loop indexes them without keeping their
// lengths in registers.
type (
	litlenTable  [1<<litlenRootBits + 288<<(maxCodeLen-litlenRootBits)]uint32
	distTable    [1<<distRootBits + 32<<(maxCodeLen-distRootBits)]uint32
	precodeTable [1 << precodeRootBits]uint32
)

// Symbol descriptions: an entry without its code length. Their extra
// bits count sits in bits 0-5, where buildTable adds the code length.
var (
	litlenSyms  [288]uint32
	distSyms    [32]uint32
	precodeSyms [19]uint32
)

func init() {
	for i := range 256 {
		litlenSyms[i] = entryLiteral | uint32(i)<<16
	}
	litlenSyms[256] = entryEOB
	// Lengths 3-258 (RFC 1951 3.2.5): symbol 257+i has base lengthBase[i].
	base := uint32(3)
	for i := range 28 {
		extra := uint32(0)
		if i >= 8 {
			extra = uint32(i/4 - 1)
		}
		litlenSyms[257+i] = base<<16 | extra
		base += 1 << extra
	}
	litlenSyms[285] = 258 << 16
	litlenSyms[286], litlenSyms[287] = entryInvalid, entryInvalid
	base = 1
	for i := range 30 {
		extra := uint32(0)
		if i >= 4 {
			extra = uint32(i/2 - 1)
		}
		distSyms[i] = base<<16 | extra
		base += 1 << extra
	}
	distSyms[30], distSyms[31] = entryInvalid, entryInvalid
	for i := range precodeSyms {
		precodeSyms[i] = uint32(i) << 16
	}
}

// buildTable fills tab with the decode table of the canonical Huffman code
// whose code lengths are lengths (symbol i has length lengths[i], 0 for
// unused) and whose symbols syms describes. Like compress/flate it refuses
// over-subscribed and incomplete codes, except a code with no symbols
// (decoding with it fails) and one with a single 1-bit code (zlib writes
// those; the other bit pattern fails).
func buildTable(tab []uint32, lengths []uint8, syms []uint32, rootBits uint) bool {
	var count [maxCodeLen + 1]int
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	maxLen, left := 0, 1
	for l := 1; l <= maxCodeLen; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false
		}
		if count[l] > 0 {
			maxLen = l
		}
	}
	if left > 0 && maxLen > 0 && !(maxLen == 1 && count[1] == 1) {
		return false
	}
	// First code of each length, in the canonical order (RFC 1951 3.2.2).
	var next [maxCodeLen + 1]uint32
	code := uint32(0)
	for l := 1; l <= maxCodeLen; l++ {
		code = (code + uint32(count[l-1])) << 1
		next[l] = code
	}
	// The stream sends codes most significant bit first and the buffer
	// holds them low bit first, so tables are indexed by reversed codes.
	// A root slot holding long codes gets a subtable as wide as its
	// longest one.
	rootSize := 1 << rootBits
	var subBits [1 << litlenRootBits]uint8
	size := rootSize
	if maxLen > int(rootBits) {
		c := next
		for _, l := range lengths {
			if uint(l) > rootBits {
				r := reverse(c[l], l) & (1<<rootBits - 1)
				subBits[r] = max(subBits[r], l-uint8(rootBits))
			}
			c[l]++
		}
		for r := range rootSize {
			if subBits[r] > 0 {
				size += 1 << subBits[r]
			}
		}
	}
	if size > len(tab) {
		return false // cannot happen: see the table types
	}
	tab = tab[:size]
	if left > 0 {
		// Only an incomplete code leaves entries unfilled.
		for i := range tab {
			tab[i] = entryInvalid
		}
	}
	off := rootSize
	for r := range rootSize {
		if subBits[r] > 0 {
			tab[r] = entrySub | uint32(off)<<16 | uint32(subBits[r])<<8 | uint32(rootBits)
			off += 1 << subBits[r]
		}
	}
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		e := syms[sym] + uint32(l)<<8 + uint32(l)
		r := reverse(next[l], l)
		next[l]++
		if uint(l) <= rootBits {
			for i := int(r); i < rootSize; i += 1 << l {
				tab[i] = e
			}
			continue
		}
		p := tab[r&(1<<rootBits-1)]
		sub := tab[p>>16 : p>>16+1<<(p>>8&15)]
		for i := int(r >> rootBits); i < len(sub); i += 1 << (uint(l) - rootBits) {
			sub[i] = e
		}
	}
	return true
}

// reverse returns the low n bits of code in reverse order.
func reverse(code uint32, n uint8) uint32 {
	return uint32(bits.Reverse16(uint16(code))) >> (16 - n)
}

// lookup returns the entry of the code at the bottom of b.
func lookup(t []uint32, rootMask uint64, b uint64) uint32 {
	e := t[b&rootMask]
	if e&entrySub != 0 {
		e = subEntry(t, e, b)
	}
	return e
}

// subEntry returns the entry that the root entry e, a pointer, leads
// to for the code at the bottom of b.
func subEntry(t []uint32, e uint32, b uint64) uint32 {
	return t[e>>16+uint32(b>>(e&63))&(1<<(e>>8&15)-1)]
}

// entryValue is a length or distance entry's value: its base plus the
// extra bits that follow its code at the bottom of b.
func entryValue(e uint32, b uint64) int {
	return int(e>>16) + int(b&(1<<(e&63)-1)>>(e>>8&15))
}
