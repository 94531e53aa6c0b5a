package elfx

import (
	"os"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// The unlisted walk's streams, inflated whole and kept, ask for huge
// pages (python3.11's: _start is in no listed unit); a lookup batch
// among listed units alone, whose streams give their pages back, does
// not (glibc's).
func TestWholeStreamsAskForHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		testenv.Unavailable(t, "a kernel with transparent huge pages: "+err.Error())
	}
	dbgs := compressedDebugFiles(t)
	libc, py := dbgs[0], dbgs[1]

	entry := []uint64{py.ELF().Entry}
	x := py.mustLazyIndex(t, entry)
	x.preload(entry)
	if u := x.lazy.unlisted.x; u == nil || !u.unlisted {
		t.Fatalf("%s: looking up the entry point did not walk the unlisted units", py.name)
	}
	for _, st := range []*sectionStream{x.lazy.info, x.lazy.line} {
		if st.done != len(st.buf) || len(st.buf) < hugePageSize {
			t.Fatalf("%s %s: %d of %d bytes inflated; the test wants it whole and at least a huge page", py.name, st.name, st.done, len(st.buf))
		}
		if flags := testenv.VMFlags(t, st.buf); !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("%s %s, inflated whole for the walk: VmFlags %q, no hg (MADV_HUGEPAGE)", py.name, st.name, flags)
		}
		// Whole huge pages: Linux starts such a mapping at a huge
		// page boundary, and all of it can be huge pages.
		if n := len(st.mapping.b); n%hugePageSize != 0 || n < len(st.buf) {
			t.Errorf("%s %s: %d bytes mapped for %d, not whole huge pages", py.name, st.name, n, len(st.buf))
		}
	}

	addrs := sampleAddrs(t, libc.ELF(), 300)
	y := libc.mustLazyIndex(t, addrs[:20])
	y.preload(addrs[:20])
	if y.lazy.unlisted.x != nil {
		t.Fatalf("%s: listed addresses walked the unlisted units", libc.name)
	}
	if st := y.lazy.info; len(st.buf) >= hugePageSize {
		if flags := testenv.VMFlags(t, st.buf); strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("%s %s, read by units: VmFlags %q ask for huge pages", libc.name, st.name, flags)
		}
	} else {
		t.Fatalf("%s %s: %d bytes, less than a huge page", libc.name, st.name, len(st.buf))
	}
}
