package elfx

import "github.com/coreunwind/coreunwind/internal/mapfault"

// dwarfIndex returns the object's DWARF index, building it on first use,
// or nil when the object and its debug file have no DWARF.
func (o *Object) dwarfIndex() (*dwarfIndex, error) {
	d := o.state()
	d.dwarfOnce.Do(func() {
		src := o.dwarfSource()
		if src == nil {
			return
		}
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				d.dwarf, d.dwarfErr = nil, errorf("%s: malformed DWARF (%v)", src.name, p)
			}
		}()
		if x, err := src.newLazyDWARFIndex(); x != nil || err != nil {
			d.dwarf, d.dwarfErr = x, err
			return
		}
		data, err := src.loadDWARF()
		if err != nil {
			d.dwarfErr = err
			return
		}
		d.dwarf, d.dwarfErr = newDWARFIndex(src.name, data)
	})
	return d.dwarf, d.dwarfErr
}
