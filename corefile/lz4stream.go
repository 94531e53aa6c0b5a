package corefile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
)

// An lz4 stream is a series of blocks of up to 4 MiB (8 MiB in the legacy
// format) that a decoder can only take whole: a stream cut inside a block
// gives lz4.Reader an unexpected EOF and no byte of that block, so a core
// cut anywhere in its first 4 MiB gave nothing at all, where a cut zstd,
// xz or gzip stream gives everything up to the cut. lz4Stream reads the
// frames itself: whole blocks are decoded by lz4.UncompressBlock, and the
// block the stream breaks off in is decoded sequence by sequence as far
// as its bytes go (partialLZ4Block). The frames' xxHash checksums are not
// checked: a block that does not decode is an error all the same.

// LZ4 frame magic numbers (lz4_Frame_format.md).
const (
	lz4FrameMagic     = 0x184D2204
	lz4LegacyMagic    = 0x184C2102
	lz4SkippableMagic = 0x184D2A50 // to 0x184D2A5F
	lz4LegacyBlockMax = 8 << 20
	lz4Window         = 64 << 10 // how far back a match may reach
)

// FLG bits of a frame descriptor.
const (
	lz4FlagIndependent     = 1 << 5
	lz4FlagBlockChecksum   = 1 << 4
	lz4FlagContentSize     = 1 << 3
	lz4FlagContentChecksum = 1 << 2
	lz4FlagDictID          = 1 << 0
)

// errLZ4 is wrapped by the errors of malformed lz4 data.
var errLZ4 = errors.New("malformed lz4 data")

// lz4Stream is an io.Reader of the decompressed bytes of the lz4 frames
// (and legacy frames) in r. Where r breaks off, it returns what the last
// block held up to there and then io.ErrUnexpectedEOF.
type lz4Stream struct {
	r       *bufio.Reader
	out     []byte // decoded and not yet read
	history []byte // the last lz4Window bytes of output, for linked blocks
	err     error  // returned once out is drained

	inFrame, legacy bool
	flags           byte
	blockMax        int
	block           []byte // compressed block buffer, reused
	dst             []byte // decompressed block buffer, reused
}

func newLZ4Stream(r io.Reader) *lz4Stream {
	return &lz4Stream{r: bufio.NewReaderSize(r, 1<<16)}
}

func (s *lz4Stream) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.out, s.err = s.next()
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}

// next decodes the next block (reading frame headers as they come).
func (s *lz4Stream) next() ([]byte, error) {
	if !s.inFrame {
		if err := s.frameHeader(); err != nil {
			return nil, err
		}
		if !s.inFrame {
			return nil, nil // a skippable frame
		}
	}
	if s.legacy {
		return s.legacyBlock()
	}
	var hdr [4]byte
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
		return nil, cutShort(err)
	}
	size := binary.LittleEndian.Uint32(hdr[:])
	if size == 0 { // end mark
		s.inFrame = false
		if s.flags&lz4FlagContentChecksum != 0 {
			if _, err := s.r.Discard(4); err != nil {
				return nil, cutShort(err)
			}
		}
		return nil, nil
	}
	stored := size&(1<<31) != 0
	size &^= 1 << 31
	if int(size) > s.blockMax {
		return nil, fmt.Errorf("%w: block of %d bytes, the frame allows %d", errLZ4, size, s.blockMax)
	}
	data, cutErr := s.readBlock(int(size))
	var out []byte
	if stored {
		out = data
	} else {
		var err error
		if out, err = s.decode(data, cutErr != nil); err != nil {
			return nil, err
		}
	}
	if cutErr == nil && s.flags&lz4FlagBlockChecksum != 0 {
		if _, err := s.r.Discard(4); err != nil {
			cutErr = cutShort(err)
		}
	}
	if s.flags&lz4FlagIndependent == 0 {
		s.remember(out)
	}
	return out, cutErr
}

// frameHeader reads a frame's magic and descriptor; at the clean end of
// the input it returns io.EOF.
func (s *lz4Stream) frameHeader() error {
	var m [4]byte
	if n, err := io.ReadFull(s.r, m[:]); err != nil {
		if n == 0 && err == io.EOF {
			return io.EOF
		}
		return cutShort(err)
	}
	magic := binary.LittleEndian.Uint32(m[:])
	s.history = s.history[:0]
	switch {
	case magic == lz4LegacyMagic:
		s.inFrame, s.legacy, s.blockMax = true, true, lz4LegacyBlockMax
		return nil
	case magic&^0xF == lz4SkippableMagic:
		if _, err := io.ReadFull(s.r, m[:]); err != nil {
			return cutShort(err)
		}
		if _, err := s.r.Discard(int(binary.LittleEndian.Uint32(m[:]))); err != nil {
			return cutShort(err)
		}
		return nil
	case magic != lz4FrameMagic:
		return fmt.Errorf("%w: magic %#x", errLZ4, magic)
	}
	var d [2]byte
	if _, err := io.ReadFull(s.r, d[:]); err != nil {
		return cutShort(err)
	}
	flg, bd := d[0], d[1]
	if flg>>6 != 1 {
		return fmt.Errorf("%w: frame version %d", errLZ4, flg>>6)
	}
	blockMax := [8]int{4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20}[bd>>4&7]
	if blockMax == 0 {
		return fmt.Errorf("%w: block size code %d", errLZ4, bd>>4&7)
	}
	skip := 1 // the header checksum
	if flg&lz4FlagContentSize != 0 {
		skip += 8
	}
	if flg&lz4FlagDictID != 0 {
		skip += 4
	}
	if _, err := s.r.Discard(skip); err != nil {
		return cutShort(err)
	}
	s.inFrame, s.legacy, s.flags, s.blockMax = true, false, flg, blockMax
	return nil
}

// legacyBlock reads a block of the legacy format, which has no end mark:
// its frame ends at the end of the input or where another frame's magic
// number stands in place of a block size.
func (s *lz4Stream) legacyBlock() ([]byte, error) {
	hdr, err := s.r.Peek(4)
	if len(hdr) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, cutShort(err)
	}
	size := binary.LittleEndian.Uint32(hdr)
	if size == lz4FrameMagic || size == lz4LegacyMagic || size&^0xF == lz4SkippableMagic {
		s.inFrame = false
		return nil, nil
	}
	s.r.Discard(4)
	if int64(size) > int64(lz4.CompressBlockBound(lz4LegacyBlockMax)) {
		return nil, fmt.Errorf("%w: legacy block of %d bytes", errLZ4, size)
	}
	data, cutErr := s.readBlock(int(size))
	out, err := s.decode(data, cutErr != nil)
	if err != nil {
		return nil, err
	}
	return out, cutErr
}

// readBlock reads a block's n compressed bytes: all of them, or what the
// input has left and an error saying it was cut.
func (s *lz4Stream) readBlock(n int) ([]byte, error) {
	if cap(s.block) < n {
		s.block = make([]byte, n)
	}
	m, err := io.ReadFull(s.r, s.block[:n])
	if err != nil {
		return s.block[:m], cutShort(err)
	}
	return s.block[:n], nil
}

// decode decompresses one block; a cut block is decoded as far as it goes.
func (s *lz4Stream) decode(src []byte, cut bool) ([]byte, error) {
	if cut {
		return partialLZ4Block(src, s.history, s.blockMax), nil
	}
	if cap(s.dst) < s.blockMax {
		s.dst = make([]byte, s.blockMax)
	}
	dst := s.dst[:s.blockMax]
	var n int
	var err error
	if len(s.history) > 0 {
		n, err = lz4.UncompressBlockWithDict(src, dst, s.history)
	} else {
		n, err = lz4.UncompressBlock(src, dst)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errLZ4, err)
	}
	return dst[:n], nil
}

// remember keeps the last lz4Window bytes of output for the next linked
// block.
func (s *lz4Stream) remember(out []byte) {
	s.history = append(s.history, out...)
	if len(s.history) > lz4Window {
		s.history = append(s.history[:0], s.history[len(s.history)-lz4Window:]...)
	}
}

// cutShort is the error of input that ends inside a frame.
func cutShort(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// partialLZ4Block decodes the sequences of a block cut short, src, after
// history (the output its matches may reach back into), and returns the
// bytes it decoded: every sequence src holds whole, and the literals of
// the one it breaks off in. A malformed sequence ends it too. The output
// never exceeds limit bytes (a block's size).
func partialLZ4Block(src, history []byte, limit int) []byte {
	out := append([]byte(nil), history...)
	base := len(out)
	i := 0
	length := func(n int) (int, bool) {
		for {
			if i >= len(src) {
				return n, false
			}
			b := src[i]
			i++
			n += int(b)
			if b != 255 {
				return n, true
			}
		}
	}
	for i < len(src) {
		token := src[i]
		i++
		lit, ok := int(token>>4), true
		if lit == 15 {
			if lit, ok = length(lit); !ok {
				break
			}
		}
		lit = min(lit, len(src)-i, limit-(len(out)-base))
		out = append(out, src[i:i+lit]...)
		i += lit
		if len(src)-i < 2 {
			break
		}
		off := int(binary.LittleEndian.Uint16(src[i:]))
		i += 2
		if off == 0 || off > len(out) {
			break
		}
		match := int(token & 15)
		if match == 15 {
			if match, ok = length(match); !ok {
				break
			}
		}
		match += 4
		if len(out)-base+match > limit {
			break
		}
		for range match {
			out = append(out, out[len(out)-off])
		}
	}
	return out[base:]
}
