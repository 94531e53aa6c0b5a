package live

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// A core on disk is sparse, as the kernel writes one: the pages a
// process never touched and the pages of zeros are holes in the file,
// not zeros written out (a dump of a large, mostly untouched heap takes
// the disk its pages take), and untouched anonymous pages are not even
// read (/proc/PID/pagemap says which), which shortens the stop a dump
// costs. Readers see zeros in a hole, as in the process.

// coreOutput writes a core: bytes, and zeros as holes where the output
// can seek (a file); elsewhere (a pipe, memory) the zeros are written.
type coreOutput struct {
	w    *bufio.Writer
	file sparseFile // nil: zeros are written
	owed int64      // zeros not yet written or skipped
}

// sparseFile is an output a core can have holes in (an *os.File).
type sparseFile interface {
	io.Seeker
	Truncate(size int64) error
	Stat() (os.FileInfo, error)
}

// newCoreOutput writes to out, with holes where it is a regular file (a
// device such as /dev/null seeks, but has no size to set).
func newCoreOutput(out io.Writer) *coreOutput {
	o := &coreOutput{w: bufio.NewWriterSize(out, 1<<20)}
	if f, ok := out.(sparseFile); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			o.file = f
		}
	}
	return o
}

// Write writes p after the zeros owed.
func (o *coreOutput) Write(p []byte) (int, error) {
	if err := o.settle(false); err != nil {
		return 0, err
	}
	return o.w.Write(p)
}

// zeros owes n zero bytes: a hole, unless bytes must be written.
func (o *coreOutput) zeros(n int) { o.owed += int64(n) }

// data writes p, its pages of zeros as holes.
func (o *coreOutput) data(p []byte) error {
	for len(p) > 0 {
		page := p[:min(len(p), pageSize)]
		p = p[len(page):]
		if bytes.Equal(page, zeroPage[:len(page)]) {
			o.zeros(len(page))
			continue
		}
		if _, err := o.Write(page); err != nil {
			return err
		}
	}
	return nil
}

var zeroPage [pageSize]byte

// settle writes or skips the zeros owed; at the end of the file (last),
// a hole is made by setting the file's size past it.
func (o *coreOutput) settle(last bool) error {
	n := o.owed
	if n == 0 {
		return nil
	}
	o.owed = 0
	if o.file == nil {
		for n > 0 {
			k := min(n, pageSize)
			if _, err := o.w.Write(zeroPage[:k]); err != nil {
				return err
			}
			n -= k
		}
		return nil
	}
	if err := o.w.Flush(); err != nil {
		return err
	}
	off, err := o.file.Seek(n, io.SeekCurrent)
	if err == nil && last {
		err = o.file.Truncate(off)
	}
	return err
}

// finish writes what is buffered and owed.
func (o *coreOutput) finish() error {
	if err := o.settle(true); err != nil {
		return err
	}
	return o.w.Flush()
}

// pagemap reads /proc/PID/pagemap: whether the process has each page
// (in memory or swapped), so that pages of anonymous memory it never
// touched are left out unread.
type pagemap struct {
	f   *os.File
	buf []byte
}

// openPagemap opens dir's pagemap (dir: Snapshot.dir); nil when it
// cannot (every page is then read, and holes are made of the zero ones).
func openPagemap(dir string) *pagemap {
	f, err := os.Open(filepath.Join(dir, "pagemap"))
	if err != nil {
		return nil
	}
	return &pagemap{f: f}
}

func (pm *pagemap) close() {
	if pm != nil {
		pm.f.Close()
	}
}

// Bits of a pagemap entry (Documentation/admin-guide/mm/pagemap.rst).
const (
	pagePresent = 1 << 63
	pageSwapped = 1 << 62
)

// has returns, for the n pages from addr (page-aligned), whether
// the process has each; ok is false when pagemap cannot say.
func (pm *pagemap) has(addr uint64, n int) (has []bool, ok bool) {
	if pm == nil {
		return nil, false
	}
	size := 8 * n
	if cap(pm.buf) < size {
		pm.buf = make([]byte, size)
	}
	b := pm.buf[:size]
	got, err := pm.f.ReadAt(b, int64(addr/pageSize*8))
	if got != size || (err != nil && err != io.EOF) {
		return nil, false
	}
	has = make([]bool, n)
	for i := range has {
		e := le.Uint64(b[8*i:])
		has[i] = e&(pagePresent|pageSwapped) != 0
	}
	return has, true
}
