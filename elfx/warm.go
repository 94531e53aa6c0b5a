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
