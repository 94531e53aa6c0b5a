package debuginfod

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestFileURLSpecialFile: under a file:// URL, a named pipe where the
// file would be is no answer, at once: it used to block the download in
// open(2) until the transfer's time limit.
func TestFileURLSpecialFile(t *testing.T) {
	root := t.TempDir()
	id := "0123456789abcdef0123456789abcdef01234567"
	fifo := filepath.Join(root, "buildid", id, "debuginfo")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, fifo)
	c := New(Config{URLs: []string{"file://" + root}, CachePath: t.TempDir()})
	start := time.Now()
	testenv.NoHang(t, 10*time.Second, "Debuginfo from a FIFO", func() {
		if p, err := c.Debuginfo(id); err == nil {
			t.Errorf("Debuginfo = %s from a named pipe", p)
		}
	}, fifo)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the refusal took %v", d)
	}
}
