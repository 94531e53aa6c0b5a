package corefile

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// hostileZstd is a whole zstd frame of 9 bytes that declares a 2 GiB
// window (window descriptor 0xa8: 1 << (10+21)) and holds one empty raw
// block: the decoder allocates the declared window before decoding.
var hostileZstd = []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0x00, 0x00}

// TestZstdWindowBounded: sniffing or decompressing a tiny zstd file
// that declares a huge window allocates nothing like it, and says why
// the frame was refused (it failed, allocating 2 GiB, while every stream
// was allowed --long=31's window).
func TestZstdWindowBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core.zst")
	if err := os.WriteFile(path, hostileZstd, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Sniff(f)
	if err != nil {
		t.Fatal(err)
	}
	_, _, derr := decompressFile(path, "zstd", t.TempDir())
	runtime.ReadMemStats(&after)
	if got := (after.TotalAlloc - before.TotalAlloc) >> 20; got > 64 {
		t.Errorf("sniffing and decompressing %d bytes allocated %d MiB", len(hostileZstd), got)
	}
	if s.Kind != KindBroken || !errors.Is(s.Err, zstd.ErrWindowSizeExceeded) {
		t.Errorf("Sniff: kind %v, err %v; want broken, window size exceeded", s.Kind, s.Err)
	}
	if !errors.Is(derr, zstd.ErrWindowSizeExceeded) {
		t.Errorf("decompressFile: %v, want window size exceeded", derr)
	}
}

// TestZstdMaxWindow: the window allowed grows with the stream's size,
// from zstd's default maximum to --long=31's, and is 128 MiB for a
// stream of unknown size; a real frame compressed with a large window
// still decompresses when the stream is big enough to need it.
func TestZstdMaxWindow(t *testing.T) {
	for _, tc := range []struct {
		size int64
		want uint64
	}{
		{-1, 128 << 20}, {9, 8 << 20}, {1 << 10, 32 << 20}, {64 << 10, 1 << 31}, {1 << 30, 1 << 31},
	} {
		if got := zstdMaxWindow(tc.size); got != tc.want {
			t.Errorf("zstdMaxWindow(%d) = %d MiB, want %d MiB", tc.size, got>>20, tc.want>>20)
		}
	}
	// 8 KiB that do not compress, then a long repetition: a stream big
	// enough to need its 64 MiB window by the bound above.
	data := make([]byte, 8<<10)
	rand.NewChaCha8([32]byte{1}).Read(data)
	data = append(data, bytes.Repeat([]byte("coreunwind "), 1<<16)...)
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithWindowSize(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	r, done, err := decompressor("zstd", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("a real 64 MiB-window frame of %d bytes: %d bytes back, %v", buf.Len(), len(got), err)
	}
}
