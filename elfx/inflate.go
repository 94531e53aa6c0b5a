package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
)

// Compressed debug sections (SHF_COMPRESSED) are inflated here rather
// than by debug/elf: klauspost's inflater is about a third faster than
// the standard library's, and the sections of one file are inflated in
// parallel. Inflating libc's debug info is most of the fixed cost of a
// report.

// openCompressed parses a SHF_COMPRESSED section's header (the Elf_Chdr
// at the start of raw) and returns a reader of the inflated bytes with the
// size the header claims, bounded by maxInflation.
//
// src is the reader of the compressed bytes: what it has left tells how
// far into raw the inflater has read.
func openCompressed(raw []byte, class elf.Class, order binary.ByteOrder, name string) (r io.Reader, size uint64, closeFn func(), src *bytes.Reader, err error) {
	var typ uint32
	var hdr int
	switch class {
	case elf.ELFCLASS64:
		if len(raw) < 24 {
			return nil, 0, nil, nil, fmt.Errorf("section %s: compression header truncated", name)
		}
		typ, size, hdr = order.Uint32(raw), order.Uint64(raw[8:]), 24
	default:
		if len(raw) < 12 {
			return nil, 0, nil, nil, fmt.Errorf("section %s: compression header truncated", name)
		}
		typ, size, hdr = order.Uint32(raw), uint64(order.Uint32(raw[4:])), 12
	}
	stream := raw[hdr:]
	if size/maxInflation > uint64(len(stream))+1<<20 {
		return nil, 0, nil, nil, fmt.Errorf("section %s claims %d bytes from %d compressed", name, size, len(stream))
	}
	switch elf.CompressionType(typ) {
	case elf.COMPRESS_ZLIB:
		// The deflate stream inside the zlib wrapper, read without the
		// Adler-32 check (4% of a cold report): a damaged stream fails to
		// inflate or gives DWARF that fails to parse, as a damaged
		// uncompressed section would.
		if len(stream) >= 2 && stream[0]&0x0f == 8 && stream[1]&0x20 == 0 && (uint(stream[0])<<8|uint(stream[1]))%31 == 0 {
			src = bytes.NewReader(stream[2:])
			fr := flate.NewReader(src)
			return fr, size, func() { fr.Close() }, src, nil
		}
		src = bytes.NewReader(stream)
		zr, err := zlib.NewReader(src)
		if err != nil {
			return nil, 0, nil, nil, fmt.Errorf("section %s: %w", name, err)
		}
		return zr, size, func() { zr.Close() }, src, nil
	case elf.COMPRESS_ZSTD:
		src = bytes.NewReader(stream)
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, 0, nil, nil, fmt.Errorf("section %s: %w", name, err)
		}
		return zr, size, zr.Close, src, nil
	default:
		return nil, 0, nil, nil, fmt.Errorf("section %s: unknown compression type %d", name, typ)
	}
}

// inflateSection decompresses a SHF_COMPRESSED section whose raw bytes
// are raw (the Elf_Chdr followed by the stream).
func inflateSection(raw []byte, class elf.Class, order binary.ByteOrder, name string) ([]byte, error) {
	r, size, closeFn, _, err := openCompressed(raw, class, order, name)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	// The header's size is only a claim: grow with what the stream really
	// yields (deflate expands at most ~1032:1), never allocate the claim.
	var buf bytes.Buffer
	buf.Grow(int(min(size, uint64(len(raw))*4+4096)))
	if n, err := io.CopyN(&buf, r, int64(size)); err != nil {
		return nil, fmt.Errorf("section %s: inflated %d of the %d bytes its header claims: %w", name, n, size, err)
	}
	return buf.Bytes(), nil
}

// sectionStream is a debug section inflated only as far as it has been
// read: a backtrace needs a few compile units of libc's 4,000, and the
// line programs and DIEs they need lie in the first part of the section
// more often than not. An uncompressed section is all there from the start.
//
// A compressed section inflates into memory of its own, outside the Go
// heap, and the pages the stream passes without anyone asking for them
// are given back as it goes: a report keeps the few units its frames need,
// not the megabytes of .debug_info before them. Asking later for bytes
// that were given back inflates the section again from its start (Warm
// reads units in section order, so a report does not).
type sectionStream struct {
	name string
	raw  []byte // compressed bytes (Elf_Chdr and stream); nil when uncompressed
	meta struct {
		class elf.Class
		order binary.ByteOrder
	}

	mu      sync.Mutex
	buf     []byte // the whole section; valid up to done except in dropped
	owned   bool   // buf is an anonymous mapping of ours
	kept    bool   // give nothing back (units refer into each other)
	done    int
	floor   int       // end of the furthest range asked for
	dropped [][2]int  // ranges given back, or inflated and never kept
	freed   int       // end of the last range given back
	r       io.Reader // nil once done or failed
	src     *bytes.Reader
	stop    func()
	err     error
	// release gives back pages of the file mapping raw lies in; raw
	// is given back up to inFreed.
	release func([]byte)
	inFreed int
}

// inflateChunk is how far past the asked end the stream inflates, so
// that many small ensures cost few calls into the inflater; no more, as
// what lies past the last unit a report needs is inflated for nothing
// (256 KiB was 4% of threads64's instructions, 17% of python's).
const inflateChunk = 16 << 10

// newSectionStream opens section name of o for incremental reading. An
// absent section gives a stream of no bytes.
func (o *Object) newSectionStream(name string) (*sectionStream, error) {
	st := &sectionStream{name: name}
	s := o.section(name)
	if s == nil {
		return st, nil
	}
	if s.Flags&elf.SHF_COMPRESSED == 0 || o.mapped == nil {
		b, err := o.sectionData(s)
		if err != nil {
			return nil, err
		}
		st.buf, st.done = b, len(b)
		return st, nil
	}
	raw, err := o.rawSection(s)
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: %w", o.name, err)
	}
	st.raw, st.release = raw, o.release
	st.meta.class, st.meta.order = o.ef.Class, o.ef.ByteOrder
	r, size, closeFn, src, err := openCompressed(raw, o.ef.Class, o.ef.ByteOrder, s.Name)
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: %w", o.name, err)
	}
	if uint64(int(size)) != size {
		closeFn()
		return nil, fmt.Errorf("elfx: %s: section %s claims %d bytes", o.name, s.Name, size)
	}
	st.r, st.src, st.stop = r, src, closeFn
	if size == 0 {
		return st, nil
	}
	// The claim is bounded by maxInflation against the compressed bytes;
	// pages are touched only as far as the stream inflates.
	buf, err := unix.Mmap(-1, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		closeFn()
		return nil, fmt.Errorf("elfx: %s: section %s: %w", o.name, s.Name, err)
	}
	st.buf, st.owned = buf, true
	// The dwarf.Data values over the buffer belong to the index that
	// holds the stream: once the stream is unreachable, so are they.
	runtime.AddCleanup(st, func(b []byte) { unix.Munmap(b) }, buf)
	return st, nil
}

// ensure makes [start, end) of the section available (end at most its
// size) and returns the whole section buffer. Pages between what was
// asked before and start that nobody asked for are given back. A stream
// that ends or fails before end gives an error.
func (st *sectionStream) ensure(start, end uint64) ([]byte, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if start > end || end > uint64(len(st.buf)) {
		return st.buf, fmt.Errorf("section %s: range [%#x,%#x) past its end (%#x)", st.name, start, end, len(st.buf))
	}
	lo, hi := int(start), int(end)
	if st.overlapsDropped(lo, hi) {
		if err := st.refill(); err != nil {
			return st.buf, err
		}
	}
	// Pages from the end of what was asked before up to start are
	// nobody's: give them back as the stream passes them.
	dropFrom := st.floor
	st.floor = max(st.floor, hi)
	if st.owned && !st.kept && lo > dropFrom {
		st.drop(dropFrom, min(lo, st.done))
	}
	// What lies between the stream's position and start is nobody's
	// either: it is inflated into a small buffer that stays in the cache
	// instead of into pages of buf that would be faulted in, zeroed and
	// given back (glibc's clone3 unit lies 4 MB into .debug_info).
	if st.owned && !st.kept && lo > dropFrom && lo > st.done {
		var scratch [32 << 10]byte
		for st.done < lo && st.r != nil {
			n, err := io.ReadFull(st.r, scratch[:min(len(scratch), lo-st.done)])
			st.skipped(st.done, st.done+n)
			st.advance(n, err)
		}
	}
	for st.done < hi && st.r != nil {
		n, err := io.ReadFull(st.r, st.buf[st.done:min(len(st.buf), st.done+inflateChunk)])
		st.advance(n, err)
		if st.owned && !st.kept && lo > dropFrom {
			st.drop(dropFrom, min(lo, st.done))
		}
	}
	if hi > st.done {
		return st.buf, st.err
	}
	return st.buf, nil
}

// inputSlack is how far behind the inflater's read position compressed
// bytes are given back: a decoder may hold some it has read.
const inputSlack = 256 << 10

// advance records n more bytes inflated and the stream's end or error.
// The compressed bytes the inflater has passed are given back (glibc's:
// 1.7 MB to reach the clone3 unit); inflating again reads them back.
func (st *sectionStream) advance(n int, err error) {
	if st.src != nil && st.release != nil {
		if upTo := len(st.raw) - st.src.Len() - inputSlack; upTo-st.inFreed >= inputSlack {
			st.release(st.raw[st.inFreed:upTo])
			st.inFreed = upTo
		}
	}
	st.done += n
	if st.done == len(st.buf) || err != nil {
		st.stop()
		st.r = nil
		if err != nil {
			st.err = fmt.Errorf("section %s: inflated %d of the %d bytes its header claims: %w", st.name, st.done, len(st.buf), err)
		}
	}
}

// skipped records [lo, hi) as inflated but not kept in buf: like pages
// given back, asking for them later inflates the section again.
func (st *sectionStream) skipped(lo, hi int) {
	if lo >= hi {
		return
	}
	if k := len(st.dropped) - 1; k >= 0 && st.dropped[k][1] == lo {
		st.dropped[k][1] = hi
	} else {
		st.dropped = append(st.dropped, [2]int{lo, hi})
	}
	st.freed = max(st.freed, hi)
}

// keep turns off giving pages back.
func (st *sectionStream) keep() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.kept = true
}

// drop gives back the whole pages inside [lo, hi) not given back yet.
func (st *sectionStream) drop(lo, hi int) {
	page := os.Getpagesize()
	lo = (max(lo, st.freed) + page - 1) / page * page
	hi = hi / page * page
	if hi-lo < 4*page {
		return
	}
	if unix.Madvise(st.buf[lo:hi], unix.MADV_DONTNEED) == nil {
		st.dropped = append(st.dropped, [2]int{lo, hi})
		st.freed = hi
	}
}

func (st *sectionStream) overlapsDropped(lo, hi int) bool {
	for _, d := range st.dropped {
		if lo < d[1] && d[0] < hi {
			return true
		}
	}
	return false
}

// refill inflates the section again from its start to bring back the
// pages given back, writing nothing else: other lookups may be reading
// the units kept.
func (st *sectionStream) refill() error {
	r, _, closeFn, src, err := openCompressed(st.raw, st.meta.class, st.meta.order, st.name)
	if err != nil {
		return err
	}
	tmp := make([]byte, 64<<10)
	for pos := 0; pos < st.done; {
		n, err := io.ReadFull(r, tmp[:min(len(tmp), st.done-pos)])
		for _, d := range st.dropped {
			if lo, hi := max(pos, d[0]), min(pos+n, d[1]); lo < hi {
				copy(st.buf[lo:hi], tmp[lo-pos:hi-pos])
			}
		}
		pos += n
		if err != nil {
			closeFn()
			return fmt.Errorf("section %s: inflating again: %w", st.name, err)
		}
	}
	if st.r != nil {
		st.stop()
	}
	st.r, st.src, st.stop = r, src, closeFn
	st.inFreed = 0
	if st.done == len(st.buf) || st.err != nil {
		closeFn()
		st.r = nil
	}
	st.dropped = nil
	return nil
}

// all inflates the whole section.
func (st *sectionStream) all() ([]byte, error) {
	return st.ensure(0, uint64(len(st.buf)))
}

// sectionsData returns the contents of several sections (nil entries for
// absent ones), inflating compressed ones in parallel.
func (o *Object) sectionsData(names []string) ([][]byte, error) {
	out := make([][]byte, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		s := o.section(name)
		if s == nil {
			continue
		}
		if s.Flags&elf.SHF_COMPRESSED == 0 || o.mapped == nil {
			out[i], errs[i] = o.sectionData(s)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, err := o.rawSection(s)
			if err == nil {
				out[i], err = inflateSection(raw, o.ef.Class, o.ef.ByteOrder, s.Name)
			}
			if err != nil {
				errs[i] = fmt.Errorf("elfx: %s: %w", o.name, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rawSection returns a mapped section's bytes as stored in the file.
func (o *Object) rawSection(s *elf.Section) ([]byte, error) {
	end := s.Offset + s.FileSize
	if end < s.Offset || end > uint64(len(o.mapped)) {
		return nil, fmt.Errorf("section %s [%#x,%#x) runs past the end of the file (%d bytes)", s.Name, s.Offset, end, len(o.mapped))
	}
	return o.mapped[s.Offset:end:end], nil
}
