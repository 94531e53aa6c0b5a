package corefile

import (
	"debug/elf"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// A batch reads its cores' bytes on demand, a few pages at a time, into
// a buffer a finished core hands on to the next (lazyCore), instead of
// mapping each core. Mapping a core costs a page fault per 64 KiB window
// it touches (the kernel maps the whole window's pages from the page
// cache) and, on Close, a munmap that tears them down again: for the
// small cores of a triage archive, a quarter of each core's CPU time.
// Reading the whole file instead costs as much (it copies the holes and
// the pages nobody reads); reading the pages that are read costs a
// pread each.

// lazyCoreMax is the largest core read on demand; a larger one is
// mapped (its buffer would be kept for the next core).
const lazyCoreMax = 16 << 20

// lazyPage is the unit a lazyCore reads: a read of memory fills the
// pages it covers that are not filled yet, in one pread.
const lazyPage = 4096

// lazyPrefix is read at once: the ELF header, the program headers and
// the notes, which load reads directly, are at the start of a Linux core.
const lazyPrefix = 64 << 10

// maxCoreBuffers bounds the buffers a FileCache keeps for the next
// cores: one per core analyzed at once.
const maxCoreBuffers = 8

// lazyCore is a core file being read on demand into buf (len(buf) is the
// file's size). A page of buf is valid once its bit in filled is set;
// the other pages hold whatever the buffer's last core left there, so
// every read of buf goes through fill first.
type lazyCore struct {
	f      *os.File
	buf    []byte
	filled []atomic.Uint64 // one bit per lazyPage
	mu     sync.Mutex      // serializes the preads (threads are walked concurrently)
	owner  *FileCache      // buf goes back to it on close
}

// openLazy opens f (a regular file of size bytes) for reading on demand,
// into one of files' buffers. ok is false when the core is not for this
// path: not a Linux ELF core whose headers and notes lie in its first
// lazyPrefix bytes (load reads those directly); f stays open either way
// when err is set or ok is false.
func openLazy(f *os.File, size int, files *FileCache) (lc *lazyCore, ok bool, err error) {
	lc = &lazyCore{f: f, buf: files.coreBuffer(size), owner: files}
	lc.filled = make([]atomic.Uint64, (size+lazyPage*64-1)/(lazyPage*64))
	n := min(size, lazyPrefix)
	if err := lc.fill(0, uint64(n)); err != nil {
		lc.release()
		return nil, false, err
	}
	if !headersWithin(lc.buf[:n]) {
		lc.release()
		return nil, false, nil
	}
	return lc, true, nil
}

// headersWithin reports whether prefix, the start of a file, holds all
// that load reads directly: an ELF core's file header, its program
// headers (without extended numbering) and its notes, and the core is
// Linux's (HP-UX's ELF cores read their segments directly).
func headersWithin(prefix []byte) bool {
	if !isELF(prefix) {
		return false
	}
	h, err := parseFileHeader(prefix)
	if err != nil || h.Type != elf.ET_CORE || h.Phnum == pnXNum {
		return false
	}
	tab, whole := sliceAt(prefix, h.Phoff, uint64(h.Phnum)*uint64(h.Phentsize))
	if !whole {
		return false
	}
	phs, err := parseProgHeaders(tab, h, h.Phnum, h.Phoff)
	if err != nil || isHPUXELFCore(h, phs) {
		return false
	}
	for _, ph := range phs {
		if ph.Type != elf.PT_NOTE {
			continue
		}
		if _, whole := sliceAt(prefix, ph.Off, ph.Filesz); !whole {
			return false
		}
	}
	return true
}

// fill makes buf[off:off+n] (clipped to the file) valid. A page the file
// no longer holds (it shrank since it was opened) reads as zeros, never
// as the last core's bytes.
func (lc *lazyCore) fill(off, n uint64) error {
	size := uint64(len(lc.buf))
	if n == 0 || off >= size {
		return nil
	}
	end := min(off+n, size)
	if end < off {
		end = size
	}
	first, last := off/lazyPage, (end-1)/lazyPage
	if lc.allFilled(first, last) {
		return nil
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	var err error
	for p := first; p <= last; {
		if lc.isFilled(p) {
			p++
			continue
		}
		q := p + 1
		for q <= last && !lc.isFilled(q) {
			q++
		}
		lo, hi := p*lazyPage, min(q*lazyPage, size)
		got, rerr := lc.f.ReadAt(lc.buf[lo:hi], int64(lo))
		if rerr != nil && !errors.Is(rerr, io.EOF) && err == nil {
			err = rerr
		}
		clear(lc.buf[lo+uint64(got) : hi])
		for ; p < q; p++ {
			lc.filled[p/64].Or(1 << (p % 64))
		}
	}
	return err
}

func (lc *lazyCore) isFilled(p uint64) bool {
	return lc.filled[p/64].Load()&(1<<(p%64)) != 0
}

// allFilled reports whether pages first..last are all valid.
func (lc *lazyCore) allFilled(first, last uint64) bool {
	for w := first / 64; w <= last/64; w++ {
		mask := ^uint64(0)
		if w == first/64 {
			mask &= ^uint64(0) << (first % 64)
		}
		if w == last/64 {
			mask &= ^uint64(0) >> (63 - last%64)
		}
		if lc.filled[w].Load()&mask != mask {
			return false
		}
	}
	return true
}

// close gives the buffer back and closes the file.
func (lc *lazyCore) close() error {
	lc.release()
	return lc.f.Close()
}

// release gives the buffer back (the file stays open).
func (lc *lazyCore) release() {
	lc.owner.releaseCoreBuffer(lc.buf)
	lc.buf = nil
}

// coreBuffer returns a buffer of length size, one a closed core left
// when one is large enough.
func (fc *FileCache) coreBuffer(size int) []byte {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	best := -1
	for i, b := range fc.buffers {
		if cap(b) >= size && (best < 0 || cap(b) < cap(fc.buffers[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]byte, size)
	}
	b := fc.buffers[best]
	last := len(fc.buffers) - 1
	fc.buffers[best] = fc.buffers[last]
	fc.buffers = fc.buffers[:last]
	return b[:size]
}

// releaseCoreBuffer keeps b, which no core reads any more, for the next
// core (up to maxCoreBuffers buffers; the smallest goes first).
func (fc *FileCache) releaseCoreBuffer(b []byte) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if len(fc.buffers) < maxCoreBuffers {
		fc.buffers = append(fc.buffers, b[:0])
		return
	}
	small := 0
	for i, o := range fc.buffers {
		if cap(o) < cap(fc.buffers[small]) {
			small = i
		}
	}
	if cap(b) > cap(fc.buffers[small]) {
		fc.buffers[small] = b[:0]
	}
}
