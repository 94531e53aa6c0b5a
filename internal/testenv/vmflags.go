package testenv

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// VMFlags returns the VmFlags of the mapping of this process holding b
// (/proc/self/smaps): "rr" for MADV_RANDOM, "hg" for MADV_HUGEPAGE, ...
func VMFlags(t testing.TB, b []byte) string {
	t.Helper()
	addr := uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			if in {
				return strings.TrimSpace(flags)
			}
			continue
		}
		span, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(span, "-")
		if !ok {
			continue
		}
		l, err1 := strconv.ParseUint(lo, 16, 64)
		h, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil {
			in = l <= addr && addr < h
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping holds %#x in /proc/self/smaps", addr)
	return ""
}
