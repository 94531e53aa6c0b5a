package corefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// TestCoreMappingAdvisedRandom: a mapped core is advised for random
// reads, so that a page missing from the page cache is read alone, not
// with the kernel's read-around (the "rr" flag of the mapping in
// /proc/self/smaps).
func TestCoreMappingAdvisedRandom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := mapPath(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap(b)
	flags, err := vmFlags(uintptr(unsafe.Pointer(&b[0])))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " rr ") {
		t.Errorf("the core's mapping has VmFlags %q, without rr (MADV_RANDOM)", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping of this process that
// starts at addr.
func vmFlags(addr uintptr) (string, error) {
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	start := fmt.Sprintf("%x-", addr)
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		if strings.HasPrefix(line, start) {
			in = true
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	return "", fmt.Errorf("no mapping at %#x in /proc/self/smaps", addr)
}
