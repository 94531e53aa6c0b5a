package inflate

import (
	"encoding/binary"
	"io"
	"sync"
)

// readHeader reads a block header and what follows it up to the block's
// data: a stored block's length, a dynamic block's code tables.
func (d *Decoder) readHeader() error {
	br := &d.br
	br.refill()
	hdr := br.take(3)
	if br.pastEnd() {
		return io.ErrUnexpectedEOF
	}
	d.final = hdr&1 == 1
	switch hdr >> 1 {
	case 0:
		br.alignToByte()
		if len(br.rest) < 4 {
			return io.ErrUnexpectedEOF
		}
		n := binary.LittleEndian.Uint16(br.rest)
		if ^n != binary.LittleEndian.Uint16(br.rest[2:]) {
			return d.corrupt("stored block length and its complement differ")
		}
		br.rest = br.rest[4:]
		d.storedLeft, d.state = int(n), stateStored
	case 1:
		fixedOnce.Do(buildFixed)
		d.litlen, d.dist, d.state = fixedLitlen, fixedDist, stateHuffman
	case 2:
		if err := d.readDynamic(); err != nil {
			return err
		}
		d.litlen, d.dist, d.state = &d.dynLitlen, &d.dynDist, stateHuffman
	default:
		return d.corrupt("reserved block type 3")
	}
	return nil
}

// endBlock moves past the block just finished.
func (d *Decoder) endBlock() {
	d.state = stateHeader
	if d.final {
		d.state = stateEnd
	}
}

// The fixed Huffman codes (RFC 1951 3.2.6), allocated and built at the
// first block that uses them: 44 KiB a process that inflates nothing
// (most reports) does not pay.
var (
	fixedOnce   sync.Once
	fixedLitlen *litlenTable
	fixedDist   *distTable
)

func buildFixed() {
	fixedLitlen, fixedDist = new(litlenTable), new(distTable)
	var lengths [288]uint8
	for i := range lengths {
		switch {
		case i < 144:
			lengths[i] = 8
		case i < 256:
			lengths[i] = 9
		case i < 280:
			lengths[i] = 7
		default:
			lengths[i] = 8
		}
	}
	buildTable(fixedLitlen[:], lengths[:], litlenSyms[:], litlenRootBits)
	for i := range 32 {
		lengths[i] = 5
	}
	buildTable(fixedDist[:], lengths[:32], distSyms[:], distRootBits)
}

// precodeOrder is the order in which a dynamic block's header gives the
// lengths of the code-length code (RFC 1951 3.2.7).
var precodeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// readDynamic reads a dynamic block's code lengths and builds its tables.
func (d *Decoder) readDynamic() error {
	br := &d.br
	br.refill()
	nlit := int(br.take(5)) + 257
	ndist := int(br.take(5)) + 1
	nprecode := int(br.take(4)) + 4
	if nlit > 286 || ndist > 30 {
		return d.corrupt("too many literal/length or distance codes")
	}
	var lengths [286 + 30]uint8
	for _, sym := range precodeOrder[:nprecode] {
		br.refill()
		lengths[sym] = uint8(br.take(3))
	}
	if !buildTable(d.precode[:], lengths[:19], precodeSyms[:], precodeRootBits) {
		return d.corrupt("bad code-length code")
	}
	clear(lengths[:19])
	n := nlit + ndist
	for i := 0; i < n; {
		br.refill()
		if br.pastEnd() {
			return io.ErrUnexpectedEOF
		}
		e := lookup(d.precode[:], 1<<precodeRootBits-1, br.bits)
		if e&entryInvalid != 0 {
			return d.corrupt("bad code-length code")
		}
		br.take(uint(e & 63))
		sym := uint8(e >> 16)
		rep, val := 1, sym
		switch sym {
		case 16:
			if i == 0 {
				return d.corrupt("repeated code length with none before")
			}
			rep, val = 3+int(br.take(2)), lengths[i-1]
		case 17:
			rep, val = 3+int(br.take(3)), 0
		case 18:
			rep, val = 11+int(br.take(7)), 0
		}
		if i+rep > n {
			return d.corrupt("code lengths run past the codes")
		}
		for ; rep > 0; rep-- {
			lengths[i] = val
			i++
		}
	}
	if br.pastEnd() {
		return io.ErrUnexpectedEOF
	}
	if !buildTable(d.dynLitlen[:], lengths[:nlit], litlenSyms[:], litlenRootBits) {
		return d.corrupt("bad literal/length code")
	}
	if !buildTable(d.dynDist[:], lengths[nlit:n], distSyms[:], distRootBits) {
		return d.corrupt("bad distance code")
	}
	return nil
}

// copyStored copies what fits of a stored block into dst[out:].
func (d *Decoder) copyStored(dst []byte, out int) (int, error) {
	br := &d.br
	n := copy(dst[out:min(len(dst), out+d.storedLeft)], br.rest)
	br.rest = br.rest[n:]
	d.storedLeft -= n
	if d.storedLeft == 0 {
		d.endBlock()
	} else if len(br.rest) == 0 {
		return out + n, io.ErrUnexpectedEOF
	}
	return out + n, nil
}
