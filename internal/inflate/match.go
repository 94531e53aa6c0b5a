package inflate

import "encoding/binary"

// copyMatch copies a match of length bytes from distance back in dst to
// dst[out:], as much of it as fits, and returns how many bytes it wrote.
// Source and destination overlap when distance < length: the copy then
// repeats the last distance bytes, as DEFLATE means it to.
func copyMatch(dst []byte, out, distance, length int) int {
	from := out - distance
	// With 8 bytes of room past the match, copy whole words and let the
	// last one spill: what it writes past the match is overwritten later.
	if len(dst)-out >= length+8 {
		switch {
		case distance >= 8:
			// Each word is read whole before the one it overlaps is written.
			for i := 0; i < length; i += 8 {
				binary.LittleEndian.PutUint64(dst[out+i:], binary.LittleEndian.Uint64(dst[from+i:]))
			}
			return length
		case distance == 1:
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
