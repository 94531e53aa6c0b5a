package corefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
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
	if flags := testenv.VMFlags(t, b); !strings.Contains(" "+flags+" ", " rr ") {
		t.Errorf("the core's mapping has VmFlags %q, without rr (MADV_RANDOM)", flags)
	}
}
