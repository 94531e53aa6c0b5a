package inflate

import "encoding/binary"

// copyMatch copies a match of length bytes from distance back in dst to
// dst[out:], as much of it as fits, and returns how many bytes it wrote.
// Source and destination overlap when distance < length: the copy then
// repeats the last distance bytes, as DEFLATE means it to.
func copyMatch(dst []byte, out, distance, length int) int {
	from := out - distance
	if len(dst)-out >= length+8 {
		switch {
		case distance >= 8:
			copyWords(dst, out, from, length)
			return length
		case distance == 1:
			// A run of one byte: fill words.
			v := uint64(dst[from]) * 0x0101010101010101
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(dst[out+i:], v)
			}
			return length
		}
	}
	to := dst[out:min(len(dst), out+length)]
	src := dst[from : from+len(to)]
	for i := range to {
		to[i] = src[i] // byte by byte: an overlapping source repeats
	}
	return len(to)
}

// copyWords copies length bytes from dst[from:] to dst[out:] 8 at a time,
// writing up to 7 bytes past the end (later output overwrites them): the
// caller makes sure there is room and that from is at least 8 before out,
// so each word is read whole before anything overwrites it.
func copyWords(dst []byte, out, from, length int) {
	for i := 0; i < length; i += 8 {
		binary.LittleEndian.PutUint64(dst[out+i:], binary.LittleEndian.Uint64(dst[from+i:]))
	}
}
