package inflate

import "io"

// decodeHuffman decodes the current Huffman block into dst[out:] until
// dst is full, the block ends or the stream is bad, and returns the new
// output position. Back-references may reach back to dst[0].
//
// This is the hot loop: the bit buffer lives in locals, one refill serves
// a whole literal or match (at most 15+5 bits of length and 15+13 of
// distance, under the 56 a refill guarantees).
func (d *Decoder) decodeHuffman(dst []byte, out int) (int, error) {
	if d.matchLen > 0 {
		if d.matchDist > out {
			return out, d.corrupt(errFarDist.Error())
		}
		n := copyBytes(dst, out, d.matchDist, d.matchLen)
		out += n
		if d.matchLen -= n; d.matchLen > 0 {
			return out, nil
		}
	}
	rest, bits, nbits := d.br.rest, d.br.bits, d.br.nbits
	litlen, dist := d.litlen, d.dist
	out, rest, bits, nbits, ended, err := decodeFast(dst, out, rest, bits, nbits, litlen, dist)
	if ended {
		d.endBlock()
	}
	for !ended && err == nil && uint(out) < uint(len(dst)) { // unsigned: dst[out] needs no bounds check
		if nbits < 48 {
			rest, bits, nbits = refill(rest, bits, nbits, &d.br.pad)
			if d.br.pad*8 > int(nbits) { // see pastEnd
				err = io.ErrUnexpectedEOF
				break
			}
		}
		e := lookup(litlen[:], 1<<litlenRootBits-1, bits)
		total := uint(e & 63)
		if e&entryLiteral != 0 {
			bits >>= total
			nbits -= total
			dst[out] = byte(e >> 16)
			out++
			continue
		}
		if e&(entryEOB|entryInvalid) != 0 {
			if e&entryInvalid != 0 {
				err = errBadLitlen
				break
			}
			bits >>= total
			nbits -= total
			d.endBlock()
			break
		}
		length := entryValue(e, bits)
		bits >>= total
		nbits -= total

		e = lookup(dist[:], 1<<distRootBits-1, bits)
		if e&entryInvalid != 0 {
			err = errBadDist
			break
		}
		total = uint(e & 63)
		distance := entryValue(e, bits)
		bits >>= total
		nbits -= total
		if distance > out {
			err = errFarDist
			break
		}
		if distance >= 8 && len(dst)-out >= length+8 {
			copyWords(dst, out, distance, length)
			out += length
			continue
		}
		n := copyBytes(dst, out, distance, length)
		out += n
		if n < length {
			d.matchLen, d.matchDist = length-n, distance
			break
		}
	}
	d.br.rest, d.br.bits, d.br.nbits = rest, bits, nbits
	if err != nil && err != io.ErrUnexpectedEOF {
		err = d.corrupt(err.Error())
	}
	return out, err
}

// atEOB consumes the current Huffman block's end if it comes next.
func (d *Decoder) atEOB() bool {
	br := &d.br
	br.refill()
	e := lookup(d.litlen[:], 1<<litlenRootBits-1, br.bits)
	if e&entryEOB == 0 {
		return false
	}
	br.take(uint(e & 63))
	d.endBlock()
	return true
}
