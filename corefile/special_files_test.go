package corefile

import (
	"debug/elf"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/regfile"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestSpecialFiles: a named pipe given as a core (read on demand through
// a FileCache, or mapped), sniffed by a batch, or given as an HP-UX
// core's executable is refused at once and says what it is; open(2) of
// a FIFO used to block for a writer.
func TestSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "core")
	testenv.Mkfifo(t, fifo)
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"Open", func() error { _, err := Open(fifo, Options{}); return err }},
		{"Open-FileCache", func() error { _, err := Open(fifo, Options{Files: NewFileCache()}); return err }},
		{"SniffFile", func() error { _, err := SniffFile(fifo); return err }},
		{"HP-UX-executable", func() error {
			c, err := OpenBytes(hpuxPA64Core(elf.ELFOSABI_HPUX), Options{Executable: fifo})
			if err != nil {
				return err
			}
			defer c.Close()
			for _, w := range c.Warnings {
				if strings.Contains(w, "not a regular file") {
					return errors.New(w)
				}
			}
			return nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.NoHang(t, 10*time.Second, c.name, func() {
				err := c.run()
				if err == nil || !strings.Contains(err.Error(), fifo+": not a regular file (named pipe)") {
					t.Errorf("%s(FIFO): %v, want a refusal naming the named pipe", c.name, err)
				}
				if c.name != "HP-UX-executable" && !errors.Is(err, regfile.ErrNotRegular) {
					t.Errorf("%s(FIFO): %v does not wrap regfile.ErrNotRegular", c.name, err)
				}
			}, fifo)
		})
	}
}
