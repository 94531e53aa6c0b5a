package unwtab

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FuzzReadTable feeds arbitrary bytes as an ELF object to the table
// reader and the lookup: errors are fine, panics and hangs are not.
func FuzzReadTable(f *testing.F) {
	for _, p := range fuzzSeedFiles(f) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		tab, err := ReadTable(ef)
		if err != nil {
			return
		}
		for _, e := range tab.Entries {
			tab.Lookup(e.Start)
			tab.Lookup(e.End + 4)
			_ = e.Desc.Flags()
		}
	})
}

// fuzzSeedFiles builds small real PA-RISC objects when the cross
// compilers are installed (the checked-in corpus covers the rest).
func fuzzSeedFiles(f *testing.F) []string {
	dir := f.TempDir()
	var out []string
	for _, c := range []struct{ gcc, src, name string }{
		{"hppa-linux-gnu-gcc-12", "../testdata/progs/frames.c", "f32.o"},
		{"hppa64-linux-gnu-gcc-12", "../testdata/progs/frames64.c", "f64.o"},
	} {
		p := filepath.Join(dir, c.name)
		if exec.Command(c.gcc, "-O1", "-c", "-o", p, c.src).Run() == nil {
			out = append(out, p)
		}
	}
	return out
}
