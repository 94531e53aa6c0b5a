package elfx

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenErrorsSayWhatIsWrong: a file that is not what it should be
// gets one message naming it once and saying what is wrong in words
// ("truncated ELF file (section headers past the end ...)"), not
// debug/elf's bare "EOF" or the path twice.
func TestOpenErrorsSayWhatIsWrong(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	image, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	// The test binary is ELF64 little-endian: its program headers follow
	// the header; e_shoff is at 0x28.
	phEnd := 64 + len(ef.Progs)*56
	shoff := int(binary.LittleEndian.Uint64(image[0x28:]))
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notRegular := filepath.Join(dir, "sub", "x")
	os.MkdirAll(notRegular, 0o700)
	for _, tc := range []struct {
		path, want string
	}{
		{write("header", image[:40]), "truncated ELF file (ELF header past the end of its 40 bytes)"},
		{write("phdrs", image[:phEnd-1]), "truncated ELF file (program headers past the end of its"},
		{write("shdrs", image[:shoff+10]), "truncated ELF file (section headers past the end of its"},
		{write("text", []byte("#!/bin/sh\necho hello\n")), "not an ELF file"},
		{write("empty", nil), "not an ELF file"},
		{notRegular, "not a regular file"},
	} {
		o, err := Open(tc.path)
		if err == nil {
			o.Close()
			t.Errorf("%s: opened", tc.path)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, tc.path+": "+tc.want) || strings.Count(msg, tc.path) != 1 || strings.Contains(msg, "EOF") {
			t.Errorf("Open(%s): %q, want %q", tc.path, msg, tc.path+": "+tc.want+"...")
		}
	}
}
