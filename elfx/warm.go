package elfx

import "sync"

// Warm builds the symbol table and the DWARF index now, in parallel, so
// that the first lookups do not pay for them one after the other. A
// batch of lookups in several objects warms them all first, each on its
// own goroutine.
func (o *Object) Warm() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o.symbols()
	}()
	o.dwarfIndex()
	wg.Wait()
}

// WarmFor warms the object for lookups at these link-time addresses:
// not at all when the symbol cache already holds every one of them.
func (o *Object) WarmFor(addrs []uint64) {
	if m := o.state().memo.Load(); m != nil && m.covers(addrs) {
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o.preloadSymbols(addrs)
	}()
	if x, _ := o.dwarfIndex(); x != nil && x.lazy != nil {
		x.preload(addrs)
	}
	wg.Wait()
}
