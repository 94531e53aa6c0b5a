package elfx

import "debug/dwarf"

// DWARF returns the object's DWARF, from its debug file when that has
// it, for readers of types (a language runtime's struct layouts). Each
// call builds it anew: callers keep what they need of it.
func (o *Object) DWARF() (*dwarf.Data, error) {
	src := o.dwarfSource()
	if src == nil {
		return nil, errorf("%s: no DWARF", o.name)
	}
	o.dwarfRead.Store(true)
	return src.loadDWARF()
}
