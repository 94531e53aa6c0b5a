package corefile

import (
	"bufio"
	"fmt"
	"io"
	"os"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/therootcompany/xz"
)

// Compressed cores (systemd-coredump stores zstd, people attach .xz/.gz/.lz4
// to bug reports) have no random access. They are stream-decompressed once
// into an unlinked temporary file, written sparsely (all-zero 4 KiB blocks
// become holes: cores are mostly zero pages), and that file is mapped like
// an uncompressed core.

// maxDecompressed bounds the size of a decompressed core (a decompression
// bomb would otherwise fill the temporary directory).
const maxDecompressed = 1 << 40

const sparseBlock = 4096

// decompressor returns a reader of the decompressed stream.
func decompressor(kind string, r io.Reader) (io.Reader, func(), error) {
	switch kind {
	case "zstd":
		// Streams made with zstd --long=31 need a 2 GiB window.
		d, err := zstd.NewReader(r, zstd.WithDecoderMaxWindow(1<<31), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, err
		}
		return d, d.Close, nil
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

// decompressFile decompresses the core at path into an unlinked sparse file
// in tempDir ("" = os.TempDir()) and maps it. A stream that breaks off
// after some data gives that data (a truncated core is still worth
// reading) and a warning.
func decompressFile(path, kind, tempDir string) (data []byte, warning string, err error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	r, done, err := decompressor(kind, bufio.NewReaderSize(in, 1<<20))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", kind, err)
	}
	defer done()
	tmp, err := os.CreateTemp(tempDir, "coreunwind-core-*")
	if err != nil {
		return nil, "", err
	}
	// Unlinked now, the space is freed when the mapping goes away.
	os.Remove(tmp.Name())
	defer tmp.Close()
	size, err := copySparse(tmp, io.LimitReader(r, maxDecompressed+1))
	if err != nil {
		if size == 0 {
			return nil, "", fmt.Errorf("%s: decompressing: %w", kind, err)
		}
		warning = fmt.Sprintf("%s stream broken after %d bytes (%v): core truncated there", kind, size, err)
	}
	if size > maxDecompressed {
		return nil, "", fmt.Errorf("%s: decompressed core larger than %d bytes", kind, int64(maxDecompressed))
	}
	if err := tmp.Truncate(size); err != nil {
		return nil, "", err
	}
	data, err = mapFile(tmp)
	return data, warning, err
}

// copySparse copies r to w, leaving holes for all-zero blocks, and returns
// the number of bytes copied.
func copySparse(w *os.File, r io.Reader) (int64, error) {
	buf := make([]byte, 1<<20)
	var off int64
	for {
		n, rerr := readFull(r, buf)
		// Write each run of non-zero blocks with one call.
		runStart := -1
		for i := 0; i < n; i += sparseBlock {
			blk := buf[i:min(i+sparseBlock, n)]
			if allZero(blk) {
				if runStart >= 0 {
					if _, err := w.WriteAt(buf[runStart:i], off+int64(runStart)); err != nil {
						return off, err
					}
					runStart = -1
				}
			} else if runStart < 0 {
				runStart = i
			}
		}
		if runStart >= 0 {
			if _, err := w.WriteAt(buf[runStart:n], off+int64(runStart)); err != nil {
				return off, err
			}
		}
		off += int64(n)
		switch rerr {
		case nil:
		case io.EOF:
			return off, nil
		default:
			return off, rerr
		}
	}
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
