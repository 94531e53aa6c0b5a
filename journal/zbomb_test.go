package journal

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/journaltest"
)

// A zstd field whose frame declares a 2 GiB window (ten bytes and one
// RLE block) is refused, without the decoder allocating the window.
func TestZstdWindowBounded(t *testing.T) {
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, (31 - 10) << 3} // no FCS; window 2^31
	const size = 128<<10 - 1
	h := uint32(1) | uint32(1)<<1 | uint32(size)<<3 // last block, RLE
	frame = append(frame, byte(h), byte(h>>8), byte(h>>16), 'x')
	path := filepath.Join(t.TempDir(), "window.journal")
	os.WriteFile(path, journaltest.Build(true, []journaltest.Field{{Data: "COREDUMP=", Flags: journaltest.CompressedZSTD, Store: frame}}), 0o644)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for e := range f.Entries() {
		d, err := f.Data(e.Items[0])
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, done, err := d.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, r)
			done()
		}
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "window") {
			t.Errorf("%v, want a window size error", err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("allocated %d MiB", alloc>>20)
		}
	}
}
