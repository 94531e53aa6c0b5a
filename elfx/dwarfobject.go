package elfx

import (
	"debug/dwarf"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// dwarfIndex returns the object's DWARF index, building it on first use,
// or nil when the object and its debug file have no DWARF.
func (o *Object) dwarfIndex() (*dwarfIndex, error) {
	return o.dwarfIndexFor(nil)
}

// dwarfIndexFor is dwarfIndex for a lookup batch at addrs, which its
// building starts inflating for if it builds a lazy index (the batch's
// preload then goes on with that prefetch).
func (o *Object) dwarfIndexFor(addrs []uint64) (*dwarfIndex, error) {
	d := o.state()
	d.dwarfOnce.Do(func() {
		src := o.dwarfSource()
		if src == nil {
			return
		}
		o.dwarfRead.Store(true)
		var x *dwarfIndex
		defer func() {
			if p := recover(); p != nil {
				x.endEarlyPrefetch() // the index is dropped: nobody's preload ends it
				mapfault.Reraise(p)
				d.dwarf, d.dwarfErr = nil, errorf("%s: malformed DWARF (%v)", src.name, p)
			}
		}()
		x, err := src.newLazyDWARFIndexFor(addrs)
		if x == nil && err == nil {
			var data *dwarf.Data
			if data, err = src.loadDWARF(); err == nil {
				x, err = newDWARFIndex(src.name, data)
			}
		}
		if x != nil {
			o.mu.Lock()
			dirs, fetch := debugDirsOrDefault(o.debugDirs), o.fetch
			o.mu.Unlock()
			x.useAlt(openAlt(src, dirs, fetch))
		}
		d.dwarf, d.dwarfErr = x, err
	})
	return d.dwarf, d.dwarfErr
}
