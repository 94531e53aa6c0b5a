package goruntime

//go:generate go run ./internal/layoutgen -o layouts_gen.go

import (
	"debug/dwarf"
	"fmt"
	"strconv"
	"strings"
)

// release is the Go release a runtime version string names: "go1.26"
// for "go1.26.8" and "go1.26rc1"; ok is false for a development build
// or a string that is no Go version, and for a build with experiments
// ("go1.22.12 X:nocoverageredesign"), whose runtime may differ.
func release(version string) (string, bool) {
	rest, ok := strings.CutPrefix(version, "go1.")
	if !ok || strings.Contains(rest, " ") {
		return "", false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return "", false
	}
	if tail := rest[end:]; tail != "" && !strings.HasPrefix(tail, ".") && !strings.HasPrefix(tail, "rc") {
		return "", false
	}
	return "go1." + rest[:end], true
}

// tableStructs are the runtime's struct types of the Go release version
// for goarch from the generated table, as the DWARF would give them
// (sizes and field offsets; no field types), so one reading of layouts
// serves both.
func tableStructs(version, goarch string) (map[string]*dwarf.StructType, error) {
	rel, ok := release(version)
	if !ok {
		return nil, fmt.Errorf("%w: %q is not a Go release", errNoLayout, version)
	}
	text, ok := generatedLayoutText(rel + "/" + goarch)
	if !ok {
		return nil, fmt.Errorf("%w: no table for %s on %s", errNoLayout, rel, goarch)
	}
	out := map[string]*dwarf.StructType{}
	var cur *dwarf.StructType
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		name, num, _ := strings.Cut(line, " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("goruntime: generated layout %s/%s: %q", rel, goarch, line)
		}
		if s, ok := strings.CutPrefix(name, "="); ok {
			cur = &dwarf.StructType{StructName: s, Kind: "struct"}
			cur.ByteSize = n
			out[s] = cur
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("goruntime: generated layout %s/%s: a field before a struct", rel, goarch)
		}
		cur.Field = append(cur.Field, &dwarf.StructField{Name: name, ByteOffset: n})
	}
	return out, nil
}

// TableHas reports whether the generated table has every layout the
// reader reads for the Go release version on goarch: a reader of such
// a program needs no DWARF, and ReadLayouts walks none.
func TableHas(version, goarch string) bool {
	structs, err := tableStructs(version, goarch)
	return err == nil && tableComplete(structs)
}

// tableComplete reports whether structs, a release's generated table,
// has the scheduler's clocks, which layoutgen reads with the label types
// (it builds a program that sets a label): then the table has every
// struct of infoStructs that the release has as a struct (no
// runtime.hmap after Go 1.23, a map and no struct for
// runtime/pprof.labelMap before Go 1.24), as a program's DWARF would.
func tableComplete(structs map[string]*dwarf.StructType) bool {
	return structs["runtime.schedt"] != nil && structs["runtime.sysmontick"] != nil && structs["runtime.workType"] != nil
}

// tableWaitReasons are runtime.waitReasonStrings of version's release,
// nil when the table has none.
func tableWaitReasons(version string) []string {
	rel, _ := release(version)
	for _, w := range generatedWaitReasons {
		if w.release == rel {
			return w.reasons
		}
	}
	return nil
}

// The generated tables are arrays of constants, data in the executable
// that the first lookup reads, rather than maps every process would
// build at start for the few reports of Go cores.
type (
	// generatedLayout is one release's layouts on one GOARCH.
	generatedLayout struct{ key, text string } // key: "go1.26/amd64"
	// generatedWaitReason is one release's runtime.waitReasonStrings.
	generatedWaitReason struct {
		release string
		reasons []string
	}
)

// generatedLayoutText returns the table's layouts for key ("go1.26/amd64").
func generatedLayoutText(key string) (string, bool) {
	for _, g := range generatedLayouts {
		if g.key == key {
			return g.text, true
		}
	}
	return "", false
}
