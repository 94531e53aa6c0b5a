package inflate

import (
	"errors"
	"fmt"
	"io"
)

// ErrCorrupt is wrapped by the errors of streams that break RFC 1951.
var ErrCorrupt = errors.New("corrupt deflate stream")

// A Decoder inflates one DEFLATE stream held in memory. Decode may stop
// anywhere (in the middle of a match or a stored block) and go on at the
// next call, so that the caller chooses where each piece of output goes.
type Decoder struct {
	br    bitReader
	state int
	final bool // the current block is the last one

	// What is left of a match or a stored block at the end of dst.
	matchLen, matchDist int
	storedLeft          int

	produced int64 // bytes of output so far, for the distance check
	err      error // sticky

	litlen *litlenTable // this block's decode tables: fixed or dyn
	dist   *distTable
	// The tables of dynamic blocks.
	dynLitlen litlenTable
	dynDist   distTable
	precode   precodeTable
}

const (
	stateHeader  = iota // at a block header
	stateStored         // in a stored block: storedLeft bytes to copy
	stateHuffman        // in a Huffman block, tables in litlen and dist
	stateEnd            // past the final block
)

// Reset makes d decode the stream in src from its start. It clears d in
// place and then sets the reader: assigning a composite literal with a
// field set builds the 44 KiB Decoder on the caller's stack first and
// copies it, which grows the stack of every caller into which Reset is
// inlined by that much.
func (d *Decoder) Reset(src []byte) {
	*d = Decoder{}
	d.br = bitReader{src: src, rest: src}
}

// Consumed is how many bytes of the input the stream has used so far.
// The decoder reads up to 8 bytes further; bytes before Consumed()-8 are
// never read again.
func (d *Decoder) Consumed() int {
	return d.br.consumed()
}

// Decode inflates into dst[pos:] and returns how many bytes it wrote. It
// stops when dst is full (err nil) or at the end of the stream (io.EOF)
// or on an error. Back-references read dst[:pos], which must end with the
// last min(32 KiB, all) bytes of output produced before this call; a
// distance reaching before dst[0] is an error. With an error, the last
// few bytes counted in n may be garbage (a truncated stream is noticed
// a symbol or two after its end).
func (d *Decoder) Decode(dst []byte, pos int) (n int, err error) {
	if d.err != nil {
		return 0, d.err
	}
	if pos < 0 || pos > len(dst) {
		return 0, fmt.Errorf("inflate: position %d outside a buffer of %d bytes", pos, len(dst))
	}
	// Back-references may reach dst[lowest:] only: before that lies
	// what precedes the stream's start.
	lowest := int(max(0, int64(pos)-d.produced))
	out := pos
	for out < len(dst) && err == nil {
		switch d.state {
		case stateHeader:
			err = d.readHeader()
		case stateStored:
			out, err = d.copyStored(dst, out)
		case stateHuffman:
			out, err = d.decodeHuffman(dst[lowest:], out-lowest)
			out += lowest
		case stateEnd:
			err = io.EOF
		}
	}
	// dst is full: step over the block ends that come next, so that a
	// stream ending right here says so with its last bytes.
	for stepped := err == nil; stepped && err == nil && d.state != stateEnd; {
		stepped, err = d.skipBlockEnd()
	}
	if d.state == stateEnd && err == nil {
		err = io.EOF // tell the caller now, even when dst is full
	}
	if (err == nil || err == io.EOF) && d.br.pastEnd() {
		err = io.ErrUnexpectedEOF
	}
	if err != nil && err != io.EOF {
		d.err = err
	}
	d.produced += int64(out - pos)
	return out - pos, err
}

// skipBlockEnd moves past a block end or header with no output, and
// tells whether it did.
func (d *Decoder) skipBlockEnd() (bool, error) {
	switch {
	case d.state == stateHeader:
		return true, d.readHeader()
	case d.state == stateStored && d.storedLeft == 0:
		d.endBlock()
		return true, nil
	case d.state == stateHuffman && d.matchLen == 0:
		return d.atEOB(), nil
	}
	return false, nil
}

// corrupt returns an error about the stream near where it is read.
func (d *Decoder) corrupt(what string) error {
	return fmt.Errorf("%w: %s near input byte %d", ErrCorrupt, what, d.br.consumed())
}

// What the hot loop found wrong, made into a corrupt error by its caller.
var (
	errBadLitlen = errors.New("bad literal/length code")
	errBadDist   = errors.New("bad distance code")
	errFarDist   = errors.New("match distance reaches before the history")
)
