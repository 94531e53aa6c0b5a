package elfx

import "github.com/coreunwind/coreunwind/internal/mapfault"

// Warm builds the symbol table and the DWARF index now, in parallel, so
// that the first lookups do not pay for them one after the other. A
// batch of lookups in several objects warms them all first, each on its
// own goroutine. A fault on the object's mapping in the goroutine (the
// file truncated while in use) is raised again in the caller's
// (mapfault.Group).
func (o *Object) Warm() {
	var g mapfault.Group
	g.Go(func() { o.symbols() })
	o.dwarfIndex()
	g.Wait()
}

// WarmFor warms the object for lookups at these link-time addresses:
// not at all when the symbol cache already holds every one of them.
func (o *Object) WarmFor(addrs []uint64) {
	if m := o.state().memo.Load(); m != nil && m.covers(addrs) {
		return
	}
	var g mapfault.Group
	g.Go(func() { o.preloadSymbols(addrs) })
	// Go code is named from .gopclntab (inGoCode): only the rest needs
	// the DWARF index.
	var other []uint64
	for _, a := range addrs {
		if !o.inGoCode(a) {
			other = append(other, a)
		}
	}
	if len(other) > 0 {
		if x, _ := o.dwarfIndexFor(other); x != nil && x.lazy != nil {
			x.preload(other)
		}
	}
	g.Wait()
}
