package corefile

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
)

// TestTruncatedCores cuts a real core at many offsets (inside the ELF
// header, the program headers, the notes, at and inside segments) and
// checks that Open either fails or gives a Core whose reads return the
// original bytes or ErrUnavailable — never other bytes, never a panic.
func TestTruncatedCores(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "2")
	full, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := OpenBytes(full, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	h, _ := parseFileHeader(full)
	cuts := []int{0, 1, 4, 16, 18, 40, 63, 64}
	for i := 0; i <= h.Phnum; i++ {
		cuts = append(cuts, int(h.Phoff)+i*h.Phentsize, int(h.Phoff)+i*h.Phentsize+5)
	}
	var noteSeg progHeader
	phs, _ := parseProgHeaders(full[h.Phoff:], h, h.Phnum, h.Phoff)
	for _, ph := range phs {
		if ph.Type == 4 { // PT_NOTE
			noteSeg = ph
		}
	}
	for _, frac := range []uint64{1, 2, 3, 5, 7, 11, 13, 50, 97, 99} {
		cuts = append(cuts, int(noteSeg.Off+noteSeg.Filesz*frac/100))
	}
	for _, s := range ref.Segments {
		if s.Filesz > 0 {
			cuts = append(cuts, int(s.Offset), int(s.Offset+s.Filesz/2), int(s.Offset+s.Filesz-1))
		}
	}
	cuts = append(cuts, len(full)-1)

	probes := []uint64{facts.GlobalAddr, facts.RodataAddr, ref.VDSO}
	for _, s := range ref.Segments {
		probes = append(probes, s.Vaddr, s.Vaddr+s.Filesz/2, s.Vaddr+s.Memsz-8)
	}
	opened := 0
	for _, n := range cuts {
		if n < 0 || n > len(full) {
			continue
		}
		c, err := OpenBytes(full[:n], Options{})
		if err != nil {
			continue
		}
		opened++
		for _, a := range probes {
			want, got := make([]byte, 64), make([]byte, 64)
			werr := ref.ReadMem(a, want)
			gerr := c.ReadMem(a, got)
			switch {
			case gerr == nil && werr != nil:
				t.Errorf("cut %d: read %#x succeeded on the truncated core but not the full one", n, a)
			case gerr == nil && !bytes.Equal(got, want):
				t.Errorf("cut %d: read %#x gave different bytes", n, a)
			case gerr != nil && !errors.Is(gerr, unwind.ErrUnavailable):
				t.Errorf("cut %d: read %#x: %v, want ErrUnavailable", n, a, gerr)
			}
			// A byte the full core lacks too is not missing because of
			// the cut.
			if ref.ReadMem(a, want[:1]) != nil {
				if err := c.ReadMem(a, got[:1]); errors.Is(err, ErrTruncated) {
					t.Errorf("cut %d: read %#x: %v: the full core lacks it too, not the cut", n, a, err)
				}
			}
		}
		// The last dumped byte of each segment: past the cut it is
		// missing because of the cut (ErrTruncated), before it it reads.
		for _, s := range c.Segments {
			if s.Filesz == 0 {
				continue
			}
			err := c.ReadMem(s.Vaddr+s.Filesz-1, make([]byte, 1))
			if cut := s.Offset+s.Filesz-1 >= uint64(n); cut != errors.Is(err, ErrTruncated) || !cut && err != nil {
				t.Errorf("cut %d: last byte of segment %#x (file offset %#x): %v", n, s.Vaddr, s.Offset+s.Filesz-1, err)
			}
		}
		c.Close()
	}
	if opened == 0 {
		t.Error("no truncated core opened at all")
	}

	// A cut in the middle of the segment holding the global: what is
	// before the cut reads, what is after does not, and Open says so.
	for _, s := range ref.Segments {
		if facts.GlobalAddr >= s.Vaddr && facts.GlobalAddr < s.Vaddr+s.Filesz {
			cut := s.Offset + (facts.GlobalAddr - s.Vaddr) + 4
			c, err := OpenBytes(full[:cut], Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !hasWarning(c, "core truncated") {
				t.Errorf("no truncation warning: %q", c.Warnings)
			}
			var b [4]byte
			if err := c.ReadMem(facts.GlobalAddr, b[:]); err != nil {
				t.Errorf("bytes before the cut: %v", err)
			}
			if err := c.ReadMem(facts.GlobalAddr, make([]byte, 8)); !errors.Is(err, unwind.ErrUnavailable) {
				t.Errorf("bytes after the cut: %v", err)
			}
			c.Close()
		}
	}
}
