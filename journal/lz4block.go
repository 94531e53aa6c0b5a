package journal

import (
	"bufio"
	"errors"
	"io"
)

// journald stores an LZ4-compressed field as its size (le64) and one raw
// LZ4 block (LZ4_compress_default). A block decoder wants the whole
// output at once, sized by that le64: an untrusted number. lz4Block
// decodes the block sequence by sequence instead, keeping only the
// 64 KiB a match may reach back, so what it holds is bounded whatever
// the size says, and the caller bounds how much it reads.

const (
	lz4Window = 64 << 10       // how far back a match may reach
	lz4Flush  = lz4Window << 4 // decoded bytes held before they are handed out
)

var errLZ4 = errors.New("malformed lz4 block")

type lz4Block struct {
	src   *bufio.Reader
	left  int64  // compressed bytes not yet read
	size  uint64 // the decoded size the field declares
	done  uint64 // bytes decoded so far
	out   []byte // history (out[:start]) and decoded bytes not yet read
	start int
	err   error

	// The sequence being decoded: its token, the literals and match
	// bytes still to produce, the match's offset.
	token      byte
	lit, match int
	offset     int
	needMatch  bool
}

func newLZ4Block(r *io.SectionReader) (*lz4Block, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, errors.Join(errLZ4, err)
	}
	return &lz4Block{src: bufio.NewReaderSize(r, 1<<16), left: r.Size() - 8, size: le.Uint64(b[:])}, nil
}

func (l *lz4Block) Read(p []byte) (int, error) {
	for l.start == len(l.out) {
		if l.err != nil {
			return 0, l.err
		}
		l.err = l.decode()
	}
	n := copy(p, l.out[l.start:])
	l.start += n
	return n, nil
}

// decode decodes until lz4Flush bytes are pending or the block ends
// (then it returns io.EOF, or an error). A long run of literals or a
// long match is decoded in pieces, so what is held stays bounded.
func (l *lz4Block) decode() error {
	// Keep the window of history, drop the rest.
	if l.start > lz4Window {
		keep := copy(l.out, l.out[l.start-lz4Window:l.start])
		l.out, l.start = l.out[:keep], keep
	}
	for len(l.out)-l.start < lz4Flush {
		switch {
		case l.lit > 0:
			if err := l.literals(min(l.lit, lz4Flush)); err != nil {
				return err
			}
			continue
		case l.match > 0:
			n := min(l.match, lz4Flush)
			if err := l.grow(n); err != nil {
				return err
			}
			from := len(l.out) - l.offset
			for i := 0; i < n; i++ { // may overlap: byte by byte
				l.out = append(l.out, l.out[from+i])
			}
			l.match -= n
			continue
		case l.needMatch:
			// The sequence's literals are out: its match follows,
			// unless the block ends (the last sequence has none).
			l.needMatch = false
			if l.left == 0 {
				continue
			}
			var ob [2]byte
			var err error
			if ob[0], err = l.byte(); err != nil {
				return err
			}
			if ob[1], err = l.byte(); err != nil {
				return err
			}
			l.offset = int(ob[0]) | int(ob[1])<<8
			if l.match, err = l.length(int(l.token & 15)); err != nil {
				return err
			}
			l.match += 4
			if l.offset == 0 || l.offset > len(l.out) {
				return errors.Join(errLZ4, errors.New("match before the start of the output"))
			}
			continue
		case l.left == 0:
			if l.done != l.size {
				return errors.Join(errLZ4, errors.New("block ends before its declared size"))
			}
			return io.EOF
		}
		var err error
		if l.token, err = l.byte(); err != nil {
			return err
		}
		if l.lit, err = l.length(int(l.token >> 4)); err != nil {
			return err
		}
		if int64(l.lit) > l.left {
			return errors.Join(errLZ4, errors.New("literals run past the block"))
		}
		l.needMatch = true
	}
	return nil
}

func (l *lz4Block) byte() (byte, error) {
	if l.left <= 0 {
		return 0, errors.Join(errLZ4, io.ErrUnexpectedEOF)
	}
	b, err := l.src.ReadByte()
	if err != nil {
		return 0, errors.Join(errLZ4, err)
	}
	l.left--
	return b, nil
}

// length reads a length whose first 4 bits are n (15: more bytes follow).
func (l *lz4Block) length(n int) (int, error) {
	if n != 15 {
		return n, nil
	}
	for {
		b, err := l.byte()
		if err != nil {
			return 0, err
		}
		n += int(b)
		if n > 1<<30 {
			return 0, errors.Join(errLZ4, errors.New("length too large"))
		}
		if b != 255 {
			return n, nil
		}
	}
}

// grow checks that n more bytes stay within the declared size.
func (l *lz4Block) grow(n int) error {
	if uint64(n) > l.size-l.done {
		return errors.Join(errLZ4, errors.New("decodes to more than its declared size"))
	}
	l.done += uint64(n)
	return nil
}

func (l *lz4Block) literals(n int) error {
	if err := l.grow(n); err != nil {
		return err
	}
	at := len(l.out)
	l.out = append(l.out, make([]byte, n)...)
	if _, err := io.ReadFull(l.src, l.out[at:]); err != nil {
		return errors.Join(errLZ4, err)
	}
	l.left -= int64(n)
	l.lit -= n
	return nil
}
