package elfx

import "sync"

// keyedValue is one Keyed value, computed once.
type keyedValue struct {
	once sync.Once
	v    any
}

// Keyed returns the value compute derives from the object alone (the Go
// runtime's struct layouts, read from its DWARF), computing it once per
// key: the cores of a batch that share the object share the value, and
// concurrent callers wait for the one computation. The value is kept
// with the object's other tables, and computed again once a debug file
// is attached. key must be comparable; a caller's keys should be of an
// unexported type of its own, so that no two callers' keys collide.
func (o *Object) Keyed(key any, compute func() any) any {
	d := o.derived.Load()
	kv, ok := d.keyed.Load(key)
	if !ok {
		kv, _ = d.keyed.LoadOrStore(key, &keyedValue{})
	}
	e := kv.(*keyedValue)
	e.once.Do(func() { e.v = compute() })
	return e.v
}
