package analyze

import (
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// regSlab holds the register lists of a thread's frames in chunks shared
// by many frames. A list and its memory addresses allocated for each
// frame were most of an unwind-only run of a deep stack (a 5,000-frame
// recursion: 12.7M of 31.8M instructions); a chunk is never grown, so
// the lists and address pointers handed out stay valid.
type regSlab struct {
	regs  []report.Register
	addrs []report.Hex
}

// regChunk is how many registers (and addresses) one chunk holds at
// most: a few hundred frames' worth. The first chunk of a thread holds
// firstRegChunk, a few frames' worth, and each next one twice the last:
// a triage core walks a handful of frames, and a 2048-entry chunk (96
// KiB, zeroed) for each was a tenth of its allocation work.
const (
	regChunk      = 2048
	firstRegChunk = 64
)

// frameRegisters lists the registers the unwinder knows in f, by
// register number, with how each was recovered (and where, for saved
// ones): the report's per-frame registers.
func (s *regSlab) frameRegisters(arch unwind.Arch, f *unwind.Frame) []report.Register {
	n, inMem := 0, 0
	for r := range f.Regs {
		if _, ok := f.Get(r); ok {
			n++
			if f.Locs[r].Kind == unwind.LocMem {
				inMem++
			}
		}
	}
	if n == 0 {
		return nil
	}
	out := take(&s.regs, n)
	var addrs []report.Hex
	if inMem > 0 {
		addrs = take(&s.addrs, inMem)
	}
	i, j := 0, 0
	for r := range f.Regs {
		v, ok := f.Get(r)
		if !ok {
			continue
		}
		loc := f.Locs[r]
		reg := &out[i]
		i++
		reg.Name, reg.Value, reg.How = arch.RegName(r), report.Hex(v), loc.Kind.String()
		switch {
		case f.Trust == unwind.TrustContext && loc.Kind == unwind.LocSame:
			reg.How = "context"
		case loc.Kind == unwind.LocMem:
			addrs[j] = report.Hex(loc.Addr)
			reg.Address = &addrs[j]
			j++
		}
	}
	return out
}

// take returns the next n elements of *chunk, full length and capped at
// n, starting a new chunk when the current one has no room (twice the
// last one's size, from firstRegChunk up to regChunk).
func take[T any](chunk *[]T, n int) []T {
	if cap(*chunk)-len(*chunk) < n {
		size := min(max(firstRegChunk, 2*cap(*chunk)), regChunk)
		*chunk = make([]T, 0, max(size, n))
	}
	l := len(*chunk)
	*chunk = (*chunk)[:l+n]
	return (*chunk)[l : l+n : l+n]
}
