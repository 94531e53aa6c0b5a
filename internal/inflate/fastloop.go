package inflate

// fastRoom is the output room decodeFast keeps free at the top of each
// round: two literals, the longest match and the 7 bytes a word copy may
// write past a match's end.
const fastRoom = 2 + 258 + 8

// fastInput is the input decodeFast keeps at the top of each round: two
// refills of at most 7 bytes each, each loading 8.
const fastInput = 16

// decodeFast decodes the bulk of a Huffman block, where neither the end
// of the input nor the end of dst can come within a round, and returns
// the decoder's new state where that no longer holds, at the block's end
// (ended) or at a bad code (err); decodeHuffman does the rest with checks.
//
// The shape is libdeflate's: most of a stream is literals and short
// matches, whose cost is the chain from one table lookup to the next, so
// that chain is kept short. Refills need no checks; the next code's entry
// is looked up before the refill that follows it (the bits it needs are
// there already), so the lookup does not wait for the load; up to three
// literals come from one refill (a literal of the root table takes at
// most 11 bits); a match is copied by whole words.
//
// nbits is kept modulo 64: a consumed entry is subtracted whole, as its
// low 6 bits are the bits it takes and bits 6-7 are clear.
func decodeFast(dst []byte, out int, rest []byte, bits uint64, nbits uint, litlen *litlenTable, dist *distTable) (int, []byte, uint64, uint, bool, error) {
	const litlenMask = 1<<litlenRootBits - 1
	end := len(dst) - fastRoom
	if out >= end || len(rest) < fastInput {
		return out, rest, bits, nbits, false, nil
	}
	rest, bits, nbits = refillFast(rest, bits, nbits)
	e := litlen[bits&litlenMask]
	for {
		// bits holds at least 45 valid bits (one literal was looked up
		// since the last refill, or a distance of at most 28 bits was
		// consumed before it): e is the entry of the code they start
		// with.
		if e&entryLiteral != 0 {
			out, bits, nbits, e = literal(dst, out, bits, nbits, e, litlen)
			if e&entryLiteral != 0 {
				out, bits, nbits, e = literal(dst, out, bits, nbits, e, litlen)
			}
		}
		// At most two root literals (22 bits) went before e: a code of
		// up to 15 bits and 5 extra ones still fit in what is left.
		if e&entrySub != 0 {
			e = subEntry(litlen[:], e, bits)
		}
		if e&entryLiteral != 0 {
			// A third literal, or one of a long code: the round ends
			// with it.
			out, bits, nbits, e = literal(dst, out, bits, nbits, e, litlen)
			rest, bits, nbits = refillFast(rest, bits, nbits)
			if out >= end || len(rest) < fastInput {
				break
			}
			continue
		}
		if e&(entryEOB|entryInvalid) != 0 {
			if e&entryInvalid != 0 {
				return out, rest, bits, nbits & 63, false, errBadLitlen
			}
			return out, rest, bits >> (e & 63), (nbits - uint(e)) & 63, true, nil
		}
		saved := bits
		bits >>= e & 63
		nbits -= uint(e)
		length := entryValue(e, saved)

		// The distance takes up to 15+13 bits: refill first (the round
		// began with fastInput bytes, so 8 are still there to load).
		rest, bits, nbits = refillFast(rest, bits, nbits)
		e = dist[bits&(1<<distRootBits-1)]
		if e&entrySub != 0 {
			e = subEntry(dist[:], e, bits)
		}
		if e&entryInvalid != 0 {
			return out, rest, bits, nbits & 63, false, errBadDist
		}
		saved = bits
		bits >>= e & 63
		nbits -= uint(e)
		distance := entryValue(e, saved)
		if distance > out {
			return out, rest, bits, nbits & 63, false, errFarDist
		}
		e = litlen[bits&litlenMask]
		rest, bits, nbits = refillFast(rest, bits, nbits)
		switch {
		case distance >= 8:
			copyWords(dst, out, distance, length)
		case distance == 1:
			copyRun(dst, out, length)
		default:
			copyPattern(dst, out, distance, length)
		}
		out += length
		if out >= end || len(rest) < fastInput {
			break
		}
	}
	return out, rest, bits, nbits & 63, false, nil
}

// literal writes the literal of entry e at dst[out], consumes its bits
// and looks up the entry of the code after it (before the store: the
// lookup is the chain that matters).
func literal(dst []byte, out int, bits uint64, nbits uint, e uint32, litlen *litlenTable) (int, uint64, uint, uint32) {
	bits >>= e & 63
	next := litlen[bits&(1<<litlenRootBits-1)]
	dst[out] = byte(e >> 16)
	return out + 1, bits, nbits - uint(e), next
}
