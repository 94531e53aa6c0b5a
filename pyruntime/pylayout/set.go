package pylayout

import (
	"fmt"
	"reflect"
	"strings"
)

// Set stores value in the member path names ("Thread.Next", as package
// internal/spec names members): the one way the generator and the DWARF
// reader fill a Layout from a list of measurements.
func (l *Layout) Set(path string, value int64) error {
	f := reflect.ValueOf(l).Elem()
	for _, name := range strings.Split(path, ".") {
		if f.Kind() != reflect.Struct {
			return fmt.Errorf("layout member %q: %s is not a struct", path, name)
		}
		f = f.FieldByName(name)
		if !f.IsValid() {
			return fmt.Errorf("layout has no member %q", path)
		}
	}
	switch {
	case f.CanUint():
		f.SetUint(uint64(value))
	case f.CanInt():
		f.SetInt(value)
	default:
		return fmt.Errorf("layout member %q is not a number", path)
	}
	return nil
}
