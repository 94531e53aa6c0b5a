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

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/inflate"
	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// Compressed debug sections (SHF_COMPRESSED) are inflated here rather
// than by debug/elf: zlib streams by internal/inflate, which writes
// straight into the section's buffer (on glibc's .debug_info about twice
// the speed of klauspost's inflater, which elfx used before, and 2.5
// times the standard library's), and the sections of one file in
// parallel. Inflating libc's debug info is most of the fixed cost of a
// report.

// compressedStream inflates one SHF_COMPRESSED section's stream into
// buffers its caller gives, piece by piece.
type compressedStream struct {
	deflate *inflate.Decoder // COMPRESS_ZLIB: the deflate stream in raw
	start   int              // where the deflate stream starts in raw
	zstd    *zstd.Decoder    // COMPRESS_ZSTD
	src     *bytes.Reader    // zstd's input
	rawLen  int              // for zstd: consumed is rawLen less what src has left
}

// read inflates into dst[pos:] until dst is full, with io.ReadFull's
// results. dst[:pos] ends with the output before (as much of the last
// 32 KiB as there is): deflate's matches refer back into it.
func (c *compressedStream) read(dst []byte, pos int) (int, error) {
	if c.zstd != nil {
		return io.ReadFull(c.zstd, dst[pos:])
	}
	n, err := c.deflate.Decode(dst, pos)
	switch {
	case err == io.EOF && pos+n == len(dst):
		err = nil
	case err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// consumed is how far into raw the inflater has read.
func (c *compressedStream) consumed() int {
	if c.zstd != nil {
		return c.rawLen - c.src.Len()
	}
	return c.start + c.deflate.Consumed()
}

func (c *compressedStream) close() {
	if c.zstd != nil {
		c.zstd.Close()
	}
}

// openCompressed parses a SHF_COMPRESSED section's header (the Elf_Chdr
// at the start of raw) and returns an inflater of its stream with the
// size the header claims, bounded by maxInflation.
func openCompressed(raw []byte, class elf.Class, order binary.ByteOrder, name string) (c *compressedStream, size uint64, err error) {
	var typ uint32
	var hdr int
	switch class {
	case elf.ELFCLASS64:
		if len(raw) < 24 {
			return nil, 0, fmt.Errorf("section %s: compression header truncated", name)
		}
		typ, size, hdr = order.Uint32(raw), order.Uint64(raw[8:]), 24
	default:
		if len(raw) < 12 {
			return nil, 0, fmt.Errorf("section %s: compression header truncated", name)
		}
		typ, size, hdr = order.Uint32(raw), uint64(order.Uint32(raw[4:])), 12
	}
	stream := raw[hdr:]
	if size/maxInflation > uint64(len(stream))+1<<20 {
		return nil, 0, fmt.Errorf("section %s claims %d bytes from %d compressed", name, size, len(stream))
	}
	switch elf.CompressionType(typ) {
	case elf.COMPRESS_ZLIB:
		// The zlib header (RFC 1950): deflate, no preset dictionary.
		// The Adler-32 after the stream is not checked (4% of a cold
		// report): a damaged stream fails to inflate or gives DWARF
		// that fails to parse, as a damaged uncompressed section would.
		if len(stream) < 2 || stream[0]&0x0f != 8 || stream[1]&0x20 != 0 || (uint(stream[0])<<8|uint(stream[1]))%31 != 0 {
			return nil, 0, fmt.Errorf("section %s: bad zlib header", name)
		}
		c := &compressedStream{deflate: new(inflate.Decoder), start: hdr + 2}
		c.deflate.Reset(stream[2:])
		return c, size, nil
	case elf.COMPRESS_ZSTD:
		src := bytes.NewReader(stream)
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, 0, fmt.Errorf("section %s: %w", name, err)
		}
		return &compressedStream{zstd: zr, src: src, rawLen: len(raw)}, size, nil
	default:
		return nil, 0, fmt.Errorf("section %s: unknown compression type %d", name, typ)
	}
}

// inflateSection decompresses a SHF_COMPRESSED section whose raw bytes
// are raw (the Elf_Chdr followed by the stream).
func inflateSection(raw []byte, class elf.Class, order binary.ByteOrder, name string) ([]byte, error) {
	c, size, err := openCompressed(raw, class, order, name)
	if err != nil {
		return nil, err
	}
	defer c.close()
	// The header's size is only a claim: grow with what the stream really
	// yields (deflate expands at most ~1032:1), never allocate the claim.
	buf := make([]byte, min(size, uint64(len(raw))*4+4096))
	for pos := 0; ; {
		n, err := c.read(buf, pos)
		pos += n
		if err != nil {
			return nil, fmt.Errorf("section %s: inflated %d of the %d bytes its header claims: %w", name, pos, size, err)
		}
		if uint64(pos) == size {
			return buf, nil
		}
		buf = append(buf, make([]byte, min(uint64(len(buf)), size-uint64(pos)))...)
	}
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

	mu sync.Mutex
	// inflated is signalled when the goroutine inflating (busy) has
	// inflated as far as a waiter asked (waitFor, the nearest end one
	// waits for; 0: none waits) or stopped: one goroutine inflates at
	// a time, with mu released, while others read what is done
	// (prefetch.go).
	inflated sync.Cond
	busy     bool
	waitFor  int
	buf      []byte       // the whole section; valid up to done except in dropped
	mapping  *anonMapping // buf's anonymous mapping, nil where buf is not ours
	kept     bool         // give nothing back (units refer into each other)
	// wholeClaimed: a prefetch of the whole stream was started
	// (prefetchWhole).
	wholeClaimed bool
	done         int
	floor        int               // end of the furthest range asked for
	dropped      [][2]int          // ranges given back, or inflated and never kept
	freed        int               // end of the last range given back
	c            *compressedStream // nil once done or failed
	err          error
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
	st.inflated.L = &st.mu
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
	st, err = newCompressedStream(s.Name, raw, o.ef.Class, o.ef.ByteOrder, o.release)
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: %w", o.name, err)
	}
	return st, nil
}

// newCompressedStream opens a stream over raw, a SHF_COMPRESSED
// section's bytes (Elf_Chdr and stream). release, if not nil, gives back
// pages of the file mapping raw lies in.
func newCompressedStream(name string, raw []byte, class elf.Class, order binary.ByteOrder, release func([]byte)) (*sectionStream, error) {
	st := &sectionStream{name: name, raw: raw, release: release}
	st.inflated.L = &st.mu
	st.meta.class, st.meta.order = class, order
	c, size, err := openCompressed(raw, class, order, name)
	if err != nil {
		return nil, err
	}
	if uint64(int(size)) != size {
		c.close()
		return nil, fmt.Errorf("section %s claims %d bytes", name, size)
	}
	st.c = c
	if size == 0 {
		return st, nil
	}
	// The claim is bounded by maxInflation against the compressed bytes;
	// pages are touched only as far as the stream inflates.
	buf, err := unix.Mmap(-1, 0, hugePageMapLen(int(size)), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("section %s: %w", name, err)
	}
	st.buf = buf[:size:size]
	// The dwarf.Data values over the buffer belong to the index that
	// holds the stream: once the stream is unreachable, so are they.
	// Closing the object gives it back at once (sectionStream.unmap).
	st.mapping = &anonMapping{b: buf}
	runtime.AddCleanup(st, (*anonMapping).unmap, st.mapping)
	return st, nil
}

// anonMapping is an anonymous mapping unmapped once: when its object is
// closed or its stream found unreachable, whichever comes first. The
// garbage collector alone runs after the Go heap grows, which the
// mapping is no part of: a process making report after report (a
// batch's caches, one after another) would hold every closed report's
// inflated sections until then.
type anonMapping struct {
	mu sync.Mutex
	b  []byte
}

func (m *anonMapping) unmap() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.b != nil {
		unix.Munmap(m.b)
		m.b = nil
	}
}

// owned reports whether buf is an anonymous mapping of the stream's own.
func (st *sectionStream) owned() bool { return st.mapping != nil }

// unmap gives back the stream's inflated bytes: its object is closed,
// nobody reads them any more.
func (st *sectionStream) unmap() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for st.busy {
		st.inflated.Wait()
	}
	if st.c != nil {
		st.c.close()
		st.c = nil
	}
	if st.err == nil && st.done < len(st.buf) {
		st.err = fmt.Errorf("section %s: its object is closed", st.name)
	}
	if st.mapping != nil {
		st.mapping.unmap()
	}
}

// ensure makes [start, end) of the section available (end at most its
// size) and returns the whole section buffer. Pages between what was
// asked before and start that nobody asked for are given back. A stream
// that ends or fails before end gives an error. While another goroutine
// inflates (a prefetch), ensure returns at once if the range is there
// and waits for it otherwise, or inflates on itself once the other
// stops short of it.
func (st *sectionStream) ensure(start, end uint64) ([]byte, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if start > end || end > uint64(len(st.buf)) {
		return st.buf, fmt.Errorf("section %s: range [%#x,%#x) past its end (%#x)", st.name, start, end, len(st.buf))
	}
	lo, hi := int(start), int(end)
	for st.busy {
		if hi <= st.done && !st.overlapsDropped(lo, hi) {
			st.floor = max(st.floor, hi)
			return st.buf, nil
		}
		// Woken with some slack past its range, a reader (the unit
		// walks) has work for a while: not a context switch per unit.
		if want := min(len(st.buf), hi+wakeSlack); st.waitFor == 0 || want < st.waitFor {
			st.waitFor = want
		}
		st.inflated.Wait()
	}
	// Whoever waits once this stops inflating looks again (and may go
	// on inflating itself).
	defer st.wake(true)
	if st.overlapsDropped(lo, hi) {
		if err := st.refill(); err != nil {
			return st.buf, err
		}
	}
	// Pages from the end of what was asked before up to start are
	// nobody's: give them back as the stream passes them.
	dropFrom := st.floor
	st.floor = max(st.floor, hi)
	if st.owned() && !st.kept && lo > dropFrom {
		st.drop(dropFrom, min(lo, st.done))
	}
	// What lies between the stream's position and start is nobody's
	// either: it is inflated into a small buffer that stays in the cache
	// instead of into pages of buf that would be faulted in, zeroed and
	// given back (glibc's clone3 unit lies 4 MB into .debug_info).
	if st.owned() && !st.kept && lo > dropFrom && lo > st.done && st.c != nil {
		st.skipTo(lo)
	}
	for st.done < hi && st.c != nil {
		var n int
		var err error
		st.unlocked(func(c *compressedStream, done int) {
			n, err = c.read(st.buf[:min(len(st.buf), done+inflateChunk)], done)
		})
		st.advance(n, err)
		st.wake(false)
		if st.owned() && !st.kept && lo > dropFrom {
			st.drop(dropFrom, min(lo, st.done))
		}
	}
	if hi > st.done {
		return st.buf, st.err
	}
	return st.buf, nil
}

// unlocked runs inflate, which reads c from done on and writes only
// past done (or into ranges counted as given back), with mu released
// and the stream marked busy: readers of what is done go on meanwhile,
// anyone else waits. mu is held again when it returns, or panics (a
// fault on a truncated file).
func (st *sectionStream) unlocked(inflate func(c *compressedStream, done int)) {
	c, done := st.c, st.done
	st.busy = true
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		st.busy = false
	}()
	inflate(c, done)
}

// wakeSlack is how far past the end of its range a reader waits for
// the stream to inflate.
const wakeSlack = 4 * inflateChunk

// wake wakes the goroutines waiting for the stream once it has inflated
// as far as the nearest of them asked, or stopped (final: its inflating
// goroutine is done with it). Waking each at every chunk was a context
// switch per 16 KiB.
func (st *sectionStream) wake(final bool) {
	if st.waitFor != 0 && (final || st.done >= st.waitFor || st.c == nil) {
		st.waitFor = 0
		st.inflated.Broadcast()
	}
}

// historySize is how far back a deflate match may reach: while the
// stream goes on, the last historySize bytes it inflated must stay.
const historySize = 32 << 10

// scratchPool holds the buffers that inflate what nobody keeps: history
// then room, small enough to stay in the cache.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, historySize+224<<10); return &b }}

// inflateThrough inflates the next n bytes of c through a scratch buffer
// that starts with history (the output just before them) and hands each
// piece to use. It returns the scratch buffer, which ends with the last
// bytes of output; the caller puts it back in scratchPool.
func inflateThrough(c *compressedStream, history []byte, n int, use func(piece []byte, err error)) *[]byte {
	scratch := scratchPool.Get().(*[]byte)
	buf := append((*scratch)[:0], history...)
	for n > 0 {
		if len(buf) == cap(buf) {
			buf = buf[:copy(buf, buf[len(buf)-historySize:])]
		}
		k, err := c.read(buf[:min(cap(buf), len(buf)+n)], len(buf))
		use(buf[len(buf):len(buf)+k], err)
		buf, n = buf[:len(buf)+k], n-k
		if err != nil {
			break
		}
	}
	*scratch = buf
	return scratch
}

// skipTo inflates the stream up to lo without keeping what it yields:
// only the last historySize bytes before lo go into buf, for the stream
// to go on from there. It runs unlocked, its progress recorded under mu
// piece by piece.
func (st *sectionStream) skipTo(lo int) {
	st.unlocked(func(c *compressedStream, done int) {
		scratch := inflateThrough(c, st.buf[max(0, done-historySize):done], lo-done, func(piece []byte, err error) {
			st.mu.Lock()
			defer st.mu.Unlock()
			st.skipped(st.done, st.done+len(piece))
			st.advance(len(piece), err)
		})
		defer scratchPool.Put(scratch)
		st.mu.Lock()
		done, open := st.done, st.c != nil
		st.mu.Unlock()
		if open {
			// These pages stay (they count as given back:
			// conservative), so no reader looks at them.
			tail := *scratch
			h := min(len(tail), historySize)
			copy(st.buf[done-h:done], tail[len(tail)-h:])
		}
	})
}

// inputSlack is how far behind the inflater's read position compressed
// bytes are given back: a decoder may hold some it has read.
const inputSlack = 256 << 10

// advance records n more bytes inflated and the stream's end or error.
// The compressed bytes the inflater has passed are given back (glibc's:
// 1.7 MB to reach the clone3 unit); inflating again reads them back.
func (st *sectionStream) advance(n int, err error) {
	if st.c != nil && st.release != nil {
		if upTo := st.c.consumed() - inputSlack; upTo-st.inFreed >= inputSlack {
			st.release(st.raw[st.inFreed:upTo])
			st.inFreed = upTo
		}
	}
	st.done += n
	if st.done == len(st.buf) || err != nil {
		st.c.close()
		st.c = nil
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

// keeps reports whether the stream gives nothing back.
func (st *sectionStream) keeps() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.kept || st.raw == nil
}

// claimWhole reports whether nobody asked before to prefetch the
// whole stream, and makes it so.
func (st *sectionStream) claimWhole() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	claimed := st.wholeClaimed
	st.wholeClaimed = true
	return !claimed
}

// drop gives back the whole pages inside [lo, hi) not given back yet,
// except the history the stream still needs.
func (st *sectionStream) drop(lo, hi int) {
	if st.c != nil {
		hi = min(hi, st.done-historySize)
	}
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
	c, _, err := openCompressed(st.raw, st.meta.class, st.meta.order, st.name)
	if err != nil {
		return err
	}
	pos := 0
	var failed error
	scratch := inflateThrough(c, nil, st.done, func(piece []byte, err error) {
		for _, d := range st.dropped {
			if lo, hi := max(pos, d[0]), min(pos+len(piece), d[1]); lo < hi {
				copy(st.buf[lo:hi], piece[lo-pos:hi-pos])
			}
		}
		pos += len(piece)
		failed = err
	})
	scratchPool.Put(scratch)
	if failed != nil {
		c.close()
		return fmt.Errorf("section %s: inflating again: %w", st.name, failed)
	}
	if st.c != nil {
		st.c.close()
	}
	st.c = c
	st.inFreed = 0
	if st.done == len(st.buf) || st.err != nil {
		c.close()
		st.c = nil
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
	var g mapfault.Group // the sections are mapped: see Warm
	for i, name := range names {
		s := o.section(name)
		if s == nil {
			continue
		}
		if s.Flags&elf.SHF_COMPRESSED == 0 || o.mapped == nil {
			out[i], errs[i] = o.sectionData(s)
			continue
		}
		g.Go(func() {
			raw, err := o.rawSection(s)
			if err == nil {
				out[i], err = inflateSection(raw, o.ef.Class, o.ef.ByteOrder, s.Name)
			}
			if err != nil {
				errs[i] = fmt.Errorf("elfx: %s: %w", o.name, err)
			}
		})
	}
	g.Wait()
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
