package inflate

import "encoding/binary"

// bitReader holds the input and a 64-bit buffer of its next bits, least
// significant first (DEFLATE packs codes from the low bit of each byte).
//
// Bits above nbits may hold bits of the bytes from in on: a refill ORs
// the same bytes at the same places again, which changes nothing, and so
// needs no masking.
//
// Past the end of src the buffer is filled with zero bytes and in counts
// on; consumed tells whether any of those were really used (truncated
// input). A refill adds at most 8 of them, and each is checked for before
// the next one.
type bitReader struct {
	src   []byte
	in    int    // next byte of src to load (may pass len(src): padding)
	bits  uint64 // next bits of the stream, low first
	nbits uint   // how many of bits are valid
}

// refill tops the buffer up to at least 56 valid bits. It is a function
// of plain values so that the decode loop keeps them in registers.
func refill(src []byte, in int, bits uint64, nbits uint) (int, uint64, uint) {
	if in <= len(src)-8 {
		// One load brings (63-nbits)/8 whole new bytes into the buffer.
		bits |= binary.LittleEndian.Uint64(src[in:]) << (nbits & 63)
		in += int(63-nbits) >> 3
		return in, bits, nbits | 56
	}
	return refillSlow(src, in, bits, nbits)
}

// refillSlow loads the last bytes of src one at a time, then zeros.
func refillSlow(src []byte, in int, bits uint64, nbits uint) (int, uint64, uint) {
	for nbits <= 56 {
		if in < len(src) {
			bits |= uint64(src[in]) << nbits
		}
		in++
		nbits += 8
	}
	return in, bits, nbits
}

// pastEnd tells whether bits beyond the end of src have been consumed.
func pastEnd(src []byte, in int, nbits uint) bool {
	return in > len(src) && (in-len(src))*8 > int(nbits)
}

func (br *bitReader) refill() {
	br.in, br.bits, br.nbits = refill(br.src, br.in, br.bits, br.nbits)
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
	return min(len(br.src), br.in-int(br.nbits/8))
}

// alignToByte drops the bits left of the current byte and empties the
// buffer, leaving in at the next whole byte (stored blocks read src
// directly).
func (br *bitReader) alignToByte() {
	br.in -= int(br.nbits / 8)
	br.bits, br.nbits = 0, 0
}
