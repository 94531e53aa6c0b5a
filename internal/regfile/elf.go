package regfile

import (
	"debug/elf"
	"os"
)

// ELFFile is an ELF file opened with OpenELF: debug/elf's view of it and
// the file, closed together.
type ELFFile struct {
	*elf.File
	f *os.File
}

// OpenELF is debug/elf's Open for a regular file only (see Open).
func OpenELF(path string) (*ELFFile, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &ELFFile{File: ef, f: f}, nil
}

// Close closes the file (debug/elf's Close leaves a file it did not open
// alone).
func (e *ELFFile) Close() error {
	e.File.Close()
	return e.f.Close()
}
