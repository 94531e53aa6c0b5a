package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Pages given back by release leave the resident set and read back the
// same bytes; memory that is not the file mapping's is left alone.
func TestReleaseKeepsBytes(t *testing.T) {
	paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libc.so.6")
	}
	o := mustOpen(t, paths[0])
	tab, ok := o.symbolTable(elf.SHT_DYNSYM)
	if !ok || len(tab.data) < 16*os.Getpagesize() {
		t.Fatalf("%s: no .dynsym of 16 pages", paths[0])
	}
	syms := tab.data
	want := bytes.Clone(syms)
	if n := presentPages(t, syms); n == 0 {
		t.Fatal("no page of .dynsym present after reading it")
	}
	o.release(syms)
	if n := presentPages(t, syms); n > 2 { // the partial first and last pages stay
		t.Errorf("%d pages of .dynsym still present after release", n)
	}
	if !bytes.Equal(syms, want) {
		t.Error(".dynsym reads back different bytes after release")
	}
	heap := bytes.Repeat([]byte{7}, 64<<10)
	o.release(heap)
	if !bytes.Equal(heap, bytes.Repeat([]byte{7}, 64<<10)) {
		t.Error("release changed memory outside the file mapping")
	}
}

// presentPages counts the pages of b present in this process's page
// tables (/proc/self/pagemap bit 63), touching none.
func presentPages(t *testing.T, b []byte) int {
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b))) / page
	end := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b)) + page - 1) / page
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		testenv.Unavailable(t, "no /proc/self/pagemap: "+err.Error())
	}
	defer f.Close()
	buf := make([]byte, (end-start)*8)
	if _, err := f.ReadAt(buf, int64(start*8)); err != nil {
		t.Fatalf("pagemap: %v", err)
	}
	n := 0
	for i := 0; i < len(buf); i += 8 {
		if binary.LittleEndian.Uint64(buf[i:])>>63 != 0 {
			n++
		}
	}
	return n
}
