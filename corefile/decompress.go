package corefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/therootcompany/xz"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// Compressed cores (systemd-coredump stores zstd, people attach .xz/.gz/.lz4
// to bug reports) have no random access. They are stream-decompressed once
// into an unlinked temporary file, written sparsely (all-zero 4 KiB blocks
// become holes: cores are mostly zero pages), and that file is mapped like
// an uncompressed core.

const sparseBlock = 4096

// decompressor returns a reader of the decompressed stream. size is the
// compressed stream's size, -1 when unknown: it bounds zstd's window.
func decompressor(kind string, r io.Reader, size int64) (io.Reader, func(), error) {
	switch kind {
	case "zstd":
		limit := zstdMaxWindow(size)
		d, err := zstd.NewReader(r, zstd.WithDecoderMaxWindow(limit), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, err
		}
		return zstdWindowReader{d, limit, size}, d.Close, nil
	case "gzip":
		d, err := kgzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return d, func() { d.Close() }, nil
	case "xz":
		d, err := xz.NewReader(r, 0)
		if err != nil {
			return nil, nil, err
		}
		return d, func() {}, nil
	case "lz4":
		return newLZ4Stream(r), func() {}, nil
	}
	return nil, nil, fmt.Errorf("unknown compression %q", kind)
}

// Bounds on the zstd window a frame may declare. The decoder allocates
// the whole declared window before it decodes a byte, so a hostile
// 9-byte frame declaring 2 GiB would cost 2 GiB. No stream needs a window
// larger than what it decompresses to, and a zstd stream of n bytes
// decompresses to at most n × 32768 (a 3-byte RLE block header gives a
// 128 KiB block at most; zstdMaxRatio rounds up): the window allowed is
// that, between zstd's default maximum (8 MiB, every level without
// --ultra or --long) and the 2 GiB of --long=31. A stream of unknown size
// is allowed 128 MiB, what --ultra -22 and a plain --long use.
const (
	zstdMaxRatio      = 1 << 15
	zstdMinWindow     = 8 << 20
	zstdMaxWindowSize = 1 << 31
	zstdUnknownWindow = 128 << 20
)

// zstdMaxWindow is the largest window a zstd stream of size bytes (-1:
// unknown) may declare.
func zstdMaxWindow(size int64) uint64 {
	if size < 0 {
		return zstdUnknownWindow
	}
	if size >= zstdMaxWindowSize/zstdMaxRatio {
		return zstdMaxWindowSize
	}
	return max(uint64(size)*zstdMaxRatio, zstdMinWindow)
}

// zstdWindowReader says why a frame's window was refused.
type zstdWindowReader struct {
	d     *zstd.Decoder
	limit uint64
	size  int64
}

func (z zstdWindowReader) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		what := "a stream of unknown size"
		if z.size >= 0 {
			what = fmt.Sprintf("%d compressed bytes", z.size)
		}
		err = fmt.Errorf("%w: a frame declares a window above %d MiB, more than %s can need", err, z.limit>>20, what)
	}
	return n, err
}

// streamSize is the size of what r reads, when r can say (a file, a
// section of one, a byte slice), else -1.
func streamSize(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Size() int64 }:
		return v.Size()
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return -1
}

// decompressFile decompresses the core at path into an unlinked sparse file
// in tempDir ("" = os.TempDir()) and maps it. A stream that breaks off
// after some data gives that data (a truncated core is still worth
// reading) and a warning; so does a stream that goes on past the core's
// end (copyCore).
func decompressFile(path, kind, tempDir string) (data []byte, warning string, err error) {
	limit, err := MaxCoreSize()
	if err != nil {
		return nil, "", err
	}
	in, err := regfile.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	r, done, err := decompressor(kind, bufio.NewReaderSize(in, 1<<20), streamSize(in))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", kind, err)
	}
	defer done()
	tmp, err := createUnlinkedTemp(tempDir)
	if err != nil {
		return nil, "", fmt.Errorf("%s: decompressing: %w", kind, TempDirError(tempDir, err))
	}
	defer tmp.Close()
	size, trailing, err := copyCore(tmp, r, limit)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, "", fmt.Errorf("%s: %w", kind, err)
	case err != nil && size == 0:
		return nil, "", fmt.Errorf("%s: decompressing: %w", kind, err)
	case err != nil:
		warning = fmt.Sprintf("%s stream broken after %d bytes (%v): core truncated there", kind, size, err)
	case trailing:
		warning = fmt.Sprintf("%s stream goes on past the core's end at %d bytes (its headers say so): the rest is ignored", kind, size)
	}
	if err := tmp.Truncate(size); err != nil {
		return nil, "", err
	}
	data, err = mapFile(tmp)
	return data, warning, err
}

// copyCore copies the decompressed stream r into w, leaving holes for
// all-zero blocks, and returns the number of bytes it keeps. It stops at
// the end of the ELF file the stream holds, as soon as the written headers
// tell it (elfExtent): trailing says the stream went on past it (what
// was written past it is cut by the caller's Truncate(size)). A stream
// whose headers declare more than limit bytes, or that is no ELF file
// and goes on past limit, is an errTooLarge.
func copyCore(w *os.File, r io.Reader, limit int64) (size int64, trailing bool, err error) {
	buf := make([]byte, 1<<20)
	var off int64
	end := int64(-1) // the ELF file's end, once its headers are on disk
	for {
		want := len(buf)
		if end >= 0 {
			if off >= end {
				// Anything more is past the file's end.
				n, _ := readFull(r, buf[:1])
				return end, n > 0, nil
			}
			want = int(min(int64(want), end-off))
		}
		n, rerr := readFull(r, buf[:want])
		if off+int64(n) > limit {
			return off, false, fmt.Errorf("%w: more than %d bytes decompressed and no end in sight (%s)", errTooLarge, limit, maxCoreSizeEnv)
		}
		if err := writeSparse(w, buf[:n], off); err != nil {
			return off, false, err
		}
		off += int64(n)
		if end < 0 {
			if e, ok := elfExtent(w, off); ok {
				if e > limit {
					return off, false, fmt.Errorf("%w: its headers say the core is %d bytes, more than the limit, %d (%s)", errTooLarge, e, limit, maxCoreSizeEnv)
				}
				end = e
				if off > end {
					return end, true, nil
				}
			}
		}
		switch rerr {
		case nil:
		case io.EOF:
			return off, false, nil
		default:
			return off, false, rerr
		}
	}
}

// writeSparse writes b at off, leaving holes for its all-zero blocks:
// each run of non-zero blocks is one write.
func writeSparse(w *os.File, b []byte, off int64) error {
	runStart := -1
	for i := 0; i < len(b); i += sparseBlock {
		if allZero(b[i:min(i+sparseBlock, len(b))]) {
			if runStart >= 0 {
				if _, err := w.WriteAt(b[runStart:i], off+int64(runStart)); err != nil {
					return err
				}
				runStart = -1
			}
		} else if runStart < 0 {
			runStart = i
		}
	}
	if runStart >= 0 {
		if _, err := w.WriteAt(b[runStart:], off+int64(runStart)); err != nil {
			return err
		}
	}
	return nil
}

// readFull is io.ReadFull except that a clean end of stream is io.EOF
// whatever was read, and the reader's own errors (a decompressor's
// io.ErrUnexpectedEOF for a cut stream) pass through unchanged.
func readFull(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
