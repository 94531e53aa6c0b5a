package pa64

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
)

// rule is what the unwinder knows about one lookup address, computed once
// and cached: the table entry and what the prologue did before the pc.
type rule struct {
	entry    *unwtab.Entry
	start    uint64 // the entry's start as a run-time address
	prologue prologue
	err      error
}

func (r *rule) errOr(def error) error {
	if r.err != nil {
		return r.err
	}
	return def
}

// rules is the PA-RISC rule table of each unwind.Cache.
var rules = unwind.NewRuleKind[*rule]()

// ruleFor returns the rule for lookup address lpc of a frame whose pc is
// pc (the prologue scan runs up to pc).
func (a Arch) ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc, pc uint64) *rule {
	key := pc
	if r, ok := rules.In(cache).Get(key); ok {
		return r
	}
	r := &rule{}
	pi, err := cache.FindProcInfo(as, lpc)
	if err != nil {
		r.err = fmt.Errorf("pc %#x: %w", lpc, err)
	} else if e, ok := pi.Info.(*unwtab.Entry); ok && pi.Format == unwind.FormatUnwindTable {
		r.entry, r.start = e, pi.StartIP
		r.prologue = scanPrologue(func(addr uint64) (uint32, bool) { return readInsn(as, addr) }, pi.StartIP, pc, a.wide)
		if r.prologue.size > int64(e.Desc.FrameBytes()) && e.Desc.FrameBytes() > 0 {
			// As the kernel does: never more than the table's size.
			r.prologue.size = int64(e.Desc.FrameBytes())
		}
	} else {
		r.err = fmt.Errorf("pc %#x: unwind info format %v: %w", lpc, pi.Format, errNoEntry)
	}
	rules.In(cache).Put(key, r)
	return r
}
