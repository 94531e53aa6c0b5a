package pylayout

import (
	"errors"
	"fmt"
)

//go:generate go run ./internal/genlayout -o table_gen.go

// generated holds a layout for every CPython version and build flavour
// genlayout measured; table_gen.go fills it (in an init function, so that
// genlayout, which imports this package, builds without the table).
var generated []Layout

// ErrUnknownVersion says the generated table has no layout for a version
// and build.
var ErrUnknownVersion = errors.New("no CPython layout for this version")

// Lookup returns the layout generated from CPython's headers for version v
// built as b.
func Lookup(v Version, b Build) (Layout, error) {
	for _, l := range generated {
		if l.Version == v && l.Build == b {
			return l, nil
		}
	}
	return Layout{}, fmt.Errorf("CPython %s %s: %w", v, b, ErrUnknownVersion)
}

// Known lists the versions and builds Lookup has layouts for.
func Known() []Layout {
	return append([]Layout(nil), generated...)
}
