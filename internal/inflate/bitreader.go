package inflate

import "encoding/binary"

// bitReader holds the input and a 64-bit buffer of its next bits, least
// significant first (DEFLATE packs codes from the low bit of each byte).
//
// Bits above nbits may hold bits of the bytes of rest: a refill ORs the
// same bytes at the same places again, which changes nothing, and so
// needs no masking.
//
// Past the end of the input the buffer is filled with zero bytes, which
// pad counts; pastEnd tells whether any of those were really used
// (truncated input). A refill adds at most 8 of them, and each is checked
// for before the next one.
type bitReader struct {
	src   []byte // the whole input
	rest  []byte // the bytes of src not loaded into bits yet
	pad   int    // zero bytes loaded past the end of src
	bits  uint64 // next bits of the stream, low first
	nbits uint   // how many of bits are valid
}

// refill tops the buffer up to at least 56 valid bits. It is a function
// of plain values so that the decode loop keeps them in registers (the
// input as one slice: one register fewer than a slice and an index).
func refill(rest []byte, bits uint64, nbits uint, pad *int) ([]byte, uint64, uint) {
	if len(rest) >= 8 {
		return refillFast(rest, bits, nbits)
	}
	return refillSlow(rest, bits, nbits, pad)
}

// refillFast is refill with at least 8 bytes of input left: one load
// brings (63-nbits)/8 whole new bytes into the buffer. Only nbits' low 6
// bits count (decodeFast keeps it modulo 64).
func refillFast(rest []byte, bits uint64, nbits uint) ([]byte, uint64, uint) {
	bits |= binary.LittleEndian.Uint64(rest) << (nbits & 63)
	return rest[7-(nbits>>3)&7:], bits, nbits | 56
}

// refillSlow loads the last bytes of the input one at a time, then zeros.
func refillSlow(rest []byte, bits uint64, nbits uint, pad *int) ([]byte, uint64, uint) {
	for ; nbits <= 56; nbits += 8 {
		if len(rest) > 0 {
			bits |= uint64(rest[0]) << nbits
			rest = rest[1:]
		} else {
			*pad++
		}
	}
	return rest, bits, nbits
}

// pastEnd tells whether bits beyond the end of the input have been
// consumed.
func (br *bitReader) pastEnd() bool {
	return br.pad*8 > int(br.nbits)
}

func (br *bitReader) refill() {
	br.rest, br.bits, br.nbits = refill(br.rest, br.bits, br.nbits, &br.pad)
}

// take consumes n bits (n <= 32) and returns them; the caller has
// refilled since enough were used.
func (br *bitReader) take(n uint) uint32 {
	v := uint32(br.bits & (1<<n - 1))
	br.bits >>= n
	br.nbits -= n
	return v
}

// consumed is how many bytes of src have been used, whole or in part.
func (br *bitReader) consumed() int {
	return min(len(br.src), len(br.src)-len(br.rest)+br.pad-int(br.nbits/8))
}

// alignToByte drops the bits left of the current byte and empties the
// buffer, leaving rest at the next whole byte (stored blocks read the
// input directly). The caller has checked pastEnd.
func (br *bitReader) alignToByte() {
	br.rest = br.src[br.consumed():]
	br.bits, br.nbits, br.pad = 0, 0, 0
}
