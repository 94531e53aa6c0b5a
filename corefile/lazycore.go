package corefile

import (
	"debug/elf"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// A batch reads its cores' bytes on demand, a few pages at a time, into
// a buffer a finished core hands on to the next (lazyCore), instead of
// mapping each core. Mapping a core costs a page fault per 64 KiB window
// it touches (the kernel maps the whole window's pages from the page
// cache) and, on Close, a munmap that tears them down again: for the
// small cores of a triage archive, a quarter of each core's CPU time.
// Reading the whole file instead costs as much (it copies the holes and
// the pages nobody reads); reading the pages that are read costs a
// pread each. The headers and notes are read first (load reads them
// directly), the rest as reads of memory reach it.

// lazyCoreMax is the largest core read on demand; a larger one is
// mapped (its buffer would be kept for the next core).
const lazyCoreMax = 16 << 20

// lazyPage is the unit a lazyCore reads: a read of memory fills the
// pages it covers that are not filled yet, in one pread.
const lazyPage = 4096

// maxCoreBuffers bounds the buffers a FileCache keeps for the next
// cores: one per core analyzed at once.
const maxCoreBuffers = 8

// lazyCore is a core file being read on demand into buf (len(buf) is the
// file's size). A page of buf is valid once its bit in filled is set;
// the other pages hold whatever the buffer's last core left there, so
// every read of buf goes through fill first.
type lazyCore struct {
	fd     int // a plain descriptor: os.File's poller setup costs 5 system calls per core
	buf    []byte
	filled []atomic.Uint64 // one bit per lazyPage
	mu     sync.Mutex      // serializes the preads (threads are walked concurrently)
	owner  *FileCache      // buf goes back to it on close
}

// openLazy opens the core at path for reading on demand, into one of
// files' buffers. ok is false (and nothing is left open) when the core is
// not for this path: not a regular file of at most lazyCoreMax bytes,
// not a Linux ELF core, or with headers load could not read; Open maps
// it (and says what is wrong with it) instead.
func openLazy(path string, files *FileCache) (lc *lazyCore, ok bool) {
	fd, fsize, err := regfile.OpenFd(path, 0)
	if err != nil {
		return nil, false
	}
	if fsize <= 0 || fsize > lazyCoreMax {
		unix.Close(fd)
		return nil, false
	}
	size := int(fsize)
	lc = &lazyCore{fd: fd, buf: files.coreBuffer(size), owner: files}
	lc.filled = make([]atomic.Uint64, (size+lazyPage*64-1)/(lazyPage*64))
	if !lc.fillHeaders() {
		lc.close()
		return nil, false
	}
	return lc, true
}

// fillHeaders fills what load reads directly, and reports whether that
// is all load needs: an ELF core's file header, its program headers
// (without extended numbering) and its notes, read whole, and the core is
// Linux's (HP-UX's ELF cores read their segments directly).
func (lc *lazyCore) fillHeaders() bool {
	if lc.fill(0, lazyPage) != nil {
		return false
	}
	h, err := parseFileHeader(lc.buf[:min(len(lc.buf), lazyPage)])
	if err != nil || h.Type != elf.ET_CORE || h.Phnum == pnXNum {
		return false
	}
	tabLen := uint64(h.Phnum) * uint64(h.Phentsize)
	if lc.fill(h.Phoff, tabLen) != nil {
		return false
	}
	tab, whole := sliceAt(lc.buf, h.Phoff, tabLen)
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
		if lc.fill(ph.Off, ph.Filesz) != nil {
			return false
		}
		if _, whole := sliceAt(lc.buf, ph.Off, ph.Filesz); !whole {
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
		got, rerr := lc.pread(lc.buf[lo:hi], int64(lo))
		if rerr != nil && err == nil {
			err = rerr
		}
		clear(lc.buf[lo+uint64(got) : hi])
		for ; p < q; p++ {
			lc.filled[p/64].Or(1 << (p % 64))
		}
	}
	return err
}

// pread reads into b from offset off until b is full, the file ends
// (n < len(b), no error) or the read fails.
func (lc *lazyCore) pread(b []byte, off int64) (n int, err error) {
	for n < len(b) {
		m, err := unix.Pread(lc.fd, b[n:], off+int64(n))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return n, err
		case m == 0:
			return n, nil
		}
		n += m
	}
	return n, nil
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
	lc.owner.releaseCoreBuffer(lc.buf)
	lc.buf = nil
	return unix.Close(lc.fd)
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
