package inflate

import "encoding/binary"

// A match copies length bytes from distance back in the output. Source
// and destination overlap when distance < length: the copy then repeats
// the last distance bytes, as DEFLATE means it to. Both copies here are
// small enough to inline, so that the decode loop makes no calls (a call
// makes the compiler keep its variables on the stack).

// copyWords copies a match of length bytes to dst[out:] 8 bytes at a
// time, writing up to 7 bytes past its end (later output overwrites
// them). The caller makes sure dst has room for that and that distance
// is at least 8, so that each word is read whole before anything
// overwrites it.
func copyWords(dst []byte, out, distance, length int) {
	// Most matches are at most 8 bytes long (86% of glibc's
	// .debug_info's): one word, then the rest if there is any.
	to, from := dst[out:], dst[out-distance:]
	binary.LittleEndian.PutUint64(to, binary.LittleEndian.Uint64(from))
	for i := 8; i < length; i += 8 {
		binary.LittleEndian.PutUint64(to[i:], binary.LittleEndian.Uint64(from[i:]))
	}
}

// copyBytes copies as much of a match as fits in dst byte by byte, and
// returns how many bytes it wrote.
func copyBytes(dst []byte, out, distance, length int) int {
	to := dst[out:min(len(dst), out+length)]
	from := dst[out-distance:][:len(to)]
	for i := range to {
		to[i] = from[i] // an overlapping source repeats
	}
	return len(to)
}

// copyRun writes a match of distance 1 (a run of the byte before out) 8
// bytes at a time, writing up to 7 bytes past its end as copyWords does.
func copyRun(dst []byte, out, length int) {
	word := uint64(dst[out-1]) * 0x0101010101010101
	for i := out; i < out+length; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], word)
	}
}

// copyPattern copies a match whose distance is 2 to 7 by words that
// advance by distance: each word's first distance bytes are right (they
// repeat bytes already in place) and the rest is overwritten by the next
// word, the last one's up to 7 bytes past the match's end, as in
// copyWords.
func copyPattern(dst []byte, out, distance, length int) {
	for i := out; i < out+length; i += distance {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i-distance:]))
	}
}
